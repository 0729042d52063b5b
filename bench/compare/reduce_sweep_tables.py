#!/usr/bin/env python3
"""The two tables of the reduce family's sweep_shapes set (docs/pytorch.md, "Reductions and norms against
PyTorch"), from a sweep's files.

    reduce_sweep_tables.py RUNS_DIR [RUNS_DIR ...]

Each RUNS_DIR holds what `.ci/gpu-trust reduce_sweep` writes per precision: reduce_<p>/results.jsonl (opmark) and
torch_reduce_<p>.csv (torch_compare.py over it). Prints, in markdown:
  1. opmark's time over PyTorch's per op, precision and column count; **bold** where more than 5% slower;
  2. % of the measured copy bandwidth where a row fits one SM's shared memory (227 KiB on an H100), and past it with
     the input's reads.
"""
import argparse
import csv
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from opmark_results import COUNTER  # noqa: E402

OPS = ["softmax", "log_softmax", "layernorm", "rmsnorm", "add_layernorm", "add_rmsnorm", "sum", "mean", "max"]
PRECISIONS = ["fp16", "bf16", "fp32"]
ELEMENT_BYTES = {"fp16": 2, "bf16": 2, "fp32": 4}
SHARED_BYTES = 227 * 1024
CASE = re.compile(r"reduce/fwd/(?P<p>\w+)/op=(?P<op>\w+)/rows=\d+/cols=(?P<cols>\d+)/impl=opmark")


def parse_case(name):
    m = CASE.match(name)
    return (m["op"], m["p"], int(m["cols"])) if m else None


def read_ratios(path):
    ratios = {}
    with open(path) as f:
        for row in csv.DictReader(f):
            key = parse_case(row["case"])
            if key and row["torch_us"]:
                ratios[key] = float(row["opmark_us"]) / float(row["torch_us"])
    return ratios


def read_medians(path):
    medians = {}
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            key = parse_case(r.get("name", ""))
            if key and r.get("aggregate") == "median" and r.get("status") == "ok":
                medians[key] = r["counters"]
    return medians


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", help="directories holding reduce_<p>/results.jsonl and torch_reduce_<p>.csv")
    args = ap.parse_args()
    ratios, medians = {}, {}
    for d in args.runs:
        for p in PRECISIONS:
            csv_path, jsonl = os.path.join(d, f"torch_reduce_{p}.csv"), os.path.join(d, f"reduce_{p}", "results.jsonl")
            if os.path.exists(csv_path):
                ratios.update(read_ratios(csv_path))
            if os.path.exists(jsonl):
                medians.update(read_medians(jsonl))
    if not ratios:
        sys.exit("no torch_reduce_<precision>.csv under " + ", ".join(args.runs))
    cols = sorted({c for (_, _, c) in ratios})
    behind = sum(1 for r in ratios.values() if r > 1.05)
    print(f"{len(ratios)} cases against PyTorch, {behind} more than 5% slower\n")
    print("| op | precision | " + " | ".join(map(str, cols)) + " |")
    print("|---|---|" + "---|" * len(cols))
    for op in OPS:
        for p in PRECISIONS:
            cells = []
            for c in cols:
                r = ratios.get((op, p, c))
                cells.append("" if r is None else f"**{r:.2f}**" if r > 1.05 else f"{r:.2f}")
            if any(cells):
                print(f"| {op} | {p} | " + " | ".join(cells) + " |")
    if not medians:
        return
    print("\n| op | precision | rows fit shared memory: cases | >= 85% of copy | lowest % of copy (cols) "
          "| rows past shared memory: % of copy (reads) |")
    print("|---|---|---|---|---|---|")
    for op in OPS:
        for p in PRECISIONS:
            fit, past = [], []
            for c in cols:
                m = medians.get((op, p, c))
                if not m or COUNTER.pct_copy_bw not in m:
                    continue
                (fit if c * ELEMENT_BYTES[p] <= SHARED_BYTES else past).append((m[COUNTER.pct_copy_bw], c, m))
            if not fit and not past:
                continue
            lowest = min(fit) if fit else None
            past_cells = ", ".join(f"{pct:.0f}% ({c}: {int(m.get(COUNTER.input_passes, 1))} "
                                   f"read{'s' if m.get(COUNTER.input_passes, 1) != 1 else ''})" for pct, c, m in past)
            print(f"| {op} | {p} | {len(fit)} | {sum(1 for pct, _, _ in fit if pct >= 85)} | "
                  f"{f'{lowest[0]:.0f}% ({lowest[1]})' if lowest else ''} | {past_cells} |")


if __name__ == "__main__":
    main()
