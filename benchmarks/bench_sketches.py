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

Then the issue's target: a stream of 10^7 elements, Zipf-distributed (exponent
1.1, numpy's generator with a fixed seed; values above 10^6 folded back) over
10^6 keys, ``k = 1000``: at least 2 million updates per second in one process
(pure Python: counters relative to the decrement count, zero keys in a heap).
With ``--reference PATH`` (the ``misra_gries.py`` of the thesis authors'
``JakubTetek/Differentially-Private-Misra-Gries``, MIT, not shipped here) its
``DPMisraGries(k).update`` runs on the first ``--reference-items`` elements of
the same stream (its updates cost O(k) on a replacement or a decrement).

    .venv/bin/python benchmarks/bench_sketches.py [--runs N] [--reference PATH]
"""

from __future__ import annotations

import argparse
import importlib.util
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


def _zipf_stream(items: int, keys: int) -> list[int]:
    import numpy as np

    draws = np.random.default_rng(20231123).zipf(1.1, size=items)
    return [int(v) for v in (draws - 1) % keys + 1]


def _target(args: argparse.Namespace) -> None:
    items, keys, k = 10**7, 10**6, 1000
    stream = _zipf_stream(items, keys)
    times = []
    for _ in range(args.runs):
        mg = MisraGries(k, keys)
        start = time.perf_counter()
        mg.extend(stream)
        times.append(time.perf_counter() - start)
    rate = items / statistics.median(times)
    print(
        f"\nZipf(1.1) stream of {items:,} elements over {keys:,} keys, k = {k}: "
        f"{rate / 1e6:.2f} million updates/s (median of {args.runs}; target >= 2)"
    )
    if args.reference is None:
        return
    spec = importlib.util.spec_from_file_location("reference_mg", args.reference)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    part = stream[: args.reference_items]
    theirs = module.DPMisraGries(k)
    start = time.perf_counter()
    for x in part:
        theirs.update(x)
    their_rate = len(part) / (time.perf_counter() - start)
    mg = MisraGries(k, keys)
    start = time.perf_counter()
    mg.extend(part)
    our_rate = len(part) / (time.perf_counter() - start)
    print(
        f"same stream, first {len(part):,} elements: authors' DPMisraGries "
        f"{their_rate / 1e6:.3f} M/s, finitedp {our_rate / 1e6:.2f} M/s "
        f"({our_rate / their_rate:.0f}x)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--reference", help="path to the authors' misra_gries.py")
    parser.add_argument("--reference-items", type=int, default=20_000)
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
    _target(args)


if __name__ == "__main__":
    main()
