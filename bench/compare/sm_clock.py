"""The SM clock measured on the GPU around PyTorch's samples, and opmark-bench's burst rule applied to them.

opmark-bench stamps each sample with every multiprocessor's cycle counter and the global timer (kernels/sm_clock.h)
and drops a sample whose clock was down (bench/harness/timing/regime.h): under 90% of the GPU's maximum and more than 5%
under the clock the case ran at rested, then idles 50 ms (doubling to 0.5 s, 5 s in all, 40 drops) before taking
it again. Comparing it with PyTorch timed back to back, the heavy cases differed by the clock each ran at, not by
their kernels; so PyTorch's samples here are stamped and judged by the same probe and the same rule.

The probe is libopmark_sm_clock.so (bench/CMakeLists.txt), loaded with ctypes; it launches on PyTorch's stream.
"""
import ctypes
import glob
import os
import subprocess
import time

MIN_CLOCK_FRACTION = 0.9   # regime.h kMinClockFraction
RESTED_TOLERANCE = 0.05    # regime.h kRestedClockTolerance
FIRST_PAUSE_S, MAX_PAUSE_S, PAUSE_BUDGET_S, MAX_DROPS = 0.05, 0.5, 5.0, 40  # regime.h RecoveryRule


def find_library(explicit=None):
    """The probe library: `explicit`, else the first build folder's under the repository."""
    if explicit:
        return explicit
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    found = sorted(glob.glob(os.path.join(root, "build", "*", "bench", "libopmark_sm_clock.so")))
    if not found:
        raise SystemExit("no libopmark_sm_clock.so under build/*/bench: build the opmark_sm_clock target, or pass "
                         "--clock-lib")
    return found[0]


class Probe:
    """Stamps before and after a stretch of work on a stream; mhz() is the mean SM clock between them."""

    def __init__(self, path):
        lib = ctypes.CDLL(path)
        lib.opmark_sm_clock_new.restype = ctypes.c_void_p
        lib.opmark_sm_clock_free.argtypes = [ctypes.c_void_p]
        lib.opmark_sm_clock_stamp.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
        lib.opmark_sm_clock_stamp.restype = ctypes.c_int
        lib.opmark_sm_clock_mhz.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        lib.opmark_sm_clock_mhz.restype = ctypes.c_double
        lib.opmark_sm_clock_error.restype = ctypes.c_char_p
        self.lib = lib
        self.handle = lib.opmark_sm_clock_new()
        if not self.handle:
            raise RuntimeError("the SM clock probe: " + lib.opmark_sm_clock_error().decode())

    def _check(self, rc):
        if rc < 0:
            raise RuntimeError("the SM clock probe: " + self.lib.opmark_sm_clock_error().decode())
        return rc

    def stamp(self, stream, slot):
        self._check(self.lib.opmark_sm_clock_stamp(self.handle, stream, slot))

    def mhz(self, stream):
        return self._check(self.lib.opmark_sm_clock_mhz(self.handle, stream))


def max_sm_mhz(device=0):
    """The GPU's maximum SM clock, from nvidia-smi (0 when it cannot say)."""
    try:
        out = subprocess.run(["nvidia-smi", "-i", str(device), "--query-gpu=clocks.max.sm",
                              "--format=csv,noheader,nounits"], capture_output=True, text=True, timeout=30)
        return float(out.stdout.strip().splitlines()[0])
    except (OSError, ValueError, IndexError, subprocess.TimeoutExpired):
        return 0.0


class BurstClock:
    """regime.h's BurstClock without NVML's reasons: whether a sample's measured clock counts as throttled."""

    def __init__(self, max_mhz):
        self.max_mhz, self.rested_mhz = max_mhz, 0.0

    def throttled(self, mhz, after_pause):
        if not (mhz > 0 and self.max_mhz > 0):
            return False
        fast = mhz >= MIN_CLOCK_FRACTION * self.max_mhz
        if fast or after_pause:
            self.rested_mhz = max(self.rested_mhz, mhz)
        if fast:
            return False
        return not self.rested_mhz > 0 or mhz < (1 - RESTED_TOLERANCE) * self.rested_mhz


class Recovery:
    """regime.h's Recovery: the idle pause before a dropped sample is taken again, and when the pauses run out."""

    def __init__(self):
        self.next_pause = 0.0
        self.paused = 0.0
        self.drops = 0
        self.exhausted = False

    def after_drop(self):
        self.drops += 1
        self.next_pause = min(2 * self.next_pause, MAX_PAUSE_S) if self.next_pause > 0 else FIRST_PAUSE_S
        if self.drops > MAX_DROPS or self.paused + self.next_pause > PAUSE_BUDGET_S:
            self.exhausted = True
            return None
        self.paused += self.next_pause
        return self.next_pause

    def after_keep(self):
        self.next_pause = 0.0


def burst_samples(sample, calls, measure_s, min_samples, sleep=time.sleep):
    """Samples of sample() -> (time per call in us, measured MHz) over at least `measure_s` of GPU time, a throttled
    one dropped and taken again after a pause as opmark-bench's burst regime does. Returns (kept times, their
    clocks, dropped count, whether the pauses ran out)."""
    clock, recovery = None, Recovery()
    times, clocks, dropped, spent, after_pause = [], [], 0, 0.0, False
    while spent < measure_s * 1e6 or len(times) < min_samples:
        t, mhz = sample()
        if clock is None:
            clock = BurstClock(max_sm_mhz())
        throttled = clock.throttled(mhz, after_pause)
        after_pause = False
        if throttled and not recovery.exhausted:
            dropped += 1
            pause = recovery.after_drop()
            if pause is not None:
                sleep(pause)
                after_pause = True
                continue
        elif not throttled:
            recovery.after_keep()
        times.append(t)
        clocks.append(mhz)
        spent += t * calls
    return times, clocks, dropped, recovery.exhausted
