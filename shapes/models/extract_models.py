#!/usr/bin/env python3
"""Traces real models and writes their operator tables (shapes/models/<model>.yaml), OpBench style.

    python3 shapes/models/extract_models.py [--models resnet50,bert_base] [--device meta|cuda] [--dtype fp16]
                                            [--out shapes/models] [--train] [--record-calls DIR]
                                            [--fuse-residual-norm] [--diagnose-graph]
                                            [--channels-last | --fused-rmsnorm]

Each model runs as its users run it (random weights, no downloads; Hugging Face transformers for BERT, GPT-2 and
Llama, with attn_implementation="sdpa"), in eval mode without autograd, under two recorders: a torch-function
mode that sees each scaled_dot_product_attention and rms_norm call whole (whatever fused back end runs it, and on
meta tensors, where it would decompose), and a dispatch mode that sees every other operator sent to the device.
Every call maps to an opmark family and its fields (op_mapping.py says how: attention, gemm, conv, pointwise,
reduce, gather, permute, batchnorm, pool, rnn); a decomposed RMSNorm (pow, mean, add, rsqrt, mul) becomes one
reduce op=rmsnorm; anything else is kept as family `other` with its operator name, so coverage is reported
honestly.
--fuse-residual-norm writes each residual add followed by its norm as one add_layernorm / add_rmsnorm (the fused
kernel of inference libraries: a what-if, since the eager model runs two kernels; off by default).

Variants: the framework configured otherwise than by default, each written as its own table with its own real time
(asked for by name: not in opmark's "all" nor in the areas):
  --channels-last  the model and its 4-D inputs in torch.channels_last: <model>_channels_last.yaml, with
                   `memory_format: channels_last`, every 2D convolution an NHWC case;
  --fused-rmsnorm  every RMSNorm module runs torch.nn.functional.rms_norm (PyTorch's fused kernel on CUDA) instead
                   of its own pow-mean-rsqrt-mul: <model>_fused_rmsnorm.yaml, with `framework_config: fused_rmsnorm`,
                   each norm one reduce op=rmsnorm call (aten::rms_norm).

Shapes become expressions over the model's input symbols (B, H, W, L, N, T): the model is traced again with each
symbol doubled, a field that doubles with B is written `B`, one that halves per stride-2 stage `H/2`, ... ; a third
trace at three times the inputs must reproduce every traced shape from the expressions, and a field whose
expression does not is written as its constant (and counted in the table's header). Shapes come from meta tensors
(no compute, no memory) in the precision asked for; a branch on a meta tensor's value (HF's "is the mask all ones")
takes the True side, and a model that still cannot run on meta is traced on --device instead.

With --device cuda the model also runs on the GPU at its default inputs:
  - each call's kernel time (traced_us) from torch.profiler: the device time of the kernels launched inside the
    call (a record_function range around each recorded call), median over 3 profiled passes after 2 warm-up
    passes; no event pairs around synchronised calls, so no launch latency is in it;
  - measured: {device, precision, graph_ms, eager_ms, kernel_ms}: graph_ms the median time of a CUDA-graph replay
    of the whole forward pass (the model without launch gaps, what opmark's score is compared with), eager_ms the
    median eager forward pass (with Python and launch gaps), kernel_ms the profiler's total kernel time of a pass;
  - the table's header says the kernel time covered by benchmarked families (and the largest `other` ops).
  - a graph_ms above what a correct capture gives (above 1.05x eager_ms, or 1.10x kernel_ms) is flagged:
    a header line says so with the numbers and measured gets graph_suspect: true (the score check then uses
    kernel_ms). --diagnose-graph (with --device cuda; writes no table) prints, per model, the 15 largest kernels of
    one graph replay beside those of one eager pass, to see what the graph runs differently.
--add-measured (with --device cuda) traces no shapes: it times each model as above and merges only this GPU's
measured entry into the existing table in --out (measured_entries.py: an entry of the same device and precision is
replaced, others stay; the ops are untouched), with the date and the software (torch, cuDNN, driver versions). A
full trace keeps the previous table's entries of other GPUs and precisions the same way.
With --record-calls DIR each model's profiled pass is also written as DIR/<model>.calls.jsonl (one call per line:
op, args, kwargs, out as shapes and strides, kernel us): the recorded-trace format of test/data/traces/.

--train also writes <model>_train.yaml, one training step (forward, then backward), for the models in TRAIN_TRACE:
traced on the CPU at small inputs (a convolution's backward has no meta kernel in every torch), with the same
expression fitting and 3x check, written only when every varying field fits an expression.

The GPU command (about 15-25 minutes on one H100, most of it Llama's 7B/8B builds; needs torch, torchvision,
transformers):

    python3 shapes/models/extract_models.py --device cuda --dtype fp16 --record-calls /tmp/opmark_calls
    python3 shapes/models/extract_models.py --train-only --models resnet50,vgg16,mobilenet_v2,bert_base,gpt2,pointnet

The real times on another GPU, the tables as they are (one command per GPU):

    python3 shapes/models/extract_models.py --device cuda --dtype fp16 --add-measured
"""
import argparse
import re
import collections
import datetime
import fractions
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import op_mapping  # noqa: E402
from op_mapping import (Record, TensorInfo, VIEW_OPS, attribute_kernels, coverage, encode,  # noqa: E402
                        fuse_residual_norm, fuse_rmsnorm, kernel_totals, map_call, top_uncovered)
import measured_entries  # noqa: E402

# --fuse-residual-norm: residual add + norm as one add_layernorm / add_rmsnorm (what fused inference kernels do;
# eager models run two kernels, so the default is off).
FUSE_RESIDUAL_NORM = False
# --fused-rmsnorm: the model's RMSNorm modules run torch's fused rms_norm (use_fused_rmsnorm); the table says so
# with its framework_config header key.
FUSED_RMSNORM = False
FUSED_RMSNORM_CONFIG = "fused_rmsnorm"


