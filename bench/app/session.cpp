#include "bench/app/session.h"

#include <cuda_runtime.h>

#include <cstdio>
#include <filesystem>
#include <vector>

#include "bench/harness/output/benchmark_json_join.h"
#include "core/error.h"
#include "core/file_access.h"
#include "kernels/cuda_check.h"

namespace fs = std::filesystem;

namespace opmark::bench::app {

void join_process_group(Options& options, const ProcessGroup& group) {
  if (!group.multi_process()) return;
  if (group.rank() != 0) {
    if (!std::freopen("/dev/null", "w", stdout))
      throw Error("rank " + std::to_string(group.rank()) + ": cannot silence stdout");
    options.out_dir.clear();
  }
  if (!options.selection.symbols.count("G")) options.selection.symbols["G"] = group.size();
  int count = 0;
  if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0)
    OPMARK_CHECK_CUDA(cudaSetDevice(device_for_local_rank(group.local_rank(), count)));
}

Session open_session(const Options& options, const ProcessGroup& group, bool listing) {
  Session session;
  // Rank 0 alone reads the log: the ranks would run different cases and wait on each other's collectives forever.
  if (options.resume && group.multi_process() && !listing && !options.validate_only)
    throw Error("--opmark_resume runs in one process: a run under mpirun cannot be resumed; run it again whole");
  if (options.out_dir.empty() || options.validate_only || options.help || group.rank() != 0 || listing)
    return session;
  std::error_code ec;
  for (fs::path p = fs::absolute(options.out_dir, ec); !p.empty() && !fs::exists(p, ec); p = p.parent_path()) {
    session.created_root = p.string();
    if (p == p.parent_path()) break;
  }
  session.lock.emplace(lock_output_folder(options.out_dir));
  check_output_folder(options.out_dir, options.overwrite || options.resume);
  session.log_path = (fs::path(options.out_dir) / "results.jsonl").string();
  // An empty log (a run stopped before its context line) starts afresh; anything else there is read as the log, and
  // a link, a FIFO or a folder refused, naming it.
  const fs::file_status log = fs::symlink_status(session.log_path, ec);
  if (options.resume && fs::exists(log) && !(fs::is_regular_file(log) && fs::file_size(session.log_path, ec) == 0))
    session.resumed_context = core::read_resume_context(session.log_path);
  return session;
}

void discard_unused_folder(Session& session, const Options& options) {
  if (!session.lock || session.created_root.empty()) return;
  session.lock.reset();  // removes the lock file
  std::error_code ec;
  // The output folder, then each parent this run made (runs/ of runs/<date>), each only where it is empty.
  for (fs::path p = fs::absolute(options.out_dir, ec); !p.empty(); p = p.parent_path()) {
    if (!fs::remove(p, ec) || p == fs::path(session.created_root)) break;
  }
}

void choose_json_output(Session& session, const Options& options, bool user_json) {
  if (!session.lock) return;  // this process writes no files
  if (!user_json)
    session.json_path =
        (fs::path(options.out_dir) / (session.resumed_context ? "benchmark.resumed.json" : "benchmark.json")).string();
}

void check_resume(Session& session, const nlohmann::json& context) {
  if (!session.resumed_context) return;
  const std::vector<std::string> differ = core::resume_mismatches(*session.resumed_context, context);
  if (!differ.empty()) {
    std::string all;
    for (const auto& d : differ) all += "\n  " + d;
    throw Error("--opmark_resume: " + session.log_path +
                " was measured otherwise; a resumed run must be the same run:" + all);
  }
  session.resumed = core::read_resume_state(session.log_path);
}

void keep_resumed(const Session& session) {
  if (!session.resumed) return;
  core::write_file_atomically(session.log_path, session.resumed->kept_text);
  // benchmark.json too: the entries of the cases kept, from both parts a killed resume may have left.
  if (!session.json_path.empty())
    join_resumed_benchmark_json(fs::path(session.log_path).parent_path().string(), &session.resumed->done);
}

void finish_resumed_json(const Session& session) {
  if (session.resumed && !session.json_path.empty())
    join_resumed_benchmark_json(fs::path(session.log_path).parent_path().string(), nullptr);
}

}  // namespace opmark::bench::app
