#!/usr/bin/env python3
"""Times opmark cases through PyTorch, for comparison with opmark-bench on the same GPU.

    python3 bench/compare/torch_compare.py RESULTS.jsonl [RESULTS.jsonl ...] [--rounds N] [--filter REGEX]
                                             [--limit N] [--csv OUT.csv] [--eager] [--burst]

Reads the median times opmark-bench logged (results.jsonl), times the same problems through PyTorch the way
opmark-bench times them (warm-up, then a CUDA graph of calls lasting about 1 ms replayed between CUDA events, time
per call = replay time / calls, median over at least 60 ms of samples, random inputs), and prints both with
torch/opmark (above 1: opmark is faster) and how PyTorch was timed.

--burst times PyTorch in opmark-bench's burst regime: each sample carries the SM clock measured on the GPU (the same
probe, sm_clock.py) and one whose clock was down is dropped and taken again after an idle pause, so heavy cases are
compared at the clock each side kept, and the timing column says which.

Why graphs: eager calls of a few us each, timed back to back, measure Python and PyTorch's dispatch on the CPU (the
GPU waits for each launch), not PyTorch's kernels; a graph's replay launches them with no Python in between, as
opmark-bench's replays do. Each case is called eagerly first (cudnn.benchmark autotunes there: it cannot inside a
capture), then on a side stream as PyTorch's docs require, then captured; the graph is dropped after the case.
An op that cannot be captured (one that synchronises, some cuDNN RNN paths) is timed eagerly instead, and its
torch timing column says `eager:` and why. --eager times every case eagerly in batches of about 2 ms, as before:
what an eager framework pays per call.

One pass is not enough to call a winner on a shared cloud GPU: on an H100 VM the same cuDNN engine's time moved
up to 3x for seconds at a time (nvidia-smi read the SM clock at 1965-1980 MHz throughout). So give several
results files (opmark-bench run again on the same cases, say three times) and --rounds (default: one per file):
each case's opmark time is the median over the files, PyTorch's the median over its rounds, which visit every case
in turn so a slow spell falls on one round, not on one case; the spread columns (slowest / fastest) show how noisy
each side was.

PyTorch's wheels bring their own cuDNN (printed first). To compare the same library, run opmark-bench on it:
    LD_LIBRARY_PATH=$(python3 -c "import nvidia.cudnn, os; print(os.path.join(list(nvidia.cudnn.__path__)[0], 'lib'))")
(opmark-bench records the cuDNN it loaded, `cudnn_version` in the results' context.)

  gemm  `a @ b` (torch.matmul) on operands stored as the case stores them (column-major, ta/tb), viewed
        through transposes, so cuBLAS sees the same memory layout.
        fp32 runs with TF32 off, tf32 with it on; int8 through torch._int_mm where its shape rules allow; fp8 is
        left out (torch._scaled_mm is not `a @ b`).
  conv  F.conv2d / F.conv3d and aten.convolution_backward (one gradient at a time) with
        torch.backends.cudnn.benchmark = True, NCHW or channels_last as the case says (channels_last strides
        made explicit, so a one-channel tensor is not taken for NCHW and the output is the case's layout). int8 is
        left out.
  rnn   nn.LSTM / nn.GRU / nn.RNN, linear input only (PyTorch has no skip-input mode). fwd is eval() under
        no_grad (cuDNN's inference mode), fwd_train a forward that keeps what backward needs, and PyTorch's
        backward (input and weight gradients together) is compared with opmark's bwd_data + bwd_weights.
  pointwise  PyTorch's eager op (torch.relu, F.gelu, torch.add, ...); fused bias + activation is two kernels there;
        scale is x * 1/sqrt(128), masked_fill x.masked_fill(mask, -10000) with a bool mask.
  reduce, batchnorm, pool  x.sum/mean/amax, torch.softmax, F.log_softmax, F.layer_norm, F.rms_norm (eps 1e-6), and
        for add_layernorm / add_rmsnorm `s = x + r` then the norm of s (what PyTorch runs unfused; both s and the
        result are written, as opmark's fused kernel writes them); F.batch_norm (running statistics for inference,
        batch statistics in training), F.max_pool2d / F.avg_pool2d (count_include_pad); batch norm and pooling on
        a channels_last tensor where the case is layout=NHWC (a name without a layout is NCHW).
  gather  torch.embedding(table, idx) with int64 indices.
  permute  out.copy_(x.permute(perm)) of the d0 x d1 x d2 x d3 tensor into a tensor of the permuted shape (what
        x.permute(perm).contiguous() runs, also where the permutation moves nothing and .contiguous() would not copy).
"""
import argparse
import collections
import csv
import ctypes
import math
import os
import re
import statistics
import sys
import time

