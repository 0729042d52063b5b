#include "core/file_access.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <vector>

#include "core/error.h"

namespace fs = std::filesystem;

namespace opmark::core {
namespace {

// What a file that is not a regular one is, for the message.
std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISFIFO(mode)) return "a pipe";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string symlink_not_read(const std::string& path, const std::string& what) {
  return path + ": a symbolic link, not read: " + what + " must be a file of its own here (copy the file in, not a "
                "link to it)";
}

std::string symlink_not_written(const std::string& path) {
  return path + ": a symbolic link, not written through (it would overwrite whatever it points to): remove the link, "
                "or write elsewhere";
}

std::string failed(const std::string& path, const std::string& doing, int err) {
  return path + ": " + doing + " (" + std::strerror(err) + "); the previous file, if any, is left as it was";
}

// The temporary file beside `path`, removed unless it was renamed into place.
class TempFile {
 public:
  explicit TempFile(const std::string& path) {
    const fs::path p(path);
    std::string pattern = (p.parent_path() / ("." + p.filename().string() + ".tmp.XXXXXX")).string();
    // mkstemp creates the file exclusively (O_EXCL): it never opens an existing file or link.
    fd_ = ::mkstemp(pattern.data());
    if (fd_ < 0) throw Error(failed(path, "cannot create a temporary file beside it", errno));
    name_ = pattern;
    (void)::fchmod(fd_, 0644);  // mkstemp's 0600 would hide a page or sheet from other readers
  }
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!name_.empty()) ::unlink(name_.c_str());
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  int fd() const { return fd_; }
  const std::string& name() const { return name_; }
  void close_or_throw(const std::string& path) {
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) throw Error(failed(path, "cannot write", errno));
  }
  void reopen(const std::string& path) {  // after a writer that opened it by name
    fd_ = ::open(name_.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd_ < 0) throw Error(failed(path, "cannot reopen its temporary file " + name_, errno));
    struct stat st {};
    if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode))
      throw Error(path + ": its temporary file " + name_ + " is no longer a regular file; nothing written");
  }
  void rename_over(const std::string& path) {
    sync_and_close(path);
    rename_into(path);
  }
  void sync_and_close(const std::string& path) {
    if (::fsync(fd_) != 0) throw Error(failed(path, "cannot write (flushing to disk)", errno));
    close_or_throw(path);
  }
  void rename_into(const std::string& path) {
    if (::rename(name_.c_str(), path.c_str()) != 0) throw Error(failed(path, "cannot replace the file", errno));
    name_.clear();
    // The rename itself reaches the disk with the folder's entry; a file system that cannot sync a folder still
    // has the whole new file or the whole old one.
    const fs::path dir = fs::path(path).parent_path();
    const int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
      ::fsync(dfd);
      ::close(dfd);
    }
  }

 private:
  int fd_ = -1;
  std::string name_;
};

// Creates the folder, and refuses a link, folder or device at `path` before anything is written.
void prepare_target(const std::string& path) {
  const fs::path p(path);
  std::error_code ec;
  if (p.has_parent_path()) {
    fs::create_directories(p.parent_path(), ec);
    if (ec) throw Error(p.parent_path().string() + ": cannot create the folder (" + ec.message() + ")");
  }
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return;  // not there yet
  if (S_ISLNK(st.st_mode)) throw Error(symlink_not_written(path));
  if (!S_ISREG(st.st_mode)) throw Error(path + ": " + kind_of(st.st_mode) + ", not a regular file: not overwritten");
}

}  // namespace

