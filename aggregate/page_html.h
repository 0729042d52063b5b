#pragma once
// The results page's text: the HTML skeleton around the style and script of aggregate/page/ (embedded at build
// time) and the data the script renders tables and charts from. Everything is inline (no network, no CDN), so the
// page works opened from the file system.
#include <string>

#include <nlohmann/json.hpp>

namespace opmark::aggregate {

// The whole page. `data` is what page.cpp gathers (bundles, families, cases, skipped bundles); `plain_runs` the
// plain runs' part (page_runs.h), written after every bundle's and outside the script's data.
// history: the History section's content (page_history.h), "" for none.
std::string page_html(const nlohmann::json& data, const std::string& plain_runs = "", const std::string& history = "");

// `data` as JSON text that cannot end or confuse the <script> block holding it ("</" and "<!--" escaped, control
// characters by JSON, U+2028 and U+2029 as \u escapes).
std::string script_json(const nlohmann::json& data);

}  // namespace opmark::aggregate
