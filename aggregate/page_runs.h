#pragma once
// The results page's part for plain runs (page --runs): a run folder that --opmark_out wrote, never checked, shown
// apart from the submission bundles, each number marked as not checked. A run never joins a score, speedup or case
// table beside bundles (issue 53: a plain run with its times cut to a quarter was published as "4.0x over H100").
#include <filesystem>
#include <string>

namespace opmark::aggregate {

// The run in `dir` as an HTML fragment headed `id`: its GPU and context, what was read with a caveat (a torn last
// line), then every case with its status and median time, each time marked "not checked". The run is read and let
// go here, so the page holds one run's results at a time.
std::string plain_run_html(const std::string& id, const std::filesystem::path& dir);

}  // namespace opmark::aggregate
