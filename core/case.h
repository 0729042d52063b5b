#pragma once
// A case is one timed problem: family, direction, precision and a value for every schema field.
// Its name is the user-visible, stable key of every result:
//   <family>/<direction>/<precision>/<field>=<value>/...   every schema field, in schema order, defaults included
// e.g. gemm/fwd/fp16/m=1760/n=16/k=1760/ta=N/tb=N/batch=1. Names are built only by make_case_name and read only
// by parse_case_name. The one exception to "defaults included": a field a family gained after its results were
// published (FieldSpec::named_at_default false, e.g. batchnorm's and pool's layout) is named only away from its
// default, so the cases that existed before it keep their names (batchnorm/.../impl=opmark is NCHW,
// batchnorm/.../impl=opmark/layout=NHWC the new case).
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/schema.h"

namespace opmark::core {

struct Case {
  std::string family;
  std::string direction;
  std::string precision;
  std::vector<FieldValue> values;  // one per schema field, in schema order

  // Where the case came from; merged when several tables or sets name the same case.
  std::set<std::string> sets;
  std::set<std::string> applications;
  std::set<std::string> models;
  std::vector<SourceLocation> sources;

  const Schema& schema() const { return schema_for(family); }
  std::int64_t int_field(const std::string& name) const;  // throws if absent or not an integer
  std::string str_field(const std::string& name) const;   // any field, as text
};

// Builds a validated case from named values: fills defaults, rejects unknown or missing fields, bad values,
// and a direction or precision the family does not have. Errors are opmark::Error with the field named.
Case make_case(const std::string& family, const std::string& direction, const std::string& precision,
               const std::map<std::string, FieldValue>& given);

std::string make_case_name(const Case& c);

// Whether field `i` (schema order) of `c` holds its default; for a field defaulting to another's, that field's value.
bool field_at_default(const Case& c, std::size_t i);

// The name for people to read in a report: make_case_name without the fields whose value is the schema's default
// (a field defaulting to another's value is left out where it equals it), e.g. a plain 2-D convolution drops
// d=1/t=1/pad_d=0/stride_d=1/dil_h=1/dil_w=1/groups=1/layout=NCHW. Not a key: several names may share one.
std::string short_case_name(const Case& c);

// The inverse of make_case_name; throws opmark::Error saying which part of the name is wrong.
Case parse_case_name(const std::string& name);

// What one execution of a case does, for throughput counters. Bytes are the fewest a kernel must move:
// each input read once, each output written once.
struct Work {
  double flops = 0;
  double bytes_read = 0;
  double bytes_written = 0;
  // Of bytes_read, what reads data read before (a gather's rows looked up again): the L2 may serve it, so only
  // the rest is held to the memory's peak.
  double bytes_reread = 0;
  double bytes() const { return bytes_read + bytes_written; }
  double bytes_from_memory() const { return bytes() - bytes_reread; }
};

Work work_of(const Case& c);

}  // namespace opmark::core
