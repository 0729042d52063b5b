#include "aggregate/score_report.h"

#include <cstdarg>
#include <cstdio>
#include <filesystem>
#include <map>
#include <utility>

#include "aggregate/headroom.h"

namespace opmark::aggregate {

ScoreReport score_report(const ResultSet& results, const std::vector<core::ModelTable>& models,
                         const std::string& areas_file, const core::Symbols& inputs, const std::string& precision) {
  ScoreReport r;
  for (const auto& m : models) r.models.push_back(score_model(m, inputs, precision, results));
  if (std::filesystem::exists(areas_file))
    for (const auto& area : load_areas(areas_file)) {
      AreaScore s = score_area(area, r.models);
      if (s.models.empty()) continue;
      r.areas.push_back(s);
      r.area_defs.push_back(area);
    }
  return r;
}

nlohmann::json score_report_json(const ScoreReport& report, const ResultSet& results, const std::string& results_label,
                                 const std::string& precision) {
  nlohmann::json j;
  j["lower_is_better"] = true;
  j["unit"] = "ms";
  j["precision"] = precision;
  j["results"] = results_label;
  if (results.context.count("gpu")) j["gpu"] = results.context.at("gpu");
  j["models"] = nlohmann::json::array();
  for (const auto& s : report.models) {
    nlohmann::json m = {{"name", s.name},         {"area", s.area},
                        {"score_ms", s.score_ms}, {"calls", s.calls},
                        {"coverage_calls", s.coverage_calls()}, {"missing", s.missing}};
    m["coverage_time"] = s.coverage_time() >= 0 ? nlohmann::json(s.coverage_time()) : nlohmann::json(nullptr);
    if (s.parallel_ms) m["parallel_ms"] = *s.parallel_ms;  // only for tables with a dependency graph
    // Only where set: a variant's score says which framework configuration its real time is of.
    if (!s.framework_config.empty()) m["framework_config"] = s.framework_config;
    // Only where some cases are missing: a whole run's scores.json stays what it was.
    if (s.partial()) m["partial"] = true;
    // Only where there are some: the scores.json of a run without unstable cases stays what it was.
    if (!s.unstable.empty()) m["unstable"] = s.unstable;
    if (s.measured_ms) {
      m["measured_ms"] = *s.measured_ms;
      m["measured_device"] = s.measured_device;
      m["score_over_measured"] = *s.measured_ms > 0 ? s.score_ms / *s.measured_ms : 0.0;
    }
    // Tables traced with the real model's times (issue 17) only: older tables' entries stay what they were.
    if (s.has_real_times()) {
      if (s.graph_ms) m["graph_ms"] = *s.graph_ms;
      if (s.kernel_ms) m["kernel_ms"] = *s.kernel_ms;
      if (s.graph_suspect) m["graph_suspect"] = true;  // only where flagged: other entries stay what they were
      const ScoreCheck check = check_score(s, results.context.count("gpu") ? results.context.at("gpu") : "");
      if (check.real_ms) {
        m["score_over_real"] = check.ratio();
        m["real_kind"] = check.real_kind;
      } else {
        m["score_over_real"] = nullptr;
        m["no_real_ratio"] = check.why_not;
      }
      nlohmann::json families = nlohmann::json::object();
      for (const auto& [name, f] : s.families)
        families[name] = {{"score_ms", f.score_ms}, {"traced_ms", f.traced_ms},
                          {"traced_scored_ms", f.traced_scored_ms}, {"calls", f.calls},
                          {"scored_calls", f.scored_calls}};
      m["families"] = families;
    }
    j["models"].push_back(m);
  }
  j["areas"] = nlohmann::json::array();
  for (const auto& a : report.areas) {
    j["areas"].push_back({{"name", a.name}, {"score_ms", a.score_ms}, {"models", a.models}});
    if (a.partial) j["areas"].back()["partial"] = true;
  }
  return j;
}

namespace {

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* fmt, ...) {
  char buffer[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buffer, sizeof buffer, fmt, args);
  va_end(args);
  return buffer;
}

const ModelScore* find_score(const ScoreReport& report, const std::string& model) {
  for (const auto& s : report.models)
    if (s.name == model) return &s;
  return nullptr;
}

// Whether the table's kernel times were traced on the set's GPU: only then do they stand beside opmark's.
bool traced_on(const ModelScore& s, const ScoredSet& set) {
  return !s.traced_device.empty() && s.traced_device == set.gpu();
}

// Per family: opmark's time beside the traced kernel time of the calls it measured (with a cold-L2 run's beside
// it, where given), and the traced time it has no case for (family other, and cases the run lacks). Where the
// table's kernel times were traced on another GPU than the run's, opmark's times alone.
std::string family_breakdown(const ModelScore& s, const ModelScore* cold, const ScoredSet& set) {
  const std::string system = set.system();
  if (!traced_on(s, set)) {
    std::string out = format("%s on %s by family: opmark's time; no ratio: the table's kernel times were traced on "
                             "%s\n  %-12s %8s %11s\n", s.name.c_str(), system.c_str(),
                             s.traced_device.empty() ? "an unnamed GPU" : s.traced_device.c_str(), "family", "calls",
                             "opmark ms");
    for (const auto& [name, f] : s.families)
      if (name != "other") out += format("  %-12s %8lld %11.4f\n", name.c_str(), static_cast<long long>(f.calls),
                                         f.score_ms);
    return out;
  }
  std::string out = format("%s on %s by family: opmark's time beside the traced kernel time of the same calls\n",
                           s.name.c_str(), system.c_str());
  out += format("  %-12s %8s %11s %11s %9s %14s", "family", "calls", cold ? "hot ms" : "opmark ms", "traced ms",
                cold ? "hot/traced" : "ratio", "unscored ms");
  out += cold ? format(" %11s %11s\n", "cold ms", "cold/traced") : "\n";
  double score = 0, cold_score = 0, traced = 0, unscored = 0;
  const auto ratio = [](double a, double b) { return b > 0 ? format("%.3f", a / b) : std::string("-"); };
  for (const auto& [name, f] : s.families) {
    const double left = f.traced_ms - f.traced_scored_ms;
    score += f.score_ms;
    traced += f.traced_scored_ms;
    unscored += left;
    out += format("  %-12s %8lld %11.4f %11.4f %9s %14.4f", name.c_str(), static_cast<long long>(f.calls),
                  f.score_ms, f.traced_scored_ms, ratio(f.score_ms, f.traced_scored_ms).c_str(), left);
    if (cold) {
      auto it = cold->families.find(name);
      const double c = it == cold->families.end() ? 0.0 : it->second.score_ms;
      cold_score += c;
      out += format(" %11.4f %11s", c, ratio(c, f.traced_scored_ms).c_str());
    }
    out += "\n";
  }
  out += format("  %-12s %8s %11.4f %11.4f %9s %14.4f", "all", "", score, traced, ratio(score, traced).c_str(),
                unscored);
  out += cold ? format(" %11.4f %11s\n", cold_score, ratio(cold_score, traced).c_str()) : "\n";
  return out;
}

// A partial score (--allow-missing) is a lower bound, no model's time: the table gives it no ratio.
void no_ratio_for_partial(ScoreCheck* check, const ModelScore& s) {
  check->real_ms.reset();
  check->why_not = "a partial score (" + std::to_string(s.missing.size()) + " of its cases missing) is no model's time";
}

}  // namespace

