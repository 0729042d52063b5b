#!/usr/bin/env python3
"""reduce_sweep_tables.py without a GPU: two precisions' runs written to a temporary directory (a torch_compare CSV
and opmark's results.jsonl each), a later directory overriding a cell, the ratio table's bold past 5%, and the copy
table's split at one multiprocessor's shared memory.

    python3 test/compare/reduce_sweep_tables_test.py
"""
import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "compare"))

import reduce_sweep_tables as rst  # noqa: E402


def case(p, op, rows, cols):
    return f"reduce/fwd/{p}/op={op}/rows={rows}/cols={cols}/impl=opmark"


def write_run(d, p, cells):
    """cells: (op, cols, opmark_us, torch_us, pct_copy_bw, input_passes)"""
    os.makedirs(os.path.join(d, f"reduce_{p}"), exist_ok=True)
    with open(os.path.join(d, f"torch_reduce_{p}.csv"), "w") as f:
        f.write("case,opmark_us,torch_us,torch_over_opmark,opmark_spread,torch_spread,torch_timing\n")
        for op, cols, ours, torch, _, _ in cells:
            f.write(f"{case(p, op, 8, cols)},{ours},{torch},{torch / ours},1.0,1.0,graph\n")
    with open(os.path.join(d, f"reduce_{p}", "results.jsonl"), "w") as f:
        f.write(json.dumps({"context": {"git": "x"}}) + "\n")
        for op, cols, ours, _, pct, passes in cells:
            counters = {"pct_copy_bw": pct, "input_passes": passes}
            f.write(json.dumps({"name": case(p, op, 8, cols), "type": "run", "status": "ok", "counters": {}}) + "\n")
            f.write(json.dumps({"name": case(p, op, 8, cols), "type": "aggregate", "aggregate": "median",
                                "status": "ok", "time_us": ours, "counters": counters}) + "\n")


def run(*dirs):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        sys.argv = ["reduce_sweep_tables.py", *dirs]
        rst.main()
    return out.getvalue()


class Tables(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.first = os.path.join(self.tmp.name, "first")
        self.second = os.path.join(self.tmp.name, "second")
        write_run(self.first, "fp16", [("softmax", 7, 10.0, 20.0, 90.0, 1), ("softmax", 131072, 11.0, 10.0, 50.0, 2),
                                       ("sum", 7, 30.0, 20.0, 40.0, 1)])
        write_run(self.first, "fp32", [("softmax", 7, 10.0, 10.0, 96.0, 1)])
        write_run(self.second, "fp16", [("sum", 7, 10.0, 20.0, 80.0, 1)])  # the re-measured cell

    def tearDown(self):
        self.tmp.cleanup()

    def test_ratio_bold_past_five_percent(self):
        text = run(self.first)
        self.assertIn("4 cases against PyTorch, 2 more than 5% slower", text)
        self.assertIn("| softmax | fp16 | 0.50 | **1.10** |", text)
        self.assertIn("| sum | fp16 | **1.50** |  |", text)

    def test_later_directory_overrides(self):
        text = run(self.first, self.second)
        self.assertIn("1 more than 5% slower", text)
        self.assertIn("| sum | fp16 | 0.50 |  |", text)
        self.assertIn("| sum | fp16 | 1 | 0 | 80% (7) |  |", text)

    def test_copy_table_splits_at_shared_memory(self):
        text = run(self.first)
        # 131072 fp16 columns (256 KiB) do not fit 227 KiB: reported with their reads
        self.assertIn("| softmax | fp16 | 1 | 1 | 90% (7) | 50% (131072: 2 reads) |", text)
        self.assertIn("| softmax | fp32 | 1 | 1 | 96% (7) |  |", text)

    def test_no_files_is_an_error(self):
        with self.assertRaises(SystemExit):
            run(os.path.join(self.tmp.name, "none"))


if __name__ == "__main__":
    unittest.main()
