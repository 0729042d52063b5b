// opmark-aggregate check: every problem of a submission bundle, each with what to do about it. Nothing here
// trusts a file the run did not write: the system description is compared with the run's context, the derived
// files are recomputed from the raw results, and the two raw files must agree with each other.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <set>
#include <sstream>

#include "aggregate/bundle.h"
#include "aggregate/check_problems.h"
#include "aggregate/system_description.h"
#include "core/counters.h"
#include "core/error.h"
#include "core/stats.h"
#include "core/case.h"
#include "core/model_table.h"
#include "core/precision.h"
#include "core/run_context.h"
#include "core/rates.h"
#include "core/table.h"

namespace fs = std::filesystem;

namespace opmark::aggregate {

namespace counter = core::counter;

using namespace check_detail;

namespace {

// The first line (1-based) where two texts differ.
int first_difference(const std::string& a, const std::string& b) {
  std::istringstream x(a), y(b);
  std::string lx, ly;
  for (int line = 1;; ++line) {
    const bool gx = static_cast<bool>(std::getline(x, lx)), gy = static_cast<bool>(std::getline(y, ly));
    if (!gx && !gy) return 0;
    if (gx != gy || lx != ly) return line;
  }
}

// system.yaml's run.started and run.wall_s, for the timestamps' window ("" and 0 where missing).
struct SystemRun {
  std::string started;
  double wall_s = 0;
};

SystemRun check_system(const fs::path& dir, const ResultSet& results, int applied_version, Problems& p) {
  SystemRun run;
  const std::string path = (dir / bundle_path::system).string();
  std::map<std::string, SystemField> sys;
  try {
    sys = read_system_yaml(bundle_file_text(dir.string(), bundle_path::system, "the system description", false,
                                            small_file_limits()),
                           path);
  } catch (const Error& e) {
    p.add("system.yaml", e.what(), "fix the YAML (opmark-aggregate pack writes a valid system.yaml)");
    return run;
  }
  const auto at = [&](const std::string& key) {
    auto it = sys.find(key);
    return path + ":" + std::to_string(it == sys.end() ? 1 : it->second.line);
  };
  const auto value = [&](const std::string& key) {
    auto it = sys.find(key);
    return it == sys.end() ? std::string() : it->second.value;
  };
  std::set<std::string> known = {"format", "division", "vendor", "system_name", "submitter", "modifications",
                                 "run.started", "run.wall_s"};
  for (const auto& [dotted, ctx] : system_fields_from_context()) known.insert(dotted);
  for (const auto& [key, field] : sys)
    if (!known.count(key))
      p.add("system.yaml", path + ":" + std::to_string(field.line) + ": unknown field '" + key + "'",
            "remove it (results/README.md lists the fields)");
  for (const auto& key : required_system_fields())
    if (value(key).empty())
      p.add("system.yaml", at(key) + ": field '" + key + "' is " + (sys.count(key) ? "empty" : "missing"),
            "give it (opmark-aggregate pack --vendor, --system-name, --submitter fill the submitter's fields)");
  if (sys.count("format") && value("format") != kBundleFormat)
    p.add("system.yaml", at("format") + ": format '" + value("format") + "' is not " + kBundleFormat,
          "re-pack the bundle with this opmark");
  const std::string division = value("division");
  if (sys.count("division") && division != "closed" && division != "open")
    p.add("system.yaml", at("division") + ": division '" + division + "' is neither closed nor open",
          "say closed (opmark unmodified) or open (with modifications described)");
  if (division == "open" && value("modifications").empty())
    p.add("system.yaml", at("modifications") + ": the open division needs 'modifications'",
          "describe the libraries or kernels that differ from opmark unmodified");
  // The description must be what the run's context says, field by field.
  for (const auto& [dotted, ctx_key] : system_fields_from_context()) {
    const std::string expected = system_value(results.context, ctx_key);
    if (value(dotted) != expected)
      p.add("system.yaml", at(dotted) + ": " + dotted + " says '" + value(dotted) + "' but the run's context (" +
                               std::string(bundle_path::results) + " line 1) says '" + expected + "'",
            "describe the system that ran (opmark-aggregate pack copies these from the context)");
  }
  // The rules version it claims is the one applied, as the context's must be.
  if (sys.count("opmark.rules_version") && value("opmark.rules_version") != std::to_string(applied_version))
    p.add("rules", at("opmark.rules_version") + ": opmark.rules_version says '" + value("opmark.rules_version") +
                       "', the rules applied are version " + std::to_string(applied_version),
          "a bundle does not pick its rules: re-measure under the newest rules (opmark-submit), or check with "
          "--rules-version N to apply older rules on purpose");
  run.started = value("run.started");
  if (!run.started.empty() && epoch_of(run.started) < 0) {
    p.add("system.yaml", at("run.started") + ": run.started '" + run.started + "' is no UTC time such as "
                             "2026-11-28T04:56:00Z",
          "opmark-aggregate pack writes the run's start from its log");
    run.started.clear();
  }
  const std::string wall = value("run.wall_s");
  char* end = nullptr;
  run.wall_s = std::strtod(wall.c_str(), &end);
  if (!wall.empty() && (*end != '\0' || !std::isfinite(run.wall_s) || !(run.wall_s > 0))) {
    p.add("system.yaml", at("run.wall_s") + ": run.wall_s '" + wall + "' is no number of seconds above 0",
          "opmark-aggregate pack writes the run's wall time");
    run.wall_s = 0;
  }
  if (division == "closed") {
    const std::string git = results.context.count("git") ? results.context.at("git") : "";
    if (git.empty() || git == "unknown" || git.find("-dirty") != std::string::npos)
      p.add("division", "closed division, but opmark's version is '" + git + "' (modified or unknown)",
            "run an unmodified, committed opmark (its git hash is recorded), or submit in the open division");
  }
  return run;
}

}  // namespace

double relative_mad(const std::vector<double>& times) { return core::relative_spread(times); }

namespace {

// The rules may let a run keep a few unstable cases (max_unstable_fraction of those measured, rounded down): on a
// shared VM about a case in 200 meets a slow spell its re-measurement cannot settle. They stay unstable, reason and
// all.
struct UnstableAllowance {
  std::size_t unstable = 0, allowed = 0;
};
UnstableAllowance unstable_allowance(const ResultSet& results, const core::Suite& rules) {
  std::size_t measured = 0, unstable = 0;
  for (const auto& [name, r] : results.cases) {
    measured += r.timed();
    unstable += r.unstable();
  }
  return {unstable, static_cast<std::size_t>(rules.max_unstable_fraction * static_cast<double>(measured) + 1e-9)};
}

// Extra cases are named one by one up to this many, then counted: 30,000 invented ones are one problem more.
constexpr std::size_t kMaxListedExtraCases = 20;

void check_cases(const ResultSet& results, const core::Suite& rules, const std::vector<core::Case>& required,
                 const UnstableAllowance& allowance, Problems& p) {
  std::vector<double> run_noise;  // every measured case's, for the run's median
  const std::string log = bundle_path::results;
  for (const auto& c : required) {
    const std::string name = core::make_case_name(c);
    auto it = results.cases.find(name);
    if (it == results.cases.end())
      p.add("required cases missing", "required case missing from " + log + ": " + name,
            "run the whole suite (opmark-submit), or this case: opmark-bench --opmark_suite=submission "
            "--benchmark_filter='^" + name + "/'");
    else if (it->second.status == "skipped")
      p.add("required cases skipped", "required case skipped: " + name + ": " + it->second.reason,
            "a closed or open submission needs every required case measured; fix what the reason says");
  }
  // A bundle holds the rules' cases and no others: an invented case, however consistent its lines, is no
  // measurement the rules asked for, and every table and score would show it.
  std::set<std::string> named;
  for (const auto& c : required) named.insert(core::make_case_name(c));
  std::size_t extra = 0;
  for (const auto& [name, r] : results.cases)
    if (!named.count(name) && ++extra <= kMaxListedExtraCases)
      p.add("cases the rules do not name", "case not among the rules' (" + rules.path + "): " + name,
            "a bundle is the suite's run (opmark-submit), unedited: run other cases apart");
  if (extra > kMaxListedExtraCases)
    p.add("cases the rules do not name",
          std::to_string(extra - kMaxListedExtraCases) + " more cases not among the rules' (" + rules.path + ")",
          "a bundle is the suite's run (opmark-submit), unedited: run other cases apart");
  const bool unstable_allowed = allowance.unstable <= allowance.allowed;
  for (const auto& [name, r] : results.cases) {
    if (r.status == "failed") {
      p.add("failed cases", "case failed: " + name + ": " + r.reason,
            "a failed case (wrong result or error) invalidates the run: fix the cause and run again");
      continue;
    }
    // Two measurements of the case disagreed by more than 1.3x even after measuring again: its time is in doubt.
    // Required or extra, every measured case is checked alike.
    if (r.unstable()) {
      if (!unstable_allowed)
        p.add("unstable cases", "unstable: " + name + ": " + (r.reason.empty() ? "no reason given" : r.reason),
              "the rules allow " + std::to_string(allowance.allowed) + " unstable case(s) in this run and it has " +
                  std::to_string(allowance.unstable) + ": measure it again on an idle GPU (opmark-bench "
                  "--opmark_suite=submission --benchmark_filter='^" + name + "/'), or run the suite again");
      continue;
    }
    if (r.status != "ok") continue;
    if (r.reps_us.size() < static_cast<std::size_t>(rules.repetitions)) {
      p.add("too few repetitions", "case has " + std::to_string(r.reps_us.size()) + " repetition(s), the rules need " +
                                       std::to_string(rules.repetitions) + ": " + name,
            "run with --opmark_repetitions=" + std::to_string(rules.repetitions) + " or more (opmark-submit does)");
      continue;
    }
    const double noise = relative_mad(r.reps_us);
    run_noise.push_back(noise);
    if (noise > rules.max_noise) {
      char text[128];
      std::snprintf(text, sizeof text, "noise %.3f (median absolute deviation over median) over the limit %.3f", noise,
                    rules.max_noise);
      p.add("noisy cases", std::string(text) + ": " + name,
            "measure it again on an idle GPU (more repetitions or a longer --opmark_min_time steady it)");
    }
  }
  const double median_noise = statistic_of(run_noise, Statistic::median);
  if (median_noise > rules.max_median_noise) {
    char text[160];
    std::snprintf(text, sizeof text, "the run's median noise %.4f over its %zu measured cases is over the limit %.4f",
                  median_noise, run_noise.size(), rules.max_median_noise);
    p.add("noisy run", text, "run the whole suite again on an idle GPU: the system was busy or unsteady");
  }
}

// A bundle holds its own files and folders: a link could point anywhere (into another bundle, at a device), and
// a device or pipe is no file of a run.
void check_links(const fs::path& dir, Problems& p) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code ec2;
    const fs::file_status st = it->symlink_status(ec2);
    const std::string rel = it->path().lexically_relative(dir).generic_string();
    if (fs::is_symlink(st)) {
      const fs::path target = fs::read_symlink(it->path(), ec2);
      p.add("symbolic links", rel + " is a symbolic link (to " + target.string() + "): a bundle holds its own files",
            "put the file itself in the bundle (cp --dereference), or remove the link");
    } else if (!fs::is_directory(st) && !fs::is_regular_file(st)) {
      p.add("not regular files", rel + " is not a regular file (a device, pipe or socket)",
            "remove it: a bundle holds the run's files and folders only");
    }
  }
}