def is_rmsnorm_module(m):
    """An RMSNorm module --fused-rmsnorm replaces: a class named *RMSNorm (HF's LlamaRMSNorm, model_zoo's, torch's
    nn.RMSNorm) with a weight and an epsilon (variance_epsilon or eps)."""
    return type(m).__name__.endswith("RMSNorm") and getattr(m, "weight", None) is not None and \
        rmsnorm_eps(m) is not None


def rmsnorm_eps(m):
    eps = getattr(m, "variance_epsilon", None)
    return eps if eps is not None else getattr(m, "eps", None)


def use_fused_rmsnorm(model, rms_norm=None):
    """--fused-rmsnorm: each RMSNorm module of `model` (is_rmsnorm_module) runs rms_norm(x, weight's shape, weight,
    eps), by default torch.nn.functional.rms_norm, in place of its own forward; returns how many were replaced.
    x and the weight stay in the model's dtype (fp16 here), which is what a user calling the fused function gets:
    torch's kernel accumulates in fp32 and rounds once, where HF's forward rounds x to fp16 before the weight's
    multiply (a weight of another dtype than x would send torch to its unfused composite instead)."""
    norms = [m for m in model.modules() if is_rmsnorm_module(m)]
    if norms and rms_norm is None:
        import torch.nn.functional as F
        rms_norm = F.rms_norm

    def fused_forward(module, eps):
        # The weight is looked up at each call: a later .to(dtype) or .to(device) of the model stays in effect.
        return lambda x: rms_norm(x, tuple(module.weight.shape), module.weight, eps)

    for m in norms:
        m.forward = fused_forward(m, rmsnorm_eps(m))
    return len(norms)


def variant_spec(model_zoo, spec, suffix, task_note):
    """The spec of a variant's table: the model as `spec` builds it, named <model>_<suffix>, its task noting how the
    framework was configured."""
    return model_zoo.Spec(f"{spec.name}_{suffix}", spec.area, f"{spec.task}, {task_note}", spec.source,
                          spec.defaults, spec.build, spec.inputs, mode=spec.mode,
                          uncovered=getattr(spec, "uncovered", ""))


def as_configured(spec, model, inputs):
    """The model and inputs as the run asks: the memory format (in_memory_format), and with --fused-rmsnorm the
    fused RMSNorm (a model without an RMSNorm module is an error: its table would claim a configuration it lacks)."""
    if FUSED_RMSNORM and use_fused_rmsnorm(model) == 0:
        raise SystemExit(f"{spec.name}: --fused-rmsnorm: the model has no RMSNorm module (a class named *RMSNorm "
                         "with a weight and variance_epsilon or eps)")
    return in_memory_format(model, inputs)


def in_memory_format(model, inputs):
    """The model and inputs as the run asks: unchanged, or with --channels-last (op_mapping.CHANNELS_LAST_MODEL, as
    fp16 CNNs are run for speed) channels last, every 4-D tensor, nested or not."""
    if not op_mapping.CHANNELS_LAST_MODEL:
        return model, inputs
    import torch

    def convert(v):
        if isinstance(v, torch.Tensor):
            return v.contiguous(memory_format=torch.channels_last) if v.dim() == 4 else v
        if isinstance(v, (list, tuple)):
            return type(v)(convert(x) for x in v)
        if isinstance(v, dict):
            return {k: convert(x) for k, x in v.items()}
        return v
    return model.to(memory_format=torch.channels_last), convert(inputs)


def patterns(records):
    """The sequence patterns applied to one pass's records: the RMSNorm, and optionally the residual add + norm."""
    records, _ = fuse_rmsnorm(records)
    if FUSE_RESIDUAL_NORM:
        records, _ = fuse_residual_norm(records)
    return records

# The models --models defaults to (the tables the areas score); model_zoo.MODELS has more (the naive-attention
# transformers of earlier tables, Llama-3-8B), traced when named.
DEFAULT_MODELS = ["resnet50", "vgg16", "mobilenet_v2", "ssd300", "fasterrcnn_resnet50_fpn", "fcn_resnet50",
                  "deeplabv3_resnet50", "pointnet", "pointnet2", "dgcnn", "bert_base", "gpt2", "llama7b",
                  "deepspeech2", "lstm_lm", "dlrm"]


# ---- recording (torch is imported here, not at the top: the mapping and the tests run without it) ----

def tensor_info(t, mask=False):
    """A torch tensor as op_mapping sees it; an attention mask on a real device also gets its pattern."""
    info = TensorInfo(tuple(t.shape), tuple(t.stride()), str(t.dtype).replace("torch.", ""))
    if mask and t.device.type != "meta" and t.dim() >= 2:
        info.mask = mask_pattern(t)
    return info


def mask_pattern(m):
    """causal, none (nothing masked) or other, from an attention mask's values: bool (True: attend) or additive
    (0: attend, a large negative number: masked), broadcast over its leading dimensions."""
    import torch
    allowed = m if m.dtype == torch.bool else m > torch.finfo(m.dtype).min / 2
    lq, lk = m.shape[-2], m.shape[-1]
    if bool(allowed.all()):
        return "none"
    causal = torch.ones(lq, lk, dtype=torch.bool, device=m.device).tril(lk - lq)
    return "causal" if bool((allowed == causal).all()) else "other"


def infos(v, mask=False):
    import torch
    if isinstance(v, torch.Tensor):
        return tensor_info(v, mask)
    if isinstance(v, (list, tuple)):
        return [infos(x) for x in v]
    if isinstance(v, dict):
        return {k: infos(x, mask and k in ("attn_mask", "attn_bias")) for k, x in v.items()}
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return str(v)


