#include "core/resume.h"

#include <algorithm>
#include <map>

#include "core/error.h"
#include "core/file_access.h"
#include "core/run_spec.h"

namespace opmark::core {

ResumeState read_resume_state(const std::string& path) {
  // A link is refused, as the log's writer refuses one: the file resumed is the file appended to.
  return parse_resume_state(
      read_regular_file(path, "the results log to resume from", kMaxResumedLogBytes, Links::refuse), path);
}

ResumeState parse_resume_state(const std::string& text, const std::string& path) {
  struct Line {
    std::string text, type, name, aggregate;
  };
  std::map<std::string, std::string> status_of;  // a done case's status: its median's, or its not-run line's
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
    const std::string name = j.value("name", ""), aggregate = j.value("aggregate", ""), status = j.value("status", "");
    if ((type == "aggregate" && aggregate == "median") ||
        (type == "run" && (status == "skipped" || status == "failed"))) {
      state.done.insert(name);
      status_of[name] = status;
    } else if (type == "aggregate" && aggregate != "recheck") {
      state.done.insert(name);
    }
    lines.push_back({raw, type, name, aggregate});
  }
  if (lines.empty()) throw Error(path + ": empty: nothing to resume");
  for (const Line& l : lines) {
    const bool keep = l.type == "context" || ((l.type == "run" || l.type == "aggregate") &&
                                              state.done.count(l.name) && l.aggregate != "recheck");
    if (keep) state.kept_text += l.text + "\n";
    else ++state.dropped_lines;
  }
  for (const auto& [name, status] : status_of) ++state.counts[status];
  return state;
}

std::vector<std::string> resume_keys() {
  // What the run ran on and with, beside its settings: the GPU and its state, the software, the build, the rules.
  std::vector<std::string> keys = {
      "gpu", "gpu_uuid", "driver_version", "cuda_runtime_version", "cublaslt_version", "cudnn_version",
      "cusparse_version", "nccl_version", "git", "version", "suite", "rules_version", "kernel_trace", "gpu_count_used",
      "power_limit_w", "max_sm_clock_mhz", "ecc", "mig", "nvml", "power_margin", "peaks"};
  for (const std::string& key : settings_resume_keys()) keys.push_back(key);
  return keys;
}

std::vector<std::string> resume_mismatches(const nlohmann::json& earlier, const nlohmann::json& now) {
  std::vector<std::string> keys = resume_keys();
  // The peaks % of peak is held to: peak_tflops_<precision> and peak_gb_per_s, whichever either context states.
  for (const nlohmann::json* context : {&earlier, &now})
    if (context->is_object())
      for (const auto& [key, value] : context->items())
        if (key.rfind("peak_", 0) == 0 && std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  std::vector<std::string> out;
  for (const std::string& key : keys) {
    const nlohmann::json a = earlier.contains(key) ? earlier[key] : nlohmann::json();
    const nlohmann::json b = now.contains(key) ? now[key] : nlohmann::json();
    if (a != b) out.push_back(std::string(key) + ": " + (a.is_null() ? "none" : a.dump()) + " in the log, " +
                              (b.is_null() ? "none" : b.dump()) + " in this run");
  }
  return out;
}

}  // namespace opmark::core
