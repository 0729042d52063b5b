#include "aggregate/compare_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "aggregate/spreadsheet.h"
#include "core/counters.h"

namespace opmark::aggregate {
namespace {

std::string fixed(double v, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
  return text;
}

// A run's measured noise and where it came from ("0.31% re-time"), "-" where the run shows none.
std::string noise_cell(const RunNoise& n) { return n.measured < 0 ? "-" : fixed(100 * n.measured, 2) + "% " + n.source; }

// What the verdict was judged on: time, or time confirmed in cycles (time x SM clock), with the cycles' after/before.
std::string basis_cell(const CaseVerdict& v) { return v.basis == "cycles" ? "+ cycles " + fixed(v.ratio, 3) : v.basis; }

int count_of(const Comparison& c, Verdict v) {
  auto it = c.counts.find(v);
  return it == c.counts.end() ? 0 : it->second;
}

std::vector<const CaseComparison*> shown_cases(const Comparison& c, const CompareReportOptions& o) {
  std::vector<const CaseComparison*> shown;
  for (const auto& k : c.cases)
    if (o.all || k.verdict != Verdict::same) shown.push_back(&k);
  return shown;
}

// What a reader should know about a row beyond its verdict.
std::string note_of(const CaseComparison& k) {
  std::string note;
  if (!k.unstable.empty()) note = "unstable " + k.unstable;
  if (k.short_flag == core::counter::launch_bound) note += std::string(note.empty() ? "" : "; ") + "launch-bound (< 12 us)";
  else if (k.short_flag == "short") note += std::string(note.empty() ? "" : "; ") + "short (< 12 us)";
  if (!k.candidate_change.empty()) note += std::string(note.empty() ? "" : "; ") + "another candidate: " + k.candidate_change;
  return note;
}

std::string commit_of(const Comparison& c, bool after) {
  for (const auto& row : c.context)
    if (row.key == "git") return after ? row.after : row.before;
  return "";
}

void append_group_table(std::string& out, const char* title, const char* what, const std::vector<GroupRatio>& groups) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& g : groups) {
    // A mean that rounds to 1.00x either way is no change: saying "1.00x faster" would claim one.
    const std::string slower = fixed(g.geomean_ratio, 2), faster = g.geomean_ratio > 0 ? fixed(1 / g.geomean_ratio, 2) : "";
    rows.push_back({g.name, std::to_string(g.cases), fixed(g.geomean_ratio, 4),
                    g.geomean_ratio > 1 && slower != "1.00"   ? slower + "x slower"
                    : g.geomean_ratio < 1 && faster != "1.00" && g.geomean_ratio > 0 ? faster + "x faster"
                                                                                      : ""});
  }
  out += std::string("\n## ") + title + "\n\n" +
         markdown_table({what, "cases", "after/before (geomean)", ""}, rows, {false, true, true, false});
}

}  // namespace

std::string markdown_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                           const std::vector<bool>& right) {
  const auto escaped = [](const std::string& cell) {
    std::string e;
    for (char ch : cell) e += ch == '|' ? std::string("\\|") : std::string(1, ch);
    return e;
  };
  std::vector<std::size_t> width(header.size(), 3);  // "---" at least
  for (std::size_t i = 0; i < header.size(); ++i) width[i] = std::max(width[i], escaped(header[i]).size());
  for (const auto& row : rows)
    for (std::size_t i = 0; i < row.size() && i < width.size(); ++i) width[i] = std::max(width[i], escaped(row[i]).size());
  const auto is_right = [&](std::size_t i) { return i < right.size() && right[i]; };
  const auto line = [&](const std::vector<std::string>& cells) {
    std::string text = "|";
    for (std::size_t i = 0; i < width.size(); ++i) {
      const std::string cell = i < cells.size() ? escaped(cells[i]) : "";
      const std::string pad(width[i] - cell.size(), ' ');
      text += " " + (is_right(i) ? pad + cell : cell + pad) + " |";
    }
    return text + "\n";
  };
  std::string out = line(header) + "|";
  for (std::size_t i = 0; i < width.size(); ++i)
    out += " " + (is_right(i) ? std::string(width[i] - 1, '-') + ":" : std::string(width[i], '-')) + " |";
  out += "\n";
  for (const auto& row : rows) out += line(row);
  return out;
}

