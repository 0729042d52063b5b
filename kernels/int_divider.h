#pragma once
// Division of 32-bit unsigned indices by a divisor fixed at launch, as a multiply-high, an add and a shift
// (Granlund and Montgomery's method): an index kernel that divides per element (a permute's element path) spends
// most of its instructions in the hardware-less 32-bit division otherwise. Exact for every n below 2^31.
#include <cuda_runtime.h>

#include <cstdint>

namespace opmark::kernels {

class IntDivider {
 public:
  // d: 1 to 2^31 - 1.
  __host__ __device__ explicit IntDivider(unsigned d) : divisor_(d) {
    while (shift_ < 32 && (std::uint64_t{1} << shift_) < d) ++shift_;
    magic_ = static_cast<unsigned>(((std::uint64_t{1} << 32) * ((std::uint64_t{1} << shift_) - d)) / d + 1);
  }
  __host__ __device__ unsigned divisor() const { return divisor_; }
  // n / divisor for n < 2^31.
  __host__ __device__ unsigned div(unsigned n) const {
#ifdef __CUDA_ARCH__
    const unsigned high = __umulhi(n, magic_);
#else
    const unsigned high = static_cast<unsigned>((std::uint64_t{n} * magic_) >> 32);
#endif
    return (high + n) >> shift_;
  }
  // The quotient, and the remainder into *rem.
  __host__ __device__ unsigned divmod(unsigned n, unsigned* rem) const {
    const unsigned q = div(n);
    *rem = n - q * divisor_;
    return q;
  }

 private:
  unsigned divisor_ = 1, magic_ = 1, shift_ = 0;
};

}  // namespace opmark::kernels
