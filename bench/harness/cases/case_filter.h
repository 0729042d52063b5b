#pragma once
// --benchmark_filter over opmark's case names. opmark applies the filter itself and registers only the cases it
// keeps: Google Benchmark would match it against names ending in "/manual_time", so a name that
// --benchmark_list_tests or results.jsonl gives, anchored as '^NAME$', would select nothing.
#include <string>
#include <vector>

namespace opmark::bench {

// Throws opmark::Error "--benchmark_filter: '(' is not a valid regular expression (...)" where the filter does not
// compile: Google Benchmark only prints that and runs (or lists) nothing, exiting 0.
void check_benchmark_filter(const std::string& filter);

// The indices of `names` that the filter keeps, in order. As Google Benchmark reads it: a POSIX extended regular
// expression searched in the name, negated by a leading '-'; empty, "all" and "." keep everything. A name is also
// searched with Google Benchmark's "/manual_time" suffix, so filters written for the names it lists keep working,
// and as its short name (`short_names`, parallel to `names`, or empty: core::short_case_name, what the console
// prints), so a name copied from the console selects its case.
std::vector<std::size_t> select_cases(const std::vector<std::string>& names, const std::string& filter,
                                      const std::vector<std::string>& short_names = {});

// Up to `limit` of `names` nearest to the filter read as a literal name (anchors and escapes dropped): fewest edits,
// counted over the whole name where the filter is anchored at both ends and over any part of it where it is not;
// the earliest name first among equals. None when no name is within a third of the filter's length in edits.
std::vector<std::string> near_names(const std::vector<std::string>& names, const std::string& filter,
                                    std::size_t limit = 3);

// Throws opmark::Error where the filter keeps none of `names` (a non-empty list): what the filter was, how many
// cases it was applied to, and the near names to try.
void check_filter_selects(const std::vector<std::string>& names, const std::string& filter,
                          const std::vector<std::size_t>& selected);

}  // namespace opmark::bench