std::string compare_markdown(const Comparison& c, const CompareReportOptions& o) {
  std::string out = "# opmark compare\n\nbefore: " + o.before + "\nafter:  " + o.after + "\n";

  // The runs first: a change between two GPUs, drivers or opmark commits is read in their light.
  out += "\n## Runs\n\n";
  std::vector<std::vector<std::string>> context;
  for (const auto& row : c.context)
    context.push_back({row.label, row.before.empty() ? "-" : row.before, row.after.empty() ? "-" : row.after,
                       row.differs() ? "differs" : ""});
  out += markdown_table({"", "before", "after", ""}, context);
  if (commits_differ(c.context))
    out += "\nThe two runs come from different opmark commits (" + commit_of(c, false) + " and " + commit_of(c, true) +
           "): a change may be opmark's own (its timing, tuning or kernels), not the GPU's or a library's.\n";

  const int same = count_of(c, Verdict::same);
  char summary[1024];
  std::snprintf(summary, sizeof summary,
                "\n## Summary\n\n%zu cases in both; geometric mean of after/before %.4f (above 1: slower); %d "
                "regression(s); %zu only before, %zu only after\n"
                "Verdicts: %d slower, %d faster, %d unclear, %d same%s. A change is called only beyond max(%.0f%%, "
                "%g x the two runs' run-to-run noise combined), each run's noise at least %.0f%% (aggregate/README.md); "
                "unclear: beyond %.0f%% but within that, or measured unstable.\n",
                c.cases.size(), c.geomean_ratio, c.regressions, c.only_before.size(), c.only_after.size(),
                count_of(c, Verdict::slower), count_of(c, Verdict::faster), count_of(c, Verdict::unclear), same,
                o.all || same == 0 ? "" : (" (" + std::to_string(same) + " hidden: --all lists them)").c_str(),
                o.threshold * 100, kNoiseMultiple, kNoiseFloor * 100, o.threshold * 100);
  out += summary;
  if (c.in_cycles)
    out += std::to_string(c.in_cycles) + " compute-bound case(s) also judged in cycles (time x SM clock), the runs' "
           "SM clocks differing by more than " + fixed(kClockTolerance * 100, 0) + "%: a verdict stands only where "
           "time and cycles agree, else unclear\n";
  if (c.unstable)
    out += std::to_string(c.unstable) + " case(s) measured unstable before or after: their ratio is in the geometric "
           "means, but no verdict is given on them (unclear)\n";
  int short_slower = 0;
  for (const auto& k : c.cases) short_slower += k.verdict == Verdict::slower && !k.short_flag.empty();
  if (short_slower)
    out += std::to_string(short_slower) + " of the slower cases take under 12 us on both runs (" +
           (c.launch_bound_recorded ? "launch-bound: the launch rate, not the kernel, sets their time"
                                    : "short: these runs do not record launch_bound (results format 1), so the "
                                      "launch rate may set their time") + ")\n";

  int slower_chosen_apart = 0;
  for (const auto& k : c.cases) slower_chosen_apart += k.verdict == Verdict::slower && !k.candidate_change.empty();
  if (slower_chosen_apart)
    out += std::to_string(slower_chosen_apart) + " of the slower cases ran another candidate than before (the "
           "tuner's choice, not the library's kernel, may be the change: --opmark_tuning_log says why)\n";

  if (!c.families.empty()) append_group_table(out, "By family", "family", c.families);
  if (!c.areas.empty()) append_group_table(out, "By area", "area", c.areas);
  else if (!o.areas_note.empty()) out += "\n## By area\n\n" + o.areas_note + "\n";

  out += "\n## Cases" + std::string(o.all ? "" : " that changed") +
         " (slower first, the largest change first; then faster, unclear" + (o.all ? ", same" : "") + ")\n\n";
  std::vector<std::vector<std::string>> rows;
  for (const CaseComparison* k : shown_cases(c, o))
    rows.push_back({name_of(k->verdict), k->short_name, fixed(k->before_us, 3), fixed(k->after_us, 3),
                    fixed(k->ratio, 3), basis_cell(k->judged), fixed(100 * k->judged.limit, 2) + "%",
                    noise_cell(k->judged.noise_before), noise_cell(k->judged.noise_after), note_of(*k)});
  if (rows.empty()) out += "No case changed beyond the threshold and the noise.\n";
  else
    out += markdown_table({"verdict", "case", "before us", "after us", "after/before", "judged on", "limit",
                           "noise before", "noise after", "note"},
                          rows, {false, false, true, true, true, false, true, true, true, false});
  if (o.all) {
    for (const auto& [title, names] : {std::pair<const char*, const std::vector<std::string>*>{"Only before", &c.only_before},
                                       {"Only after", &c.only_after}}) {
      if (names->empty()) continue;
      out += std::string("\n## ") + title + "\n\n";
      for (const auto& name : *names) out += "- " + name + "\n";
    }
  }
  return out;
}

