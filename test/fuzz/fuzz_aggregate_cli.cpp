// opmark-aggregate's flags (aggregate/command_line.h): the input split into words at each newline (an argv holds no
// NUL) -> parse_command_line, nothing run; a scores or spreadsheet command's flags are then validated as run_cli
// does. Clean rejection: opmark::Error from validate (CLI11's own errors are caught inside and give exit status 2).
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "aggregate/command_line.h"
#include "test/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace opmark;
  std::vector<std::string> words;
  std::string word;
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == '\n') {
      words.push_back(word);
      word.clear();
    } else if (data[i] != '\0') {
      word += static_cast<char>(data[i]);
    }
  }
  if (!word.empty()) words.push_back(word);
  std::ostringstream out, err;
  aggregate::CommandLine line = aggregate::parse_command_line(words, "opmark-aggregate fuzz", out, err);
  if (line.command.empty() && line.exit_status != 0 && line.exit_status != 2)
    fuzz::fail("an exit status other than 0 or 2 for flags not run", std::to_string(line.exit_status));
  if (line.command == "page" && line.page.dir.empty()) fuzz::fail("page parsed without its folder", "");
  try {
    if (line.command == "scores") line.scores.validate();
    if (line.command == "spreadsheet") line.spreadsheet.validate();
  } catch (const Error&) {
  }
  return 0;
}
