#include "core/families.h"
#include "core/precision.h"

namespace opmark::core {
namespace {

FieldSpec positive(const char* name, const char* help) { return {name, FieldKind::positive_int, std::nullopt, {}, help, ""}; }

// The tensors as run must be sizes a GPU could hold; this also keeps ConvProblem's element counts inside int64.
std::string check_conv_sizes(const ConvProblem& p) {
  return first_problem({check_tensor_size("the input x", "n x c x d x h x w", {p.n, p.run_c, p.d, p.run_h, p.run_w}),
                        check_tensor_size("the filters", "k x c/groups x t x r x s",
                                          {p.k, p.run_c / p.groups, p.t, p.r, p.s}),
                        check_tensor_size("the output y", "n x k x o x p x q", {p.n, p.k, p.o, p.p, p.q})});
}

std::string check_conv(const Case& c) {
  const ConvProblem p = conv_problem(c);
  if (p.c % p.groups != 0 || p.k % p.groups != 0)
    return "groups=" + std::to_string(p.groups) + " must divide c=" + std::to_string(p.c) + " and k=" +
           std::to_string(p.k);
  if (p.o < 1 || p.p < 1 || p.q < 1)
    return "the output is empty (" + std::to_string(p.o) + "x" + std::to_string(p.p) + "x" + std::to_string(p.q) +
           "): the filter is larger than the padded input";
  if (c.precision == "int8" && c.direction != "fwd") return "int8 runs forward only (inference), as in DeepBench";
  return check_conv_sizes(p);
}

}  // namespace

Schema conv_schema() {
  Schema s;
  s.family = "conv";
  s.help = "2D and 3D convolution through cuDNN: input n x c x (d x) h x w, k filters of c/groups x (t x) r x s";
  s.fields = {
      positive("n", "batch"),
      positive("c", "input channels"),
      field_with_default("d", FieldKind::positive_int, 1, "input depth (3D); 1 for 2D"),
      positive("h", "input height"),
      positive("w", "input width"),
      positive("k", "output channels (filters)"),
      field_with_default("t", FieldKind::positive_int, 1, "filter depth (3D); 1 for 2D"),
      positive("r", "filter height"),
      positive("s", "filter width"),
      window_step_field("pad_d", FieldKind::count, 0, "zero padding in depth, each side"),
      window_step_field("pad_h", FieldKind::count, 0, "zero padding in height, each side"),
      window_step_field("pad_w", FieldKind::count, 0, "zero padding in width, each side"),
      window_step_field("stride_d", FieldKind::positive_int, 1, "stride in depth"),
      window_step_field("stride_h", FieldKind::positive_int, 1, "stride in height"),
      window_step_field("stride_w", FieldKind::positive_int, 1, "stride in width"),
      window_step_field("dil_h", FieldKind::positive_int, 1, "dilation in height"),
      window_step_field("dil_w", FieldKind::positive_int, 1, "dilation in width"),
      field_with_default("groups", FieldKind::positive_int, 1, "grouped convolution; groups = c is depthwise"),
      layout_field(),
  };
  s.directions = {"fwd", "bwd_data", "bwd_filter"};
  s.precisions = {"fp32", "tf32", "fp16", "bf16", "int8"};
  s.check = &check_conv;
  return s;
}

// Inside int64 for every valid field: in and filter are at most kMaxDimension (+3 of int8 padding), pad and dil
// at most kMaxPadStrideDilation.
static std::int64_t out_size(std::int64_t in, std::int64_t pad, std::int64_t filter, std::int64_t dil,
                             std::int64_t stride) {
  const std::int64_t span = in + 2 * pad - dil * (filter - 1) - 1;
  return span < 0 ? 0 : span / stride + 1;
}

ConvProblem conv_problem(const Case& c) {
  ConvProblem p;
  p.n = c.int_field("n");
  p.c = c.int_field("c");
  p.d = c.int_field("d");
  p.h = c.int_field("h");
  p.w = c.int_field("w");
  p.k = c.int_field("k");
  p.t = c.int_field("t");
  p.r = c.int_field("r");
  p.s = c.int_field("s");
  p.pad_d = c.int_field("pad_d");
  p.pad_h = c.int_field("pad_h");
  p.pad_w = c.int_field("pad_w");
  p.stride_d = c.int_field("stride_d");
  p.stride_h = c.int_field("stride_h");
  p.stride_w = c.int_field("stride_w");
  p.dil_h = c.int_field("dil_h");
  p.dil_w = c.int_field("dil_w");
  p.groups = c.int_field("groups");
  p.nhwc = c.str_field("layout") == "NHWC";
  // DeepBench pads int8 channels and spatial sizes to multiples of 4.
  const int pad = c.precision == "int8" ? precision_info(c.precision).pad_multiple : 1;
  p.run_c = round_up(p.c, pad);
  p.run_h = round_up(p.h, pad);
  p.run_w = round_up(p.w, pad);
  p.o = out_size(p.d, p.pad_d, p.t, 1, p.stride_d);
  p.p = out_size(p.run_h, p.pad_h, p.r, p.dil_h, p.stride_h);
  p.q = out_size(p.run_w, p.pad_w, p.s, p.dil_w, p.stride_w);
  return p;
}

Work conv_work(const Case& c) {
  const ConvProblem p = conv_problem(c);
  const PrecisionInfo& prec = precision_info(c.precision);
  const double in_size = static_cast<double>(size_of(prec.input));
  const double out_size_bytes = static_cast<double>(size_of(c.direction == "fwd" ? prec.output : prec.input));
  // FLOPs on the table's problem, as DeepBench counts them (2 N K P Q C R S), the same for every direction, in
  // doubles: no integer product to overflow.
  const double useful_p = static_cast<double>(out_size(p.h, p.pad_h, p.r, p.dil_h, p.stride_h));
  const double useful_q = static_cast<double>(out_size(p.w, p.pad_w, p.s, p.dil_w, p.stride_w));
  const double filter_volume = static_cast<double>(p.c / p.groups) * static_cast<double>(p.t) *
                               static_cast<double>(p.r) * static_cast<double>(p.s);
  Work w;
  w.flops = 2.0 * static_cast<double>(p.n) * static_cast<double>(p.k) * static_cast<double>(p.o) * useful_p * useful_q *
            filter_volume;
  // Element counts: check_conv bounds each tensor, so these products are exact in int64.
  const double x = static_cast<double>(p.elements_x()) * in_size;
  const double f = static_cast<double>(p.elements_filter()) * in_size;
  const double y = static_cast<double>(p.elements_y()) * out_size_bytes;
  if (c.direction == "fwd") {
    w.bytes_read = x + f;
    w.bytes_written = y;
  } else if (c.direction == "bwd_data") {
    w.bytes_read = y + f;
    w.bytes_written = x;
  } else {
    w.bytes_read = x + y;
    w.bytes_written = f;
  }
  return w;
}

}  // namespace opmark::core
