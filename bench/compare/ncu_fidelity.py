#!/usr/bin/env python3
"""Nsight Compute's kernel durations beside opmark's reported time per launch, to check that opmark times the
operation's kernels and little else (no GPU needed to read the logs; ncu and a GPU to make them).

    python3 bench/compare/ncu_fidelity.py --bench build/gpu/bench/opmark-bench [--results RESULTS.jsonl]
        [--launches 5] [--csv OUT.csv] [--ncu ncu] -- <opmark selection flags...>

    e.g. ... -- --opmark_family=gemm --opmark_set=inference_device --opmark_precision=fp16

opmark-bench times CUDA-graph replays between events, so its time per launch holds whatever the GPU does between
kernels too; ncu's gpu__time_duration is each kernel alone. Where the two agree the reported number is the
operation's; where they do not, the table shows which cases to look at.

Without --results, opmark-bench first runs the selection as usual (--opmark_out into a temporary folder) for its
median times: timing under ncu is not the GPU's (ncu intercepts every launch, even unprofiled ones). Then ONE ncu
process runs the same selection with --opmark_profile_launches=K: opmark-bench builds, tunes, verifies and times
each case unprofiled (ncu --profile-from-start off), then launches a marker kernel (its name holds
`opmark_profile_marker`) between cudaProfilerStart and Stop, and K single launches of the chosen algorithm, each
right after about 10 ms of unprofiled launches of the same operation, so the profiled one finds the clocks and the
L2 as opmark's timing does (a GPU left idle while the profiler works drops its clock). It prints `opmark-profile:
<case> launches=K`. The kernels from one marker to the next are that case's, in the order of those lines. ncu runs
with --clock-control none and --cache-control none. The tuner can choose another algorithm in the two runs: the
cases where the labels differ are listed. A second table holds opmark's `isolated_us` (each launch timed alone, so
none overlaps the next) where the results have it. With --csv, ncu's own log is kept beside it
(OUT.csv.ncu_raw.csv).

The reference for a kernel's time is opmark's kernel_us counter: CUPTI's start and end stamps of each kernel in a
stream of launches, as Nsight Systems shows them (docs/fidelity.md). ncu is a witness, and only from 20 us up: it
adds 1-2 us to every kernel it profiles (measured on PyTorch's own kernels too: relu over 700k fp16 2.78 us under
ncu against 1.65 us by CUPTI). Its floor is measured here: ncu's duration of the marker kernel, which does nothing
(on an H100 about 1.9 us, where CUPTI gives an empty kernel 0.8 us and a replay 1.05 us a launch). Where opmark
traced the kernels, the script prints ncu's kernel time less that floor for each of the launch's kernels beside
kernel_us, judged from 20 us of kernel_us; and opmark's reported time against kernel_us (its reference).

Per case: kernel time per launch (the case's kernel durations summed, over K), kernels per launch, opmark/kernel and
the band it must fall in. Against kernel_us (CUPTI): within 3% where the kernels take 20 us or more, within 10% from
3 us; below 3 us the ratio is shown but not judged (a launch's fixed cost is a large share there). Against ncu, the
witness: within 3% from 20 us, not judged below (ncu's own 1-2 us a kernel is too large a share there). The last
line says how many judged cases are within their band; the exit status is 1 if any judged against ncu is not (the
table of opmark's time or the witness's), 2 if a tool failed or the logs do not match.
"""
import argparse
import csv
import math
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile

from opmark_results import COUNTER, case_key, chosen_candidates, median_records, write_pins

METRIC = "gpu__time_duration.sum"
MARKER = "opmark_profile_marker"
PROFILED = re.compile(r"^opmark-profile: (\S+) launches=(\d+)( graph)?\s*$")
# ncu writes time units spelled out (nsecond) or short (ns), depending on version and page; to microseconds.
UNITS_US = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "µs": 1.0, "μs": 1.0,
            "ms": 1e3, "msecond": 1e3, "s": 1e6, "second": 1e6}
# (smallest kernel time per launch in us, allowed |opmark/kernel - 1|), largest first; below the last: not judged.
# BANDS against the reference (kernel_us, CUPTI); WITNESS_BANDS against ncu, a witness only from 20 us.
BANDS = ((20.0, 0.03), (3.0, 0.10))
WITNESS_BANDS = ((20.0, 0.03),)


