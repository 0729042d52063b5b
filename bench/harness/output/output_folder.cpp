#include "bench/harness/output/output_folder.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/error.h"

namespace fs = std::filesystem;

namespace opmark::bench {

OutputFolderLock::~OutputFolderLock() {
  if (fd_ < 0) return;
  // Removed while still held: a run that opens the file later makes a new one (see lock_output_folder).
  ::unlink(path_.c_str());
  ::close(fd_);
}

OutputFolderLock lock_output_folder(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error("--opmark_out: " + dir + ": cannot create the folder (" + ec.message() + ")");
  const std::string path = (fs::path(dir) / kLockFileName).string();
  for (;;) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0644);
    if (fd < 0)
      throw Error("--opmark_out: " + path + ": cannot open the folder's lock file (" + std::strerror(errno) + ")");
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      char pid[32] = {0};
      const ssize_t n = err == EWOULDBLOCK ? ::pread(fd, pid, sizeof pid - 1, 0) : 0;
      ::close(fd);
      if (err == EWOULDBLOCK) {
        const std::string holder = n > 0 ? " (process " + std::string(pid, static_cast<std::size_t>(n)) + ")" : "";
        throw Error("--opmark_out: " + dir + " is in use by another opmark-bench run" + holder + ", which holds " +
                    path + ": two runs in one folder would overwrite each other's results; wait for it to end, or "
                    "give this run another --opmark_out");
      }
      throw Error("--opmark_out: " + path + ": cannot lock the folder (" + std::strerror(err) + ")");
    }
    // The file may have been removed by the run that held it between our open and our lock: then this lock is on
    // a file no other run will find, and the folder's lock is taken again on the file now there.
    struct stat held {}, there {};
    if (::fstat(fd, &held) != 0 || ::lstat(path.c_str(), &there) != 0 || held.st_dev != there.st_dev ||
        held.st_ino != there.st_ino) {
      ::close(fd);
      continue;
    }
    // A lock file that is another file too (a hard link planted there) would be truncated and written over: refuse.
    if (!S_ISREG(held.st_mode) || held.st_nlink > 1) {
      ::close(fd);
      const std::string what = S_ISREG(held.st_mode) ? "a hard link to another file" : "no file";
      throw Error("--opmark_out: " + path + " is " + what +
                  ": opmark-bench writes its process id there; remove it, or give another --opmark_out");
    }
    // The holder's process id, for a refused second run's message only: the lock holds without it.
    const std::string pid = std::to_string(::getpid());
    const bool noted = ::ftruncate(fd, 0) == 0 && ::pwrite(fd, pid.data(), pid.size(), 0) > 0;
    static_cast<void>(noted);
    return OutputFolderLock(fd, path);
  }
}

void check_output_folder(const std::string& dir, bool overwrite) {
  if (overwrite) return;
  for (const char* name : {"results.jsonl", "benchmark.json"}) {
    const std::string path = (fs::path(dir) / name).string();
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) continue;
    if (S_ISREG(st.st_mode) && st.st_size == 0) continue;  // a run that stopped before measuring anything
    throw Error("--opmark_out: " + dir + " already holds a run's results (" + path + "): this run would replace "
                "them; give another --opmark_out, or add --opmark_overwrite to replace them");
  }
}

}  // namespace opmark::bench