std::string compare_csv(const Comparison& c, const CompareReportOptions& o) {
  Sheet sheet;
  sheet.header = {"verdict", "case", "short_name", "family", "before_us", "after_us", "after_over_before",
                  "basis", "basis_ratio", "limit", "noise_before", "noise_before_source", "noise_after",
                  "noise_after_source", "regression", "unstable", "flag", "detail", "candidate_change"};
  for (const CaseComparison* k : shown_cases(c, o)) {
    const CaseVerdict& v = k->judged;
    sheet.rows.push_back({name_of(k->verdict), k->name, k->short_name, k->family, fixed(k->before_us, 4),
                          fixed(k->after_us, 4), fixed(k->ratio, 4), v.basis, fixed(v.ratio, 4), fixed(v.limit, 4),
                          v.noise_before.measured < 0 ? "" : fixed(v.noise_before.measured, 4), v.noise_before.source,
                          v.noise_after.measured < 0 ? "" : fixed(v.noise_after.measured, 4), v.noise_after.source,
                          std::to_string(static_cast<int>(k->regression)), k->unstable, k->short_flag, v.detail,
                          k->candidate_change});
  }
  return csv_text(sheet);
}

std::string compare_json(const Comparison& c, const CompareReportOptions& o) {
  using nlohmann::json;
  json j;
  j["before"] = o.before;
  j["after"] = o.after;
  j["threshold"] = o.threshold;
  j["noise_multiple"] = kNoiseMultiple;
  j["noise_floor"] = kNoiseFloor;
  j["clock_tolerance"] = kClockTolerance;
  j["in_cycles"] = c.in_cycles;
  j["context"] = json::array();
  for (const auto& row : c.context)
    j["context"].push_back({{"key", row.key}, {"label", row.label}, {"before", row.before}, {"after", row.after},
                            {"differs", row.differs()}});
  j["commits_differ"] = commits_differ(c.context);
  j["geomean_ratio"] = c.geomean_ratio;
  j["regressions"] = c.regressions;
  j["unstable"] = c.unstable;
  json counts = json::object();
  for (Verdict v : {Verdict::slower, Verdict::faster, Verdict::unclear, Verdict::same}) counts[name_of(v)] = count_of(c, v);
  j["counts"] = counts;
  j["hidden_same"] = o.all ? 0 : count_of(c, Verdict::same);
  for (const auto& [key, groups] : {std::pair<const char*, const std::vector<GroupRatio>*>{"families", &c.families},
                                    {"areas", &c.areas}}) {
    j[key] = json::array();
    for (const auto& g : *groups) j[key].push_back({{"name", g.name}, {"cases", g.cases}, {"geomean_ratio", g.geomean_ratio}});
  }
  j["cases"] = json::array();
  for (const CaseComparison* k : shown_cases(c, o)) {
    json one = {{"name", k->name}, {"short_name", k->short_name}, {"family", k->family}, {"verdict", name_of(k->verdict)},
                {"before_us", k->before_us}, {"after_us", k->after_us}, {"ratio", k->ratio},
                {"basis", k->judged.basis}, {"basis_ratio", k->judged.ratio}, {"limit", k->judged.limit},
                {"detail", k->judged.detail}, {"regression", k->regression}};
    for (const auto& [key, noise] : {std::pair<const char*, const RunNoise*>{"noise_before", &k->judged.noise_before},
                                     {"noise_after", &k->judged.noise_after}}) {
      one[key] = {{"source", noise->source}, {"used", noise->used()}};
      if (noise->measured >= 0) one[key]["measured"] = noise->measured;
    }
    if (!k->unstable.empty()) one["unstable"] = k->unstable;
    if (!k->short_flag.empty()) one["flag"] = k->short_flag;
    if (!k->candidate_change.empty()) one["candidate_change"] = k->candidate_change;
    j["cases"].push_back(one);
  }
  j["only_before"] = c.only_before;
  j["only_after"] = c.only_after;
  return j.dump(2) + "\n";
}

}  // namespace opmark::aggregate
