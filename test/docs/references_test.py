#!/usr/bin/env python3
"""The documentation's references resolve (issue 57): in README.md, results/README.md, the folder READMEs and docs/,
every `see "Section"` names a heading that exists, every relative Markdown link a file that exists, and every
repository path written in backticks (`docs/models.md`, `shapes/models/import_onnx.py`) a file or folder that
exists. Paths with a placeholder (<date>, *, ...) are patterns, not references.

    python3 test/docs/references_test.py
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOP = ("docs", "shapes", "bench", "aggregate", "core", "kernels", "test", "results", "cmake", ".ci")


def documents():
    names = ["README.md", "results/README.md", "aggregate/README.md", "kernels/README.md"]
    names += [os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md"))]
    names += [os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "bench", "harness", "*", "README.md"))]
    return [n for n in names if os.path.isfile(os.path.join(ROOT, n))]


def headings(texts):
    out = set()
    for text in texts.values():
        out.update(m.group(1).strip() for m in re.finditer(r"^#+\s+(.*)$", text, re.M))
    return out


def problems():
    texts = {name: open(os.path.join(ROOT, name), encoding="utf-8").read() for name in documents()}
    known = headings(texts)
    found = []
    for name, text in texts.items():
        for number, line in enumerate(text.splitlines(), 1):
            for section in re.findall(r'see "([^"]+)"', line):
                if section not in known:
                    found.append(f"{name}:{number}: see \"{section}\": no such heading")
            for target in re.findall(r"\]\(([^)\s]+)\)", line):
                if re.match(r"^(https?:|mailto:|#)", target):
                    continue
                path = os.path.normpath(os.path.join(ROOT, os.path.dirname(name), target.split("#")[0]))
                if not os.path.exists(path):
                    found.append(f"{name}:{number}: link {target}: no such file")
            for token in re.findall(r"`([^`\s]+)`", line):
                if not token.startswith(tuple(t + "/" for t in TOP)) or re.search(r"[<>*{}$]|\.\.\.|NAME|_vN", token):
                    continue
                path = token.split(":")[0].rstrip(".,;")
                if not os.path.exists(os.path.join(ROOT, path)):
                    found.append(f"{name}:{number}: `{token}`: no such file or folder")
    return found


if __name__ == "__main__":
    bad = problems()
    for b in bad:
        print(b)
    print(f"{len(bad)} unresolved reference(s) in {len(documents())} documents")
    sys.exit(1 if bad else 0)
