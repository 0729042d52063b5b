#include "bench/harness/output/run_summary.h"

#include <cstdio>

#include "bench/harness/output/case_line.h"
#include "core/counters.h"

namespace opmark::bench {

namespace counter_name = core::counter;
namespace {

struct FamilyCount {
  int cases = 0, ok = 0, failed = 0, unstable = 0, skipped = 0;
  double best = 0, best_pct = 0;
  bool compute = false;
  bool across_gpus = false;  // the best is a collective's bus bandwidth
  std::string best_name;
};

double counter(const SummaryCase& c, const char* key) {
  const auto it = c.counters.find(key);
  return it == c.counters.end() ? 0 : it->second;
}

}  // namespace

std::vector<std::string> run_summary(const std::vector<SummaryCase>& cases, const SummaryPlace& place, double run_s) {
  std::vector<std::pair<std::string, FamilyCount>> families;  // in run order
  FamilyCount all;
  for (const SummaryCase& c : cases) {
    auto it = families.begin();
    while (it != families.end() && it->first != c.family) ++it;
    if (it == families.end()) it = families.insert(families.end(), {c.family, FamilyCount{}});
    FamilyCount& f = it->second;
    for (FamilyCount* n : {&f, &all}) {
      ++n->cases;
      n->ok += c.status == "ok";
      n->failed += c.status == "failed";
      n->unstable += c.status == "unstable";
      n->skipped += c.status == "skipped";
    }
    if (c.status != "ok") continue;
    // The best rate: TFLOPS where the family counts FLOPs, else GB/s.
    const double tflops = counter(c, counter_name::tflops), gbs = counter(c, counter_name::gb_per_s);
    const auto take = [&](double rate, double pct, bool compute) {
      f.best = rate;
      f.best_pct = pct;
      f.compute = compute;
      f.best_name = c.short_name;
    };
    if (tflops > 0 && (!f.compute || tflops > f.best)) {
      take(tflops, counter(c, counter_name::pct_peak), true);
    } else if (const double busbw_factor = counter(c, counter_name::busbw_factor); busbw_factor > 0 && gbs > 0) {
      // A collective across GPUs: nccl-tests' bus bandwidth, against the links' peak where it is known; it heads
      // the family before any one-GPU case, whose "all-reduce" is a local copy.
      if (!f.across_gpus || gbs * busbw_factor > f.best) {
        take(gbs * busbw_factor, counter(c, counter_name::pct_link_bw), false);
        f.across_gpus = true;
      }
    } else if (!f.compute && !f.across_gpus && tflops <= 0 && gbs > 0) {
      // Memory bound: a case that fits in L2 can pass the DRAM peak; the headline is the best that does not.
      const double pct = counter(c, counter_name::pct_peak_bw);
      const bool in_dram = pct <= 100, best_in_dram = f.best_pct <= 100 && f.best > 0;
      if (f.best == 0 || (in_dram && !best_in_dram) || (in_dram == best_in_dram && gbs > f.best)) take(gbs, pct, false);
    }
  }
  std::vector<std::string> lines;
  char b[512];
  std::snprintf(b, sizeof b, "opmark: %d case%s in %.0f s: %d ok, %d failed, %d unstable, %d skipped", all.cases,
                all.cases == 1 ? "" : "s", run_s, all.ok, all.failed, all.unstable, all.skipped);
  lines.push_back(b);
  std::snprintf(b, sizeof b, "  %-10s %5s %4s %6s %8s %7s  %s", "family", "cases", "ok", "failed", "unstable",
                "skipped", "best rate (% of peak), case");
  lines.push_back(b);
  for (const auto& [name, f] : families) {
    std::string best;
    if (f.best > 0) {
      if (f.best_pct > 0)
        std::snprintf(b, sizeof b, "%.4g %s (%.3g%%) ", f.best, f.compute ? "TFLOPS" : "GB/s", f.best_pct);
      else
        std::snprintf(b, sizeof b, "%.4g %s ", f.best, f.compute ? "TFLOPS" : "GB/s");
      best = b + f.best_name;
    }
    std::snprintf(b, sizeof b, "  %-10s %5d %4d %6d %8d %7d  ", name.c_str(), f.cases, f.ok, f.failed, f.unstable,
                  f.skipped);
    std::string line = b + best;
    if (line.size() > kCaseLineWidth) line = line.substr(0, kCaseLineWidth - 3) + "...";
    lines.push_back(line);
  }
  if (!place.results.empty()) {
    lines.push_back("results: " + place.results);
    std::string models;
    for (const std::string& m : place.models) models += (models.empty() ? "" : ",") + m;
    lines.push_back("next:");
    if (!models.empty())
      lines.push_back("  " + place.aggregator + " scores " + place.out_dir + " --models=" + models +
                      "    # the models' scores from this run");
    lines.push_back("  " + place.aggregator + " spreadsheet " + place.out_dir + " --out " + place.out_dir +
                    "/sheets    # DeepBench-style tables");
  }
  return lines;
}

}  // namespace opmark::bench
