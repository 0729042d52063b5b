#pragma once
// A bundle's system.yaml: what ran (division, vendor, system, GPU, host, software versions, opmark, command).
// Written from the run's context plus what the submitter says; read back as dotted keys ("gpu.model") with their
// lines, so the checker can name the line of every problem.
#include <map>
#include <string>
#include <vector>

namespace opmark::aggregate {

constexpr const char* kBundleFormat = "opmark-submission-1";

// What the submitter gives (the rest comes from the context).
struct Submitter {
  std::string division = "closed", vendor, system_name, submitter, modifications;
  std::string started;  // ISO 8601, when the run began
  double wall_s = 0;    // the whole submission run, seconds
};

// The context key each context-derived field of system.yaml is copied from, in the file's order.
const std::vector<std::pair<std::string, std::string>>& system_fields_from_context();

// Every field the checker requires (non-empty): the submitter's and the essential context-derived ones.
const std::vector<std::string>& required_system_fields();

// A context-derived field as system.yaml writes it ("" where the context lacks the key): the writer and the
// checker's comparison both take it from here.
std::string system_value(const std::map<std::string, std::string>& context, const std::string& context_key);

// The system.yaml text for a run's context and the submitter's words.
std::string system_yaml(const std::map<std::string, std::string>& context, const Submitter& who);

struct SystemField {
  std::string value;
  int line = 0;
};
// system.yaml's fields as dotted keys ("gpu.model") with their values and lines, in the file's order: the one
// reader of the checker and the page, so both see the same values. Throws opmark::Error "PATH:LINE:COL: ..." for
// text that does not parse, a top-level value that is not a mapping, a key given twice in one mapping (YAML
// readers disagree on which one counts), a key holding a dot ("gpu.model:" beside or before a real gpu: map would
// read as the same field), and a list or other value that is not a single one.
std::vector<std::pair<std::string, SystemField>> read_system_fields(const std::string& text, const std::string& path);
// The same as a map by dotted key.
std::map<std::string, SystemField> read_system_yaml(const std::string& text, const std::string& path);

}  // namespace opmark::aggregate
