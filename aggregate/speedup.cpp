#include "aggregate/speedup.h"

#include <algorithm>
#include <cstdio>
#include <set>

namespace opmark::aggregate {

namespace {


const ModelScore* find_model(const ScoreReport& report, const std::string& name) {
  for (const auto& s : report.models)
    if (s.name == name) return &s;
  return nullptr;
}

// Both sides' real times of one model, of one kind: where one side would take the graph time and the other the
// kernel time (one flagged suspect), both take the kernel time, so the ratio compares like with like.
void add_real_times(const ModelScore& a, const std::string& gpu_a, const ModelScore& b, const std::string& gpu_b,
                    SpeedupRow* row) {
  const ScoreCheck ca = check_score(a, gpu_a), cb = check_score(b, gpu_b);
  if (!ca.real_ms || !cb.real_ms) {
    row->why_not = !ca.real_ms ? "A: " + ca.why_not : "B: " + cb.why_not;
    return;
  }
  if (ca.real_kind == cb.real_kind) {
    row->real_a = ca.real_ms;
    row->real_b = cb.real_ms;
    row->real_kind = ca.real_kind;
  } else if (a.kernel_ms && b.kernel_ms) {
    row->real_a = a.kernel_ms;
    row->real_b = b.kernel_ms;
    row->real_kind = "kernel";
  } else {
    row->why_not = "A's real time is its " + ca.real_kind + " time, B's its " + cb.real_kind + " time";
  }
}

std::string format(const char* fmt, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, fmt, value);
  return buffer;
}

std::string cell(const std::optional<double>& v, const char* fmt) { return v ? format(fmt, *v) : "-"; }

// A partial score's note at the end of its row: how many cases each side's scores lack.
std::string partial_note(const SpeedupRow& row) {
  if (!row.partial()) return "";
  std::string out = "  partial:";
  if (row.missing_a) out += " A lacks " + std::to_string(row.missing_a) + " case(s)" + (row.missing_b ? "," : "");
  if (row.missing_b) out += " B lacks " + std::to_string(row.missing_b) + " case(s)";
  return out;
}

}  // namespace

std::optional<double> SpeedupRow::real() const {
  if (!real_a || !real_b || *real_a <= 0) return std::nullopt;
  return *real_b / *real_a;
}

std::optional<double> SpeedupRow::error() const {
  const std::optional<double> r = real();
  // A side with no measured case of the models has no score to predict with.
  if (!r || *r <= 0 || score_a_with_real <= 0 || score_b_with_real <= 0) return std::nullopt;
  return (score_b_with_real / score_a_with_real) / *r - 1.0;
}

SpeedupReport speedup_report(const ScoredSet& a, const ScoredSet& b) {
  const auto& ca = a.results->context;
  const auto& cb = b.results->context;
  SpeedupReport out{a.label, b.label, context_text(ca, "gpu"), context_text(cb, "gpu"), context_text(ca, "git"),
                    context_text(cb, "git"), {}, {}};
  for (const auto& sa : a.report->models) {
    const ModelScore* sb = find_model(*b.report, sa.name);
    if (!sb) continue;
    SpeedupRow row;
    row.name = sa.name;
    row.score_a = row.score_a_with_real = sa.score_ms;
    row.score_b = row.score_b_with_real = sb->score_ms;
    row.models = 1;
    row.missing_a = sa.missing.size();
    row.missing_b = sb->missing.size();
    add_real_times(sa, out.gpu_a, *sb, out.gpu_b, &row);
    row.models_with_real = row.real() ? 1 : 0;
    out.models.push_back(row);
  }
  // An area as the scores take it: the mean over its models, the real times' means over the models that have both.
  for (const auto& area_a : a.report->areas) {
    const auto area_b = std::find_if(b.report->areas.begin(), b.report->areas.end(),
                                     [&](const AreaScore& s) { return s.name == area_a.name; });
    if (area_b == b.report->areas.end()) continue;
    SpeedupRow row;
    row.name = area_a.name;
    row.score_a = area_a.score_ms;
    row.score_b = area_b->score_ms;
    row.models = area_a.models.size();
    std::set<std::string> missing_a, missing_b;  // a case two models need counts once
    for (const auto& name : area_a.models)
      if (const ModelScore* m = find_model(*a.report, name)) missing_a.insert(m->missing.begin(), m->missing.end());
    for (const auto& name : area_b->models)
      if (const ModelScore* m = find_model(*b.report, name)) missing_b.insert(m->missing.begin(), m->missing.end());
    row.missing_a = missing_a.size();
    row.missing_b = missing_b.size();
    double real_a = 0, real_b = 0;
    // Summed in the order of the models' names: the same area over another list of models (the page's, over every
    // model of the rules) gives the same sums to the last bit.
    std::vector<std::string> names = area_a.models;
    std::sort(names.begin(), names.end());
    for (const auto& name : names) {
      const auto it = std::find_if(out.models.begin(), out.models.end(), [&](const SpeedupRow& r) { return r.name == name; });
      if (it == out.models.end() || !it->real()) continue;
      const SpeedupRow& m = *it;
      ++row.models_with_real;
      real_a += *m.real_a;
      real_b += *m.real_b;
      row.score_a_with_real += m.score_a;
      row.score_b_with_real += m.score_b;
      row.real_kind = row.real_kind.empty() || row.real_kind == m.real_kind ? m.real_kind : "mixed";
    }
    if (row.models_with_real) {
      const double n = static_cast<double>(row.models_with_real);
      row.real_a = real_a / n;
      row.real_b = real_b / n;
      row.score_a_with_real /= n;
      row.score_b_with_real /= n;
    } else {
      row.why_not = "no model of the area has real times on both GPUs";
    }
    out.areas.push_back(row);
  }
  return out;
}

