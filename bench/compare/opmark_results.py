"""Reading opmark-bench's results.jsonl for the comparison scripts (no PyTorch needed).

The one reader of the results log in Python, following the schema in results/README.md ("results.jsonl, format 3"),
which core/result_record.h defines for the C++ tools: every script here reads the log through read_records.
"""
import gzip
import json
import os
import re

# An all-reduce case's name: precision, count, ranks, op, inplace.
ALLREDUCE_NAME = re.compile(r"^allreduce/fwd/(\w+)/count=(\d+)/ranks=(\d+)/op=(\w+)/inplace=(\w+)$")

STATUSES = ("ok", "unstable", "skipped", "failed")

# The counter schema (core/counters.h), as `opmark-aggregate counters --json` writes it; a CPU test keeps it current.
COUNTERS_JSON = os.path.join(os.path.dirname(os.path.abspath(__file__)), "counters.json")


class CounterNames:
    """The counters' names, read from the schema: COUNTER.sm_clock_mhz is "sm_clock_mhz", and a name the schema
    lacks raises AttributeError, so a script cannot drift from what opmark-bench writes. `specs` maps a name to its
    unit, families and description."""

    def __init__(self, path):
        with open(path) as f:
            self.specs = {c["name"]: c for c in json.load(f)["counters"]}

    def __getattr__(self, name):
        if name in self.__dict__.get("specs", {}):
            return name
        raise AttributeError(f"no counter '{name}' in {COUNTERS_JSON}")


COUNTER = CounterNames(COUNTERS_JSON)
CASE_TYPES = ("run", "aggregate")


def results_file(path):
    """The results log that `path` names: the file itself, or in a folder its results.jsonl, a run folder's or a
    bundle's (results/<bundle>/run/results.jsonl.gz). Raises FileNotFoundError naming the places looked in."""
    if not os.path.isdir(path):
        return path
    tried = [os.path.join(path, *parts) for parts in (("results.jsonl",), ("results.jsonl.gz",),
                                                        ("run", "results.jsonl"), ("run", "results.jsonl.gz"))]
    for candidate in tried:
        if os.path.isfile(candidate):
            return candidate
    raise FileNotFoundError(f"{path}: a folder with no results log (looked for {', '.join(tried)})")


def _open_text(path):
    """The log as text, gzip-compressed (a bundle's run/results.jsonl.gz) or not."""
    with open(path, "rb") as f:
        compressed = f.read(2) == b"\x1f\x8b"
    return gzip.open(path, "rt") if compressed else open(path)


def _check_case(rec, where):
    """A case line's fields as the schema types them; raises ValueError naming the line and the field."""
    name = rec.get("name")
    if not isinstance(name, str) or not name:
        raise ValueError(f"{where}: field 'name': expected a case name, got {name!r}")
    if rec.get("status") not in STATUSES:
        raise ValueError(f"{where}: field 'status': expected ok, unstable, skipped or failed, got {rec.get('status')!r}")
    if rec["type"] == "aggregate" and not isinstance(rec.get("aggregate"), str):
        raise ValueError(f"{where}: field 'aggregate': expected median, mean or recheck, got {rec.get('aggregate')!r}")
    if "time_us" in rec and not isinstance(rec["time_us"], (int, float)):
        raise ValueError(f"{where}: field 'time_us': expected a number, got {rec['time_us']!r}")
    if not isinstance(rec.get("counters", {}), dict):
        raise ValueError(f"{where}: field 'counters': expected an object, got {rec['counters']!r}")


def read_records(path):
    """Every line of the log as a dict (context, run, aggregate, summary; lines of other types as they are), in file
    order. Blank lines are skipped, and so is a last line cut off mid-write (a killed run): everything before it
    stands. Context values are numbers or text as the log typed them (logs before results format 2 hold text).
    `path` may be a run folder or a bundle folder (results_file)."""
    path = results_file(path)
    with _open_text(path) as f:
        lines = f.read().split("\n")
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            if number == len(lines):  # no newline after it: where the run stopped writing
                return
            raise ValueError(f"{where}: not a JSON line ({e})") from None
        if not isinstance(rec, dict) or not isinstance(rec.get("type"), str):
            raise ValueError(f"{where}: expected a JSON object with a 'type'")
        if rec["type"] in CASE_TYPES:
            _check_case(rec, where)
        yield rec


def case_records(path):
    """The case lines (run and aggregate), in file order."""
    return (rec for rec in read_records(path) if rec["type"] in CASE_TYPES)


def median_records(path):
    """The median aggregate of every case the run measured and verified (status ok), as logged."""
    for rec in case_records(path):
        if rec["type"] == "aggregate" and rec["aggregate"] == "median" and rec["status"] == "ok":
            yield rec


def case_key(name):
    # Google Benchmark may append /manual_time to a case's name; opmark's own lines do not carry it.
    return name[: -len("/manual_time")] if name.endswith("/manual_time") else name


def _label_head(rec):
    """The label's first part: the candidate and how it was chosen, "NAME (fastest of N; default NAME, 1.05x)"."""
    return rec.get("label", "").split(" | ")[0]


def chosen_candidates(path):
    """{case: the candidate the tuner chose (or a pin named)}: the label's first part, up to " (fastest of" or
    " (pinned" (what follows, the default's speedup, is a measurement and moves from run to run). Cases without
    candidates are left out."""
    chosen = {}
    for rec in median_records(path):
        head = _label_head(rec)
        for mark in (" (fastest of", " (pinned"):
            if mark in head:
                chosen[case_key(rec["name"])] = head.split(mark)[0]
    return chosen


# "(fastest of N; default NAME, 1.05x)", with "; PyTorch's call[ 1.02x]" before the ")" where the case lists it.
_DEFAULT_IN_LABEL = re.compile(r"\(fastest of \d+; default (.*), [0-9.]+x(?:; PyTorch's call(?: [0-9.]+x)?)?\)$")


def default_candidates(path):
    """{case: the candidate the library lists first (what a user gets without tuning)}, from a tuned case's label;
    cases without one (pinned, untuned, or the library listing none) are left out."""
    defaults = {}
    for rec in median_records(path):
        m = _DEFAULT_IN_LABEL.search(_label_head(rec))
        if m:
            defaults[case_key(rec["name"])] = m.group(1)
    return defaults


def write_pins(path, pins):
    """The pin file opmark-bench's --opmark_pin reads (`case<TAB>candidate` lines): a later run then runs these
    candidates instead of tuning (a profiled run the ones the timed run chose; a run on the library's defaults)."""
    with open(path, "w") as f:
        for name, candidate in sorted(pins.items()):
            f.write(f"{name}\t{candidate}\n")
