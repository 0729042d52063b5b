#include "aggregate/xlsx.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

#include "core/error.h"
#include "core/file_access.h"
#include "core/schema.h"

#ifdef OPMARK_HAVE_XLSXWRITER
#include <xlsxwriter.h>
#endif

namespace opmark::aggregate {

#ifdef OPMARK_HAVE_XLSXWRITER

namespace {

// The registry's order: DeepBench's families first, in its order; then the others.
int section_rank(const std::string& family) {
  const auto& all = core::families();
  for (std::size_t i = 0; i < all.size(); ++i)
    if (all[i].schema.family == family) return static_cast<int>(i);
  return static_cast<int>(all.size());
}

// A worksheet name Excel accepts: none of []:*?/\, no apostrophe first or last, at most 31 characters (cut at a
// space where one is near), not blank, and unlike the names already taken (compared as Excel does, ignoring case).
std::string sheet_name(const std::string& wanted, std::set<std::string>* taken) {
  std::string name;
  for (char c : wanted) name += std::string("[]:*?/\\").find(c) == std::string::npos && c >= ' ' ? c : ' ';
  const auto trim = [](std::string& s) {
    while (!s.empty() && (s.back() == ' ' || s.back() == '\'')) s.pop_back();
    while (!s.empty() && (s.front() == ' ' || s.front() == '\'')) s.erase(0, 1);
  };
  const auto fit = [&trim](std::string s, std::size_t max) {
    if (s.size() > max) {
      const std::size_t space = s.rfind(' ', max);
      s.resize(space != std::string::npos && space + 8 > max ? space : max);
    }
    trim(s);
    return s;
  };
  trim(name);
  if (name.empty()) name = "Sheet";
  name = fit(name, LXW_SHEETNAME_MAX);
  const auto lower = [](std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  std::string unique = name;
  for (int n = 2; taken->count(lower(unique)); ++n) {
    const std::string suffix = " " + std::to_string(n);
    unique = fit(name, LXW_SHEETNAME_MAX - suffix.size()) + suffix;
  }
  taken->insert(lower(unique));
  return unique;
}

// How wide a cell shows, in characters: a number in its column's format ("0.000": three decimals), else its text.
std::size_t shown_width(const SheetCell& cell, const std::string& format) {
  if (!cell.number || format.empty()) return cell.text.size();
  const std::size_t dot = format.find('.');
  const int decimals = dot == std::string::npos ? 0 : static_cast<int>(format.size() - dot - 1);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, cell.value);
  return std::strlen(buf);
}

// Column widths from the header and every cell, between 6 and 60 characters (a long note wraps past that).
std::vector<double> column_widths(const Sheet& s) {
  std::vector<double> widths(s.header.size(), 6);
  const auto widen = [&widths](std::size_t c, std::size_t chars) {
    if (c < widths.size()) widths[c] = std::min(60.0, std::max(widths[c], static_cast<double>(chars) + 2));
  };
  for (std::size_t c = 0; c < s.header.size(); ++c) widen(c, s.header[c].size());
  for (const auto& row : s.rows)
    for (std::size_t c = 0; c < row.size(); ++c)
      widen(c, shown_width(row[c], c < s.formats.size() ? s.formats[c] : ""));
  return widths;
}

}  // namespace

bool xlsx_available() { return true; }

// The workbook, written to `file`; messages name `path`, the file it becomes.
static void write_workbook(const std::vector<Sheet>& sheets, const std::string& file, const std::string& path) {
  lxw_workbook* book = workbook_new(file.c_str());
  if (!book) throw Error(path + ": cannot create the workbook");
  lxw_format* bold = workbook_add_format(book);
  format_set_bold(bold);
  lxw_format* title = workbook_add_format(book);
  format_set_bold(title);
  format_set_font_size(title, 13);
  // A cell's format: its column's number format ("0.000"), and a time measured unstable (its sheet's notes column
  // says why) on an amber ground, a number still. Null: General.
  std::map<std::pair<std::string, bool>, lxw_format*> formats;
  const auto format_of = [&](const std::string& number_format, bool unstable) -> lxw_format* {
    if (number_format.empty() && !unstable) return nullptr;
    lxw_format*& f = formats[{number_format, unstable}];
    if (!f) {
      f = workbook_add_format(book);
      if (!number_format.empty()) format_set_num_format(f, number_format.c_str());
      if (unstable) format_set_bg_color(f, 0xFFE699);
    }
    return f;
  };
  // A table: its header at `first_row`, frozen with everything above it, with a filter (sort and filter in
  // place), its rows below; numbers stored whole, shown in their column's format.
  const auto write_table = [&](lxw_worksheet* ws, lxw_row_t first_row, const Sheet& s) {
    const std::vector<double> widths = column_widths(s);
    for (std::size_t c = 0; c < widths.size(); ++c)
      worksheet_set_column(ws, lxw_col_t(c), lxw_col_t(c), widths[c], nullptr);
    for (std::size_t c = 0; c < s.header.size(); ++c)
      worksheet_write_string(ws, first_row, lxw_col_t(c), s.header[c].c_str(), bold);
    worksheet_freeze_panes(ws, first_row + 1, 0);
    // Printed (or rendered to PDF) a table stays whole across: landscape, one page wide, its header on each page.
    worksheet_set_landscape(ws);
    worksheet_fit_to_pages(ws, 1, 0);
    worksheet_repeat_rows(ws, first_row, first_row);
    if (!s.header.empty())
      worksheet_autofilter(ws, first_row, 0, first_row + lxw_row_t(s.rows.size()), lxw_col_t(s.header.size() - 1));
    for (std::size_t r = 0; r < s.rows.size(); ++r) {
      const lxw_row_t row = first_row + 1 + lxw_row_t(r);
      const auto& cells = s.rows[r];
      for (std::size_t c = 0; c < cells.size(); ++c) {
        const bool marked = std::find(s.unstable_cells.begin(), s.unstable_cells.end(), std::make_pair(r, c)) !=
                            s.unstable_cells.end();
        lxw_format* f = format_of(c < s.formats.size() ? s.formats[c] : "", marked);
        if (cells[c].number) worksheet_write_number(ws, row, lxw_col_t(c), cells[c].value, f);
        else if (!cells[c].text.empty()) worksheet_write_string(ws, row, lxw_col_t(c), cells[c].text.c_str(), f);
      }
    }
  };

  // A worksheet per table: precisions in the order the sheets list them, each precision's families in DeepBench's
  // order, each named "<precision> <DeepBench's section name>" and headed by that name, as DeepBench's sections are.
  std::vector<std::string> precisions;
  for (const auto& s : sheets)
    if (!s.precision.empty() && std::find(precisions.begin(), precisions.end(), s.precision) == precisions.end())
      precisions.push_back(s.precision);
  std::set<std::string> taken;
  for (const auto& precision : precisions) {
    std::vector<const Sheet*> sections;
    for (const auto& s : sheets)
      if (s.precision == precision) sections.push_back(&s);
    std::stable_sort(sections.begin(), sections.end(),
                     [](const Sheet* a, const Sheet* b) { return section_rank(a->family) < section_rank(b->family); });
    for (const Sheet* s : sections) {
      const std::string heading = s->title.empty() ? s->family : s->title;
      lxw_worksheet* ws = workbook_add_worksheet(book, sheet_name(precision + " " + heading, &taken).c_str());
      worksheet_write_string(ws, 0, 0, (heading + " (" + precision + ")").c_str(), title);
      write_table(ws, 1, *s);
    }
  }
  for (const auto& s : sheets) {
    if (!s.precision.empty()) continue;
    const std::string name = s.title.empty() ? s.name : s.title;
    write_table(workbook_add_worksheet(book, sheet_name(name, &taken).c_str()), 0, s);
  }
  const lxw_error err = workbook_close(book);
  if (err != LXW_NO_ERROR)
    throw Error(path + ": " + lxw_strerror(err) + "; the previous file, if any, is left as it was");
}

void write_xlsx(const std::vector<Sheet>& sheets, const std::string& path) {
  // libxlsxwriter opens the path itself: it writes a temporary file beside `path`, which replaces `path` only once
  // whole (a link at `path` is refused, never written through).
  core::write_file_atomically_with(path, [&](const std::string& temp) { write_workbook(sheets, temp, path); });
}

#else

bool xlsx_available() { return false; }

void write_xlsx(const std::vector<Sheet>&, const std::string& path) {
  throw Error(path + ": this build has no libxlsxwriter (install libxlsxwriter-dev and re-run cmake); "
                     "the same tables are written as CSV");
}

#endif

}  // namespace opmark::aggregate
