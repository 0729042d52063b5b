#!/usr/bin/python3
"""Outputs the documentation quotes are what opmark-aggregate prints today over the runs and bundles they name, so
they cannot drift from the tool: the README's scores sample (over docs/runs/h200_quick_8ec3949) and
aggregate/README.md's H100-against-H200 verdict counts (compare over the committed bundles).

    quoted_outputs_test.py OPMARK_AGGREGATE
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN = os.path.join("docs", "runs", "h200_quick_8ec3949")
COMMAND = "    ./build/release/aggregate/opmark-aggregate scores runs/<date> --models=resnet50,bert_base"


def aggregate(*args, exits=(0,)):
    """What opmark-aggregate prints; compare exits 3 where it finds a slower case, which is no failure here."""
    run = subprocess.run([sys.argv[1], *args], capture_output=True, text=True)
    assert run.returncode in exits, f"opmark-aggregate {' '.join(args)}: exit {run.returncode}\n{run.stderr}"
    return run.stdout


def check_compare_counts():
    doc = open(os.path.join(ROOT, "aggregate", "README.md")).read()
    quoted = re.search(r"H100\s+against H200: (\d+) slower, (\d+) faster, (\d+) unclear, (\d+) same, (\d+) cases judged"
                       r" in\s+cycles too; each bundle against\s+itself: all (\d+) same", doc)
    assert quoted, "aggregate/README.md no longer quotes the bundles' comparison"
    h100, h200 = (os.path.join(ROOT, "results", b) for b in ("nvidia-h100-80gb-hbm3", "nvidia-h200"))
    printed = aggregate("compare", h100, h200, "--format=table", exits=(0, 3))
    verdicts = re.search(r"Verdicts: (\d+) slower, (\d+) faster, (\d+) unclear, (\d+) same", printed)
    cycles = re.search(r"(\d+) compute-bound case\(s\) also judged in cycles", printed)
    itself = re.search(r"Verdicts: 0 slower, 0 faster, 0 unclear, (\d+) same", aggregate("compare", h200, h200))
    got = verdicts.groups() + (cycles.group(1), itself.group(1))
    if got != quoted.groups():
        sys.exit(f"aggregate/README.md quotes {quoted.groups()}, compare prints {got}")
    print("aggregate/README.md's comparison counts: as compare prints them")


def main():
    check_compare_counts()
    readme = open(os.path.join(ROOT, "README.md")).read().splitlines()
    assert f"`{RUN}`" in "\n".join(readme), f"README.md no longer names {RUN}"
    at = readme.index(COMMAND) + 1
    while at < len(readme) and not readme[at].strip():
        at += 1
    sample = []
    while at < len(readme) and readme[at].startswith("    "):
        sample.append(readme[at][4:])
        at += 1
    assert len(sample) >= 3, "README.md: no sample output after the scoring command"
    printed = aggregate("scores", os.path.join(ROOT, RUN), "--models=resnet50,bert_base").splitlines()
    missing = [line for line in sample if line not in printed]
    if missing:
        sys.exit("README.md's scores sample is not what opmark-aggregate prints over " + RUN + ":\n" +
                 "\n".join(missing) + "\n--- printed:\n" + "\n".join(printed))
    print(f"README.md's scores sample: {len(sample)} lines, all printed over {RUN}")


if __name__ == "__main__":
    main()