class ToolError(Exception):
    """A tool failed or its output is not what this script expects: exit status 2."""


def to_us(value, unit):
    """A duration cell of ncu's CSV in microseconds. ncu groups digits with commas (2,000,000)."""
    factor = UNITS_US.get(unit.strip())
    if factor is None:
        raise ToolError(f"ncu's log gives {METRIC} in unit {unit!r}, which this script does not know")
    try:
        return float(value.replace(",", "")) * factor
    except ValueError:
        raise ToolError(f"ncu's log has {value!r} for {METRIC}, not a number") from None


def read_ncu_csv(text):
    """[(kernel name, duration in us)] in launch order from ncu's --csv log. The raw page has one row per kernel, a
    header row and (often) a units row, whose ID cell is empty; the details page has one row per metric with
    "Metric Name", "Metric Unit" and "Metric Value" columns. ncu's own ==PROF== lines are mixed in and dropped."""
    rows = list(csv.reader(line for line in text.splitlines() if line.strip() and not line.startswith("==")))
    start = next((i for i, row in enumerate(rows) if "Kernel Name" in row and "ID" in row), None)
    if start is None:
        raise ToolError("ncu's log has no CSV header (a row with ID and Kernel Name): did ncu profile anything?")
    header = rows[start]
    col = {name: i for i, name in enumerate(header)}
    long_form = {"Metric Name", "Metric Unit", "Metric Value"} <= col.keys()
    if not long_form and METRIC not in col:
        raise ToolError(f"ncu's log has no {METRIC} column")
    unit = "nsecond"  # the metric's base unit, where no units row says otherwise
    kernels = []
    for row in rows[start + 1:]:
        if len(row) < len(header) or row == header:  # a repeated header (ncu prints one per process)
            continue
        if not row[col["ID"]]:  # the units row
            if not long_form:
                unit = row[col[METRIC]] or unit
            continue
        if long_form:
            if row[col["Metric Name"]] == METRIC:
                kernels.append((row[col["Kernel Name"]], to_us(row[col["Metric Value"]], row[col["Metric Unit"]])))
        else:
            kernels.append((row[col["Kernel Name"]], to_us(row[col[METRIC]], unit)))
    return kernels


def profiled_cases(stdout):
    """[(case name, launches)] from opmark-bench's `opmark-profile:` lines, in the order it profiled them."""
    return [(case_key(m.group(1)), int(m.group(2))) for m in map(PROFILED.match, stdout.splitlines()) if m]


def split_at_markers(kernels, cases):
    """[(case, launches, [kernel durations in us])]: the kernels after each marker kernel, up to the next, belong
    to the case of the corresponding `opmark-profile:` line. A case that failed while profiled printed no line but
    launched its marker, so the counts would disagree: that is an error, not a guess."""
    groups = []
    for name, us in kernels:
        if MARKER in name:
            groups.append([])
        elif groups:  # nothing is profiled before the first marker (--profile-from-start off); ignore it if so
            groups[-1].append(us)
    if len(groups) != len(cases):
        raise ToolError(f"ncu's log has {len(groups)} marker kernel(s) ({MARKER}) but opmark-bench printed "
                        f"{len(cases)} opmark-profile: line(s); cannot tell which kernels are whose")
    return [(name, launches, durations) for (name, launches), durations in zip(cases, groups)]


def judge(opmark_us, kernel_us, bands=BANDS):
    """(band, verdict): the allowed deviation of opmark/kernel for this kernel time, and ok / OUT; "n/a" for both
    where the kernels are too short to judge or opmark has no time for the case."""
    for floor, tolerance in bands:
        if kernel_us >= floor:
            if opmark_us is None:
                return f"{tolerance:.0%}", "n/a"
            return f"{tolerance:.0%}", "ok" if abs(opmark_us / kernel_us - 1) <= tolerance else "OUT"
    return "n/a", "n/a"


def reference_rows(reference, opmark_times, bands=BANDS):
    """One row per case of `reference` [(case, kernel us per launch, kernels per launch)]: (case, opmark us or
    None, kernel us per launch, kernels per launch, opmark/kernel, band, verdict)."""
    rows = []
    for name, kernel_us, per_launch in reference:
        opmark_us = opmark_times.get(name)
        ratio = opmark_us / kernel_us if opmark_us is not None and kernel_us > 0 else float("nan")
        rows.append((name, opmark_us, kernel_us, per_launch, ratio) + judge(opmark_us, kernel_us, bands))
    return rows