class State:
    """The recorders' shared state: the records, the calls so far (a record's `call` is its index), the depth of
    calls being recorded whole (inside them nothing else is), and the profiler ranges when timing."""

    def __init__(self, label=False, meta_branches=False, keep_calls=False):
        self.records, self.calls, self.suppress = [], 0, 0
        self.label, self.meta_branches, self.assumed = label, meta_branches, 0
        self.call_log = [] if keep_calls else None
        self._ranges = {}

    def open(self):
        n = self.calls
        self.calls += 1
        self.suppress += 1
        if self.label:
            import torch
            rf = torch.profiler.record_function(f"opmark#{n}")
            rf.__enter__()
            self._ranges[n] = rf
        return n

    def close(self, n):
        rf = self._ranges.pop(n, None)
        if rf is not None:
            rf.__exit__(None, None, None)
        self.suppress -= 1

    def record_call(self, func, args, kwargs):
        """Runs func as call number n, recorded whole (open .. close): returns (n, its output)."""
        n = self.open()
        try:
            return n, func(*args, **kwargs)
        finally:
            self.close(n)

    def add(self, rec, n, op=None, args=None, kwargs=None, out=None):
        records = rec if isinstance(rec, list) else [rec] if rec is not None else []
        for r in records:
            r.call = n if len(records) == 1 else None  # one call of several cases has no time per case
            self.records.append(r)
        if self.call_log is not None and op is not None:
            self.call_log.append({"call": n, "op": op, "args": encode(args), "kwargs": encode(kwargs or {}),
                                  "out": encode(out)})


# Functions recorded whole by the torch-function mode, one call each, whatever the dispatcher makes of them below:
# SDPA picks a back end per device, and rms_norm runs torch's fused kernel on CUDA but its composite of pow, mean,
# rsqrt and mul elsewhere, meta included: seen above the dispatcher, the shape and timed traces hold the same call.
WHOLE_FUNCTIONS = {"scaled_dot_product_attention", "rms_norm"}


