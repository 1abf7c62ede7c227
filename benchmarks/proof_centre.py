"""Proof script: PLAN's centring bound on every column, for each centre selector (issue 28).

The lemma (``proofs_notes/plan.md``, "The centring bound"): a coordinate's centre
whose rank error at the median rank ``m`` is at most ``a``, with
``a < min(m, n - 1 - m)``, lies in ``[x_(m-a-1), x_(m+a)]`` (0-based order
statistics), inside its data's range; PLAN states ``a = centre_bound`` at
``beta/(3d)`` per coordinate.  Here the exact law of PLAN's own centre selector
(its share of ``rho`` included) is computed with the checker on every column of
``n = 9`` values over the grid ``{0, ..., 4}`` (715 multisets; the selectors
depend on the sorted column only), and the largest probability of leaving the
window is printed beside ``beta/(3d)``, with the same for ``a - 1`` (which must
fail somewhere when the bound is tight).

The suite checks the exponential median on every column and the Gaussian binary
search on three (``tests/test_plan.py``); this script adds the Gaussian search on
every column (about 0.8 s a column at ``rho = 64``: 10 minutes).

Run: ``.venv/bin/python benchmarks/proof_centre.py [--kinds exponential,gaussian]``.
"""

from __future__ import annotations

import argparse
import itertools
import time
from fractions import Fraction

from finitedp.checker import exact_distribution
from finitedp.mean.plan import PLAN

_CASES = {"exponential": ("8", "32"), "gaussian": ("64",)}


def _worst(kind: str, rho: str) -> None:
    plan = PLAN(0, 4, d=2, n=9, rho=rho, step=1, selection=kind, beta="1/2", units=2)
    a = plan.centre_bound
    if a is None:
        print(f"{kind}, rho = {rho}: no centre bound stated")
        return
    chooser = plan._selector(plan.grid, plan.n, Fraction(1, 2), plan.shares[0] * plan.rho / 2)
    m, target = chooser.rank, plan.beta / (3 * plan.d)
    start = time.perf_counter()
    worst = {a: Fraction(0), a - 1: Fraction(0)}
    columns = list(itertools.combinations_with_replacement(range(5), 9))
    for column in columns:
        law = exact_distribution(lambda rng, c=column: chooser.release(list(c), rng))
        for bound in worst:
            low, high = column[m - bound - 1], column[m + bound]
            outside = sum((p for y, p in law.items() if not low <= y <= high), Fraction(0))
            worst[bound] = max(worst[bound], outside)
    seconds = time.perf_counter() - start
    print(
        f"{kind:<12} rho = {rho:>3}: a = {a}, {len(columns)} columns in {seconds:.0f} s; "
        f"worst Pr[outside] {float(worst[a]):.4f} <= beta/(3d) = {float(target):.4f}: "
        f"{worst[a] <= target}; with a - 1: {float(worst[a - 1]):.4f}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kinds", default="exponential,gaussian")
    args = parser.parse_args()
    for kind in args.kinds.split(","):
        for rho in _CASES[kind]:
            _worst(kind, rho)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
