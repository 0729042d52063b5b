#!/usr/bin/env python3
"""A resumed run is a whole run: the checks `.ci/gpu-trust resume` makes of each run folder it resumed.

    python3 bench/compare/resume_check.py RUN_DIR [RUN_DIR ...]

For each folder: results.jsonl has one context line first and one summary line last, whose counts are the cases'
last statuses; each case has its lines once (one median for a timed case); where the context says recheck: on,
each ok or unstable case has exactly one re-time line, after every case's own lines; benchmark.json holds one entry
for each case with a median and no other, and benchmark.resumed.json is gone. Prints one line per folder and exits 1
if any check failed.
"""
import argparse
import json
import os
import re
import sys


def check(folder):
    problems = []
    lines = [json.loads(l) for l in open(os.path.join(folder, "results.jsonl"), encoding="utf-8") if l.strip()]
    if not lines or lines[0].get("type") != "context":
        return ["no context line first"]
    if sum(1 for l in lines if l.get("type") == "context") != 1:
        problems.append("more than one context line")
    if lines[-1].get("type") != "summary":
        problems.append("no summary line last")
    status, medians, rechecks, last_case_line, first_recheck = {}, {}, {}, 0, None
    for i, l in enumerate(lines):
        if l.get("type") not in ("run", "aggregate"):
            continue
        name = l["name"]
        if l.get("aggregate") == "recheck":
            rechecks[name] = rechecks.get(name, 0) + 1
            first_recheck = i if first_recheck is None else first_recheck
        else:
            last_case_line = i
            if l.get("aggregate") == "median":
                medians[name] = medians.get(name, 0) + 1
        status[name] = l.get("status")
    twice = [n for n, k in medians.items() if k > 1]
    if twice:
        problems.append("%d case(s) with two medians, e.g. %s" % (len(twice), twice[0]))
    if lines[0]["context"].get("recheck") == "on":
        timed = [n for n, s in status.items() if s in ("ok", "unstable") and n in medians]
        missing = [n for n in timed if rechecks.get(n, 0) != 1]
        if missing:
            problems.append("%d timed case(s) without exactly one re-time line, e.g. %s" % (len(missing), missing[0]))
        if first_recheck is not None and first_recheck < last_case_line:
            problems.append("a re-time line before a case's own lines")
    counts = {}
    for s in status.values():
        counts[s] = counts.get(s, 0) + 1
    summary = lines[-1]
    for s in ("ok", "unstable", "skipped", "failed"):
        if summary.get(s, 0) != counts.get(s, 0):
            problems.append("summary says %s %s, the cases %d" % (summary.get(s, 0), s, counts.get(s, 0)))
    text = open(os.path.join(folder, "benchmark.json"), encoding="utf-8").read()
    doc = json.loads(re.sub(r"(?<=[:\[,\s])(-?(?:nan|inf))(?=[,\s\]}])", "null", text))
    entries = [b["name"].removesuffix("/manual_time") for b in doc["benchmarks"]]
    if len(entries) != len(set(entries)):
        problems.append("benchmark.json names a case twice")
    if set(entries) != set(medians):
        problems.append("benchmark.json has %d entries, the log %d cases with a median (%d differ)"
                        % (len(set(entries)), len(medians), len(set(entries) ^ set(medians))))
    if os.path.exists(os.path.join(folder, "benchmark.resumed.json")):
        problems.append("benchmark.resumed.json is left")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folders", nargs="+", metavar="RUN_DIR", help="a run folder (results.jsonl, benchmark.json)")
    failed = False
    for folder in parser.parse_args().folders:
        problems = check(folder)
        failed = failed or bool(problems)
        print("%s: %s" % (folder, "; ".join(problems) if problems else "one whole run"))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
