#include "aggregate/cli.h"

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#ifdef OPMARK_HAVE_ZLIB
#include <zlib.h>
#endif
#ifdef OPMARK_HAVE_XLSXWRITER
#include <xlsxwriter.h>
#endif

#include "aggregate/command_line.h"
#include "aggregate/counters_command.h"
#include "aggregate/page.h"
#include "core/text.h"
#include "core/version.h"

namespace opmark::aggregate {

std::string version_text() {
  std::string text = core::version_line("opmark-aggregate") + "\n";
  for (const auto& [library, version] : core::host_library_versions()) text += library + " " + version + "\n";
#ifdef OPMARK_HAVE_ZLIB
  text += std::string("zlib ") + zlibVersion() + "\n";  // the library loaded, not only the header built against
#else
  text += "zlib: not in this build (gzip-compressed results are not read)\n";
#endif
#ifdef OPMARK_HAVE_XLSXWRITER
  text += std::string("libxlsxwriter ") + LXW_VERSION + "\n";
#else
  text += "libxlsxwriter: not in this build (spreadsheets are CSV only)\n";
#endif
  text.pop_back();  // CLI11 ends the version with its own newline
  return text;
}

int run_cli(int argc, char** argv) {
  CommandLine line =
      parse_command_line(std::vector<std::string>(argv + 1, argv + argc), version_text(), std::cout, std::cerr);
  try {
    if (line.command == "scores") {
      line.scores.validate();
      return line.scores.spreadsheet.empty() ? run_scores(line.scores) : run_spreadsheet(line.scores);
    }
    if (line.command == "spreadsheet") {
      line.spreadsheet.validate();
      return run_spreadsheet(line.spreadsheet);
    }
    if (line.command == "compare") return run_compare(line.compare);
    if (line.command == "pack") return run_pack(line.pack);
    if (line.command == "check") return run_check(line.check);
    if (line.command == "db") return run_db(line.db);
    if (line.command == "counters") {
      print_counters(std::cout, line.counters_json);
      return 0;
    }
    if (line.command == "page") return run_page(line.page);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "opmark-aggregate: %s\n", core::terminal_text(e.what(), true).c_str());  // may quote a file
    return 2;
  }
  return line.exit_status;  // help, version (0) or a flag in error (2)
}

namespace {

int run_one(const char* program, int argc, char** argv) {
  std::vector<char*> args = {const_cast<char*>(program)};
  args.insert(args.end(), argv, argv + argc);
  return run_cli(static_cast<int>(args.size()), args.data());
}

}  // namespace

int pack_main(int argc, char** argv) { return run_one("opmark-aggregate", argc, argv); }
int check_main(int argc, char** argv) { return run_one("opmark-aggregate", argc, argv); }

}  // namespace opmark::aggregate