std::string ScoredSet::gpu() const {
  const auto it = results->context.find("gpu");
  return it == results->context.end() ? "" : it->second;
}

std::string ScoredSet::system() const {
  const std::string g = gpu();
  return g.empty() ? label : g;
}

ScoreCheck check_whole_score(const ModelScore& s, const std::string& gpu) {
  ScoreCheck check = check_score(s, gpu);
  if (s.partial()) no_ratio_for_partial(&check, s);
  return check;
}

namespace {

// A hot-L2 and a cold-L2 run of the same GPU among the sets, shown together; {nullptr, nullptr} where there is none.
std::pair<const ScoredSet*, const ScoredSet*> hot_cold_pair(const std::vector<ScoredSet>& sets) {
  const ScoredSet *hot = nullptr, *cold = nullptr;
  for (const auto& set : sets) {
    const auto mode = l2_mode(set.results->context);
    if (mode == core::L2Mode::hot && !hot) hot = &set;
    if (mode == core::L2Mode::cold && !cold) cold = &set;
  }
  if (hot && cold && hot->gpu() != cold->gpu()) return {nullptr, nullptr};
  return {hot && cold ? hot : nullptr, hot && cold ? cold : nullptr};
}

bool any_real_times(const std::vector<ScoredSet>& sets) {
  for (const auto& set : sets)
    for (const auto& s : set.report->models)
      if (s.has_real_times()) return true;
  return false;
}

}  // namespace

