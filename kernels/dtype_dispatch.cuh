#pragma once
// Maps a runtime DType to its CUDA type, so each kernel is written once as a template.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "core/dtype.h"
#include "core/error.h"

namespace opmark::kernels {

template <class T>
struct TypeTag {
  using type = T;
};

template <class F>
decltype(auto) dispatch_dtype(core::DType t, F&& f) {
  switch (t) {
    case core::DType::f64: return f(TypeTag<double>{});
    case core::DType::f32: return f(TypeTag<float>{});
    case core::DType::f16: return f(TypeTag<__half>{});
    case core::DType::bf16: return f(TypeTag<__nv_bfloat16>{});
    case core::DType::f8_e4m3: return f(TypeTag<__nv_fp8_e4m3>{});
    case core::DType::i8: return f(TypeTag<std::int8_t>{});
    case core::DType::i32: return f(TypeTag<std::int32_t>{});
  }
  throw Error("unhandled element type");
}

// For kernels written for fp32, fp16 and bf16 only, so the other types are not instantiated: those throw
// "<what_runs> fp32, fp16 and bf16, not <t>" (core::require_float_type).
template <class F>
decltype(auto) dispatch_float_dtype(core::DType t, const std::string& what_runs, F&& f) {
  core::require_float_type(t, what_runs);
  if (t == core::DType::f32) return f(TypeTag<float>{});
  if (t == core::DType::f16) return f(TypeTag<__half>{});
  return f(TypeTag<__nv_bfloat16>{});
}

template <class T>
__device__ __forceinline__ double load_as_double(const T* p, std::size_t i) {
  if constexpr (std::is_same_v<T, __half>) return static_cast<double>(__half2float(p[i]));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return static_cast<double>(__bfloat162float(p[i]));
  else if constexpr (std::is_same_v<T, __nv_fp8_e4m3>) return static_cast<double>(static_cast<float>(p[i]));
  else return static_cast<double>(p[i]);
}

template <class T>
__device__ __forceinline__ T store_from_double(double v) {
  if constexpr (std::is_same_v<T, __half>) return __double2half(v);
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return __double2bfloat16(v);
  else if constexpr (std::is_same_v<T, __nv_fp8_e4m3>) return __nv_fp8_e4m3(static_cast<float>(v));
  else return static_cast<T>(v);
}

inline unsigned blocks_for(std::size_t count, unsigned threads, unsigned max_blocks = 65535u * 8u) {
  std::size_t b = (count + threads - 1) / threads;
  if (b < 1) b = 1;
  return static_cast<unsigned>(b > max_blocks ? max_blocks : b);
}

}  // namespace opmark::kernels
