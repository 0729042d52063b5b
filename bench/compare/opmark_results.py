"""Reading opmark-bench's results.jsonl for the reference scripts (no PyTorch needed)."""
import json
import re

# An all-reduce case's name: precision, count, ranks, op, inplace.
ALLREDUCE_NAME = re.compile(r"^allreduce/fwd/(\w+)/count=(\d+)/ranks=(\d+)/op=(\w+)/inplace=(\w+)$")


def median_records(path):
    """The median aggregate of every case the run measured and verified (status ok), as logged."""
    with open(path) as f:
        for line in f:
            rec = json.loads(line)
            if rec.get("type") == "aggregate" and rec.get("aggregate") == "median" and rec.get("status") == "ok":
                yield rec
