#pragma once
// The results page's History section, from the results database (page --db): per family, its time over the checked
// bundles on each GPU (the geometric mean over its cases of each case's time over its time in that GPU's first
// bundle), the changes `db regressions` calls between consecutive bundles with the software that changed, and a
// chart of each case named there (the first kMostCharted). Only bundles that passed check are shown, as everywhere
// on the page.
#include <string>

namespace opmark::aggregate {

// HTML to place inside the section (charts as inline SVG); throws opmark::Error where the database cannot be read.
std::string page_history_html(const std::string& db);

}  // namespace opmark::aggregate