import sm_clock
from opmark_results import median_records

# PyTorch is imported by import_torch() once the arguments are read: --help answers on a machine without it.
torch = F = None

DTYPES = {}  # precision -> torch dtype, filled by import_torch()
SCALE = 0.08838834764831845  # pointwise scale: kernels/pointwise.h's kPointwiseScale, 1/sqrt(128)
MASK_FILL = -10000.0         # pointwise masked_fill: kMaskedFillValue


def parse_name(name):
    parts = name.split("/")
    fields = dict(p.split("=", 1) for p in parts[3:])
    return parts[0], parts[1], parts[2], {k: (int(v) if v.isdigit() else v) for k, v in fields.items()}


def eager_sample(fn, n):
    """GPU time per call of n back-to-back eager calls, between CUDA events."""
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(n):
        fn()
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop) * 1e3 / n


def warm_up(fn, warmup_s):
    """Calls fn eagerly for `warmup_s` of GPU time, then returns its time per call in a batch of about 2 ms.
    Autotuners (cudnn.benchmark) choose their algorithms on these first calls, as they could not inside a capture."""
    per_call, spent = eager_sample(fn, 1), 0.0
    while spent < warmup_s * 1e6:
        per_call = eager_sample(fn, 1)
        spent += per_call
    # a batch: a lone call's time is inflated by launch overhead
    return eager_sample(fn, min(2000, max(1, math.ceil(2000 / per_call))))


def replay_calls(per_call):
    """Calls per graph, so one replay lasts about 1 ms of GPU time (as opmark-bench sizes its batches)."""
    return min(1000, max(1, math.ceil(1000 / per_call)))


def capture(fn, n):
    """A CUDA graph of n calls of fn. Warmed up on a side stream first, as PyTorch's docs require (lazy set-up,
    such as a stream's cuBLAS workspace, must not happen during capture). What fn allocates comes from the graph's
    private pool, which goes with the graph."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(n):
            fn()
    return g


def replay_us(g, n):
    """GPU time per call of one replay of a graph of n calls, between CUDA events."""
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    g.replay()
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop) * 1e3 / n


# --rest-ms: the GPU idles this long before each sample, so each runs at the clock a rested GPU gives the op (what
# opmark-bench's burst regime keeps for a case that runs under the power cap from its first millisecond).
REST_S = 0.0
# --burst: the SM clock probe (sm_clock.Probe); each sample is stamped, and judged by opmark-bench's burst rule.
PROBE = None
LAST_CLOCK = {}  # the last burst measurement's median MHz, dropped samples and whether its pauses ran out


def stamped(sample):
    """sample() bracketed by the probe's stamps on PyTorch's stream: (time per call, mean SM clock in MHz)."""
    stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
    PROBE.stamp(stream, 0)
    t = sample()  # it waits for its stop event, which the second stamp follows at once
    PROBE.stamp(stream, 1)
    return t, PROBE.mhz(stream)


def median_of_samples(sample, calls, measure_s, min_samples):
    """The median of sample() (time per call of `calls` calls) over at least `measure_s` of GPU time."""
    if PROBE is not None:
        times, clocks, dropped, exhausted = sm_clock.burst_samples(lambda: stamped(sample), calls, measure_s,
                                                                   min_samples)
        LAST_CLOCK.update(mhz=statistics.median(clocks), dropped=dropped, throttled=exhausted)
        return statistics.median(times)
    times, spent = [], 0.0
    while spent < measure_s * 1e6 or len(times) < min_samples:
        if REST_S > 0:
            torch.cuda.synchronize()
            time.sleep(REST_S)
        t = sample()
        times.append(t)
        spent += t * calls
    return statistics.median(times)


def graph_time_us(fn, per_call, measure_s, min_samples):
    """Median time per call over replays of a graph of calls of fn, sized by `per_call` (an eager time)."""
    n = replay_calls(per_call)
    g = capture(fn, n)
    g.replay()  # the first replay uploads the graph
    better = replay_calls(replay_us(g, n))
    if better > 2 * n:  # the eager time held Python's dispatch: the calls are shorter, so a replay needs more
        del g  # first, so two graphs' memory never coexists
        n = better
        g = capture(fn, n)
        g.replay()
    return median_of_samples(lambda: replay_us(g, n), n, measure_s, min_samples)


def time_us(fn, eager=False, warmup_s=0.01, measure_s=0.06, min_samples=10):
    """(median GPU time per call, how it was timed), measured as opmark-bench measures: warm-up first, then the
    replays of a CUDA graph of calls lasting about 1 ms, sampled for at least `measure_s` (opmark's 3 repetitions of
    0.02 s). Where fn cannot be captured, or with `eager`, back-to-back eager calls in batches of about 2 ms."""
    per_call = warm_up(fn, warmup_s)
    mode = "eager"
    if not eager:
        try:
            return graph_time_us(fn, per_call, measure_s, min_samples), "graph" + clock_note()
        except RuntimeError as e:  # an op that synchronises or otherwise refuses capture: time it eagerly, say why
            mode = "eager: " + (str(e).splitlines() or [type(e).__name__])[0][:60]
            torch.cuda.synchronize()  # nothing of the failed capture left running when the eager timing starts
    batch = 1 if per_call >= 1000 else min(2000, math.ceil(2000 / per_call))
    return median_of_samples(lambda: eager_sample(fn, batch), batch, measure_s, min_samples), mode + clock_note()


def clock_note():
    """How a burst measurement's clock went, for the timing column ("" without --burst)."""
    if PROBE is None or not LAST_CLOCK:
        return ""
    note = f", {LAST_CLOCK['mhz']:.0f} MHz"
    if LAST_CLOCK["dropped"]:
        note += f", {LAST_CLOCK['dropped']} throttled sample(s) dropped"
    return note + (", THROTTLED (pauses ran out)" if LAST_CLOCK["throttled"] else "")