// The text the harness writes for a verified result (kernels/compare.cu, CompareResult::summary): "all N elements
// within tolerance T (max scaled error E, rel norm error R)". Anything else states no success: a count of wrong
// elements, a norm above its bound, or a word of someone else's.
bool states_success(const std::string& v) {
  Verification parsed;
  return parse_verification(v, &parsed);
}





// The counters a line derives from its flops, bytes and time (bench/harness/output/counters.cpp, throughput_counters and
// energy_counters), recomputed: the first that disagrees by more than 1%, as a message; empty where all agree. The
// mean line is not compared (a rules-v1 run's mean line holds the mean of the repetitions' counters).
std::string derived_disagreement(const ResultLine& l, double peak_tflops, double peak_gb_per_s,
                                 double peak_link_gb_per_s) {
  const std::map<std::string, double> c = l.finite_counters();
  const auto has = [&](const char* key) { return c.count(key) > 0; };
  const double t = l.time_us.value_or(0), flops = has(counter::flops) ? c.at(counter::flops) : 0,
               bytes = has(counter::bytes) ? c.at(counter::bytes) : -1;
  std::string out;
  const auto compare = [&](const char* key, double expected, const std::string& from) {
    if (!out.empty() || !has(key)) return;
    if (!close_to(c.at(key), expected, 0.01))
      out = "line " + std::to_string(l.number) + ": " + key + " " + number(c.at(key)) + ", but " + from + " give " +
            number(expected);
  };
  if (has(counter::tflops) && !(flops > 0))
    return "line " + std::to_string(l.number) + ": tflops " + number(c.at(counter::tflops)) + " without flops";
  const double seconds = t * 1e-6;
  if (flops > 0) {
    compare(counter::tflops, core::tflops(flops, seconds), "flops / time");
    if (peak_tflops > 0)
      compare(counter::pct_peak, core::pct_of(core::tflops(flops, seconds), peak_tflops),
              "flops / time / the context's peak");
  }
  if (bytes >= 0) {
    const double gb_per_s = core::gb_per_s(bytes, seconds);
    compare(counter::gb_per_s, gb_per_s, "bytes / time");
    if (peak_gb_per_s > 0)
      compare(counter::pct_peak_bw, core::pct_of(gb_per_s, peak_gb_per_s),
              "bytes / time / the context's peak_gb_per_s");
    if (peak_link_gb_per_s > 0 && has(counter::busbw_factor))
      compare(counter::pct_link_bw, core::pct_of(gb_per_s * c.at(counter::busbw_factor), peak_link_gb_per_s),
              "bytes / time x busbw_factor / the context's peak_link_gb_per_s");
    if (has(counter::copy_gb_per_s) && c.at(counter::copy_gb_per_s) > 0)
      compare(counter::pct_copy_bw, core::pct_of(gb_per_s, c.at(counter::copy_gb_per_s)),
              "bytes / time / copy_gb_per_s");
  } else if (has(counter::gb_per_s)) {
    return "line " + std::to_string(l.number) + ": gb_per_s " + number(c.at(counter::gb_per_s)) + " without bytes";
  }
  if (has(counter::joules_per_op) && c.at(counter::joules_per_op) > 0) {
    const double joules = c.at(counter::joules_per_op);
    if (flops > 0) compare(counter::tflops_per_w, core::tflops_per_w(flops, joules), "flops / joules_per_op");
    else if (bytes > 0) compare(counter::gb_per_s_per_w, core::gb_per_s_per_w(bytes, joules), "bytes / joules_per_op");
  }
  return out;
}

