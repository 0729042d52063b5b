// The checker's run checks: what a run's own lines prove about it. A whole run ends in its summary, whose counts
// are the cases'; with the end-of-run re-time on, every ok case has its re-time line. Its timestamps go forward,
// inside the run's window. A verified case states numbers within the precision's tolerance. Repetitions agree with
// the noise recorded for them. Clocks, power and energy are what a GPU can do (results/README.md, "check").
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <optional>

#include "aggregate/check_problems.h"
#include "core/case.h"
#include "core/counters.h"
#include "core/datasheet.h"
#include "core/error.h"
#include "core/precision.h"
#include "core/stats.h"
#include "core/verified_elements.h"

namespace opmark::aggregate::check_detail {

namespace counter = core::counter;

namespace {

const std::string kLog = bundle_path::results;

std::string at_line(int number) { return kLog + " line " + std::to_string(number); }

}  // namespace

void check_whole_run(const ResultSet& results, Problems& p) {
  const std::string whole = "a submission is a whole run: run the suite to its end (opmark-submit), unedited";
  if (results.summaries.empty()) {
    p.add("whole run", kLog + " has no summary line: the run did not end (it was stopped, or its end was cut off)",
          whole);
  } else {
    if (results.summaries.size() > 1)
      p.add("whole run", kLog + " has " + std::to_string(results.summaries.size()) + " summary lines; a run writes one",
            whole);
    const auto& [number, counts] = results.summaries.back();
    if (number != results.last_record_line)
      p.add("whole run", "the summary line (" + at_line(number) + ") is not the last: lines follow it", whole);
    std::map<std::string, long long> actual = {{"ok", 0}, {"skipped", 0}, {"failed", 0}, {"unstable", 0}};
    for (const auto& [name, r] : results.cases) ++actual[r.status];
    for (const auto& [status, n] : actual) {
      const long long said = counts.count(status) ? counts.at(status) : 0;
      if (said != n)
        p.add("whole run", "the summary line (" + at_line(number) + ") counts " + std::to_string(said) + " " + status +
                               ", the log holds " + std::to_string(n) + " " + status + " case(s)",
              whole);
    }
    for (const auto& [status, n] : counts)
      if (!actual.count(status))
        p.add("whole run", "the summary line (" + at_line(number) + ") counts '" + status + "', no status opmark writes",
              whole);
  }
  // With the re-time on, every case measured ok has its re-time line, after all the cases' own lines.
  const auto it = results.context.find("recheck");
  if (it == results.context.end() || it->second != "on") return;
  for (const auto& [name, r] : results.cases) {
    if (!r.timed()) continue;
    const bool measured_ok = std::any_of(r.lines.begin(), r.lines.end(), [](const ResultLine& l) {
      return l.aggregate == "median" && l.status == core::CaseStatus::ok;
    });
    const bool retimed = std::any_of(r.lines.begin(), r.lines.end(), [](const ResultLine& l) { return l.aggregate == "recheck"; });
    if (measured_ok && !retimed)
      p.add("whole run", name + " has no re-time line (\"recheck\"), though the run re-times every case (recheck: on)",
            whole + " (a run killed during its end-of-run re-time is no whole run)");
  }
}

double epoch_of(const std::string& text) {
  int y, mo, d, h, mi;
  double s;
  char z = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%lf%c", &y, &mo, &d, &h, &mi, &s, &z) != 7 || z != 'Z') return -1;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || !(s >= 0 && s < 61)) return -1;
  // Days from the civil date (Howard Hinnant's algorithm): no time zone involved.
  y -= mo <= 2;
  const int era = (y >= 0 ? y : y - 399) / 400;
  const int yoe = y - era * 400, doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  const double days = static_cast<double>(era) * 146097 + doe - 719468;
  return days * 86400 + h * 3600 + mi * 60 + s;
}

void check_timestamps(const ResultSet& results, const std::string& system_started, double system_wall_s, Problems& p) {
  const std::string keep = kKeepLog;
  std::vector<std::pair<int, double>> stamps;  // line, seconds
  for (const auto& [name, r] : results.cases)
    for (const auto& l : r.lines) {
      if (!l.logged_at) continue;
      const double t = epoch_of(*l.logged_at);
      if (t < 0) p.add("timestamps", at_line(l.number) + ": logged_at '" + *l.logged_at + "' is no UTC time", keep);
      else stamps.emplace_back(l.number, t);
    }
  if (stamps.empty()) return;
  std::sort(stamps.begin(), stamps.end());
  for (std::size_t i = 1; i < stamps.size(); ++i)
    if (stamps[i].second < stamps[i - 1].second) {
      p.add("timestamps", at_line(stamps[i].first) + " was logged before " + at_line(stamps[i - 1].first) +
                              ": a log is written forward", keep);
      break;
    }
  const double first = stamps.front().second, last = std::max_element(stamps.begin(), stamps.end(), [](auto& a, auto& b) {
                                                        return a.second < b.second;
                                                      })->second;
  // The window: from when the run started (the context's started_at, else system.yaml's run.started), through its
  // wall time. A line may be logged a second after its start (whole seconds), no earlier.
  const auto started_at = results.context.find("started_at");
  const std::string started_text = started_at != results.context.end() ? started_at->second : system_started;
  const std::string started_from = started_at != results.context.end() ? kLog + "'s started_at" : "system.yaml's run.started";
  const double started = started_text.empty() ? -1 : epoch_of(started_text);
  if (!started_text.empty() && started < 0)
    p.add("timestamps", started_from + " '" + started_text + "' is no UTC time", "give it as 2026-11-24T12:28:36Z");
  if (started >= 0 && first < started - 1)
    p.add("timestamps", at_line(stamps.front().first) + " was logged before the run started (" + started_from + " " +
                            started_text + ")", keep);
  if (system_wall_s > 0) {
    const double span = last - first;
    if (system_wall_s + 2 < span)
      p.add("timestamps", "system.yaml's run.wall_s is " + number(system_wall_s) + " s, but the log's lines span " +
                              number(span) + " s", "give the run's whole wall time (opmark-submit records it)");
    if (started >= 0 && last > started + system_wall_s + 2)
      p.add("timestamps", "a line was logged " + number(last - started) + " s after the run started, past its " +
                              "wall time (system.yaml run.wall_s " + number(system_wall_s) + " s)",
            "give the run's whole wall time (opmark-submit records it)");
  }
}

bool parse_verification(const std::string& text, Verification* out) {
  // kernels/compare.cu, CompareResult::summary: the one form a result within tolerance is stated in.
  char tail = 0;
  int used = 0;
  unsigned long long n = 0;
  char t[32], e[32], r[32];
  if (std::sscanf(text.c_str(), "all %llu elements within tolerance %31[^ ] (max scaled error %31[^,], rel norm error %31[^)])%n",
                  &n, t, e, r, &used) != 4 || static_cast<std::size_t>(used) != text.size())
    return false;
  (void)tail;
  const auto read = [](const char* s, double* v) {
    char* end = nullptr;
    *v = std::strtod(s, &end);
    return end != s && *end == '\0';
  };
  out->elements = static_cast<double>(n);
  return read(t, &out->tolerance) && read(e, &out->max_scaled_error) && read(r, &out->rel_norm_error);
}

void check_verification(const ResultSet& results, Problems& p) {
  const std::string fix = "a verified result states its numbers as the harness prints them: run the case again with "
                          "opmark-bench unmodified";
  for (const auto& [name, r] : results.cases) {
    double precision_tolerance = -1;
    std::optional<std::int64_t> written;  // the elements the case's verification compares, where the case says
    try {
      const core::Case c = core::parse_case_name(name);
      precision_tolerance = core::precision_info(c.precision).tolerance;
      written = core::verified_elements(c);
    } catch (const Error&) {
      // a case core does not name: the tolerance's own bounds still hold
    }
    for (const auto& l : r.lines) {
      Verification v;
      if (!l.timed() || !l.verification || !parse_verification(*l.verification, &v)) continue;  // check_lines says
      std::string why;
      // The harness prints the tolerance to 2 digits and the error to 3: 5% covers the rounding.
      if (!(v.elements > 0)) why = "no elements compared";
      else if (std::isinf(v.tolerance) && v.tolerance > 0) {
        // A result held to a norm bound only (recurrent gradients: bench/families/rnn.cpp) prints an infinite
        // elementwise tolerance; its norm error must then be within the precision's deepest tolerance.
        if (!std::isfinite(v.max_scaled_error) || !std::isfinite(v.rel_norm_error) ||
            (precision_tolerance >= 0 && v.rel_norm_error > precision_tolerance * core::kToleranceGrowthCap * 1.05))
          why = "no elementwise tolerance, and the norm error " + number(v.rel_norm_error) + " is not within the "
                "precision's bound";
      } else if (!std::isfinite(v.tolerance) || !(v.tolerance >= 0)) why = "the tolerance is no finite number";
      else if (!std::isfinite(v.max_scaled_error) || !(v.max_scaled_error >= 0)) why = "the error is no finite number";
      else if (!std::isfinite(v.rel_norm_error) || !(v.rel_norm_error >= 0)) why = "the norm error is no finite number";
      else if (!std::isinf(v.tolerance) && (v.max_scaled_error > v.tolerance * 1.05 + 1e-300 || v.max_scaled_error > 1))
        why = "the max scaled error " + number(v.max_scaled_error) + " is above the tolerance " + number(v.tolerance);
      else if (!std::isinf(v.tolerance) && precision_tolerance >= 0 &&
               v.tolerance > precision_tolerance * core::kToleranceGrowthCap * 1.05)
        why = "the tolerance " + number(v.tolerance) + " is above the precision's " + number(precision_tolerance) +
              " (at most " + number(core::kToleranceGrowthCap) + "x that for deep accumulations)";
      else if (written && v.elements != static_cast<double>(*written))
        why = "it compares " + number(v.elements) + " elements, and the case writes " +
              std::to_string(*written);
      if (!why.empty()) {
        p.add("impossible verification", name + " (" + at_line(l.number) + "): '" + *l.verification + "': " + why, fix);
        break;
      }
    }
  }
}

void check_noise_agreement(const ResultSet& results, double max_noise, Problems& p) {
  const std::string keep = kKeepLog;
  for (const auto& [name, r] : results.cases) {
    if (r.status != "ok" || r.reps_us.empty()) continue;
    const double computed = core::relative_spread(r.reps_us);
    const ResultLine* median = nullptr;
    for (const auto& l : r.lines)
      if (l.aggregate == "median") median = &l;
    if (median) {
      const auto c = median->finite_counters();
      const auto it = c.find(counter::noise);
      if (it != c.end()) {
        if (std::abs(it->second - computed) > 1e-6 + 0.01 * computed)
          p.add("noise disagrees", name + ": the median line (" + at_line(median->number) + ") records noise " +
                                       number(it->second) + ", its repetitions give " + number(computed), keep);
        if (it->second > max_noise)
          p.add("noisy cases", name + ": the recorded noise " + number(it->second) + " is over the rules' limit " +
                                   number(max_noise),
                "measure it again on an idle GPU (more repetitions or a longer --opmark_min_time steady it)");
      }
    }
    const double lo = *std::min_element(r.reps_us.begin(), r.reps_us.end());
    const double hi = *std::max_element(r.reps_us.begin(), r.reps_us.end());
    if (lo > 0 && core::span_of(r.reps_us) > core::allowed_span(computed, max_noise))
      p.add("repetitions spread", name + ": its repetitions span " + number(hi / lo) + "x (" + us(lo) + " to " + us(hi) +
                                      "), far more than its noise " + number(computed) + " allows for an ok case",
            "a case whose repetitions disagree this much is unstable, not ok: " + keep);
  }
}

void check_datasheet(const ResultSet& results, Problems& p) {
  const auto& context = results.context;
  const auto text = [&](const char* key) { return context_text(context, key); };
  const std::optional<core::Datasheet> sheet = core::datasheet_of(text("gpu"));
  if (!sheet) return;  // a GPU opmark carries no datasheet of: its peaks are the submitter's
  const std::string log = std::string(bundle_path::results) + " line 1";
  const std::string remeasure = "the peaks and the power limit are opmark-bench's to state: measure the run again "
                                "with this opmark-bench (opmark-submit)";
  const double limit = context_number(context, "power_limit_w");
  if (limit > sheet->max_power_w)
    p.add("power and energy", "the run's power_limit_w " + number(limit) + " W (" + log + ") is above the " +
                                  sheet->model + "'s largest, " + number(sheet->max_power_w) + " W",
          remeasure);
  // Peaks from opmark's datasheet, not overridden (--opmark_peak says so in `peaks`), are that datasheet's.
  if (text("peaks") != "datasheet: " + sheet->model) return;
  const std::pair<const char*, double> stated[] = {
      {"peak_tflops_fp32", sheet->fp32}, {"peak_tflops_tf32", sheet->tf32}, {"peak_tflops_fp16", sheet->fp16},
      {"peak_tflops_bf16", sheet->fp16}, {"peak_tflops_int8", sheet->int8}, {"peak_gb_per_s", sheet->memory_gb_per_s}};
  for (const auto& [key, want] : stated)
    if (context.count(key) && !(std::abs(context_number(context, key) - want) <= 1e-6 * want))
      p.add("peaks", "the run's " + std::string(key) + " is " + number(context_number(context, key)) + " (" + log +
                         "), but its peaks are '" + text("peaks") + "', whose figure is " + number(want),
            remeasure);
}

void check_physics(const ResultSet& results, Problems& p) {
  const auto& context = results.context;
  const double max_clock = context_number(context, "max_sm_clock_mhz");
  const double limit = context_number(context, "power_limit_w");
  // The bundle states its margin, but may not widen it past what opmark-bench writes (bench/harness/gpu_state/energy.h).
  constexpr double kMaxPowerMargin = 0.25;
  // The clock measured on the GPU (cycles over %globaltimer) reads above NVML's maximum: on an H100 (1980 MHz) up to
  // 2085 MHz over 1 ms samples of 2-12 us kernels and 1995-2008 MHz over 0.2-2 s windows.
  constexpr double kClockOverMaximum = 1.06;
  // The energy window's time per launch against the case's (below).
  constexpr double kEnergyTimeBand[2] = {0.8, 2.0};
  // Kernels that overlap within a launch: cuDNN's RNNs reach 1.96x the launch's time in both committed bundles.
  constexpr double kKernelOverLaunch = 2.5;
  const double gpus = std::max(1.0, context.count("gpu_count_used") ? context_number(context, "gpu_count_used") : 1.0);
  const double stated = context.count("power_margin") ? context_number(context, "power_margin") : 0.05;
  const double margin = std::clamp(std::isfinite(stated) ? stated : 0.0, 0.0, kMaxPowerMargin);
  const bool format2 = context_number(context, "results_format") >= 2;
  const bool format3 = context_number(context, "results_format") >= 3;
  const std::string regime = context.count("regime") ? context.at("regime") : "";
  const std::string keep = kKeepLog;
  const std::string remeasure = "no GPU does this: the numbers are wrong (edited, or a broken counter); measure the "
                                "run again with this opmark-bench (opmark-submit)";
  for (const auto& [name, r] : results.cases) {
    if (!r.timed()) continue;
    for (const auto& l : r.lines) {
      if (l.kind != core::RecordKind::aggregate || l.aggregate == "mean") continue;
      const std::map<std::string, double> c = l.finite_counters();
      const auto has = [&](const char* key) { return c.count(key) > 0; };
      const std::string where = name + " (" + at_line(l.number) + ")";
      // Counters a timed case carries (results format 2 on): without them nothing below can be checked.
      if (format2 && l.aggregate == "median")
        for (const char* key : {"noise", "repetitions"})
          if (!has(key)) p.add("deleted counters", where + ": the median line has no '" + std::string(key) + "'", keep);
      // An ok case's work and its rate: the scores and every % of peak come from them.
      if (format2 && l.aggregate == "median" && l.status == core::CaseStatus::ok) {
        if (!has(counter::flops))
          p.add("deleted counters", where + ": the median line has no '" + std::string(counter::flops) + "'", keep);
        else if (c.at(counter::flops) > 0 && !has(counter::tflops))
          p.add("deleted counters", where + ": the median line has flops but no '" + std::string(counter::tflops) + "'",
                keep);
        // Results format 3 on: the bytes moved and their rate too (every % of bandwidth and the memory-bound scores).
        if (format3 && !has(counter::bytes))
          p.add("deleted counters", where + ": the median line has no '" + std::string(counter::bytes) + "'", keep);
        else if (format3 && c.at(counter::bytes) > 0 && !has(counter::gb_per_s))
          p.add("deleted counters", where + ": the median line has bytes but no '" + std::string(counter::gb_per_s) +
                                        "'", keep);
      }
      // Results format 3 (results/README.md): every record states the run's regime; an ok median line its clock
      // and throttle counters, and an ok burst case was never throttled.
      if (format3) {
        const bool states = l.regime && *l.regime == regime;
        if (!states)
          p.add("regime", where + ": the line's regime is not the run's ('" + regime + "')", keep);
        if (l.aggregate == "median" && l.status == core::CaseStatus::ok) {
          for (const char* key : {counter::sm_clock_mhz, counter::throttled, counter::discarded_samples})
            if (!has(key)) p.add("deleted counters", where + ": the median line has no '" + std::string(key) + "'", keep);
          if (regime == "burst" && has(counter::throttled) && c.at(counter::throttled) != 0)
            p.add("clocks", where + ": an ok burst case with throttled " + number(c.at(counter::throttled)),
                  "a burst case that could not get an unthrottled sample is unstable, not ok: " + keep);
        }
      }
      if (l.aggregate == "recheck" && context.count("recheck") && context.at("recheck") == "on" &&
          !has(counter::recheck_us) &&
          l.status == core::CaseStatus::ok)
        p.add("deleted counters", where + ": the re-time line has no 'recheck_us'", keep);
      for (const char* key : {counter::sm_clock_mhz, counter::sm_clock_min_mhz, counter::energy_sm_clock_mhz,
                              counter::sustained_sm_clock_mhz,
                              counter::reference_sm_clock_mhz}) {
        if (!has(key)) continue;
        const double mhz = c.at(key);
        if (!(mhz > 0) || (max_clock > 0 && mhz > max_clock * kClockOverMaximum))
          p.add("clocks", where + ": " + key + " " + number(mhz) + " MHz, outside 0 to the GPU's " + number(max_clock) +
                              " MHz (max_sm_clock_mhz in the context)", remeasure);
      }
      // The kernels' own time per launch (CUPTI) sums kernels that overlap, but not to kKernelOverLaunch times the
      // launch on each GPU the run used.
      if (has(counter::kernel_us) && l.time_us && *l.time_us > 0 &&
          c.at(counter::kernel_us) > kKernelOverLaunch * gpus * *l.time_us)
        p.add("kernel time", where + ": kernel_us " + number(c.at(counter::kernel_us)) + " us is " +
                                 number(c.at(counter::kernel_us) / *l.time_us) + "x the launch's " +
                                 number(*l.time_us) + " us; overlapping kernels reach at most " +
                                 number(kKernelOverLaunch) + "x a GPU",
              remeasure);
      for (const char* key : {counter::power_w, counter::sustained_power_w}) {
        if (!has(key)) continue;
        const double w = c.at(key);
        if (w < 0) p.add("power and energy", where + ": " + key + " " + number(w) + " W is negative", remeasure);
        else if (limit > 0 && w > limit * (1 + margin))
          p.add("power and energy", where + ": " + key + " " + number(w) + " W, above the power limit " + number(limit) +
                                        " W plus " + number(100 * margin) + "% (power_limit_w, power_margin)",
                remeasure);
      }
      for (const char* key : {counter::joules_per_op, counter::sustained_joules_per_op, counter::energy_us,
                              counter::energy_window_ms})
        if (has(key) && c.at(key) < 0)
          p.add("power and energy", where + ": " + key + " " + number(c.at(key)) + " is negative", remeasure);
      // The energy window times the case's own launches again: 0.91 to 1.67 times the case's time in the committed
      // bundles (the RNN backward's window holds the restore of its reserve), never a tenth or ten times it.
      if (l.aggregate == "median" && has(counter::energy_us) && l.time_us && *l.time_us > 0) {
        const double ratio = c.at(counter::energy_us) / *l.time_us;
        if (ratio < kEnergyTimeBand[0] || ratio > kEnergyTimeBand[1])
          p.add("power and energy", where + ": energy_us " + number(c.at(counter::energy_us)) + " us is " +
                                        number(ratio) + "x the case's " + number(*l.time_us) + " us, outside " +
                                        number(kEnergyTimeBand[0]) + " to " + number(kEnergyTimeBand[1]) + "x",
                remeasure);
      }
      // J/op is power times the time per op: over the energy window's launches (format 3), else the case's time.
      const auto consistent = [&](const char* joules, const char* power, double time_us, const char* time_key) {
        if (!has(joules) || !has(power) || !(time_us > 0)) return;
        const double expected = c.at(power) * time_us * 1e-6;
        if (!close_to(c.at(joules), expected, 0.02))
          p.add("power and energy", where + ": " + joules + " " + number(c.at(joules)) + " J, but " + power + " x " +
                                        time_key + " gives " + number(expected) + " J (" +
                                        number(100 * (c.at(joules) / expected - 1)) + "%)", remeasure);
      };
      consistent(counter::joules_per_op, counter::power_w,
                 has(counter::energy_us) ? c.at(counter::energy_us) : l.time_us.value_or(0),
                 has(counter::energy_us) ? counter::energy_us : "time_us");
      if (has(counter::sustained_us))
        consistent(counter::sustained_joules_per_op, counter::sustained_power_w, c.at(counter::sustained_us),
                   counter::sustained_us);
    }
  }
}

}  // namespace opmark::aggregate::check_detail
