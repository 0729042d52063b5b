#!/usr/bin/env python3
"""Burst beside sustained: time, SM clock, power and energy per case of two runs.

    python3 bench/compare/regime_table.py BURST/results.jsonl SUSTAINED/results.jsonl
    python3 bench/compare/regime_table.py --energy A/results.jsonl B/results.jsonl

The first form prints each case's burst time and clock (and whether any sample was dropped or the case throttled),
its energy window (power, J/op), the sustained measurement a heavy case got in the burst run, and the sustained
run's time, clock, power and J/op. --energy holds two runs' J/op against each other (e.g. the per-case window
against --opmark_energy_window=2) and checks J/op = power x time and power against the enforced limit.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from opmark_results import COUNTER, median_records, read_records  # noqa: E402


def context(path):
    for r in read_records(path):
        if r.get("type") == "context":
            return r.get("context", r)
    return {}


def fmt(v, spec=".1f"):
    return "-" if v is None else format(v, spec)


def regime_table(burst_path, sustained_path):
    b = {r["name"]: r for r in median_records(burst_path)}
    s = {r["name"]: r for r in median_records(sustained_path)}
    print("| case | burst us | MHz | dropped | throttled | window W | J/op | sustained us (burst run) | "
          "sustained us | MHz | W | J/op | sustained/burst |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name in sorted(set(b) | set(s)):
        rb, rs = b.get(name, {}), s.get(name, {})
        cb, cs = rb.get("counters", {}), rs.get("counters", {})
        ratio = rs["time_us"] / rb["time_us"] if rb.get("time_us") and rs.get("time_us") else None
        print(f"| {name} | {fmt(rb.get('time_us'), '.2f')} | {fmt(cb.get(COUNTER.sm_clock_mhz), '.0f')} | "
              f"{fmt(cb.get(COUNTER.discarded_samples), '.0f')} | {rb.get('status', '-')}"
              f"{' (throttled)' if cb.get(COUNTER.throttled) else ''} | {fmt(cb.get(COUNTER.power_w))} | "
              f"{fmt(cb.get(COUNTER.joules_per_op), '.4g')} | {fmt(cb.get(COUNTER.sustained_us), '.2f')} | "
              f"{fmt(rs.get('time_us'), '.2f')} | {fmt(cs.get(COUNTER.sm_clock_mhz), '.0f')} | "
              f"{fmt(cs.get(COUNTER.power_w))} | "
              f"{fmt(cs.get(COUNTER.joules_per_op), '.4g')} | {fmt(ratio, '.3f')} |")


def energy_table(a_path, b_path):
    a = {r["name"]: r for r in median_records(a_path)}
    b = {r["name"]: r for r in median_records(b_path)}
    limit = float(context(a_path).get("power_limit_w", 0) or 0)
    margin = float(context(a_path).get("power_margin", 0.05) or 0.05)
    for name in sorted(set(a) & set(b)):
        ca, cb = a[name].get("counters", {}), b[name].get("counters", {})
        for label, c in (("per case", ca), ("long window", cb)):
            jop, p, t = c.get(COUNTER.joules_per_op), c.get(COUNTER.power_w), c.get(COUNTER.energy_us)
            consistent = jop and p and t and abs(jop / (p * t * 1e-6) - 1) <= 0.02
            under = p is not None and (not limit or p <= limit * (1 + margin))
            print(f"{name} [{label}]: J/op {fmt(jop, '.5g')} power {fmt(p)} W over "
                  f"{fmt(c.get(COUNTER.energy_window_ms))} ms at {fmt(c.get(COUNTER.energy_sm_clock_mhz), '.0f')} MHz, "
                  f"energy_us {fmt(t, '.2f')}, "
                  f"uncertainty {fmt(c.get(COUNTER.energy_uncertainty), '.3f')}; J/op = P x t: {bool(consistent)}; "
                  f"power within limit {limit:g} W + {margin:.0%}: {under}")
        if ca.get(COUNTER.joules_per_op) and cb.get(COUNTER.joules_per_op):
            d = ca[COUNTER.joules_per_op] / cb[COUNTER.joules_per_op] - 1
            print(f"  per case / long window: {d:+.2%} ({'PASS' if abs(d) <= 0.05 else 'FAIL'} at 5%)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--energy", action="store_true", help="hold two runs' J/op against each other")
    ap.add_argument("a")
    ap.add_argument("b")
    args = ap.parse_args()
    (energy_table if args.energy else regime_table)(args.a, args.b)


if __name__ == "__main__":
    main()
