"""Phantom keys of the blanket histogram: FastSample's uniform share before and after.

Issue 51: with ``gamma = beta/(4N)`` (before) FastSample's uniform component put about
``beta/4`` on an absent key listed with any count up to ``n``; with ``gamma = 2^-40/N``
(now) that share is ``2^-40`` and what is left is the core's own tail.  For each
instance: the threshold ``b``, FastSample's table ``t`` and ``bits(d)``, the stated bound
for every count, the exact expected number of absent keys listed (``N Pr[M(0,U) > b]``),
the exact union bound on an absent key listed beyond the bound for every count, the
construction time, and the stricter setting (``absent = 2^-40``).

Run: python benchmarks/bench_phantoms.py   (prints; asserts nothing)
"""

from __future__ import annotations

import time
from fractions import Fraction

from finitedp.counting.fastsample import FastSample
from finitedp.histograms.blanket import BlanketHistogram, blanket_threshold
from finitedp.histograms.mechanisms import sample_accuracy


def row(label: str, n: int, size: int, sampler: FastSample, b: int, beta: Fraction) -> None:
    every = sample_accuracy(sampler, beta / (2 * n))
    bound = None if every is None else every + b

    def tail(count: int) -> Fraction:
        return Fraction(size * (sampler.d - sampler.cdf(0, count)), sampler.d)

    beyond = float(tail(bound)) if bound is not None and bound < n else 0.0
    print(
        f"  {label:<22} b={b:<4} t={sampler.t:<4} bits(d)={sampler.d.bit_length():<5} "
        f"all=±{bound}  E[absent listed]={float(tail(b)):.3g}  "
        f"P[absent beyond ±all]<={beyond:.3g}"
    )


def main() -> None:
    beta = Fraction(1, 10)
    for n, size, eps in [
        (336776, (256**4 - 1) // 255, 1),  # the flights table's dest under utf8:3
        (5613, (256**4 - 1) // 255, 2),  # the shipped flights cut
        (10**5, 2**64, Fraction(1, 2)),
        (10**6, (256**9 - 1) // 255, 1),  # utf8:8
    ]:
        print(f"n = {n:,}, |X| of {size.bit_length()} bits, epsilon = {eps}, beta = {beta}")
        start = time.perf_counter()
        old = FastSample(n, eps, beta / (4 * size), noise="tight", samples=2 * n)
        row("before (beta/(4N))", n, size, old, blanket_threshold(old, size, beta / 2), beta)
        before = time.perf_counter() - start
        start = time.perf_counter()
        mech = BlanketHistogram(n, size, eps, beta)
        after = time.perf_counter() - start
        assert isinstance(mech.sampler, FastSample)
        row("now (2^-40/N)", n, size, mech.sampler, mech.threshold, beta)
        strict = BlanketHistogram(n, size, eps, beta, absent=Fraction(1, 2**40))
        assert isinstance(strict.sampler, FastSample)
        row("now, absent = 2^-40", n, size, strict.sampler, strict.threshold, beta)
        print(f"  construction: before {before:.3f} s, now {after:.3f} s")


if __name__ == "__main__":
    main()
