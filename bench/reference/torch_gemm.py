#!/usr/bin/env python3
"""Times opmark GEMM cases through PyTorch's `a @ b`, for comparison with opmark-bench on the same GPU.

    python3 bench/reference/torch_gemm.py RESULTS.jsonl [--filter REGEX] [--limit N]

Reads the median times opmark-bench logged (results.jsonl), times the same problems (m, n, k, batch, precision)
through torch.matmul with CUDA events the way opmark-bench times them (warm-up, batches for short calls, median
over at least 60 ms of samples, random inputs), and prints both.
The problem is the same; PyTorch's row-major layout stands in for the column-major transposes of the case.
fp32 runs with TF32 off, tf32 with it on; int8 goes through torch._int_mm where its shape rules allow;
fp8 is left out (torch._scaled_mm is not `a @ b`).
"""
import argparse
import json
import math
import re
import statistics
import sys

import torch


def parse_name(name):
    parts = name.split("/")
    fields = dict(p.split("=", 1) for p in parts[3:])
    return parts[2], {k: (int(v) if v.isdigit() else v) for k, v in fields.items()}


def time_us(fn, warmup_s=0.01, measure_s=0.06, min_samples=10):
    """Median GPU time per call, measured as opmark-bench measures: warm-up first, calls under 1 ms timed in
    batches of about 2 ms, samples for at least `measure_s` (opmark's 3 repetitions of 0.02 s)."""
    def sample(n):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(n):
            fn()
        stop.record()
        stop.synchronize()
        return start.elapsed_time(stop) * 1e3 / n
    per_call, spent = sample(1), 0.0
    while spent < warmup_s * 1e6:
        per_call = sample(1)
        spent += per_call
    per_call = sample(min(2000, max(1, math.ceil(2000 / per_call))))  # a lone call's time is inflated by launch overhead
    batch = 1 if per_call >= 1000 else min(2000, math.ceil(2000 / per_call))
    times, spent = [], 0.0
    while spent < measure_s * 1e6 or len(times) < min_samples:
        t = sample(batch)
        times.append(t)
        spent += t * batch
    return statistics.median(times)


def torch_case(precision, f):
    m, n, k, batch = f["m"], f["n"], f["k"], f["batch"]
    torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
    shape_a = (batch, m, k) if batch > 1 else (m, k)
    shape_b = (batch, k, n) if batch > 1 else (k, n)
    if precision == "int8":
        if batch > 1 or m <= 16 or k % 8 or n % 8:
            return None
        a = torch.randint(-127, 128, shape_a, dtype=torch.int8, device="cuda")
        b = torch.randint(-127, 128, shape_b, dtype=torch.int8, device="cuda")
        return lambda: torch._int_mm(a, b)
    dtype = {"fp32": torch.float32, "tf32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}.get(precision)
    if dtype is None:
        return None
    a = torch.rand(shape_a, device="cuda", dtype=dtype) * 2 - 1
    b = torch.rand(shape_b, device="cuda", dtype=dtype) * 2 - 1
    return lambda: a @ b


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results")
    ap.add_argument("--filter", default=".")
    ap.add_argument("--limit", type=int, default=1000)
    args = ap.parse_args()
    medians = {}
    with open(args.results) as f:
        for line in f:
            rec = json.loads(line)
            if rec.get("type") == "aggregate" and rec.get("aggregate") == "median" and rec.get("status") == "ok":
                medians[rec["name"]] = rec
    pattern = re.compile(args.filter)
    names = [n for n in medians if n.startswith("gemm/") and pattern.search(n)][: args.limit]
    print(f"{'case':<60} {'opmark us':>10} {'torch us':>10} {'opmark TF':>9} {'torch TF':>9} {'torch/opmark':>12}")
    slower = 0
    for name in names:
        precision, f = parse_name(name)
        fn = torch_case(precision, f)
        if fn is None:
            continue
        theirs = time_us(fn)
        ours = medians[name]["time_us"]
        flops = 2.0 * f["m"] * f["n"] * f["k"] * f["batch"]
        ratio = theirs / ours
        slower += ratio < 1.0
        print(f"{name:<60} {ours:>10.2f} {theirs:>10.2f} {flops / ours / 1e6:>9.1f} "
              f"{flops / theirs / 1e6:>9.1f} {ratio:>12.3f}")
    print(f"{slower} case(s) where torch was faster than opmark (ratio < 1)")


if __name__ == "__main__":
    sys.exit(main())
