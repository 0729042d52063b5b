#!/usr/bin/env python3
"""ncu_fidelity.py without a GPU: ncu's CSV log, the split at marker kernels, the bands (CUPTI's kernel_us the
reference, ncu a witness from 20 us), ncu less its marker floor beside kernel_us, and the tables on the fixture in
test/data/ncu_fidelity (two cases, two launches each, the convolution two kernels per launch), and the whole script
with a stand-in ncu that replays the fixture.

    python3 test/reference/ncu_fidelity_test.py
"""
import contextlib
import csv
import io
import json
import os
import stat
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(ROOT, "test", "data", "ncu_fidelity")
sys.path.insert(0, os.path.join(ROOT, "bench", "compare"))

import ncu_fidelity as nf  # noqa: E402
import opmark_results  # noqa: E402

GEMM = "gemm/fwd/fp16/m=4096/n=4096/k=4096/ta=N/tb=N/batch=1"
CONV = ("conv/fwd/fp16/n=32/c=64/d=1/h=56/w=56/k=64/t=1/r=3/s=3/pad_d=0/pad_h=1/pad_w=1/stride_d=1/stride_h=1/"
        "stride_w=1/dil_h=1/dil_w=1/groups=1/layout=NHWC")


def fixture(name):
    with open(os.path.join(DATA, name)) as f:
        return f.read()


class ReadNcuCsv(unittest.TestCase):
    def test_raw_page_with_units_row(self):
        kernels = nf.read_ncu_csv(fixture("ncu.csv"))
        self.assertEqual(len(kernels), 8)  # the ==PROF== lines, header and units row are not kernels
        self.assertIn(nf.MARKER, kernels[0][0])
        self.assertAlmostEqual(kernels[0][1], 1.216)  # "1,216" nsecond
        self.assertAlmostEqual(kernels[1][1], 100.5)
        self.assertTrue(kernels[4][0].startswith("void cudnn::ops::nhwcToNchwKernel<__half, __half"))  # commas kept

    def test_units_row_scales(self):
        head = '"ID","Process ID","Kernel Name","gpu__time_duration.sum"\n'
        for unit, want in (("msecond", 1500.0), ("usecond", 1.5), ("ns", 0.0015)):
            text = head + f'"","","","{unit}"\n"0","1","k","1.5"\n'
            self.assertAlmostEqual(nf.read_ncu_csv(text)[0][1], want, msg=unit)

    def test_no_units_row_is_nanoseconds(self):
        text = '"ID","Kernel Name","gpu__time_duration.sum"\n"0","k","2,500"\n'
        self.assertAlmostEqual(nf.read_ncu_csv(text)[0][1], 2.5)

    def test_details_page_unit_column(self):
        text = ('"ID","Process ID","Kernel Name","Section Name","Metric Name","Metric Unit","Metric Value"\n'
                '"0","1","k","Command line profiler metrics","gpu__time_duration.sum","usecond","3.25"\n'
                '"0","1","k","Command line profiler metrics","other.metric","byte","9"\n'
                '"1","1","k2","Command line profiler metrics","gpu__time_duration.sum","msecond","0.5"\n')
        self.assertEqual(nf.read_ncu_csv(text), [("k", 3.25), ("k2", 500.0)])

    def test_unknown_unit_and_missing_table_fail(self):
        with self.assertRaises(nf.ToolError):
            nf.read_ncu_csv('"ID","Kernel Name","gpu__time_duration.sum"\n"","","cycle"\n"0","k","5"\n')
        with self.assertRaises(nf.ToolError):
            nf.read_ncu_csv("==PROF== Connected to process 1\n==ERROR== something went wrong\n")


