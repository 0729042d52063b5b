# Names and filters on the CPU (issue 38). --benchmark_list_tests prints the names results.jsonl uses (no
# "/manual_time"), one a line and nothing else on stdout, as many as the suite's cases; a listed name, anchored,
# selects that case alone; a filter that selects nothing exits non-zero naming near names; and a run counts the
# cases the filter selected.
execute_process(COMMAND "${BENCH}" --opmark_suite=submission --benchmark_list_tests
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "listing the submission suite exited ${rc}:\n${err}")
endif()
if(NOT err MATCHES "names ([0-9]+) distinct cases")
  message(FATAL_ERROR "the suite's case count is not on stderr:\n${err}")
endif()
set(count ${CMAKE_MATCH_1})
string(REGEX REPLACE "\n$" "" out "${out}")
string(REPLACE "\n" ";" names "${out}")
list(LENGTH names listed)
if(NOT listed EQUAL count)
  message(FATAL_ERROR "the suite has ${count} cases but ${listed} lines were listed on stdout")
endif()
foreach(name IN LISTS names)
  if(NOT name MATCHES "^[a-z_0-9]+/[a-z_]+/[a-z0-9]+/[^ ]+$" OR name MATCHES "manual_time")
    message(FATAL_ERROR "not a case name as results.jsonl writes it: '${name}'")
  endif()
endforeach()

# The first, a middle and the last name, each anchored: that case and no other.
math(EXPR middle "${listed} / 2")
math(EXPR last "${listed} - 1")
foreach(index 0 ${middle} ${last})
  list(GET names ${index} name)
  execute_process(COMMAND "${BENCH}" --opmark_suite=submission --benchmark_list_tests "--benchmark_filter=^${name}$"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE one ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT one STREQUAL "${name}\n")
    message(FATAL_ERROR "'^${name}$' listed (exit ${rc}):\n${one}${err}")
  endif()
endforeach()

# Nothing selected: an error, with near names.
set(typo "^gemm/fwd/fp16/m=1760/n=16/k=1760/ta=N/tb=N/batch=3$")
execute_process(COMMAND "${BENCH}" --benchmark_list_tests "--benchmark_filter=${typo}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE none ERROR_VARIABLE err)
set(nearest "gemm/fwd/fp16/m=1760/n=16/k=1760/ta=N/tb=N/batch=1")
if(rc EQUAL 0 OR NOT none STREQUAL "" OR NOT err MATCHES "matches none of the [0-9]+ case names; near names:\n  ${nearest}\n")
  message(FATAL_ERROR "a filter that selects nothing exited ${rc}:\n${none}${err}")
endif()

# A run of the cases a filter selects counts those: said before running where there is no GPU, and in the
# progress line ([i/2]) where there is one. Two small cases.
file(REMOVE_RECURSE "${OUT}")
execute_process(COMMAND "${BENCH}" "--benchmark_filter=^gemm/fwd/fp16/m=1760/n=16/k=1760/ta=(N|T)/tb=N/batch=1$"
                        "--opmark_out=${OUT}" --opmark_recheck=off
                RESULT_VARIABLE rc OUTPUT_VARIABLE run ERROR_VARIABLE err)
if(err MATCHES "no CUDA device is present")
  if(NOT err MATCHES "none of the 2 selected case\\(s\\) was run")
    message(FATAL_ERROR "without a GPU, the run does not count the 2 selected cases:\n${err}")
  endif()
elseif(NOT err MATCHES "\\[2/2\\]" OR err MATCHES "\\[[0-9]+/[013-9][0-9]*\\]")
  message(FATAL_ERROR "the progress line does not count the 2 selected cases:\n${err}")
endif()