def make_modes(state):
    """(torch-function mode, dispatch mode) recording into `state`."""
    import torch
    from torch.overrides import TorchFunctionMode
    from torch.utils._python_dispatch import TorchDispatchMode

    class Functions(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            name = getattr(func, "__name__", "")
            if name in ("__bool__", "item") and state.meta_branches and args and \
                    isinstance(args[0], torch.Tensor) and args[0].is_meta and \
                    (name == "__bool__" or args[0].dtype == torch.bool):
                state.assumed += 1  # a branch on a meta value (HF: "is the mask all ones?"): take the True side
                return True
            if name not in WHOLE_FUNCTIONS or state.suppress:
                return func(*args, **kwargs)
            n, out = state.record_call(func, args, kwargs)
            attention = name == "scaled_dot_product_attention"
            state.suppress += 1  # reading the mask's pattern runs operators: not the model's
            try:
                a = [infos(x, mask=attention and i == 3) for i, x in enumerate(args)]
                k, o = infos(kwargs, mask=attention), infos(out)
            finally:
                state.suppress -= 1
            state.add(map_call(name, a, k, o), n, name, a, k, o)
            return out

    class Dispatch(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            op = func.overloadpacket.__name__
            if state.suppress or op in VIEW_OPS:
                return func(*args, **kwargs)
            n, out = state.record_call(func, args, kwargs)
            a, k, o = infos(list(args)), infos(kwargs), infos(out)
            state.add(map_call(op, a, k, o), n, op, a, k, o)
            return out

    return Functions(), Dispatch()


def module_hooks(model, state):
    """RNN modules (nn.LSTM / GRU / RNN) are recorded whole as rnn cases: on a GPU they are one cuDNN call, on a
    CPU a loop of small operators; the calls inside them are not recorded."""
    import torch.nn as nn
    handles = []
    cells = {nn.LSTM: "lstm", nn.GRU: "gru"}

    def pre(module, inputs):
        module._opmark_call = state.open()

    def post(module, inputs, output):
        n = module._opmark_call
        state.close(n)
        x = inputs[0]
        steps, batch = (x.shape[1], x.shape[0]) if module.batch_first else (x.shape[0], x.shape[1])
        cell = cells.get(type(module)) or ("rnn_relu" if module.nonlinearity == "relu" else "rnn_tanh")
        rec = Record("rnn", f"nn.{type(module).__name__}",
                     {"cell": cell, "hidden": module.hidden_size, "batch": batch, "steps": steps,
                      "input": module.input_size, "layers": module.num_layers,
                      "bidir": "yes" if module.bidirectional else "no", "input_mode": "linear"},
                     "fwd" if not module.training else "fwd_train")
        state.add(rec, n)

    for m in model.modules():
        if isinstance(m, nn.RNNBase):
            handles.append(m.register_forward_pre_hook(pre))
            handles.append(m.register_forward_hook(post))
    return handles


def run_model(model, inputs, train):
    import torch
    with torch.set_grad_enabled(train):
        out = model(*inputs)
        if train:
            outputs = out if isinstance(out, (tuple, list)) else [out]
            if hasattr(out, "to_tuple"):  # a transformers ModelOutput
                outputs = out.to_tuple()
            sum(o.float().sum() for o in outputs
                if isinstance(o, torch.Tensor) and o.is_floating_point()).backward()
    return out


def recorded_pass(model, inputs, train, state):
    functions, dispatch = make_modes(state)
    handles = module_hooks(model, state)
    try:
        with functions, dispatch:
            run_model(model, inputs, train)
    finally:
        for h in handles:
            h.remove()
    return state.records  # as recorded: fuse_rmsnorm groups them once their times are known


# Timed traces: the first passes load modules, create library handles and let cuDNN pick its algorithms; each
# call's time is its median over the profiled passes after these.
TIMED_WARMUP, TIMED_PASSES = 2, 3


def chrome_trace(prof):
    """A finished torch.profiler run as the dict of its Chrome trace (what op_mapping reads)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "trace.json")
        prof.export_chrome_trace(path)
        with open(path) as f:
            return json.load(f)


def profiled_pass(model, inputs, train, keep_calls=False):
    """One recorded pass under torch.profiler: records with us = the kernel time inside each call, the pass's
    whole kernel time and the part launched outside every recorded call (us), and the call log if asked."""
    import torch
    from torch.profiler import ProfilerActivity, profile
    state = State(label=True, keep_calls=keep_calls)
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        recorded_pass(model, inputs, train, state)
        torch.cuda.synchronize()
    names = {}
    per_call, total, lost = attribute_kernels(chrome_trace(prof), names)
    calls_with_records = {r.call for r in state.records if r.call is not None}
    for r in state.records:  # before fusion: a fused RMSNorm sums its parts' times
        r.us = per_call.get(r.call, 0.0) if r.call is not None else None
        r.kernels = names.get(r.call) if r.call is not None else None
    records = patterns(state.records)
    lost += sum(us for call, us in per_call.items() if call not in calls_with_records)
    if state.call_log is not None:
        for c in state.call_log:
            c["us"] = round(per_call.get(c["call"], 0.0), 3)
    return records, total, lost, state.call_log


def trace(spec, symbols, device, dtype, train=False):
    """The records of one forward pass (inference: eval mode, no autograd), or one training step (train mode:
    forward, then the backward of the sum of the outputs, which computes every gradient a real loss would)."""
    import torch
    torch.manual_seed(0)
    model = spec.build(symbols, device).to(device=device, dtype=dtype)
    model.train(train)
    model, inputs = as_configured(spec, model, spec.inputs(symbols, device, dtype))
    state = State(meta_branches=(str(device) == "meta"))
    records = patterns(recorded_pass(model, inputs, train, state))
    del model, inputs
    return records, state.assumed


def inference_model(spec, device, dtype):
    """The model in eval mode at its default inputs on `device` (seeded: every build has the same weights), and
    those inputs."""
    import torch
    torch.manual_seed(0)
    symbols = dict(spec.defaults)
    model = spec.build(symbols, device).to(device=device, dtype=dtype)
    model.train(False)
    return as_configured(spec, model, spec.inputs(symbols, device, dtype))


def timed_trace(spec, device, dtype, keep_calls=False):
    """At the default inputs on the GPU: the records with each call's kernel time (median over the profiled
    passes), the pass's total kernel time and unattributed time (us, medians), the model and inputs, the call log
    of the first profiled pass."""
    import torch
    model, inputs = inference_model(spec, device, dtype)
    for _ in range(TIMED_WARMUP):
        run_model(model, inputs, False)
    torch.cuda.synchronize()
    passes = [profiled_pass(model, inputs, False, keep_calls and i == 0) for i in range(TIMED_PASSES)]
    records = passes[0][0]
    for i, rec in enumerate(records):
        times = [p[0][i].us for p in passes if i < len(p[0]) and p[0][i].us is not None and
                 p[0][i].key() == rec.key()]
        rec.us = statistics.median(times) if times else None
    total = statistics.median(p[1] for p in passes)
    lost = statistics.median(p[2] for p in passes)
    return records, total, lost, model, inputs, passes[0][3]


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
    monomial c * prod(s^e), else for an affine a * s + k in one symbol ('L+1': a concatenation of the sequence with
    one more position), or None."""
    return fit_monomial(values, base, symbols) or fit_affine(values, base, symbols)


def fit_monomial(values, base, symbols):
    v0 = values[None]
    if not isinstance(v0, int):
        return None
    if v0 == 0:
        return "0" if all(v == 0 for v in values.values()) else None
    exps = {}
    for s in symbols:
        if not isinstance(values[s], int):
            return None
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


def fit_affine(values, base, symbols):
    """a * s + k with integer a > 0 and k != 0, where s is the one symbol whose doubling changes the value."""
    v0 = values[None]
    if not isinstance(v0, int) or not all(isinstance(values[s], int) for s in symbols):
        return None
    moved = [s for s in symbols if values[s] != v0]
    if len(moved) != 1:
        return None
    s = moved[0]
    a = fractions.Fraction(values[s] - v0, base[s])
    if a.denominator != 1 or a <= 0:
        return None
    k = v0 - int(a) * base[s]
    if k == 0:
        return None  # a monomial, which fit_monomial would have found
    return (f"{int(a)}*{s}" if a != 1 else s) + (f"+{k}" if k > 0 else f"-{-k}")


def evaluate(text, symbols):
    # opmark's integer expressions as the fits write them: sums of products, one integer division at the end of a
    # monomial (positive values: flooring and truncating agree)
    total = 0
    for sign, term in re.findall(r"([+-]?)([^+-]+)", text):
        num, _, den = term.partition("/")
        v = 1
        for f in num.split("*"):
            v *= symbols[f] if f in symbols else int(f)
        v = v // int(den) if den else v
        total += -v if sign == "-" else v
    return total


def fit_records(records, doubled, check, base, check_symbols):
    """Writes each integer field of `records` (traced at `base`) as an expression fitted on the traces with one
    symbol doubled and checked on the trace at `check_symbols`; returns (the fields kept constant, same call
    sequence). A field kept constant is described with its traced values, for the message of a table not written:
    "aten::op field {None: base value, symbol: value with it doubled, ..., '3x': value at 3x}"."""
    same_shape = all(len(r) == len(records) for r in list(doubled.values()) + [check])
    unfitted = []
    for i, rec in enumerate(records):
        for field, v0 in list(rec.fields.items()):
            if not isinstance(v0, int) or isinstance(v0, bool) or not same_shape:
                continue
            values = {None: v0}
            values.update({s: doubled[s][i].fields.get(field) for s in base})
            text = fit_expression(values, base, list(base))
            if text is not None and evaluate(text, check_symbols) == check[i].fields.get(field):
                rec.fields[field] = Expr(text) if not text.isdigit() else int(text)
            else:
                # it varies with the inputs in a way no fitted expression reproduces: the traced constant stays
                values["3x"] = check[i].fields.get(field)
                unfitted.append(f"{rec.source_op} {field} {values}")
    return unfitted, same_shape


def symbolic(spec, device, dtype, base=None, train=False):
    """The records at `base` (default: the model's inputs) with expressions, the fields kept constant (fit_records),
    whether the call sequence stays the same, and how many data-dependent branches on meta values were assumed
    True."""
    base = dict(base or spec.defaults)
    records, assumed = trace(spec, base, device, dtype, train=train)
    doubled = {}
    for s in base:
        sym = dict(base)
        sym[s] = base[s] * 2
        doubled[s] = trace(spec, sym, device, dtype, train=train)[0]
    check_symbols = {s: v * 3 for s, v in base.items()}
    check = trace(spec, check_symbols, device, dtype, train=train)[0]
    unfitted, same_shape = fit_records(records, doubled, check, base, check_symbols)
    return records, unfitted, same_shape, assumed


def aggregate(records):
    merged = collections.OrderedDict()
    for r in records:
        k = r.key()
        if k not in merged:
            merged[k] = [r, 0, []]
        if merged[k][0].kernels is None and r.kernels:
            merged[k][0] = r
        merged[k][1] += 1
        if r.us is not None:
            merged[k][2].append(r.us)
    return merged.values()


KERNEL_NAMES_KEPT = 3
KERNEL_NAME_CHARS = 100


def kernel_names(kernels):
    """A call's kernels for the table, longest-running first: each name (anonymous namespaces left out) up to its
    argument list and at most KERNEL_NAME_CHARS long (template arguments tell kernels apart; parameter lists only
    repeat them)."""
    names = []
    for name, _ in sorted(kernels.items(), key=lambda kv: -kv[1]):
        name = name.replace("(anonymous namespace)::", "")
        short = name.split("(", 1)[0].strip() if not name.startswith("(") else name
        short = short[:KERNEL_NAME_CHARS]
        if short not in names:
            names.append(short)
    return names[:KERNEL_NAMES_KEPT]


def yaml_value(v):
    return f'"{v}"' if isinstance(v, str) and not isinstance(v, Expr) and v.isdigit() else str(v)


def coverage_comment(cov, uncovered, note):
    """The header lines on kernel time and its coverage (cov: op_mapping.coverage over the timed records)."""
    lines = [f"# Kernel time of one pass at the default inputs (torch.profiler): {cov['total_us'] / 1e3:.3f} ms; "
             f"in benchmarked families {cov['covered_us'] / 1e3:.3f} ms ({cov['coverage']:.1%}),",
             f"# in `other` ops {cov['other_us'] / 1e3:.3f} ms, in no call of this table "
             f"{cov['unattributed_us'] / 1e3:.3f} ms (launched outside every recorded call, or by a timed call no "
             "traced call matched)."]
    fams = ", ".join(f"{f} {us / 1e3:.3f}" for f, us in sorted(cov["families"].items(), key=lambda kv: -kv[1]))
    lines.append(f"# By family (ms): {fams}.")
    if uncovered:
        lines.append("# Largest `other` ops (ms): " + ", ".join(f"{op} {us / 1e3:.3f}" for op, us in uncovered) +
                     ".")
    if note:
        lines.append(f"# uncovered: {note}")
    return lines


def write_table(path, spec, records, fixed, scalable, measured=None, header=(), torch_version=""):
    """measured: {device, precision, graph_ms, eager_ms, kernel_ms, graph_suspect} (values None are left out) or
    None."""
    lines = [
        f"# {spec.name}: operator calls of one " +
        ("training step (forward, then backward)" if spec.mode == "train" else f"{spec.mode} forward pass") +
        ", traced by shapes/models/extract_models.py",
        f"# ({datetime.date.today().isoformat()}, torch {torch_version}). Shapes are expressions over the inputs;"
        f" {fixed} field(s) kept constant",
        "# because no expression in the inputs reproduced a second trace." if fixed else
        "# (every expression reproduced a trace at 3x the default inputs)." if scalable else
        "# (the operator sequence changes with the inputs: every shape is the traced constant).",
    ]
    lines += list(header)
    lines += [
        f"model: {spec.name}",
        f"area: {spec.area}",
        f"task: {spec.task}",
        f'source: "{spec.source}"',
        f"mode: {spec.mode}",
    ]
    if op_mapping.CHANNELS_LAST_MODEL:
        lines.append("memory_format: channels_last")
    if FUSED_RMSNORM:
        lines.append(f"framework_config: {FUSED_RMSNORM_CONFIG}")
    lines += [
        "inputs: {" + ", ".join(f"{k}: {v}" for k, v in spec.defaults.items()) + "}",
    ]
    if measured:
        parts = [f'device: "{measured["device"]}"', f"precision: {measured['precision']}"]
        parts += [f"{k}: {measured[k]:.4f}" for k in ("graph_ms", "eager_ms", "kernel_ms")
                  if measured.get(k) is not None]
        if measured.get("graph_suspect"):
            parts.append("graph_suspect: true")
        parts += [f'{k}: "{measured[k]}"' for k in ("date", "software") if measured.get(k)]
        lines.append("measured: {" + ", ".join(parts) + "}")
    lines.append("ops:")
    for rec, calls, times in aggregate(records):
        parts = [f"family: {rec.family}", f"calls: {calls}", f"source_op: \"{rec.source_op}\""]
        if rec.family != "other" and rec.direction != "fwd":
            parts.append(f"direction: {rec.direction}")
        if times:
            parts.append(f"traced_us: {statistics.mean(times):.3f}")
        if rec.kernels:
            parts.append("kernels: [" + ", ".join(json.dumps(k) for k in kernel_names(rec.kernels)) + "]")
        parts += [f"{k}: {yaml_value(v)}" for k, v in rec.fields.items()]
        lines.append("  - {" + ", ".join(parts) + "}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def measure_eager_ms(model, inputs, passes=5):
    """Median time of an eager forward pass (CUDA events around it: the launch gaps count)."""
    import torch
    with torch.no_grad():
        for _ in range(3):
            model(*inputs)
        times = []
        for _ in range(passes):
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            model(*inputs)
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop))
    return statistics.median(times)


