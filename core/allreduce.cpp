#include "core/families.h"
#include "core/precision.h"

namespace opmark::core {
namespace {

FieldSpec bounded(FieldSpec f, std::int64_t max) {
  f.max = max;
  return f;
}

}  // namespace

Schema allreduce_schema() {
  Schema s;
  s.family = "allreduce";
  s.help = "all-reduce of `count` elements across `ranks` GPUs through NCCL (nccl-tests' algbw and busbw)";
  s.fields = {
      // count is one tensor's elements, so bounded as a tensor (kMaxElements), not as a dimension.
      bounded({"count", FieldKind::positive_int, std::nullopt, {}, "elements per rank", ""}, kMaxElements),
      bounded({"ranks", FieldKind::positive_int, std::nullopt, {}, "GPUs taking part (tables: the symbol G)", ""},
              kMaxRanks),
      {"op", FieldKind::choice, FieldValue{std::string("sum")}, {"sum", "prod", "max", "min"}, "the reduction", ""},
      {"inplace", FieldKind::choice, FieldValue{std::string("no")}, {"no", "yes"},
       "yes: the result overwrites the input buffer", ""},
  };
  s.directions = {"fwd"};
  s.precisions = {"fp32", "fp16", "bf16"};
  return s;
}

AllreduceProblem allreduce_problem(const Case& c) {
  AllreduceProblem p;
  p.count = c.int_field("count");
  p.ranks = c.int_field("ranks");
  p.op = c.str_field("op");
  p.inplace = c.str_field("inplace") == "yes";
  return p;
}

double busbw_factor(std::int64_t ranks) {
  return ranks > 0 ? 2.0 * static_cast<double>(ranks - 1) / static_cast<double>(ranks) : 0.0;
}

// nccl-tests' size: count x element size per rank; its algbw = size / time is what gb_per_s reports (bytes_read
// holds the size, nothing is counted as written), and busbw = algbw x 2 (ranks - 1) / ranks a counter.
Work allreduce_work(const Case& c) {
  const AllreduceProblem p = allreduce_problem(c);
  Work w;
  w.flops = 0;
  w.bytes_read = static_cast<double>(p.count) * static_cast<double>(size_of(precision_info(c.precision).input));
  w.bytes_written = 0;
  return w;
}

}  // namespace opmark::core
