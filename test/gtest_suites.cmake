# One CTest test per Google Test suite, found when ctest runs (like gtest_discover_tests' PRE_TEST mode, a suite where
# it makes one test per case). The CPU tests link cuBLASLt, whose loading alone takes 0.4 s of CPU: one process per
# case was 263 starts, three minutes of a 2-core machine's test command, for 2.5 s of testing.
#   opmark_add_gtest_suites(TARGET)  ->  CTest tests named SUITE, each running TARGET --gtest_filter=SUITE.*
function(opmark_add_gtest_suites target)
  set(script "${CMAKE_CURRENT_BINARY_DIR}/${target}_suites.cmake")
  file(GENERATE OUTPUT "${script}" CONTENT
"set(opmark_gtest_binary \"$<TARGET_FILE:${target}>\")
set(opmark_gtest_target \"${target}\")
set(opmark_gtest_dir \"${CMAKE_CURRENT_BINARY_DIR}\")
include(\"${CMAKE_CURRENT_FUNCTION_LIST_DIR}/gtest_suites_add.cmake\")
")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${script}")
endfunction()
