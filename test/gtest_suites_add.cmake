# Run by ctest (test/gtest_suites.cmake includes it): lists the binary's suites and adds one test for each. A binary
# that is missing or cannot list gives one failing test that says so, not silently no tests.
if(NOT EXISTS "${opmark_gtest_binary}")
  add_test("${opmark_gtest_target}_NOT_BUILT" "${opmark_gtest_target}_NOT_BUILT")
  return()
endif()
execute_process(COMMAND "${opmark_gtest_binary}" --gtest_list_tests WORKING_DIRECTORY "${opmark_gtest_dir}"
  OUTPUT_VARIABLE listing ERROR_VARIABLE listing_error RESULT_VARIABLE listed TIMEOUT 120)
if(NOT listed EQUAL 0)
  add_test("${opmark_gtest_target}_NOT_LISTED" "${opmark_gtest_binary}" --gtest_list_tests)
  return()
endif()
string(REPLACE "\n" ";" lines "${listing}")
foreach(line IN LISTS lines)
  # A suite's line is unindented and ends its name with a dot (a typed suite's is followed by "  # TypeParam = ...").
  if(line MATCHES "^([^ #][^ ]*)\\.( .*)?$")
    set(suite "${CMAKE_MATCH_1}")
    add_test("${suite}" "${opmark_gtest_binary}" "--gtest_filter=${suite}.*" --gtest_brief=1)
    set_tests_properties("${suite}" PROPERTIES WORKING_DIRECTORY "${opmark_gtest_dir}" LABELS "${opmark_gtest_target}")
  endif()
endforeach()
