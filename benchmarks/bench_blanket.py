"""Pure DP at scale (issue 25 item 4): BlanketHistogram beside PureSparseHistogram.

Both are ``(eps, 0)``-DP under replacement of a row, over ``|X| = 2^64`` with
``eps = 1/2`` and ``beta = 2^-10`` (tight noise, FastSample), on the mixed dataset of
``bench_pure_sparse.py`` (a hot value, 8 warm values, about ``n/2`` distinct cold
values): one ``release`` with the default source, median of 3 runs up to
``n = 10^5`` and one run above.  PureSparseHistogram runs where its own estimate
allows (up to ``10^5``; ``94`` minutes estimated at ``10^6``), so the two are side
by side in one run and their ratio is printed.  Also printed: each one's threshold
and simultaneous error bound at ``beta = 1/10`` (what the release promises).

Targets: ``n = 10^6`` in at most 2 minutes and ``n = 10^7`` in at most 20 minutes
(``--full``; the default stops at ``10^6``).  ``--profile N`` prints where one
blanket release at ``n = N`` spends its time.

Run: ``.venv/bin/python benchmarks/bench_blanket.py [--full] [--n N ...] [--profile N]``.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import resource
import statistics
from fractions import Fraction
from time import perf_counter

from _timing import environment, print_table

from finitedp import SeededSource
from finitedp.errors import ResourceLimitError
from finitedp.histograms.blanket import BlanketHistogram
from finitedp.histograms.sparse import PureSparseHistogram
from finitedp.oracle import default_source

UNIVERSE = 2**64
EPSILON = Fraction(1, 2)
BETA = Fraction(1, 2**10)
SOURCE = default_source()  # the ChaCha20 keystream a release uses when rng is omitted


def dataset(n: int) -> dict[int, int]:
    """The counts of ``n`` rows: a hot value, 8 warm values, distinct cold values."""
    seeded = SeededSource(b"bench_pure_sparse")
    hot = [seeded.uniform(UNIVERSE) for _ in range(9)]
    counts = {hot[0]: n // 4}
    for i in range(n // 4):
        counts[hot[1 + i % 8]] = counts.get(hot[1 + i % 8], 0) + 1
    for _ in range(n - n // 2):
        x = seeded.uniform(UNIVERSE)
        counts[x] = counts.get(x, 0) + 1
    return counts


def timed(mech: object, counts: dict[int, int], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = perf_counter()
        mech.release(counts, SOURCE)  # type: ignore[attr-defined]
        times.append(perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="also n = 10^7")
    parser.add_argument("--profile", type=int, metavar="N")
    parser.add_argument("--n", type=int, nargs="+", metavar="N", help="only these sizes")
    args = parser.parse_args()
    print(environment())
    if args.profile:
        mech = BlanketHistogram(args.profile, UNIVERSE, EPSILON, BETA)
        counts = dataset(args.profile)
        cProfile.runctx("mech.release(counts, SOURCE)", globals(), locals(), "/tmp/blanket.prof")
        pstats.Stats("/tmp/blanket.prof").sort_stats("cumulative").print_stats(14)
        return
    ns = args.n or [10**4, 10**5, 10**6] + ([10**7] if args.full else [])
    rows = []
    for n in ns:
        counts = dataset(n)
        runs = 3 if n <= 10**5 else 1
        start = perf_counter()
        blanket = BlanketHistogram(n, UNIVERSE, EPSILON, BETA)
        built = perf_counter() - start
        t_blanket = timed(blanket, counts, runs)
        acc = blanket.accuracy("1/10")
        try:
            pure = PureSparseHistogram(n, UNIVERSE, EPSILON, BETA, noise="tight")
            t_pure = timed(pure, counts, runs) if n <= 10**5 else None
            pacc = pure.accuracy("1/10")
            pure_cells = [f"{t_pure:.2f} s" if t_pure else "-", pacc.threshold, pacc.simultaneous]
            ratio = f"{t_pure / t_blanket:.0f}x" if t_pure else "-"
        except ResourceLimitError as error:
            pure_cells, ratio = [str(error).split(" would take ")[1].split(",")[0], "-", "-"], "-"
        rows.append(
            [
                f"{n:,}",
                f"{len(counts):,}",
                f"{built:.2f} s",
                f"{t_blanket:.2f} s",
                acc.threshold,
                acc.simultaneous,
                *pure_cells,
                ratio,
            ]
        )
        print(f"n = {n:,}: blanket {t_blanket:.2f} s", flush=True)
    print("\nOne release (median of 3 up to 10^5), |X| = 2^64, eps = 1/2, beta = 2^-10, tight")
    print_table(
        [
            "n",
            "distinct",
            "blanket build",
            "blanket release",
            "b + a (1/10)",
            "all (1/10)",
            "pure-sparse release",
            "b (1/10)",
            "all (1/10)",
            "pure/blanket",
        ],
        rows,
    )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10
    print(f"peak memory of this process: {peak:.0f} MiB")


if __name__ == "__main__":
    main()