std::string commits_note(const SpeedupReport& r) {
  if (r.opmark_a.empty() || r.opmark_b.empty() || r.opmark_a == r.opmark_b) return "";
  return "The two runs come from different opmark commits (A " + r.opmark_a + ", B " + r.opmark_b +
         "): a ratio may hold opmark's own change (its kernels, tuning or timing), not only the GPUs'.";
}

std::string speedup_text(const SpeedupReport& r) {
  std::string out = "\nPredicted against measured speedup, B over A (ratios of times: below 1, B is faster; error = "
                    "score ratio / real ratio - 1)\n";
  out += "A: " + (r.gpu_a.empty() ? std::string("an unnamed GPU") : r.gpu_a) + " (" + r.label_a + ")\n";
  out += "B: " + (r.gpu_b.empty() ? std::string("an unnamed GPU") : r.gpu_b) + " (" + r.label_b + ")\n";
  if (const std::string note = commits_note(r); !note.empty()) out += note + "\n";
  char line[512];
  std::snprintf(line, sizeof line, "%-24s %11s %11s %9s %11s %11s %7s %9s %8s\n", "model", "A score ms", "B score ms",
                "score B/A", "A real ms", "B real ms", "kind", "real B/A", "error");
  out += line;
  for (const auto& m : r.models) {
    std::snprintf(line, sizeof line, "%-24s %11.4f %11.4f %9.3f %11s %11s %7s %9s %8s", m.name.c_str(), m.score_a,
                  m.score_b, m.predicted(), cell(m.real_a, "%.4f").c_str(), cell(m.real_b, "%.4f").c_str(),
                  m.real() ? m.real_kind.c_str() : "-", cell(m.real(), "%.3f").c_str(),
                  cell(m.error() ? std::optional<double>(100 * *m.error()) : std::nullopt, "%+.1f%%").c_str());
    out += line;
    out += (m.real() ? "" : "  " + m.why_not) + partial_note(m) + "\n";
  }
  bool partial = false;
  for (const auto& a : r.areas) {
    const std::string name = "area " + a.name + " (" + std::to_string(a.models_with_real) + "/" +
                             std::to_string(a.models) + ")";
    std::snprintf(line, sizeof line, "%-48s %9.3f %11s %11s %7s %9s %8s", name.c_str(), a.predicted(),
                  cell(a.real_a, "%.4f").c_str(), cell(a.real_b, "%.4f").c_str(),
                  a.real() ? a.real_kind.c_str() : "-", cell(a.real(), "%.3f").c_str(),
                  cell(a.error() ? std::optional<double>(100 * *a.error()) : std::nullopt, "%+.1f%%").c_str());
    out += line;
    out += (a.real() ? "" : "  " + a.why_not) + partial_note(a) + "\n";
    partial = partial || (a.real() && a.models_with_real < a.models);
  }
  if (partial)
    out += "An area's (k/n): k of its n scored models have real times on both GPUs; its real times are their means, "
           "and its error is taken on those k models' scores.\n";
  return out;
}

}  // namespace opmark::aggregate
