#include "bench/harness/output/progress.h"

namespace opmark::bench {

static std::string duration(double s) {
  const long total = static_cast<long>(s + 0.5);
  char buf[32];
  if (total >= 3600) std::snprintf(buf, sizeof buf, "%ldh%02ldm", total / 3600, (total / 60) % 60);
  else if (total >= 60) std::snprintf(buf, sizeof buf, "%ldm%02lds", total / 60, total % 60);
  else std::snprintf(buf, sizeof buf, "%lds", total);
  return buf;
}

std::string progress_line(std::size_t done, std::size_t total, double elapsed_s) {
  std::string line = "[" + std::to_string(done) + "/" + std::to_string(total) + "] " + duration(elapsed_s) + " elapsed";
  if (done > 0 && total > done) line += ", about " + duration(elapsed_s / double(done) * double(total - done)) + " left";
  return line;
}

void Progress::reported(const std::string& case_name) {
  if (!seen_.insert(case_name).second) return;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (elapsed - printed_at_s_ < every_s_ && seen_.size() < total_) return;
  printed_at_s_ = elapsed;
  std::fprintf(out_, "opmark: %s\n", progress_line(seen_.size(), total_, elapsed).c_str());
  std::fflush(out_);
}

}  // namespace opmark::bench
