#!/usr/bin/env python3
"""Traces real models and writes their operator tables (shapes/models/<model>.yaml), OpBench style.

    python3 shapes/models/extract_models.py [--models resnet50,bert_base] [--device cpu|cuda] [--dtype fp16]
                                            [--out shapes/models] [--train]

--train also writes <model>_train.yaml, one training step (forward, then backward), for the models in TRAIN_TRACE:
traced on the CPU at small inputs (a convolution's backward has no meta kernel in every torch), with the same
expression fitting and 3x check, written only when every varying field fits an expression.

Each model runs once (random weights, no downloads) under a dispatch-level recorder that sees every operator the
framework sends to the device. Every call maps to an opmark family and its fields (convolution -> conv,
mm/addmm/bmm -> gemm, activations and element-wise add/mul -> pointwise, softmax, layer norm, mean/sum ->
reduce, batch norm -> batchnorm, 2D pooling -> pool, LSTM/GRU/RNN modules -> rnn); anything else is kept as family `other` with its operator name, so coverage
is reported honestly. Pure view operators (view, permute, expand, ...) launch nothing and are left out.

Shapes become expressions over the model's input symbols (B, H, W, L, N, T): the model is traced again with each
symbol doubled, a field that doubles with B is written `B`, one that halves per stride-2 stage `H/2`, ... ; a third
trace at other sizes must reproduce every traced shape from the expressions, and a field whose expression does
not is written as its constant (and counted in the table's header).

Shapes always come from meta tensors (no compute, no memory). With --device cuda the model also runs once on the
GPU with each operator call timed by CUDA events (traced_us: mean GPU time per call, matched to the traced calls by
family and shape) and the whole forward pass is timed (measured: gpu_time_ms, median of 5 after warm-up), naming
the device.
The tables in the repository were written with --device meta (shapes only, no compute); rerun on the GPU machine
to add times:

    python3 shapes/models/extract_models.py --device cuda --dtype fp16
"""
import argparse
import collections
import datetime
import fractions
import math
import os
import statistics
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model_zoo  # noqa: E402  (next to this script)

# Operators that only change a tensor's metadata: no kernel runs.
VIEW_OPS = {
    "empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided",  # allocation, no kernel
    "view", "_unsafe_view", "reshape", "t", "transpose", "permute", "expand", "unsqueeze", "squeeze", "select",
    "slice", "as_strided", "detach", "alias", "split", "split_with_sizes", "chunk", "unbind", "narrow", "lift_fresh",
    "_reshape_alias", "unfold", "view_as", "expand_as", "numpy_T", "lift", "_to_copy_meta",
}

POINTWISE = {"relu": "relu", "relu_": "relu", "gelu": "gelu", "silu": "silu", "silu_": "silu", "sigmoid": "sigmoid",
             "tanh": "tanh"}


def name_of(func):
    return func.overloadpacket.__name__