def capture_graph(model, inputs):
    """The forward pass captured as a CUDA graph, after warm-up passes on a side stream (as torch's docs ask);
    raises where the model cannot be captured."""
    import torch
    with torch.no_grad():
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                model(*inputs)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            model(*inputs)
    return graph


def measure_graph_ms(model, inputs, passes=5, replays=5):
    """Median time of one replay of the forward pass captured as a CUDA graph (no launch gaps), or (None, why)."""
    import torch
    try:
        graph = capture_graph(model, inputs)
        for _ in range(3):
            graph.replay()
        times = []
        for _ in range(passes):
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(replays):
                graph.replay()
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop) / replays)
        del graph
        return statistics.median(times), ""
    except Exception as e:  # a model that syncs with the host or allocates outside the graph's pool
        torch.cuda.synchronize()
        return None, f"{type(e).__name__}: {e}"


# A graph replay runs the eager pass's kernels without its launch gaps, so it is not slower than the eager pass, nor
# much slower than the eager pass's profiled kernel total. A graph_ms above these bounds timed other work than the
# model's pass: on the H100 (2026-11-24, --diagnose-graph) transformers' BertModel ran its attention unfused in fp32
# under capture (413 kernels, 39.9 ms, against 154 kernels and 7.7 ms eagerly). The table flags it (graph_suspect)
# and the score check uses kernel_ms instead. A replay may be well below the kernel total: kernels the pass puts on
# several streams overlap in the graph (DeepSpeech2's two GRU directions: 32.7 ms replayed, 48.2 ms of kernels).
# The margins leave room for timing noise and for the few percent a graph still spends between kernels (vision
# models: 1.00-1.04x their kernel time).
GRAPH_OVER_EAGER_MAX = 1.05
GRAPH_OVER_KERNEL_MAX = 1.10


