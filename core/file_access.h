#pragma once
// Reading and writing files without trusting them. Inputs (tables, suites, rules, pins, results) may be anything a
// path names: a device such as /dev/zero is read until memory runs out, a pipe blocks forever, a folder reads as
// nothing. Outputs must never be left half-written (a full disk would replace a good page with a cut one) nor be
// written through a symbolic link (a planted link would overwrite whatever it points to). Every reader and writer
// of opmark goes through these.
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace opmark::core {

// The most a text input (shape table, model table, submission rules, pin file, areas file) may hold: the largest
// committed table is under 40 KB, so 16 MiB is far above any real one and far below what hurts.
inline constexpr std::size_t kMaxTextFileBytes = std::size_t{16} << 20;

// How a reader treats a symbolic link at the path: the command line's own files may be links (the user chose them);
// a file inside a bundle may not.
enum class Links { follow, refuse };

// A size for messages: "16 MiB" for whole MiB, else the bytes ("1000 bytes", "16777217 bytes (16.0 MiB)"), so a
// size one byte over a limit never reads as the limit itself.
std::string size_text(std::size_t bytes);

// An open regular file, closed on destruction. open_regular_file throws opmark::Error naming `path` and `what` it
// is for when it cannot be opened, is not a regular file (a folder, a device, a pipe: opening never waits for a
// pipe's writer), is a symbolic link under Links::refuse, or is larger than `max_bytes` ("PATH: shape table of
// 20 MiB, over the limit of 16 MiB").
class InputFile {
 public:
  InputFile(int fd, std::size_t size) : fd_(fd), size_(size) {}
  ~InputFile();
  InputFile(InputFile&& other) noexcept : fd_(other.fd_), size_(other.size_) { other.fd_ = -1; }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  InputFile& operator=(InputFile&&) = delete;
  int fd() const { return fd_; }
  std::size_t size() const { return size_; }  // as stat saw it on opening
  int release();                              // the descriptor, no longer closed here

 private:
  int fd_;
  std::size_t size_;
};
InputFile open_regular_file(const std::string& path, const std::string& what, Links links, std::size_t max_bytes);

// The rest of an open file, at most `max_bytes` (a file that grows past that while read is refused too).
std::string read_to_limit(InputFile& file, const std::string& path, const std::string& what, std::size_t max_bytes);

// The whole of a regular file of at most `max_bytes`: open_regular_file, then read_to_limit.
std::string read_regular_file(const std::string& path, const std::string& what,
                              std::size_t max_bytes = kMaxTextFileBytes, Links links = Links::follow);

// Writes all of `size` bytes to `fd`, retrying short writes; throws opmark::Error "PATH: cannot write (reason)"
// on the first failure (a full disk: ENOSPC).
void write_all(int fd, const char* data, std::size_t size, const std::string& path);

// A log written as a run goes (opmark-bench's results.jsonl and benchmark.json): opened without following a
// symbolic link (O_NOFOLLOW; never blocking on a pipe), truncated, every write checked, flushed to disk on close.
// Each failure throws opmark::Error naming the file ("DIR/results.jsonl: cannot write (No space left on device)").
class LogFile {
 public:
  enum class Mode { replace, append };  // append: go on at the end of what the file holds (a resumed run)
  explicit LogFile(const std::string& path, Mode mode = Mode::replace);
  ~LogFile();  // closes without the checks of close() (an error already on its way out)
  LogFile(const LogFile&) = delete;
  LogFile& operator=(const LogFile&) = delete;
  void append(const std::string& text);
  void close();  // fsync, then close; throws on either's failure
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
};

// Replaces `path` with `text` atomically: written to a new file beside it (same folder, so the rename cannot cross
// file systems), flushed to disk (fsync), then renamed over `path`. Creates the folder. A symbolic link, folder or
// device at `path` is refused, never written through. On any failure the previous file stays as it was, the
// temporary file is removed, and opmark::Error names `path` and why.
void write_file_atomically(const std::string& path, const std::string& text);

// The same for a writer that must open the file by name itself (libxlsxwriter): `write` is called with the
// temporary file's path and must fill it or throw.
void write_file_atomically_with(const std::string& path, const std::function<void(const std::string& temp)>& write);

// Writes several files as one set: each to a temporary file beside it, all flushed to disk, and only then each
// renamed over its path (renames need no space). A failed write (a full disk) replaces none of them.
void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files);

// Replaces the folder `path` with one holding exactly `files` (names inside it to contents) as one step: written
// into a new folder beside it (path + kFolderTempInfix + a random tail), then swapped in with renameat2's
// RENAME_EXCHANGE and the old one removed. A failed write (a full disk) leaves the previous folder whole and removes
// the new one; a kill between the swap and the removal leaves the previous folder beside it under its temporary
// name (remove_stale_folder_temps clears those). A symbolic link at `path` is refused. Throws opmark::Error.
inline constexpr const char* kFolderTempInfix = ".opmark-new.";
void replace_folder_atomically(const std::string& path, const std::map<std::string, std::string>& files);
// Removes what an interrupted replace_folder_atomically of `path` left beside it.
void remove_stale_folder_temps(const std::string& path);

}  // namespace opmark::core
