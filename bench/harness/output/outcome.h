#pragma once
// How a case ended, decided in one place: unsupported and out-of-memory cases are skipped (the run goes on),
// wrong results and any other error fail the case (and the run's exit status); nothing else reports a time. A case
// whose measurements disagree with each other even after measuring again is unstable: it keeps both numbers and is
// listed at the end of the run, never reported as a plain time.
#include <exception>
#include <map>
#include <string>
#include <vector>

#include "core/result_record.h"

namespace opmark::bench {

// The status a case's results lines carry (core/result_record.h): written as it is decided.
using Status = core::CaseStatus;
using core::name_of;

struct Outcome {
  Status status = Status::ok;
  std::string reason;        // why skipped or failed
  std::string verification;  // the comparison's summary, when it ran
  std::string label;
  std::map<std::string, double> counters;
  std::vector<std::string> kernels;  // the launch's kernels, in the order they start (CUPTI; empty: not traced)
};

// Maps the exception in flight to an outcome: UnsupportedError -> skipped "unsupported: ...",
// OutOfMemoryError -> skipped "out of memory: ...", anything else -> failed with its message.
Outcome outcome_from_exception(std::exception_ptr e) noexcept;

}  // namespace opmark::bench
