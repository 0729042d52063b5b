#pragma once
// The results page's text: HTML, CSS and the script that renders its tables from the data embedded in the page.
// Everything is inline (no network, no CDN), so the page works opened from the file system.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace opmark::aggregate {

// One family's section: its charts as SVG, made by page.cpp.
struct PageFamily {
  std::string name;
  std::string ratio_svg;     // empty: fewer than two bundles measured a case of it
  std::string roofline_svg;  // empty: no case of it has FLOPs (memory bound)
};

// The whole page. `data` is what page.cpp gathers (bundles, families, cases); the script renders the tables from
// it, the SVG charts are placed as given.
std::string page_html(const nlohmann::json& data, const std::string& areas_svg,
                      const std::vector<PageFamily>& families);

// `data` as JSON text that cannot end or confuse the <script> block holding it ("</" and "<!--" escaped).
std::string script_json(const nlohmann::json& data);

}  // namespace opmark::aggregate
