#include "bench/harness/output/case_line.h"

#include <cmath>
#include <cstdio>
#include <ostream>

#include "bench/harness/output/outcome.h"
#include "core/case.h"
#include "core/counters.h"

namespace opmark::bench {

namespace counter_name = core::counter;
namespace {

double counter(const CaseLine& l, const char* key) {
  const auto it = l.counters.find(key);
  return it != l.counters.end() && std::isfinite(it->second) ? it->second : 0.0;
}

// A time in us, ms or s, 4 significant figures.
std::string time_text(double us) {
  char b[32];
  if (!(us > 0)) return "";
  if (us < 1e3) std::snprintf(b, sizeof b, "%.4g us", us);
  else if (us < 1e6) std::snprintf(b, sizeof b, "%.4g ms", us / 1e3);
  else std::snprintf(b, sizeof b, "%.4g s", us / 1e6);
  return b;
}

std::string energy_text(double joules) {
  char b[32];
  if (!(joules > 0)) return "";
  if (joules < 1e-3) std::snprintf(b, sizeof b, "%.3g uJ", joules * 1e6);
  else if (joules < 1) std::snprintf(b, sizeof b, "%.3g mJ", joules * 1e3);
  else std::snprintf(b, sizeof b, "%.3g J", joules);
  return b;
}

std::string columns(const std::string& status, const std::string& time, const std::string& kernel,
                    const std::string& rate, const std::string& peak, const std::string& clock,
                    const std::string& power, const std::string& energy, const std::string& name) {
  char b[512];
  // Narrow columns: with the short names, the quick suite's lines stay within kCaseLineWidth.
  std::snprintf(b, sizeof b, "%-8s %9s %9s %12s %6s %8s %5s %8s  ", status.c_str(), time.c_str(), kernel.c_str(),
                rate.c_str(), peak.c_str(), clock.c_str(), power.c_str(), energy.c_str());
  return b + name;
}

// The name, then the reason cut to keep the line within kCaseLineWidth (the full reason is in results.jsonl).
std::string with_reason(const std::string& head, const std::string& reason) {
  if (reason.empty()) return head;
  const std::size_t room = head.size() + 2 < kCaseLineWidth ? kCaseLineWidth - head.size() - 2 : 0;
  if (reason.size() <= room) return head + ": " + reason;
  return room > 3 ? head + ": " + reason.substr(0, room - 3) + "..." : head + " (reason in results.jsonl)";
}

}  // namespace

std::string case_line_header() {
  return columns("status", "time", "kernels", "rate", "% peak", "SM clock", "power", "per op", "case");
}

std::string format_case_line(const CaseLine& l) {
  if (l.status != "ok" && l.status != "unstable") {
    const std::string head = columns(l.status, "", "", "", "", "", "", "", l.name);
    return with_reason(head, l.reason);
  }
  char b[48];
  std::string rate, peak, clock, power;
  if (const double t = counter(l, counter_name::tflops); t > 0) {
    // Under a TFLOPS in GFLOPS, so the column keeps its width.
    if (t < 1) std::snprintf(b, sizeof b, "%.4g GFLOPS", t * 1e3);
    else std::snprintf(b, sizeof b, "%.4g TFLOPS", t);
    rate = b;
  } else if (const double g = counter(l, counter_name::gb_per_s); g > 0) {
    // A collective across GPUs shows nccl-tests' bus bandwidth, the rate its % of the links' peak is of.
    const double busbw_factor = counter(l, counter_name::busbw_factor);
    std::snprintf(b, sizeof b, "%.4g GB/s", busbw_factor > 0 ? g * busbw_factor : g);
    rate = b;
  }
  double pct = counter(l, counter_name::pct_peak);
  if (!(pct > 0)) pct = counter(l, counter_name::pct_peak_bw);
  if (!(pct > 0)) pct = counter(l, counter_name::pct_link_bw);
  if (pct > 0) {
    if (pct < 0.01) std::snprintf(b, sizeof b, "<0.01%%");
    else std::snprintf(b, sizeof b, "%.3g%%", pct);
    peak = b;
  }
  if (const double mhz = counter(l, counter_name::sm_clock_mhz); mhz > 0) {
    std::snprintf(b, sizeof b, "%.0f MHz", mhz);
    clock = b;
  }
  if (const double w = counter(l, counter_name::power_w); w > 0) {
    std::snprintf(b, sizeof b, "%.0f W", w);
    power = b;
  }
  const std::string head =
      columns(l.status, time_text(l.time_us), time_text(counter(l, counter_name::kernel_us)), rate, peak, clock, power,
              energy_text(counter(l, counter_name::joules_per_op)), l.name);
  if (l.status != "unstable") return head;
  return l.reason.empty() ? head + " (in doubt)" : with_reason(head, l.reason);
}

std::string reported_case_name(const benchmark::BenchmarkReporter::Run& run) {
  std::string name = run.run_name.function_name;
  const std::string manual = "/manual_time";
  if (name.size() > manual.size() && name.compare(name.size() - manual.size(), manual.size(), manual) == 0)
    name.resize(name.size() - manual.size());
  return name;
}

CaseLine case_line_of(const CaseRecord& record) {
  CaseLine line;
  // The short name (fields at their defaults left out) keeps the line within kCaseLineWidth; results.jsonl and
  // --benchmark_list_tests have the full one.
  line.name = core::short_case_name(record.c);
  line.status = name_of(record.outcome.status);
  line.reason = record.outcome.reason;
  line.counters = record.outcome.counters;
  if (record.measurement) line.time_us = record.measurement->median_s * 1e6;
  return line;
}

CaseLine case_line_of(const core::ResultRecord& logged) {
  CaseLine line;
  line.name = core::short_case_name(core::parse_case_name(logged.name));
  line.status = core::name_of(logged.status);
  line.reason = logged.reason.value_or("");
  line.counters = logged.finite_counters();
  line.time_us = logged.time_us.value_or(0);
  return line;
}

CaseLinePrinter::CaseLinePrinter(std::ostream& out) : out_(out) { out_ << case_line_header() << "\n"; }

void CaseLinePrinter::finished(const CaseRecord& record) { out_ << format_case_line(case_line_of(record)) << std::endl; }

}  // namespace opmark::bench
