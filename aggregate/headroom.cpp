#include "aggregate/headroom.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace opmark::aggregate {
namespace {

std::pair<std::string, double> largest(const std::map<std::string, double>& by_kernel) {
  std::pair<std::string, double> best{"", 0};
  for (const auto& kv : by_kernel)
    if (kv.second > best.second) best = kv;
  return best;
}

// A kernel's name as the table keeps it: up to its parameter list, at most 90 characters.
std::string short_name(std::string name) {
  const std::string anonymous = "(anonymous namespace)::";
  for (auto at = name.find(anonymous); at != std::string::npos; at = name.find(anonymous)) name.erase(at, anonymous.size());
  std::string n = name.substr(0, name.find('('));
  while (!n.empty() && n.back() == ' ') n.pop_back();
  if (n.empty()) n = name;
  return n.size() > 90 ? n.substr(0, 87) + "..." : n;
}

// The families whose calls a library runs as one kernel, where the framework may run a bias or activation apart.
bool is_library_family(const std::string& family) {
  return family == "conv" || family == "gemm" || family == "attention" || family == "rnn";
}

std::string ms(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f ms", v);
  return buf;
}

}  // namespace

std::vector<HeadroomFinding> headroom_findings(const ModelScore& score, double threshold) {
  std::vector<HeadroomFinding> out;
  for (const auto& [family, f] : score.families) {
    if (family == "other" || !(f.traced_scored_ms > 0) || !(f.score_ms > 0)) continue;
    if (std::fabs(f.score_ms / f.traced_scored_ms - 1) <= threshold) continue;
    HeadroomFinding h{family, f.score_ms, f.traced_scored_ms, "", ""};
    const auto theirs = largest(f.traced_kernels_ms), ours = largest(f.our_kernels_ms);
    // In a channels_last model the framework's kernels read NHWC; a table from before batchnorm and pool had a
    // layout runs their cases NCHW.
    if (score.memory_format == "channels_last" && f.nchw_scored_calls > 0) {
      h.cause = "layout";
      h.detail = "the framework ran channels_last (NHWC)" +
                 (theirs.first.empty() ? std::string() : ", mostly " + short_name(theirs.first)) + "; opmark's " + family +
                 " cases run NCHW";
    } else if (f.fused_traced_ms >= f.traced_scored_ms / 2) {
      h.cause = "fusion";
      h.detail = std::to_string(fused_calls(f.fused_source_op)) + " framework calls (" + f.fused_source_op +
                 ", " + ms(f.fused_traced_ms) + " traced) are one opmark case";
    } else if (is_library_family(family) && theirs.first.find("elementwise") != std::string::npos) {
      h.cause = "fusion";
      h.detail = "in the framework's calls the longest kernel is an elementwise one (a bias or activation run "
                 "apart): " + short_name(theirs.first) + " (" + ms(theirs.second) + "); opmark's case runs " +
                 (ours.first.empty() ? std::string("its library call alone") : short_name(ours.first));
    } else if (!theirs.first.empty() && !ours.first.empty() && theirs.first != ours.first) {
      h.cause = "different kernel";
      h.detail = "framework: " + short_name(theirs.first) + " (" + ms(theirs.second) + "); opmark: " +
                 short_name(ours.first) + " (" + ms(ours.second) + ")";
    } else {
      h.cause = "unknown";
      h.detail = theirs.first.empty()   ? "the table names no framework kernels (retrace it on a GPU)"
                 : ours.first.empty()   ? "the run traced no kernels of opmark's cases"
                                        : "both ran " + short_name(theirs.first) + ": the same kernel";
    }
    out.push_back(std::move(h));
  }
  std::stable_sort(out.begin(), out.end(), [](const HeadroomFinding& a, const HeadroomFinding& b) {
    return std::fabs(a.ours_ms - a.traced_ms) > std::fabs(b.ours_ms - b.traced_ms);
  });
  return out;
}

std::string headroom_text(const ModelScore& score, const std::vector<HeadroomFinding>& findings) {
  if (findings.empty()) return "";
  char buf[256];
  // The framework's side of a variant ran in its configuration (its RMSNorm fused, say): the header says which.
  const std::string config =
      score.framework_config.empty() ? "" : " (framework_config: " + score.framework_config + ")";
  std::snprintf(buf, sizeof buf, "%s%s: families more than %.0f%% from the framework's kernels (headroom)\n",
                score.name.c_str(), config.c_str(), kHeadroomThreshold * 100);
  std::string out = buf;
  for (const auto& h : findings) {
    std::snprintf(buf, sizeof buf, "  %-10s opmark %9.4f ms  framework %9.4f ms  %6.2fx  %-16s ", h.family.c_str(),
                  h.ours_ms, h.traced_ms, h.ratio(), h.cause.c_str());
    out += buf + h.detail + "\n";
  }
  return out;
}

}  // namespace opmark::aggregate
