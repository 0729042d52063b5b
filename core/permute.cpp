#include "core/families.h"

#include <algorithm>

#include "core/precision.h"

namespace opmark::core {
namespace {

std::string check_permute(const Case& c) {
  const PermuteProblem p = permute_problem(c);
  return check_tensor_size("the tensor", "d0 x d1 x d2 x d3", {p.d[0], p.d[1], p.d[2], p.d[3]});
}

}  // namespace

// Those real models run: attention's heads <-> sequence swap (0213), a transpose of the last two (0132, K^T), and
// moving the last dimension forward or back (0312: NHWC -> NCHW, 0231: NCHW -> NHWC); 1023 swaps the outer two.
const std::vector<std::string>& permute_perms() {
  static const std::vector<std::string> perms = {"0213", "0132", "0231", "0312", "1023"};
  return perms;
}

Schema permute_schema() {
  Schema s;
  s.family = "permute";
  s.help = "an out-of-place copy of a row-major d0 x d1 x d2 x d3 tensor into the layout x.permute(perm)."
           "contiguous() (output dimension i is input dimension perm[i]); memory bound; bytes: 2 x numel x elt";
  s.fields = {
      {"d0", FieldKind::positive_int, std::nullopt, {}, "outermost dimension (batch)", ""},
      {"d1", FieldKind::positive_int, std::nullopt, {}, "second dimension", ""},
      {"d2", FieldKind::positive_int, std::nullopt, {}, "third dimension", ""},
      {"d3", FieldKind::positive_int, std::nullopt, {}, "innermost dimension (contiguous)", ""},
      {"perm", FieldKind::choice, std::nullopt, permute_perms(), "the permutation, as x.permute(...) takes it", ""},
  };
  s.directions = {"fwd"};
  s.precisions = {"fp32", "fp16", "bf16"};
  s.check = &check_permute;
  return s;
}

PermuteProblem permute_problem(const Case& c) {
  PermuteProblem p;
  p.d[0] = c.int_field("d0");
  p.d[1] = c.int_field("d1");
  p.d[2] = c.int_field("d2");
  p.d[3] = c.int_field("d3");
  p.perm = c.str_field("perm");
  return p;
}

PermuteView permute_view(const PermuteProblem& p) {
  const std::int64_t* d = p.d;
  PermuteView v;
  if (p.perm == "0213") v = {d[0], d[1], d[2], d[3]};
  else if (p.perm == "0132") v = {d[0] * d[1], d[2], d[3], 1};
  else if (p.perm == "0231") v = {d[0], d[1], d[2] * d[3], 1};
  else if (p.perm == "0312") v = {d[0], d[1] * d[2], d[3], 1};
  else v = {1, d[0], d[1], d[2] * d[3]};  // 1023
  return v;
}

std::vector<PermutePath> permute_paths(const PermuteView& v, std::int64_t elem_bytes) {
  std::vector<PermutePath> paths = {v.moves_innermost() ? PermutePath::tiles : PermutePath::rows};
  const std::int64_t bytes = v.batch * v.a * v.b * v.inner * elem_bytes;
  if (!v.moves_innermost() && bytes <= kPermuteRowsOneUnitMaxBytes) paths.push_back(PermutePath::rows_one_unit);
  if (v.moves_innermost()) paths.push_back(PermutePath::rows);
  if (v.moves_innermost() && elem_bytes == 2 && v.a > 1 && v.b > 1) paths.push_back(PermutePath::pair_rows);
  if (v.moves_innermost() && v.a > 1 && v.b > 1 && v.b <= kPermuteShortRowsMaxB &&
      v.batch * v.a < (std::int64_t{1} << 31))
    paths.push_back(PermutePath::short_rows);
  if (v.moves_innermost() && v.a > 1 && v.b > 1 && v.a <= kPermuteShortColumnsMaxA &&
      v.batch * v.b < (std::int64_t{1} << 31))
    paths.push_back(PermutePath::short_columns);
  if (v.moves_innermost() && v.a > 32 && v.b > 32) paths.push_back(PermutePath::wide_tiles);  // else mostly empty
  // With two tiles or fewer along a side, walking a first reads that side's rows in pieces far apart in time.
  if (v.moves_innermost() && v.a > 64 && v.b > 64) paths.push_back(PermutePath::tiles_along_a);
  if (v.moves_innermost() && elem_bytes == 2 && v.a > 32 && v.b > 32) {
    paths.push_back(PermutePath::pair_tiles);
    paths.push_back(PermutePath::pair_tiles_deep);
  }
  if (v.moves_innermost() && elem_bytes == 2 && v.a > 32 && v.b > 32) paths.push_back(PermutePath::word_tiles);
  if (v.moves_innermost() && v.a > 1 && v.b > 1 && std::min(v.a, v.b) <= kPermuteStripsMaxShort)
    paths.push_back(PermutePath::strips);
  const std::int64_t plane = v.a * v.b * v.inner;
  if (plane * elem_bytes <= kPermutePlaneMaxBytes && v.a > 1 && v.b > 1) paths.push_back(PermutePath::planes);
  if (v.inner >= kPermuteRunsMinInner) paths.push_back(PermutePath::runs);
  if (v.a == 1 || v.b == 1) {
    paths.push_back(PermutePath::copy);
    paths.push_back(PermutePath::copy_kernel);
  }
  if (v.inner > 1 && v.a > 1 && v.b > 1 && permute_tile_side(v.inner * elem_bytes) > 0)
    paths.push_back(PermutePath::tiled_runs);
  const std::int64_t run_bytes = v.inner * elem_bytes;
  if (v.inner > 1 && v.a > 1 && v.b > 1 && (run_bytes == 4 || run_bytes == 8 || run_bytes == 16))
    paths.push_back(PermutePath::run_tiles);
  if (v.inner > 1 && run_bytes > kPermuteVectorRowsMinBytes && run_bytes % 16 != 0)
    paths.push_back(PermutePath::vector_rows);
  return paths;
}

int permute_tile_side(std::int64_t run_bytes) {
  if (run_bytes <= 0 || run_bytes > kPermuteTiledRunsMaxBytes) return 0;
  return run_bytes <= 16 ? 32 : run_bytes <= 64 ? 16 : 8;
}

std::string permute_path_name(PermutePath path, const PermuteView& v) {
  switch (path) {
    case PermutePath::tiles: return "path: 32 x 32 shared-memory tiles (the innermost dimension moves)";
    case PermutePath::tiles_along_a:
      return "path: 32 x 32 shared-memory tiles, the grid walking the input's rows first (the innermost dimension "
             "moves)";
    case PermutePath::wide_tiles: return "path: 64 x 64 shared-memory tiles (the innermost dimension moves)";
    case PermutePath::pair_tiles:
      return "path: 64 x 64 shared-memory tiles moved in 4-byte pairs of elements (the innermost dimension moves)";
    case PermutePath::pair_tiles_deep:
      return "path: 64 x 64 shared-memory tiles moved in 4-byte pairs of elements, 16 pairs in flight a thread (the "
             "innermost dimension moves)";
    case PermutePath::word_tiles:
      return "path: 128 x 128 shared-memory tiles moved in aligned 4-byte words (the innermost dimension moves)";
    case PermutePath::strips:
      return "path: strips of rows of " + std::to_string(std::min(v.a, v.b)) +
             " elements staged in shared memory, read and written as contiguous spans";
    case PermutePath::rows:
      return v.moves_innermost() ? "path: element by element, each one's source from its index"
                                 : "path: rows of " + std::to_string(v.inner) + " elements moved whole";
    case PermutePath::pair_rows: return "path: element pairs, each output word's two sources from its index";
    case PermutePath::short_rows:
      return "path: a thread per input row of " + std::to_string(v.b) + " elements, written to " + std::to_string(v.b) +
             " output rows";
    case PermutePath::short_columns:
      return "path: a warp per 32 output rows of " + std::to_string(v.a) +
             " elements, staged in shared memory and stored as one span";
    case PermutePath::run_tiles:
      return "path: 32 x 32 shared-memory tiles of whole runs of " + std::to_string(v.inner) + " elements";
    case PermutePath::rows_one_unit:
      return "path: rows of " + std::to_string(v.inner) + " elements moved whole, 1 unit in flight a thread";
    case PermutePath::planes:
      return "path: whole " + std::to_string(v.a) + " x " + std::to_string(v.b) +
             (v.inner > 1 ? " x " + std::to_string(v.inner) : std::string()) +
             " planes staged in shared memory, a contiguous span a block";
    case PermutePath::runs:
      return "path: a warp per run of " + std::to_string(v.inner) + " elements, or per " +
             std::to_string(kPermuteRunPieceBytes / 1024) + " KiB of a longer run";
    case PermutePath::copy: return "path: one cudaMemcpyAsync (the permutation leaves the memory order as it is)";
    case PermutePath::copy_kernel:
      return "path: one copy kernel of 16-byte vectors (the permutation leaves the memory order as it is)";
    case PermutePath::tiled_runs:
      return "path: tiles of runs of " + std::to_string(v.inner) + " elements staged in shared memory";
    case PermutePath::vector_rows:
      return "path: rows of " + std::to_string(v.inner) +
             " elements moved whole in destination-aligned 16-byte vectors";
  }
  return "?";
}

std::string permute_path(const PermuteView& v) { return permute_path_name(permute_paths(v, 4).front(), v); }

// No FLOPs; bytes: the input read once, the output written once.
Work permute_work(const Case& c) {
  const PermuteProblem p = permute_problem(c);
  const double elem = static_cast<double>(size_of(precision_info(c.precision).input));
  Work w;
  w.flops = 0;
  w.bytes_read = static_cast<double>(p.elements()) * elem;
  w.bytes_written = w.bytes_read;
  return w;
}

}  // namespace opmark::core
