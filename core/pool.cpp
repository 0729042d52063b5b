#include "core/families.h"
#include "core/precision.h"

namespace opmark::core {
namespace {

std::string check_pool(const Case& c) {
  const PoolProblem p = pool_problem(c);
  if (p.p < 1 || p.q < 1) return "the output is empty: the window is larger than the padded input";
  if (p.pad_h >= p.r || p.pad_w >= p.s) return "padding must be smaller than the window (as cuDNN and PyTorch require)";
  if (p.nhwc && p.impl == "opmark")
    return "layout=NHWC runs through cuDNN only (impl=cudnn): opmark's pooling kernel reads NCHW";
  return first_problem({check_tensor_size("the input", "n x c x h x w", {p.n, p.c, p.h, p.w}),
                        check_tensor_size("the output", "n x c x p x q", {p.n, p.c, p.p, p.q})});
}

}  // namespace

Schema pool_schema() {
  Schema s;
  s.family = "pool";
  s.help = "2D max or average pooling of an N x C x H x W tensor (NCHW, or NHWC through cuDNN); memory bound";
  s.fields = {
      {"n", FieldKind::positive_int, std::nullopt, {}, "batch", ""},
      {"c", FieldKind::positive_int, std::nullopt, {}, "channels", ""},
      {"h", FieldKind::positive_int, std::nullopt, {}, "input height", ""},
      {"w", FieldKind::positive_int, std::nullopt, {}, "input width", ""},
      {"r", FieldKind::positive_int, std::nullopt, {}, "window height", ""},
      {"s", FieldKind::positive_int, std::nullopt, {}, "window width", ""},
      window_step_field("pad_h", FieldKind::count, 0, "zero padding in height, each side"),
      window_step_field("pad_w", FieldKind::count, 0, "zero padding in width, each side"),
      window_step_field("stride_h", FieldKind::positive_int, 1, "stride in height"),
      window_step_field("stride_w", FieldKind::positive_int, 1, "stride in width"),
      {"mode", FieldKind::choice, FieldValue{std::string("max")}, {"max", "avg"},
       "max, or average counting the padding (PyTorch's default)", ""},
      {"impl", FieldKind::choice, FieldValue{std::string("opmark")}, {"opmark", "cudnn"},
       "opmark's kernel, or cudnnPoolingForward", ""},
      added_later(layout_field()),
  };
  s.directions = {"fwd"};
  s.precisions = {"fp32", "fp16", "bf16"};
  s.check = &check_pool;
  return s;
}

PoolProblem pool_problem(const Case& c) {
  PoolProblem p;
  p.n = c.int_field("n");
  p.c = c.int_field("c");
  p.h = c.int_field("h");
  p.w = c.int_field("w");
  p.r = c.int_field("r");
  p.s = c.int_field("s");
  p.pad_h = c.int_field("pad_h");
  p.pad_w = c.int_field("pad_w");
  p.stride_h = c.int_field("stride_h");
  p.stride_w = c.int_field("stride_w");
  p.max = c.str_field("mode") == "max";
  p.impl = c.str_field("impl");
  p.nhwc = c.str_field("layout") == "NHWC";
  // Inside int64 for every valid field (sizes at most kMaxDimension, padding at most kMaxPadStrideDilation).
  const std::int64_t span_h = p.h + 2 * p.pad_h - p.r, span_w = p.w + 2 * p.pad_w - p.s;
  p.p = span_h < 0 ? 0 : span_h / p.stride_h + 1;
  p.q = span_w < 0 ? 0 : span_w / p.stride_w + 1;
  return p;
}

// No FLOPs; bytes: the input read once, the output written once.
Work pool_work(const Case& c) {
  const PoolProblem p = pool_problem(c);
  const double elem = static_cast<double>(size_of(precision_info(c.precision).input));
  Work w;
  w.flops = 0;
  const double planes = static_cast<double>(p.n) * static_cast<double>(p.c);  // in doubles: nothing to overflow
  w.bytes_read = planes * static_cast<double>(p.h) * static_cast<double>(p.w) * elem;
  w.bytes_written = planes * static_cast<double>(p.p) * static_cast<double>(p.q) * elem;
  return w;
}

}  // namespace opmark::core
