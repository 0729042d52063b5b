#!/usr/bin/python3
"""The imported models' table of docs/models.md: each ONNX table's real times and coverage (its `measured:` entry
and header) beside its sequential and parallel bounds from `opmark-aggregate scores RUN --models=... --format json`.

    /usr/bin/python3 shapes/models/onnx_report.py SCORES.json [SCORES.json ...] [--tables shapes/models/onnx]

A model's bounds come from the last scores file that names it. Prints a Markdown table.
"""
import argparse
import json
import os
import re
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))


def table_facts(path):
    """(the measured entry of the first GPU, kernel-time share in families, calls, `other` calls) of one table."""
    text = open(path).read()
    table = yaml.safe_load(text)
    measured = table.get("measured") or [{}]
    measured = measured if isinstance(measured, list) else [measured]
    share = re.search(r"in benchmarked families [0-9.]+ ms \(([0-9.]+)%\)", text)
    calls = sum(int(op.get("calls", 1)) for op in table["ops"])
    other = sum(int(op.get("calls", 1)) for op in table["ops"] if op["family"] == "other")
    return measured[0], share.group(1) + "%" if share else "-", calls, other


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("scores", nargs="+", help="opmark-aggregate scores --format json outputs")
    p.add_argument("--tables", default=os.path.join(HERE, "onnx"), help="the folder of the imported tables")
    a = p.parse_args(argv)
    scored = {}
    for path in a.scores:
        for m in json.load(open(path))["models"]:
            scored[m["name"]] = dict(m, source=os.path.basename(path).split(".")[0])
    print("| model | graph | eager | kernel | real (kind) | kernel time in families | calls | `other` "
          "| sequential | parallel | sequential / real | parallel / real | run |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name in sorted(f[:-5] for f in os.listdir(a.tables) if f.endswith(".yaml")):
        measured, share, calls, other = table_facts(os.path.join(a.tables, name + ".yaml"))
        s = scored.get(name)
        times = [f'{measured[k]:.3f}' if k in measured else "-" for k in ("graph_ms", "eager_ms", "kernel_ms")]
        if s is None:
            bounds = ["-"] * 6
        else:
            real = s["kernel_ms"] if s["real_kind"] == "kernel" else s["graph_ms"]
            bounds = [f'{real:.3f} ({s["real_kind"]})', f'{s["score_ms"]:.3f}', f'{s["parallel_ms"]:.3f}',
                      f'{s["score_over_real"]:.2f}', f'{s["parallel_ms"] / real:.2f}', s["source"]]
        print(f"| {name} | " + " | ".join(times + bounds[:1] + [share, str(calls), str(other)] + bounds[1:]) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