def rows_cols(shape):
    cols = shape[-1] if len(shape) else 1
    return (math.prod(shape) // cols if cols else 0), cols


class Record:
    """One operator call as opmark sees it: family, direction and fields, or family other with the op name."""

    def __init__(self, family, source_op, fields=None, direction="fwd"):
        self.family, self.source_op, self.direction = family, source_op, direction
        self.fields = fields or {}
        self.us = None

    def key(self):
        return (self.family, self.source_op, self.direction, tuple(sorted(self.fields.items())))


def gemm_fields(a, b, batch=1):
    """torch computes row-major C (M x N) = A (M x K) B (K x N); opmark's cases are column-major, so the same
    memory is C^T = B^T A^T: m = N, n = M, k = K, and a row-major operand that is really a transposed view (its
    last stride is not 1) flips the flag."""
    M, K = a.shape[-2], a.shape[-1]
    N = b.shape[-1]
    ta = "T" if b.stride()[-1] != 1 else "N"  # opmark's A is torch's B
    tb = "T" if a.stride()[-1] != 1 else "N"
    return {"m": N, "n": M, "k": K, "ta": ta, "tb": tb, "batch": batch}


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
    else:
        if dilation[0] != 1:
            return None
        f = {"n": x.shape[0], "c": x.shape[1], "d": x.shape[2], "h": x.shape[3], "w": x.shape[4],
             "k": w.shape[0], "t": w.shape[2], "r": w.shape[3], "s": w.shape[4], "pad_d": padding[0],
             "pad_h": padding[1], "pad_w": padding[2], "stride_d": stride[0], "stride_h": stride[1],
             "stride_w": stride[2], "dil_h": dilation[1], "dil_w": dilation[2]}
    f["groups"] = groups
    return f


def to_record(func, args, kwargs, out):
    """The opmark case(s) of one operator call: a Record, a list of them (a convolution's backward is two cases),
    or None for a call that launches nothing."""
    op = name_of(func)
    source = f"aten::{op}"
    if op in VIEW_OPS:
        return None
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
    if op in POINTWISE:
        rows, cols = rows_cols(args[0].shape)
        return Record("pointwise", source, {"op": POINTWISE[op], "rows": rows, "cols": cols})
    if op in ("add", "add_", "mul", "mul_") and len(args) >= 2 and isinstance(args[1], torch.Tensor):
        a, b = args[0], args[1]
        kind = "add" if op.startswith("add") else "mul"
        rows, cols = rows_cols(out.shape)
        if a.shape == b.shape:
            return Record("pointwise", source, {"op": kind, "rows": rows, "cols": cols})
        if kind == "add" and b.numel() == cols and b.numel() > 1:
            return Record("pointwise", source, {"op": "bias_add", "rows": rows, "cols": cols})
        return Record("other", source)
    if op == "_softmax" and args[1] in (-1, args[0].dim() - 1):
        rows, cols = rows_cols(args[0].shape)
        return Record("reduce", source, {"op": "softmax", "rows": rows, "cols": cols})
    if op == "native_layer_norm":
        x, normalized = args[0], args[1]
        cols = math.prod(normalized)
        if args[2] is None or args[3] is None:
            return Record("other", source)
        return Record("reduce", source, {"op": "layernorm", "rows": x.numel() // cols, "cols": cols})
    if op in ("native_batch_norm", "_native_batch_norm_legit_no_training") and args[0].dim() in (3, 4):
        x = args[0]
        training = op == "native_batch_norm" and bool(args[5])
        h, w = (x.shape[2], x.shape[3]) if x.dim() == 4 else (1, x.shape[2])
        return Record("batchnorm", source, {"n": x.shape[0], "c": x.shape[1], "h": h, "w": w,
                                            "mode": "train" if training else "inference"})
    if op in ("max_pool2d_with_indices", "max_pool2d", "avg_pool2d") and args[0].dim() == 4:
        x, kernel = args[0], list(args[1])
        stride = list(args[2]) if len(args) > 2 and args[2] else kernel
        padding = list(args[3]) if len(args) > 3 else [0, 0]
        kernel, stride, padding = (v * 2 if len(v) == 1 else v for v in (kernel, stride, padding))
        dilation = list(args[4]) if op != "avg_pool2d" and len(args) > 4 else [1, 1]
        ceil_mode = bool(args[5]) if op != "avg_pool2d" and len(args) > 5 else bool(args[4]) if len(args) > 4 else False
        count_pad = op != "avg_pool2d" or len(args) <= 5 or bool(args[5])
        if dilation != [1, 1] or ceil_mode or not count_pad:
            return Record("other", source)
        return Record("pool", source, {"n": x.shape[0], "c": x.shape[1], "h": x.shape[2], "w": x.shape[3],
                                       "r": kernel[0], "s": kernel[1], "pad_h": padding[0], "pad_w": padding[1],
                                       "stride_h": stride[0], "stride_w": stride[1],
                                       "mode": "avg" if op == "avg_pool2d" else "max"})
    if op in ("mean", "sum") and len(args) >= 2 and isinstance(args[1], (list, tuple)):
        x, dims = args[0], [d % args[0].dim() for d in args[1]]
        trailing = list(range(x.dim() - len(dims), x.dim()))
        if sorted(dims) == trailing:
            cols = math.prod(x.shape[d] for d in dims)
            return Record("reduce", source, {"op": "mean" if op == "mean" else "sum", "rows": x.numel() // cols,
                                             "cols": cols})
        return Record("other", source)
    if op in ("adaptive_avg_pool2d", "_adaptive_avg_pool2d") and tuple(out.shape[-2:]) == (1, 1):
        x = args[0]
        return Record("reduce", source, {"op": "mean", "rows": x.shape[0] * x.shape[1],
                                         "cols": x.shape[2] * x.shape[3]})
    return Record("other", source)


class Recorder(TorchDispatchMode):
    """Records every operator call; RNN modules are recorded by module hooks instead (their inside is one cuDNN
    call on a GPU and a loop of small operators on a CPU), so calls under them are suppressed."""

    def __init__(self, time_ops):
        super().__init__()
        self.records, self.time_ops, self.suppress = [], time_ops, 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if self.suppress or not self.time_ops:
            out = func(*args, **kwargs)
            us = None
        else:
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            out = func(*args, **kwargs)
            stop.record()
            stop.synchronize()
            us = start.elapsed_time(stop) * 1e3
        if not self.suppress:
            rec = to_record(func, args, kwargs, out)
            records = rec if isinstance(rec, list) else [rec] if rec is not None else []
            for r in records:
                # One call that is several cases (a convolution's two gradients) has no time of its own per case.
                r.us = us if len(records) == 1 else None
                self.records.append(r)
        return out


def rnn_hooks(model, recorder):
    """Records nn.LSTM / nn.GRU / nn.RNN calls as rnn cases."""
    handles = []
    cells = {nn.LSTM: "lstm", nn.GRU: "gru"}

    def pre(module, inputs):
        recorder.suppress += 1
        module._opmark_start = None
        if recorder.time_ops:
            module._opmark_start = torch.cuda.Event(enable_timing=True)
            module._opmark_start.record()

    def post(module, inputs, output):
        recorder.suppress -= 1
        x = inputs[0]
        steps, batch = (x.shape[1], x.shape[0]) if module.batch_first else (x.shape[0], x.shape[1])
        cell = cells.get(type(module)) or ("rnn_relu" if module.nonlinearity == "relu" else "rnn_tanh")
        rec = Record("rnn", f"nn.{type(module).__name__}",
                     {"cell": cell, "hidden": module.hidden_size, "batch": batch, "steps": steps,
                      "input": module.input_size, "layers": module.num_layers,
                      "bidir": "yes" if module.bidirectional else "no", "input_mode": "linear"},
                     "fwd" if not module.training else "fwd_train")
        if module._opmark_start is not None:
            stop = torch.cuda.Event(enable_timing=True)
            stop.record()
            stop.synchronize()
            rec.us = module._opmark_start.elapsed_time(stop) * 1e3
        recorder.records.append(rec)

    for m in model.modules():
        if isinstance(m, nn.RNNBase):
            handles.append(m.register_forward_pre_hook(pre))
            handles.append(m.register_forward_hook(post))
    return handles


def run_model(model, inputs, train):
    with torch.set_grad_enabled(train):
        out = model(*inputs)
        if train:
            outputs = out if isinstance(out, (tuple, list)) else [out]
            sum(o.sum() for o in outputs if isinstance(o, torch.Tensor) and o.is_floating_point()).backward()


def recorded_pass(model, inputs, train, time_ops):
    recorder = Recorder(time_ops)
    handles = rnn_hooks(model, recorder)
    with recorder:
        run_model(model, inputs, train)
    for h in handles:
        h.remove()
    return recorder.records


# Timed traces: the first passes load modules, create library handles and let cuDNN pick its algorithms, which
# would put hundreds of milliseconds on the first operators; each operator's time is the median over the timed
# passes after these.
TIMED_WARMUP, TIMED_PASSES = 2, 3


def trace(spec, symbols, device, dtype, time_ops=False, train=False):
    """One forward pass (inference: eval mode, no autograd), or one training step (train mode: forward, then the
    backward of the sum of the outputs, which computes every gradient a real loss would). With time_ops, the
    model first runs TIMED_WARMUP passes untimed, then each operator's time is its median over TIMED_PASSES."""
    torch.manual_seed(0)
    model = spec.build(symbols, device).to(device=device, dtype=dtype)
    model.train(train)
    inputs = spec.inputs(symbols, device, dtype)
    if not time_ops:
        return model, inputs, recorded_pass(model, inputs, train, False)
    for _ in range(TIMED_WARMUP):
        run_model(model, inputs, train)
    torch.cuda.synchronize()
    passes = [recorded_pass(model, inputs, train, True) for _ in range(TIMED_PASSES)]
    records = passes[0]
    for i, rec in enumerate(records):
        times = [p[i].us for p in passes if i < len(p) and p[i].us is not None and p[i].key() == rec.key()]
        rec.us = statistics.median(times) if times else None
    return model, inputs, records


# Training steps are traced on the CPU (torch's meta tensors have no convolution backward in every version) at
# these small inputs; expressions are fitted there and checked at three times them, then hold at any input size.
# A table is written only when every varying field fits an expression (a traced constant from small inputs would
# be wrong at the defaults). Models with RNN modules are left out: the module hooks see only their forward.
TRAIN_TRACE = {
    "resnet50": {"B": 2, "H": 64, "W": 64},
    "vgg16": {"B": 2, "H": 64, "W": 64},
    "mobilenet_v2": {"B": 2, "H": 64, "W": 64},
    "bert_base": {"B": 2, "L": 16},
    "gpt2": {"B": 2, "L": 16},
    "pointnet": {"B": 4, "N": 64},
}


class Expr(str):
    """A field's value written as an expression over the inputs (choice fields stay plain strings)."""


def fit_expression(values, base, symbols):
    """values[s] is the field at base with symbol s doubled; returns the expression text (e.g. 'B*H*W/64') for a
    monomial c * prod(s^e), or None."""
    v0 = values[None]
    if not isinstance(v0, int):
        return None
    if v0 == 0:
        return "0" if all(v == 0 for v in values.values()) else None
    exps = {}
    for s in symbols:
        r = fractions.Fraction(values[s], v0)
        e = 0
        while r > 1 and r.denominator == 1 and r.numerator % 2 == 0:
            r /= 2
            e += 1
        if r != 1:
            return None  # not c * s^e with integer e >= 0
        exps[s] = e
    if not any(exps.values()):
        return str(v0)
    c = fractions.Fraction(v0)
    for s, e in exps.items():
        c /= fractions.Fraction(base[s]) ** e
    factors = [s for s, e in exps.items() for _ in range(e)]
    text = "*".join(([str(c.numerator)] if c.numerator != 1 else []) + factors)
    if c.denominator != 1:
        text += f"/{c.denominator}"
    return text


def evaluate(text, symbols):
    # opmark's integer expressions, left to right: products, then one integer division at the end
    num, _, den = text.partition("/")
    v = 1
    for f in num.split("*"):
        v *= symbols[f] if f in symbols else int(f)
    return v // int(den) if den else v


def symbolic(spec, device, dtype, base=None, train=False):
    base = dict(base or spec.defaults)
    _, _, records = trace(spec, base, device, dtype, train=train)
    doubled = {}
    for s in base:
        sym = dict(base)
        sym[s] = base[s] * 2
        doubled[s] = trace(spec, sym, device, dtype, train=train)[2]
    check_symbols = {s: v * 3 for s, v in base.items()}
    check = trace(spec, check_symbols, device, dtype, train=train)[2]
    same_shape = all(len(r) == len(records) for r in list(doubled.values()) + [check])
    fixed = 0
    for i, rec in enumerate(records):
        for field, v0 in list(rec.fields.items()):
            if not isinstance(v0, int) or not same_shape:
                continue
            values = {None: v0}
            values.update({s: doubled[s][i].fields.get(field) for s in base})
            text = fit_expression(values, base, list(base))
            if text is not None and evaluate(text, check_symbols) == check[i].fields.get(field):
                rec.fields[field] = Expr(text) if not text.isdigit() else int(text)
            else:
                fixed += 1  # it varies with the inputs in a way no monomial reproduces: the traced constant stays
    return records, fixed, same_shape


def aggregate(records):
    merged = collections.OrderedDict()
    for r in records:
        k = r.key()
        if k not in merged:
            merged[k] = [r, 0, []]
        merged[k][1] += 1
        if r.us is not None:
            merged[k][2].append(r.us)
    return merged.values()


def yaml_value(v):
    return str(v)


def write_table(path, spec, records, fixed, scalable, device_name, dtype_name, measured_ms):
    lines = [
        f"# {spec.name}: operator calls of one " +
        ("training step (forward, then backward)" if spec.mode == "train" else f"{spec.mode} forward pass") +
        ", traced by shapes/models/extract_models.py",
        f"# ({datetime.date.today().isoformat()}, torch {torch.__version__}). Shapes are expressions over the inputs;"
        f" {fixed} field(s) kept constant",
        "# because no expression in the inputs reproduced a second trace." if fixed else
        "# (every expression reproduced a trace at 3x the default inputs)." if scalable else
        "# (the operator sequence changes with the inputs: every shape is the traced constant).",
        f"model: {spec.name}",
        f"area: {spec.area}",
        f"task: {spec.task}",
        f'source: "{spec.source}"',
        f"mode: {spec.mode}",
        "inputs: {" + ", ".join(f"{k}: {v}" for k, v in spec.defaults.items()) + "}",
    ]
    if measured_ms is not None:
        lines.append(f'measured: {{device: "{device_name}", precision: {dtype_name}, gpu_time_ms: {measured_ms:.4f}}}')
    lines.append("ops:")
    for rec, calls, times in aggregate(records):
        parts = [f"family: {rec.family}", f"calls: {calls}", f"source_op: \"{rec.source_op}\""]
        if rec.family != "other" and rec.direction != "fwd":
            parts.append(f"direction: {rec.direction}")
        if times:
            parts.append(f"traced_us: {statistics.mean(times):.3f}")
        parts += [f"{k}: {yaml_value(v)}" for k, v in rec.fields.items()]
        lines.append("  - {" + ", ".join(parts) + "}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def measure_ms(model, inputs):
    with torch.no_grad():
        for _ in range(3):
            model(*inputs)
        times = []
        for _ in range(5):
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            model(*inputs)
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop))
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default=",".join(model_zoo.MODELS))
    ap.add_argument("--device", default="meta", help="meta: shapes only, no compute (default); cuda: also times")
    ap.add_argument("--dtype", default="fp32", choices=["fp32", "fp16", "bf16"])
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--train", action="store_true",
                    help="also write <model>_train.yaml: one training step, for the models in TRAIN_TRACE")
    args = ap.parse_args()
    dtype = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[args.dtype]
    for name in args.models.split(","):
        spec = model_zoo.MODELS[name]
        # Shapes and expressions from meta tensors (no compute, no memory), whatever device times the model.
        records, fixed, scalable = symbolic(spec, "meta", torch.float32)
        measured, device_name = None, ""
        if args.device.startswith("cuda"):
            # Timed as a performance-minded user runs it: cuDNN picks the fastest algorithms (as opmark does).
            torch.backends.cudnn.benchmark = True
            model, inputs, timed = trace(spec, dict(spec.defaults), args.device, dtype, time_ops=True)
            attach_times(records, timed, spec.defaults)
            measured = measure_ms(model, inputs)
            device_name = torch.cuda.get_device_name()
            del model, inputs
            torch.cuda.empty_cache()
        write_table(os.path.join(args.out, f"{name}.yaml"), spec, records, fixed, scalable, device_name, args.dtype,
                    measured)
        calls = len(records)
        covered = sum(1 for r in records if r.family != "other")
        print(f"{name}: {calls} operator calls, {covered / max(calls, 1):.0%} in benchmarked families, "
              f"{fixed} constant field(s)" + (f", {measured:.3f} ms on {device_name}" if measured else ""))
        if args.train and name in TRAIN_TRACE:
            write_training_table(spec, args.out)


