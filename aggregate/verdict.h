#pragma once
// The verdict on one case measured in two runs: same, faster, slower or unclear. One pure function, used by
// `compare` and by the results page (which embeds its answers), so the two never disagree. aggregate/README.md
// states the rule and its constants.
#include <string>

#include "aggregate/results.h"

namespace opmark::aggregate {

enum class Verdict { slower, faster, unclear, same };  // in compare's report order
const char* name_of(Verdict v);

// Each run's run-to-run noise is taken as at least this: two runs of the same cases on one machine move 1-3%,
// while one end-of-run re-time, or the spread of a few back-to-back repetitions (0.02-0.04%), can come out far
// smaller by chance.
inline constexpr double kNoiseFloor = 0.01;
// A change is called only beyond this many times the two runs' noise combined (root sum of squares). Each run's
// noise is one observed run-to-run difference, on average 0.8 standard deviations of one; two combined and doubled
// make a band of about 2.3 of them, which a difference of noise alone (if normal) stays inside 97% of the time.
inline constexpr double kNoiseMultiple = 2.0;
// The least change ever called (compare's --threshold moves it): under it a case is `same` whatever the noise.
inline constexpr double kChangeFloor = 0.02;
// SM clocks within this fraction are the same clock (NVML reports the clock in steps of about 15 MHz, 0.8% of
// 1980 MHz): only a larger difference is compared in cycles.
inline constexpr double kClockTolerance = 0.01;

// One run's noise for a case, and where it came from.
struct RunNoise {
  double measured = -1;  // the relative noise the run recorded or shows; -1 where it shows none
  std::string source;    // "run_noise", "re-time", "repetitions" or "none"
  double used() const { return measured > kNoiseFloor ? measured : kNoiseFloor; }
};

// `run_noise` (results format 3), else |recheck_us - time| / time (the end-of-run re-time, format 2), else the
// run's `noise` counter, else the median absolute deviation over the median of the repetitions the file holds.
RunNoise run_noise_of(const CaseResult& r);

struct CaseVerdict {
  Verdict verdict = Verdict::unclear;
  double time_ratio = 0;  // after / before, in time: above 1 is slower
  double ratio = 0;       // after / before in cycles where basis is "cycles", else time_ratio
  std::string basis;      // "time", or "cycles" where the verdict in time had to be confirmed in cycles
  double clock_before = 0, clock_after = 0;  // sm_clock_mhz of each, 0 where not recorded
  RunNoise noise_before, noise_after;
  double limit = 0;       // the relative change past which a verdict is called
  std::string detail;     // the verdict in words: change, basis, limit and the noises it came from
};

// `unclear` where either run is unstable or a time is missing. Otherwise, on after/before in time: `same` within
// `change_floor` (symmetric in log space: 1.02x slower and 1/1.02 faster are the same size); `slower` or `faster`
// beyond limit = max(change_floor, kNoiseMultiple x sqrt(noise_before^2 + noise_after^2)), each noise at least
// kNoiseFloor; `unclear` between the floor and the limit (a change the noise is too large to call).
// Where both runs record sm_clock_mhz, the clocks differ by more than kClockTolerance and the case is compute bound
// on both (its pct_peak at least its pct_peak_bw: nearer the compute roof than the bandwidth one), the same rule is
// applied to cycles (time x SM clock) too, and the verdict stands only where time and cycles agree; else `unclear`.
// nvbench's comparison confirms a change the same way: a compute-bound kernel at a lower clock takes longer without
// being any slower per cycle. A memory-bound case is judged in time alone (the memory clock does not follow the SM
// clock).
CaseVerdict case_verdict(const CaseResult& before, const CaseResult& after, double change_floor = kChangeFloor);

}  // namespace opmark::aggregate
