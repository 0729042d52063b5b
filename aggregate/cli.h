#pragma once
// opmark-aggregate's command line: its flags are read by command_line.h (CLI11, every flag spelled there once, with
// its help); the work is done by the subcommand's own file (score_command.cpp, compare.cpp, bundle.cpp, page.cpp).
//
// Exit status: 0 done (compare: no case slower); 1 check found problems in the bundle; 2 an error (a flag, a file
// that does not read); 3 compare found a case slower beyond the threshold and the noise (for CI).
#include <string>

namespace opmark::aggregate {

// The whole command: argv[0] is the program. Returns the exit status; writes help, version and errors itself.
int run_cli(int argc, char** argv);

// `opmark-aggregate --version`: opmark's version and commit, and the versions of the libraries this build links.
std::string version_text();

// One subcommand as run_cli runs it, argv[0] being its name ("pack", "check"): for callers that hold one.
int pack_main(int argc, char** argv);
int check_main(int argc, char** argv);

}  // namespace opmark::aggregate
