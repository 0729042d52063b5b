# FindCUDNN: cuDNN headers and library. Hints: CUDNN_ROOT, CUDNN_HOME, the CUDA toolkit, the system paths.
# Result: CUDNN_FOUND, CUDNN_VERSION, target CUDNN::cudnn.
include(OpmarkFindLibrary)
opmark_find_library(CUDNN cudnn_version.h cudnn cudnn_version.h CUDNN_MAJOR CUDNN_MINOR CUDNN_PATCHLEVEL CUDNN::cudnn)
