#pragma once
// opmark-bench --version: opmark's version and commit, then each library it links with the version loaded (asked of
// the library at run time) and the version its headers had at build time. Needs no GPU.
#include <string>

namespace opmark::bench {

std::string version_text();

}  // namespace opmark::bench
