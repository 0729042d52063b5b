#include "aggregate/compare.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "aggregate/scores.h"
#include "core/case.h"
#include "core/counters.h"
#include "core/error.h"
#include "core/model_table.h"
#include "core/schema.h"

namespace opmark::aggregate {

namespace counter = core::counter;

namespace {

// Both times short: whether the runs say the launch rate set them.
std::string short_flag_of(const CaseResult& b, const CaseResult& a) {
  if (!(b.time_us < kShortCaseUs && a.time_us < kShortCaseUs)) return "";
  if (!b.has_counter(counter::launch_bound) && !a.has_counter(counter::launch_bound)) return "short";
  return b.counter(counter::launch_bound) > 0 || a.counter(counter::launch_bound) > 0 ? counter::launch_bound : "";
}

double geomean(const std::vector<double>& ratios) {
  double log_sum = 0;
  int n = 0;
  for (double r : ratios)
    if (r > 0) log_sum += std::log(r), ++n;
  return n ? std::exp(log_sum / n) : 0.0;
}

}  // namespace

std::string chosen_candidate(const std::string& label) {
  for (const char* tail : {" (fastest of ", " (pinned by "})
    if (const auto at = label.find(tail); at != std::string::npos) return label.substr(0, at);
  return "";
}

void sort_by_effect(std::vector<CaseComparison>& cases) {
  std::stable_sort(cases.begin(), cases.end(), [](const CaseComparison& x, const CaseComparison& y) {
    if (x.verdict != y.verdict) return static_cast<int>(x.verdict) < static_cast<int>(y.verdict);
    const double rx = x.judged.ratio, ry = y.judged.ratio;
    const double ex = std::abs(std::log(rx > 0 ? rx : 1.0)), ey = std::abs(std::log(ry > 0 ? ry : 1.0));
    if (ex != ey) return ex > ey;
    return x.name < y.name;
  });
}

std::vector<GroupRatio> group_ratios(const std::vector<CaseComparison>& cases,
                                     const std::map<std::string, std::set<std::string>>& groups_of) {
  std::map<std::string, std::vector<double>> ratios;
  for (const auto& c : cases) {
    auto it = groups_of.find(c.name);
    if (it == groups_of.end()) continue;
    for (const auto& group : it->second) ratios[group].push_back(c.ratio);
  }
  std::vector<GroupRatio> out;
  for (const auto& [name, r] : ratios) out.push_back({name, static_cast<int>(r.size()), geomean(r)});
  return out;
}

Comparison compare(const ResultSet& before, const ResultSet& after, double change_floor) {
  Comparison out;
  std::vector<double> ratios;
  std::map<std::string, std::set<std::string>> family_of;
  for (const auto& [name, b] : before.cases) {
    auto it = after.cases.find(name);
    if (it == after.cases.end() || !it->second.timed()) {
      if (b.timed()) out.only_before.push_back(name);
      continue;
    }
    if (!b.timed()) continue;
    const CaseResult& a = it->second;
    CaseComparison c;
    c.name = c.short_name = name;
    try {
      const core::Case parsed = core::parse_case_name(name);
      c.short_name = core::short_case_name(parsed);
      c.family = parsed.family;
      c.precision = parsed.precision;
      family_of[name] = {c.family};
    } catch (const Error&) {
      // A name from another tool (a Google Benchmark file of someone else's): compared under its full name.
    }
    c.before_us = b.time_us;
    c.after_us = a.time_us;
    c.ratio = b.time_us > 0 ? a.time_us / b.time_us : 0;
    c.judged = case_verdict(b, a, change_floor);
    c.unstable = b.unstable() && a.unstable() ? "before and after" : b.unstable() ? "before" : a.unstable() ? "after" : "";
    c.verdict = c.judged.verdict;
    c.regression = c.verdict == Verdict::slower;
    c.short_flag = short_flag_of(b, a);
    if (const std::string was = chosen_candidate(b.label), is = chosen_candidate(a.label); was != is)
      c.candidate_change = was + " -> " + is;
    out.launch_bound_recorded =
        out.launch_bound_recorded || b.has_counter(counter::launch_bound) || a.has_counter(counter::launch_bound);
    out.regressions += c.regression;
    out.unstable += !c.unstable.empty();
    out.in_cycles += c.judged.basis == "cycles";
    ++out.counts[c.verdict];
    ratios.push_back(c.ratio);
    out.cases.push_back(std::move(c));
  }
  for (const auto& [name, a] : after.cases)
    if (a.timed() && !before.cases.count(name)) out.only_after.push_back(name);
  out.geomean_ratio = geomean(ratios);
  sort_by_effect(out.cases);
  // Families in core's order (the order of the tables and the page), unknown ones after.
  const std::vector<std::string> known = core::known_families();
  out.families = group_ratios(out.cases, family_of);
  const auto rank = [&](const std::string& f) { return std::find(known.begin(), known.end(), f) - known.begin(); };
  std::stable_sort(out.families.begin(), out.families.end(),
                   [&](const GroupRatio& x, const GroupRatio& y) { return rank(x.name) < rank(y.name); });
  out.context = context_rows(before.context, after.context);
  return out;
}

std::map<std::string, std::set<std::string>> areas_of_cases(const std::string& shapes_dir,
                                                            const std::set<std::string>& precisions) {
  const std::vector<Area> areas = load_areas((std::filesystem::path(shapes_dir) / "areas.yaml").string());
  const std::vector<core::ModelTable> models = core::load_models({"all"}, {shapes_dir});
  std::map<std::string, std::set<std::string>> out;
  for (const auto& area : areas)
    for (const auto& model : models) {
      if (std::find(area.models.begin(), area.models.end(), model.name) == area.models.end()) continue;
      for (const auto& precision : precisions)
        for (const auto& call : core::model_calls(model, {}, precision))
          if (call.c) out[core::make_case_name(*call.c)].insert(area.name);
    }
  return out;
}

namespace {

std::string value_of(const std::map<std::string, std::string>& context, const std::string& key) {
  if (key == "l2_mode") {  // scores.h: the typed key, or an older run's timing sentence
    const auto mode = l2_mode(context);
    return mode ? core::name_of(*mode) : "";
  }
  auto it = context.find(key);
  if (it != context.end()) return it->second;
  // A run without the key wrote results format 1 (opmark-bench before format 2 recorded it); an empty context is
  // no run of opmark-bench's (a Google Benchmark file from elsewhere): nothing to say.
  if (key == "results_format" && !context.empty()) return "1";
  return "";
}

}  // namespace

std::vector<ContextRow> context_rows(const std::map<std::string, std::string>& before,
                                     const std::map<std::string, std::string>& after) {
  static const std::vector<std::pair<const char*, const char*>> kKeys = {
      {"gpu", "GPU"},
      {"gpu_count_used", "GPUs used"},
      {"driver_version", "driver"},
      {"cuda_driver_version", "CUDA (driver)"},
      {"cuda_runtime_version", "CUDA (runtime)"},
      {"cudnn_version", "cuDNN"},
      {"cublas_version", "cuBLAS"},
      {"cublaslt_version", "cuBLASLt"},
      {"cusparse_version", "cuSPARSE"},
      {"nccl_version", "NCCL"},
      {"version", "opmark version"},
      {"git", "opmark commit"},
      {"rules_version", "rules version"},
      {"results_format", "results format"},
      {"timing_mode", "timing mode"},
      {"l2_mode", "L2 mode"},
  };
  std::vector<ContextRow> rows;
  for (const auto& [key, label] : kKeys) {
    ContextRow row{key, label, value_of(before, key), value_of(after, key)};
    if (!row.before.empty() || !row.after.empty()) rows.push_back(std::move(row));
  }
  return rows;
}

bool commits_differ(const std::vector<ContextRow>& rows) {
  for (const auto& row : rows)
    if (row.key == "git") return row.differs();
  return false;
}

}  // namespace opmark::aggregate
