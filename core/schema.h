#pragma once
// What a family's table rows and case names may hold: fields with types, defaults and allowed values, the
// directions the family times, and the precisions it runs in. Every family declares one; names, tables and
// the aggregator all read it, so a field is spelled in exactly one place.
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace opmark::core {

struct Case;

// Bounds of integer fields. Tables, flags and case names come from users, so every integer that reaches a case is
// bounded: far above any real workload, and low enough that every size, FLOP and byte count of a valid case is
// computed without overflow. Each family's check also bounds its tensors (check_tensor_size).
//
// A tensor dimension (m, n, k, channels, height, batch, ...): 2^31. The libraries take 32-bit dimensions (cuDNN's
// int), and the largest real dimensions (a vocabulary, a batch of tokens flattened) are a few million.
constexpr std::int64_t kMaxDimension = std::int64_t{1} << 31;
// Elements of one tensor, counted whole (a batched GEMM's operand, an all-reduce's count): 2^40, a trillion elements,
// 2 TB in fp16, over ten times the memory of the largest GPU. With every tensor bounded, a byte count (8 bytes an
// element at most) and the sum of a case's tensors stay far inside int64 and exact in a double (2^53).
constexpr std::int64_t kMaxElements = std::int64_t{1} << 40;
// Padding, stride and dilation: 2^16. Real networks use at most a few dozen (DeepLab's atrous rates reach 36).
constexpr std::int64_t kMaxPadStrideDilation = std::int64_t{1} << 16;
// Stacked recurrent layers: 1024. Deep stacks have tens; the work formulas loop over the layers.
constexpr std::int64_t kMaxLayers = 1024;
// Recurrent time steps: 2^20. DeepBench's longest sequence has 1500 steps; cuDNN's sequence length is an int.
constexpr std::int64_t kMaxSteps = std::int64_t{1} << 20;
// GPUs in one all-reduce: 2^20, past the largest cluster.
constexpr std::int64_t kMaxRanks = std::int64_t{1} << 20;
// Significant digits a fraction keeps in a case name (canonical_value): a value needing more is rejected, so two
// distinct values never share a name.
constexpr int kFractionDigits = 10;

using FieldValue = std::variant<std::int64_t, std::string>;
std::string to_string(const FieldValue& v);

enum class FieldKind {
  positive_int,  // 1 ..= FieldSpec::max
  count,         // 0 ..= FieldSpec::max (padding, for example)
  choice,        // one of `choices`
  fraction,      // a number in [0, 1), kept as its shortest text ("0.95"): sparsity, dropout
};

struct FieldSpec {
  std::string name;
  FieldKind kind = FieldKind::positive_int;
  std::optional<FieldValue> default_value;  // absent (and no default_from): the field is required
  std::vector<std::string> choices;         // for FieldKind::choice
  std::string help;
  std::string default_from;                 // when not given, take this earlier field's value (rnn: input = hidden)
  std::int64_t max = kMaxDimension;         // integer kinds: the largest value accepted (see the bounds above)
  // false for a field a family gained after its results were published: make_case_name leaves it out at its
  // default, so the names recorded before it existed still name the same cases (see added_later).
  bool named_at_default = true;

  bool is_required() const { return !default_value && default_from.empty(); }
};

// An integer field with a default value, and one bounded as padding, stride and dilation are
// (kMaxPadStrideDilation): the windowed families' (conv, pool) fields.
inline FieldSpec field_with_default(const char* name, FieldKind kind, std::int64_t v, const char* help) {
  return {name, kind, FieldValue{v}, {}, help, ""};
}
inline FieldSpec window_step_field(const char* name, FieldKind kind, std::int64_t v, const char* help) {
  FieldSpec f = field_with_default(name, kind, v, help);
  f.max = kMaxPadStrideDilation;
  return f;
}

// A field added to a family that already has published results (a layout for batchnorm and pool): named only away
// from its default, so every case that existed before keeps its name. It must have a default.
inline FieldSpec added_later(FieldSpec f) {
  f.named_at_default = false;
  return f;
}

// The memory order of an image family's tensors (conv, batchnorm, pool): NCHW, or NHWC (PyTorch's channels_last).
inline FieldSpec layout_field() {
  return {"layout", FieldKind::choice, FieldValue{std::string("NCHW")}, {"NCHW", "NHWC"},
          "tensor layout: NCHW, or NHWC (PyTorch's channels_last)", ""};
}

struct Schema {
  std::string family;
  std::string help;
  std::vector<FieldSpec> fields;        // in case-name order
  std::vector<std::string> directions;  // e.g. fwd; bwd_data; bwd_filter
  std::vector<std::string> precisions;  // those this family can run
  // Checks that need several fields (a convolution's output must not be empty, int8 runs forward only, each tensor
  // at most kMaxElements, ...): returns what is wrong, or an empty string. Runs after every field passed
  // check_value, so it may compute with the fields' bounds.
  std::string (*check)(const Case&) = nullptr;

  const FieldSpec* find_field(const std::string& name) const;
  int index_of(const std::string& name) const;  // -1 when absent
  bool has_direction(const std::string& d) const;
  bool has_precision(const std::string& p) const;
  std::string field_list() const;  // "m, n, k, ta, tb, batch" for messages
};

// Checks a value against a field's kind and range; returns an empty string when it is valid, else what is wrong
// ("expected a positive integer, got -3", "expected an integer from 1 to 1024, got 4096").
std::string check_value(const FieldSpec& field, const FieldValue& value);

// The spec a symbol's value is checked against (set symbols, model inputs, --opmark_symbols, --opmark_inputs):
// a size, so a positive integer of at most kMaxElements.
FieldSpec symbol_spec(const std::string& name);

// The product of `factors` (each >= 0), or -1 when it exceeds kMaxElements: checked on the way, so no overflow.
std::int64_t bounded_product(std::initializer_list<std::int64_t> factors);
// A family check's test of one tensor: "" when the product of `factors` is at most kMaxElements, else what is
// wrong, naming the tensor and its `shape` ("operand A (m x k x batch) would hold more than 2^40 elements").
std::string check_tensor_size(const std::string& tensor, const std::string& shape,
                              std::initializer_list<std::int64_t> factors);
// The first non-empty message of `problems`, or "" (a family check tests several tensors).
std::string first_problem(std::initializer_list<std::string> problems);

// A valid value in its one canonical spelling, so equal values give equal case names ("0.950" -> "0.95").
FieldValue canonical_value(const FieldSpec& field, const FieldValue& value);

// A fraction field's number.
double fraction_of(const FieldValue& value);

struct Work;

// Extra spreadsheet columns a family's sheet carries beside time and TFLOPS (DeepBench's layout).
enum class SheetExtras {
  none,
  dense_speedup,  // sparse: the dense GEMM of the same shape and the speedup over it (DeepBench's sparse sheet)
  bus_bandwidth,  // collectives: nccl-tests' algbw and busbw
};

// Everything opmark knows about a family in one entry of the registry (core/schemas.cpp); the rest of the code
// reads it, so a new family is its own files plus one line there (and one in the bench list,
// bench/families/list.cpp, which core cannot see: it needs CUDA; docs/adding_a_family.md).
struct FamilyInfo {
  Schema schema;
  Work (*work)(const Case&) = nullptr;
  std::string title;    // the spreadsheet section's name, DeepBench's where it had the family ("GEMM", "Convolution")
  std::string library;  // what runs it, for help text ("cuBLASLt", "cuDNN fused attention", "ours")
  bool collective = false;  // runs across GPUs: every rank takes part in every case (an all-reduce)
  SheetExtras sheet_extras = SheetExtras::none;
};

// The registry, in its order (the spreadsheet's section order: DeepBench's families first). Throws
// opmark::Error naming the known families for an unknown name.
const std::vector<FamilyInfo>& families();
const FamilyInfo& family_info(const std::string& family);
const Schema& schema_for(const std::string& family);
bool is_family(const std::string& family);
std::vector<std::string> known_families();
// "gemm, conv, rnn, ..." for help and messages.
std::string family_list();

// A family added to the registry for the guard's lifetime: a test's throwaway family goes through core as a real
// one does (tables, names, work), with no line in core/schemas.cpp. Not thread-safe: tests only.
class ScopedFamily {
 public:
  explicit ScopedFamily(FamilyInfo info);  // throws opmark::Error for a name already registered
  ~ScopedFamily();
  ScopedFamily(const ScopedFamily&) = delete;
  ScopedFamily& operator=(const ScopedFamily&) = delete;

 private:
  std::string family_;
};

}  // namespace opmark::core
