#!/usr/bin/env python3
"""A short table of what one run measured, for a terminal or a closing note (no PyTorch needed).

    python3 bench/compare/results_summary.py RESULTS [--filter REGEX] [--limit N]

RESULTS: a results.jsonl (or .jsonl.gz), a run folder (--opmark_out) or a bundle folder (results/<bundle>).

Per case: the median time, the eager time (back-to-back launches from the host) and whether the case is launch
bound, how it was timed (graph or eager), its repetitions and noise, the SM clock, power and energy per launch, the
end-of-run re-time, and its status. The last lines count the cases by status and timing mode.
"""
import argparse
import collections
import re
import sys

from opmark_results import COUNTER, case_records


def last_records(path):
    """Each case's median line and its last status (a re-time line can make a case unstable)."""
    medians, status, reason = {}, {}, {}
    for rec in case_records(path):
        name = rec["name"]
        status[name] = rec["status"]
        if rec.get("reason"):
            reason[name] = rec["reason"]
        if rec["type"] == "aggregate" and rec["aggregate"] in ("median", "recheck"):
            prev = medians.get(name, {})
            merged = dict(prev)
            merged.update(rec)
            merged["counters"] = {**prev.get("counters", {}), **rec.get("counters", {})}
            medians[name] = merged
    return medians, status, reason


def fmt(v, spec):
    return "" if v is None else format(v, spec)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", help="results.jsonl[.gz], a run folder or a bundle folder")
    ap.add_argument("--filter", default="")
    ap.add_argument("--limit", type=int, default=0)
    args = ap.parse_args()
    try:
        medians, status, reason = last_records(args.results)
    except (OSError, ValueError) as e:
        print(f"results_summary.py: {e}", file=sys.stderr)
        return 2
    pattern = re.compile(args.filter)
    print("| case | us | eager us | launch bound | timing | reps | noise | SM MHz | W | mJ/launch | re-time us | status |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    shown = 0
    for name, rec in medians.items():
        if not pattern.search(name):
            continue
        if args.limit and shown >= args.limit:
            break
        shown += 1
        c = rec.get("counters", {})
        joules = c.get(COUNTER.joules_per_op)
        print(f"| {name} | {fmt(rec.get('time_us'), '.4g')} | {fmt(c.get(COUNTER.eager_us), '.4g')} | "
              f"{'yes' if c.get(COUNTER.launch_bound) else ''} | {'graph' if c.get(COUNTER.graph) else 'eager'} | "
              f"{fmt(c.get(COUNTER.repetitions), '.0f')} | {fmt(c.get(COUNTER.noise), '.4f')} | "
              f"{fmt(c.get(COUNTER.sm_clock_mhz), '.0f')} | "
              f"{fmt(c.get(COUNTER.power_w), '.0f')} | {fmt(joules * 1e3 if joules else None, '.4g')} | "
              f"{fmt(c.get(COUNTER.recheck_us), '.4g')} | {status.get(name)} |")
    by_status = collections.Counter(status.values())
    timing = collections.Counter("graph" if r.get("counters", {}).get(COUNTER.graph) else "eager"
                                 for r in medians.values())
    bound = sum(1 for r in medians.values() if r.get("counters", {}).get(COUNTER.launch_bound))
    print(f"\ncases by status: {dict(by_status)}; timed by: {dict(timing)}; launch bound (eager > 1.1x graph): {bound}")
    for name, st in status.items():
        if st not in ("ok",):
            print(f"  {st}: {name}: {reason.get(name, '')}"[:400])
    return 0


if __name__ == "__main__":
    sys.exit(main())
