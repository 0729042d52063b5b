// The README's flag table cannot drift from the tool: it names every flag core's settings table has (and
// --opmark_help, --version) and no other, every family of core's list, and every set of the committed shape tables.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "core/run_spec.h"
#include "core/schema.h"
#include "core/table.h"

using namespace opmark::core;

namespace {

std::string readme() {
  std::ifstream in(std::string(OPMARK_SOURCE_DIR) + "/README.md");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The README's flag table rows: "| `--opmark_x=...` | what |", by flag name.
std::map<std::string, std::string> flag_rows(const std::string& text) {
  std::map<std::string, std::string> rows;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("| `--", 0) != 0) continue;
    const std::size_t end = line.find_first_of("=`", 5);
    rows[line.substr(5, end - 5)] = line;
  }
  return rows;
}

}  // namespace

TEST(Readme, TheFlagTableNamesEveryFlagAndNoOther) {
  const auto rows = flag_rows(readme());
  std::set<std::string> flags = {"opmark_help", "version"};
  for (const RunSetting& s : run_settings()) flags.insert(s.flag);
  for (const std::string& flag : flags) EXPECT_TRUE(rows.count(flag)) << "README.md's flag table lacks --" << flag;
  for (const auto& [flag, row] : rows) EXPECT_TRUE(flags.count(flag)) << "README.md names --" << flag << ", no flag";
}

TEST(Readme, TheFamilyAndSetRowsNameEveryFamilyAndSet) {
  const auto rows = flag_rows(readme());
  ASSERT_TRUE(rows.count("opmark_family"));
  ASSERT_TRUE(rows.count("opmark_set"));
  for (const std::string& family : known_families())
    EXPECT_NE(rows.at("opmark_family").find("`" + family + "`"), std::string::npos) << family;
  for (const Table& t : load_tables({std::string(OPMARK_SOURCE_DIR) + "/shapes"}))
    for (const auto& set : t.sets)
      EXPECT_NE(rows.at("opmark_set").find("`" + set.name + "`"), std::string::npos) << t.family << " " << set.name;
}
