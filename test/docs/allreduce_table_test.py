#!/usr/bin/python3
"""docs/allreduce.md's scaling table is what bench/compare/allreduce_scaling.py prints over the committed runs in
docs/allreduce/h200x4_488123a/: the page cannot drift from them."""
import os
import subprocess
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNS = os.path.join("docs", "allreduce", "h200x4_488123a")


class AllreduceTable(unittest.TestCase):
    def test_the_docs_table_is_the_scripts(self):
        table = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "compare", "allreduce_scaling.py"),
                                os.path.join(ROOT, RUNS)], capture_output=True, text=True, check=True).stdout
        doc = open(os.path.join(ROOT, "docs", "allreduce.md")).read()
        self.assertIn(table, doc)
        self.assertIn(f"allreduce_scaling.py {RUNS}", doc)  # the page names the runs its table comes from


if __name__ == "__main__":
    unittest.main()
