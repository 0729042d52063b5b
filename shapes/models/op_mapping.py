"""Operator call -> opmark case: the mapping extract_models.py applies to every traced call, without torch.

A call is its operator's name (aten's, without the namespace), its arguments and its output, each tensor described
by a TensorInfo (shape, strides, dtype). extract_models.py turns torch's tensors into TensorInfo as it records; the
tests (test/models/op_mapping_test.py) build them from recorded traces committed under test/data/traces/. So the
mapping, the RMSNorm pattern, the attention call's mask and layout, the permute analysis, the kernel attribution of
a profiler trace and the coverage arithmetic all run and are tested on a machine without PyTorch.

Families and their ops (the names opmark's families use):
  conv, gemm, batchnorm (a 2-D input is h = w = 1), pool, rnn as before; a 4-D conv, batch norm or pooling input
                stored channels last (or any in a channels_last model) gets layout: NHWC, and an NHWC pooling or
                training batch norm impl: cudnn (opmark's kernels there read NCHW);
  attention     scaled_dot_product_attention (any of its fused back ends): batch, heads_q, heads_kv, seq_q, seq_kv,
                head_dim, mask (none|causal), layout (bshd|bhsd: the storage order of q/k/v), direction fwd|bwd;
  reduce        softmax, log_softmax, layernorm, rmsnorm (the decomposed pow-mean-add-rsqrt-mul pattern, or
                rms_norm / _fused_rms_norm: torch's fused kernel), mean, sum, max over trailing dimensions: rows, cols;
  pointwise     relu, gelu, silu, sigmoid, tanh; add, mul (two full-size operands; sub and div, minimum and
                maximum count as add and mul: the same bytes); bias_add (a row broadcast); scale (one full-size
                operand: x * s, x / s, x + s, x ** s, a 0-dim tensor operand, a small broadcast operand, and the
                one-input math functions such as rsqrt, neg, exp, cos); comparisons count as add; masked_fill
                (masked_fill, where, triu, tril); copy (dtype casts, copies of dense tensors, cat, stack, padding:
                rows x cols of the output);
  gather        embedding, embedding_bag, index_select, index on leading dimensions: rows (indices), cols (row
                width), table_rows;
  permute       clone / copy_ / _to_copy of a permuted view (HF's transpose(1, 2).contiguous()): d0..d3 of the
                contiguous source, perm as 4 digits; a 2-D or 3-D permute is padded with leading 1s.
Clamping activations (hardtanh = ReLU6, leaky_relu, clamp) count as relu: one read, one write, no transcendental.
Anything else is family other with its operator name. Pure view operators launch nothing and are left out.
"""
import math

# Operators that only change a tensor's metadata (or allocate): no kernel runs.
VIEW_OPS = {
    "empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided",
    "view", "_unsafe_view", "reshape", "t", "transpose", "permute", "expand", "unsqueeze", "squeeze", "select",
    "slice", "as_strided", "detach", "alias", "split", "split_with_sizes", "chunk", "unbind", "narrow", "lift_fresh",
    "_reshape_alias", "unfold", "view_as", "expand_as", "numpy_T", "lift", "_to_copy_meta", "diagonal",
    "_neg_view", "_conj", "resolve_conj", "resolve_neg", "view_as_real", "view_as_complex", "sym_size",
    "sym_stride", "sym_numel", "_nested_tensor_from_mask_left_aligned", "is_same_size", "set_",
}

ACTIVATIONS = {"relu": "relu", "relu_": "relu", "gelu": "gelu", "gelu_": "gelu", "silu": "silu", "silu_": "silu",
               "sigmoid": "sigmoid", "sigmoid_": "sigmoid", "tanh": "tanh", "tanh_": "tanh",
               # clamps: one read, one write, a compare (ReLU6 is hardtanh(0, 6))
               "hardtanh": "relu", "hardtanh_": "relu", "leaky_relu": "relu", "leaky_relu_": "relu",
               "clamp": "relu", "clamp_": "relu", "clamp_min": "relu", "clamp_min_": "relu", "clamp_max": "relu",
               "clamp_max_": "relu", "threshold": "relu"}

# Two-operand element-wise ops -> the pointwise op with the same bytes when both operands are full size.
BINARY = {"add": "add", "add_": "add", "sub": "add", "sub_": "add", "rsub": "add", "minimum": "add",
          "maximum": "add", "mul": "mul", "mul_": "mul", "div": "mul", "div_": "mul", "pow": "mul", "pow_": "mul",
          # comparisons and logic: two operands in, one (narrower) out
          "eq": "add", "ne": "add", "lt": "add", "le": "add", "gt": "add", "ge": "add", "logical_and": "add",
          "logical_or": "add", "bitwise_and": "add", "bitwise_or": "add", "fmod": "mul", "remainder": "mul",
          "atan2": "mul"}

# One-input element-wise functions: the bytes of x * s.
UNARY = {"neg", "neg_", "rsqrt", "rsqrt_", "sqrt", "sqrt_", "exp", "exp_", "log", "log_", "cos", "cos_", "sin",
         "sin_", "reciprocal", "reciprocal_", "abs", "abs_", "erf", "erf_", "square", "log1p", "expm1", "sign",
         "floor", "ceil", "round", "logical_not", "bitwise_not", "isinf", "isnan", "exp2", "sgn"}