// What a case's lines must agree on, as opmark-bench writes them (bench/harness/output/results_log.cpp): one status (a case
// that
// did not run is one line; a measured case's repetitions, median and mean share one, and the end-of-run re-time's
// "recheck" line may make it unstable); every measured line verified; the median and mean lines the median and mean
// of all the case's repetitions, numbered 0 to N-1 and at most the run's maximum; the derived counters what flops,
// bytes and time give; no rate above the GPU's peak.
void check_lines(const ResultSet& results, const core::Suite& rules, Problems& p) {
  const auto& context = results.context;
  const std::string log = bundle_path::results;
  const bool format2 = context_number(context, "results_format") >= 2;
  // The run's --opmark_max_repetitions where the context records it (results format 3); a run that did not record
  // it had opmark-bench's default of then, 30; the rules' maximum where lower.
  double max_reps = context.count("max_repetitions") ? context_number(context, "max_repetitions") : 30;
  if (rules.max_repetitions > 0) max_reps = std::min(max_reps, static_cast<double>(rules.max_repetitions));
  const double peak_gb_per_s = context_number(context, "peak_gb_per_s"), l2_bytes = context_number(context, "l2_bytes");
  const double peak_link_gb_per_s = context_number(context, "peak_link_gb_per_s");
  const std::string keep = "keep the run's own results log, unedited (opmark-bench writes it; nothing else should)";
  for (const auto& entry : results.cases) {
    // Named references, not a structured binding: lambdas below capture them (C++17 allows no binding capture).
    const std::string& name = entry.first;
    const CaseResult& r = entry.second;
    const auto line = [&](const ResultLine& l) { return "line " + std::to_string(l.number); };
    // A name is printable text, and each line's family, direction and precision are the name's: the page and the
    // terminal show them, and a control character there would break what shows the other cases.
    if (std::any_of(name.begin(), name.end(), [](char ch) { return static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f; })) {
      p.add("case names", "a case name in " + log + " holds a control character", keep);
      continue;
    }
    for (const auto& l : r.lines) {
      std::string head[3];
      std::size_t from = 0;
      for (auto& part : head) {
        const std::size_t slash = name.find('/', from);
        part = name.substr(from, slash == std::string::npos ? std::string::npos : slash - from);
        from = slash == std::string::npos ? name.size() : slash + 1;
      }
      const std::optional<std::string>* fields[3] = {&l.family, &l.direction, &l.precision};
      const char* keys[3] = {"family", "direction", "precision"};
      for (int i = 0; i < 3; ++i)
        if (*fields[i] && **fields[i] != head[i]) {
          p.add("case names", log + " " + line(l) + ": " + keys[i] + " '" + **fields[i] + "' is not the name's ('" +
                                  head[i] + "' in " + name + ")", keep);
          break;
        }
    }
    // One status per case.
    const ResultLine* not_run = nullptr;
    for (const auto& l : r.lines)
      if (!l.timed()) {
        not_run = &l;
        break;
      }
    if (not_run && r.lines.size() > 1) {
      const ResultLine& other = &r.lines.front() == not_run ? r.lines[1] : r.lines.front();
      p.add("conflicting status lines", "conflicting status lines for " + name + ": " + line(*not_run) + " says " +
                                            name_of(not_run->status) + ", " + line(other) + " says " +
                                            name_of(other.status),
            "a case either ran (its repetitions, median and mean) or did not (one line with the reason): " + keep);
      continue;
    }
    if (not_run) continue;  // one line: check_cases reports a failed case, or a required one skipped
    std::vector<const ResultLine*> runs, medians, means, rechecks;
    const ResultLine* first = nullptr;
    bool conflict = false;
    for (const auto& l : r.lines) {
      if (l.kind == core::RecordKind::run) runs.push_back(&l);
      else if (l.aggregate == "median") medians.push_back(&l);
      else if (l.aggregate == "mean") means.push_back(&l);
      else if (l.aggregate == "recheck") rechecks.push_back(&l);
      else p.add("unknown lines", log + " " + line(l) + ": aggregate '" + l.aggregate + "' of " + name +
                                      " is not one opmark-bench writes (median, mean, recheck)", keep);
      if (l.aggregate == "recheck" || conflict) continue;
      if (!first) first = &l;
      else if (l.status != first->status) {
        conflict = true;
        p.add("conflicting status lines", "conflicting status lines for " + name + ": " + line(*first) + " says " +
                                              name_of(first->status) + ", " + line(l) + " says " + name_of(l.status),
              "the repetitions, median and mean of a case share one status: " + keep);
      }
    }
    if (rechecks.size() > 1)
      p.add("conflicting status lines", name + " has " + std::to_string(rechecks.size()) +
                                            " recheck lines; the end-of-run re-time writes one", keep);
    // Every measured line verified, in the harness's words for a result within tolerance.
    for (const auto& l : r.lines) {
      if (!l.verification || l.verification->empty()) {
        p.add("unverified cases", "case has no verification record in " + log + ": " + name + " (" + line(l) + ")",
              "every time must come from a verified case: run it with opmark-bench unmodified");
        break;
      }
      if (!states_success(*l.verification)) {
        p.add("unverified cases", "case's verification does not state success in " + log + " " + line(l) + ": " +
                                      name + ": '" + *l.verification + "'",
              "a time counts only for a result within tolerance (\"all N elements within tolerance ...\"): a wrong "
              "result fails the case; fix the cause and run it again");
        break;
      }
    }
    // The repetitions, their median and mean.
    std::vector<double> times;
    for (const auto* l : runs) times.push_back(l->time_us.value_or(0));
    const std::size_t n = times.size();
    if (n == 0) continue;  // check_cases: too few repetitions
    std::vector<long long> numbers;
    for (const auto* l : runs)
      if (l->repetition) numbers.push_back(*l->repetition);
    if (numbers.size() == n) {
      std::sort(numbers.begin(), numbers.end());
      for (std::size_t i = 0; i < n; ++i)
        if (numbers[i] != static_cast<long long>(i)) {
          p.add("repetitions", "the repetitions of " + name + " are not numbered 0 to " + std::to_string(n - 1) +
                                   " (repetition " + std::to_string(numbers[i]) + " where " + std::to_string(i) +
                                   " belongs): some were added, repeated or removed", keep);
          break;
        }
    }
    const bool rules_max = rules.max_repetitions > 0 && max_reps == rules.max_repetitions;
    if (static_cast<double>(n) > max_reps)
      p.add(rules_max ? "rules" : "repetitions", name + " has " + std::to_string(n) + " repetitions, more than the run's maximum of " +
                               number(max_reps) +
                               (rules_max ? " (the rules' max_repetitions)"
                                    : context.count("max_repetitions") ? " (max_repetitions)" : " (opmark-bench's)"),
            keep);
    const double median = statistic_of(times, Statistic::median), mean = statistic_of(times, Statistic::mean);
    if (medians.size() != 1 || means.size() != 1)
      p.add("repetitions", name + " has " + std::to_string(medians.size()) + " median and " +
                               std::to_string(means.size()) + " mean line(s); opmark-bench writes one of each", keep);
    const auto says = [&](const ResultLine& l, double expected, const char* of) {
      const double t = l.time_us.value_or(0);
      if (close_to(t, expected, 1e-6)) return;
      p.add("aggregates disagree", "the " + (l.aggregate.empty() ? std::string("aggregate") : l.aggregate) +
                                       " line of " + name + " (" + line(l) + ") says " + us(t) + ", the " +
                                       of + " of its " + std::to_string(n) + " repetitions is " + us(expected),
            "the median and mean lines are the run's own over all of the case's repetitions: " + keep);
    };
    for (const auto* l : medians) says(*l, median, "median");
    for (const auto* l : rechecks) says(*l, median, "median");
    for (const auto* l : means) says(*l, mean, "mean");
    // How many repetitions the median line says it took: rules v1 (Google Benchmark's aggregate) as its iterations,
    // results format 2 as its repetitions counter and its iterations as the launches of all repetitions.
    if (medians.size() == 1) {
      const ResultLine& m = *medians.front();
      const std::map<std::string, double> counters = m.finite_counters();
      const auto count = counters.find(counter::repetitions);
      if (format2 && count != counters.end() && count->second != static_cast<double>(n))
        p.add("repetitions", name + ": the median line (" + line(m) + ") counts " + number(count->second) +
                                 " repetitions, the log holds " + std::to_string(n), keep);
      double launches = 0;
      bool all_counted = true;
      for (const auto* l : runs) {
        all_counted = all_counted && l->iterations.has_value();
        launches += static_cast<double>(l->iterations.value_or(0));
      }
      const double iterations = m.iterations ? static_cast<double>(*m.iterations) : -1;
      if (!format2 && iterations >= 0 && iterations != static_cast<double>(n))
        p.add("repetitions", name + ": the median line (" + line(m) + ") is over " + number(iterations) +
                                 " repetitions, the log holds " + std::to_string(n), keep);
      if (format2 && all_counted && iterations >= 0 && iterations != launches)
        p.add("repetitions", name + ": the median line (" + line(m) + ") counts " + number(iterations) +
                                 " launches, its repetitions " + number(launches), keep);
    }
    // The derived counters, and the rates against the GPU's peaks.
    double peak_tflops = 0, flops = r.counter(counter::flops);
    // What must come from memory, not the L2: the bytes less data read again (a name core does not know: its bytes)
    double memory_bytes = r.counter(counter::bytes, -1);
    try {
      const core::Case c = core::parse_case_name(name);
      peak_tflops = context_number(context, "peak_tflops_" + std::string(core::precision_info(c.precision).peak_key));
      const core::Work work = core::work_of(c);
      const std::string shape = "the case's shape (" + name + ") gives ";
      // FLOPs are the shape's (2 m n k for a GEMM): a count edited with its rate would pass the check of the rate.
      // (Bytes are not compared: their count, the fewest a kernel must move, is core's model and may be refined.)
      if (r.has_counter(counter::flops) && !close_to(flops, work.flops, 0.01))
        p.add("derived counters", name + ": flops " + number(flops) + ", but " + shape + number(work.flops), keep);
      flops = work.flops, memory_bytes = work.bytes_from_memory();
    } catch (const Error&) {
      // a name core does not know (an extra case of another build): its counters are all there is
    }
    for (const auto& l : r.lines) {
      if (l.aggregate == "mean") continue;
      const std::string why = derived_disagreement(l, peak_tflops, peak_gb_per_s, peak_link_gb_per_s);
      if (!why.empty()) {
        p.add("derived counters", name + ": " + why + " (" + log + ")",
              "tflops, gb_per_s and the percentages of peak are what flops, bytes and the time give: " + keep);
        break;
      }
    }
    const double tflops = core::tflops(flops, r.time_us * 1e-6);
    if (flops > 0 && peak_tflops > 0 && tflops > 1.05 * peak_tflops)
      p.add("rates above peak", name + ": " + number(tflops) + " TFLOPS (flops / median time), " +
                                    number(core::pct_of(tflops, peak_tflops)) + "% of the peak " +
                                    number(peak_tflops) + " TFLOPS the run's context gives",
            "no GPU computes faster than its peak: the times are wrong (edited, or a broken timer); run the case again");
    // A case whose bytes fit in the L2 may be served from it, faster than memory: only larger ones are held to it,
    // and only by the bytes that must come from memory (a gather's rows looked up again may come from the L2).
    const double memory_gb_per_s = core::gb_per_s(memory_bytes, r.time_us * 1e-6);
    if (memory_bytes > 2 * l2_bytes && l2_bytes > 0 && peak_gb_per_s > 0 && memory_gb_per_s > 1.05 * peak_gb_per_s)
      p.add("rates above peak", name + ": " + number(memory_gb_per_s) + " GB/s (bytes from memory / median time) over " +
                                    number(memory_bytes / 1e6) + " MB, more than twice the L2, is " +
                                    number(core::pct_of(memory_gb_per_s, peak_gb_per_s)) +
                                    "% of the memory's peak " + number(peak_gb_per_s) + " GB/s",
            "no GPU moves data from memory faster than its peak: the times are wrong; run the case again");
  }
}

