#!/usr/bin/env python3
"""Run to run: the same cases measured in two runs, against issue 36's bands.

    python3 bench/compare/run_to_run.py A/results.jsonl B/results.jsonl

Prints, per band of the case's time (50 us and more: within 2%; 5 us and more: within 5%), how many cases moved
more than the band allows, the worst ones, and the clocks both runs recorded for them; and B's times over A's as a
geometric mean with its range (an A/B of two builds). Each case that moved past its band says why, where the records
tell: another kernel ran, the kernels' own time (CUPTI's kernel_us) moved, or only the time between them did. Cases
either run marked unstable are counted apart: the run itself says their time is not one to rely on. Exits 0 either
way.
"""
import argparse
import math
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from opmark_results import COUNTER, case_records  # noqa: E402

BANDS = [(50.0, 0.02), (5.0, 0.05)]


def apart(x, y):
    """How far apart two positive numbers are: the larger over the smaller, less 1."""
    return max(x, y) / min(x, y) - 1


def cause(ra, rb):
    """Why one case's time moved between two runs, from what the two records carry."""
    ka, kb = ra.get("kernels") or [], rb.get("kernels") or []
    other = "another kernel, " if ka and kb and ka[0] != kb[0] else ""
    ca, cb = ra.get("counters", {}), rb.get("counters", {})
    xa, xb = ca.get(COUNTER.kernel_us, 0), cb.get(COUNTER.kernel_us, 0)
    if xa > 0 and xb > 0:
        return f"{other}kernel_us {xa:.2f} vs {xb:.2f}" + (" (between kernels)" if apart(xa, xb) < 0.02 else "")
    return other.rstrip(", ")


def cycles_moved(ra, rb):
    """How far one case's cycles per launch moved between two runs, or None without both clocks."""
    ka, kb = ra.get("counters", {}).get(COUNTER.sm_clock_mhz, 0), rb.get("counters", {}).get(COUNTER.sm_clock_mhz, 0)
    if not (ka > 0 and kb > 0 and ra["time_us"] > 0 and rb["time_us"] > 0):
        return None
    return apart(ra["time_us"] * ka, rb["time_us"] * kb)


def cases(path):
    """Each measured case's median record (of status ok, as logged), its status the case's last line's (the
    end-of-run re-time's line can turn it unstable)."""
    records, last_status = {}, {}
    for r in case_records(path):
        if r["type"] == "aggregate" and r["aggregate"] == "median" and r["status"] == "ok":
            records[r["name"]] = dict(r)
        last_status[r["name"]] = r["status"]
    for name, r in records.items():
        r["status"] = last_status[name]
    return records


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("a")
    ap.add_argument("b")
    args = ap.parse_args()
    a, b = cases(args.a), cases(args.b)
    common = sorted(set(a) & set(b))
    unstable = [n for n in common if "unstable" in (a[n].get("status"), b[n].get("status"))]
    print(f"run to run: {len(common)} cases in both runs, {len(unstable)} of them marked unstable in either run")
    for n in unstable:
        print(f"    unstable: {n}: {a[n]['time_us']:.2f} ({a[n].get('status')}) vs {b[n]['time_us']:.2f} us "
              f"({b[n].get('status')})")
    common = [n for n in common if n not in unstable]
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
            rows.append((apart(ta, tb), n, ta, tb))
        rows.sort()
        over = [r for r in rows if r[0] > limit]
        worst = rows[-1] if rows else (0, "-", 0, 0)
        print(f"  {floor:g} us and more: {len(rows)} cases, {len(over)} moved more than {limit:.0%} "
              f"(worst {worst[0]:.2%}: {worst[1]})")
        for d, n, ta, tb in (over if over else rows[-3:]):
            ca, cb = a[n].get("counters", {}), b[n].get("counters", {})
            why = cause(a[n], b[n]) if d > limit else ""
            print(f"    {d:.2%} {n}: {ta:.2f} vs {tb:.2f} us at {ca.get(COUNTER.sm_clock_mhz, 0):.0f} / "
                  f"{cb.get(COUNTER.sm_clock_mhz, 0):.0f} MHz" + (f": {why}" if why else ""))
        # In cycles (time x the sample's SM clock), as compare's verdict judges a change: what moved with the clock
        # the power limit left each run, and what moved at the same clock.
        # A case without both clocks counts as moved.
        moved_in_cycles = [r for r in over if (c := cycles_moved(a[r[1]], b[r[1]])) is None or c > limit]
        if over:
            print(f"    in cycles (time x SM clock) {len(moved_in_cycles)} of them moved more than {limit:.0%}")
        print(f"  band {floor:g} us: {'PASS' if not over else 'FAIL'}")


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # piped into head: stop quietly
    main()
