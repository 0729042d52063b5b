#!/usr/bin/env python3
"""bench/compare/shape_sweep.py without a GPU or PyTorch: the same seed draws the same shapes, every draw is a case
opmark-bench accepts (its --opmark_validate over the written tables), the draws hold small dimensions, primes and
every permutation, and the report's standing check fails on what it should and only on that.

    python3 test/compare/shape_sweep_test.py OPMARK_BENCH
"""
import collections
import csv
import os
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench", "compare"))
import shape_sweep  # noqa: E402


def check(condition, what, failures):
    if not condition:
        failures.append(what)


def saved(rows, folder, name):
    path = os.path.join(folder, name)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["case", "family", "opmark_us", "torch_us", "ratio", "copy_pct", "bytes",
                                          "chosen", "torch_timing", "failed_check"])
        w.writeheader()
        for family, ours, theirs, copy_pct, size, *failed in rows:
            w.writerow({"case": f"{family}/fwd/fp16/x={ours}", "family": family, "opmark_us": ours,
                        "torch_us": theirs, "ratio": ours / theirs, "copy_pct": copy_pct, "bytes": size,
                        "chosen": "", "torch_timing": "graph", "failed_check": failed[0] if failed else ""})
    return path


def quiet_report(path):
    with open(os.devnull, "w") as null:
        stdout, sys.stdout = sys.stdout, null
        try:
            return shape_sweep.report_saved(path)
        finally:
            sys.stdout = stdout


def main():
    bench = sys.argv[1]
    failures = []
    a = shape_sweep.draw_cases(1234, 300, shape_sweep.FAMILIES)
    b = shape_sweep.draw_cases(1234, 300, shape_sweep.FAMILIES)
    c = shape_sweep.draw_cases(1235, 300, shape_sweep.FAMILIES)
    check(a == b, "the same seed drew different shapes", failures)
    check(a != c, "another seed drew the same shapes", failures)
    check(abs(sum(len(v) for v in a.values()) - 300) <= len(a), "the draw's size is not the count asked for", failures)
    dims = collections.Counter()
    for precision, direction, row in a["permute"] + a["pointwise"] + a["reduce"]:
        for key in ("d0", "d1", "d2", "d3", "cols"):
            if key in row:
                dims[row[key]] += 1
    check(any(dims[d] for d in range(1, 9)), "no dimension of 1 to 8 drawn", failures)
    check(any(dims[p] for p in shape_sweep.PRIMES), "no prime dimension drawn", failures)
    perms = {row["perm"] for _, _, row in shape_sweep.draw_cases(7, 2000, ["permute"])["permute"]}
    check(perms == set(shape_sweep.PERMS), f"not every permutation drawn: {sorted(perms)}", failures)
    layouts = {row["layout"] for _, _, row in a["conv"]}
    check(layouts == {"NCHW", "NHWC"}, f"not both conv layouts drawn: {layouts}", failures)

    with tempfile.TemporaryDirectory() as tmp:
        tables = os.path.join(tmp, "shapes")
        shape_sweep.write_tables(a, tables)
        r = subprocess.run([bench, "--opmark_validate", f"--opmark_shapes={tables}"], capture_output=True, text=True)
        check(r.returncode == 0, f"opmark-bench refused the drawn tables:\n{r.stdout}{r.stderr}", failures)
        listed = subprocess.run([bench, "--benchmark_list_tests", f"--opmark_shapes={tables}"], capture_output=True,
                                text=True)
        names = [line for line in listed.stdout.splitlines() if line.strip()]
        check(len(names) == sum(len(v) for v in a.values()), f"{len(names)} cases listed for the drawn shapes",
              failures)

        # The standing check: every family fast enough passes; one bound broken at a time fails.
        fine = [("gemm", 8.0, 10.0, "", 0), ("gemm", 1.2, 1.1, "", 0), ("permute", 90.0, 100.0, 90.0, 1 << 27)]
        check(quiet_report(saved(fine, tmp, "fine.csv")) == 0, "a sweep within every bound failed", failures)
        for name, bad in (("slow", ("gemm", 10.6, 10.0, "", 0)),         # 1.06x at 10 us
                          ("small", ("gemm", 1.5, 1.1, "", 0)),          # 0.4 us behind under 5 us
                          ("copy", ("permute", 60.0, 100.0, 70.0, 1 << 27))):  # 70% of the copy bandwidth at 128 MiB
            rows = fine + [bad] if name != "copy" else fine[:2] + [bad]
            status = quiet_report(saved(rows, tmp, name + ".csv"))
            if name == "copy":  # below 85% of the copy bandwidth is reported, not a time bound
                check(status == 0, "a slow copy failed the time bounds", failures)
            else:
                check(status == 3, f"the {name} case did not fail the standing check", failures)
        # Behind only where a faster candidate failed verification: reported, not failed; a dropped candidate that
        # was no faster excuses nothing.
        label = "graph engine 20 | cuDNN | left out after a wrong result: graph engine 17 (147 of 525 elements wrong)"
        check(shape_sweep.wrong_note(label) == "graph engine 17 (147 of 525 elements wrong)",
              "the label's failed candidates not read", failures)
        wrong = "graph engine 17 (147 of 525 elements wrong, rel norm error 5.0e-04; 9.9 us in tuning)"
        conv = [("conv", 5.0, 10.0, "", 0), ("conv", 5.1, 10.0, "", 0)]  # a geometric mean within bounds
        check(quiet_report(saved(fine + conv + [("conv", 13.2, 10.0, "", 0, wrong)], tmp, "wrong.csv")) == 0,
              "a case behind only by a candidate that failed verification failed the check", failures)
        still = "graph engine 17 (147 of 525 elements wrong; 12 us in tuning)"
        check(quiet_report(saved(fine + conv + [("conv", 13.2, 10.0, "", 0, still)], tmp, "still.csv")) == 3,
              "a failed candidate too slow to meet the bound excused a case", failures)
        mean = [("gemm", 9.8, 10.0, "", 0), ("gemm", 9.9, 10.0, "", 0)]  # geometric mean 0.985 > 0.95
        check(quiet_report(saved(mean, tmp, "mean.csv")) == 3, "a geometric mean over 0.95 passed", failures)
    for f in failures:
        print("FAIL:", f)
    if not failures:
        print(f"shape sweep: draws repeatable, {len(names)} drawn cases valid, every permutation and both layouts "
              "drawn, the standing check's bounds hold")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
