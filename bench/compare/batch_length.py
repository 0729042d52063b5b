#!/usr/bin/env python3
"""Does a case's time per launch depend on how many launches one timed graph replay holds?

    python3 bench/compare/batch_length.py RUN/results.jsonl [RUN/results.jsonl ...]

Each run is one --opmark_batch (its context's batch_s); several runs of one batch length are rounds. Prints, per case
and batch length, the median over the rounds of the time per launch, CUPTI's kernel time per launch (kernel_us), the
time between kernels (the two's difference), the launches per replay, the tuner's probe, and what one launch put in
the captured graph (nodes, kernel nodes, dependencies), so that a case whose launches slow down in longer replays
shows it. Exits 0.
"""
import argparse
import os
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from opmark_results import COUNTER, median_records, read_records  # noqa: E402


def batch_of(path):
    for rec in read_records(path):
        if rec.get("type") == "context":
            return float(rec["context"].get("batch_s", 0.001))
    return 0.001


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="+", help="results.jsonl of runs that differ in --opmark_batch")
    args = ap.parse_args()
    seen = defaultdict(lambda: defaultdict(list))  # case -> batch_s -> [(time, kernel, launches, probe)]
    for path in args.runs:
        b = batch_of(path)
        for rec in median_records(path):
            c = rec.get("counters", {})
            seen[rec["name"]][b].append((rec["time_us"], c.get(COUNTER.kernel_us, 0.0), c.get(COUNTER.batch, 0.0),
                                         c.get(COUNTER.probe_us, 0.0), c.get(COUNTER.graph_nodes, 0.0),
                                         c.get(COUNTER.graph_kernel_nodes, 0.0), c.get(COUNTER.graph_edges, 0.0)))
    print("| case | batch ms | rounds | us a launch | kernel_us | between kernels | launches a replay | probe_us | "
          "graph nodes / kernel nodes / edges a launch |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in sorted(seen):
        for b in sorted(seen[name]):
            rows = seen[name][b]
            med = [statistics.median(r[i] for r in rows) for i in range(7)]
            between = med[0] - med[1] if med[1] > 0 else float("nan")
            print(f"| {name} | {b * 1e3:g} | {len(rows)} | {med[0]:.3f} | {med[1]:.3f} | {between:.3f} | "
                  f"{med[2]:.0f} | {med[3]:.3f} | {med[4]:.2f} / {med[5]:.2f} / {med[6]:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