def fidelity_rows(profiled, opmark_times):
    """reference_rows against ncu, the witness: each profiled case's kernel durations summed per launch, judged
    only from 20 us."""
    return reference_rows([(name, sum(durations) / launches, len(durations) / launches)
                           for name, launches, durations in profiled], opmark_times, WITNESS_BANDS)


def witness_rows(profiled, kernel_us, floor_us):
    """ncu's kernel time per launch less its floor (floor_us, the marker kernel's ncu duration) for each kernel of
    the launch, beside kernel_us (CUPTI, the reference), for the profiled cases opmark traced: (case, kernel_us,
    ncu us per launch, kernels per launch, ncu less floor, (ncu less floor)/kernel_us, band, verdict), judged from
    20 us of kernel_us."""
    rows = []
    for name, launches, durations in profiled:
        if name not in kernel_us:
            continue
        ncu_us, per_launch = sum(durations) / launches, len(durations) / launches
        less_floor = ncu_us - floor_us * per_launch
        reference = kernel_us[name]
        ratio = less_floor / reference if reference > 0 else float("nan")
        rows.append((name, reference, ncu_us, per_launch, less_floor, ratio) +
                    judge(less_floor, reference, WITNESS_BANDS))
    return rows


def witness_table(rows, floor_us):
    """The witness's markdown table and its closing count, as lines."""
    head = ["case", "kernel_us (CUPTI)", "ncu us per launch", "kernels/launch",
            f"ncu less {floor_us:.2f} us a kernel", "(ncu less floor)/kernel_us", "band", "verdict"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, reference, ncu_us, per_launch, less_floor, ratio, band, verdict in rows:
        cells = [name, f"{reference:.2f}", f"{ncu_us:.2f}", f"{per_launch:g}", f"{less_floor:.2f}",
                 "-" if math.isnan(ratio) else f"{ratio:.3f}", band, verdict]
        lines.append("| " + " | ".join(cells) + " |")
    verdicts = [row[7] for row in rows if row[7] != "n/a"]
    lines.append(f"{verdicts.count('ok')} of {len(verdicts)} cases from 20 us within their band")
    return lines


REFERENCE_NOTE = ("kernel_us (CUPTI's stamps of each kernel in a stream of launches) is the reference for kernel "
                  "time; ncu is a witness from 20 us up: it adds 1-2 us to every kernel it profiles, its floor "
                  "here {floor}.")


def traced_reference(names, kernel_us, per_launch):
    """[(case, kernel_us, kernels_per_launch)] from opmark's own trace of the kernels (CUPTI: the median lines'
    kernel_us and kernels_per_launch counters, as counter_medians reads them), for the cases of `names` that have
    them, in that order."""
    return [(n, kernel_us[n], per_launch.get(n, float("nan"))) for n in names if n in kernel_us]


def marker_durations(kernels):
    """ncu's durations of the marker kernel, which does nothing (one thread of one block): the least any kernel
    takes under ncu, a cost no kernel in a stream of launches pays."""
    return [us for name, us in kernels if MARKER in name]


def summary(rows):
    """(within, judged): how many judged cases fall within their band."""
    verdicts = [row[6] for row in rows if row[6] != "n/a"]
    return verdicts.count("ok"), len(verdicts)


def table(rows):
    """The markdown table and the closing count, as lines."""
    head = ["case", "opmark us", "kernel us per launch", "kernels/launch", "opmark/kernel", "band", "verdict"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, opmark_us, kernel_us, per_launch, ratio, band, verdict in rows:
        cells = [name, "-" if opmark_us is None else f"{opmark_us:.2f}", f"{kernel_us:.2f}", f"{per_launch:g}",
                 "-" if math.isnan(ratio) else f"{ratio:.3f}", band, verdict]
        lines.append("| " + " | ".join(cells) + " |")
    within, judged = summary(rows)
    lines.append(f"{within} of {judged} judged cases within their band")
    return lines


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["case", "opmark_us", "kernel_us_per_launch", "kernels_per_launch", "opmark_over_kernel",
                      "band", "verdict"])
        out.writerows(rows)


def opmark_medians(path):
    """{case: opmark's reported time per launch}: the median line's time_us (the last, if a case was run twice)."""
    return {case_key(rec["name"]): rec["time_us"] for rec in median_records(path)}


def run_bench(bench, selection, out_dir):
    """A normal opmark-bench run of the selection for its median times; its console goes to stderr, so stdout
    keeps the table. Exit status 1 only says some case failed: the others' times are still good."""
    cmd = [bench] + selection + ["--opmark_isolated", f"--opmark_out={out_dir}"]
    print(f"# {shlex.join(cmd)}", file=sys.stderr, flush=True)
    rc = subprocess.run(cmd, stdout=sys.stderr).returncode
    results = os.path.join(out_dir, "results.jsonl")
    if rc not in (0, 1) or not os.path.exists(results):
        raise ToolError(f"opmark-bench exited with status {rc} and wrote no {results}")
    return results


def counter_medians(path, counter):
    """{case: a counter of the median line}, where the line has it."""
    return {case_key(rec["name"]): rec["counters"][counter] for rec in median_records(path)
            if counter in rec.get("counters", {})}


def run_ncu(ncu, bench, selection, launches, log, out_dir=None, pins=None, graph=False):
    """One ncu process over every selected case; returns opmark-bench's stdout (the opmark-profile: lines). With
    out_dir, the same process also writes its results there; with pins, the cases run those candidates; with
    graph, ncu profiles whole replays of the timed graph (--graph-profiling graph). The measurement under ncu
    only sizes the unprofiled launches before each profiled one, so it is kept short."""
    cmd = [ncu, "--profile-from-start", "off", "--clock-control", "none", "--cache-control", "none",
           "--metrics", METRIC, "--csv", "--page", "raw", "--print-units", "base", "--log-file", log]
    if graph:
        cmd += ["--graph-profiling", "graph"]
    cmd += [bench] + selection + [f"--opmark_profile_launches={launches}", "--opmark_max_repetitions=3",
                                  "--opmark_min_time=0.005"]
    if pins:
        cmd.append(f"--opmark_pin={pins}")
    if graph:
        cmd.append("--opmark_profile_graph")
    if out_dir:
        cmd.append(f"--opmark_out={out_dir}")
    print(f"# {shlex.join(cmd)}", file=sys.stderr, flush=True)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
    if proc.returncode not in (0, 1) or not os.path.exists(log):
        tail = "\n".join(proc.stdout.splitlines()[-20:])
        raise ToolError(f"ncu exited with status {proc.returncode}; opmark-bench's output ended:\n{tail}")
    return proc.stdout


def parse_args(argv):
    # Everything after the first `--` is opmark-bench's selection, passed as given (argparse would take the
    # --opmark_ flags for its own).
    own, selection = (argv[: argv.index("--")], argv[argv.index("--") + 1:]) if "--" in argv else (argv, [])
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", required=True, help="the opmark-bench executable")
    ap.add_argument("--results", help="results.jsonl of an opmark-bench run over the same selection "
                                      "(default: the profiled run's own)")
    ap.add_argument("--launches", type=int, default=5, help="launches of each case under ncu (default 5)")
    ap.add_argument("--csv", help="also write the rows here")
    ap.add_argument("--ncu", default="ncu", help="the ncu executable (default: ncu on PATH)")
    ap.add_argument("--graph", action="store_true",
                    help="also profile whole replays of the timed CUDA graph (ncu --graph-profiling graph): the "
                         "profiler's time per launch of exactly what opmark timed")
    args = ap.parse_args(own)
    if args.launches < 1:
        ap.error("--launches must be at least 1")
    return args, selection


def main(argv=None):
    args, selection = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        ncu = shutil.which(args.ncu)
        if ncu is None:
            raise ToolError(f"no {args.ncu} found (give its path with --ncu)")
        if not os.access(args.bench, os.X_OK):
            raise ToolError(f"{args.bench} is not an executable")
        with tempfile.TemporaryDirectory(prefix="ncu_fidelity.") as tmp:
            log = os.path.join(tmp, "ncu.csv")
            results = args.results or run_bench(args.bench, selection, os.path.join(tmp, "opmark"))
            pins = os.path.join(tmp, "pins.tsv")
            write_pins(pins, chosen_candidates(results))
            profiled_dir = os.path.join(tmp, "profiled")
            stdout = run_ncu(ncu, args.bench, selection, args.launches, log, profiled_dir, pins)
            graph_rows, graph_error = [], None
            if args.graph:
                graph_log = os.path.join(tmp, "ncu_graph.csv")
                try:
                    graph_stdout = run_ncu(ncu, args.bench, selection, args.launches, graph_log, None, pins, True)
                    if args.csv:
                        shutil.copy(graph_log, args.csv + ".ncu_graph_raw.csv")
                    with open(graph_log) as f:
                        graph_split = split_at_markers(read_ncu_csv(f.read()), profiled_cases(graph_stdout))
                    graph_rows = fidelity_rows(graph_split, opmark_medians(results))
                except (ToolError, OSError) as e:
                    graph_error = str(e)
            opmark_times = opmark_medians(results)
            kernel_times = counter_medians(results, COUNTER.kernel_us)
            kernel_counts = counter_medians(results, COUNTER.kernels_per_launch)
            isolated_times = counter_medians(results, COUNTER.isolated_us)
            serial_times = counter_medians(results, COUNTER.serial_us)
            profiled_results = os.path.join(profiled_dir, "results.jsonl")
            other_candidate = []
            if os.path.exists(profiled_results):
                timed, profiled = chosen_candidates(results), chosen_candidates(profiled_results)
                other_candidate = sorted(n for n in timed if n in profiled and timed[n] != profiled[n])
            if args.csv:
                shutil.copy(log, args.csv + ".ncu_raw.csv")
            with open(log) as f:
                kernels = read_ncu_csv(f.read())
        cases = profiled_cases(stdout)
        if not cases:
            raise ToolError("opmark-bench printed no opmark-profile: line: no case was profiled")
        split = split_at_markers(kernels, cases)
        rows = fidelity_rows(split, opmark_times)
        against_traced = reference_rows(traced_reference([name for name, _ in cases], kernel_times, kernel_counts),
                                        opmark_times)
        floor = sorted(marker_durations(kernels))
        floor_us = statistics.median(floor) if floor else 0.0
        traced_rows = witness_rows(split, kernel_times, floor_us) if kernel_times else []
        isolated_rows = fidelity_rows(split, isolated_times) if isolated_times else []
        serial_rows = fidelity_rows(split, serial_times) if serial_times else []
    except (ToolError, OSError) as e:
        print(f"ncu_fidelity: {e}", file=sys.stderr)
        return 2
    if isolated_rows:
        print("each launch timed alone (opmark's isolated_us):")
        print("\n".join(table(isolated_rows)))
    if serial_rows:
        print("\nback-to-back replays with no early start (opmark's serial_us, cases whose launches may overlap):")
        print("\n".join(table(serial_rows)))
    floor_text = (f"{floor_us:.2f} us a kernel (ncu's duration of the marker kernel, which does nothing: median "
                  f"{floor_us:.2f} us, {floor[0]:.2f}-{floor[-1]:.2f} over {len(floor)} cases)") if floor else \
        "not measured (no marker kernel in ncu's log)"
    print(("\n" if isolated_rows or serial_rows else "") + REFERENCE_NOTE.format(floor=floor_text))
    if traced_rows:
        print("\nncu's kernel time less its floor beside the kernels' own durations in a stream of launches "
              "(opmark's kernel_us, CUPTI, the reference):")
        print("\n".join(witness_table(traced_rows, floor_us)))
    if against_traced:
        print("\nopmark's reported time (back-to-back replays) against the kernels' own durations (kernel_us, CUPTI):")
        print("\n".join(table(against_traced)))
    if isolated_rows or serial_rows or traced_rows or against_traced:
        print("\nopmark's reported time (back-to-back replays) against ncu's:")
    for name in other_candidate:
        print(f"note: the profiled run chose another candidate for {name}")
    print("\n".join(table(rows)))
    if args.graph:
        print("\nwhole replays of the timed graph under ncu (--graph-profiling graph), per launch:")
        print("\n".join(table(graph_rows)) if graph_rows else f"(none: {graph_error})")
    if args.csv:
        write_csv(args.csv, rows)
    return 1 if any(row[6] == "OUT" for row in rows) or any(row[7] == "OUT" for row in traced_rows) else 0


if __name__ == "__main__":
    sys.exit(main())
