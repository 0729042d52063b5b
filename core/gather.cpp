#include <algorithm>
#include <cstdint>

#include "core/families.h"
#include "core/precision.h"

namespace opmark::core {
namespace {

std::string check_gather(const Case& c) {
  const GatherProblem p = gather_problem(c);
  return first_problem({check_tensor_size("the table", "table_rows x cols", {p.table_rows, p.cols}),
                        check_tensor_size("the output", "rows x cols", {p.rows, p.cols})});
}

}  // namespace

Schema gather_schema() {
  Schema s;
  s.family = "gather";
  s.help = "an embedding lookup: y[i, :] = table[idx[i], :] for rows seeded random int64 indices into a "
           "table_rows x cols table (torch.embedding, index_select); memory bound; bytes: rows x cols x elt read, "
           "rows x cols x elt written, rows x 8 (the indices)";
  s.fields = {
      {"rows", FieldKind::positive_int, std::nullopt, {}, "indices looked up (tokens)", ""},
      {"cols", FieldKind::positive_int, std::nullopt, {}, "row width (hidden size)", ""},
      {"table_rows", FieldKind::positive_int, std::nullopt, {}, "rows of the table (vocabulary)", ""},
  };
  s.directions = {"fwd"};
  s.precisions = {"fp32", "fp16", "bf16"};
  s.check = &check_gather;
  return s;
}

GatherProblem gather_problem(const Case& c) {
  GatherProblem p;
  p.rows = c.int_field("rows");
  p.cols = c.int_field("cols");
  p.table_rows = c.int_field("table_rows");
  return p;
}

// No FLOPs; bytes: the rows looked up read once, the output written once, the int64 indices read once. With more
// lookups than table rows, some rows are looked up again (bytes_reread).
Work gather_work(const Case& c) {
  const GatherProblem p = gather_problem(c);
  const double elem = static_cast<double>(size_of(precision_info(c.precision).input));
  const double n = static_cast<double>(p.rows) * static_cast<double>(p.cols);  // doubles: nothing overflows
  Work w;
  w.flops = 0;
  w.bytes_read = n * elem + static_cast<double>(p.rows) * 8.0;
  w.bytes_written = n * elem;
  w.bytes_reread = static_cast<double>(std::max<std::int64_t>(0, p.rows - p.table_rows)) * static_cast<double>(p.cols) * elem;
  return w;
}

}  // namespace opmark::core
