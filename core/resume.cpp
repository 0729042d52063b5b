#include "core/resume.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
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

nlohmann::json read_resume_context(const std::string& path) {
  const std::string what = "the results log to resume from";
  InputFile file = open_regular_file(path, what, Links::refuse, kMaxResumedLogBytes);
  std::string first;
  char buf[1 << 16];
  for (ssize_t n = 0; first.find('\n') == std::string::npos && (n = ::read(file.fd(), buf, sizeof buf)) != 0;) {
    if (n < 0) throw Error(path + ": cannot read " + what + " (" + std::strerror(errno) + ")");
    first.append(buf, static_cast<std::size_t>(n));
    if (first.size() > kMaxContextLineBytes && first.find('\n') == std::string::npos)
      throw Error(path + ":1: a first line of more than " + size_text(kMaxContextLineBytes) + ": no context line");
  }
  const std::size_t end = first.find('\n');
  // The context line alone, as parse_resume_state reads a log: a log of one line cut short is no log to resume.
  return parse_resume_state(end == std::string::npos ? first : first.substr(0, end + 1), path).context;
}

namespace {

// A field that must be text where present: named with file and line where it is not (a hand-edited log).
std::string text_field(const nlohmann::json& j, const char* key, const std::string& where) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return "";
  if (!it->is_string()) throw Error(where + ": field '" + key + "': expected text, got " + it->dump());
  return it->get<std::string>();
}

}  // namespace

std::map<std::string, int> ResumeState::counts() const {
  std::map<std::string, int> out;
  for (const auto& [name, s] : status) ++out[s];
  return out;
}

ResumeState parse_resume_state(const std::string& text, const std::string& path) {
  struct Line {
    std::size_t start = 0, size = 0;  // in `text`: the lines are not copied (a log may be a GiB)
    std::string type, name, aggregate;
  };
  std::map<std::string, std::size_t> median_of;  // a done case's median line, by index in `lines`
  std::map<std::string, std::string> recheck_status;  // each re-time line's status, the last one standing
  std::vector<Line> lines;
  ResumeState state;
  bool ends_with_summary = false;
  std::size_t start = 0;
  for (int number = 1; start < text.size(); ++number) {
    const std::size_t end = text.find('\n', start);
    const bool finished = end != std::string::npos;
    const std::size_t size = (finished ? end : text.size()) - start;
    const std::size_t line_start = start;
    start = finished ? end + 1 : text.size();
    if (size == 0) continue;
    const std::string where = path + ":" + std::to_string(number);
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(text.begin() + static_cast<std::ptrdiff_t>(line_start),
                                text.begin() + static_cast<std::ptrdiff_t>(line_start + size));
    } catch (const nlohmann::json::exception& e) {
      if (!finished) {  // the line the kill cut short
        ++state.dropped_lines;
        break;
      }
      throw Error(where + ": not a JSON line (" + e.what() + ")");
    }
    if (!j.is_object()) throw Error(where + ": expected a JSON object");
    const std::string type = text_field(j, "type", where);
    if (lines.empty() && type != "context") throw Error(where + ": the first line is no context line; nothing to resume");
    if (type == "context") {
      if (!lines.empty()) throw Error(where + ": a second run's context line");
      if (j.contains("context") && !j["context"].is_object())
        throw Error(where + ": field 'context': expected an object, got " + j["context"].dump());
      state.context = j.value("context", nlohmann::json::object());
    }
    const std::string name = text_field(j, "name", where), aggregate = text_field(j, "aggregate", where),
                      status = text_field(j, "status", where);
    if ((type == "run" || type == "aggregate") && name.empty()) throw Error(where + ": a case line with no name");
    if ((type == "aggregate" && aggregate == "median") ||
        (type == "run" && (status == "skipped" || status == "failed"))) {
      state.done.insert(name);
      state.status[name] = status;
      if (aggregate == "median") median_of[name] = lines.size();
    } else if (type == "aggregate" && aggregate == "recheck") {
      recheck_status[name] = status;
    } else if (type == "aggregate") {
      state.done.insert(name);
    }
    ends_with_summary = type == "summary";
    lines.push_back({line_start, size, type, name, aggregate});
  }
  if (lines.empty()) throw Error(path + ": empty: nothing to resume");
  for (const Line& l : lines) {
    const bool keep = l.type == "context" || ((l.type == "run" || l.type == "aggregate") && state.done.count(l.name));
    if (keep) state.kept_text.append(text, l.start, l.size).push_back('\n');
    else ++state.dropped_lines;
  }
  // A re-time line stands for the case's status after it (unstable where it moved); one with no case is dropped.
  for (const auto& [name, status] : recheck_status)
    if (state.done.count(name) && !status.empty()) state.status[name] = status;
  const auto recheck = state.context.find("recheck");
  if (recheck != state.context.end() && *recheck == "on")
    for (const auto& [name, index] : median_of)
      if (!recheck_status.count(name) && state.status[name] == "ok")
        state.to_retime[name] = nlohmann::json::parse(text.substr(lines[index].start, lines[index].size));
  state.whole = ends_with_summary && state.to_retime.empty();
  return state;
}

std::vector<std::string> resume_keys() {
  // What the run ran on and with, beside its settings: the GPU and its state, the host, the software, the build,
  // the rules.
  std::vector<std::string> keys = {
      "gpu", "gpu_uuid", "driver_version", "cuda_runtime_version", "cublaslt_version", "cudnn_version",
      "cusparse_version", "nccl_version", "git", "version", "suite", "rules_version", "kernel_trace", "gpu_count_used",
      "power_limit_w", "max_sm_clock_mhz", "ecc", "mig", "nvml", "power_margin", "peaks", "host", "host_cpu",
      "compute_capability", "mpi"};
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
