#pragma once
// Reads the DeepBench CSVs in test/data: a header row, DOS line ends, fields quoted when they hold a comma.
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace opmark::test {

using CsvRow = std::map<std::string, std::string>;

inline std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (char ch : line) {
    if (ch == '"') quoted = !quoted;
    else if (ch == ',' && !quoted) fields.emplace_back();
    else fields.back() += ch;
  }
  return fields;
}

inline std::vector<CsvRow> read_csv(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::vector<CsvRow> rows;
  std::vector<std::string> header;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    std::vector<std::string> fields = split_csv_line(line);
    if (header.empty()) {
      header = fields;
      continue;
    }
    CsvRow row;
    for (std::size_t i = 0; i < header.size() && i < fields.size(); ++i) row[header[i]] = fields[i];
    rows.push_back(row);
  }
  return rows;
}

}  // namespace opmark::test
