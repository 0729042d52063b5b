#pragma once
// Resuming a run that was killed (--opmark_resume): what its results log already holds. A case counts as done when
// its log has its median (an aggregate line) or its one line of a case that did not run; a case cut off mid-way
// (repetitions without a median) is measured again. Re-time lines are kept with their cases (a re-time's verdict,
// unstable, stands); a done ok case with no re-time line, in a run that re-times (recheck: on), is re-timed by the
// resumed run from its median line. The context must match the new run's on the keys that decide what a time
// means, or the two parts would not be one run.
#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace opmark::core {

struct ResumeState {
  nlohmann::json context;       // the log's context line
  std::set<std::string> done;   // cases measured (or found not to run) in full
  // Each done case's status as its last line says it (ok, unstable, skipped, failed), for the summary.
  std::map<std::string, std::string> status;
  // The done ok cases that lack their re-time line where the run re-times every case: the median line of each.
  std::map<std::string, nlohmann::json> to_retime;
  std::string kept_text;        // the context line and every line of the done cases, in order: the log to go on from
  bool whole = false;           // the log ends with its summary line and no done case lacks its re-time line
  int dropped_lines = 0;        // lines of cases cut off and summaries, and a last line cut by the kill
  std::map<std::string, int> counts() const;  // the done cases by status
};

// The largest log resumed: the 1446-case submission suite writes 12 MB, every table (6459 cases) more.
inline constexpr std::size_t kMaxResumedLogBytes = std::size_t{1} << 30;

// Reads a results log for resuming. Throws opmark::Error naming file and line for a line that is not JSON (except
// the last, unfinished one: the kill's), and when there is no context line first.
ResumeState read_resume_state(const std::string& path);
// The context of a results log to resume, from its first line alone (read before the log is, so that a run made
// otherwise is refused without reading a GiB). Throws opmark::Error naming file and line as read_resume_state does.
nlohmann::json read_resume_context(const std::string& path);
// The largest context line read so.
inline constexpr std::size_t kMaxContextLineBytes = std::size_t{16} << 20;
ResumeState parse_resume_state(const std::string& text, const std::string& path);

// The context keys a resumed run must share with the log it goes on: the GPU and its state (power limit, clock, ECC,
// MIG, NVML), the host, the software, the build, the rules and every setting core/run_spec.h marks so.
std::vector<std::string> resume_keys();
// Returns "key: 'earlier' in the log, 'now' in this run" for each resume key that differs.
std::vector<std::string> resume_mismatches(const nlohmann::json& earlier, const nlohmann::json& now);

}  // namespace opmark::core
