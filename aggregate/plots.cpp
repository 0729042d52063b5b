#include "aggregate/plots.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>

#include "core/case.h"
#include "core/error.h"
#include "core/precision.h"
#include "core/rates.h"

namespace opmark::aggregate {
namespace {

constexpr double kW = 800, kH = 520, kLeft = 80, kRight = 30, kTop = 50, kBottom = 60;
const char* kColours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// A log10 axis spanning whole decades around [lo, hi].
struct LogAxis {
  double lo, hi;
  LogAxis(double min_v, double max_v)
      : lo(std::floor(std::log10(std::max(min_v, 1e-12)))), hi(std::ceil(std::log10(std::max(max_v, 1e-12)))) {
    if (hi <= lo) hi = lo + 1;
  }
  double frac(double v) const { return (std::log10(std::max(v, 1e-12)) - lo) / (hi - lo); }
};

struct Canvas {
  std::ostringstream svg;
  Canvas(const std::string& title) {
    svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kW << "\" height=\"" << kH
        << "\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        << "<text x=\"" << kW / 2 << "\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">" << escape(title)
        << "</text>\n";
  }
  double x(double frac) const { return kLeft + frac * (kW - kLeft - kRight); }
  double y(double frac) const { return kH - kBottom - frac * (kH - kTop - kBottom); }
  void log_axes(const LogAxis& ax, const LogAxis& ay, const std::string& xlabel, const std::string& ylabel) {
    svg << "<rect x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << kW - kLeft - kRight << "\" height=\""
        << kH - kTop - kBottom << "\" fill=\"none\" stroke=\"#333\"/>\n";
    for (double d = ax.lo; d <= ax.hi; ++d) {
      const double px = x((d - ax.lo) / (ax.hi - ax.lo));
      svg << "<line x1=\"" << px << "\" y1=\"" << kTop << "\" x2=\"" << px << "\" y2=\"" << kH - kBottom
          << "\" stroke=\"#ddd\"/><text x=\"" << px << "\" y=\"" << kH - kBottom + 16
          << "\" text-anchor=\"middle\">1e" << d << "</text>\n";
    }
    for (double d = ay.lo; d <= ay.hi; ++d) {
      const double py = y((d - ay.lo) / (ay.hi - ay.lo));
      svg << "<line x1=\"" << kLeft << "\" y1=\"" << py << "\" x2=\"" << kW - kRight << "\" y2=\"" << py
          << "\" stroke=\"#ddd\"/><text x=\"" << kLeft - 6 << "\" y=\"" << py + 4 << "\" text-anchor=\"end\">1e" << d
          << "</text>\n";
    }
    svg << "<text x=\"" << kW / 2 << "\" y=\"" << kH - 18 << "\" text-anchor=\"middle\">" << escape(xlabel)
        << "</text>\n<text transform=\"translate(18," << kH / 2 << ") rotate(-90)\" text-anchor=\"middle\">"
        << escape(ylabel) << "</text>\n";
  }
  std::string done() {
    svg << "</svg>\n";
    return svg.str();
  }
};

// The roofline's roof, min(peak, bandwidth x intensity), sampled across the x axis as an SVG path (no bandwidth:
// the flat roof alone).
std::string roof_path(const Canvas& c, const LogAxis& ax, const LogAxis& ay, double peak_tflops, double gb_per_s) {
  std::string path;
  for (int i = 0; i <= 100; ++i) {
    const double intensity = std::pow(10.0, ax.lo + (ax.hi - ax.lo) * i / 100.0);
    // Memory-bound, the FLOPs of one second are the bytes it moves times the intensity.
    const double roof =
        gb_per_s > 0 ? std::min(peak_tflops, core::tflops(gb_per_s * 1e9 * intensity, 1.0)) : peak_tflops;
    path += (i ? " L" : "M") + fmt("%.1f", c.x(ax.frac(intensity))) + "," +
            fmt("%.1f", c.y(std::clamp(ay.frac(roof), 0.0, 1.0)));
  }
  return path;
}

// A marker of set `s`'s shape (circle, square, triangle, diamond, as the page's charts) centred at (x, y), about r
// across, opening tag only: the caller adds its <title> and closing tag, given by marker_end.
const char* const kShapes[] = {"circle", "rect", "polygon", "polygon"};
std::string marker_begin(std::size_t s, double x, double y, double r, const char* colour, double opacity) {
  const std::string paint = "\" fill=\"" + std::string(colour) + "\" fill-opacity=\"" + fmt("%.2f", opacity) +
                            "\" stroke=\"" + colour + "\" stroke-width=\"0.8\">";
  const auto point = [&](double dx, double dy) { return fmt("%.1f", x + dx * r) + "," + fmt("%.1f", y + dy * r) + " "; };
  switch (s % 4) {
    case 0: return "<circle cx=\"" + fmt("%.1f", x) + "\" cy=\"" + fmt("%.1f", y) + "\" r=\"" + fmt("%.1f", r) + paint;
    case 1: return "<rect x=\"" + fmt("%.1f", x - 0.85 * r) + "\" y=\"" + fmt("%.1f", y - 0.85 * r) + "\" width=\"" +
                   fmt("%.1f", 1.7 * r) + "\" height=\"" + fmt("%.1f", 1.7 * r) + paint;
    case 2: return "<polygon points=\"" + point(0, -1.2) + point(1.05, 0.7) + point(-1.05, 0.7) + paint;
    default: return "<polygon points=\"" + point(0, -1.25) + point(1.25, 0) + point(0, 1.25) + point(-1.25, 0) + paint;
  }
}
std::string marker_end(std::size_t s) { return std::string("</") + kShapes[s % 4] + ">\n"; }

// A legend row: set s's marker and its name in its colour, from the plot area's top left.
std::string legend_row(std::size_t s, std::size_t row, const std::string& text) {
  const double y = kTop + 16 + 15 * static_cast<double>(row);
  return marker_begin(s, kLeft + 14, y - 4, 4.5, kColours[s % 8], 0.6) + marker_end(s) + "<text x=\"" +
         fmt("%.1f", kLeft + 24) + "\" y=\"" + fmt("%.1f", y) + "\" fill=\"" + kColours[s % 8] + "\">" + escape(text) +
         "</text>\n";
}

}  // namespace

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

std::string operator_chart_svg(const std::string& title, const std::vector<OperatorSeries>& series) {
  Canvas c(title);
  double xmin = 1e300, xmax = 0, ymin = 1e300, ymax = 0, wmax = 0;
  for (const auto& s : series)
    for (const auto& p : s.points) {
      xmin = std::min(xmin, p.mean_us), xmax = std::max(xmax, p.mean_us);
      ymin = std::min(ymin, p.calls_per_model), ymax = std::max(ymax, p.calls_per_model);
      wmax = std::max(wmax, p.mean_us * p.calls_per_model);
    }
  if (wmax <= 0) return c.done();
  const LogAxis ax(xmin, xmax), ay(ymin, ymax);
  c.log_axes(ax, ay, "time of one call (us)", "calls per model");
  for (std::size_t s = 0; s < series.size(); ++s) {
    for (const auto& p : series[s].points) {
      // Marker area proportional to the weighted time: radius as its square root, 30 px for the largest.
      const double r = 2 + 28 * std::sqrt(p.mean_us * p.calls_per_model / wmax);
      c.svg << marker_begin(s, c.x(ax.frac(p.mean_us)), c.y(ay.frac(p.calls_per_model)), r, kColours[s % 8], 0.3)
            << "<title>" << (series.size() > 1 ? escape(series[s].name) + ": " : "") << escape(p.label) << ": "
            << fmt("%.3g", p.mean_us) << " us x " << fmt("%.3g", p.calls_per_model) << " calls</title>"
            << marker_end(s);
    }
    c.svg << legend_row(s, s, series[s].name + " (" + std::to_string(series[s].points.size()) + " cases)");
  }
  return c.done();
}

std::string roofline_svg(const std::vector<NamedResults>& named, const std::string& precision) {
  std::vector<RooflineSet> sets;
  bool any = false;
  for (const auto& n : named) {
    const ResultSet& results = *n.results;
    RooflineSet set;
    set.name = n.name;
    for (const auto& [name, r] : results.cases) {
      if (!r.timed() || r.time_us <= 0) continue;
      core::Case c;
      try {
        c = core::parse_case_name(name);
      } catch (const Error&) {
        continue;
      }
      if (c.precision != precision) continue;
      const core::Work w = core::work_of(c);
      if (w.flops <= 0 || w.bytes() <= 0) continue;
      set.points.push_back({name + (r.unstable() ? " (unstable)" : ""), w.flops / w.bytes(),
                            core::tflops(w.flops, r.time_us * 1e-6)});
    }
    // The roofs from the run's context; a missing or unreadable one draws no roof.
    const auto context_number = [&](const std::string& key) {
      auto it = results.context.find(key);
      return it == results.context.end() ? 0.0 : std::strtod(it->second.c_str(), nullptr);
    };
    const double peak = context_number("peak_tflops_" + std::string(core::precision_info(precision).peak_key));
    if (peak > 0) set.peak_tflops.push_back({precision, peak});
    set.peak_gb_per_s = context_number("peak_gb_per_s");
    any = any || !set.points.empty();
    sets.push_back(std::move(set));
  }
  return any ? roofline_sets_svg("Roofline, " + precision + ": achieved TFLOPS (median) against FLOPs per byte", sets)
             : std::string();
}

std::string area_bars_svg(const std::vector<std::string>& set_names,
                          const std::vector<std::vector<AreaScore>>& scores) {
  Canvas c("Area scores, ms: lower is better (each area scaled to its highest score)");
  std::vector<std::string> areas;
  std::map<std::string, double> area_max;
  for (const auto& set : scores)
    for (const auto& a : set) {
      if (std::find(areas.begin(), areas.end(), a.name) == areas.end()) areas.push_back(a.name);
      area_max[a.name] = std::max(area_max[a.name], a.score_ms);
    }
  if (areas.empty()) return c.done();
  const double group = (kW - kLeft - kRight) / static_cast<double>(areas.size());
  const double bar = group * 0.8 / static_cast<double>(std::max<std::size_t>(scores.size(), 1));
  // The tallest bar stops under the legend, and every bar carries its value (15 px a line).
  const double legend = 15.0 * static_cast<double>(set_names.size()) + 22;
  c.svg << "<line x1=\"" << kLeft << "\" y1=\"" << kH - kBottom << "\" x2=\"" << kW - kRight << "\" y2=\""
        << kH - kBottom << "\" stroke=\"#333\"/>\n";
  for (std::size_t i = 0; i < areas.size(); ++i) {
    c.svg << "<text x=\"" << kLeft + group * (static_cast<double>(i) + 0.5) << "\" y=\"" << kH - kBottom + 16
          << "\" text-anchor=\"middle\">" << escape(areas[i]) << "</text>\n";
    const double max = area_max[areas[i]];
    for (std::size_t s = 0; s < scores.size(); ++s)
      for (const auto& a : scores[s])
        if (a.name == areas[i] && max > 0) {
          const double h = (kH - kTop - kBottom - legend) * a.score_ms / max;
          const double x = kLeft + group * static_cast<double>(i) + group * 0.1 + bar * static_cast<double>(s);
          c.svg << "<rect x=\"" << x << "\" y=\"" << kH - kBottom - h << "\" width=\"" << bar << "\" height=\"" << h
                << "\" fill=\"" << kColours[s % 8] << "\"><title>" << escape(set_names[s]) << ": "
                << fmt("%.4g", a.score_ms) << " ms</title></rect>\n";
          c.svg << "<text x=\"" << x + bar / 2 << "\" y=\"" << kH - kBottom - h - 3
                << "\" text-anchor=\"middle\" font-size=\"10\">" << fmt("%.3g", a.score_ms) << "</text>\n";
        }
  }
  for (std::size_t s = 0; s < set_names.size(); ++s) c.svg << legend_row(s, s, set_names[s]);
  return c.done();
}

std::string roofline_sets_svg(const std::string& title, const std::vector<RooflineSet>& sets) {
  Canvas c(title);
  double imin = 1e300, imax = 0, tmin = 1e300, tmax = 0;
  for (const auto& set : sets)
    for (const auto& p : set.points) {
      if (p.intensity <= 0 || p.tflops <= 0) continue;
      imin = std::min(imin, p.intensity), imax = std::max(imax, p.intensity);
      tmin = std::min(tmin, p.tflops), tmax = std::max(tmax, p.tflops);
    }
  if (imax <= 0) return c.done();
  // The roofs stretch the axis up to the highest peak, so the gap to the roof stays visible.
  for (const auto& set : sets)
    for (const auto& [precision, peak] : set.peak_tflops) tmax = std::max(tmax, peak);
  const LogAxis ax(imin, imax), ay(tmin, tmax);
  c.log_axes(ax, ay, "arithmetic intensity (FLOPs per byte)", "achieved TFLOPS");
  for (std::size_t s = 0; s < sets.size(); ++s) {
    const RooflineSet& set = sets[s];
    const char* colour = kColours[s % 8];
    for (const auto& [precision, peak] : set.peak_tflops) {
      if (peak <= 0) continue;
      c.svg << "<path d=\"" << roof_path(c, ax, ay, peak, set.peak_gb_per_s) << "\" fill=\"none\" stroke=\"" << colour
            << "\" stroke-dasharray=\"6,4\"><title>" << escape(set.name) << ": " << escape(precision) << " peak "
            << fmt("%.4g", peak) << " TFLOPS" << (set.peak_gb_per_s > 0 ? ", " + fmt("%.4g", set.peak_gb_per_s) +
                                                                              " GB/s" : std::string())
            << "</title></path>\n<text x=\"" << kW - kRight - 4 << "\" y=\"" << c.y(ay.frac(peak)) - 4
            << "\" text-anchor=\"end\" fill=\"" << colour << "\">" << escape(precision) << " " << fmt("%.4g", peak)
            << "</text>\n";
    }
    for (const auto& p : set.points) {
      if (p.intensity <= 0 || p.tflops <= 0) continue;
      c.svg << marker_begin(s, c.x(ax.frac(p.intensity)), c.y(ay.frac(p.tflops)), 3.5, colour, 0.4) << "<title>"
            << escape(set.name) << ": " << escape(p.label) << ": " << fmt("%.4g", p.tflops) << " TFLOPS at "
            << fmt("%.4g", p.intensity) << " FLOPs/byte</title>" << marker_end(s);
    }
    c.svg << legend_row(s, s, set.name + " (" + std::to_string(set.points.size()) + " cases)");
  }
  return c.done();
}

std::string history_svg(const std::string& title, const std::vector<std::string>& run_labels,
                        const std::vector<HistorySeries>& series, const std::string& y_label,
                        const std::string& unit) {
  Canvas c(title);
  double top = 0;
  for (const auto& s : series)
    for (const auto& p : s.points) top = std::max(top, p.time_us);
  top = top > 0 ? top * 1.1 : 1;
  const std::size_t runs = std::max<std::size_t>(run_labels.size(), 1);
  const auto x_of = [&](std::size_t run) { return c.x(runs == 1 ? 0.5 : (run + 0.5) / static_cast<double>(runs)); };
  c.svg << "<rect x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << kW - kLeft - kRight << "\" height=\""
        << kH - kTop - kBottom << "\" fill=\"none\" stroke=\"#333\"/>\n";
  for (int i = 0; i <= 5; ++i) {  // the time axis, in fifths of its top
    const double py = c.y(i / 5.0);
    c.svg << "<line x1=\"" << kLeft << "\" y1=\"" << py << "\" x2=\"" << kW - kRight << "\" y2=\"" << py
          << "\" stroke=\"#ddd\"/><text x=\"" << kLeft - 6 << "\" y=\"" << py + 4 << "\" text-anchor=\"end\">"
          << fmt("%.4g", top * i / 5.0) << "</text>\n";
  }
  for (std::size_t r = 0; r < run_labels.size(); ++r)  // each run's label, turned to fit
    c.svg << "<text transform=\"translate(" << fmt("%.1f", x_of(r)) << "," << kH - kBottom + 12
          << ") rotate(30)\" font-size=\"10\">" << escape(run_labels[r]) << "</text>\n";
  c.svg << "<text transform=\"translate(18," << kH / 2 << ") rotate(-90)\" text-anchor=\"middle\">" << escape(y_label)
        << "</text>\n";
  for (std::size_t s = 0; s < series.size(); ++s) {
    const char* colour = kColours[s % 8];
    std::string path;
    std::size_t last = 0;
    for (std::size_t i = 0; i < series[s].points.size(); ++i) {
      const HistoryPoint& p = series[s].points[i];
      const bool joined = i > 0 && p.run == last + 1;  // a run that did not time the case breaks the line
      path += (joined ? " L" : " M") + fmt("%.1f", x_of(p.run)) + "," + fmt("%.1f", c.y(p.time_us / top));
      last = p.run;
    }
    c.svg << "<path d=\"" << path << "\" fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"1.5\"/>\n";
    for (const HistoryPoint& p : series[s].points)
      c.svg << marker_begin(s, x_of(p.run), c.y(p.time_us / top), 3.5, colour, 0.7) << "<title>"
            << escape(series[s].name) << ": " << fmt("%.4g", p.time_us) << " " << escape(unit) << ", "
            << escape(p.run < run_labels.size() ? run_labels[p.run] : "") << "</title>" << marker_end(s);
    c.svg << legend_row(s, s, series[s].name);
  }
  return c.done();
}

}  // namespace opmark::aggregate
