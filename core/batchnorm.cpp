#include "core/families.h"
#include "core/precision.h"

namespace opmark::core {
namespace {

// The tensor must be a size a GPU could hold; this also keeps BatchnormProblem::elements() inside int64.
// opmark's NHWC path is the inference normalisation alone (an element's channel is its index mod C); training's
// statistics kernels read NCHW planes, so NHWC training is cuDNN's.
std::string check_batchnorm(const Case& c) {
  const BatchnormProblem p = batchnorm_problem(c);
  if (p.nhwc && p.train && p.impl == "opmark")
    return "mode=train with layout=NHWC runs through cuDNN only (impl=cudnn): opmark's training kernels read NCHW";
  return check_tensor_size("the tensor", "n x c x h x w", {p.n, p.c, p.h, p.w});
}

}  // namespace

Schema batchnorm_schema() {
  Schema s;
  s.family = "batchnorm";
  s.help = "batch normalisation of an N x C x H x W tensor (NCHW or NHWC) per channel: inference (running "
           "statistics) or the training forward (batch statistics, saved for backward); memory bound";
  s.fields = {
      {"n", FieldKind::positive_int, std::nullopt, {}, "batch", ""},
      {"c", FieldKind::positive_int, std::nullopt, {}, "channels", ""},
      {"h", FieldKind::positive_int, std::nullopt, {}, "height", ""},
      {"w", FieldKind::positive_int, std::nullopt, {}, "width", ""},
      {"mode", FieldKind::choice, FieldValue{std::string("inference")}, {"inference", "train"},
       "inference: running mean and variance; train: the batch's, computed and saved", ""},
      {"impl", FieldKind::choice, FieldValue{std::string("opmark")}, {"opmark", "cudnn"},
       "opmark's kernels, or cuDNN's batch normalisation", ""},
      added_later(layout_field()),
  };
  s.directions = {"fwd"};
  s.precisions = {"fp32", "fp16", "bf16"};
  s.check = &check_batchnorm;
  return s;
}

BatchnormProblem batchnorm_problem(const Case& c) {
  BatchnormProblem p;
  p.n = c.int_field("n");
  p.c = c.int_field("c");
  p.h = c.int_field("h");
  p.w = c.int_field("w");
  p.train = c.str_field("mode") == "train";
  p.impl = c.str_field("impl");
  p.nhwc = c.str_field("layout") == "NHWC";
  return p;
}

// No FLOPs. Bytes: x read once and y written once, the per-channel parameters (fp32) read: scale and bias, and
// for inference the running mean and variance; training writes the batch mean and inverse deviation instead.
Work batchnorm_work(const Case& c) {
  const BatchnormProblem p = batchnorm_problem(c);
  const double elem = static_cast<double>(size_of(precision_info(c.precision).input));
  // In doubles: nothing to overflow.
  const double elements = static_cast<double>(p.n) * static_cast<double>(p.c) * static_cast<double>(p.h) *
                          static_cast<double>(p.w);
  const double x = elements * elem, channel = static_cast<double>(p.c) * 4.0;
  Work w;
  w.flops = 0;
  w.bytes_read = x + (p.train ? 2.0 : 4.0) * channel;
  w.bytes_written = x + (p.train ? 2.0 * channel : 0.0);
  return w;
}

}  // namespace opmark::core
