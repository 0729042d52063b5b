#!/usr/bin/env python3
"""The workbook of several systems, read back cell by cell: DeepBench's layout, vendors side by side (issue 57).
Usage: check_xlsx_systems.py OPMARK_AGGREGATE BUNDLE_A BUNDLE_B OUT_DIR"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_xlsx import read_workbook, report  # noqa: E402


def natural_key(text):
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", str(text))]


def main():
    exe, a, b, out = sys.argv[1:5]
    subprocess.run([exe, "spreadsheet", a, b, "--out", out], check=True, stdout=subprocess.DEVNULL)
    book, _, _ = read_workbook(f"{out}/opmark.xlsx")
    failures = []
    names = list(book)
    if len(set(names)) != len(names) or any(len(n) > 31 for n in names) or names[-1] != "Systems":
        failures.append(f"sheet names: unique, at most 31 characters, Systems last; got {names}")

    def column(i):  # 0 -> A, 26 -> AA
        return (column(i // 26 - 1) if i >= 26 else "") + chr(ord("A") + i % 26)

    def row(sheet, r, width=None):
        """Row r's cells by position (None where empty), as wide as the header, or to its last cell."""
        cells = book[sheet]
        if width is None:
            width = 0
            while any(f"{column(i)}{r}" in cells for i in range(width, width + 3)):
                width += 1
        return [cells.get(f"{column(i)}{r}") for i in range(width)]

    gemm = "fp16 GEMM"
    head = row(gemm, 2)
    systems = [s for s in (row("Systems", r)[0] for r in (2, 3))]
    want = ["application", "m", "n", "k", "ta", "tb", "batch"]
    for s in systems:
        want += [f"{s}: fwd time (us)", f"{s}: fwd TFLOPS", f"{s}: status"]
    want += [f"fwd: {systems[1]} / {systems[0]}"]
    if head != want:
        failures.append(f"{gemm}: header {head}, expected {want}")
    # Rows in natural order of their shape (m = 1, 2, 10, 1000, not as text), a ratio that is the times' quotient.
    rows = []
    while any(v is not None for v in row(gemm, 3 + len(rows), len(head))):
        rows.append(row(gemm, 3 + len(rows), len(head)))
    shapes = [[x if x is not None else "" for x in r[:7]] for r in rows]
    keys = [[natural_key(x) for x in s] for s in shapes]
    if keys != sorted(keys):
        failures.append(f"{gemm}: rows not in natural order of their shapes")
    for r in rows:
        if isinstance(r[7], float) and isinstance(r[10], float) and abs(r[13] - r[10] / r[7]) > 1e-9 * r[13]:
            failures.append(f"{gemm}: ratio {r[13]} is not {r[10]} / {r[7]}")
            break
    statuses = {r[9] for r in rows} | {r[12] for r in rows}
    if not statuses or not statuses <= {"ok", "unstable", "failed", "skipped", "not run"}:
        failures.append(f"{gemm}: status columns hold {sorted(map(str, statuses))}")
    # Convolution: the three directions of a shape in one row, each system's, then the three ratios.
    conv = row("fp16 Convolution", 2)
    for d in ("fwd", "bwd_data", "bwd_filter"):
        for s in systems:
            if f"{s}: {d} time (us)" not in conv:
                failures.append(f"fp16 Convolution: no column '{s}: {d} time (us)'")
        if f"{d}: {systems[1]} / {systems[0]}" not in conv:
            failures.append(f"fp16 Convolution: no ratio column for {d}")
    return report(failures, "workbook of two systems")


if __name__ == "__main__":
    sys.exit(main())
