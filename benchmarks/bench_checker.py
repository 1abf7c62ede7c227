"""Time of the exact checker on FastSample(n=200, eps=1/8, gamma=2^-40).

Measures ``exact_distribution(FastSample(200, "1/8", Fraction(1, 2**40)).sample, c)``
for ``c`` in {0, 100, 200}: the checker enumerates every path of the sampler
over its one symbolic oracle draw (an interval of ``[1, d]`` per path) and sums
the exact path probabilities per output.  Also printed: the number of paths
(leaves of the computation tree, from ``explore``), the number of outputs, the
most comparisons of the draw on one path, the bit length of ``d``, ``t``, and
whether the distribution equals the sampler's own ``pmf(c)`` (from its CDF).

Target (from the issue): <= 1 s per ``exact_distribution`` call.

Each time is the best of 3 runs, each repeated until it lasts about 0.3 s
(``time.perf_counter``).  Run: ``.venv/bin/python benchmarks/bench_checker.py``.
"""

from __future__ import annotations

from fractions import Fraction
from time import perf_counter

from _timing import best_per_call, environment, fmt_time, print_table, repeat_call

from finitedp import FastSample
from finitedp.checker import exact_distribution, explore

N = 200
EPSILON = "1/8"
GAMMA = Fraction(1, 2**40)
COUNTS = (0, 100, 200)
TARGET_SECONDS = Fraction(1)


def main() -> None:
    print(environment())
    start = perf_counter()
    sampler = FastSample(N, EPSILON, GAMMA)
    built = perf_counter() - start
    print(
        f"{sampler!r}: t = {sampler.t}, bits(d) = {sampler.d.bit_length()}, "
        f"bits(d') = {sampler.d_prime.bit_length()}, max_comparisons = "
        f"{sampler.max_comparisons}, constructed in {fmt_time(built)}\n"
    )
    rows: list[list[object]] = []
    for c in COUNTS:
        seconds = best_per_call(repeat_call(exact_distribution, sampler.sample, c))
        explore_seconds = best_per_call(repeat_call(explore, sampler.sample, c))
        paths = explore(sampler.sample, c)
        distribution = exact_distribution(sampler.sample, c)
        rows.append(
            [
                c,
                fmt_time(seconds),
                fmt_time(explore_seconds),
                len(paths),
                len(distribution),
                max(sum(path.comparisons) for path in paths),
                sampler.d.bit_length(),
                "yes" if distribution == sampler.pmf(c) else "NO",
                "MET" if seconds <= float(TARGET_SECONDS) else "MISSED",
            ]
        )
    print_table(
        [
            "c",
            "exact_distribution",
            "explore",
            "paths",
            "outputs",
            "max cmp",
            "bits(d)",
            "== pmf(c)",
            "<= 1 s",
        ],
        rows,
    )


if __name__ == "__main__":
    main()
