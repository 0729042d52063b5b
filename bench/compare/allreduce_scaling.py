#!/usr/bin/env python3
"""All-reduce scaling over GPU counts, from the runs .ci/gpu-allreduce leaves (no GPU or PyTorch needed).

    python3 bench/compare/allreduce_scaling.py DIR [--precision fp32] [--op sum] [--inplace no] [--csv OUT.csv]

DIR holds one folder per GPU count, g2/, g4/, g8/ ..., each with single/results.jsonl (one process over the GPUs),
mpi/results.jsonl (one process per GPU, if MPI ran) and torch.csv (torch_allreduce.py); a results.jsonl.gz serves as
well (docs/allreduce/ keeps them compressed). Prints, per size (bytes per
rank) and GPU count, the busbw (GB/s, nccl-tests' algbw x 2 (n - 1) / n) of each, and the scaling efficiency: busbw
at this count over busbw at the smallest count for the same size and mode. busbw is the bandwidth each GPU's links
carry, so an all-reduce that scales perfectly keeps it constant as GPUs are added (1.00); MLPerf's scaling tables
report the same ratio. Then each opmark mode over torch at each count (above 1: opmark's busbw is higher), and, where
the runs' context states it (peak_link_gb_per_s), the links' bandwidth the busbw is a share of.
"""
import argparse
import csv
import os
import re
import sys

from opmark_results import ALLREDUCE_NAME, COUNTER, median_records, read_records, results_file

SIZES = {"fp32": 4, "fp16": 2, "bf16": 2}


def run_log(folder):
    """The results log of a mode's run folder (results_file: compressed or not), or None where the mode did not run."""
    try:
        return results_file(folder) if os.path.isdir(folder) else None
    except FileNotFoundError:
        return None


def read_opmark(path, want):
    """{bytes per rank: busbw} of the matching median rows of one results.jsonl."""
    out = {}
    if path is None:
        return out
    for rec in median_records(path):
        m = ALLREDUCE_NAME.match(rec["name"])
        if m and (m.group(1), m.group(4), m.group(5)) == want:
            c = rec["counters"]
            out[int(m.group(2)) * SIZES[m.group(1)]] = c[COUNTER.gb_per_s] * c[COUNTER.busbw_factor]
    return out


def read_torch(path, want):
    out = {}
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for row in csv.DictReader(f):
            m = ALLREDUCE_NAME.match(row["case"])
            if m and (m.group(1), m.group(4), m.group(5)) == want:
                out[int(row["bytes"])] = float(row["torch_busbw_gb_per_s"])
    return out


def links_peak(folder, counts):
    """The links' bandwidth per GPU and direction the first run's context states, as text; "" where none does."""
    for g in counts:
        for mode in ("single", "mpi"):
            path = run_log(os.path.join(folder, f"g{g}", mode))
            if path is None:
                continue
            context = next((r["context"] for r in read_records(path) if r["type"] == "context"), {})
            if context.get("peak_link_gb_per_s"):
                return f"{context.get('nvlink', '')} (context of g{g}/{mode}: peak_link_gb_per_s " \
                       f"{context['peak_link_gb_per_s']:g})"
    return ""


def human(n):
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n} B"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--precision", default="fp32")
    ap.add_argument("--op", default="sum")
    ap.add_argument("--inplace", default="no")
    ap.add_argument("--csv")
    args = ap.parse_args(argv)
    want = (args.precision, args.op, args.inplace)
    counts = sorted(int(d[1:]) for d in os.listdir(args.dir) if re.fullmatch(r"g\d+", d))
    if not counts:
        sys.exit(f"{args.dir}: no g<N>/ folders (one per GPU count)")
    modes = {"single": "one process", "mpi": "MPI", "torch": "torch"}
    busbw = {}  # (mode, count) -> {bytes: GB/s}
    for g in counts:
        base = os.path.join(args.dir, f"g{g}")
        busbw[("single", g)] = read_opmark(run_log(os.path.join(base, "single")), want)
        busbw[("mpi", g)] = read_opmark(run_log(os.path.join(base, "mpi")), want)
        busbw[("torch", g)] = read_torch(os.path.join(base, "torch.csv"), want)
    modes = {m: label for m, label in modes.items() if any(busbw[(m, g)] for g in counts)}
    sizes = sorted({s for table in busbw.values() for s in table})
    first = counts[0]
    head = ["bytes/rank"] + [f"{g} GPUs {label}" for g in counts for label in modes.values()]
    head += [f"eff {g}/{first} {label}" for g in counts[1:] for label in modes.values()]
    against_torch = [m for m in modes if m != "torch"] if "torch" in modes else []
    head += [f"{g} GPUs {modes[m]}/torch" for g in counts for m in against_torch]
    first_ratio = 1 + len(counts) * len(modes)  # the row's cells before it are GB/s, from it on ratios
    rows = []
    for s in sizes:
        row = [human(s)]
        for g in counts:
            row += [busbw[(m, g)].get(s) for m in modes]
        for g in counts[1:]:
            for m in modes:
                a, b = busbw[(m, g)].get(s), busbw[(m, first)].get(s)
                row.append(a / b if a is not None and b else None)
        for g in counts:
            for m in against_torch:
                a, b = busbw[(m, g)].get(s), busbw[("torch", g)].get(s)
                row.append(a / b if a is not None and b else None)
        rows.append(row)
    print(f"# all-reduce busbw (GB/s) and scaling efficiency over {first} GPUs: {args.precision}, op {args.op}, "
          f"in place {args.inplace}")
    links = links_peak(args.dir, counts)
    if links:
        print(f"links: {links}")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for row in rows:
        cells = [row[0]] + ["-" if v is None else f"{v:.2f}" if i >= first_ratio else f"{v:.1f}" if v >= 10
                            else f"{v:.3g}" for i, v in enumerate(row[1:], start=1)]
        print("| " + " | ".join(cells) + " |")
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(head)
            w.writerows(rows)


if __name__ == "__main__":
    main()
