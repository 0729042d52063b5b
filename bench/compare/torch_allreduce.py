#!/usr/bin/env python3
"""What NCCL delivers through torch.distributed on the same GPUs and sizes, beside opmark's all-reduce numbers.

    python3 bench/compare/torch_allreduce.py RESULTS.jsonl [--ranks N] [--csv OUT.csv]

Reads the all-reduce cases opmark-bench logged (results.jsonl) for N ranks (default: every visible GPU), starts N
processes (one per GPU, NCCL backend, as DDP runs), times dist.all_reduce on the same element count, dtype and op
in CUDA graphs, as opmark times its cases (warm-up, then a graph of back-to-back calls captured once and the median
over 20 timed replays; every rank's time is gathered and the mean taken, as opmark reports; where a capture fails,
back-to-back calls from the host, said in the CSV's torch_timing), and prints busbw (nccl-tests' algbw
x 2 (n - 1) / n) for both with torch/opmark busbw (below 1: opmark measures more bandwidth than PyTorch gets from NCCL).
NVLink multicast (NVLS) is left as the machine sets it.
"""
import argparse
import csv
import os
import statistics
import sys

from opmark_results import ALLREDUCE_NAME, median_records

# PyTorch is imported by import_torch() once the arguments are read: --help answers on a machine without it.
torch = dist = mp = None
DTYPES = {}  # precision -> torch dtype
OPS = {}  # op name -> torch.distributed reduce op


def import_torch():
    global torch, dist, mp
    import torch
    import torch.distributed as dist
    import torch.multiprocessing as mp
    DTYPES.update({"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16})
    OPS.update({"sum": dist.ReduceOp.SUM, "prod": dist.ReduceOp.PRODUCT, "max": dist.ReduceOp.MAX,
                "min": dist.ReduceOp.MIN})


def capture(x, op, calls):
    """A CUDA graph of `calls` back-to-back all-reduces of x and "graph", or None and why it could not be captured
    (every rank captures, so every rank makes the same collective calls either way)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up off the default stream, as torch.cuda.graph asks
        for _ in range(3):
            dist.all_reduce(x, op=op)
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    try:
        with torch.cuda.graph(graph):
            for _ in range(calls):
                dist.all_reduce(x, op=op)
    except RuntimeError as e:
        torch.cuda.synchronize()
        return None, "eager: " + str(e).splitlines()[0][:120]
    graph.replay()  # the first replay uploads the graph
    torch.cuda.synchronize()
    return graph, "graph"


def worker(rank, world, cases, port, queue):
    import_torch()  # a spawned process starts with this module's globals unset
    os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = "127.0.0.1", str(port)
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world)
    results = []
    for name, precision, count, op in cases:
        x = torch.rand(count, device="cuda", dtype=DTYPES[precision]) * 2 - 1
        for _ in range(5):  # warm-up: NCCL sets up its channels on the first calls
            dist.all_reduce(x, op=OPS[op])
        torch.cuda.synchronize()
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        dist.all_reduce(x, op=OPS[op])
        stop.record()
        stop.synchronize()
        one = start.elapsed_time(stop) * 1e3
        calls = max(1, min(1000, int(2000 / max(one, 1e-3))))  # about 2 ms a sample, as opmark batches
        t = torch.tensor([calls], device="cuda")
        dist.all_reduce(t, op=dist.ReduceOp.MAX)  # every rank makes the same number of calls
        calls = int(t.item())
        graph, timing = capture(x, OPS[op], calls)
        samples = []
        for _ in range(20):
            start.record()
            if graph is not None:
                graph.replay()
            else:
                for _ in range(calls):
                    dist.all_reduce(x, op=OPS[op])
            stop.record()
            stop.synchronize()
            samples.append(start.elapsed_time(stop) * 1e3 / calls)
        del graph
        mine = torch.tensor([statistics.median(samples)], device="cuda")
        every = [torch.zeros(1, device="cuda") for _ in range(world)]
        dist.all_gather(every, mine)
        results.append((name, sum(float(v.item()) for v in every) / world, timing))
        del x
        torch.cuda.empty_cache()
    if rank == 0:
        queue.put(results)
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results")
    ap.add_argument("--ranks", type=int, default=0, help="processes, one per GPU (default: every visible GPU)")
    ap.add_argument("--csv")
    ap.add_argument("--port", type=int, default=29511)
    args = ap.parse_args()
    import_torch()
    if args.ranks <= 0:
        args.ranks = torch.cuda.device_count()
    ours = {}
    for rec in median_records(args.results):
        m = ALLREDUCE_NAME.match(rec["name"])
        if m and int(m.group(3)) == args.ranks:
            ours[rec["name"]] = (m.group(1), int(m.group(2)), m.group(4), rec["time_us"])
    if not ours:
        print(f"no all-reduce case with ranks={args.ranks} in {args.results}")
        return 1
    cases = [(name, p, count, op) for name, (p, count, op, _) in ours.items()]
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    mp.spawn(worker, args=(args.ranks, cases, args.port, queue), nprocs=args.ranks, join=True)
    theirs = {name: (us, timing) for name, us, timing in queue.get()}
    factor = 2 * (args.ranks - 1) / args.ranks if args.ranks > 1 else 1.0
    rows = []
    print(f"{'case':<72} {'bytes':>12} {'opmark GB/s':>12} {'torch GB/s':>11} {'torch/opmark':>12}  (busbw)")
    for name, (p, count, op, us) in ours.items():
        size = count * torch.tensor([], dtype=DTYPES[p]).element_size()
        bus_ours = size / (us * 1e-6) / 1e9 * factor
        bus_theirs = size / (theirs[name][0] * 1e-6) / 1e9 * factor
        rows.append((name, size, bus_ours, bus_theirs, bus_theirs / bus_ours, theirs[name][1]))
        print(f"{name:<72} {size:>12} {bus_ours:>12.2f} {bus_theirs:>11.2f} {bus_theirs / bus_ours:>12.3f}  "
              f"{theirs[name][1]}")
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["case", "bytes", "opmark_busbw_gb_per_s", "torch_busbw_gb_per_s", "torch_over_opmark",
                        "torch_timing"])
            w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
