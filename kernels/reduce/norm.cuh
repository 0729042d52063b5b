#pragma once
// What each normalising op computes (its row statistic, the two coefficients it keeps, the output), and the
// exact two-step statistics every path takes over a row at hand.
#include "kernels/reduce/common.cuh"

namespace opmark::kernels::reduce_detail {

// ---- what each normalising op computes: its row statistic, the two numbers it keeps, and the output ----

template <ReduceOp Op>
struct Norm;

// exp(v - m) as 2^(v log2(e) - m log2(e)): one fused multiply-add and the hardware's 2^x (what __expf(v - m) takes
// a subtraction and a multiplication for), with m log2(e) computed once a row.
constexpr float kLog2e = 1.4426950408889634f;
__device__ __forceinline__ float exp_less(float v, float scaled_max) { return exp2f(fmaf(v, kLog2e, -scaled_max)); }

template <>
struct Norm<ReduceOp::softmax> {
  using State = SoftmaxState;
  static constexpr bool kGamma = false, kBeta = false, kAdd = false;
  __device__ static float2 coef(State s, float) { return {s.m * kLog2e, 1.0f / s.s}; }
  __device__ static float apply(float v, float2 c, float, float) { return exp_less(v, c.x) * c.y; }
};
template <>
struct Norm<ReduceOp::log_softmax> {
  using State = SoftmaxState;
  static constexpr bool kGamma = false, kBeta = false, kAdd = false;
  __device__ static float2 coef(State s, float) { return {s.m, logf(s.s)}; }
  __device__ static float apply(float v, float2 c, float, float) { return v - c.x - c.y; }
};
template <bool Add>
struct LayerNorm {
  using State = Welford;
  static constexpr bool kGamma = true, kBeta = true, kAdd = Add;
  __device__ static float2 coef(State s, float cols) {
    return {s.mean, rsqrtf(s.m2 / cols + static_cast<float>(kLayerNormEps))};
  }
  __device__ static float apply(float v, float2 c, float g, float b) { return (v - c.x) * c.y * g + b; }
};
template <bool Add>
struct RmsNorm {
  using State = SumSquares;
  static constexpr bool kGamma = true, kBeta = false, kAdd = Add;
  __device__ static float2 coef(State s, float cols) { return {0.0f, rsqrtf(s.v / cols + static_cast<float>(kRmsNormEps))}; }
  __device__ static float apply(float v, float2 c, float g, float) { return v * c.y * g; }
};
template <>
struct Norm<ReduceOp::layernorm> : LayerNorm<false> {};
template <>
struct Norm<ReduceOp::add_layernorm> : LayerNorm<true> {};
template <>
struct Norm<ReduceOp::rmsnorm> : RmsNorm<false> {};
template <>
struct Norm<ReduceOp::add_rmsnorm> : RmsNorm<true> {};

// gamma or beta (kUsed) at a piece's column, widened; `fallback` where the op has none. Their alignment is the
// column's, not the row's: a piece of a row read past its unaligned start is not at an aligned column, so they are
// loaded as one 16-byte vector only where they lie on a 16-byte boundary (every piece of a vectorised row), else
// element by element (in fp16, 16 loads of gamma and beta for each 16-byte load of the input). They stay in L1.
template <bool kUsed, bool kVectors, class T, int N>
__device__ __forceinline__ void load_parameters(const T* __restrict__ p, float fallback, float (&f)[N]) {
  if constexpr (!kUsed) {
#pragma unroll
    for (int k = 0; k < N; ++k) f[k] = fallback;
  } else {
    if constexpr (kVectors && sizeof(Piece<T, N>) == 16) {
      if (reinterpret_cast<std::uintptr_t>(p) % 16 == 0) {
        widen(load_global<Piece<T, N>>(p), f);
        return;
      }
    }
#pragma unroll
    for (int k = 0; k < N; ++k) f[k] = to_float(p[k]);
  }
}

// The normalised values of v[0..N) (the input, widened) stored at out; gamma and beta start at the values' column
// (kVectorParameters: as 16-byte vectors where they can be).
template <ReduceOp Op, class T, int N, bool kVectorParameters = true>
__device__ __forceinline__ void write_values(const float (&v)[N], float2 c, const T* __restrict__ gamma,
                                             const T* __restrict__ beta, T* __restrict__ out) {
  using M = Norm<Op>;
  float g[N], b[N], o[N];
  load_parameters<M::kGamma, kVectorParameters>(gamma, 1.0f, g);
  load_parameters<M::kBeta, kVectorParameters>(beta, 0.0f, b);
#pragma unroll
  for (int k = 0; k < N; ++k) o[k] = M::apply(v[k], c, g[k], b[k]);
  store_global(out, narrow<T>(o));
}
// Writes a normalised piece (and with kAdd the sum beside it) at element e of a row.
// kWriteSum: false where the sum was written as it was read (the shared-memory paths); kVectorParameters: as
// write_values'.
template <ReduceOp Op, class T, int N, bool kWriteSum = Norm<Op>::kAdd, bool kVectorParameters = true>
__device__ __forceinline__ void write_piece(const Piece<T, N>& in, float2 c, const T* __restrict__ gamma,
                                            const T* __restrict__ beta, T* __restrict__ out, T* __restrict__ sum,
                                            std::int64_t e) {
  float v[N];
  widen(in, v);
  write_values<Op, T, N, kVectorParameters>(v, c, gamma, beta, out + e);
  if constexpr (kWriteSum) store_global(sum + e, in);
}

// Combines the states of a group of kGroup threads (1, a power of two up to 32 within a warp, or the whole block of
// kGroup threads); every thread of the warp or block must call it (the loops over rows below are uniform across them).
template <int kGroup, class S>
__device__ __forceinline__ S group_reduce(S s) {
  if constexpr (kGroup == 1) return s;
  else if constexpr (kGroup <= 32) {
    for (int offset = kGroup / 2; offset > 0; offset /= 2) s = S::combine(s, s.shuffled(offset));
    return s;
  } else {
    return block_reduce_of<kGroup>(s);
  }
}

template <int N>
__device__ __forceinline__ void add_exp(float& e, const float (&v)[N], float scaled_max) {
#pragma unroll
  for (int k = 0; k < N; ++k) e += exp_less(v[k], scaled_max);
}
template <int N>
__device__ __forceinline__ float sum_of_squared_deviations(const float (&v)[N], float mean) {
  float d2 = 0.0f;
#pragma unroll
  for (int k = 0; k < N; ++k) d2 += (v[k] - mean) * (v[k] - mean);
  return d2;
}

// The coefficients of a row whose values are at hand (in registers or shared memory), in two exact steps over them:
// softmax's max, then its sum of exponentials (one exponential per element, none to rescale a running sum, where
// the online update takes two); layer norm's mean, then its sum of squared deviations (no division per element, as
// Welford's update takes); RMSNorm's sum of squares. each(f) calls f(float (&v)[N]) for every chunk of this thread's
// share of the row (none for a thread without a row); it may also hand f padding that leaves a max, a sum and a sum
// of exponentials or squares as they are (Norm's pad_value). each_real(f) hands f the row's own values only, for
// layer norm's deviations, which padding would change. reduce(state) combines a state over the threads sharing the
// row (all of them call this); exact_coef below takes a group's.
template <ReduceOp Op, class Reduce, class Each, class EachReal>
__device__ __forceinline__ float2 exact_coef_by(Reduce&& reduce, Each&& each, EachReal&& each_real, float cols) {
  using M = Norm<Op>;
  using State = typename M::State;
  if constexpr (std::is_same_v<State, SoftmaxState>) {
    Max m;
    each([&](const auto& v) { m.add_chunk(v); });
    m = reduce(m);
    Sum e;
    const float scaled_max = m.v * kLog2e;
    each([&](const auto& v) { add_exp(e.v, v, scaled_max); });
    return M::coef(SoftmaxState{m.v, reduce(e).v}, cols);
  } else if constexpr (std::is_same_v<State, Welford>) {
    Sum sum;
    each([&](const auto& v) { sum.add_chunk(v); });
    const float mean = reduce(sum).v / cols;
    Sum deviations;
    each_real([&](const auto& v) { deviations.v += sum_of_squared_deviations(v, mean); });
    return M::coef(Welford{cols, mean, reduce(deviations).v}, cols);
  } else {
    SumSquares q;
    each([&](const auto& v) { q.add_chunk(v); });
    return M::coef(reduce(q), cols);
  }
}
template <ReduceOp Op, int kGroup, class Each, class EachReal>
__device__ __forceinline__ float2 exact_coef(Each&& each, EachReal&& each_real, float cols) {
  return exact_coef_by<Op>([](auto s) { return group_reduce<kGroup>(s); }, each, each_real, cols);
}
template <ReduceOp Op, int kGroup, class Each>
__device__ __forceinline__ float2 exact_coef(Each&& each, float cols) {
  return exact_coef<Op, kGroup>(each, each, cols);
}

// exact_coef over a row share held in registers, v[0..real) this thread's values and the rest padding (pad_value):
// the whole array for the passes padding leaves alone, the real values for layer norm's deviations.
template <ReduceOp Op, int kGroup, int N>
__device__ __forceinline__ float2 padded_coef(const float (&v)[N], int real, float cols) {
  return exact_coef<Op, kGroup>(
      [&](auto&& f) { f(v); },
      [&](auto&& f) {
#pragma unroll
        for (int k = 0; k < N; ++k)
          if (k < real) {
            const float one[1] = {v[k]};
            f(one);
          }
      },
      cols);
}

// What a missing element of the register cache holds: a value each pass over the whole cache may take in without
// changing its result (exp(-inf) = 0 in a sum of exponentials; 0 in a sum).
template <ReduceOp Op>
__device__ __forceinline__ float pad_value() {
  return std::is_same_v<typename Norm<Op>::State, SoftmaxState> ? -INFINITY : 0.0f;
}

}  // namespace opmark::kernels::reduce_detail
