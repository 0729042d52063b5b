#include "aggregate/plot_files.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "aggregate/files.h"
#include "aggregate/plots.h"
#include "core/case.h"
#include "core/error.h"

namespace opmark::aggregate {
namespace {

namespace fs = std::filesystem;

// OpBench's points for one area: each measured case the area's models call, its time and its calls per model.
std::vector<OperatorPoint> operator_points(const PlotSet& set, const Area& area, const core::Symbols& inputs,
                                           const std::string& precision) {
  std::map<std::string, std::pair<double, double>> by_case;  // name -> (time us, calls over the area's models)
  int n_models = 0;
  for (const auto& m : set.models) {
    if (std::find(area.models.begin(), area.models.end(), m.name) == area.models.end()) continue;
    ++n_models;
    for (const auto& call : core::model_calls(m, inputs, precision)) {
      if (!call.c) continue;
      const std::string name = core::make_case_name(*call.c);
      auto it = set.results.cases.find(name);
      if (it == set.results.cases.end() || !it->second.timed()) continue;
      by_case[name].first = it->second.time_us;
      by_case[name].second += static_cast<double>(call.calls);
    }
  }
  std::vector<OperatorPoint> points;
  for (const auto& [name, tc] : by_case) points.push_back({name, tc.first, tc.second / std::max(n_models, 1)});
  return points;
}

}  // namespace

void write_svg(const std::string& path, const std::string& svg) {
  write_output_file(path, svg);  // never through a symbolic link
  std::printf("wrote %s\n", path.c_str());
  // PNG beside the SVG where a converter is installed (librsvg2-bin); the SVG is the product, the PNG a convenience.
  static const bool have_converter = std::system("command -v rsvg-convert >/dev/null 2>&1") == 0;
  if (!have_converter) return;
  fs::path png = path;
  png.replace_extension(".png");
  const auto quoted = [](const std::string& text) {  // one shell word, whatever the path holds
    std::string q = "'";
    for (char ch : text) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    return q + "'";
  };
  const std::string command =
      "rsvg-convert -b white -o " + quoted(png.string()) + " " + quoted(path) + " 2>/dev/null";
  if (std::system(command.c_str()) == 0) std::printf("wrote %s\n", png.string().c_str());
  else std::printf("no %s: rsvg-convert failed on the SVG\n", png.string().c_str());
}

void write_plots(const std::string& dir, const std::vector<PlotSet>& sets, const core::Symbols& inputs,
                 const std::string& precision) {
  fs::create_directories(dir);
  std::vector<NamedResults> named;
  std::set<std::string> precisions;
  for (const auto& set : sets) {
    named.push_back({set.name, &set.results});
    for (const auto& [name, r] : set.results.cases) {
      try {
        precisions.insert(core::parse_case_name(name).precision);
      } catch (const Error&) {
      }
    }
  }
  for (const auto& p : precisions) {
    const std::string file = (fs::path(dir) / ("roofline_" + p + ".svg")).string();
    const std::string svg = roofline_svg(named, p);
    if (svg.empty()) std::printf("no %s: no measured %s case has FLOPs (memory bound or communication)\n", file.c_str(), p.c_str());
    else write_svg(file, svg);
  }
  // The areas in the first file's order, then any only a later one scores.
  std::vector<Area> areas;
  for (const auto& set : sets)
    for (const auto& area : set.areas)
      if (std::none_of(areas.begin(), areas.end(), [&](const Area& a) { return a.name == area.name; }))
        areas.push_back(area);
  for (const auto& area : areas) {
    std::vector<OperatorSeries> series;
    for (const auto& set : sets) {
      const auto own = std::find_if(set.areas.begin(), set.areas.end(), [&](const Area& a) { return a.name == area.name; });
      series.push_back({set.name, own == set.areas.end() ? std::vector<OperatorPoint>()
                                                         : operator_points(set, *own, inputs, precision)});
    }
    const std::string file = (fs::path(dir) / ("operators_" + area.name + ".svg")).string();
    const bool any = std::any_of(series.begin(), series.end(), [](const OperatorSeries& s) { return !s.points.empty(); });
    if (!any) std::printf("no %s: no measured case of the area's models\n", file.c_str());
    else write_svg(file, operator_chart_svg("Operators of area " + area.name + " (" + precision + ")", series));
  }
  std::vector<std::string> names;
  std::vector<std::vector<AreaScore>> scores;
  for (const auto& set : sets) names.push_back(set.name), scores.push_back(set.area_scores);
  write_svg((fs::path(dir) / "areas.svg").string(), area_bars_svg(names, scores));
}

}  // namespace opmark::aggregate