def graph_suspicion(graph_ms, eager_ms, kernel_ms):
    """The header line saying why graph_ms is not the model's time, or "" where it is within the bounds."""
    if graph_ms is None:
        return ""
    why = []
    if eager_ms and graph_ms > GRAPH_OVER_EAGER_MAX * eager_ms:
        why.append(f"{graph_ms / eager_ms:.2f}x the eager pass ({eager_ms:.3f} ms), which has the same kernels "
                   "and the launch gaps besides")
    if kernel_ms and graph_ms > GRAPH_OVER_KERNEL_MAX * kernel_ms:
        why.append(f"{graph_ms / kernel_ms:.2f}x the eager pass's profiled kernel time ({kernel_ms:.3f} ms)")
    if not why:
        return ""
    instead = f"kernel_ms ({kernel_ms:.3f} ms)" if kernel_ms else "kernel_ms"
    return (f"# graph_ms suspect: the CUDA-graph replay ({graph_ms:.3f} ms) is " + "; and ".join(why) +
            f"; the score check uses {instead} instead (graph_suspect: true).")


# ---- --diagnose-graph: which kernels a graph replay runs that the eager pass does not (or runs slower) ----

DIAGNOSE_TOP = 15
DIAGNOSE_NAME_WIDTH = 60  # kernel names are long templates: their starts tell them apart


def profiled_kernels(run):
    """{kernel name: [launches, total us]} of the kernels `run()` puts on the GPU, from torch.profiler."""
    import torch
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        run()
        torch.cuda.synchronize()
    return kernel_totals(chrome_trace(prof))


def kernels_side_by_side(graph_kernels, eager_kernels, top=DIAGNOSE_TOP, width=DIAGNOSE_NAME_WIDTH):
    """The `top` largest kernels by total time of a graph replay and of an eager pass, one row each side by side
    (name, count, total us), under a line with each side's kernel count and total."""
    def largest(kernels):
        return sorted(kernels.items(), key=lambda kv: -kv[1][1])[:top]

    def cell(item):
        if item is None:
            return " " * (width + 18)
        name, (count, us) = item
        return f"{name[:width]:<{width}} {count:>6} {us:>10.1f}"

    def summary(label, kernels):
        return (f"{label}: {sum(c for c, _ in kernels.values())} kernels, "
                f"{sum(us for _, us in kernels.values()):.1f} us")

    g, e = largest(graph_kernels), largest(eager_kernels)
    lines = [f"{summary('graph replay', graph_kernels):<{width + 18}} | {summary('eager pass', eager_kernels)}",
             f"{'kernel':<{width}} {'count':>6} {'total us':>10} | {'kernel':<{width}} {'count':>6} {'total us':>10}"]
    for i in range(max(len(g), len(e))):
        lines.append((cell(g[i] if i < len(g) else None) + " | " + cell(e[i] if i < len(e) else None)).rstrip())
    return "\n".join(lines)


def diagnose_graph(spec, device, dtype):
    """Prints the largest kernels of one CUDA-graph replay of the model beside those of one eager pass, so a GPU
    session sees what the graph runs differently (a graph slower than the eager pass runs other kernels: SDPA
    picking another back end under capture, say)."""
    import torch
    model, inputs = inference_model(spec, device, dtype)
    graph = capture_graph(model, inputs)  # after its warm-up passes: the eager pass below is warm too
    graph_kernels = profiled_kernels(graph.replay)
    with torch.no_grad():
        eager_kernels = profiled_kernels(lambda: model(*inputs))
    print(f"{spec.name}: the {DIAGNOSE_TOP} largest kernels of one CUDA-graph replay (left) and one eager pass "
          "(right), by total time")
    print(kernels_side_by_side(graph_kernels, eager_kernels))
    del graph, model, inputs
    torch.cuda.empty_cache()


def attach_times(records, timed, defaults):
    """Gives each traced call the kernel time of the matching call of the timed trace: same family and the same
    fields at the default inputs, taken in order (the operator names may differ between devices, e.g. batch
    norm). Returns the timed records no traced call matched (their time is reported, not lost)."""
    def key(family, fields):
        concrete = {k: (evaluate(v, defaults) if isinstance(v, Expr) else v) for k, v in fields.items()}
        return family, tuple(sorted(concrete.items()))
    pool = collections.defaultdict(list)
    for t in timed:
        pool[key(t.family, t.fields) if t.family != "other" else ("other", t.source_op)].append(t)
    for rec in records:
        k = key(rec.family, rec.fields) if rec.family != "other" else ("other", rec.source_op)
        if pool.get(k):
            timed_rec = pool[k].pop(0)
            rec.us, rec.kernels = timed_rec.us, timed_rec.kernels
    return [t for ts in pool.values() for t in ts]


