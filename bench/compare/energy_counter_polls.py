#!/usr/bin/env python3
"""Reads NVML's energy counter back to back and says when it steps: is the step a fixed-period clock (so its phase,
learnt across many steps, places a step far better than the two NVML calls around it), and how long a call takes.

  energy_counter_polls.py [--seconds S] [--gpu I] [--csv FILE]     # prints the analysis; --csv keeps the polls
  energy_counter_polls.py --analyse FILE                              # the analysis of a kept CSV

Needs only libnvidia-ml (ctypes): no torch, no pynvml. Run it while the GPU is loaded and while it idles."""
import argparse
import ctypes
import sys
import time


class FieldValue(ctypes.Structure):  # nvmlFieldValue_t
    _fields_ = [("fieldId", ctypes.c_uint), ("scopeId", ctypes.c_uint), ("timestamp", ctypes.c_longlong),
                ("latencyUsec", ctypes.c_longlong), ("valueType", ctypes.c_int), ("nvmlReturn", ctypes.c_int),
                ("value", ctypes.c_ulonglong)]


FI_TOTAL_ENERGY = 83
FI_POWER_INSTANT = 186


def poll(seconds, gpu):
    nvml = ctypes.CDLL("libnvidia-ml.so.1")
    if nvml.nvmlInit_v2() != 0:
        sys.exit("nvmlInit failed")
    dev = ctypes.c_void_p()
    if nvml.nvmlDeviceGetHandleByIndex_v2(gpu, ctypes.byref(dev)) != 0:
        sys.exit("no GPU %d" % gpu)
    mj = ctypes.c_ulonglong()
    rows = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        b = time.monotonic()
        rc = nvml.nvmlDeviceGetTotalEnergyConsumption(dev, ctypes.byref(mj))
        e = time.monotonic()
        if rc != 0:
            sys.exit("nvmlDeviceGetTotalEnergyConsumption: %d" % rc)
        rows.append(("energy", b, e, mj.value, 0, 0))
    # The field API too: its timestamp may be when the driver took the sample rather than when it was read.
    fields = (FieldValue * 2)()
    fields[0].fieldId, fields[1].fieldId = FI_TOTAL_ENERGY, FI_POWER_INSTANT
    end = time.monotonic() + seconds / 2
    wall_minus_mono = time.time() - time.monotonic()
    while time.monotonic() < end:
        b = time.monotonic()
        rc = nvml.nvmlDeviceGetFieldValues(dev, 2, fields)
        e = time.monotonic()
        if rc != 0:
            break
        stamp = fields[0].timestamp * 1e-6 - wall_minus_mono if fields[0].nvmlReturn == 0 else 0
        power = fields[1].value & 0xFFFFFFFF if fields[1].nvmlReturn == 0 else -1
        rows.append(("fields", b, e, fields[0].value, stamp, power))
    return rows


def steps_of(rows):
    """Each step of the counter: (lower bound, upper bound, value) from the polls around it."""
    out = []
    for prev, cur in zip(rows, rows[1:]):
        if cur[3] != prev[3]:
            out.append((prev[1], cur[2], cur[3]))
    return out


def lattice(steps):
    """Fits step k at t0 + n_k * T; says whether one period explains every bracket, and how tightly."""
    if len(steps) < 5:
        return "too few steps"
    mids = [(a + b) / 2 for a, b, _ in steps]
    gaps = sorted(b - a for a, b in zip(mids, mids[1:]))
    period = gaps[len(gaps) // 2]
    n = [round((m - mids[0]) / period) for m in mids]
    # least squares on (n, mid)
    k = len(n)
    mn, mm = sum(n) / k, sum(mids) / k
    sxx = sum((x - mn) ** 2 for x in n)
    T = sum((x - mn) * (y - mm) for x, y in zip(n, mids)) / sxx
    t0 = mm - T * mn
    resid = [m - (t0 + x * T) for x, m in zip(n, mids)]
    outside = sum(1 for (a, b, _), x in zip(steps, n) if not (a - 1e-4 <= t0 + x * T <= b + 1e-4))
    widths = sorted(b - a for a, b, _ in steps)
    return ("%d steps, period %.4f ms (median gap %.2f ms, gaps %.2f-%.2f ms); residual of midpoints max %.2f ms, "
            "rms %.2f ms; bracket width median %.2f ms; fitted step outside its bracket: %d" %
            (len(steps), T * 1e3, period * 1e3, gaps[0] * 1e3, gaps[-1] * 1e3, max(abs(r) for r in resid) * 1e3,
             (sum(r * r for r in resid) / k) ** 0.5 * 1e3, widths[len(widths) // 2] * 1e3, outside))


def analyse(rows, label):
    energy = [r for r in rows if r[0] == "energy"]
    fields = [r for r in rows if r[0] == "fields"]
    calls = sorted(e - b for _, b, e, *_ in energy)
    if calls:
        print("%s: %d energy calls, call time median %.3f ms, p90 %.3f ms, max %.3f ms" %
              (label, len(calls), calls[len(calls) // 2] * 1e3, calls[int(len(calls) * 0.9)] * 1e3, calls[-1] * 1e3))
        print("  energy counter: " + lattice(steps_of(energy)))
    if fields:
        st = steps_of(fields)
        print("  field API: %d calls, %d steps; %s" % (len(fields), len(st), lattice(st)))
        # Does the field's timestamp move with the value (a sample time), or with every call (a read time)?
        stamps = [r[4] for r in fields]
        moved = sum(1 for a, b in zip(stamps, stamps[1:]) if a != b)
        print("  field timestamp changed on %d of %d calls" % (moved, len(fields) - 1))
        powers = [r[5] for r in fields]
        pchanges = sum(1 for a, b in zip(powers, powers[1:]) if a != b)
        print("  instant power changed on %d of %d calls (%.0f-%.0f W)" %
              (pchanges, len(fields) - 1, min(powers) / 1e3, max(powers) / 1e3))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--gpu", type=int, default=0)
    ap.add_argument("--csv")
    ap.add_argument("--label", default="polls")
    ap.add_argument("--analyse")
    a = ap.parse_args()
    if a.analyse:
        rows = []
        for line in open(a.analyse):
            k, b, e, v, s, p = line.strip().split(",")
            rows.append((k, float(b), float(e), int(v), float(s), int(p)))
    else:
        rows = poll(a.seconds, a.gpu)
        if a.csv:
            with open(a.csv, "w") as f:
                for r in rows:
                    f.write("%s,%.9f,%.9f,%d,%.9f,%d\n" % r)
    analyse(rows, a.label)


if __name__ == "__main__":
    main()
