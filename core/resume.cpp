#include "core/resume.h"

#include <fstream>
#include <sstream>

#include "core/error.h"

namespace opmark::core {

ResumeState read_resume_state(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open the results log to resume from");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_resume_state(text.str(), path);
}

ResumeState parse_resume_state(const std::string& text, const std::string& path) {
  struct Line {
    std::string text, type, name;
  };
  std::vector<Line> lines;
  ResumeState state;
  std::size_t start = 0;
  for (int number = 1; start < text.size(); ++number) {
    const std::size_t end = text.find('\n', start);
    const bool finished = end != std::string::npos;
    const std::string raw = text.substr(start, finished ? end - start : std::string::npos);
    start = finished ? end + 1 : text.size();
    if (raw.empty()) continue;
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(raw);
    } catch (const nlohmann::json::exception& e) {
      if (!finished) {  // the line the kill cut short
        ++state.dropped_lines;
        break;
      }
      throw Error(path + ":" + std::to_string(number) + ": not a JSON line (" + e.what() + ")");
    }
    if (!j.is_object()) throw Error(path + ":" + std::to_string(number) + ": expected a JSON object");
    const std::string type = j.value("type", "");
    if (lines.empty() && type != "context")
      throw Error(path + ":" + std::to_string(number) + ": the first line is no context line; nothing to resume");
    if (type == "context") {
      if (!lines.empty()) throw Error(path + ":" + std::to_string(number) + ": a second run's context line");
      state.context = j.value("context", nlohmann::json::object());
    }
    const std::string name = j.value("name", "");
    if (type == "aggregate" && j.value("aggregate", "") != "recheck") state.done.insert(name);
    if (type == "run" && (j.value("status", "") == "skipped" || j.value("status", "") == "failed"))
      state.done.insert(name);
    lines.push_back({raw, type, name});
  }
  if (lines.empty()) throw Error(path + ": empty: nothing to resume");
  for (const Line& l : lines) {
    const bool keep = l.type == "context" ||
                      ((l.type == "run" || l.type == "aggregate") && state.done.count(l.name) &&
                       l.text.find("\"aggregate\":\"recheck\"") == std::string::npos);
    if (keep) state.kept_text += l.text + "\n";
    else ++state.dropped_lines;
  }
  return state;
}

std::vector<std::string> resume_mismatches(const nlohmann::json& earlier, const nlohmann::json& now) {
  static const char* const kKeys[] = {
      "gpu", "gpu_uuid", "driver_version", "cuda_runtime_version", "cublaslt_version", "cudnn_version",
      "cusparse_version", "nccl_version", "git", "version", "suite", "rules_version", "regime", "l2", "timing_mode",
      "min_time_s", "min_repetitions", "max_repetitions", "noise_target", "case_time_cap_s", "seed",
      "energy_window_s", "min_clock_fraction", "recheck", "kernel_trace", "gpu_count_used"};
  std::vector<std::string> out;
  for (const char* key : kKeys) {
    const nlohmann::json a = earlier.contains(key) ? earlier[key] : nlohmann::json();
    const nlohmann::json b = now.contains(key) ? now[key] : nlohmann::json();
    if (a != b) out.push_back(std::string(key) + ": " + (a.is_null() ? "none" : a.dump()) + " in the log, " +
                              (b.is_null() ? "none" : b.dump()) + " in this run");
  }
  return out;
}

}  // namespace opmark::core
