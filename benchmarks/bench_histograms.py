"""Time the Section 5 histogram releases against the issue's targets.

BoundedGeometricHistogram over |X| = 10^5 bins, n = 10^3 rows, eps = 1/2,
beta0 = 1/10: target <= 0.25 s per release (one precomputed CDF table serves
every empty bin).  For comparison on this kind of machine (quoted by the issue):
OpenDP's vectorised discrete Laplace with clipping ~0.64 s, diffprivlib's float
mechanism ~1 s, Tumult Core ~8 s, OpenDP's clamped geometric ~70 s.
StabilityHistogram is timed at n in {10^3, 10^4, 10^5} over |X| = 2^64.

Run: python benchmarks/bench_histograms.py   (prints; asserts nothing)
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable

from finitedp import BoundedGeometricHistogram, StabilityHistogram, SystemRandomSource


def best_of(runs: int, action: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    print(f"load average {os.getloadavg()} on {os.cpu_count()} CPUs (other load skews timings)")
    rng, gen = SystemRandomSource(), random.Random(0)

    mech = BoundedGeometricHistogram(1000, 10**5, "1/2", "1/10")
    data = [gen.randint(1, 10**5) for _ in range(1000)]
    seconds = best_of(5, lambda: mech.release(data, rng))
    sampler = mech.sampler
    print(
        f"BoundedGeometricHistogram n=1000 |X|=10^5 eps=1/2 beta0=1/10: {seconds:.3f} s per release"
        f" (target <= 0.25 s), d has {sampler.d.bit_length()} bits, "
        f"{mech.max_oracle_calls} oracle calls"
    )

    for n in (10**3, 10**4, 10**5):
        stab = StabilityHistogram(n, 2**64, "1/2", "1/1000000", "1/10")
        rows = [gen.randint(1, 50) for _ in range(n)]
        seconds = best_of(3, lambda stab=stab, rows=rows: stab.release(rows, rng))
        print(f"StabilityHistogram n={n} |X|=2^64 eps=1/2 delta=1e-6: {seconds:.3f} s per release")


if __name__ == "__main__":
    main()
