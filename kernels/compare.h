#pragma once
// Checks a device result against a float64 device reference, element by element, on the GPU.
#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "core/dtype.h"

namespace opmark::kernels {

struct CompareResult {
  std::size_t count = 0;
  std::size_t wrong = 0;               // elements outside tolerance, NaN or never written (poison)
  std::size_t first_wrong = 0;         // index of the first wrong element (valid when wrong > 0)
  double first_wrong_value = 0;        // what the result held there
  double first_wrong_expected = 0;     // what the reference says
  double max_abs_error = 0;            // over all finite elements
  double max_scaled_error = 0;         // max |out - ref| / max(|ref|, rms(ref))
  double rel_norm_error = 0;           // ||out - ref|| / ||ref||
  double ref_rms = 0;
  double tolerance = 0;
  double norm_tolerance = -1;          // negative: no bound on rel_norm_error

  bool norm_ok() const { return norm_tolerance < 0 || rel_norm_error <= norm_tolerance; }
  bool ok() const { return wrong == 0 && norm_ok(); }
  std::string summary() const;  // "12 of 1048576 wrong (first at 17: got nan, expected 0.25); max scaled error ..."
};

// An element is wrong when |out - ref| > tolerance * max(|ref|, rms(ref)) or out is not finite.
// Scaling by the reference's rms keeps elements that cancel to near zero from failing on rounding alone.
// tolerance = 0 demands exact equality (integer results). With norm_tolerance >= 0 the result is also wrong when
// ||out - ref|| / ||ref|| exceeds it: a depth-scaled elementwise tolerance (core::depth_tolerance) then cannot hide
// an error spread over the whole output. Each element of `out` is multiplied by `out_scale` first: an fp8 result
// stored scaled (a per-tensor scale s) is compared with its descale 1/s.
CompareResult compare_to_reference(const void* out, core::DType out_type, const double* ref, std::size_t count,
                                   double tolerance, cudaStream_t stream, double norm_tolerance = -1,
                                   double out_scale = 1);

// The worse of two checks of one case (several outputs, or ranks): the first one wrong, else the one with the larger
// max scaled error.
CompareResult worse_of(const CompareResult& a, const CompareResult& b);

}  // namespace opmark::kernels
