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
    """{sheet name: {cell ref: str or float}}, and per sheet its raw XML: the cells' types, styles, panes, widths"""
    z = zipfile.ZipFile(path)
    shared = [si.findtext(".//m:t", default="", namespaces=NS)
              for si in ElementTree.fromstring(z.read("xl/sharedStrings.xml")).findall("m:si", NS)]
    names = re.findall(r'<sheet name="([^"]+)"', z.read("xl/workbook.xml").decode())
    book, raw = {}, {}
    for i, name in enumerate(names, start=1):
        xml = z.read(f"xl/worksheets/sheet{i}.xml").decode()
        cells = {}
        for c in ElementTree.fromstring(xml).iter(f"{{{NS['m']}}}c"):
            v = c.findtext("m:v", namespaces=NS)
            cells[c.get("r")] = shared[int(v)] if c.get("t") == "s" else float(v)
        book[name] = cells
        raw[name] = xml
    # Number formats by style index (cellXfs), for the cells' display formats.
    styles = ElementTree.fromstring(z.read("xl/styles.xml"))
    codes = {f.get("numFmtId"): f.get("formatCode") for f in styles.iter(f"{{{NS['m']}}}numFmt")}
    xfs = styles.find("m:cellXfs", NS)
    formats = [codes.get(xf.get("numFmtId"), "General") for xf in xfs.findall("m:xf", NS)]
    return book, raw, formats


def report(failures, what):
    """Prints each failure and the verdict on `what`; the exit status."""
    for f in failures:
        print(f)
    print(f"{what} checked:", "FAILED" if failures else "ok")
    return 1 if failures else 0


def main():
    exe, results, out = sys.argv[1:4]
    subprocess.run([exe, results, f"--spreadsheet={out}"], check=True)
    book, raw, formats = read_workbook(f"{out}/opmark.xlsx")
    failures = []

    def expect(sheet, ref, want):
        got = book.get(sheet, {}).get(ref)
        ok = got == want or (isinstance(want, float) and isinstance(got, float) and abs(got - want) <= 1e-9 * abs(want))
        if not ok:
            failures.append(f"{sheet}!{ref}: expected {want!r}, got {got!r}")

    def cell_xml(sheet, ref):
        m = re.search(rf'<c r="{ref}"([^>]*)>', raw.get(sheet, ""))
        return m.group(1) if m else None

    def expect_number_cell(sheet, ref, number_format=None):
        """A number stored as one: no t attribute, or t="n"; shown in `number_format` where given."""
        attrs = cell_xml(sheet, ref)
        if attrs is None:
            failures.append(f"{sheet}!{ref}: no cell")
            return
        t = re.search(r' t="([^"]*)"', attrs)
        if t and t.group(1) != "n":
            failures.append(f"{sheet}!{ref}: expected a number cell, got t=\"{t.group(1)}\"")
        if number_format:
            s = re.search(r' s="(\d+)"', attrs)
            got = formats[int(s.group(1))] if s else "General"
            if got != number_format:
                failures.append(f"{sheet}!{ref}: expected the number format {number_format!r}, got {got!r}")

    sheets = ["fp16 GEMM", "fp16 Pointwise", "fp32 GEMM", "fp32 Convolution", "Specs"]
    if list(book) != sheets:
        failures.append(f"sheets: expected {sheets}, got {list(book)}")
    # Every table's header is frozen (the title row above it too) and its columns are sized to their content.
    for name in book:
        if not re.search(r'<pane [^>]*state="frozen"', raw[name]):
            failures.append(f"{name}: no frozen pane")
        if '<col min="1"' not in raw[name] or 'customWidth="1"' not in raw[name]:
            failures.append(f"{name}: no column widths")
    if not re.search(r'<pane ySplit="2" [^>]*state="frozen"', raw.get("fp32 GEMM", "")):
        failures.append("fp32 GEMM: expected the title and header rows (2) frozen")
    # fp32 GEMM: DeepBench's section name heading it, the application column first, rows in numeric order of m
    # (2, 1024, 10000, not as text), numbers stored whole.
    expect("fp32 GEMM", "A1", "GEMM (fp32)")
    expect("fp32 GEMM", "A2", "application")
    expect("fp32 GEMM", "B2", "m")
    expect("fp32 GEMM", "H2", "fwd time (us)")
    expect("fp32 GEMM", "I2", "fwd time (ms)")
    expect("fp32 GEMM", "J2", "fwd TFLOPS")
    expect("fp32 GEMM", "B3", 2.0)
    expect("fp32 GEMM", "B4", 1024.0)
    expect("fp32 GEMM", "B5", 10000.0)
    expect("fp32 GEMM", "A3", None)          # no application recorded: empty
    expect("fp32 GEMM", "A4", "DeepSpeech")
    expect("fp32 GEMM", "A5", "BERT-base")   # a model where the row names no application
    expect("fp32 GEMM", "E4", "N")
    expect("fp32 GEMM", "H4", 100.0)
    expect("fp32 GEMM", "I4", 0.1)
    expect("fp32 GEMM", "J4", 21.47483648)   # 2 x 1024^3 FLOPs in 100 us, whole (not rounded to 21.47)
    expect_number_cell("fp32 GEMM", "B4")
    expect_number_cell("fp32 GEMM", "H4", "0.000")
    expect_number_cell("fp32 GEMM", "J4", "0.00")
    # fp32 Convolution: the application, 19 fields, then per direction run us, ms, TFLOPS.
    expect("fp32 Convolution", "A1", "Convolution (fp32)")
    expect("fp32 Convolution", "U2", "fwd time (us)")
    expect("fp32 Convolution", "U3", 2.0)
    expect("fp32 Convolution", "W3", 0.294912)  # 2 N K P Q C R S = 589824 FLOPs in 2 us
    expect("fp32 Convolution", "X2", None)  # no backward columns: the run has forward convolutions only
    expect("fp32 Convolution", "T3", "NCHW")
    expect("fp16 GEMM", "A1", "GEMM (fp16)")
    expect("fp16 GEMM", "H3", 10.0)
    # A memory-bound family: GB/s and the share of the copy bandwidth, no TFLOPS.
    expect("fp16 Pointwise", "A1", "Pointwise (fp16)")
    expect("fp16 Pointwise", "H2", "fwd GB/s")
    expect("fp16 Pointwise", "I2", "fwd % of copy")
    expect("fp16 Pointwise", "H3", 2097.152)   # 2 x 1024 x 1024 fp16 elements in 2 us
    expect("fp16 Pointwise", "I3", 52.4288)    # of 4000 GB/s
    expect_number_cell("fp16 Pointwise", "H3", "0.0")
    # Specs: versions stay text ("13.0" is not 13), measurements are numbers.
    expect("Specs", "A1", "key")
    expect("Specs", "A2", "compute_capability")
    expect("Specs", "B2", "9.0")
    expect("Specs", "A3", "cuda_driver_version")
    expect("Specs", "B3", "13.0")
    expect("Specs", "B4", "9.14.0")
    expect("Specs", "A5", "gpu")
    expect("Specs", "B5", "NVIDIA H100 80GB HBM3")
    expect("Specs", "A6", "sm_clock_mhz")
    expect("Specs", "B6", 1980.0)
    expect_number_cell("Specs", "B6")
    return report(failures, "workbook")


if __name__ == "__main__":
    sys.exit(main())
