#include "aggregate/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#ifdef OPMARK_HAVE_ZLIB
#include <zlib.h>
#endif

#include "core/error.h"

namespace fs = std::filesystem;

namespace opmark::aggregate {
namespace {

// A size for messages: "16 MiB", or "1000 bytes" under one MiB.
std::string mib(std::size_t bytes) {
  char text[48];
  if (bytes < (std::size_t{1} << 20)) std::snprintf(text, sizeof text, "%zu bytes", bytes);
  else std::snprintf(text, sizeof text, "%.0f MiB", static_cast<double>(bytes) / (1 << 20));
  return text;
}

// What a file that is not a regular one is, for the message.
std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISFIFO(mode)) return "a pipe";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_;
};

std::string symlink_refused(const std::string& path, const std::string& what) {
  return path + ": a symbolic link, not read: " + what + " must be a file of its own here (copy the file in, not a "
                "link to it)";
}

}  // namespace

std::string read_input_file(const std::string& path, const std::string& what, bool inflate, Links links,
                            const ReadLimits& limits) {
  // O_NONBLOCK: opening a pipe for reading would otherwise wait for a writer; it is refused below anyway.
  int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
  if (links == Links::refuse) flags |= O_NOFOLLOW;
  Fd fd(::open(path.c_str(), flags));
  if (fd.get() < 0) {
    const int err = errno;
    if (links == Links::refuse && err == ELOOP) throw Error(symlink_refused(path, what));
    throw Error(path + ": cannot open " + what + " (" + std::strerror(err) + ")");
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw Error(path + ": cannot read " + what + " (" + std::strerror(errno) + ")");
  if (!S_ISREG(st.st_mode))
    throw Error(path + ": " + kind_of(st.st_mode) + ", not a regular file: " + what + " must be a file");
  ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
  const auto size = static_cast<std::size_t>(st.st_size);
  if (size > limits.max_bytes)
    throw Error(path + ": " + what + " of " + mib(size) + ", over the limit of " + mib(limits.max_bytes));
  std::string out;
  char buf[1 << 16];
#ifdef OPMARK_HAVE_ZLIB
  if (inflate) {
    // zlib reads a plain file as it is and inflates a compressed one, within a bound on both the size and the ratio.
    const double by_ratio = static_cast<double>(limits.ratio_free_bytes) + limits.max_ratio * static_cast<double>(size);
    const std::size_t bound =
        by_ratio < static_cast<double>(limits.max_bytes) ? static_cast<std::size_t>(by_ratio) : limits.max_bytes;
    gzFile gz = gzdopen(fd.get(), "rb");
    if (!gz) throw Error(path + ": cannot read " + what);
    fd.release();  // gzclose closes it
    int n = 0;
    while ((n = gzread(gz, buf, sizeof buf)) > 0) {
      out.append(buf, static_cast<std::size_t>(n));
      if (out.size() > bound) {
        gzclose(gz);
        if (bound == limits.max_bytes)
          throw Error(path + ": " + what + " inflates to more than " + mib(limits.max_bytes) + ", over the limit");
        throw Error(path + ": " + what + " of " + std::to_string(size) + " bytes inflates to more than " +
                    mib(bound) + " (over " + std::to_string(static_cast<int>(limits.max_ratio)) +
                    " times its size beyond the first " + mib(limits.ratio_free_bytes) +
                    "): not a results file (a gzip bomb?)");
      }
    }
    int err = Z_OK;
    const std::string message = gzerror(gz, &err);
    gzclose(gz);
    // A compressed stream that stops before its end (no trailer): a file cut short, at a line boundary or not.
    if (err == Z_BUF_ERROR)
      throw Error(path + ": the compressed " + what + " stops short of its end (" + message +
                  "): the file was cut off (an unfinished copy or download?); nothing of it is used");
    if (n < 0 || err != Z_OK) throw Error(path + ": not a readable gzip file (" + message + ")");
    return out;
  }
#endif
  ssize_t n = 0;
  while ((n = ::read(fd.get(), buf, sizeof buf)) > 0) {
    out.append(buf, static_cast<std::size_t>(n));
    if (out.size() > limits.max_bytes)
      throw Error(path + ": " + what + " of more than " + mib(limits.max_bytes) + ", over the limit");
  }
  if (n < 0) throw Error(path + ": cannot read " + what + " (" + std::strerror(errno) + ")");
  if (inflate && out.size() >= 2 && static_cast<unsigned char>(out[0]) == 0x1f && static_cast<unsigned char>(out[1]) == 0x8b)
    throw Error(path + ": gzip-compressed, and this build has no zlib (install zlib1g-dev and re-run cmake, or gunzip it)");
  return out;
}

void write_output_file(const std::string& path, const std::string& text) {
  const fs::path p(path);
  std::error_code ec;
  if (p.has_parent_path()) {
    fs::create_directories(p.parent_path(), ec);
    if (ec) throw Error(p.parent_path().string() + ": cannot create the folder (" + ec.message() + ")");
  }
  const fs::file_status st = fs::symlink_status(p, ec);
  const std::string refused = path + ": a symbolic link, not written through (it would overwrite whatever it points "
                                     "to): remove the link, or write elsewhere";
  if (fs::is_symlink(st)) throw Error(refused);
  if (fs::exists(st) && !fs::is_regular_file(st)) throw Error(path + ": not a regular file, not overwritten");
  Fd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0644));
  if (fd.get() < 0) {
    const int err = errno;
    if (err == ELOOP) throw Error(refused);
    throw Error(path + ": cannot write (" + std::strerror(err) + ")");
  }
  struct stat opened {};
  if (::fstat(fd.get(), &opened) != 0 || !S_ISREG(opened.st_mode))
    throw Error(path + ": not a regular file, not written");
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd.get(), text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(path + ": cannot write (" + std::strerror(errno) + ")");
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd.release()) != 0) throw Error(path + ": cannot write (" + std::strerror(errno) + ")");
}

BracketScan scan_brackets(std::string_view text, int max_depth) {
  BracketScan scan;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++scan.depth > max_depth && scan.too_deep_at == std::string_view::npos) scan.too_deep_at = i;
    } else if (c == ']' || c == '}') {
      --scan.depth;  // below zero only in text that is no JSON, which the parser refuses at that bracket
    }
  }
  return scan;
}

std::size_t json_too_deep(std::string_view text, int max_depth) { return scan_brackets(text, max_depth).too_deep_at; }

int line_at(std::string_view text, std::size_t offset) {
  const auto end = text.begin() + static_cast<std::ptrdiff_t>(std::min(offset, text.size()));
  return 1 + static_cast<int>(std::count(text.begin(), end, '\n'));
}

nlohmann::json parse_json_document(std::string_view text, const std::string& path, const ReadLimits& limits) {
  if (text.size() > limits.max_bytes) throw Error(path + ": over the limit of " + mib(limits.max_bytes));
  const std::size_t deep = json_too_deep(text, limits.max_depth);
  if (deep != std::string_view::npos)
    throw Error(path + ":" + std::to_string(line_at(text, deep)) + ": JSON nested deeper than " +
                std::to_string(limits.max_depth) + " levels (opmark writes a few): not read");
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(path + ":" + std::to_string(line_at(text, e.byte)) + ": not valid JSON (" + e.what() + ")");
  } catch (const nlohmann::json::exception& e) {  // a number out of range (1e999)
    throw Error(path + ": not valid JSON (" + e.what() + ")");
  }
}

}  // namespace opmark::aggregate
