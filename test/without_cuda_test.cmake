# -DOPMARK_CUDA=OFF configures with no CUDA toolkit in reach: nvcc off the PATH and CUDACXX empty, opmark-aggregate
# and its tests alone, and no opmark-bench.
#   cmake -DSOURCE=DIR -DOUT=DIR -DCXX=c++ -P without_cuda_test.cmake
file(REMOVE_RECURSE "${OUT}")
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env --unset=CUDACXX --unset=CUDA_PATH --unset=CUDAToolkit_ROOT
          PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
          ${CMAKE_COMMAND} -S "${SOURCE}" -B "${OUT}" -DOPMARK_CUDA=OFF -DOPMARK_FUZZ=OFF
          -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_CUDA_COMPILER=/nonexistent/nvcc
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring with OPMARK_CUDA=OFF failed (exit ${rc}):\n${out}\n${err}")
endif()
file(READ "${OUT}/CMakeCache.txt" cache)
if(cache MATCHES "CMAKE_CUDA_COMPILER_LOADED|CUDAToolkit_NVCC_EXECUTABLE:FILEPATH=/")
  message(FATAL_ERROR "OPMARK_CUDA=OFF still looked for CUDA")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build "${OUT}" --target help OUTPUT_VARIABLE targets)
if(NOT targets MATCHES "opmark-aggregate" OR targets MATCHES "opmark-bench")
  message(FATAL_ERROR "OPMARK_CUDA=OFF should build opmark-aggregate and not opmark-bench; the targets:\n${targets}")
endif()
message(STATUS "OPMARK_CUDA=OFF: configured without CUDA; opmark-aggregate and its tests, no opmark-bench")
file(REMOVE_RECURSE "${OUT}")