class SplitAndJudge(unittest.TestCase):
    def profiled(self):
        cases = nf.profiled_cases(fixture("profile_stdout.txt"))
        return nf.split_at_markers(nf.read_ncu_csv(fixture("ncu.csv")), cases)

    def test_profile_lines(self):
        self.assertEqual(nf.profiled_cases(fixture("profile_stdout.txt")), [(GEMM, 2), (CONV, 2)])
        self.assertEqual(nf.profiled_cases(f"opmark-profile: {GEMM}/manual_time launches=3\n"), [(GEMM, 3)])

    def test_kernels_between_markers(self):
        (g, g_launches, g_us), (c, c_launches, c_us) = self.profiled()
        self.assertEqual((g, g_launches, c, c_launches), (GEMM, 2, CONV, 2))
        self.assertEqual(g_us, [100.5, 101.5])
        self.assertEqual(c_us, [1.0, 4.0, 1.0, 4.0])

    def test_marker_count_must_match(self):
        kernels = nf.read_ncu_csv(fixture("ncu.csv"))
        with self.assertRaises(nf.ToolError):
            nf.split_at_markers(kernels, [(GEMM, 2)])

    def test_graph_profile_lines(self):
        self.assertEqual(nf.profiled_cases(f"opmark-profile: {GEMM} launches=600 graph\n"), [(GEMM, 600)])

    def test_pins_from_labels(self):
        with tempfile.TemporaryDirectory() as tmp:
            results, pins = os.path.join(tmp, "results.jsonl"), os.path.join(tmp, "pins.tsv")
            with open(results, "w") as f:
                for name, label in ((GEMM, "algo 66 tile 10 (fastest of 8; default algo 66, 1.00x) | in f16"),
                                    (CONV, "engine 3 (pinned by --opmark_pin) | timing: cuda graph"),
                                    ("pointwise/x", "timing: cuda graph, 20 launches per replay")):
                    f.write(json.dumps({"name": name + "/manual_time", "type": "aggregate", "aggregate": "median", "status": "ok", "time_us": 1.0,
                                        "label": label, "counters": {}}) + "\n")
            chosen = nf.chosen_candidates(results)
            self.assertEqual(chosen, {GEMM: "algo 66 tile 10", CONV: "engine 3"})  # no candidates: no pin
            # The library's first choice, for a run on the defaults: only a tuned case names one.
            self.assertEqual(opmark_results.default_candidates(results), {GEMM: "algo 66"})
            nf.write_pins(pins, chosen)
            with open(pins) as f:
                self.assertEqual(f.read(), f"{CONV}\tengine 3\n{GEMM}\talgo 66 tile 10\n")

    def test_bands(self):
        self.assertEqual(nf.judge(102.9, 100.0), ("3%", "ok"))
        self.assertEqual(nf.judge(103.1, 100.0), ("3%", "OUT"))
        self.assertEqual(nf.judge(19.0, 20.0), ("3%", "OUT"))  # 5% off at 20 us: the tight band already
        self.assertEqual(nf.judge(21.0, 19.99), ("10%", "ok"))
        self.assertEqual(nf.judge(3.31, 3.0), ("10%", "OUT"))
        self.assertEqual(nf.judge(9.0, 2.99), ("n/a", "n/a"))  # too short to judge, however far off
        self.assertEqual(nf.judge(None, 50.0), ("3%", "n/a"))  # no opmark time for the case
        # Against ncu, a witness only from 20 us: nothing shorter is judged.
        self.assertEqual(nf.judge(103.1, 100.0, nf.WITNESS_BANDS), ("3%", "OUT"))
        self.assertEqual(nf.judge(5.8, 5.0, nf.WITNESS_BANDS), ("n/a", "n/a"))

    def test_rows_and_table(self):
        times = nf.opmark_medians(os.path.join(DATA, "results.jsonl"))
        self.assertEqual(times[GEMM], 102.0)  # the median line, not a repetition's or the mean
        rows = nf.fidelity_rows(self.profiled(), times)
        gemm, conv = rows
        self.assertEqual(gemm[:4], (GEMM, 102.0, 101.0, 1.0))
        self.assertAlmostEqual(gemm[4], 102.0 / 101.0)
        self.assertEqual(gemm[5:], ("3%", "ok"))
        self.assertEqual(conv[:4], (CONV, 5.8, 5.0, 2.0))
        self.assertEqual(conv[5:], ("n/a", "n/a"))  # 16% over ncu's 5 us, but ncu is no witness under 20 us
        lines = nf.table(rows)
        self.assertEqual(lines[0], "| case | opmark us | kernel us per launch | kernels/launch | opmark/kernel | "
                                   "band | verdict |")
        self.assertEqual(lines[2], f"| {GEMM} | 102.00 | 101.00 | 1 | 1.010 | 3% | ok |")
        self.assertEqual(lines[3], f"| {CONV} | 5.80 | 5.00 | 2 | 1.160 | n/a | n/a |")
        self.assertEqual(lines[-1], "1 of 1 judged cases within their band")


