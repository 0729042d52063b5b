#pragma once
// One finished case as the harness measured it, and where the harness hands it. The results log writes its lines
// from the record it is given, so what it writes is what was measured, not what a later lookup by name finds.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bench/harness/timing/measure_case.h"
#include "bench/harness/output/outcome.h"
#include "core/case.h"

namespace opmark::bench {

struct CaseRecord {
  const core::Case& c;  // the case: family, direction, precision, sets, applications, models
  std::string name;     // its canonical name (core::make_case_name)
  Outcome outcome;
  // Present where the case was timed (ok or unstable): every repetition, the median and mean, the re-time's numbers.
  std::optional<Measurement> measurement;
  // NVML read the clock-event reasons of each repetition; without it a repetition's reasons are no reading.
  bool clock_event_reasons = false;
};

// What takes the harness's records. Each call comes as soon as its case is done, so a sink that writes at once keeps
// everything measured before a crash or kill.
class CaseSink {
 public:
  virtual ~CaseSink() = default;
  // A case finished: measured, failed or skipped. Once per case, however often Google Benchmark calls it.
  virtual void finished(const CaseRecord& record) = 0;
  // The end-of-run re-time timed a case again: its counters carry the re-time's numbers, and its status is unstable
  // where the measurements disagreed. Once per re-timed case, after every case has finished.
  virtual void retimed(const CaseRecord& record) = 0;
};

// Several sinks, each handed every record in the order given (the results log first: a record is on disk before it
// is on the screen).
class CaseSinks final : public CaseSink {
 public:
  explicit CaseSinks(std::vector<CaseSink*> sinks) : sinks_(std::move(sinks)) {}
  void finished(const CaseRecord& record) override {
    for (CaseSink* s : sinks_) s->finished(record);
  }
  void retimed(const CaseRecord& record) override {
    for (CaseSink* s : sinks_) s->retimed(record);
  }

 private:
  std::vector<CaseSink*> sinks_;
};

}  // namespace opmark::bench