# A case PyTorch cannot time alone: the time of `total` less that of `part` (a backward that captures only
# together with its forward: SDPA's backward outside the forward's graph fails on the random-number offset).
Difference = collections.namedtuple("Difference", "total part")


def uniform(shape, dtype, **kw):
    return (torch.rand(shape, device="cuda", dtype=torch.float32, **kw) * 2 - 1).to(dtype)


def uniform_in(shape, dtype, channels_last):
    """A random N x C x ... tensor stored as the case says: with channels_last, channels innermost and the strides
    to match even where C (or another dimension) is 1. .contiguous(memory_format=channels_last) keeps the NCHW
    strides of a one-channel tensor (both layouts hold it the same), so PyTorch then suggests NCHW and writes an NCHW
    output: another problem than the case's."""
    if not channels_last:
        return uniform(shape, dtype)
    order = (0,) + tuple(range(2, len(shape))) + (1,)  # N, spatial..., C
    back = [order.index(d) for d in range(len(shape))]
    return uniform(tuple(shape[d] for d in order), dtype).permute(*back)


def set_precision(precision):
    torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
    torch.backends.cudnn.allow_tf32 = precision == "tf32"
    torch.backends.cudnn.benchmark = True


def gemm_case(direction, precision, f):
    """The case's operands in its own storage: column-major A (m x k, or k x m when ta=T) is a row-major tensor
    of the transposed shape, viewed transposed, so torch.matmul hands cuBLAS the same memory layout (its result
    is row-major: opmark's row_major_c candidate)."""
    m, n, k, batch = f["m"], f["n"], f["k"], f["batch"]

    def operand(rows, cols, transposed, make):
        # column-major rows x cols (transposed: stored cols x rows) as a (batch,) rows x cols view
        shape = (cols, rows) if not transposed else (rows, cols)
        t = make(((batch,) if batch > 1 else ()) + shape)
        return t.transpose(-1, -2) if not transposed else t

    ta, tb = f["ta"] == "T", f["tb"] == "T"
    if precision == "int8":
        if batch > 1 or m <= 16 or k % 8 or n % 8:
            return None
        make = lambda shape: torch.randint(-127, 128, shape, dtype=torch.int8, device="cuda")
        a, b = operand(m, k, ta, make), operand(k, n, tb, make)
        return lambda: torch._int_mm(a, b)
    if precision not in DTYPES:
        return None
    make = lambda shape: uniform(shape, DTYPES[precision])
    a, b = operand(m, k, ta, make), operand(k, n, tb, make)
    return lambda: a @ b


