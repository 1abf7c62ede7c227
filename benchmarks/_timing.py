"""Shared helpers of the benchmark scripts: adaptive best-of-3 timing and table printing.

Timing: a *workload* ``run(reps)`` performs about ``reps`` calls and returns
``(elapsed seconds, calls made)``.  :func:`best_per_call` grows ``reps`` until
one run lasts about :data:`TARGET_SECONDS`, then reports the best (smallest)
time per call over :data:`RUNS` runs, measured with ``time.perf_counter``.
The garbage collector is paused during a run, as ``timeit`` does.

Floats appear only as measured times and as displayed figures; nothing the
library decides is computed from them.
"""

from __future__ import annotations

import gc
import json
import os
import platform
import subprocess
import sys
from collections.abc import Callable, Sequence
from itertools import repeat
from time import perf_counter
from typing import Any

import gmpy2

import finitedp

__all__ = [
    "POOL_SIZE",
    "RUNS",
    "TARGET_SECONDS",
    "Workload",
    "best_per_call",
    "call_loop",
    "environment",
    "fmt_time",
    "print_table",
    "repeat_call",
]

#: Each timed run repeats its workload until it lasts about this long.
TARGET_SECONDS = 0.3
#: The number of timed runs; the best (smallest) time per call is reported.
RUNS = 3
#: The most pre-drawn arguments a :func:`call_loop` keeps (it cycles through them).
POOL_SIZE = 4096

#: ``run(reps) -> (elapsed seconds, calls made)``.
Workload = Callable[[int], tuple[float, int]]


def _timed(run: Workload, reps: int) -> tuple[float, int]:
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        return run(reps)
    finally:
        if enabled:
            gc.enable()


def best_per_call(run: Workload, target: float = TARGET_SECONDS, runs: int = RUNS) -> float:
    """Seconds per call: the best of ``runs`` runs, each repeated until about ``target`` seconds."""
    reps = 1
    elapsed, calls = _timed(run, reps)
    results: list[float] = []
    if elapsed >= target:
        results.append(elapsed / calls)  # one call fills a run: keep it as the first run
    else:
        while elapsed < target / 10:
            reps *= 10
            elapsed, calls = _timed(run, reps)
        reps = max(reps, int(reps * target / elapsed) + 1)
    while len(results) < runs:
        elapsed, calls = _timed(run, reps)
        results.append(elapsed / calls)
    return min(results)


def repeat_call(fn: Callable[..., object], *args: Any) -> Workload:
    """The workload ``fn(*args)`` called ``reps`` times (e.g. ``sampler.sample(c, rng)``)."""
    if len(args) == 2:  # the common case, without star-args in the timed loop
        first, second = args

        def run2(reps: int) -> tuple[float, int]:
            start = perf_counter()
            for _ in repeat(None, reps):
                fn(first, second)
            return perf_counter() - start, reps

        return run2
    if len(args) == 1:
        (only,) = args

        def run1(reps: int) -> tuple[float, int]:
            start = perf_counter()
            for _ in repeat(None, reps):
                fn(only)
            return perf_counter() - start, reps

        return run1

    def run(reps: int) -> tuple[float, int]:
        start = perf_counter()
        for _ in repeat(None, reps):
            fn(*args)
        return perf_counter() - start, reps

    return run


def call_loop(fn: Callable[[int, int], object], c: int, make_arg: Callable[[], int]) -> Workload:
    """The workload ``fn(c, u)`` over pre-made arguments ``u`` (made before the clock starts).

    At most :data:`POOL_SIZE` arguments are made per run; the loop cycles through them.
    """

    def run(reps: int) -> tuple[float, int]:
        pool = [make_arg() for _ in range(min(reps, POOL_SIZE))]
        rounds = -(-reps // len(pool))
        start = perf_counter()
        for _ in repeat(None, rounds):
            for u in pool:
                fn(c, u)
        return perf_counter() - start, rounds * len(pool)

    return run


def fmt_time(seconds: float) -> str:
    """A time with a unit chosen for readability (ns, us, ms or s)."""
    for scale, unit in ((1e-6, "ns"), (1e-3, "us"), (1.0, "ms")):
        if seconds < scale:
            return f"{seconds / scale * 1e3:.3g} {unit}"
    return f"{seconds:.3g} s"


def print_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    """Print rows as an aligned plain-text table (columns of numbers right-aligned)."""
    cells = [[str(cell) for cell in row] for row in rows]
    widths = [max(len(h), *(len(row[i]) for row in cells)) for i, h in enumerate(headers)]
    # Right-align a column when most of its cells are numbers (a "-" or a note may sit among them).
    numeric = [
        2 * sum(_looks_numeric(row[i]) for row in cells) > len(cells) for i in range(len(headers))
    ]

    def line(values: Sequence[str]) -> str:
        parts = [
            v.rjust(w) if right else v.ljust(w)
            for v, w, right in zip(values, widths, numeric, strict=True)
        ]
        return "  ".join(parts).rstrip()

    print(line(list(headers)))
    print("  ".join("-" * w for w in widths))
    for row in cells:
        print(line(row))


def _looks_numeric(text: str) -> bool:
    return bool(text) and (text[0].isdigit() or text[0] in "-.")


def environment() -> str:
    """One line describing the machine and the versions, to print above the figures."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as info:
            for entry in info:
                if entry.startswith("model name"):
                    cpu = entry.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        load = "?"
    return (
        f"finitedp {finitedp.__version__}, Python {platform.python_version()} "
        f"({sys.implementation.name}), gmpy2 {gmpy2.version()}, {cpu}, "
        f"{os.cpu_count()} logical CPUs, load average {load} (other load skews timings)"
    )


#: A ``finitedp`` command run in its own process: ``{code, seconds, peak}`` as JSON
#: (the time of ``main`` after its imports; peak resident memory, ``ru_maxrss``).
RELEASE_SCRIPT = r"""
import contextlib, io, json, resource, sys, time
from finitedp.cli import main
start = time.perf_counter()
with contextlib.redirect_stderr(io.StringIO()):
    code = main(sys.argv[1:])
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"code": code, "seconds": seconds, "peak": peak}))
"""


def run_json(script: str, *argv: str) -> dict[str, float]:
    """``script`` run by this Python with ``argv``: its last stdout line, as JSON."""
    done = subprocess.run(
        [sys.executable, "-c", script, *argv], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(done.stderr[-2000:])
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result
