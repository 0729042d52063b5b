#pragma once
// Storage type <-> fp32 for kernels that compute in fp32 whatever they store (the pointwise and reduce families).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

namespace opmark::kernels {

template <class T>
__device__ __forceinline__ float to_float(T v) {
  if constexpr (std::is_same_v<T, __half>) return __half2float(v);
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return __bfloat162float(v);
  else return static_cast<float>(v);
}

template <class T>
__device__ __forceinline__ T from_float(float v) {
  if constexpr (std::is_same_v<T, __half>) return __float2half_rn(v);
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return __float2bfloat16_rn(v);
  else return v;
}

}  // namespace opmark::kernels
