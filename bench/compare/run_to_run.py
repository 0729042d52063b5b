#!/usr/bin/env python3
"""Run to run: the same cases measured in two runs, against issue 36's bands.

    python3 bench/compare/run_to_run.py A/results.jsonl B/results.jsonl

Prints, per band of the case's time (50 us and more: within 2%; 5 us and more: within 5%), how many cases moved
more than the band allows, the worst ones, and the clocks both runs recorded for them; and B's times over A's as a
geometric mean with its range (an A/B of two builds). Exits 0 either way.
"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from opmark_results import median_records  # noqa: E402

BANDS = [(50.0, 0.02), (5.0, 0.05)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("a")
    ap.add_argument("b")
    args = ap.parse_args()
    a = {r["name"]: r for r in median_records(args.a)}
    b = {r["name"]: r for r in median_records(args.b)}
    common = sorted(set(a) & set(b))
    print(f"run to run: {len(common)} cases in both runs")
    if common:
        logs = [math.log(b[n]["time_us"] / a[n]["time_us"]) for n in common
                if a[n]["time_us"] > 0 and b[n]["time_us"] > 0]
        if logs:
            print(f"  B over A: geometric mean {math.exp(sum(logs) / len(logs)):.4f} over {len(logs)} cases, "
                  f"from {math.exp(min(logs)):.3f} to {math.exp(max(logs)):.3f}")
    for floor, limit in BANDS:
        rows = []
        for n in common:
            ta, tb = a[n]["time_us"], b[n]["time_us"]
            if min(ta, tb) < floor:
                continue
            rows.append((max(ta, tb) / min(ta, tb) - 1, n, ta, tb))
        rows.sort()
        over = [r for r in rows if r[0] > limit]
        worst = rows[-1] if rows else (0, "-", 0, 0)
        print(f"  {floor:g} us and more: {len(rows)} cases, {len(over)} moved more than {limit:.0%} "
              f"(worst {worst[0]:.2%}: {worst[1]})")
        for d, n, ta, tb in rows[-3:]:
            ca, cb = a[n].get("counters", {}), b[n].get("counters", {})
            print(f"    {d:.2%} {n}: {ta:.2f} vs {tb:.2f} us at {ca.get('sm_clock_mhz', 0):.0f} / "
                  f"{cb.get('sm_clock_mhz', 0):.0f} MHz")
        print(f"  band {floor:g} us: {'PASS' if not over else 'FAIL'}")


if __name__ == "__main__":
    main()