def write_training_table(spec, out_dir):
    """<model>_train.yaml: one training step traced on the CPU at TRAIN_TRACE's inputs (see there)."""
    records, fixed, scalable = symbolic(spec, "cpu", torch.float32, base=TRAIN_TRACE[spec.name], train=True)
    name = f"{spec.name}_train"
    if fixed or not scalable:
        print(f"{name}: not written: {fixed} field(s) fit no expression of the inputs"
              if scalable else f"{name}: not written: the operator sequence changes with the inputs")
        return
    train_spec = model_zoo.Spec(name, spec.area, f"{spec.task}, training step", spec.source, spec.defaults,
                                spec.build, spec.inputs, mode="train")
    write_table(os.path.join(out_dir, f"{name}.yaml"), train_spec, records, fixed, scalable, "", "fp32", None)
    calls = len(records)
    covered = sum(1 for r in records if r.family != "other")
    print(f"{name}: {calls} operator calls, {covered / max(calls, 1):.0%} in benchmarked families")


def attach_times(records, timed, defaults):
    """Gives each traced call the GPU time of the matching call of the timed trace: same family and the same
    fields at the default inputs, taken in order (the operator names may differ between devices, e.g. batch norm)."""
    def key(family, fields):
        concrete = {k: (evaluate(v, defaults) if isinstance(v, Expr) else v) for k, v in fields.items()}
        return family, tuple(sorted(concrete.items()))
    pool = collections.defaultdict(list)
    for t in timed:
        pool[key(t.family, t.fields) if t.family != "other" else ("other", t.source_op)].append(t.us)
    for rec in records:
        k = key(rec.family, rec.fields) if rec.family != "other" else ("other", rec.source_op)
        if pool.get(k):
            rec.us = pool[k].pop(0)


if __name__ == "__main__":
    sys.exit(main())
