#include "bench/harness/output/phase_times.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace opmark::bench {

namespace {
void add_to(std::vector<std::pair<std::string, double>>& phases, const std::string& phase, double seconds) {
  for (auto& [name, s] : phases)
    if (name == phase) {
      s += seconds;
      return;
    }
  phases.emplace_back(phase, seconds);
}
}  // namespace

void PhaseTimes::add(const std::string& phase, double seconds) {
  add_to(phases_, phase, seconds);
  if (current_) add_to(current_->phases, phase, seconds);
}

void PhaseTimes::begin_case(const std::string& family) {
  end_cases();
  auto it = std::find_if(families_.begin(), families_.end(), [&](const Family& f) { return f.name == family; });
  if (it == families_.end()) it = families_.insert(families_.end(), Family{family, 0, 0, {}});
  current_ = &*it;
  ++current_->cases;
  current_since_ = Clock::now();
}

void PhaseTimes::end_cases() {
  if (current_) current_->wall_s += std::chrono::duration<double>(Clock::now() - current_since_).count();
  current_ = nullptr;
}

std::vector<std::string> PhaseTimes::summary_lines(double total_s, std::size_t width) const {
  const std::string all = summary(total_s);
  if (all.empty()) return {};
  std::vector<std::string> lines = {"opmark: " + std::to_string(static_cast<long>(total_s + 0.5)) + " s, of which"};
  std::size_t start = 0;
  while (start < all.size()) {
    std::size_t end = all.find(", ", start);
    const std::string part = all.substr(start, end == std::string::npos ? std::string::npos : end - start) +
                             (end == std::string::npos ? "" : ",");
    start = end == std::string::npos ? all.size() : end + 2;
    if (lines.back().size() + 1 + part.size() > width) lines.push_back("opmark:  ");
    lines.back() += " " + part;
  }
  return lines;
}

std::vector<std::string> PhaseTimes::family_lines(std::size_t width) const {
  std::vector<const Family*> sorted;
  for (const Family& f : families_) sorted.push_back(&f);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Family* a, const Family* b) { return a->wall_s > b->wall_s; });
  std::vector<std::string> lines;
  for (const Family* f : sorted) {
    const double n = f->cases > 0 ? f->cases : 1;
    auto phases = f->phases;
    std::stable_sort(phases.begin(), phases.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    char head[160];
    std::snprintf(head, sizeof head, "%s: %d case%s, %.0f s, %.2f s a case", f->name.c_str(), f->cases,
                  f->cases == 1 ? "" : "s", f->wall_s, f->wall_s / n);
    std::string line = head, parts;
    for (const auto& [name, s] : phases) {
      if (s / n < 0.01) continue;
      char part[120];
      std::snprintf(part, sizeof part, "%s%s %.2f", parts.empty() ? "" : ", ", name.c_str(), s / n);
      if (line.size() + parts.size() + std::strlen(part) + 3 > width) break;  // the smallest phases go first
      parts += part;
    }
    if (!parts.empty()) line += " (" + parts + ")";
    lines.push_back(line);
  }
  return lines;
}

std::string PhaseTimes::summary(double total_s) const {
  auto sorted = phases_;
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (const auto& [name, s] : sorted) {
    if (!(total_s > 0) || s < 0.01 * total_s) continue;
    char part[160];
    std::snprintf(part, sizeof part, "%s%s %.0f s (%.0f%%)", out.empty() ? "" : ", ", name.c_str(), s,
                  100 * s / total_s);
    out += part;
  }
  return out;
}

}  // namespace opmark::bench