def shape_trace(spec, device, dtype, base=None, train=False):
    """symbolic() on meta tensors, or on `device` when the model cannot run on meta (a value it must read)."""
    try:
        return symbolic(spec, "meta", dtype, base, train) + ("meta",)
    except Exception as e:  # noqa: BLE001 (any failure of the model's own code on meta)
        if not str(device).startswith("cuda"):
            raise
        print(f"{spec.name}: no meta trace ({type(e).__name__}: {str(e).splitlines()[0][:200]}); "
              f"tracing shapes on {device}", file=sys.stderr)
        return symbolic(spec, device, dtype, base, train) + (device,)


def software_versions():
    """torch, cuDNN and driver versions, one line: what a measured entry's real times depend on besides the GPU."""
    import torch
    parts = [f"torch {torch.__version__}"]
    v = torch.backends.cudnn.version()
    if v:
        # cuDNN 9 numbers its version major*10000 + minor*100 + patch, cuDNN 8 major*1000 + minor*100 + patch.
        major, rest = divmod(v, 10000) if v >= 90000 else divmod(v, 1000)
        parts.append(f"cuDNN {major}.{rest // 100}.{rest % 100}")
    try:
        smi = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=60)
        if smi.returncode == 0 and smi.stdout.strip():
            parts.append(f"driver {smi.stdout.split()[0]}")
    except (OSError, subprocess.SubprocessError):
        pass  # no nvidia-smi: the entry says what it knows
    return ", ".join(parts)


def real_times(model, inputs, kernel_us, precision):
    """The measured entry of the GPU this runs on (graph, eager and kernel times) and the table's header lines
    about it (a failed capture, a suspect graph time)."""
    import torch
    header = []
    graph_ms, why = measure_graph_ms(model, inputs)
    if graph_ms is None:
        header.append(f"# No CUDA-graph time: capture failed ({why[:150]}).")
    eager_ms = measure_eager_ms(model, inputs)
    measured = {"device": torch.cuda.get_device_name(), "precision": precision, "graph_ms": graph_ms,
                "eager_ms": eager_ms, "kernel_ms": kernel_us / 1e3}
    suspicion = graph_suspicion(graph_ms, eager_ms, kernel_us / 1e3)
    if suspicion:
        header.append(suspicion)
        measured["graph_suspect"] = True
    return measured, header


def add_measured(spec, device, dtype, precision, out_dir):
    """--add-measured: this GPU's entry merged into the existing table; its ops stay as they are."""
    import torch
    path = os.path.join(out_dir, f"{spec.name}.yaml")
    if not os.path.exists(path):
        raise SystemExit(f"{spec.name}: no table {path} to add a measured entry to (trace it without --add-measured)")
    torch.backends.cudnn.benchmark = True  # as the full trace times it
    _, total, _, model, inputs, _ = timed_trace(spec, device, dtype)
    measured, header = real_times(model, inputs, total, precision)
    for line in header:
        print(f"{spec.name}: {line[2:]}", file=sys.stderr)
    measured["date"] = datetime.date.today().isoformat()
    measured["software"] = software_versions()
    measured_entries.merge_into_file(path, measured)
    print(f"{spec.name}: {measured_entries.entry_text(measured)} -> {path}")
    del model, inputs
    torch.cuda.empty_cache()


