#pragma once
// The end-of-run re-time: every case that ran is timed again briefly after all the others, so a slow spell during
// its measurement shows. The decision for one case is apart from the GPU, tested on the CPU with scripted samples and
// thread ranks (test/bench/retime_test.cpp); Harness::recheck (retime.cpp) runs it over the run's cases.
#include <functional>

#include "bench/harness/timing/measure_case.h"
#include "bench/harness/output/outcome.h"
#include "bench/harness/process_group.h"
#include "bench/harness/timing/repetitions.h"

namespace opmark::bench {

// About 10 ms of `quick` samples (at least 3): enough to see a slow spell, short enough for every case of a suite.
constexpr int kRetimeMinSamples = 3;
constexpr double kRetimeSeconds = 0.01;

// Re-times one case: the quick samples' median is held against the case's median `m`; where they disagree
// (kAgreementFactor), `measure_again` measures the case once more, and where that disagrees too the case turns
// unstable with the three numbers. Writes m.recheck_s (and remeasured_s, recheck_reps_s) and the counters
// recheck_us, run_noise (and remeasured_us) into `o`. In a multi-process run (`group`) every rank takes the same
// samples and decisions.
void retime_case(SampleSource& quick, ProcessGroup* group, const std::function<Measurement()>& measure_again,
                 Measurement& m, Outcome& o);

}  // namespace opmark::bench
