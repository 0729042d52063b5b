#!/usr/bin/env python3
"""A model table's measured entries (shapes/models/measured_entries.py) without PyTorch: read in both forms, one
merged in per device and precision with the ops untouched, a retraced table keeping other GPUs' entries, and the
command that adds entries from tables traced on another GPU.

    python3 test/models/measured_entries_test.py
"""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MODELS = os.path.join(ROOT, "shapes", "models")
sys.path.insert(0, MODELS)

import extract_models as em  # noqa: E402  (imports no torch)
import measured_entries as me  # noqa: E402

H100 = '{device: "NVIDIA H100 80GB HBM3", precision: fp16, graph_ms: 3.9338, eager_ms: 6.9135, kernel_ms: 3.8726}'
TABLE = f"""# tiny: a header comment
model: tiny
inputs: {{B: 2}}
measured: {H100}
ops:
  - {{family: gemm, calls: 2, source_op: "aten::mm", traced_us: 10.000, m: 64, n: B, k: 32}}
"""
H200 = {"device": "NVIDIA H200", "precision": "fp16", "graph_ms": 3.6707, "eager_ms": 5.5183, "kernel_ms": 3.6166,
        "date": "2026-11-26", "software": "torch 2.11.0+cu130, cuDNN 9.19.0, driver 580.159.04"}


def read(path):
    with open(path) as f:
        return f.read()


class MeasuredEntries(unittest.TestCase):
    def test_single_map_reads_as_a_list_of_one(self):
        self.assertEqual(me.read_entries(TABLE), [{"device": "NVIDIA H100 80GB HBM3", "precision": "fp16",
                                                    "graph_ms": "3.9338", "eager_ms": "6.9135",
                                                    "kernel_ms": "3.8726"}])

    def test_merge_adds_a_new_device_and_keeps_the_rest(self):
        merged = me.merge_entry(TABLE, H200)
        self.assertIn(f"measured:\n  - {H100}\n  - {{device: \"NVIDIA H200\", precision: fp16, graph_ms: 3.6707, "
                      "eager_ms: 5.5183, kernel_ms: 3.6166, date: \"2026-11-26\", software: \"torch 2.11.0+cu130, "
                      "cuDNN 9.19.0, driver 580.159.04\"}\nops:\n", merged)
        # Everything but the block is as it was.
        self.assertEqual(merged.replace(merged[merged.index("measured:"):merged.index("ops:")], ""),
                         TABLE.replace(f"measured: {H100}\n", ""))
        self.assertEqual([e["device"] for e in me.read_entries(merged)], ["NVIDIA H100 80GB HBM3", "NVIDIA H200"])

    def test_merge_replaces_the_same_device_and_precision_only(self):
        merged = me.merge_entry(me.merge_entry(TABLE, H200), dict(H200, graph_ms=3.0, graph_suspect=True))
        entries = me.read_entries(merged)
        self.assertEqual(len(entries), 2)
        self.assertEqual(entries[0]["graph_ms"], "3.9338")  # the H100's, untouched
        self.assertEqual((entries[1]["graph_ms"], entries[1]["graph_suspect"]), ("3.0000", "true"))
        bf16 = me.merge_entry(merged, dict(H200, precision="bf16"))
        self.assertEqual([(e["device"], e["precision"]) for e in me.read_entries(bf16)],
                         [("NVIDIA H100 80GB HBM3", "fp16"), ("NVIDIA H200", "fp16"), ("NVIDIA H200", "bf16")])

    def test_a_table_without_a_block_gets_one_before_its_ops(self):
        bare = TABLE.replace(f"measured: {H100}\n", "")
        merged = me.merge_entry(bare, H200)
        self.assertIn("inputs: {B: 2}\nmeasured:\n  - {device: \"NVIDIA H200\"", merged)
        self.assertEqual(len(me.read_entries(merged)), 1)

    def test_unknown_fields_are_not_written_and_unset_ones_left_out(self):
        self.assertEqual(me.entry_text({"device": "G", "precision": "fp16", "graph_ms": None, "eager_ms": 1.0,
                                        "kernel_ms": 0.5, "graph_suspect": False}),
                         '{device: "G", precision: fp16, eager_ms: 1.0000, kernel_ms: 0.5000}')

    def test_a_retraced_table_keeps_other_gpus_entries(self):
        class Spec:
            name, area, task, source, mode = "tiny", "nlp", "test", "synthetic", "inference"
            defaults = {"B": 2}
        previous = me.merge_entry(TABLE, H200)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "tiny.yaml")
            measured = {"device": "NVIDIA H100 80GB HBM3", "precision": "fp16", "graph_ms": 4.0, "eager_ms": 7.0,
                        "kernel_ms": 3.9}
            em.write_table(path, Spec, [], 0, True, measured, (), "2.11.0")
            em.keep_other_entries(path, previous, measured)
            entries = me.read_entries(read(path))
        self.assertEqual([(e["device"], e["graph_ms"]) for e in entries],
                         [("NVIDIA H100 80GB HBM3", "4.0000"), ("NVIDIA H200", "3.6707")])
        self.assertEqual(entries[1]["software"], H200["software"])

    def test_command_adds_the_entries_of_tables_traced_elsewhere(self):
        with tempfile.TemporaryDirectory() as tmp:
            traced, into = os.path.join(tmp, "traced"), os.path.join(tmp, "into")
            os.makedirs(traced)
            os.makedirs(into)
            with open(os.path.join(traced, "tiny.yaml"), "w") as f:
                f.write(TABLE.replace(H100, '{device: "NVIDIA H200", precision: fp16, graph_ms: 3.6707, eager_ms: '
                                            '5.5183, kernel_ms: 3.6166, graph_suspect: true}')
                        .replace("traced_us: 10.000", "traced_us: 9.000"))
            with open(os.path.join(into, "tiny.yaml"), "w") as f:
                f.write(TABLE)
            done = subprocess.run([sys.executable, os.path.join(MODELS, "measured_entries.py"), "--from", traced,
                                   "--into", into, "--date", "2026-11-26", "--software", "torch x"],
                                  capture_output=True, text=True)
            self.assertEqual(done.returncode, 0, done.stderr)
            text = read(os.path.join(into, "tiny.yaml"))
        self.assertIn("traced_us: 10.000", text)  # the ops stay those of the table added to
        self.assertIn('  - {device: "NVIDIA H200", precision: fp16, graph_ms: 3.6707, eager_ms: 5.5183, kernel_ms: '
                      '3.6166, graph_suspect: true, date: "2026-11-26", software: "torch x"}', text)


if __name__ == "__main__":
    unittest.main()
