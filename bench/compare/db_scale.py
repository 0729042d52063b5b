#!/usr/bin/env python3
"""The results database at scale (issue 56): a year of nightly runs made from a committed bundle, ingested, then a
one-case history and a full regression scan timed through opmark-aggregate db.

    python3 bench/compare/db_scale.py --aggregate build/release/aggregate/opmark-aggregate \
        [--bundle results/nvidia-h200] [--runs 365] [--work /tmp/opmark_db_scale] [--db postgresql://...]

Each night is the bundle's results log with its own start time, and every case's times (its repetitions and median)
moved by a seeded random factor of up to 0.5% (noise) so the scan has work; from 55% of the nights on, the pool family runs 5% slower (a step
the scan must find). Prints the database's size, the ingest rate in case lines a second, and the two query times.
"""
import argparse
import gzip
import json
import os
import random
import shutil
import subprocess
import sys
import time


def nights(bundle, runs, work, step_from):
    path = os.path.join(bundle, "run", "results.jsonl.gz")
    with gzip.open(path, "rt") as f:
        lines = f.read().splitlines()
    rng = random.Random(56)
    case_lines = sum(1 for line in lines if '"name"' in line)
    files = []
    for night in range(runs):
        out, factor = [], {}  # one factor a case a night, over its repetitions and median alike
        for line in lines:
            rec = json.loads(line)
            if rec.get("type") == "context":
                day = time.strftime("%Y-%m-%dT03:00:00Z", time.gmtime(1735700000 + night * 86400))
                rec["context"]["started_at"] = day
                rec["context"]["cudnn_version"] = "9.14.0" if night < step_from else "9.19.0"
            elif "time_us" in rec and rec.get("aggregate") in (None, "median"):  # repetitions and the median
                if rec["name"] not in factor:
                    step = 1.05 if night >= step_from and rec["name"].startswith("pool/") else 1.0
                    factor[rec["name"]] = step * (1 + rng.uniform(-0.005, 0.005))
                rec["time_us"] *= factor[rec["name"]]
            out.append(json.dumps(rec, separators=(",", ":")))
        name = os.path.join(work, f"night{night:03d}.jsonl")
        with open(name, "w") as f:
            f.write("\n".join(out) + "\n")
        files.append(name)
    return files, case_lines


def timed(cmd):
    start = time.perf_counter()
    run = subprocess.run(cmd, capture_output=True, text=True)
    return time.perf_counter() - start, run


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--aggregate", required=True)
    p.add_argument("--bundle", default="results/nvidia-h200")
    p.add_argument("--runs", type=int, default=365)
    p.add_argument("--work", default="/tmp/opmark_db_scale")
    p.add_argument("--step-from", type=int, help="the first night of the 5%% step (default: 55%% of the runs)")
    p.add_argument("--keep", action="store_true", help="keep the work folder (the database and the nights)")
    p.add_argument("--db", help="a postgresql:// URL of an empty database to use instead of a SQLite file in the work "
                               "folder (test/db/with_postgres.sh starts a server of its own: its URL is "
                               "$OPMARK_TEST_POSTGRES)")
    a = p.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    files, case_lines = nights(a.bundle, a.runs, a.work, a.step_from if a.step_from is not None else a.runs * 55 // 100)
    db = a.db or os.path.join(a.work, "scale.db")
    seconds, run = timed([a.aggregate, "db", "--db", db, "ingest"] + files)
    if run.returncode:
        print(run.stderr, file=sys.stderr)
        return 1
    total = case_lines * len(files)
    print(f"ingest: {len(files)} runs, {total} case lines in {seconds:.1f} s: {total / seconds:,.0f} case lines/s")
    if not a.db:
        print(f"database: {os.path.getsize(db) / 2**20:.0f} MiB")
    case = next(json.loads(line)["name"] for line in gzip.open(os.path.join(a.bundle, "run", "results.jsonl.gz"), "rt")
                if '"aggregate":"median"' in line.replace(" ", ""))
    seconds, run = timed([a.aggregate, "db", "--db", db, "history", "^" + case.replace("+", "\\+") + "$"])
    print(f"one-case history ({case}): {seconds * 1e3:.0f} ms, {len(run.stdout.splitlines()) - 1} points")
    seconds, run = timed([a.aggregate, "db", "--db", db, "regressions"])
    print(f"regression scan: {seconds:.1f} s; {run.stdout.splitlines()[0] if run.stdout else run.stderr.strip()}")
    if not a.keep:
        shutil.rmtree(a.work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