class TracedKernels(unittest.TestCase):
    """opmark's own kernel durations (kernel_us, CUPTI, the reference) beside ncu's less its marker floor."""

    def test_traced_reference_and_rows(self):
        results = os.path.join(DATA, "results.jsonl")
        ref = nf.traced_reference([GEMM, CONV, "not/traced"], nf.counter_medians(results, "kernel_us"),
                                  nf.counter_medians(results, "kernels_per_launch"))
        self.assertEqual(ref, [(GEMM, 101.0, 1), (CONV, 5.4, 2)])
        gemm, conv = nf.reference_rows(ref, nf.opmark_medians(results))
        self.assertEqual(gemm[5:], ("3%", "ok"))   # 102 over 101
        self.assertEqual(conv[5:], ("10%", "ok"))  # 5.8 over 5.4: 7% over the traced kernels

    def test_witness_is_ncu_less_its_floor_per_kernel(self):
        results = os.path.join(DATA, "results.jsonl")
        split = nf.split_at_markers(nf.read_ncu_csv(fixture("ncu.csv")), [(GEMM, 2), (CONV, 2)])
        gemm, conv = nf.witness_rows(split, nf.counter_medians(results, "kernel_us"), 1.2)
        # The GEMM: ncu's 101 us less 1.2 us for its one kernel, against kernel_us 101: within 3%.
        self.assertEqual(gemm[:4], (GEMM, 101.0, 101.0, 1.0))
        self.assertAlmostEqual(gemm[4], 99.8)
        self.assertAlmostEqual(gemm[5], 99.8 / 101.0)
        self.assertEqual(gemm[6:], ("3%", "ok"))
        # The convolution: 5.0 us less 1.2 us for each of its two kernels, 2.6 against 5.4: under 20 us, not judged.
        self.assertAlmostEqual(conv[4], 2.6)
        self.assertEqual(conv[6:], ("n/a", "n/a"))
        lines = nf.witness_table([gemm, conv], 1.2)
        self.assertEqual(lines[0], "| case | kernel_us (CUPTI) | ncu us per launch | kernels/launch | "
                                   "ncu less 1.20 us a kernel | (ncu less floor)/kernel_us | band | verdict |")
        self.assertEqual(lines[2], f"| {GEMM} | 101.00 | 101.00 | 1 | 99.80 | 0.988 | 3% | ok |")
        self.assertEqual(lines[-1], "1 of 1 cases from 20 us within their band")
        # ncu well above the reference even less its floor: out; a case opmark did not trace: no row.
        (out,) = nf.witness_rows([("x", 1, [130.0]), ("untraced", 1, [50.0])], {"x": 100.0}, 2.0)
        self.assertEqual(out[6:], ("3%", "OUT"))

    def test_marker_floor(self):
        self.assertEqual(nf.marker_durations(nf.read_ncu_csv(fixture("ncu.csv"))), [1.216, 1.184])


# Stands in for ncu: records its command line, writes the fixture's log to --log-file and prints what
# opmark-bench would print under it.
FAKE_NCU = """#!{python}
import os, shutil, sys
args = sys.argv[1:]
if "--log-file" not in args:  # run as opmark-bench itself (the timed run): the fixture's results
    out = [a for a in args if a.startswith("--opmark_out=")][0].split("=", 1)[1]
    os.makedirs(out, exist_ok=True)
    shutil.copy({results!r}, os.path.join(out, "results.jsonl"))
    sys.exit(0)
open({argv_out!r}, "w").write("\\n".join(args))
shutil.copy({log!r}, args[args.index("--log-file") + 1])
sys.stdout.write(open({stdout!r}).read())
"""