std::string score_validation_text(const std::vector<ScoredSet>& sets, bool per_set) {
  if (!any_real_times(sets)) return "";
  const auto [hot, cold] = hot_cold_pair(sets);
  if (!hot && !per_set) return "";
  std::string out =
      "\nScores against the real models: the traced model's time on the same GPU (graph: a CUDA-graph replay of the "
      "whole pass; kernel: the profiler's kernel time, where the capture failed or its time is suspect)\n";
  if (hot) {
    out += format("hot L2: %s; cold L2: %s\n", hot->label.c_str(), cold->label.c_str());
    out += format("%-24s %11s %11s %11s %7s %9s %9s  %s\n", "model", "hot ms", "cold ms", "real ms", "kind",
                  "hot/real", "cold/real", "real time");
    for (const auto& s : hot->report->models) {
      const ModelScore* c = find_score(*cold->report, s.name);
      ScoreCheck check = check_score(s, hot->gpu());
      if (s.partial() || (c && c->partial())) no_ratio_for_partial(&check, c && c->partial() ? *c : s);
      if (!c || !check.real_ms) {
        out += format("%-24s %11.4f %11s  no ratio: %s\n", s.name.c_str(), s.score_ms,
                      c ? format("%.4f", c->score_ms).c_str() : "-",
                      check.why_not.empty() ? "not in the cold run" : check.why_not.c_str());
        continue;
      }
      out += format("%-24s %11.4f %11.4f %11.4f %7s %9.3f %9.3f  %s\n", s.name.c_str(), s.score_ms, c->score_ms,
                    *check.real_ms, check.real_kind.c_str(), check.ratio(), c->score_ms / *check.real_ms,
                    hot_cold_verdict(s.score_ms, c->score_ms, *check.real_ms).c_str());
    }
    return out;
  }
  for (const auto& set : sets) {
    if (sets.size() > 1) out += format("%s\n", set.label.c_str());
    out += format("%-24s %11s %11s %7s %11s\n", "model", "score ms", "real ms", "kind", "score/real");
    for (const auto& s : set.report->models) {
      const ScoreCheck check = check_whole_score(s, set.gpu());
      if (check.real_ms)
        out += format("%-24s %11.4f %11.4f %7s %11.3f\n", s.name.c_str(), s.score_ms, *check.real_ms,
                      check.real_kind.c_str(), check.ratio());
      else
        out += format("%-24s %11.4f  no ratio: %s\n", s.name.c_str(), s.score_ms, check.why_not.c_str());
    }
  }
  return out;
}

std::string score_breakdown_text(const std::vector<ScoredSet>& sets) {
  if (!any_real_times(sets)) return "";
  const auto [hot, cold] = hot_cold_pair(sets);
  std::string out;
  for (const auto& set : sets) {
    if (cold == &set) continue;  // its times stand beside the hot run's
    for (const auto& s : set.report->models) {
      if (!s.has_real_times() || s.traced_us <= 0) continue;
      out += (out.empty() ? "\n" : "") +
             family_breakdown(s, hot == &set ? find_score(*cold->report, s.name) : nullptr, set);
      // Headroom holds opmark's calls against the framework's kernels, on the GPU they were traced on only.
      if (traced_on(s, set)) out += headroom_text(s, headroom_findings(s));
    }
  }
  return out;
}

}  // namespace opmark::aggregate
