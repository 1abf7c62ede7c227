"""Proof script: PLAN end to end on a tiny instance, every neighbouring pair (issue 24 item 2).

``PLAN(-1, 1, d = 2, n = 2, rho = 1/2, units = 2, clip_ratio = 2, clip_count = 3,
noise_radius = 30)``: all 81 datasets (2 rows over ``{-1, 0, 1}^2``) and all 1,296
ordered pairs that replace one row.  For each pair, the exact hockey-stick
``delta`` of the joint release (centre, spreads, clipping level, noisy sum: the
estimate is a function of it) at the accountant's ``eps`` for ``delta = 10^-3``,
with ``tests/plan_law.py``'s exact laws of the real code.  Then the least ``eps``
(on a grid of 1/64 of the stated one) at which every pair has ``delta <= 10^-3``,
and the largest ``||S - S'||_2^2`` between neighbours for the same step outcomes
(the stated sensitivity is ``(2K)^2 = 16``).

The suite runs the 81 pairs that keep the row (1, 1) (``tests/test_plan.py``);
this takes about 15 s plus 10 s per bisection step.

Run: ``.venv/bin/python benchmarks/proof_plan.py``.
"""

from __future__ import annotations

import itertools
import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from plan_law import NoiseDivergence, hockey_stick, neighbours, steps_law, tiny_plan

from finitedp.exactmath import exp_bounds

DELTA = Fraction(1, 1000)


def main() -> int:
    start = time.perf_counter()
    plan = tiny_plan()
    eps = plan.epsilon_for(DELTA)
    print(
        f"stated: rho = {float(plan.guarantee.rho or 0):.6f}, "
        f"eps = {float(eps):.4f} at delta = 1e-3"
    )
    rows = list(itertools.product(range(3), repeat=2))
    datasets = list(itertools.product(rows, repeat=2))
    laws = [steps_law(plan, np.array(ds)) for ds in datasets]
    noise = NoiseDivergence(plan)
    pairs = list(neighbours(datasets))
    print(
        f"{len(datasets)} datasets, {len(pairs)} ordered pairs; "
        f"laws in {time.perf_counter() - start:.1f} s"
    )

    def worst_at(fraction: Fraction) -> tuple[Fraction, tuple[int, int]]:
        exp_eps = exp_bounds(eps * fraction, 64)[0]
        return max((hockey_stick(laws[i], laws[j], exp_eps, noise), (i, j)) for i, j in pairs)

    worst, (i, j) = worst_at(Fraction(1))
    print(
        f"every pair at the stated eps: worst delta = {float(worst):.3e} "
        f"({datasets[i]} -> {datasets[j]})"
    )
    ok = worst <= DELTA
    low, high = 0, 64  # in 64ths of eps: high holds
    while high - low > 1:
        mid = (low + high) // 2
        if worst_at(Fraction(mid, 64))[0] <= DELTA:
            high = mid
        else:
            low = mid
    print(
        f"least eps (64ths) with every delta <= 1e-3: {high}/64 of the stated "
        f"({float(eps * high / 64):.4f})"
    )
    shift = max(
        sum((a - b) ** 2 for a, b in zip(s, laws[j][key][1], strict=True))
        for i, j in pairs
        for key, (_, s) in laws[i].items()
        if key in laws[j]
    )
    print(f"largest ||S - S'||^2 = {shift} <= (2K)^2 = {(2 * plan.units) ** 2}")
    ok = ok and shift <= (2 * plan.units) ** 2
    print(f"{'PASS' if ok else 'FAIL'} in {time.perf_counter() - start:.1f} s")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
