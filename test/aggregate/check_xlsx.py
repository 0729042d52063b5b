#!/usr/bin/env python3
"""Opens the workbook opmark-aggregate wrote back and checks it cell by cell (no spreadsheet library: an .xlsx is a
zip of XML). Usage: check_xlsx.py OPMARK_AGGREGATE RESULTS.jsonl OUT_DIR"""
import re
import subprocess
import sys
import zipfile
from xml.etree import ElementTree

NS = {"m": "http://schemas.openxmlformats.org/spreadsheetml/2006/main"}


def read_workbook(path):
    """{sheet name: {cell ref: str or float}}"""
    z = zipfile.ZipFile(path)
    shared = [si.findtext(".//m:t", default="", namespaces=NS)
              for si in ElementTree.fromstring(z.read("xl/sharedStrings.xml")).findall("m:si", NS)]
    names = re.findall(r'<sheet name="([^"]+)"', z.read("xl/workbook.xml").decode())
    book = {}
    for i, name in enumerate(names, start=1):
        cells = {}
        for c in ElementTree.fromstring(z.read(f"xl/worksheets/sheet{i}.xml")).iter(f"{{{NS['m']}}}c"):
            v = c.findtext("m:v", namespaces=NS)
            cells[c.get("r")] = shared[int(v)] if c.get("t") == "s" else float(v)
        book[name] = cells
    return book


def main():
    exe, results, out = sys.argv[1:4]
    subprocess.run([exe, results, f"--spreadsheet={out}"], check=True)
    book = read_workbook(f"{out}/opmark.xlsx")
    failures = []

    def expect(sheet, ref, want):
        got = book.get(sheet, {}).get(ref)
        if got != want:
            failures.append(f"{sheet}!{ref}: expected {want!r}, got {got!r}")

    if list(book) != ["fp16", "fp32", "Specs"]:
        failures.append(f"sheets: expected ['fp16', 'fp32', 'Specs'], got {list(book)}")
    # fp32: GEMM first (DeepBench's order), then a blank row, then convolution.
    expect("fp32", "A1", "gemm")
    expect("fp32", "A2", "m")
    expect("fp32", "G2", "fwd time (us)")
    expect("fp32", "A3", 1024.0)           # numbers stay numbers
    expect("fp32", "D3", "N")
    expect("fp32", "G3", 100.0)
    expect("fp32", "H3", 21.47)            # 2 x 1024^3 FLOPs in 100 us
    expect("fp32", "A5", "conv")
    expect("fp32", "T6", "fwd time (us)")
    expect("fp32", "T7", 2.0)
    expect("fp32", "U7", 0.29)             # 2 N K P Q C R S = 589824 FLOPs in 2 us
    expect("fp32", "V7", "not run")
    expect("fp16", "A1", "gemm")
    expect("fp16", "G3", 10.0)
    expect("Specs", "A1", "key")
    expect("Specs", "A3", "gpu")
    expect("Specs", "B3", "NVIDIA H100 80GB HBM3")
    for f in failures:
        print(f)
    print("workbook checked:", "FAILED" if failures else "ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
