#!/usr/bin/python3
"""docs/models.md's table of the imported models is what shapes/models/onnx_report.py makes of the committed tables
and scores files (docs/onnx/*.scores.json): the page cannot drift from them. Each model is scored in one file."""
import glob
import json
import os
import subprocess
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class OnnxReport(unittest.TestCase):
    def test_the_docs_table_is_the_reports(self):
        scores = sorted(glob.glob(os.path.join(ROOT, "docs", "onnx", "*.scores.json")))
        named = [m["name"] for path in scores for m in json.load(open(path))["models"]]
        self.assertEqual(len(named), len(set(named)), "a model scored in two files: which run the table shows is "
                                                      "the order of the files")
        report = subprocess.run([sys.executable, os.path.join(ROOT, "shapes", "models", "onnx_report.py")] + scores,
                                capture_output=True, text=True, check=True).stdout
        doc = open(os.path.join(ROOT, "docs", "models.md")).read()
        start = doc.index(report.splitlines()[0])
        self.assertEqual(doc[start:start + len(report)], report)
        tables = glob.glob(os.path.join(ROOT, "shapes", "models", "onnx", "*.yaml"))
        self.assertEqual(len(report.splitlines()) - 2, len(tables))


if __name__ == "__main__":
    unittest.main()