CASTS = {"_to_copy", "to", "clone", "copy", "copy_", "contiguous", "_copy_from", "_copy_from_and_resize"}

ATTENTION_FWD = {"scaled_dot_product_attention", "_scaled_dot_product_flash_attention",
                 "_scaled_dot_product_efficient_attention", "_scaled_dot_product_cudnn_attention",
                 "_scaled_dot_product_flash_attention_for_cpu", "_scaled_dot_product_fused_attention_overrideable"}
ATTENTION_BWD = {"_scaled_dot_product_flash_attention_backward", "_scaled_dot_product_efficient_attention_backward",
                 "_scaled_dot_product_cudnn_attention_backward",
                 "_scaled_dot_product_flash_attention_for_cpu_backward",
                 "_scaled_dot_product_fused_attention_overrideable_backward"}
# Where each signature keeps is_causal and the mask (positional index, keyword), and where q, k, v start.
_ATTENTION_ARGS = {
    "scaled_dot_product_attention": {"qkv": 0, "mask": (3, "attn_mask"), "causal": (5, "is_causal")},
    "_scaled_dot_product_flash_attention": {"qkv": 0, "mask": None, "causal": (4, "is_causal")},
    "_scaled_dot_product_flash_attention_for_cpu": {"qkv": 0, "mask": (5, "attn_mask"), "causal": (4, "is_causal")},
    "_scaled_dot_product_efficient_attention": {"qkv": 0, "mask": (3, "attn_bias"), "causal": (6, "is_causal")},
    "_scaled_dot_product_cudnn_attention": {"qkv": 0, "mask": (3, "attn_bias"), "causal": (6, "is_causal")},
    "_scaled_dot_product_fused_attention_overrideable": {"qkv": 0, "mask": (3, "attn_bias"),
                                                         "causal": (5, "is_causal")},
    "_scaled_dot_product_flash_attention_backward": {"qkv": 1, "mask": None, "causal": (11, "is_causal")},
    "_scaled_dot_product_flash_attention_for_cpu_backward": {"qkv": 1, "mask": (8, "attn_mask"),
                                                             "causal": (7, "is_causal")},
    "_scaled_dot_product_efficient_attention_backward": {"qkv": 1, "mask": (4, "attn_bias"),
                                                         "causal": (11, "is_causal")},
    "_scaled_dot_product_cudnn_attention_backward": {"qkv": 1, "mask": (8, "attn_bias"),
                                                     "causal": (14, "is_causal")},
    "_scaled_dot_product_fused_attention_overrideable_backward": {"qkv": 1, "mask": (4, "attn_bias"),
                                                                  "causal": (13, "is_causal")},
}


class TensorInfo:
    """What the mapping needs of a tensor: its shape, strides and dtype name, and for an attention mask whose
    values the tracer could see, their pattern: "causal", "none" (it masks nothing) or "other"."""

    def __init__(self, shape, stride=None, dtype="float32", mask=None):
        self.shape = tuple(int(s) for s in shape)
        self.strides = tuple(int(s) for s in stride) if stride is not None else contiguous_strides(self.shape)
        self.dtype = dtype
        self.mask = mask  # None where the values are unknown (meta tensors) or the tensor is no mask

    def dim(self):
        return len(self.shape)

    def numel(self):
        return math.prod(self.shape)

    def stride(self):
        return self.strides

    def is_contiguous(self):
        return all(st == want for s, st, want in zip(self.shape, self.strides, contiguous_strides(self.shape))
                   if s != 1)

    def to_json(self):
        d = {"shape": list(self.shape), "stride": list(self.strides), "dtype": self.dtype}
        if self.mask is not None:
            d["mask"] = self.mask
        return d

    @staticmethod
    def from_json(d):
        return TensorInfo(d["shape"], d.get("stride"), d.get("dtype", "float32"), d.get("mask"))

    def __repr__(self):
        return f"T{list(self.shape)}{list(self.strides)}"


def encode(v):
    """A call's argument as JSON (the recorded-trace format of test/data/traces): a tensor is
    {"shape", "stride", "dtype"[, "mask"]}, lists stay lists, anything else not a number or string its text."""
    if is_tensor(v):
        return v.to_json()
    if isinstance(v, (list, tuple)):
        return [encode(x) for x in v]
    if isinstance(v, dict):
        return {k: encode(x) for k, x in v.items()}
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return str(v)


def decode(v):
    if isinstance(v, dict) and "shape" in v:
        return TensorInfo.from_json(v)
    if isinstance(v, list):
        return [decode(x) for x in v]
    if isinstance(v, dict):
        return {k: decode(x) for k, x in v.items()}
    return v


def contiguous_strides(shape):
    out, acc = [], 1
    for s in reversed(shape):
        out.append(acc)
        acc *= max(int(s), 1)
    return tuple(reversed(out))


def is_tensor(x):
    return isinstance(x, TensorInfo)


def is_scalar(x):
    """A Python number, or a 0-dim tensor (a scalar on the device)."""
    return isinstance(x, (int, float, bool)) or (is_tensor(x) and x.dim() == 0)


