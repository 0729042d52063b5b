#pragma once
// The folder a run writes (--opmark_out): one run at a time, and never over an earlier run's results unasked. Two
// runs on one folder would truncate each other's logs and interleave their lines; a rerun into the folder of a
// killed run would silently discard what that run measured.
#include <string>

namespace opmark::bench {

// The lock file a run holds in its folder, removed when the run ends.
inline constexpr const char* kLockFileName = ".opmark.lock";

// The folder's lock, held from lock_output_folder until destroyed (the process's end releases it too, even a crash).
class OutputFolderLock {
 public:
  OutputFolderLock(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  ~OutputFolderLock();
  OutputFolderLock(OutputFolderLock&& other) noexcept : fd_(other.fd_), path_(std::move(other.path_)) { other.fd_ = -1; }
  OutputFolderLock(const OutputFolderLock&) = delete;
  OutputFolderLock& operator=(const OutputFolderLock&) = delete;
  OutputFolderLock& operator=(OutputFolderLock&&) = delete;

 private:
  int fd_;
  std::string path_;
};

// Creates `dir` and locks it for this run (flock on DIR/.opmark.lock, never waiting): throws opmark::Error at once
// naming the folder when another run holds it.
OutputFolderLock lock_output_folder(const std::string& dir);

// Whether this run may write its results into `dir`: throws opmark::Error naming the folder and the file when it
// already holds a run's results (a non-empty results.jsonl or benchmark.json, or a link at either), unless
// `overwrite` (--opmark_overwrite). The one place that decides it (a later --opmark_resume belongs here).
void check_output_folder(const std::string& dir, bool overwrite);

}  // namespace opmark::bench
