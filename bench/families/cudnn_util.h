#pragma once
// cuDNN plumbing shared by the convolution and RNN families: checked calls, the process-wide handle, types.
#include <cudnn.h>

#include "bench/families/handles.h"  // cudnn_handle
#include "bench/families/library_check.h"  // OPMARK_CHECK_CUDNN
#include "bench/families/library_types.h"  // cudnn_data_type, for every cuDNN family
#include "core/dtype.h"
#include "core/error.h"
