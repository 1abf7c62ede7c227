"""Misra-Gries streaming and Private Misra-Gries: time per element and per release.

Side by side, in one run, interleaved, medians of ``--runs`` runs:

* finitedp's :class:`~finitedp.sketches.MisraGries` (Alg 12: Branch 2 is one
  addition, counters bucketed by value in ``SortedList``s), against
* the textbook sketch as the public implementations write it (a dict of
  counters; "decrement all" touches every counter and drops the zeros: O(k)),
  here :func:`~finitedp.sketches.standard_misra_gries`,

on two streams of 10^6 elements over ``[1, 10^6]``: a skewed one (Zipf-like:
half the elements from 20 heavy keys) and an adversarial one for the textbook
sketch (distinct keys: every ``(k+1)``-th element decrements all ``k``
counters).  Then the private release (Alg 13, ``k + 1`` oracle calls) of the
sketch, with the OS source.

    .venv/bin/python benchmarks/bench_sketches.py [--runs N]     # about a minute
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from _timing import environment, print_table

from finitedp.oracle import SystemRandomSource
from finitedp.sketches import MisraGries, PrivateMisraGries, standard_misra_gries

N = 1_000_000
D = 1_000_000


def _streams() -> dict[str, list[int]]:
    rnd = random.Random(20230601)
    heavy = [rnd.randrange(1, D + 1) for _ in range(20)]
    skewed = [
        rnd.choice(heavy) if rnd.random() < 0.5 else rnd.randrange(1, D + 1) for _ in range(N)
    ]
    distinct = list(range(1, N + 1))
    return {"skewed": skewed, "distinct": distinct}


def _finitedp(k: int, stream: list[int]) -> object:
    mg = MisraGries(k, D)
    mg.extend(stream)
    return mg.sketch()


def _textbook(k: int, stream: list[int]) -> object:
    return standard_misra_gries(k, D, stream)


def _time(run: Callable[[int, list[int]], object], k: int, stream: list[int]) -> float:
    start = time.perf_counter()
    run(k, stream)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(environment())
    streams = _streams()
    rows = []
    for name, stream in streams.items():
        for k in (10, 100, 1000):
            ours, theirs = [], []
            for _ in range(args.runs):  # interleaved
                ours.append(_time(_finitedp, k, stream))
                theirs.append(_time(_textbook, k, stream))
            a, b = statistics.median(ours), statistics.median(theirs)
            rows.append([name, k, f"{a / N * 1e9:.0f}", f"{b / N * 1e9:.0f}", f"{b / a:.2f}"])
    print(f"\nMisra-Gries over {N:,} elements (ns per element, medians of {args.runs} runs)")
    print_table(["stream", "k", "finitedp Alg 12", "textbook dict", "textbook/finitedp"], rows)

    rows = []
    rng = SystemRandomSource()
    for k in (10, 100, 1000):
        mech = PrivateMisraGries(k, D, 1, "1/1000000")
        sketch = mech.sketch(streams["skewed"][:100_000])
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            for _ in range(20):
                mech.release_sketch(sketch, rng)
            times.append((time.perf_counter() - start) / 20)
        rows.append([k, mech.tau, f"{statistics.median(times) * 1e3:.2f}"])
    print("\nPrivate Misra-Gries release (Alg 13, k + 1 oracle calls), eps = 1, delta = 1e-6")
    print_table(["k", "tau", "ms per release"], rows)


if __name__ == "__main__":
    main()