def write_fake_ncu(folder):
    """The stand-in ncu (and opmark-bench) in `folder`: its path, and the file it writes its command line to."""
    ncu, argv_out = os.path.join(folder, "ncu"), os.path.join(folder, "argv")
    with open(ncu, "w") as f:
        f.write(FAKE_NCU.format(python=sys.executable, argv_out=argv_out, log=os.path.join(DATA, "ncu.csv"),
                                stdout=os.path.join(DATA, "profile_stdout.txt"),
                                results=os.path.join(DATA, "results.jsonl")))
    os.chmod(ncu, os.stat(ncu).st_mode | stat.S_IXUSR)
    return ncu, argv_out


class WholeScript(unittest.TestCase):
    def test_fake_ncu(self):
        with tempfile.TemporaryDirectory() as tmp:
            ncu, argv_out = write_fake_ncu(tmp)
            out_csv, printed = os.path.join(tmp, "out.csv"), io.StringIO()
            with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(io.StringIO()):
                rc = nf.main(["--bench", ncu, "--results", os.path.join(DATA, "results.jsonl"), "--launches", "2",
                              "--csv", out_csv, "--ncu", ncu, "--", "--opmark_family=gemm", "--opmark_precision=fp16"])
            self.assertEqual(rc, 0)  # the convolution is 16% over ncu, but under 20 us ncu is no witness
            self.assertTrue(printed.getvalue().endswith("1 of 1 judged cases within their band\n"))
            with open(argv_out) as f:
                argv = f.read().split("\n")
            log = argv[argv.index("--log-file") + 1]
            self.assertEqual(argv, ["--profile-from-start", "off", "--clock-control", "none", "--cache-control", "none",
                                    "--metrics", "gpu__time_duration.sum", "--csv", "--page", "raw", "--print-units", "base", "--log-file", log,
                                    ncu, "--opmark_family=gemm", "--opmark_precision=fp16",
                                    "--opmark_profile_launches=2", "--opmark_max_repetitions=3",
                                    "--opmark_min_time=0.005", argv[-2], argv[-1]])
            self.assertTrue(argv[-2].startswith("--opmark_pin="))  # the timed run's choices, not tuned again
            self.assertTrue(argv[-1].startswith("--opmark_out="))  # the profiled run's own results: its labels
            with open(out_csv, newline="") as f:
                rows = list(csv.reader(f))
            self.assertEqual(rows[0][0], "case")
            self.assertEqual([r[-1] for r in rows[1:]], ["ok", "n/a"])

    def test_timed_run_of_its_own(self):
        # Without --results the script runs opmark-bench first, in a temporary folder: every table, kernel_us's
        # included, is read before that folder goes.
        with tempfile.TemporaryDirectory() as tmp:
            ncu, argv_out = write_fake_ncu(tmp)
            printed = io.StringIO()
            # The timed run's console goes to stderr by file descriptor: a real file, not a StringIO.
            with open(os.path.join(tmp, "stderr"), "w") as err:
                with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(err):
                    rc = nf.main(["--bench", ncu, "--launches", "2", "--ncu", ncu, "--", "--opmark_family=gemm"])
            self.assertEqual(rc, 0)
            text = printed.getvalue()
            self.assertIn("against the kernels' own durations (kernel_us, CUPTI)", text)
            self.assertIn("kernel_us (CUPTI's stamps of each kernel in a stream of launches) is the reference for "
                          "kernel time; ncu is a witness from 20 us up", text)
            self.assertIn("its floor here 1.20 us a kernel (ncu's duration of the marker kernel, which does nothing: "
                          "median 1.20 us, 1.18-1.22 over 2 cases)", text)
            self.assertIn(f"| {GEMM} | 101.00 | 101.00 | 1 | 99.80 | 0.988 | 3% | ok |", text)

    def test_missing_ncu_is_a_tool_error(self):
        with contextlib.redirect_stderr(io.StringIO()) as err:
            rc = nf.main(["--bench", sys.executable, "--ncu", "/nonexistent/ncu", "--", "--opmark_family=gemm"])
        self.assertEqual(rc, 2)
        self.assertIn("no /nonexistent/ncu found", err.getvalue())


if __name__ == "__main__":
    unittest.main()
