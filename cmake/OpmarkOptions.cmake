# User-facing switches. Everything else is found, not configured.
option(OPMARK_BUILD_TESTS "Build the GoogleTest suite" ON)
option(OPMARK_WARNINGS_AS_ERRORS "Treat compiler warnings as errors" OFF)
option(OPMARK_PRECOMPILED_HEADERS "Precompile the headers most C++ files include" ON)
set(OPMARK_SHAPES_DIR "${CMAKE_CURRENT_SOURCE_DIR}/shapes" CACHE PATH
    "Default folder of YAML shape tables that opmark-bench loads")

function(opmark_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall>)
  if(OPMARK_WARNINGS_AS_ERRORS)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
  endif()
endfunction()

# Headers that nearly every C++ file of a target includes, parsed once for the target rather than once a file. For the
# aggregator and the tests, whose files nearly all parse nlohmann/json (and GoogleTest: TESTS); core's files, many of
# which include neither, took as long with it as without.
function(opmark_precompiled_headers target)
  if(NOT OPMARK_PRECOMPILED_HEADERS)
    return()
  endif()
  cmake_parse_arguments(PARSE_ARGV 1 arg "TESTS" "" "")
  set(headers <algorithm> <cstdint> <functional> <map> <memory> <nlohmann/json.hpp> <optional> <string> <vector>)
  if(arg_TESTS)
    list(APPEND headers <gtest/gtest.h>)
  endif()
  list(TRANSFORM headers REPLACE "^<(.*)>$" "$<$<COMPILE_LANGUAGE:CXX>:<\\1$<ANGLE-R>>")
  target_precompile_headers(${target} PRIVATE ${headers})
endfunction()
