"""PLAN at scale: Gaussian C at d = 2^12, n = 10^5 (issue 24 item 6: at most 60 s).

Times :class:`finitedp.mean.PLAN`'s construction and release on skewed Gaussian
data (``sigma_i = d/i``, the thesis' Gaussian C with alpha = 2) on a grid of 1/16,
and prints the process's peak memory (the data alone are ``n d`` int32 indices,
1.6 GB at the full size), the l2 error against the empirical mean and the time of
each step.  ``--quick`` runs d = 2^10, n = 2 * 10^4.  Randomness: ``SeededSource``
(the figures are reproducible; this is a benchmark, not a release).

Run: ``.venv/bin/python benchmarks/bench_plan.py [--quick]``.
"""

from __future__ import annotations

import argparse
import resource
import time
from fractions import Fraction

import numpy as np

from finitedp.mean import PLAN
from finitedp.oracle import SeededSource


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    n, d = (20_000, 1 << 10) if args.quick else (100_000, 1 << 12)
    gen = np.random.default_rng(7)
    sigma = np.array([d / i for i in range(1, d + 1)], dtype=np.float32)
    m = int(np.ceil(50 * d * float(sigma.max()) ** 0.5))
    idx = np.empty((n, d), dtype=np.int32)
    total = np.zeros(d)
    for start in range(0, n, 5000):  # made in blocks: the test data are the big object
        rows = gen.normal(10, sigma, size=(min(5000, n - start), d))
        block = np.clip(np.round((rows + m) * 16), 0, 2 * m * 16)
        idx[start : start + len(rows)] = block
        total += block.sum(axis=0)
    empirical = total / n / 16 - m
    print(f"Gaussian C: n = {n}, d = {d}, M = {m}, grid 1/16 ({2 * m * 16 + 1} points)")
    for rho in (Fraction(1, 16), Fraction(1)):
        start = time.perf_counter()
        plan = PLAN(-m, m, d=d, n=n, rho=rho, step=Fraction(1, 16))
        built = time.perf_counter() - start
        start = time.perf_counter()
        release = plan.release_indices(idx, SeededSource(b"bench"))
        released = time.perf_counter() - start
        estimate = np.array([float(e) for e in release.estimates])
        error = float(np.linalg.norm(estimate - empirical))
        shares = ", ".join(str(s) for s in plan.shares)
        print(
            f"rho = {rho}: build {built:.1f} s, release {released:.1f} s (target 60 s); "
            f"shares ({shares}); l2 error vs empirical {error:.3g}; "
            f"eps at 1e-6 = {float(plan.epsilon_for('1/1000000')):.3f}"
        )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / (1 << 20)
    print(f"peak resident memory {peak:.2f} GiB (the int32 data: {idx.nbytes / 2**30:.2f} GiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