class Record:
    """One operator call as opmark sees it: family, direction and fields, or family other with the op name.
    `call` is the traced call it came from (its position among the recorded calls of one pass: kernel time is
    attributed per call); `inputs` keeps the call's tensor arguments for the patterns (RMSNorm)."""

    def __init__(self, family, source_op, fields=None, direction="fwd"):
        self.family, self.source_op, self.direction = family, source_op, direction
        self.fields = fields or {}
        self.us = None
        self.call = None
        self.inputs = []
        self.kernels = None  # {kernel name: us} launched inside the call, where the trace was profiled

    def key(self):
        return (self.family, self.source_op, self.direction, tuple(sorted(self.fields.items())))

    def __repr__(self):
        return f"Record({self.family}, {self.source_op}, {self.fields}, {self.direction}, us={self.us})"


def rows_cols(shape):
    cols = shape[-1] if len(shape) else 1
    return (math.prod(shape) // cols if cols else 0), cols


def arg(args, kwargs, index, name, default=None):
    if name in kwargs:
        return kwargs[name]
    return args[index] if index is not None and index < len(args) else default


# ---- gemm, conv, pooling: as opmark's cases take them ----

def gemm_fields(a, b, batch=1):
    """torch computes row-major C (M x N) = A (M x K) B (K x N); opmark's cases are column-major, so the same
    memory is C^T = B^T A^T: m = N, n = M, k = K, and a row-major operand that is really a transposed view (its
    last stride is not 1) flips the flag."""
    M, K = a.shape[-2], a.shape[-1]
    N = b.shape[-1]
    ta = "T" if b.stride()[-1] != 1 else "N"  # opmark's A is torch's B
    tb = "T" if a.stride()[-1] != 1 else "N"
    return {"m": N, "n": M, "k": K, "ta": ta, "tb": tb, "batch": batch}


# Set by the tracer's --channels-last (the one switch: the tracer converts the model and writes the table's
# memory_format by it too): the model's weights are channels last, so torch runs every 2D convolution in NHWC
# (cuDNN's choice follows the input or the weight), whatever strides the shape trace's activations show.
CHANNELS_LAST_MODEL = False


def channels_last(t):
    """Whether a 4-D tensor with more than one channel is stored channels last (torch.channels_last: NHWC)."""
    if t.dim() != 4 or t.shape[1] == 1:
        return False
    n, c, h, w = t.shape
    st = t.stride()
    return h * w > 1 and st[1] == 1 and st[3] == c  # at 1x1 both layouts are the same memory: NCHW, the default


def nhwc_activation(x):
    """Whether batch norm or pooling of the 4-D activation x reads NHWC: in a channels_last model, or where x is
    stored channels last (torch runs its *_channels_last / *_nhwc kernels). With one channel or one pixel both
    layouts are the same memory, and the case keeps NCHW, the default."""
    return x.dim() == 4 and x.shape[1] > 1 and x.shape[2] * x.shape[3] > 1 and \
        (CHANNELS_LAST_MODEL or channels_last(x))


def pool_fields(x, fields):
    """The pool family's fields, with layout: NHWC where x is NHWC; opmark's pooling kernel reads NCHW, so an NHWC
    case runs cuDNN's (impl: cudnn)."""
    if nhwc_activation(x):
        fields.update({"layout": "NHWC", "impl": "cudnn"})
    return fields


def conv_fields(x, w, stride, padding, dilation, transposed, groups):
    """The conv family's fields of a convolution of input x and weight w, or None where the family has no case."""
    if transposed or x.dim() not in (3, 4, 5):
        return None
    if x.dim() == 3:  # 1D: a 2D convolution of height 1
        f = {"n": x.shape[0], "c": x.shape[1], "h": 1, "w": x.shape[2], "k": w.shape[0], "r": 1, "s": w.shape[2],
             "pad_w": padding[0], "stride_w": stride[0], "dil_w": dilation[0]}
    elif x.dim() == 4:
        f = {"n": x.shape[0], "c": x.shape[1], "h": x.shape[2], "w": x.shape[3], "k": w.shape[0],
             "r": w.shape[2], "s": w.shape[3], "pad_h": padding[0], "pad_w": padding[1], "stride_h": stride[0],
             "stride_w": stride[1], "dil_h": dilation[0], "dil_w": dilation[1]}
        if CHANNELS_LAST_MODEL or channels_last(x):
            f["layout"] = "NHWC"  # torch's channels_last: cuDNN runs the NHWC kernels, and so does the case
    else:
        if dilation[0] != 1:
            return None
        f = {"n": x.shape[0], "c": x.shape[1], "d": x.shape[2], "h": x.shape[3], "w": x.shape[4],
             "k": w.shape[0], "t": w.shape[2], "r": w.shape[3], "s": w.shape[4], "pad_d": padding[0],
             "pad_h": padding[1], "pad_w": padding[2], "stride_d": stride[0], "stride_h": stride[1],
             "stride_w": stride[2], "dil_h": dilation[1], "dil_w": dilation[2]}
    f["groups"] = groups
    return f


def ceil_mode_padding(size, kernel, stride, padding):
    """The symmetric padding with which floor mode gives ceil mode's output size (PyTorch's rule: the last window
    starts inside the input or its left padding), None where none up to half the window does: a max pool over the
    same windows plus at most an edge of -inf, the same work."""
    out = -(-(size + 2 * padding - kernel) // stride) + 1
    if (out - 1) * stride >= size + padding:
        out -= 1
    for pad in range(padding, kernel // 2 + 1):
        if (size + 2 * pad - kernel) // stride + 1 == out:
            return pad
    return None


def pool_record(op, source, args):
    x, kernel = args[0], list(args[1])
    stride = list(args[2]) if len(args) > 2 and args[2] else kernel
    padding = list(args[3]) if len(args) > 3 else [0, 0]
    kernel, stride, padding = (v * 2 if len(v) == 1 else v for v in (kernel, stride, padding))
    dilation = list(args[4]) if op != "avg_pool2d" and len(args) > 4 else [1, 1]
    ceil_mode = bool(args[5]) if op != "avg_pool2d" and len(args) > 5 else bool(args[4]) if len(args) > 4 else False
    count_pad = op != "avg_pool2d" or len(args) <= 5 or bool(args[5])
    if ceil_mode and op != "avg_pool2d":  # max: as the padding that gives the same windows
        padding = [ceil_mode_padding(x.shape[2 + i], kernel[i], stride[i], padding[i]) for i in range(2)]
        ceil_mode = None in padding
    if dilation != [1, 1] or ceil_mode or not count_pad:
        return Record("other", source)
    return Record("pool", source, pool_fields(x, {"n": x.shape[0], "c": x.shape[1], "h": x.shape[2], "w": x.shape[3],
                                                  "r": kernel[0], "s": kernel[1], "pad_h": padding[0],
                                                  "pad_w": padding[1], "stride_h": stride[0], "stride_w": stride[1],
                                                  "mode": "avg" if op == "avg_pool2d" else "max"}))


# ---- attention ----

def qkv_layout(t):
    """bhsd when a [B, H, L, D] tensor is stored in that order, bshd when it is a transposed view of [B, L, H, D]
    storage (heads inside the sequence: HF's view(B, L, H, D).transpose(1, 2)); None for a 3-D or odd tensor."""
    if t.dim() != 4:
        return None
    b, h, l, d = t.shape
    sh, sl = t.strides[1], t.strides[2]
    if h == 1 or l == 1:
        return "bhsd"  # either order: the same memory
    return "bshd" if sl > sh else "bhsd"


def mask_kind(mask, is_causal):
    """none | causal | None (a mask of some other pattern, or one whose values the trace could not see)."""
    if is_causal:
        return "causal"
    if mask is None:
        return "none"
    if is_tensor(mask) and mask.mask in ("causal", "none"):
        return mask.mask
    return None


def attention_record(op, args, kwargs):
    spec = _ATTENTION_ARGS[op]
    source = f"aten::{op}"
    q, k, v = args[spec["qkv"]:spec["qkv"] + 3]
    if not all(is_tensor(t) and t.dim() in (3, 4) for t in (q, k, v)):
        return Record("other", source)
    mask = arg(args, kwargs, *spec["mask"]) if spec["mask"] else None
    causal = bool(arg(args, kwargs, *spec["causal"], default=False))
    kind = mask_kind(mask if is_tensor(mask) else None, causal)
    if kind is None:
        return Record("other", source + " (with a mask that is neither none nor causal)")
    q4, k4, v4 = ((t if t.dim() == 4 else TensorInfo((1,) + t.shape, (t.numel(),) + t.strides, t.dtype))
                  for t in (q, k, v))
    votes = [qkv_layout(t) for t in (q4, k4, v4)]
    layout = max(("bshd", "bhsd"), key=votes.count)  # the majority (RoPE's output may follow either operand)
    return Record("attention", source, {
        "batch": q4.shape[0], "heads_q": q4.shape[1], "heads_kv": k4.shape[1], "seq_q": q4.shape[2],
        "seq_kv": k4.shape[2], "head_dim": q4.shape[3], "mask": kind, "layout": layout},
        "bwd" if op in ATTENTION_BWD else "fwd")


# ---- permutes ----

# The orders opmark's permute family runs (core/permute.cpp); others are merged into one of them where they can be.
PERMUTE_ORDERS = ("0213", "0132", "0231", "0312", "1023")


def merge_neighbours(storage, perm):
    """(storage, perm) with output neighbours that are storage neighbours too merged into one dimension: the same
    copy over fewer dimensions (2013 over [a, b, c, d] is 102 over [a*b, c, d])."""
    groups = [[perm[0]]]
    for p in perm[1:]:
        if p == groups[-1][-1] + 1:
            groups[-1].append(p)
        else:
            groups.append([p])
    starts = sorted(g[0] for g in groups)
    renumber = {s: n for n, s in enumerate(starts)}
    return ([math.prod(storage[p] for p in g) for g in sorted(groups, key=lambda g: g[0])],
            [renumber[g[0]] for g in groups])


def padded_order(storage, perm):
    """(d, perm text) over 4 dimensions, leading 1s added; None past 4 dimensions."""
    if len(perm) > 4:
        return None
    pad = 4 - len(perm)
    return [1] * pad + list(storage), "".join(str(x) for x in list(range(pad)) + [x + pad for x in perm])


def permute_of(t):
    """A copy of view t into its own contiguous order, as opmark's permute family takes it: (d, perm) with d the
    4 sizes of the contiguous source and perm its 4-digit order, after dropping size-1 dimensions (and, where the
    order has more than 4 dimensions or is none the family runs, merging those that stay neighbours); "copy" when
    the copy keeps the order; None for a view that is no permutation of a dense tensor (expanded, sliced) or no
    order the family runs."""
    dims = [i for i, s in enumerate(t.shape) if s != 1]
    if not dims:
        return "copy"
    order = sorted(dims, key=lambda i: -t.strides[i])  # storage order, outermost first
    if t.strides[order[-1]] != 1:
        return None
    for a, b in zip(order, order[1:]):
        if t.strides[a] != t.strides[b] * t.shape[b]:
            return None  # gaps or overlaps: not a dense permutation
    storage = [t.shape[i] for i in order]
    perm = [order.index(i) for i in dims]  # output dim i reads storage dim perm[i]
    if perm == sorted(perm):
        return "copy"
    as_is = padded_order(storage, perm)  # 4-D orders the family runs keep their 4 dimensions
    if as_is and as_is[1] in PERMUTE_ORDERS:
        return as_is
    merged_storage, merged_perm = merge_neighbours(storage, perm)
    if merged_perm == sorted(merged_perm):
        return "copy"
    merged = padded_order(merged_storage, merged_perm)
    return merged if merged and merged[1] in PERMUTE_ORDERS else None


def copy_record(source, src, out):
    """A copy of src into out's (contiguous) layout: permute when it reorders dimensions, else copy."""
    target = out if is_tensor(out) else src
    if is_tensor(src) and is_tensor(out) and not src.is_contiguous() and out.is_contiguous():
        p = permute_of(src)
        if isinstance(p, tuple):
            d, perm = p
            return Record("permute", source, {"d0": d[0], "d1": d[1], "d2": d[2], "d3": d[3], "perm": perm})
    rows, cols = rows_cols(target.shape)
    return Record("pointwise", source, {"op": "copy", "rows": rows, "cols": cols})


# ---- the mapping ----

def map_call(op, args, kwargs=None, out=None):
    """The opmark case(s) of one operator call (op: aten's name without the namespace; tensors as TensorInfo):
    a Record, a list of them (a convolution's backward is two cases), or None for a call that launches nothing.
    Each record keeps the call's tensor arguments (Record.inputs) for the patterns."""
    kwargs = kwargs or {}
    rec = _map_call(op, list(args), kwargs, out)
    for r in (rec if isinstance(rec, list) else [rec] if rec is not None else []):
        r.inputs = [a for a in args if is_tensor(a)]
    return rec


def _map_call(op, args, kwargs, out):
    source = f"aten::{op}"
    if op in VIEW_OPS:
        return None
    if isinstance(out, (list, tuple)):
        out = out[0] if out and is_tensor(out[0]) else None
    if op in ATTENTION_FWD or op in ATTENTION_BWD:
        return attention_record(op, args, kwargs)
    if op == "convolution":
        f = conv_fields(args[0], args[1], args[3], args[4], args[5], args[6], args[8])
        return Record("conv", source, f) if f else Record("other", source)
    if op == "convolution_backward":  # (grad_output, input, weight, bias_sizes, stride, padding, dilation,
        #                                transposed, output_padding, groups, output_mask)
        f = conv_fields(args[1], args[2], args[4], args[5], args[6], args[7], args[9])
        if not f:
            return Record("other", source)
        mask = args[10]
        return ([Record("conv", source, dict(f), "bwd_data")] if mask[0] else []) + \
               ([Record("conv", source, dict(f), "bwd_filter")] if mask[1] else [])
    if op in ("mm", "addmm"):
        a, b = (args[0], args[1]) if op == "mm" else (args[1], args[2])
        return Record("gemm", source, gemm_fields(a, b))
    if op in ("bmm", "baddbmm"):
        a, b = (args[0], args[1]) if op == "bmm" else (args[1], args[2])
        return Record("gemm", source, gemm_fields(a, b, a.shape[0]))
    x = args[0] if args else None
    if op in ACTIVATIONS and is_tensor(x):
        rows, cols = rows_cols(x.shape)
        return Record("pointwise", source, {"op": ACTIVATIONS[op], "rows": rows, "cols": cols})
    if op in BINARY and len(args) >= 2:
        return binary_record(op, source, args, out)
    if op in UNARY and is_tensor(x):
        rows, cols = rows_cols((out if is_tensor(out) else x).shape)
        return Record("pointwise", source, {"op": "scale", "rows": rows, "cols": cols})
    if op in ("masked_fill", "masked_fill_", "where", "triu", "tril", "triu_", "tril_") and is_tensor(out):
        rows, cols = rows_cols(out.shape)
        return Record("pointwise", source, {"op": "masked_fill", "rows": rows, "cols": cols})
    if op in ("cat", "stack", "constant_pad_nd", "repeat") and is_tensor(out):
        rows, cols = rows_cols(out.shape)
        return Record("pointwise", source, {"op": "copy", "rows": rows, "cols": cols})
    if op in CASTS and is_tensor(x):
        if op == "copy_":  # copy_(dst, src): src's order into dst's
            return copy_record(source, args[1] if len(args) > 1 and is_tensor(args[1]) else x, x)
        return copy_record(source, x, out)
    if op in ("embedding", "_embedding_bag", "embedding_bag", "_embedding_bag_forward_only"):
        weight, indices = args[0], args[1]  # embedding(weight, indices), _embedding_bag(weight, indices, offsets)
        return Record("gather", source, {"rows": indices.numel(), "cols": weight.shape[-1],
                                         "table_rows": weight.shape[0]})
    if op == "index_select" and is_tensor(x) and args[1] == 0:
        index = args[2]
        return Record("gather", source, {"rows": index.numel(), "cols": math.prod(x.shape[1:]),
                                         "table_rows": x.shape[0]})
    if op == "index" and is_tensor(x) and is_tensor(out):
        indices = list(args[1])
        lead = 0
        while lead < len(indices) and is_tensor(indices[lead]):
            lead += 1
        if lead and lead == len(indices) and indices[0].dtype not in ("bool", "uint8"):
            cols = math.prod(x.shape[lead:])
            return Record("gather", source, {"rows": out.numel() // max(cols, 1), "cols": cols,
                                             "table_rows": math.prod(x.shape[:lead])})
        return Record("other", source)
    if op in ("_softmax", "_log_softmax", "softmax", "log_softmax") and is_tensor(x) and \
            args[1] in (-1, x.dim() - 1):
        rows, cols = rows_cols(x.shape)
        return Record("reduce", source, {"op": "log_softmax" if "log" in op else "softmax", "rows": rows,
                                         "cols": cols})
    if op == "native_layer_norm":
        normalized = args[1]
        cols = math.prod(normalized)
        if args[2] is None or args[3] is None:
            return Record("other", source)
        return Record("reduce", source, {"op": "layernorm", "rows": x.numel() // cols, "cols": cols})
    if op in ("_fused_rms_norm", "rms_norm") and is_tensor(x):
        # rms_norm(input, normalized_shape, weight, eps), as the torch-function mode sees F.rms_norm (weight and eps
        # by keyword) or the dispatcher torch's fused kernel; an int normalized_shape is one trailing dimension
        normalized = arg(args, kwargs, 1, "normalized_shape")
        cols = math.prod(normalized) if isinstance(normalized, (list, tuple)) else int(normalized)
        return Record("reduce", source, {"op": "rmsnorm", "rows": x.numel() // cols, "cols": cols})
    if op in ("native_batch_norm", "_native_batch_norm_legit_no_training", "cudnn_batch_norm",
              "_native_batch_norm_legit") and x.dim() in (2, 3, 4):
        training = op in ("native_batch_norm", "cudnn_batch_norm", "_native_batch_norm_legit") and bool(args[5])
        h, w = (x.shape[2], x.shape[3]) if x.dim() == 4 else (1, x.shape[2]) if x.dim() == 3 else (1, 1)
        f = {"n": x.shape[0], "c": x.shape[1], "h": h, "w": w, "mode": "train" if training else "inference"}
        if nhwc_activation(x):
            f["layout"] = "NHWC"
            if training:
                f["impl"] = "cudnn"  # opmark's NHWC path is the inference normalisation alone
        return Record("batchnorm", source, f)
    if op in ("max_pool2d_with_indices", "max_pool2d", "avg_pool2d") and is_tensor(x) and x.dim() == 4:
        return pool_record(op, source, args)
    if op in ("mean", "sum", "amax", "max", "amin") and is_tensor(x):
        return reduction_record(op, source, args, kwargs, out)
    if op in ("adaptive_avg_pool2d", "_adaptive_avg_pool2d") and is_tensor(out) and x.dim() == 4:
        if tuple(out.shape[-2:]) == (1, 1):
            return Record("reduce", source, {"op": "mean", "rows": x.shape[0] * x.shape[1],
                                             "cols": x.shape[2] * x.shape[3]})
        if tuple(out.shape[-2:]) == tuple(x.shape[-2:]):  # VGG's 7x7 -> 7x7: a copy
            rows, cols = rows_cols(out.shape)
            return Record("pointwise", source, {"op": "copy", "rows": rows, "cols": cols})
        kh, kw = x.shape[2] // out.shape[2], x.shape[3] // out.shape[3]
        if kh * out.shape[2] == x.shape[2] and kw * out.shape[3] == x.shape[3]:
            return Record("pool", source, pool_fields(x, {"n": x.shape[0], "c": x.shape[1], "h": x.shape[2],
                                                          "w": x.shape[3], "r": kh, "s": kw, "pad_h": 0, "pad_w": 0,
                                                          "stride_h": kh, "stride_w": kw, "mode": "avg"}))
    return Record("other", source)


def binary_record(op, source, args, out):
    a, b = args[0], args[1]
    kind = BINARY[op]
    target = out if is_tensor(out) else a if is_tensor(a) else b
    if not is_tensor(target):
        return Record("other", source)
    rows, cols = rows_cols(target.shape)
    full = [t for t in (a, b) if is_tensor(t) and t.numel() == target.numel() and t.numel() > 0]
    if len(full) == 2:
        return Record("pointwise", source, {"op": kind, "rows": rows, "cols": cols})
    small = b if full and full[0] is a else a
    if kind == "add" and op in ("add", "add_") and is_tensor(small) and small.numel() == cols and cols > 1 and \
            small.dim() >= 1 and small.shape[-1] == cols:
        return Record("pointwise", source, {"op": "bias_add", "rows": rows, "cols": cols})
    if full:
        # x (op) scalar, a 0-dim tensor, or a small operand broadcast over x (it stays in cache): the bytes of x * s
        return Record("pointwise", source, {"op": "scale", "rows": rows, "cols": cols})
    return Record("other", source)  # two broadcast operands making a larger output: no case has its bytes


def reduction_record(op, source, args, kwargs, out):
    x = args[0]
    dims = arg(args, kwargs, 1, "dim")
    if isinstance(dims, int):
        dims = [dims]
    if op == "max" and (dims is None or not isinstance(dims, (list, tuple))):
        return Record("other", source)  # max of everything, or an element-wise max
    if dims is None or len(dims) == 0:
        return Record("reduce", source, {"op": "sum_all", "rows": 1, "cols": x.numel()}) if op == "sum" else \
            Record("other", source)
    dims = [d % x.dim() for d in dims]
    trailing = list(range(x.dim() - len(dims), x.dim()))
    if sorted(dims) != trailing:
        return Record("other", source)
    cols = math.prod(x.shape[d] for d in dims)
    name = {"mean": "mean", "sum": "sum", "amax": "max", "max": "max"}.get(op)
    if name is None:
        return Record("other", source)
    return Record("reduce", source, {"op": name, "rows": x.numel() // max(cols, 1), "cols": cols})


# ---- patterns over the sequence of calls ----

# HF LlamaRMSNorm (and model_zoo's RMSNorm): [x.to(float32)] x.pow(2).mean(-1, keepdim) + eps, rsqrt, x * r,
# [.to(dtype)], weight * y. One fused rmsnorm is what a library call (apex, FlashInfer, torch's rms_norm) runs.
_RMS_CORE = ["aten::pow", "aten::mean", "aten::add", "aten::rsqrt", "aten::mul"]


def _is(rec, name):
    return rec.source_op == name


def fuse_rmsnorm(records):
    """Replaces each decomposed RMSNorm in `records` by one reduce op=rmsnorm record (rows, cols of x), its time
    the sum of the group's; returns the new list and how many groups were fused."""
    out, i, fused = [], 0, 0
    while i < len(records):
        group = _rmsnorm_group(records, i)
        if group is None:
            out.append(records[i])
            i += 1
            continue
        start, end, rows, cols = group
        rec = Record("reduce", "rmsnorm (" + "+".join(r.source_op.replace("aten::", "") for r in records[start:end])
                     + ")", {"op": "rmsnorm", "rows": rows, "cols": cols})
        times = [r.us for r in records[start:end]]
        rec.us = sum(times) if all(t is not None for t in times) else None
        rec.kernels = merge_kernels(records[start:end])
        rec.call = records[start].call
        out.append(rec)
        fused += 1
        i = end
    return out, fused


def _rmsnorm_group(records, i):
    """(start, end, rows, cols) of the RMSNorm starting at records[i], or None."""
    j = i + (1 if records[i].source_op == "aten::_to_copy" else 0)
    core = records[j:j + len(_RMS_CORE)]
    if [r.source_op for r in core] != _RMS_CORE:
        return None
    pow_rec, mean_rec = core[0], core[1]
    if mean_rec.family != "reduce" or mean_rec.fields.get("op") != "mean":
        return None
    rows, cols = mean_rec.fields["rows"], mean_rec.fields["cols"]
    size = lambda r: r.fields.get("rows", 0) * r.fields.get("cols", 0)  # noqa: E731
    if size(pow_rec) != rows * cols or (j > i and size(records[i]) != rows * cols):
        return None
    end = j + len(_RMS_CORE)
    k = end + (1 if end < len(records) and records[end].source_op == "aten::_to_copy" else 0)
    if k < len(records) and records[k].source_op == "aten::mul" and \
            any(t.dim() == 1 and t.shape[0] == cols for t in records[k].inputs if is_tensor(t)):
        end = k + 1  # the cast back and the weight
    return i, end, rows, cols


def fuse_residual_norm(records):
    """An opt-in view (extract_models.py --fuse-residual-norm): each residual add (pointwise add of two full-size
    tensors) directly followed by a layer norm or RMSNorm of the same rows x cols becomes one reduce op=add_layernorm
    / add_rmsnorm record, the fused kernel of inference libraries (their time summed). Eager PyTorch and HF run the
    two kernels, so the default tables keep them apart. Returns the new list and how many pairs were fused."""
    out, i, fused = [], 0, 0
    while i < len(records):
        a = records[i]
        b = records[i + 1] if i + 1 < len(records) else None
        if b is not None and a.family == "pointwise" and a.fields.get("op") == "add" and b.family == "reduce" and \
                b.fields.get("op") in ("layernorm", "rmsnorm") and \
                (a.fields.get("rows"), a.fields.get("cols")) == (b.fields.get("rows"), b.fields.get("cols")):
            rec = Record("reduce", f"{a.source_op} + {b.source_op}",
                         {"op": "add_" + b.fields["op"], "rows": b.fields["rows"], "cols": b.fields["cols"]})
            rec.us = a.us + b.us if a.us is not None and b.us is not None else None
            rec.kernels = merge_kernels([a, b])
            rec.call = a.call
            out.append(rec)
            fused += 1
            i += 2
            continue
        out.append(a)
        i += 1
    return out, fused


# ---- kernel time from a profiler trace ----

DEVICE_CATEGORIES = ("kernel", "gpu_memcpy", "gpu_memset")
LAUNCH_CATEGORIES = ("cuda_runtime", "cuda_driver")
RANGE_PREFIX = "opmark#"


def trace_events(trace):
    """The events of a Chrome trace: the dict export_chrome_trace writes, or its list of events."""
    return trace.get("traceEvents", trace) if isinstance(trace, dict) else trace


def merge_kernels(records):
    """The kernels of several records as one {name: us} (a fused record's parts), or None where none has any."""
    out = {}
    for r in records:
        for name, us in (r.kernels or {}).items():
            out[name] = out.get(name, 0.0) + us
    return out or None


def attribute_kernels(trace, names=None):
    """Kernel time per recorded call from a torch.profiler Chrome trace (the dict of export_chrome_trace's JSON):
    each device activity (kernel, memcpy, memset) is linked to its launch by the correlation id, and the launch to
    the innermost `opmark#<call>` range (record_function around each recorded call) that holds it on the same
    thread. Returns ({call: us}, total_us, unattributed_us); `names`, a dict where given, gets {call: {kernel
    name: us}}."""
    import bisect
    events = trace_events(trace)
    ranges, launches, device = [], {}, []
    for e in events:
        if e.get("ph") != "X":
            continue
        cat, name = e.get("cat", ""), e.get("name", "")
        if cat == "user_annotation" and name.startswith(RANGE_PREFIX):
            ranges.append((float(e["ts"]), float(e["ts"]) + float(e.get("dur", 0)), e.get("tid"),
                           int(name[len(RANGE_PREFIX):])))
        elif cat in LAUNCH_CATEGORIES:
            corr = (e.get("args") or {}).get("correlation")
            if corr is not None:
                launches[corr] = (float(e["ts"]), e.get("tid"))
        elif cat in DEVICE_CATEGORIES:
            device.append(e)
    by_thread = {}
    for r in sorted(ranges):
        by_thread.setdefault(r[2], []).append(r)
    starts = {tid: [r[0] for r in rs] for tid, rs in by_thread.items()}
    per_call, total, lost = {}, 0.0, 0.0
    for e in device:
        dur = float(e.get("dur", 0))
        total += dur
        launch = launches.get((e.get("args") or {}).get("correlation"))
        owner = None
        if launch is not None and launch[1] in by_thread:
            ts, tid = launch
            rs = by_thread[tid]
            k = bisect.bisect_right(starts[tid], ts) - 1
            best = None
            for r in rs[max(0, k - 8):k + 1]:  # the innermost range that holds the launch (they do not nest)
                if r[0] <= ts <= r[1] and (best is None or r[1] - r[0] <= best[1] - best[0]):
                    best = r
            owner = best[3] if best else None
        if owner is None:
            lost += dur
        else:
            per_call[owner] = per_call.get(owner, 0.0) + dur
            if names is not None and e.get("cat") == "kernel":
                mine = names.setdefault(owner, {})
                mine[e.get("name", "")] = mine.get(e.get("name", ""), 0.0) + dur
    return per_call, total, lost


def kernel_totals(trace):
    """{kernel name: [launches, total us]} over the kernels of a torch.profiler Chrome trace (as attribute_kernels
    reads it), for comparing two passes kernel by kernel."""
    events = trace_events(trace)
    totals = {}
    for e in events:
        if e.get("ph") == "X" and e.get("cat") == "kernel":
            t = totals.setdefault(e.get("name", ""), [0, 0.0])
            t[0] += 1
            t[1] += float(e.get("dur", 0))
    return totals


# ---- coverage ----

def coverage(records, total_us=None):
    """Time per family and the share in benchmarked families (not `other`), from records with us per call:
    {"families": {family: us}, "covered_us", "other_us", "total_us", "coverage"}. total_us is the pass's whole
    kernel time where known (kernels outside every recorded call count as uncovered)."""
    families = {}
    for r in records:
        if r.us is None:
            continue
        families[r.family] = families.get(r.family, 0.0) + r.us
    covered = sum(us for f, us in families.items() if f != "other")
    recorded = sum(families.values())
    total = max(total_us if total_us is not None else recorded, recorded)
    return {"families": families, "covered_us": covered, "other_us": families.get("other", 0.0),
            "unattributed_us": total - recorded, "total_us": total,
            "coverage": covered / total if total > 0 else 0.0}


def top_uncovered(records, n=5):
    """The `other` operators carrying the most time: [(source_op, us)]."""
    per = {}
    for r in records:
        if r.family == "other" and r.us is not None:
            per[r.source_op] = per.get(r.source_op, 0.0) + r.us
    return sorted(per.items(), key=lambda kv: -kv[1])[:n]
