#!/usr/bin/env python3
"""opmark-aggregate page over a folder holding a 31 MB .gz bundle, and over a 262 MB plain run (--runs), builds in
under 2 GiB and a minute.

Run as: page_memory_test.py AGGREGATE DATA OUT, DATA being test/data/bundles. The big bundle is good_v5 with its
run/results.jsonl replaced by a .gz of 31 MB: good_v5's case lines repeated under new case names, each line with a
label of random hex (it inflates to about 125 MB). Beside it, good_v5 as it is. The page, checking every bundle
against the fixture's rules, must show the big bundle or reject it with its reason, and write the page; with
--unchecked it shows every case of it. Then a plain run of 262 MB (results.jsonl, the same lines) beside good_v5,
paged with --runs: shown apart, read one run at a time. Each page in under a minute, its peak resident memory
(getrusage of the children) under 2 GiB.
"""
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time
import zlib

GZ_BYTES = 31 * 1000 * 1000
RUN_BYTES = 262 * 1000 * 1000
LABEL_BYTES = 500  # random bytes per line, as hex
LIMIT_RSS = 2 << 30
LIMIT_S = 60


def fail(what):
    print("FAIL: " + what)
    sys.exit(1)


def write_big_results(source, target, plain_bytes=0):
    """good_v5's first case (its run and aggregate lines) repeated as gemm/.../m=<N>/..., to GZ_BYTES of gzip, or
    with plain_bytes to that many bytes of plain text."""
    lines = [json.loads(l) for l in open(source, encoding="utf-8")]
    context = lines[0]
    name = lines[1]["name"]
    case_lines = [l for l in lines if l.get("name") == name]
    gz = zlib.compressobj(1, zlib.DEFLATED, 31)  # wbits 31: the gzip format; level 1, the fastest
    written = 0
    cases = 0
    with open(target, "wb") as out:
        def put(text):
            nonlocal written
            data = text.encode() if plain_bytes else gz.compress(text.encode())
            written += len(data)
            out.write(data)
        put(json.dumps(context) + "\n")
        # Each line its own label of random hex, which gzip cannot squeeze (a JSON line alone it squeezes tenfold),
        # so the file inflates to about four times its size: read whole, not refused at the checker's cap. The text
        # of a line with two holes, filled by str.replace: json per line would take minutes.
        templates = [json.dumps(dict(l, name="@NAME@", label="@LABEL@")) + "\n" for l in case_lines]
        while written < (plain_bytes or GZ_BYTES):
            chunk = []
            for _ in range(100):
                cases += 1
                new_name = name.replace("/m=64/", "/m=%d/" % (1000 + cases))
                for t in templates:
                    chunk.append(t.replace("@NAME@", new_name).replace("@LABEL@", os.urandom(LABEL_BYTES).hex()))
            put("".join(chunk))
        put(json.dumps({"type": "summary", "ok": cases, "skipped": 0, "failed": 0}) + "\n")
        if not plain_bytes:
            out.write(gz.flush())
    return cases