def keep_other_entries(path, previous_text, measured):
    """A retraced table keeps the previous table's entries of other GPUs and precisions (their real times do not
    depend on this trace)."""
    mine = (measured["device"], measured["precision"]) if measured else None
    for text in measured_entries.entry_texts(previous_text):
        entry = measured_entries.parse_flow_map(text)
        if (entry.get("device"), entry.get("precision")) != mine:
            measured_entries.merge_into_file(path, text)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default=",".join(DEFAULT_MODELS))
    ap.add_argument("--device", default="meta", help="meta: shapes only, no compute (default); cuda: also times")
    ap.add_argument("--dtype", default="fp32", choices=["fp32", "fp16", "bf16"])
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--train", action="store_true",
                    help="also write <model>_train.yaml: one training step, for the models in TRAIN_TRACE")
    ap.add_argument("--train-only", action="store_true",
                    help="write only the <model>_train.yaml tables (the forward tables stay as they are)")
    ap.add_argument("--fuse-residual-norm", action="store_true",
                    help="write each residual add + layer norm / RMSNorm as one add_layernorm / add_rmsnorm (the "
                         "fused kernel of inference libraries; eager models run two)")
    ap.add_argument("--channels-last", action="store_true",
                    help="trace and time the model and its 4-D inputs in torch.channels_last (NHWC); writes "
                         "<model>_channels_last.yaml (conv cases in NHWC), scored against its own real time")
    ap.add_argument("--fused-rmsnorm", action="store_true",
                    help="trace and time the model with every RMSNorm module running torch.nn.functional.rms_norm "
                         "(PyTorch's fused kernel); writes <model>_fused_rmsnorm.yaml (framework_config: "
                         "fused_rmsnorm), scored against its own real time")
    ap.add_argument("--record-calls", default="",
                    help="with --device cuda: write each model's profiled calls to DIR/<model>.calls.jsonl")
    ap.add_argument("--add-measured", action="store_true",
                    help="with --device cuda: trace no shapes, only merge this GPU's measured entry (its date and "
                         "software versions) into each existing table in --out")
    ap.add_argument("--diagnose-graph", action="store_true",
                    help="with --device cuda, only diagnose: print the largest kernels of one CUDA-graph replay "
                         "beside one eager pass, per model (no table is written)")
    args = ap.parse_args()
    if args.diagnose_graph and not args.device.startswith("cuda"):
        ap.error("--diagnose-graph needs --device cuda")
    if args.add_measured and not args.device.startswith("cuda"):
        ap.error("--add-measured needs --device cuda (it measures the model on this GPU)")
    global FUSE_RESIDUAL_NORM, FUSED_RMSNORM
    FUSE_RESIDUAL_NORM = args.fuse_residual_norm
    op_mapping.CHANNELS_LAST_MODEL = args.channels_last
    if args.channels_last and (args.train or args.train_only):
        ap.error("--channels-last writes forward tables only (no --train or --train-only)")
    FUSED_RMSNORM = args.fused_rmsnorm
    if args.fused_rmsnorm and (args.train or args.train_only or args.channels_last):
        ap.error("--fused-rmsnorm writes forward tables only, one variant per table (no --train, --train-only or "
                 "--channels-last)")
    import torch
    import model_zoo
    dtype = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[args.dtype]
    names = list(model_zoo.MODELS) if args.models == "all" else args.models.split(",")
    if args.diagnose_graph:
        torch.backends.cudnn.benchmark = True  # the kernel choices of the timed traces
        for name in names:
            diagnose_graph(model_zoo.MODELS[name], args.device, dtype)
        return 0
    for name in names:
        spec = model_zoo.MODELS[name]
        if args.channels_last:  # the table of the variant: <model>_channels_last.yaml, with its own real time
            spec = variant_spec(model_zoo, spec, "channels_last", "channels_last")
        if args.fused_rmsnorm:  # <model>_fused_rmsnorm.yaml, with its own real time
            spec = variant_spec(model_zoo, spec, FUSED_RMSNORM_CONFIG, "RMSNorm as torch.nn.functional.rms_norm")
        if args.add_measured:
            add_measured(spec, args.device, dtype, args.dtype, args.out)
            continue
        if args.train_only:
            if name in TRAIN_TRACE:
                write_training_table(spec, args.out, torch.__version__)
            continue
        records, unfitted, scalable, assumed, traced_on = shape_trace(spec, args.device, dtype)
        fixed = len(unfitted)
        measured, header = None, []
        if assumed:
            header.append(f"# ({assumed} branch(es) on a meta tensor's value taken as True while tracing shapes.)")
        summary = ""
        if args.device.startswith("cuda"):
            # Timed as a performance-minded user runs it: cuDNN picks the fastest algorithms (as opmark does).
            torch.backends.cudnn.benchmark = True
            timed, total, lost, model, inputs, calls = timed_trace(spec, args.device, dtype, bool(args.record_calls))
            unmatched = attach_times(records, timed, spec.defaults)
            cov = coverage(records, total)
            header += coverage_comment(cov, top_uncovered(records), getattr(spec, "uncovered", ""))
            if unmatched:
                us = sum(t.us or 0 for t in unmatched)
                header.append(f"# {len(unmatched)} timed call(s) ({us / 1e3:.3f} ms) matched no traced call "
                              f"(traced on {traced_on}): " +
                              ", ".join(sorted({t.source_op for t in unmatched})[:8]))
            measured, timing_header = real_times(model, inputs, total, args.dtype)
            measured["date"] = datetime.date.today().isoformat()
            measured["software"] = software_versions()
            header += timing_header
            if measured.get("graph_suspect"):
                print(f"{name}: {timing_header[-1][2:]}", file=sys.stderr)
            graph_ms, eager_ms = measured["graph_ms"], measured["eager_ms"]
            if calls is not None:
                os.makedirs(args.record_calls, exist_ok=True)
                with open(os.path.join(args.record_calls, f"{name}.calls.jsonl"), "w") as f:
                    for c in calls:
                        f.write(json.dumps(c) + "\n")
            summary = (f", kernel time {total / 1e3:.3f} ms, {cov['coverage']:.1%} in families, graph "
                       f"{graph_ms if graph_ms is None else round(graph_ms, 3)} ms, eager {eager_ms:.3f} ms on "
                       f"{measured['device']}")
            del model, inputs
            torch.cuda.empty_cache()
        path = os.path.join(args.out, f"{spec.name}.yaml")
        previous = ""
        if os.path.exists(path):
            with open(path) as f:
                previous = f.read()
        write_table(path, spec, records, fixed, scalable, measured, header, torch.__version__)
        keep_other_entries(path, previous, measured)
        calls_n = len(records)
        covered = sum(1 for r in records if r.family != "other")
        print(f"{spec.name}: {calls_n} operator calls, {covered / max(calls_n, 1):.0%} in benchmarked families, "
              f"{fixed} constant field(s){summary}")
        if args.train and name in TRAIN_TRACE:
            write_training_table(spec, args.out, torch.__version__)


def write_training_table(spec, out_dir, torch_version):
    """<model>_train.yaml: one training step traced on the CPU at TRAIN_TRACE's inputs (see there)."""
    import torch
    import model_zoo
    model_zoo.ATTENTION_DROPOUT = 0.0  # the fused attention calls the GPU runs (see model_zoo.ATTENTION_DROPOUT)
    try:
        records, unfitted, scalable, _ = symbolic(spec, "cpu", torch.float32, base=TRAIN_TRACE[spec.name],
                                                  train=True)
    finally:
        model_zoo.ATTENTION_DROPOUT = None
    name = f"{spec.name}_train"
    if unfitted or not scalable:
        print(f"{name}: not written: {len(unfitted)} field(s) fit no expression of the inputs "
              f"({'; '.join(unfitted)})"
              if scalable else f"{name}: not written: the operator sequence changes with the inputs")
        return
    train_spec = model_zoo.Spec(name, spec.area, f"{spec.task}, training step", spec.source, spec.defaults,
                                spec.build, spec.inputs, mode="train")
    write_table(os.path.join(out_dir, f"{name}.yaml"), train_spec, records, len(unfitted), scalable, None, (),
                torch_version)
    calls = len(records)
    covered = sum(1 for r in records if r.family != "other")
    print(f"{name}: {calls} operator calls, {covered / max(calls, 1):.0%} in benchmarked families")


if __name__ == "__main__":
    sys.exit(main())