void check_derived(const fs::path& dir, const ResultSet& results, const core::Suite& rules,
                   const std::vector<core::ModelTable>& models, const std::string& shapes_dir, Problems& p) {
  const std::map<std::string, std::string> expected = derived_files(results, rules, models, shapes_dir);
  const std::string repack = "don't edit derived files: opmark-aggregate pack " + dir.string() +
                             " --rederive rewrites them (expected after a model table changed)";
  for (const auto& [rel, text] : expected) {
    const fs::path file = dir / rel;
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(file, ec))) {
      p.add("derived files", rel + " is missing", repack);
      continue;
    }
    std::string have;
    try {
      have = bundle_file_text(dir.string(), rel, "derived file", false, small_file_limits());
    } catch (const Error& e) {
      p.add("derived files", e.what(), repack);
      continue;
    }
    if (have != text)
      p.add("derived files", rel + " differs from what " + bundle_path::results + " gives (first at line " +
                                 std::to_string(first_difference(have, text)) + ")",
            repack);
  }
  const fs::path sheets = dir / bundle_path::spreadsheet;
  std::error_code ec;
  if (fs::is_directory(fs::symlink_status(sheets, ec)))
    for (const auto& entry : fs::directory_iterator(sheets)) {
      const std::string rel = std::string(bundle_path::spreadsheet) + "/" + entry.path().filename().string();
      if (!expected.count(rel))
        p.add("derived files", rel + " is not a file the run gives",
              "remove it (a workbook, opmark.xlsx, is not part of a bundle: it cannot be checked)");
    }
}

