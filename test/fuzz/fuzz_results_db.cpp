// The results database's reader (aggregate/results_db.h) over a damaged SQLite file. A valid database of three small
// runs on two GPUs is made once; each input patches its bytes (three bytes a patch: a 16-bit offset and a value
// XORed in, a lone last byte truncating the file to that fraction) and the copy is opened, listed, a history taken,
// scanned for regressions and exported. Clean rejection: opmark::Error. Anything else escaping is a finding.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <tuple>

#include "aggregate/results_db.h"
#include "test/fuzz/fuzz_util.h"

namespace fs = std::filesystem;
using namespace opmark;

namespace {

std::string run_text(const std::string& started, const std::string& gpu, double gemm_us) {
  const auto median = [](const std::string& name, double t) {
    return "{\"type\":\"aggregate\",\"aggregate\":\"median\",\"name\":\"" + name +
           "\",\"status\":\"ok\",\"time_us\":" + std::to_string(t) +
           ",\"counters\":{\"run_noise\":0.004,\"noise\":0.002}}\n"
           "{\"type\":\"run\",\"name\":\"" + name + "\",\"status\":\"ok\",\"repetition\":0,\"time_us\":" +
           std::to_string(t) + "}\n";
  };
  return "{\"type\":\"context\",\"context\":{\"gpu\":\"" + gpu +
         "\",\"cudnn_version\":\"9.14.0\",\"driver_version\":\"580.159.04\",\"started_at\":\"" + started +
         "\",\"regime\":\"burst\"}}\n" + median("gemm/fwd/fp16/m=64/n=8/k=32/ta=N/tb=N/batch=1", gemm_us) +
         median("pointwise/fwd/fp16/op=relu/rows=8/cols=64/impl=opmark", 2.0);
}

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void remove_db(const fs::path& db) {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(db.string() + suffix);
}

// The clean database's bytes, made once per process.
const std::string& clean_db(const fs::path& dir) {
  static const std::string bytes = [&] {
    const fs::path db = dir / "clean.db";
    remove_db(db);
    {
      aggregate::ResultsDb store(db.string());
      int i = 0;
      for (const auto& [started, gpu, us] : {std::tuple{"2026-11-20T00:00:00Z", "NVIDIA H100", 10.0},
                                             std::tuple{"2026-11-21T00:00:00Z", "NVIDIA H100", 11.0},
                                             std::tuple{"2026-11-21T00:00:00Z", "NVIDIA H200", 9.0}}) {
        const fs::path log = dir / ("run" + std::to_string(i++) + ".jsonl");
        std::ofstream(log) << run_text(started, gpu, us);
        store.ingest(log.string());
      }
    }  // closed: its log checkpointed into the file
    std::string b = read_bytes(db);
    remove_db(db);
    return b;
  }();
  return bytes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const fs::path dir = [] {
    const fs::path d = fs::temp_directory_path() / ("opmark_fuzz_db_" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
  }();
  std::string bytes = clean_db(dir);
  std::size_t i = 0;
  for (; i + 3 <= size; i += 3) {
    const std::size_t offset = (std::size_t{data[i]} | std::size_t{data[i + 1]} << 8) % bytes.size();
    bytes[offset] = static_cast<char>(bytes[offset] ^ static_cast<char>(data[i + 2]));
  }
  if (i < size) bytes.resize(bytes.size() * data[i] / 255);
  const fs::path db = dir / "damaged.db";
  remove_db(db);
  std::ofstream(db, std::ios::binary) << bytes;
  try {
    aggregate::ResultsDb store(db.string());
    store.runs();
    store.history(".");
    store.regressions(".", "", /*faster_too=*/true);
    std::ostringstream csv;
    store.export_csv(csv);
  } catch (const Error&) {
  }
  return 0;
}
