#include "aggregate/xlsx.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "core/error.h"
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

bool as_number(const std::string& text, double* value) {
  if (text.empty()) return false;
  char* end = nullptr;
  *value = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size();
}

}  // namespace

bool xlsx_available() { return true; }

void write_xlsx(const std::vector<Sheet>& sheets, const std::string& path) {
  // libxlsxwriter opens the path itself: a symbolic link there is refused first (never written through).
  std::error_code ec;
  if (std::filesystem::is_symlink(std::filesystem::symlink_status(path, ec)))
    throw Error(path + ": a symbolic link, not written through (it would overwrite whatever it points to): remove "
                       "the link, or write elsewhere");
  lxw_workbook* book = workbook_new(path.c_str());
  if (!book) throw Error(path + ": cannot create the workbook");
  lxw_format* bold = workbook_add_format(book);
  format_set_bold(bold);
  // A time measured unstable (its sheet's notes column says why): a number still, on an amber ground.
  lxw_format* unstable = workbook_add_format(book);
  format_set_bg_color(unstable, 0xFFE699);
  const auto write_cell = [&](lxw_worksheet* ws, lxw_row_t row, lxw_col_t col, const std::string& text,
                              lxw_format* format) {
    double v = 0;
    if (as_number(text, &v)) worksheet_write_number(ws, row, col, v, format);
    else worksheet_write_string(ws, row, col, text.c_str(), format);
  };
  const auto write_table = [&](lxw_worksheet* ws, lxw_row_t* row, const Sheet& s) {
    for (std::size_t c = 0; c < s.header.size(); ++c)
      worksheet_write_string(ws, *row, lxw_col_t(c), s.header[c].c_str(), bold);
    ++*row;
    for (std::size_t r = 0; r < s.rows.size(); ++r) {
      const auto& cells = s.rows[r];
      for (std::size_t c = 0; c < cells.size(); ++c) {
        const bool marked = std::find(s.unstable_cells.begin(), s.unstable_cells.end(), std::make_pair(r, c)) !=
                            s.unstable_cells.end();
        write_cell(ws, *row, lxw_col_t(c), cells[c], marked ? unstable : nullptr);
      }
      ++*row;
    }
  };

  // Precisions in the order the sheets list them; each precision's sections in DeepBench's order.
  std::vector<std::string> precisions;
  for (const auto& s : sheets)
    if (!s.precision.empty() && std::find(precisions.begin(), precisions.end(), s.precision) == precisions.end())
      precisions.push_back(s.precision);
  for (const auto& precision : precisions) {
    std::vector<const Sheet*> sections;
    for (const auto& s : sheets)
      if (s.precision == precision) sections.push_back(&s);
    std::stable_sort(sections.begin(), sections.end(),
                     [](const Sheet* a, const Sheet* b) { return section_rank(a->family) < section_rank(b->family); });
    lxw_worksheet* ws = workbook_add_worksheet(book, precision.c_str());
    lxw_row_t row = 0;
    for (const Sheet* s : sections) {
      worksheet_write_string(ws, row++, 0, s->family.c_str(), bold);
      write_table(ws, &row, *s);
      ++row;  // a blank row between sections
    }
  }
  for (const auto& s : sheets) {
    if (!s.precision.empty()) continue;
    lxw_worksheet* ws = workbook_add_worksheet(book, s.name == "specs" ? "Specs" : s.name.c_str());
    lxw_row_t row = 0;
    write_table(ws, &row, s);
  }
  const lxw_error err = workbook_close(book);
  if (err != LXW_NO_ERROR) throw Error(path + ": " + lxw_strerror(err));
}

#else

bool xlsx_available() { return false; }

void write_xlsx(const std::vector<Sheet>&, const std::string& path) {
  throw Error(path + ": this build has no libxlsxwriter (install libxlsxwriter-dev and re-run cmake); "
                     "the same tables are written as CSV");
}

#endif

}  // namespace opmark::aggregate