// What rules naming a regime (version 5, results format 3) require beyond the earlier versions: results format 3
// with its typed keys, a whole GPU, and energy on every timed case. (The keys' values against the rules:
// check_run_parameters, for every version.)
void check_regime_rules(const ResultSet& results, const core::Suite& rules, Problems& p) {
  if (!rules.regime) return;
  const auto& context = results.context;
  const std::string log = std::string(bundle_path::results) + " line 1";
  const std::string rerun = "run the suite with this opmark-bench (opmark-submit) under rules version " +
                            std::to_string(rules.rules_version);
  const auto text = [&](const char* key) { return context_text(context, key); };
  if (context_number(context, "results_format") < 3)
    p.add("rules", "the run's results_format is '" + text("results_format") + "' (" + log + "), rules version " +
                       std::to_string(rules.rules_version) + " require results format 3", rerun);
  for (const char* key : {"regime", "l2", "min_time_s", "case_time_cap_s", "min_clock_fraction", "energy_window_s",
                          "power_margin", "power_limit_w", "max_sm_clock_mhz", "max_repetitions", "started_at"})
    if (text(key).empty())
      p.add("rules", "the run's context (" + log + ") has no '" + key + "', which results format 3 writes", rerun);
  // The GPU whole and as sold, read by NVML (the clocks, power and energy come from there): a run that states NVML
  // unavailable, ECC off or MIG on measured something else. (A run without NVML states no ECC or MIG.)
  struct State {
    const char *key, *want, *fix;
  };
  for (const State& s : {State{"nvml", "ok", "run the suite where NVML reads the GPU (the driver's libnvidia-ml)"},
                         State{"ecc", "on", "enable ECC (nvidia-smi -e 1, then reboot) and run the suite again"},
                         State{"mig", "off", "disable MIG (nvidia-smi -mig 0) and run the suite again"}})
    if (context.count(s.key) && text(s.key) != s.want)
      p.add("rules", "the run's " + std::string(s.key) + " is '" + text(s.key) + "' (" + log + "), the rules require '" +
                         s.want + "'",
            s.fix);
  // The rules time replays of about a millisecond; a run that asked for another length (--opmark_batch) is not theirs.
  if (!text(core::run_key::batch_s).empty() &&
      !(std::abs(context_number(context, core::run_key::batch_s) - core::kDefaultBatchSeconds) <= 1e-12))
    p.add("rules",
          "the run's batch_s is '" + text(core::run_key::batch_s) + "' (" + log + "), the rules time replays of " +
              number(core::kDefaultBatchSeconds) + " s",
          rerun + ", without --opmark_batch");
  std::size_t timed = 0, with_energy = 0;
  for (const auto& [name, r] : results.cases) {
    if (!r.timed()) continue;
    ++timed;
    // Named, not captured: clang (C++17) captures no structured binding.
    const auto finite = [&c = r](const char* key) { return c.has_counter(key) && std::isfinite(c.counter(key)); };
    with_energy += finite(counter::joules_per_op) && finite(counter::power_w);
  }
  // Every one: an allowance would let the heaviest cases drop their power and state any J/op (both committed
  // bundles carry energy on all 1446).
  if (with_energy < timed)
    p.add("rules", std::to_string(with_energy) + " of the run's " + std::to_string(timed) +
                       " timed cases carry joules_per_op and power_w; the rules require every one",
          "measure on a GPU whose power NVML reads (nvml: ok in the context), with this opmark-bench");
}

}  // namespace

