#pragma once
// Per-family host-side knowledge: the schema and the work formulas. One section per family; the device side
// (allocation, the timed call, verification) lives in bench/<family>.cpp, our kernels in kernels/.
//
// Sizes: the problems' element counts (elements_a(), elements_x(), nnz(), ...) are int64 products of fields. They
// cannot overflow: every field is bounded (core/schema.h) and each family's check rejects a case whose tensors would
// hold more than kMaxElements, so only cases that make_case accepted should reach them. The work formulas compute
// in doubles.
#include <cstdint>
#include <string>
#include <vector>

#include "core/case.h"
#include "core/schema.h"

namespace opmark::core {

// ---- gemm: C(m x n) = op(A)(m x k) * op(B)(k x n), column-major as cuBLAS, `batch` strided products ----
Schema gemm_schema();

struct GemmProblem {
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  bool trans_a = false, trans_b = false;
  // Dimensions as run: m, n, k rounded up to the precision's pad multiple (DeepBench pads int8 to 4).
  std::int64_t run_m = 0, run_n = 0, run_k = 0;
  bool is_padded() const { return run_m != m || run_n != n || run_k != k; }
  // Leading dimensions of the column-major operands as run.
  std::int64_t lda() const { return trans_a ? run_k : run_m; }
  std::int64_t ldb() const { return trans_b ? run_n : run_k; }
  std::int64_t ldc() const { return run_m; }
  std::int64_t elements_a() const { return run_m * run_k; }
  std::int64_t elements_b() const { return run_k * run_n; }
  std::int64_t elements_c() const { return run_m * run_n; }
};

GemmProblem gemm_problem(const Case& c);
// flops = 2 m n k batch on the table's problem (padding is not useful work); bytes = the padded operands read and
// the padded result written once, in the precision's element types.
Work gemm_work(const Case& c);

// ---- conv: N x C x (D x) H x W input, K filters of C/groups x (T x) R x S, through cuDNN ----
Schema conv_schema();

struct ConvProblem {
  std::int64_t n = 0, c = 0, d = 1, h = 0, w = 0, k = 0, t = 1, r = 0, s = 0;
  std::int64_t pad_d = 0, pad_h = 0, pad_w = 0, stride_d = 1, stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1;
  std::int64_t groups = 1;
  bool nhwc = false;
  // Sizes as run: int8 pads c, h and w to multiples of 4 (DeepBench).
  std::int64_t run_c = 0, run_h = 0, run_w = 0;
  // Output depth, height and width of the problem as run: (in + 2 pad - dil (filter - 1) - 1) / stride + 1.
  std::int64_t o = 1, p = 0, q = 0;
  bool is_padded() const { return run_c != c || run_h != h || run_w != w; }
  std::int64_t elements_x() const { return n * run_c * d * run_h * run_w; }
  std::int64_t elements_filter() const { return k * (run_c / groups) * t * r * s; }
  std::int64_t elements_y() const { return n * k * o * p * q; }
};

ConvProblem conv_problem(const Case& c);
// flops = 2 N K O P Q (C/groups) T R S on the table's problem, per direction (DeepBench); bytes: fwd reads x and the
// filters and writes y, bwd_data reads dy and the filters and writes dx, bwd_filter reads x and dy and writes dw.
Work conv_work(const Case& c);

// ---- rnn: T steps of a (stacked, optionally bidirectional) recurrent layer on N sequences, through cuDNN ----
Schema rnn_schema();

struct RnnProblem {
  std::string cell;  // rnn_relu, rnn_tanh, lstm, gru
  std::int64_t hidden = 0, batch = 0, steps = 0, input = 0, layers = 1;
  bool bidirectional = false;
  bool skip_input = true;
  int gates() const;  // 1, 4 (LSTM), 3 (GRU)
  int directions() const { return bidirectional ? 2 : 1; }
  std::int64_t layer_input(std::int64_t layer) const;  // the first layer's input size, then hidden x directions
  std::int64_t weights() const;                         // parameters, all layers and directions
};

RnnProblem rnn_problem(const Case& c);
// flops per DeepBench (vanilla 2TNH^2 + TNH, LSTM 8TNH^2, GRU 6TNH^2 per direction and layer, plus 2TNHI per gate
// where the input is projected), the same for every direction; bytes: input sequence and weights read, output
// sequence written.
Work rnn_work(const Case& c);

// ---- spmm: sparse A (m x k, CSR, random pattern) times dense B (k x n), through cuSPARSE ----
Schema spmm_schema();

struct SpmmProblem {
  std::int64_t m = 0, n = 0, k = 0;
  double sparsity = 0;
  std::string format;            // csr or bell (Blocked-ELL)
  std::int64_t block = 0;        // bell: the block edge (ell_block_size); 0 for csr or where no block size fits
  std::int64_t nnz_per_row = 0;  // round(k (1 - sparsity)), at least 1, every row the same; bell: whole blocks
  std::int64_t nnz() const { return m * nnz_per_row; }
};

SpmmProblem spmm_problem(const Case& c);
// Blocked-ELL's block edge for an m x k matrix: the largest of 32, 16, 8, 4, 2 dividing both; 0 if none does.
std::int64_t ell_block_size(std::int64_t m, std::int64_t k);
// A CSR pattern of an m x k matrix with `per_row` distinct, sorted columns in every row, from `seed` alone.
void random_csr_pattern(std::int64_t m, std::int64_t k, std::int64_t per_row, std::uint64_t seed,
                        std::vector<std::int32_t>* offsets, std::vector<std::int32_t>* columns);
// flops = 2 nnz n (useful work, DeepBench's convention); bytes: A in CSR (values, int32 column indices and row
// offsets), B read once, C written once.
Work spmm_work(const Case& c);

// ---- allreduce: NCCL all-reduce of count elements over ranks GPUs ----
Schema allreduce_schema();

struct AllreduceProblem {
  std::int64_t count = 0, ranks = 1;
  std::string op;
  bool inplace = false;
};

AllreduceProblem allreduce_problem(const Case& c);
// nccl-tests' bus bandwidth factor: busbw = algbw x 2 (ranks - 1) / ranks (0 for one rank).
double busbw_factor(std::int64_t ranks);
// No FLOPs; bytes: the per-rank size (count x element size), so gb_per_s is nccl-tests' algbw.
Work allreduce_work(const Case& c);

// ---- batchnorm: per-channel normalisation of N x C x H x W (NCHW or NHWC), inference or training forward ----
Schema batchnorm_schema();

struct BatchnormProblem {
  std::int64_t n = 0, c = 0, h = 0, w = 0;
  bool train = false;
  bool nhwc = false;  // layout=NHWC
  std::string impl;
  std::int64_t elements() const { return n * c * h * w; }
  // The tensor as images x channels x pixels per plane, the NCHW view the kernels and the reference index (an
  // element's channel is (i / pixels) % channels): an NHWC tensor is N*H*W images of one pixel.
  struct Planes {
    std::int64_t images, channels, pixels;
  };
  Planes planes() const { return nhwc ? Planes{n * h * w, c, 1} : Planes{n, c, h * w}; }
};

BatchnormProblem batchnorm_problem(const Case& c);
// No FLOPs; bytes: x read and y written once, the fp32 per-channel parameters (and training's saved statistics).
Work batchnorm_work(const Case& c);

// ---- pool: 2D max or average pooling of N x C x H x W (NCHW or NHWC) ----
Schema pool_schema();

struct PoolProblem {
  std::int64_t n = 0, c = 0, h = 0, w = 0, r = 0, s = 0, pad_h = 0, pad_w = 0, stride_h = 1, stride_w = 1;
  bool max = true;
  bool nhwc = false;  // layout=NHWC: input and output stored N x H x W x C
  std::string impl;
  std::int64_t p = 0, q = 0;  // output height and width: (in + 2 pad - window) / stride + 1
};

PoolProblem pool_problem(const Case& c);
// No FLOPs; bytes: the input read once, the output written once.
Work pool_work(const Case& c);

// ---- attention: fused scaled-dot-product attention, O = softmax(Q K^T / sqrt(d)) V, GQA/MQA ----
Schema attention_schema();

struct AttentionProblem {
  std::int64_t batch = 0, heads_q = 0, heads_kv = 0, seq_q = 0, seq_kv = 0, head_dim = 0;
  bool causal = false;
  bool bshd = true;  // memory order batch, token, head, feature (else batch, head, token, feature)
  // Element strides of a [batch, heads, tokens, head_dim] tensor in the case's layout.
  std::vector<std::int64_t> strides(std::int64_t heads, std::int64_t tokens) const {
    if (bshd) return {tokens * heads * head_dim, head_dim, heads * head_dim, 1};
    return {heads * tokens * head_dim, tokens * head_dim, head_dim, 1};
  }
  std::int64_t elements_q() const { return batch * heads_q * seq_q * head_dim; }
  std::int64_t elements_kv() const { return batch * heads_kv * seq_kv * head_dim; }
};

AttentionProblem attention_problem(const Case& c);
double attention_pairs(const AttentionProblem& p);
// FLOPs 4 x batch x heads_q x head_dim x pairs (causal: the unmasked pairs), backward 2.5x that; bytes Q, K, V
// read and O written once (backward: Q, K, V, O, dO and the statistics read, dQ, dK, dV written).
Work attention_work(const Case& c);

// ---- pointwise: element-wise ops on rows x cols elements, through our kernels or cuDNN ----
Schema pointwise_schema();

// The problem of the memory-bound families (pointwise, reduce): an op on a rows x cols tensor, through opmark's
// kernel or the library's (impl).
struct TensorOpProblem {
  std::string op, impl;
  std::int64_t rows = 0, cols = 0;
  std::int64_t elements() const { return rows * cols; }
};
TensorOpProblem tensor_op_problem(const Case& c);
using PointwiseProblem = TensorOpProblem;

const std::vector<std::string>& pointwise_ops();
int pointwise_inputs(const std::string& op);      // tensors of rows x cols read: add and mul 2, the rest 1
bool pointwise_has_bias(const std::string& op);   // bias_*: a cols vector broadcast over the rows
bool pointwise_has_mask(const std::string& op);   // masked_fill: a rows x cols uint8 mask
bool pointwise_has_cudnn(const std::string& op);  // a cuDNN call computes the same op
// No FLOPs (memory bound); bytes: each input read once, the bias once, the mask (1 byte an element) once, the
// output written once.
Work pointwise_work(const Case& c);

// ---- reduce: reductions over the last dimension, softmax and layer norm over rows, through our kernels or cuDNN ----
Schema reduce_schema();

using ReduceProblem = TensorOpProblem;
// Elements written: rows (sum, mean, max), 1 (sum_all), rows x cols (softmax, log_softmax, layernorm, rmsnorm),
// 2 rows x cols (add_layernorm, add_rmsnorm: the normalised rows and the sum x + residual).
std::int64_t reduce_outputs(const ReduceProblem& p);

const std::vector<std::string>& reduce_ops();
bool reduce_has_cudnn(const std::string& op);
int reduce_inputs(const std::string& op);   // rows x cols tensors read: 2 for add_*, else 1
int reduce_weights(const std::string& op);  // cols vectors read: layer norms 2 (gamma, beta), RMSNorms 1, else 0
// No FLOPs (memory bound); bytes: the inputs and weights read once, the outputs written once:
// (inputs x rows x cols + weights x cols) x elt read, outputs x elt written.
Work reduce_work(const Case& c);

// ---- gather: an embedding lookup, y[i, :] = table[idx[i], :] for rows int64 indices into table_rows x cols ----
Schema gather_schema();

struct GatherProblem {
  std::int64_t rows = 0, cols = 0, table_rows = 0;
};

GatherProblem gather_problem(const Case& c);
// No FLOPs; bytes: rows x cols x elt read (the rows looked up) + rows x cols x elt written + rows x 8 (the indices);
// bytes_reread: the lookups beyond the table's rows, rows read again.
Work gather_work(const Case& c);

// ---- permute: an out-of-place copy of a row-major d0 x d1 x d2 x d3 tensor into the layout x.permute(perm) ----
Schema permute_schema();

struct PermuteProblem {
  std::int64_t d[4] = {0, 0, 0, 0};
  std::string perm;  // "0213": output dimension i is input dimension perm[i]
  std::int64_t elements() const { return d[0] * d[1] * d[2] * d[3]; }
};

// Every permutation offered swaps two adjacent runs of dimensions: out[b][j][i][k] = in[b][i][j][k] with
// in viewed as batch x a x b_dim x inner. inner == 1: the innermost dimension moves (a tiled transpose).
struct PermuteView {
  std::int64_t batch = 1, a = 1, b = 1, inner = 1;
  bool moves_innermost() const { return inner == 1; }
};

const std::vector<std::string>& permute_perms();
PermuteProblem permute_problem(const Case& c);
PermuteView permute_view(const PermuteProblem& p);

// How opmark's permute kernel (kernels/permute.cu) can walk a view: the tuner's candidates.
enum class PermutePath {
  tiles,   // (inner == 1) 32 x 32 shared-memory tiles, reads and writes along rows
  rows,    // a thread per output unit: a run of `inner` elements (16-byte vectors where it allows), or with inner == 1
           // one element, its source found by dividing the output index (PyTorch's copy works so)
  planes,  // whole a x b x inner planes staged in shared memory, many to a block: the block reads and writes one
           // contiguous span, so tiny moved dimensions copy at full width
  runs,    // (inner > 1) a warp per run of `inner` elements (or per kPermuteRunPieceBytes of a longer one), its source
           // found once, the widest units it allows
  copy,    // (a or b is 1: the permutation leaves the memory order as it is) one cudaMemcpyAsync, as PyTorch's copy_
  tiled_runs,  // (short runs) side x side tiles of runs staged in shared memory: a tile's rows are read and written
               // as contiguous spans of side runs, where a thread or a warp a run meets each run alone
  wide_tiles,  // (inner == 1, both moved dimensions over 32) 64 x 64 tiles: four times the loads in flight of tiles
  strips,      // (inner == 1, a moved dimension of 2 to kPermuteStripsMaxShort) strips of the short dimension's rows
               // staged in shared memory, read and written as contiguous spans or whole rows
  copy_kernel,  // (a or b is 1) opmark's 16-byte vector copy, where cudaMemcpyAsync falls short of the copy ceiling
  pair_tiles,  // (inner == 1, 2-byte elements, both moved dimensions over 32) 64 x 64 tiles read and written in 4-byte
               // pairs of elements, as fp32's tiles are; a row that starts at an odd element is realigned by shuffles
  rows_one_unit,  // (inner > 1, under kPermuteRowsOneUnitMaxBytes) rows with one unit in flight a thread: four times
                  // the blocks, so a small tensor reaches more multiprocessors and a grid's last wave is shorter
  word_tiles,  // (inner == 1, 2-byte elements, both moved dimensions over 32, any sides) 128 x 128 tiles read and
               // written as aligned 4-byte words wherever a row starts: 256-byte segments, as fp32's 64 x 64 tiles
  pair_rows,   // (inner == 1, 2-byte elements, both moved dimensions over 1) a thread per output word, its two
               // elements' sources from one division: half the element path's instructions an element
  short_rows,  // (inner == 1, b of 2 to kPermuteShortRowsMaxB) a thread per input row of b elements, held in registers
               // and written to b output rows: a warp's stores are whole spans, its loads one contiguous span
  run_tiles,   // (runs of 4, 8 or 16 bytes, a and b over 1) 32 x 32 tiles whose elements are whole runs: one load and
               // one store a run, where tiled_runs divides twice a unit
  short_columns,  // (inner == 1, a of 2 to kPermuteShortColumnsMaxA) a warp per 32 output rows of a elements: a column
                  // load per input row, staged in shared memory in output order, stored as one contiguous span
  tiles_along_a,  // (inner == 1, both moved dimensions over 64) the 32 x 32 tiles, the grid walking a's tiles first:
                  // the blocks resident together write adjacent pieces of the same output rows
  vector_rows,  // (runs of over kPermuteVectorRowsMinBytes, no whole number of 16-byte vectors) a thread per 16-byte
                // output vector: its 16 source bytes, if one run's, joined from the two aligned vectors they straddle
  pair_tiles_deep,  // (as pair_tiles) the same tiles with 128 threads, 16 pairs in flight each and ten blocks a
                     // multiprocessor: more of the tile's loads in flight at once
};
constexpr std::int64_t kPermuteShortRowsMaxB = 64;
constexpr std::int64_t kPermuteShortColumnsMaxA = 32;
constexpr std::int64_t kPermuteRowsOneUnitMaxBytes = std::int64_t{256} << 20;
constexpr std::int64_t kPermuteStripsMaxShort = 32;
// The side of tiled_runs' tiles for runs of run_bytes: 32, 16 or 8 runs, so a tile holds at most 16 KiB; 0 where
// runs of more than kPermuteTiledRunsMaxBytes take no tiles.
constexpr std::int64_t kPermuteTiledRunsMaxBytes = 256;
int permute_tile_side(std::int64_t run_bytes);
// Planes of at most this many bytes take the planes path; a block stages kPermuteSpanBytes of them at once.
constexpr std::int64_t kPermutePlaneMaxBytes = 8 * 1024;
constexpr std::int64_t kPermuteSpanBytes = 16 * 1024;
// Runs of at least this many elements take the runs path (shorter ones leave most of a warp idle).
constexpr std::int64_t kPermuteRunsMinInner = 8;
// Runs of more than this many bytes (and no whole number of vectors) take the vector rows path: shorter ones end
// inside most output vectors, which are then moved element by element.
constexpr std::int64_t kPermuteVectorRowsMinBytes = 32;
// The runs path gives a warp at most this many bytes of a run: longer runs are split among warps.
constexpr std::int64_t kPermuteRunPieceBytes = 8 * 1024;
// The paths that can run the view (elements of elem_bytes), the heuristic's choice first (tiles where the innermost
// dimension moves, else rows): the first is what opmark ran before its paths were tuned. A view that moves nothing
// lists the plain copy last, the call PyTorch's copy_ makes for it.
std::vector<PermutePath> permute_paths(const PermuteView& v, std::int64_t elem_bytes);
// "path: rows of d3 moved whole", "path: 32 x 32 shared-memory tiles", ...: how the path walks the view.
std::string permute_path_name(PermutePath path, const PermuteView& v);
// The heuristic's path's name (permute_paths' first).
std::string permute_path(const PermuteView& v);
// No FLOPs; bytes: 2 x numel x elt (the input read once, the output written once).
Work permute_work(const Case& c);

// Dispatch by c.family (core/schemas.cpp).
Work family_work(const Case& c);

}  // namespace opmark::core
