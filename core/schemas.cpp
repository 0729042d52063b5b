// The registry of families: what core knows about each (schema, work formula, spreadsheet section, library,
// collective or not). A new family adds one line here.
#include "core/error.h"
#include "core/families.h"
#include "core/schema.h"

namespace opmark::core {
namespace {

FamilyInfo entry(Schema schema, Work (*work)(const Case&), const char* title, const char* library,
                 SheetExtras extras = SheetExtras::none, bool collective = false) {
  return {std::move(schema), work, title, library, collective, extras};
}

// DeepBench's four families first, in its order, then the rest in the order they were added.
std::vector<FamilyInfo>& registry() {
  static std::vector<FamilyInfo> entries = {
      entry(gemm_schema(), &gemm_work, "GEMM", "cuBLASLt, cuBLAS"),
      entry(conv_schema(), &conv_work, "Convolution", "cuDNN"),
      entry(rnn_schema(), &rnn_work, "Recurrent Layers", "cuDNN"),
      entry(spmm_schema(), &spmm_work, "Sparse GEMM", "cuSPARSE", SheetExtras::dense_speedup),
      entry(allreduce_schema(), &allreduce_work, "All-Reduce", "NCCL", SheetExtras::bus_bandwidth, true),
      entry(pointwise_schema(), &pointwise_work, "Pointwise", "ours, cuDNN"),
      entry(reduce_schema(), &reduce_work, "Reductions, normalisations", "ours, cuDNN"),
      entry(batchnorm_schema(), &batchnorm_work, "Batch normalisation", "ours, cuDNN"),
      entry(pool_schema(), &pool_work, "Pooling", "ours, cuDNN"),
      entry(attention_schema(), &attention_work, "Attention", "cuDNN fused attention"),
      entry(gather_schema(), &gather_work, "Gather (embedding lookup)", "ours"),
      entry(permute_schema(), &permute_work, "Permute (layout copies)", "ours"),
  };
  return entries;
}

}  // namespace

const std::vector<FamilyInfo>& families() { return registry(); }

ScopedFamily::ScopedFamily(FamilyInfo info) : family_(info.schema.family) {
  if (is_family(family_)) throw Error("family '" + family_ + "' is already in the registry");
  registry().push_back(std::move(info));
}

ScopedFamily::~ScopedFamily() {
  auto& entries = registry();
  for (auto it = entries.begin(); it != entries.end(); ++it)
    if (it->schema.family == family_) {
      entries.erase(it);
      return;
    }
}

const FamilyInfo& family_info(const std::string& family) {
  for (const auto& e : families())
    if (e.schema.family == family) return e;
  throw Error("unknown family '" + family + "' (known: " + family_list() + ")");
}

bool is_family(const std::string& family) {
  for (const auto& e : families())
    if (e.schema.family == family) return true;
  return false;
}

std::vector<std::string> known_families() {
  std::vector<std::string> out;
  for (const auto& e : families()) out.push_back(e.schema.family);
  return out;
}

std::string family_list() {
  std::string out;
  for (const auto& e : families()) out += (out.empty() ? "" : ", ") + e.schema.family;
  return out;
}

const Schema& schema_for(const std::string& family) { return family_info(family).schema; }

Work family_work(const Case& c) { return family_info(c.family).work(c); }

}  // namespace opmark::core