def conv_case(direction, precision, f):
    if precision not in DTYPES:
        return None
    dtype = DTYPES[precision]
    three_d = f["d"] > 1 or f["t"] > 1
    if three_d:
        x_shape = (f["n"], f["c"], f["d"], f["h"], f["w"])
        w_shape = (f["k"], f["c"] // f["groups"], f["t"], f["r"], f["s"])
        stride, padding = (f["stride_d"], f["stride_h"], f["stride_w"]), (f["pad_d"], f["pad_h"], f["pad_w"])
        dilation, conv = (1, f["dil_h"], f["dil_w"]), F.conv3d
    else:
        x_shape = (f["n"], f["c"], f["h"], f["w"])
        w_shape = (f["k"], f["c"] // f["groups"], f["r"], f["s"])
        stride, padding = (f["stride_h"], f["stride_w"]), (f["pad_h"], f["pad_w"])
        dilation, conv = (f["dil_h"], f["dil_w"]), F.conv2d
    nhwc = f["layout"] == "NHWC"
    x = uniform_in(x_shape, dtype, nhwc)
    w = uniform_in(w_shape, dtype, nhwc)
    if direction == "fwd":
        return lambda: conv(x, w, None, stride, padding, dilation, f["groups"])
    y = conv(x, w, None, stride, padding, dilation, f["groups"])
    dy = uniform_in(tuple(y.shape), dtype, nhwc)
    mask = [True, False, False] if direction == "bwd_data" else [False, True, False]
    out_pad = [0] * len(stride)
    return lambda: torch.ops.aten.convolution_backward(dy, x, w, None, stride, padding, dilation, False, out_pad,
                                                       f["groups"], mask)


def rnn_case(direction, precision, f):
    if precision not in DTYPES or f["input_mode"] != "linear":
        return None
    dtype = DTYPES[precision]
    cell, bidir = f["cell"], f["bidir"] == "yes"
    args = dict(input_size=f["input"], hidden_size=f["hidden"], num_layers=f["layers"], bidirectional=bidir)
    if cell == "lstm":
        module = torch.nn.LSTM(**args)
    elif cell == "gru":
        module = torch.nn.GRU(**args)
    else:
        module = torch.nn.RNN(nonlinearity="relu" if cell == "rnn_relu" else "tanh", **args)
    module = module.cuda().to(dtype)
    module.flatten_parameters()
    state_shape = (f["layers"] * (2 if bidir else 1), f["batch"], f["hidden"])
    grad = direction != "fwd"
    x = uniform((f["steps"], f["batch"], f["input"]), dtype).requires_grad_(grad)
    h0 = uniform(state_shape, dtype).requires_grad_(grad)
    state = (h0, uniform(state_shape, dtype).requires_grad_(grad)) if cell == "lstm" else h0
    if direction == "fwd":
        module.eval()

        def forward():
            with torch.no_grad():
                module(x, state)
        return forward
    module.train()
    if direction == "fwd_train":
        return lambda: module(x, state)
    out, _ = module(x, state)
    dy = uniform(tuple(out.shape), dtype)
    inputs = [x, h0] + list(module.parameters())
    return lambda: torch.autograd.grad(out, inputs, dy, retain_graph=True)


def pointwise_case(direction, precision, f):
    """PyTorch's own op, eager: fused bias + activation is two kernels there (bias add, then the activation)."""
    if precision not in DTYPES or precision == "tf32":
        return None
    dtype = DTYPES[precision]
    rows, cols, op = f["rows"], f["cols"], f["op"]
    x, y, b = uniform((rows, cols), dtype), uniform((rows, cols), dtype), uniform((cols,), dtype)
    out = torch.empty_like(x)
    mask = torch.rand((rows, cols), device="cuda") < 0.5 if op == "masked_fill" else None
    ops = {
        "copy": lambda: out.copy_(x),
        "relu": lambda: torch.relu(x),
        "gelu": lambda: F.gelu(x),
        "silu": lambda: F.silu(x),
        "sigmoid": lambda: torch.sigmoid(x),
        "tanh": lambda: torch.tanh(x),
        "add": lambda: torch.add(x, y, out=out),
        "mul": lambda: torch.mul(x, y, out=out),
        "bias_add": lambda: torch.add(x, b, out=out),
        "bias_relu": lambda: torch.relu(x + b),
        "bias_gelu": lambda: F.gelu(x + b),
        "scale": lambda: torch.mul(x, SCALE, out=out),
        "masked_fill": lambda: x.masked_fill(mask, MASK_FILL),
    }
    return ops.get(op)


def reduce_case(direction, precision, f):
    if precision not in DTYPES or precision == "tf32":
        return None
    dtype = DTYPES[precision]
    cols = f["cols"]
    x = uniform((f["rows"], cols), dtype)
    r = uniform((f["rows"], cols), dtype) if f["op"].startswith("add_") else None
    w, b = uniform((cols,), dtype), uniform((cols,), dtype)

    def add_then(norm):  # unfused, as PyTorch runs it: the sum is written, then normalised
        def run():
            s = x + r
            return s, norm(s)
        return run

    ops = {
        "sum": lambda: x.sum(dim=-1),
        "mean": lambda: x.mean(dim=-1),
        "max": lambda: x.amax(dim=-1),
        "sum_all": lambda: x.sum(),
        "softmax": lambda: torch.softmax(x, dim=-1),
        "log_softmax": lambda: F.log_softmax(x, dim=-1),
        "layernorm": lambda: F.layer_norm(x, (cols,), w, b, 1e-5),
        "rmsnorm": lambda: F.rms_norm(x, (cols,), w, 1e-6),
        "add_layernorm": add_then(lambda s: F.layer_norm(s, (cols,), w, b, 1e-5)),
        "add_rmsnorm": add_then(lambda s: F.rms_norm(s, (cols,), w, 1e-6)),
    }
    return ops.get(f["op"])


def batchnorm_case(direction, precision, f):
    if precision not in DTYPES or precision == "tf32":
        return None
    dtype = DTYPES[precision]
    x = uniform_in((f["n"], f["c"], f["h"], f["w"]), dtype, f.get("layout") == "NHWC")  # names leave out NCHW
    params = [torch.rand(f["c"], device="cuda") + 0.5 for _ in range(4)]
    train = f["mode"] == "train"
    return lambda: F.batch_norm(x, params[2], params[3], params[0], params[1], training=train, eps=1e-5)


def pool_case(direction, precision, f):
    if precision not in DTYPES or precision == "tf32":
        return None
    x = uniform_in((f["n"], f["c"], f["h"], f["w"]), DTYPES[precision], f.get("layout") == "NHWC")
    kernel, stride, pad = (f["r"], f["s"]), (f["stride_h"], f["stride_w"]), (f["pad_h"], f["pad_w"])
    if f["mode"] == "max":
        return lambda: F.max_pool2d(x, kernel, stride, pad)
    return lambda: F.avg_pool2d(x, kernel, stride, pad, count_include_pad=True)


def attention_case(direction, precision, f):
    """F.scaled_dot_product_attention on the case's Q, K, V ([B, H, L, D] views; bshd stores them tokens-outer,
    as a fused QKV projection writes them), with PyTorch's own choice of kernel unless OPMARK_SDPA_BACKEND names
    one (cudnn, flash, efficient, math). bwd: dQ, dK and dV for a random dO through torch.autograd.grad, timed as
    forward and backward in one graph less the forward alone (both the training forward, which keeps the
    statistics): captured alone, the backward fails on the random-number generator's offset."""
    if precision not in ("fp16", "bf16") or direction not in ("fwd", "bwd"):
        return None
    dtype = DTYPES[precision]
    b, hq, hkv, d = f["batch"], f["heads_q"], f["heads_kv"], f["head_dim"]

    def tensor(heads, tokens):
        if f["layout"] == "bshd":
            return uniform((b, tokens, heads, d), dtype).transpose(1, 2)
        return uniform((b, heads, tokens, d), dtype)

    q, k, v = tensor(hq, f["seq_q"]), tensor(hkv, f["seq_kv"]), tensor(hkv, f["seq_kv"])
    kw = {"is_causal": f["mask"] == "causal"}  # top-left aligned, as opmark's causal mask
    if hkv != hq:
        kw["enable_gqa"] = True
    backend = os.environ.get("OPMARK_SDPA_BACKEND")
    if backend:
        from torch.nn.attention import SDPBackend, sdpa_kernel
        chosen = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION,
                  "efficient": SDPBackend.EFFICIENT_ATTENTION, "math": SDPBackend.MATH}[backend]

    def forward():
        if not backend:
            return F.scaled_dot_product_attention(q, k, v, **kw)
        with sdpa_kernel(chosen):
            return F.scaled_dot_product_attention(q, k, v, **kw)
    if direction == "fwd":
        return forward
    for t in (q, k, v):
        t.requires_grad_(True)
    grad_out = uniform((b, hq, f["seq_q"], d), dtype)
    return Difference(lambda: torch.autograd.grad(forward(), (q, k, v), grad_out), forward)


def gather_case(direction, precision, f):
    if precision not in DTYPES or precision == "tf32":
        return None
    table = uniform((f["table_rows"], f["cols"]), DTYPES[precision])
    idx = torch.randint(0, f["table_rows"], (f["rows"],), device="cuda", dtype=torch.int64)
    return lambda: torch.embedding(table, idx)


def permute_case(direction, precision, f):
    """The permuted copy into a tensor of its own (what x.permute(perm).contiguous() does, but also where the
    permutation leaves the memory order as it is, and .contiguous() would return x itself and copy nothing)."""
    if precision not in DTYPES or precision == "tf32":
        return None
    x = uniform((f["d0"], f["d1"], f["d2"], f["d3"]), DTYPES[precision])
    perm = [int(c) for c in str(f["perm"]).zfill(4)]  # parse_name reads "0213" as the number 213
    out = torch.empty(tuple(x.shape[p] for p in perm), dtype=x.dtype, device="cuda")
    return lambda: out.copy_(x.permute(*perm))


BUILDERS = {"gemm": gemm_case, "conv": conv_case, "rnn": rnn_case, "pointwise": pointwise_case,
            "reduce": reduce_case, "batchnorm": batchnorm_case, "pool": pool_case, "gather": gather_case,
            "permute": permute_case, "attention": attention_case}


def read_medians(paths):
    """Per case, opmark's median time in each results file that measured it."""
    times = {}
    for path in paths:
        for rec in median_records(path):
            times.setdefault(rec["name"], []).append(rec["time_us"])
    return times


def comparable(medians):
    """(shown name, family, direction, precision, fields, opmark times) per case PyTorch can run. An RNN's
    bwd_data and bwd_weights are one PyTorch backward, so they become one row with the two times added."""
    cases = []
    for name, ours in medians.items():
        family, direction, precision, fields = parse_name(name)
        if family not in BUILDERS or (family == "rnn" and direction == "bwd_weights"):
            continue
        if family == "rnn" and direction == "bwd_data":
            partner = medians.get(name.replace("/bwd_data/", "/bwd_weights/", 1))
            if partner is None:
                continue
            ours = [a + b for a, b in zip(ours, partner)]
            direction, name = "bwd", name.replace("/bwd_data/", "/bwd_data+bwd_weights/", 1)
        cases.append((name, family, direction, precision, fields, ours))
    return cases


def time_torch(family, direction, precision, fields, eager=False):
    """(PyTorch's median time for the case, how it was timed), None where PyTorch has no such operator, or the
    reason it failed."""
    set_precision(precision)
    try:
        fn = BUILDERS[family](direction, precision, fields)
        if isinstance(fn, Difference):
            (total, how), (part, _) = time_us(fn.total, eager), time_us(fn.part, eager)
            return total - part, how + " (difference)"
        return None if fn is None else time_us(fn, eager)
    except (RuntimeError, torch.cuda.OutOfMemoryError) as e:  # a shape PyTorch refuses: say so, go on
        return str(e).splitlines()[0]
    finally:
        torch.cuda.empty_cache()  # the case's tensors and its graph's memory pool are gone by now: hand them back


def import_torch():
    global torch, F
    import torch
    import torch.nn.functional as F
    DTYPES.update({"fp32": torch.float32, "tf32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16})


def spread(values):
    return max(values) / min(values) if values and min(values) > 0 else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", nargs="+", help="results.jsonl of opmark-bench runs over the same cases")
    ap.add_argument("--rounds", type=int, default=0, help="times to time each case in PyTorch (default: one per file)")
    ap.add_argument("--filter", default=".")
    ap.add_argument("--limit", type=int, default=1000)
    ap.add_argument("--rest-ms", type=float, default=0.0,
                    help="idle this long before each sample: a rested GPU's clock, as opmark-bench's burst regime")
    ap.add_argument("--burst", action="store_true",
                    help="stamp each sample with the SM clock measured on the GPU and drop a throttled one, pausing, "
                         "as opmark-bench's burst regime does (needs libopmark_sm_clock.so)")
    ap.add_argument("--clock-lib", help="libopmark_sm_clock.so (default: build/*/bench/libopmark_sm_clock.so)")
    ap.add_argument("--csv", help="also write the rows here")
    ap.add_argument("--eager", action="store_true",
                    help="time back-to-back eager calls, not CUDA graph replays (what an eager framework pays)")
    args = ap.parse_args()
    import_torch()
    global REST_S, PROBE
    REST_S = args.rest_ms / 1000.0
    if args.burst:
        torch.cuda.init()
        PROBE = sm_clock.Probe(sm_clock.find_library(args.clock_lib))
    pattern = re.compile(args.filter)
    medians = read_medians(args.results)
    cases = [c for c in comparable(medians) if pattern.search(c[0])][: args.limit]
    rounds = args.rounds or len(args.results)
    # PyTorch's wheels bring their own cuDNN, which may differ from the one opmark-bench links: say which ran.
    print(f"# torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, cuBLAS via CUDA {torch.version.cuda}, "
          f"{torch.cuda.get_device_name()}; opmark runs: {len(args.results)}, PyTorch rounds: {rounds}, timed "
          f"{'eagerly' if args.eager else 'in CUDA graphs (eagerly where capture fails)'}")
    theirs = {c[0]: [] for c in cases}
    untimed = set()  # cases PyTorch has no operator for, or refused
    timing = {}  # case -> how PyTorch was timed: graph, or eager (and why, where capture failed)
    rows = []
    for r in range(rounds):
        for name, family, direction, precision, fields, _ in cases:
            if name in untimed:
                continue
            t = time_torch(family, direction, precision, fields, args.eager)
            if t is None or isinstance(t, str):
                untimed.add(name)
                if t is not None:
                    print(f"{name:<96} torch failed: {t}", flush=True)
                continue
            t, timing[name] = t
            theirs[name].append(t)
            print(f"# round {r + 1}: {name} {t:.2f} us ({timing[name]})", flush=True)
            rows = [(n, statistics.median(ours), statistics.median(theirs[n]), spread(ours), spread(theirs[n]),
                     timing[n]) for n, _, _, _, _, ours in cases if theirs[n]]
            if args.csv:  # rewritten after every case, so a comparison cut off by a time limit keeps what it has
                with open(args.csv, "w", newline="") as f:
                    out = csv.writer(f)
                    out.writerow(["case", "opmark_us", "torch_us", "torch_over_opmark", "opmark_spread", "torch_spread",
                                  "torch_timing"])
                    out.writerows((n, o, t, t / o, so, st, how) for n, o, t, so, st, how in rows)
    print(f"{'case':<96} {'opmark us':>10} {'torch us':>10} {'torch/opmark':>12} {'spread o':>8} {'spread t':>8} "
          f"torch timing")
    for n, o, t, so, st, how in rows:
        print(f"{n:<96} {o:>10.2f} {t:>10.2f} {t / o:>12.3f} {so:>8.2f} {st:>8.2f} {how}")
    ratios = [t / o for _, o, t, _, _, _ in rows]
    print(f"{len(rows)} case(s) compared; torch faster on {sum(x < 1 for x in ratios)} (ratio < 1), "
          f"by more than 5% on {sum(x < 0.95 for x in ratios)}; worst ratio {min(ratios, default=float('nan')):.3f}")


if __name__ == "__main__":
    sys.exit(main())
