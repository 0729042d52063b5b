# User-facing switches. Everything else is found, not configured.
option(OPMARK_BUILD_TESTS "Build the GoogleTest suite" ON)
option(OPMARK_WARNINGS_AS_ERRORS "Treat compiler warnings as errors" OFF)
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