def main():
    aggregate, data, out = sys.argv[1:4]
    shutil.rmtree(out, ignore_errors=True)
    results = os.path.join(out, "results")
    shutil.copytree(os.path.join(data, "good_v5"), os.path.join(results, "good_v5"))
    big = os.path.join(results, "big_gz")
    shutil.copytree(os.path.join(data, "good_v5"), big)
    os.remove(os.path.join(big, "run", "results.jsonl"))
    gz_path = os.path.join(big, "run", "results.jsonl.gz")
    started = time.monotonic()
    cases = write_big_results(os.path.join(data, "good_v5", "run", "results.jsonl"), gz_path)
    size = os.path.getsize(gz_path)
    if size < GZ_BYTES:
        fail("the generated bundle is %d bytes of gzip, not 31 MB" % size)
    print("big_gz/run/results.jsonl.gz: %.1f MB of gzip, %d cases, written in %.1f s"
          % (size / 1e6, cases, time.monotonic() - started))

    # Checked (the default): good_v5 passes the fixture's rules; the big bundle, no real run, is rejected with its
    # reason, after being read whole.
    checked = os.path.join(out, "index.html")
    run = run_page(aggregate, [results, "--out=" + checked, "--rules=" + os.path.join(data, "rules_v5.yaml"),
                               "--shapes=" + os.path.join(data, "shapes")])
    html = open(checked, encoding="utf-8").read()
    reason = re.search(r"big_gz</code>: ([^<]*)</li>", html)
    if "2 bundles" not in run.stdout:
        if not re.search(r"(rejected|skipped) the bundle \S*big_gz", run.stderr):
            fail("the big bundle is neither shown nor rejected by name")
        if not reason or not reason.group(1).startswith(("rejected by the checker", "/")):
            fail("the page does not name the rejected bundle with its reason")
        print("rejected: " + reason.group(1)[:300])
    # Unchecked: every case of the big bundle on the page.
    run = run_page(aggregate, ["--unchecked", results, "--out=" + os.path.join(out, "unchecked.html")])
    if not re.search(r"wrote .*: 2 bundles, %d cases" % (cases + 4), run.stdout):
        fail("the unchecked page does not show the big bundle's %d cases" % cases)
    # A plain run of 262 MB beside good_v5: counted without --runs; with it, shown apart, every case of it.
    shutil.rmtree(big)
    plain = os.path.join(results, "big_run")
    os.makedirs(plain)
    started = time.monotonic()
    cases = write_big_results(os.path.join(data, "good_v5", "run", "results.jsonl"),
                              os.path.join(plain, "results.jsonl"), RUN_BYTES)
    print("big_run/results.jsonl: %.1f MB, %d cases, written in %.1f s"
          % (os.path.getsize(os.path.join(plain, "results.jsonl")) / 1e6, cases, time.monotonic() - started))
    page_args = [results, "--rules=" + os.path.join(data, "rules_v5.yaml"), "--shapes=" + os.path.join(data, "shapes")]
    run = run_page(aggregate, page_args + ["--out=" + os.path.join(out, "runs_hidden.html")])
    if "1 plain run(s) not shown" not in run.stdout:
        fail("without --runs the page does not say it left the plain run out")
    run = run_page(aggregate, page_args + ["--runs", "--out=" + os.path.join(out, "runs.html")])
    if not re.search(r"wrote .*: 1 bundle, \d+ cases .*1 plain run\(s\) apart, not checked", run.stdout):
        fail("the page with --runs does not show the plain run apart")
    os.remove(os.path.join(plain, "results.jsonl"))
    print("ok: the page over a 31 MB .gz bundle, checked and unchecked, and over a 262 MB plain run, each in under "
          "%d s and 2 GiB" % LIMIT_S)


def run_page(aggregate, args):
    """opmark-aggregate page ARGS: must succeed in under LIMIT_S, its peak resident memory under 2 GiB."""
    started = time.monotonic()
    run = subprocess.run([aggregate, "page"] + args, capture_output=True, text=True, timeout=LIMIT_S * 3)
    seconds = time.monotonic() - started
    # The largest peak of the children waited for so far (Linux: KiB): this run's where it is the largest.
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    print(run.stdout + run.stderr[:2000])
    print("page %s: exit %d, %.1f s, peak resident memory %.0f MiB"
          % (" ".join(args[:1]), run.returncode, seconds, peak / (1 << 20)))
    if run.returncode != 0:
        fail("the page was not written (exit %d)" % run.returncode)
    if peak >= LIMIT_RSS:
        fail("the page took %.0f MiB resident, not under 2 GiB" % (peak / (1 << 20)))
    if seconds >= LIMIT_S:
        fail("the page took %.0f s, not under %d s" % (seconds, LIMIT_S))
    return run

if __name__ == "__main__":
    main()
