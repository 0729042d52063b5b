#!/usr/bin/env python3
"""The Python helpers in bench/compare/ on a machine without PyTorch (issue 38): each answers --help, and
results_summary.py reads a bundle folder, its run folder and the results log itself alike. Also sm_clock.py's burst
rule (torch_compare.py --burst) on scripted samples: it drops and pauses as bench/harness/timing/regime.h does.

    python3 test/compare/helpers_test.py

PyTorch is hidden from each helper (sys.modules['torch'] = None makes `import torch` fail), so the test means the
same where it is installed.
"""
import glob
import os
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
COMPARE = os.path.join(ROOT, "bench", "compare")
BUNDLE = os.path.join(ROOT, "results", "nvidia-h100-80gb-hbm3")
LIBRARIES = {"opmark_results.py", "sm_clock.py"}  # imported by the helpers, not run

# Runs a helper as `python3 HELPER ARGS...` would, with every torch module unimportable.
NO_TORCH = """import runpy, sys
for name in ("torch", "torch.nn", "torch.nn.functional", "torch.distributed", "torch.multiprocessing"):
    sys.modules[name] = None
script = sys.argv[1]
sys.argv = sys.argv[1:]
sys.path.insert(0, __import__("os").path.dirname(script))
runpy.run_path(script, run_name="__main__")
"""


def run_helper(script, *args):
    return subprocess.run([sys.executable, "-c", NO_TORCH, script, *args], capture_output=True, text=True,
                          timeout=120)


def burst_rule_failures():
    """sm_clock.burst_samples against the cases test/bench/repetitions_test.cpp and regime_test.cpp script."""
    sys.path.insert(0, COMPARE)
    import sm_clock
    sm_clock.max_sm_mhz = lambda device=0: 1980.0
    failures = []
    # Hot from warm-up at 1350 MHz (nothing rested yet): dropped; rested at 1520 after the pause: kept, and
    # samples within 5% of it after that are kept too.
    script = iter([(1.6, 1350), (1.4, 1520)] + [(1.4, 1500)] * 20)
    slept = []
    times, clocks, dropped, exhausted = sm_clock.burst_samples(lambda: next(script), 1, 5e-6, 3, sleep=slept.append)
    if (dropped, slept, exhausted, times[0], clocks[0]) != (1, [0.05], False, 1.4, 1520):
        failures.append(f"burst rule, a throttled first sample: dropped {dropped}, slept {slept}, times {times}")
    # At full clock once, then never back: the pauses double to 0.5 s and run out within the 5 s budget; the case
    # keeps what it gets and is throttled.
    slept = []
    script = iter([(1.0, 1900)] + [(1.0, 1000)] * 100)
    times, _, dropped, exhausted = sm_clock.burst_samples(lambda: next(script), 1, 3e-6, 3, sleep=slept.append)
    if not exhausted or sum(slept) > 5.0 or slept[:4] != [0.05, 0.1, 0.2, 0.4] or len(times) != 3:
        failures.append(f"burst rule, pauses that run out: slept {slept}, exhausted {exhausted}, kept {len(times)}")
    return failures


def main():
    failures = []
    helpers = sorted(p for p in glob.glob(os.path.join(COMPARE, "*.py")) if os.path.basename(p) not in LIBRARIES)
    for script in helpers:
        r = run_helper(script, "--help")
        if r.returncode != 0 or "usage:" not in r.stdout:
            failures.append(f"{os.path.basename(script)} --help exited {r.returncode}:\n{r.stdout}{r.stderr}")
    summary = os.path.join(COMPARE, "results_summary.py")
    for where in (BUNDLE, os.path.join(BUNDLE, "run"), os.path.join(BUNDLE, "run", "results.jsonl.gz")):
        r = run_helper(summary, where, "--filter", "^gemm/", "--limit", "2")
        rows = [line for line in r.stdout.splitlines() if line.startswith("| gemm/")]
        if r.returncode != 0 or len(rows) != 2 or "cases by status: {'ok':" not in r.stdout:
            failures.append(f"results_summary.py {where} exited {r.returncode}:\n{r.stdout}{r.stderr}")
    r = run_helper(summary, os.path.dirname(BUNDLE))  # results/: a folder of bundles, no log of its own
    if r.returncode != 2 or "a folder with no results log" not in r.stderr:
        failures.append(f"results_summary.py on a folder without a log exited {r.returncode}:\n{r.stdout}{r.stderr}")
    failures += burst_rule_failures()
    for failure in failures:
        print("FAIL " + failure)
    print(f"{len(helpers)} helpers answered --help without torch; results_summary.py read 3 forms of one run; "
          f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
