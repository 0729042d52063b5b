# FindNCCL: NCCL headers and library. Hints: NCCL_ROOT, NCCL_HOME, the CUDA toolkit, the system paths.
# Result: NCCL_FOUND, NCCL_VERSION, target NCCL::nccl.
include(OpmarkFindLibrary)
opmark_find_library(NCCL nccl.h nccl nccl.h NCCL_MAJOR NCCL_MINOR NCCL_PATCH NCCL::nccl)
