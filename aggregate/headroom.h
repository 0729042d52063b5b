#pragma once
// Benanza's headroom as findings: per model, the families whose opmark time differs from the framework's traced
// kernel time of the same calls by more than a threshold, each with both times and its cause.
#include <string>
#include <vector>

#include "aggregate/scores.h"

namespace opmark::aggregate {

// Why a family's time differs: the framework ran its calls in another layout than opmark's cases (layout), as
// several calls that opmark's case does in one (fusion), or with another kernel (different kernel); "unknown"
// where the table or the run names no kernels to tell.
struct HeadroomFinding {
  std::string family;
  double ours_ms = 0, traced_ms = 0;  // over the calls opmark measured
  std::string cause;
  std::string detail;  // the kernels, calls or layouts behind the cause
  double ratio() const { return traced_ms > 0 ? ours_ms / traced_ms : 0; }
};

inline constexpr double kHeadroomThreshold = 0.10;

// The findings of one model, largest difference in ms first.
std::vector<HeadroomFinding> headroom_findings(const ModelScore& score, double threshold = kHeadroomThreshold);

// The findings as text: one line per family under the model's name, or "" where there are none.
std::string headroom_text(const ModelScore& score, const std::vector<HeadroomFinding>& findings);

}  // namespace opmark::aggregate
