# Runs one GEMM case. Without a GPU the benchmark must say so plainly and exit non-zero; with one, the case must
# run, verify and leave the results log behind. A folder that holds results is refused (issue 37): start empty.
file(REMOVE_RECURSE "${OUT}")
execute_process(COMMAND "${BENCH}" "--benchmark_filter=^gemm/fwd/fp16/m=1760/n=16/k=1760/ta=N/tb=N/batch=1$"
                        --benchmark_repetitions=2 "--opmark_out=${OUT}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(err MATCHES "no CUDA device is present")
  if(rc EQUAL 0)
    message(FATAL_ERROR "no GPU, but opmark-bench exited 0:\n${out}${err}")
  endif()
  # ... and leaves no folder behind it made for results it never wrote.
  if(EXISTS "${OUT}")
    message(FATAL_ERROR "no GPU, but opmark-bench left its output folder ${OUT} behind")
  endif()
  message(STATUS "no GPU: opmark-bench said so, exited ${rc} and left no empty folder")
  return()
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "opmark-bench exited ${rc}:\n${out}${err}")
endif()
if(NOT out MATCHES "1 case in [0-9]+ s: 1 ok, 0 failed, 0 unstable, 0 skipped")
  message(FATAL_ERROR "expected one verified case:\n${out}")
endif()
file(READ "${OUT}/results.jsonl" log)
if(NOT log MATCHES "\"status\":\"ok\"")
  message(FATAL_ERROR "results.jsonl has no ok run:\n${log}")
endif()