std::string size_text(std::size_t bytes) {
  char text[64];
  const std::size_t mib = std::size_t{1} << 20;
  if (bytes < mib) std::snprintf(text, sizeof text, "%zu bytes", bytes);
  else if (bytes % mib == 0) std::snprintf(text, sizeof text, "%zu MiB", bytes / mib);
  // Not a whole MiB: the bytes themselves, so a size just over a limit never reads as the limit.
  else std::snprintf(text, sizeof text, "%zu bytes (%.1f MiB)", bytes, static_cast<double>(bytes) / mib);
  return text;
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

int InputFile::release() {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

InputFile open_regular_file(const std::string& path, const std::string& what, Links links, std::size_t max_bytes) {
  // O_NONBLOCK: opening a pipe for reading would otherwise wait for a writer; it is refused below anyway.
  int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
  if (links == Links::refuse) flags |= O_NOFOLLOW;
  const int fd = ::open(path.c_str(), flags);
  if (fd < 0) {
    const int err = errno;
    if (links == Links::refuse && err == ELOOP) throw Error(symlink_not_read(path, what));
    throw Error(path + ": cannot open " + what + " (" + std::strerror(err) + ")");
  }
  InputFile file(fd, 0);
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw Error(path + ": cannot read " + what + " (" + std::strerror(errno) + ")");
  if (!S_ISREG(st.st_mode))
    throw Error(path + ": " + kind_of(st.st_mode) + ", not a regular file: " + what + " must be a file");
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  const auto size = static_cast<std::size_t>(st.st_size);
  if (size > max_bytes)
    throw Error(path + ": " + what + " of " + size_text(size) + ", over the limit of " + size_text(max_bytes));
  return InputFile(file.release(), size);
}

std::string read_to_limit(InputFile& file, const std::string& path, const std::string& what, std::size_t max_bytes) {
  std::string out;
  out.reserve(file.size() < max_bytes ? file.size() : max_bytes);
  char buf[1 << 16];
  ssize_t n = 0;
  while ((n = ::read(file.fd(), buf, sizeof buf)) > 0) {
    out.append(buf, static_cast<std::size_t>(n));
    if (out.size() > max_bytes)
      throw Error(path + ": " + what + " of more than " + size_text(max_bytes) + ", over the limit");
  }
  if (n < 0) throw Error(path + ": cannot read " + what + " (" + std::strerror(errno) + ")");
  return out;
}

std::string read_regular_file(const std::string& path, const std::string& what, std::size_t max_bytes, Links links) {
  InputFile file = open_regular_file(path, what, links, max_bytes);
  return read_to_limit(file, path, what, max_bytes);
}

void write_all(int fd, const char* data, std::size_t size, const std::string& path) {
  for (std::size_t done = 0; done < size;) {
    const ssize_t n = ::write(fd, data + done, size - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(path + ": cannot write (" + std::strerror(errno) + ")");
    }
    done += static_cast<std::size_t>(n);
  }
}

LogFile::LogFile(const std::string& path, Mode mode) : path_(path) {
  fd_ = ::open(path.c_str(),
               O_WRONLY | O_CREAT | (mode == Mode::append ? O_APPEND : O_TRUNC) | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY |
                   O_NONBLOCK,
               0644);
  if (fd_ < 0) {
    const int err = errno;
    if (err == ELOOP) throw Error(symlink_not_written(path));
    throw Error(path + ": cannot open for writing (" + std::strerror(err) + ")");
  }
  ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
}

LogFile::~LogFile() {
  if (fd_ >= 0) ::close(fd_);
}

void LogFile::append(const std::string& text) {
  if (fd_ < 0) throw Error(path_ + ": written after it was closed");
  write_all(fd_, text.data(), text.size(), path_);
}

void LogFile::close() {
  if (fd_ < 0) return;
  const int fd = fd_;
  fd_ = -1;
  // EINVAL: a device or pipe (a test's /dev/full) that cannot be synced; a regular file can.
  if (::fsync(fd) != 0 && errno != EINVAL) {
    const int err = errno;
    ::close(fd);
    throw Error(path_ + ": cannot write (flushing to disk: " + std::strerror(err) + ")");
  }
  if (::close(fd) != 0) throw Error(path_ + ": cannot write (" + std::strerror(errno) + ")");
}

void write_file_atomically(const std::string& path, const std::string& text) {
  prepare_target(path);
  TempFile temp(path);
  try {
    write_all(temp.fd(), text.data(), text.size(), path);
  } catch (const Error& e) {
    throw Error(std::string(e.what()) + "; the previous file, if any, is left as it was");
  }
  temp.rename_over(path);
}

void write_file_atomically_with(const std::string& path, const std::function<void(const std::string& temp)>& write) {
  prepare_target(path);
  TempFile temp(path);
  temp.close_or_throw(path);
  write(temp.name());
  temp.reopen(path);
  temp.rename_over(path);
}

void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files) {
  std::vector<std::unique_ptr<TempFile>> temps;  // removed by their destructors if any write fails
  for (const auto& [path, text] : files) {
    try {
      prepare_target(path);
      temps.push_back(std::make_unique<TempFile>(path));
      write_all(temps.back()->fd(), text.data(), text.size(), path);
      temps.back()->sync_and_close(path);
    } catch (const Error& e) {
      throw Error(std::string(e.what()) + "; no file of the " + std::to_string(files.size()) +
                  " was replaced (each previous one, if any, is left as it was)");
    }
  }
  for (std::size_t i = 0; i < files.size(); ++i) temps[i]->rename_into(files[i].first);
}

void remove_stale_folder_temps(const std::string& path) {
  const std::filesystem::path target(path);
  const std::filesystem::path parent = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  const std::string prefix = target.filename().string() + kFolderTempInfix;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(parent, ec))
    if (entry.path().filename().string().rfind(prefix, 0) == 0 && !entry.is_symlink())
      std::filesystem::remove_all(entry.path(), ec);
}

void replace_folder_atomically(const std::string& path, const std::map<std::string, std::string>& files) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(path, ec)))
    throw Error(path + ": a symbolic link, not written through (it would overwrite whatever it points to)");
  const fs::path target(path);
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
  std::string pattern = path + kFolderTempInfix + "XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr)
    throw Error(path + ": cannot create a folder beside it (" + std::strerror(errno) + "); the previous one, if any, "
                "is left as it was");
  const std::string temp = pattern;
  try {
    for (const auto& [name, text] : files) write_file_atomically((fs::path(temp) / name).string(), text);
  } catch (const Error& e) {
    fs::remove_all(temp, ec);
    throw Error(std::string(e.what()) + " (writing " + path + "; the previous folder, if any, is left as it was)");
  }
  if (!fs::exists(fs::symlink_status(path, ec))) {
    if (::rename(temp.c_str(), path.c_str()) != 0) {
      const int err = errno;
      fs::remove_all(temp, ec);
      throw Error(path + ": cannot put the new folder in place (" + std::strerror(err) + ")");
    }
    return;
  }
  if (::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, path.c_str(), RENAME_EXCHANGE) != 0) {
    const int err = errno;
    fs::remove_all(temp, ec);
    throw Error(path + ": cannot swap the new folder in (" + std::strerror(err) + "); the previous one is left as "
                "it was");
  }
  fs::remove_all(temp, ec);  // the previous folder, now under the temporary name
}

}  // namespace opmark::core
