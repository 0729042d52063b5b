// The checker over a bundle (aggregate/bundle.h): the input is written as the run/results.jsonl of a copy of the
// fixture bundle test/data/bundles/good_v5 (its system.yaml, benchmark.json, bench.log and derived files kept), then
// check_bundle_report runs with the fixture's rules (rules_v5.yaml) and shapes. An input that starts like gzip goes
// in as run/results.jsonl.gz instead. Clean rejection: opmark::Error (a bundle that cannot be checked at all);
// problems found are the checker doing its job.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "aggregate/bundle.h"
#include "test/fuzz/fuzz_util.h"

namespace fs = std::filesystem;

namespace {

const fs::path kData = fs::path(OPMARK_SOURCE_DIR) / "test/data/bundles";

// $TMPDIR/opmark_fuzz_check_PID: a copy of good_v5 made once, each input replacing its results file; left there
// (libFuzzer ends without atexit handlers), under the fuzz build folder that fuzz.sh makes TMPDIR.
const fs::path& bundle() {
  static const fs::path dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    fs::path d = fs::path(tmp && *tmp ? tmp : "/tmp") / ("opmark_fuzz_check_" + std::to_string(getpid()));
    fs::remove_all(d);
    fs::copy(kData / "good_v5", d, fs::copy_options::recursive);
    return d;
  }();
  return dir;
}

void write_results(const std::uint8_t* data, std::size_t size) {
  const bool gz = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
  fs::remove(bundle() / "run/results.jsonl");
  fs::remove(bundle() / "run/results.jsonl.gz");
  const fs::path path = bundle() / (gz ? "run/results.jsonl.gz" : "run/results.jsonl");
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out.flush()) opmark::fuzz::fail("cannot write a scratch file", path.string());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace opmark;
  write_results(data, size);
  try {
    const aggregate::CheckReport report = aggregate::check_bundle_report(
        bundle().string(), (kData / "rules_v5.yaml").string(), (kData / "shapes").string());
    // The report says which rules it applied, whatever the bundle holds.
    if (report.rules_version != 5) fuzz::fail("the checker applied other rules", std::to_string(report.rules_version));
    for (const auto& p : report.problems)
      if (p.what.empty() || p.kind.empty()) fuzz::fail("a problem without its text or class", p.what + " / " + p.kind);
  } catch (const Error&) {
  }
  return 0;
}
