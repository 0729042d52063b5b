// The run's parameters against the rules: what core::run_parameters_of reads from the context (the typed keys, or an
// older run's timing sentence) is held to the rules' regime, L2 mode, timing, min time, repetitions and noise target.
#include <string>

#include "aggregate/check_problems.h"
#include "core/run_context.h"

namespace opmark::aggregate::check_detail {

void check_run_parameters(const ResultSet& results, const core::Suite& rules, Problems& p) {
  const auto& context = results.context;
  const core::RunParameters run = core::run_parameters_of(context);
  const std::string log = std::string(bundle_path::results) + " line 1";
  const std::string rerun = "run the suite with this opmark-bench (opmark-submit) under rules version " +
                            std::to_string(rules.rules_version);
  // Where a value was read, for the message: the line itself for a typed key, its sentence for an older run.
  const auto where = [&](const char* key) {
    return run.from_sentence.count(key) ? "the timing sentence in " + log : log;
  };
  // As the context wrote it (a typed key's own text), so the message quotes the file.
  const auto shown = [&](const char* key, double value) {
    const auto it = context.find(key);
    return it != context.end() ? it->second : number(value);
  };
  for (const auto& m : run.malformed)
    p.add("context", "the run's context (" + log + "): " + m, kKeepLog);
  for (const auto& d : run.disagreements)
    p.add("context", "the run's context (" + log + "): " + d + " (both are written from one value)", kKeepLog);

  // Rules that name a timing want every time taken that way (version 2: graph, the GPU's own time).
  if (rules.timing) {
    const std::string timing = core::name_of(*rules.timing);
    if (!run.timing_mode)
      p.add("rules", "the run's context (" + log + ") has no timing_mode (a results format 1 run), and the rules (" +
                         rules.path + ") require timing " + timing,
            "run the suite with this opmark-bench (--opmark_timing=" + timing + ", opmark-submit's default)");
    else if (*run.timing_mode != *rules.timing)
      p.add("rules", "the run timed '" + std::string(core::name_of(*run.timing_mode)) + "' (" +
                         run.source_of(core::run_key::timing_mode) + " in " + log + "), the rules (" + rules.path +
                         ") require " + timing,
            "run the suite again with --opmark_timing=" + timing + " (opmark-submit's default)");
  }
  // Rules that name a regime (version 5) hold every case to the end-of-run re-time, the anomaly guard's second half:
  // a run without it has no check that its times held, and its log no re-time lines to check.
  if (rules.regime) {
    const auto it = context.find(core::run_key::recheck);
    const std::string stated = it == context.end() ? "" : it->second;
    if (stated != "on")
      p.add("rules", "the run's recheck is '" + stated + "' (" + log + "), the rules require the end-of-run re-time "
                         "(recheck: on)",
            rerun + ", without --opmark_recheck=off");
  }
  // A missing regime is also reported by check_regime_rules as a missing format-3 key.
  if (rules.regime && run.regime != rules.regime) {
    const auto it = context.find(core::run_key::regime);
    const std::string stated = it != context.end() ? it->second : run.regime ? core::name_of(*run.regime) : "";
    p.add("rules", "the run's regime is '" + stated + "' (" + where(core::run_key::regime) + "), the rules require " +
                       core::name_of(*rules.regime),
          rerun + " (--opmark_regime=" + core::name_of(*rules.regime) + ")");
  }
  if (rules.l2) {
    const std::string l2 = core::name_of(*rules.l2);
    if (!run.l2)
      p.add("rules", "the run's context (" + log + ") states no L2 mode, the rules require L2 " + l2,
            rerun + " (--opmark_l2=" + l2 + ")");
    else if (*run.l2 != *rules.l2)
      p.add("rules", "the run's L2 mode is " + std::string(core::name_of(*run.l2)) + " (" +
                         where(core::run_key::l2) + "), the rules require " + l2,
            rerun + " (--opmark_l2=" + l2 + ")");
  }
  // The rules fix the repetition's GPU time (opmark-submit passes it): a longer one is another measurement (in the
  // burst regime the clock may sag), a shorter one a noisier one. Runs that state no min time (format 1) are not held.
  if (run.min_time_s && !close_to(*run.min_time_s, rules.min_time_s, 1e-9))
    p.add("rules", "the run's min_time_s is " + shown(core::run_key::min_time_s, *run.min_time_s) + " (" +
                       where(core::run_key::min_time_s) + "), the rules' " + number(rules.min_time_s),
          rerun + " (--opmark_min_time=" + number(rules.min_time_s) + ", opmark-submit's default)");
  if (run.min_repetitions && *run.min_repetitions < rules.repetitions)
    p.add("rules", "the run's min_repetitions is " + std::to_string(*run.min_repetitions) + " (" +
                       where(core::run_key::min_repetitions) + "), the rules require at least " +
                       std::to_string(rules.repetitions),
          rerun + " (--opmark_repetitions=" + std::to_string(rules.repetitions) + ", opmark-submit's default)");
  if (rules.max_repetitions > 0 && run.max_repetitions && *run.max_repetitions > rules.max_repetitions)
    p.add("rules", "the run's max_repetitions is " + std::to_string(*run.max_repetitions) + " (" +
                       where(core::run_key::max_repetitions) + "), the rules allow " +
                       std::to_string(rules.max_repetitions),
          rerun + " (--opmark_max_repetitions=" + std::to_string(rules.max_repetitions) + ")");
  // A looser target stops a case's repetitions sooner; a stricter one only measures longer.
  if (run.noise_target && *run.noise_target > rules.noise_target * (1 + 1e-9))
    p.add("rules", "the run's noise_target is " + shown(core::run_key::noise_target, *run.noise_target) + " (" +
                       where(core::run_key::noise_target) + "), the rules allow at most " +
                       number(rules.noise_target),
          rerun + " (--opmark_noise=" + number(rules.noise_target) + ", opmark-submit's default)");
}

}  // namespace opmark::aggregate::check_detail
