#!/usr/bin/env python3
"""A model table's `measured:` entries, one per GPU and precision: read, write and merge one in.

A table's ops are traced once; the real model's time on another GPU is an entry added to the same table
(extract_models.py --add-measured does it on the GPU). This merges entries from tables traced elsewhere:

    python3 shapes/models/measured_entries.py --from DIR --date 2026-11-26 \\
        --software "torch 2.11.0+cu130, cuDNN 9.19.0, driver 580.159.04" [--into shapes/models] [--models a,b]

takes each DIR/<model>.yaml's measured entry (adding the date and software given), and merges it into
<into>/<model>.yaml: an entry of the same device and precision is replaced, the others stay as written, the ops
are untouched. Needs no PyTorch and no YAML library: each entry is a flow map on one line, as entry_text writes.
"""
import argparse
import os
import re
import sys

KEYS = ("device", "precision", "graph_ms", "eager_ms", "kernel_ms", "graph_suspect", "date", "software")
QUOTED = ("device", "date", "software")


def entry_text(m):
    """One entry as a flow map, keys in KEYS order; None and false values are left out."""
    parts = []
    for k in KEYS:
        v = m.get(k)
        if v is None or v is False:
            continue
        if k in QUOTED:
            parts.append(f'{k}: "{v}"')
        elif k == "graph_suspect":
            parts.append("graph_suspect: true")
        elif k.endswith("_ms"):
            parts.append(f"{k}: {v:.4f}")
        else:
            parts.append(f"{k}: {v}")
    return "{" + ", ".join(parts) + "}"


def parse_flow_map(text):
    """{a: 1, b: "x, y"} -> {"a": "1", "b": "x, y"}: the flow maps entry_text writes (values stay strings)."""
    text = text.strip()
    if not (text.startswith("{") and text.endswith("}")):
        raise ValueError(f"not a one-line map: {text!r}")
    out = {}
    for key, quoted, plain in re.findall(r'\s*([\w]+):\s*(?:"([^"]*)"|([^,}]*))\s*,?', text[1:-1]):
        out[key] = quoted if quoted or not plain else plain.strip()
    return out


def _block(lines):
    """(start, end, entry texts) of the measured block in a table's lines, or None where there is none."""
    for i, line in enumerate(lines):
        if line.startswith("measured:"):
            rest = line[len("measured:"):].strip()
            if rest:
                return i, i + 1, [rest]
            j = i + 1
            while j < len(lines) and lines[j].startswith("  - {"):
                j += 1
            return i, j, [l.strip()[2:] for l in lines[i + 1:j]]
    return None


def entry_texts(text):
    """The table's measured entries as written (flow maps), in its order (a single map: a list of one)."""
    found = _block(text.splitlines())
    return found[2] if found else []


def read_entries(text):
    """The table's measured entries as dicts of strings, in its order."""
    return [parse_flow_map(e) for e in entry_texts(text)]


def merge_entry(text, entry):
    """The table's text with `entry` (a dict, or a flow map's text) merged into its measured block: an entry of the
    same device and precision replaced where it stands, else added last. The block is written as a list; other
    entries keep their text; a table without a block gets one before `ops:`."""
    new = entry if isinstance(entry, str) else entry_text(entry)
    key = parse_flow_map(new)
    key = (key.get("device"), key.get("precision"))
    lines = text.splitlines()
    found = _block(lines)
    if found:
        start, end, entries = found
    else:
        start = end = next(i for i, l in enumerate(lines) if l.startswith("ops:"))
        entries = []
    kept, replaced = [], False
    for e in entries:
        m = parse_flow_map(e)
        if (m.get("device"), m.get("precision")) == key:
            kept.append(new)
            replaced = True
        else:
            kept.append(e)
    if not replaced:
        kept.append(new)
    block = ["measured:"] + [f"  - {e}" for e in kept]
    return "\n".join(lines[:start] + block + lines[end:]) + "\n"


def merge_into_file(path, entry):
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(merge_entry(text, entry))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--from", dest="source", required=True, help="folder of tables traced on the other GPU")
    ap.add_argument("--into", default=os.path.dirname(os.path.abspath(__file__)), help="the tables to add to")
    ap.add_argument("--models", default="", help="comma-separated names (default: every table in --from)")
    ap.add_argument("--date", required=True, help="when the entries were measured, YYYY-MM-DD")
    ap.add_argument("--software", required=True, help="torch, cuDNN and driver versions, one short line")
    args = ap.parse_args()
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", args.date):
        ap.error(f"--date: expected YYYY-MM-DD, got {args.date!r}")
    names = args.models.split(",") if args.models else sorted(
        f[:-5] for f in os.listdir(args.source) if f.endswith(".yaml"))
    for name in names:
        with open(os.path.join(args.source, f"{name}.yaml")) as f:
            entries = read_entries(f.read())
        if len(entries) != 1:
            print(f"{name}: expected one measured entry in {args.source}, found {len(entries)}", file=sys.stderr)
            return 1
        m = entries[0]
        for k in ("graph_ms", "eager_ms", "kernel_ms"):
            if k in m:
                m[k] = float(m[k])
        m["graph_suspect"] = m.get("graph_suspect") == "true"
        m["date"], m["software"] = args.date, args.software
        target = os.path.join(args.into, f"{name}.yaml")
        merge_into_file(target, m)
        print(f"{name}: {entry_text(m)} -> {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