std::vector<Problem> check_bundle(const std::string& bundle, const std::string& rules_path, const std::string& shapes_dir,
                                  int asked_version) {
  return check_bundle_report(bundle, rules_path, shapes_dir, asked_version).problems;
}

CheckReport check_bundle_report(const std::string& bundle, const std::string& rules_path, const std::string& shapes_dir,
                                int asked_version) {
  CheckReport report;
  Problems p;
  const auto done = [&]() {
    report.problems = p.done();
    return report;
  };
  const fs::path dir = bundle;
  if (!fs::is_directory(dir)) throw Error(bundle + ": no such bundle folder");
  // Decided before anything of the bundle is read: the bundle never picks the rules it is held to.
  const core::Suite rules = rules_to_apply(rules_path, asked_version, &report.rules_why);
  report.rules_path = rules.path;
  report.rules_version = rules.rules_version;
  report.notes.push_back("rules version " + std::to_string(rules.rules_version) + " applied (" + report.rules_why +
                         ": " + rules.path + ")");
  check_links(dir, p);
  check_known_files(bundle, p);
  const auto present = [](const fs::path& path) {
    std::error_code ec;
    return fs::exists(fs::symlink_status(path, ec));
  };
  for (const char* rel : {bundle_path::system, bundle_path::scores})
    if (!present(dir / rel))
      p.add("files", (dir / rel).string() + " is missing", "a bundle is what opmark-submit writes (results/README.md)");
  for (const char* rel : {bundle_path::results, bundle_path::benchmark_json})
    if (!present(raw_file(bundle, rel)))
      p.add("files", (dir / rel).string() + " (or .gz) is missing", "a bundle is what opmark-submit writes (results/README.md)");
  if (!present(raw_file(bundle, bundle_path::results))) return done();
  ResultSet results;
  try {
    results = load_bundle_results(bundle, Statistic::median);
  } catch (const Error& e) {
    p.add("files", e.what(), "keep the run's own results log, unedited");
    return done();
  }
  // A run killed while writing a line: what it measured reads, but it is no whole run of the suite.
  for (const auto& warning : results.warnings)
    p.add("whole run", warning, "a submission is a whole run: run the suite to its end (opmark-submit)");
  if (results.context_lines != 1)
    p.add("files", std::string(bundle_path::results) + " holds " + std::to_string(results.context_lines) +
                       " context lines: a results log is one run, its context first",
          "keep the run's own results log, unedited (runs are not merged into a bundle)");
  SystemRun system_run;
  if (present(dir / bundle_path::system)) system_run = check_system(dir, results, rules.rules_version, p);
  const std::string run_rules = results.context.count("rules_version") ? results.context.at("rules_version") : "";
  if (run_rules != std::to_string(rules.rules_version))
    p.add("rules", "the run was made under rules version '" + run_rules + "', these are version " +
                       std::to_string(rules.rules_version) + " (" + rules.path + ", " + report.rules_why + ")",
          "a bundle does not pick its rules: re-measure under these (opmark-submit), or check with --rules-version " +
              (run_rules.empty() ? std::string("N") : run_rules) + " to apply older rules on purpose");
  check_run_parameters(results, rules, p);
  check_regime_rules(results, rules, p);
  // The tables and models are read once: the required cases and the derived scores both come from them.
  const std::vector<core::ModelTable> models = core::load_models(rules.model_names, {shapes_dir}, rules.model_folder);
  const UnstableAllowance allowance = unstable_allowance(results, rules);
  check_cases(results, rules, core::suite_cases(rules, core::load_tables({shapes_dir}), models), allowance, p);
  if (allowance.unstable > 0 && allowance.unstable <= allowance.allowed)
    report.notes.push_back(std::to_string(allowance.unstable) + " unstable case(s), within the rules' " +
                           std::to_string(allowance.allowed) +
                           " (max_unstable_fraction): they keep their status and reason, and scores mark them");
  check_lines(results, rules, p);
  check_whole_run(results, p);
  check_timestamps(results, system_run.started, system_run.wall_s, p);
  check_verification(results, p);
  check_noise_agreement(results, rules.max_noise, p);
  check_physics(results, p);
  check_datasheet(results, p);
  if (present(raw_file(bundle, bundle_path::benchmark_json))) check_benchmark_json(bundle, results, p);
  check_bench_log(bundle, results, p);
  check_derived(dir, results, rules, models, shapes_dir, p);
  return done();
}

}  // namespace opmark::aggregate
