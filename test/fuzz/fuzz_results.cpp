// Results (aggregate/results.h): opmark-bench's results.jsonl or Google Benchmark's JSON -> parse_results with the
// median. An input that starts like gzip (1f 8b) goes through a file and load_results instead, as a bundle's
// committed run/*.gz does (zlib inflates it; a build without zlib rejects it). Clean rejection: opmark::Error.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "aggregate/results.h"
#include "test/fuzz/fuzz_util.h"

namespace {

// The gzip input as a file for as long as it is read: $TMPDIR/opmark_fuzz_results_PID.gz, removed after (libFuzzer
// ends without running atexit handlers, so nothing is left for them).
class ScratchFile {
 public:
  ScratchFile(const std::uint8_t* data, std::size_t size) {
    const char* dir = std::getenv("TMPDIR");
    path_ = std::string(dir && *dir ? dir : "/tmp") + "/opmark_fuzz_results_" + std::to_string(getpid()) + ".gz";
    std::FILE* f = std::fopen(path_.c_str(), "wb");
    const bool written = f && std::fwrite(data, 1, size, f) == size;
    if (f && std::fclose(f) != 0) opmark::fuzz::fail("cannot write a scratch file", path_);
    if (!written) opmark::fuzz::fail("cannot write a scratch file", path_);
  }
  ~ScratchFile() { std::remove(path_.c_str()); }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace opmark;
  try {
    if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
      const ScratchFile file(data, size);
      aggregate::load_results(file.path(), aggregate::Statistic::median);
    } else {
      aggregate::parse_results(fuzz::text_of(data, size), "fuzz.jsonl", aggregate::Statistic::median);
    }
  } catch (const Error&) {
  }
  return 0;
}
