// The explicit list of families known to core. A new family adds one line here.
#include "core/error.h"
#include "core/families.h"
#include "core/schema.h"

namespace opmark::core {
namespace {

struct FamilyEntry {
  Schema schema;
  Work (*work)(const Case&);
};

const std::vector<FamilyEntry>& registry() {
  static const std::vector<FamilyEntry> entries = {
      {gemm_schema(), &gemm_work},
      {conv_schema(), &conv_work},
      {rnn_schema(), &rnn_work},
      {spmm_schema(), &spmm_work},
      {allreduce_schema(), &allreduce_work},
      {pointwise_schema(), &pointwise_work},
      {reduce_schema(), &reduce_work},
      {batchnorm_schema(), &batchnorm_work},
      {pool_schema(), &pool_work},
      {attention_schema(), &attention_work},
      {gather_schema(), &gather_work},
      {permute_schema(), &permute_work},
  };
  return entries;
}

const FamilyEntry& entry_for(const std::string& family) {
  for (const auto& e : registry())
    if (e.schema.family == family) return e;
  std::string known;
  for (const auto& e : registry()) known += (known.empty() ? "" : ", ") + e.schema.family;
  throw Error("unknown family '" + family + "' (known: " + known + ")");
}

}  // namespace

bool is_family(const std::string& family) {
  for (const auto& e : registry())
    if (e.schema.family == family) return true;
  return false;
}

std::vector<std::string> known_families() {
  std::vector<std::string> out;
  for (const auto& e : registry()) out.push_back(e.schema.family);
  return out;
}

const Schema& schema_for(const std::string& family) { return entry_for(family).schema; }

Work family_work(const Case& c) { return entry_for(c.family).work(c); }

}  // namespace opmark::core
