"""Page-visit counts of Kosarak as a vector sum (thesis chapter 4), with both noises.

Each of the 36,681 sessions of ``../shared/data/kosarak-head.dat`` is a 0/1 vector
over the public pages 1..17,032 (read sparsely); neighbours replace one
session.  The sum is the number of sessions that visited each page.  Both
mechanisms of chapter 4 release it: Alg 16 (geometric noise, pure eps-DP) and
Alg 15 (discrete Gaussian, approximate rho-zCDP).  Every coordinate has the same
sensitivity here, so the optimal split is the even one (chapter 4's gain is 1);
the script prints the exact expected error of the noise actually sampled and
the error measured against the true counts.

Run: ``python examples/vector_sum_kosarak.py`` (the file is looked for in
``$FINITEDP_KOSARAK``, then beside the repository in ``../shared/data/``; without it,
a seeded synthetic stand-in of the same shape is used, and the output says so).
Floats only in the output.
"""

from __future__ import annotations

import os
import time
from fractions import Fraction
from pathlib import Path

from finitedp.aggregation.vectorsum import EllipticalGaussian, ParallelotopeLaplace
from finitedp.selection import Grid

PAGES = 17_032  # public: the page ids of the file's documentation, not of its contents


def page_sums(path: Path) -> tuple[int, list[int]]:
    """``n`` and each page's number of sessions (a session counts a page once)."""
    sums = [0] * PAGES
    n = 0
    with path.open() as lines:
        for line in lines:
            n += 1
            for page in {int(x) for x in line.split()}:
                if not 1 <= page <= PAGES:
                    raise SystemExit(f"{path}, line {n}: page {page} outside 1..{PAGES}")
                sums[page - 1] += 1
    return n, sums


def synthetic() -> tuple[int, list[int]]:
    """A seeded stand-in: 36,681 sessions of 1 to 16 pages, Zipf-like over the pages."""
    from finitedp import SeededSource

    rng = SeededSource(b"finitedp/examples/kosarak-stand-in")
    sums = [0] * PAGES
    n = 36_681
    for _ in range(n):
        pages = {PAGES // rng.uniform(PAGES) for _ in range(rng.uniform(16))}
        for page in pages:
            sums[page - 1] += 1
    return n, sums


def main() -> None:
    beside = Path(__file__).resolve().parents[2] / "shared" / "data" / "kosarak-head.dat"
    path = Path(os.environ.get("FINITEDP_KOSARAK", beside))
    if path.exists():
        n, sums = page_sums(path)
        print(f"data: {path}")
    else:
        n, sums = synthetic()
        print(f"data: {path} not found; a seeded synthetic stand-in of the same shape")
    grids = [Grid(0, 1)] * PAGES
    for mech in (
        ParallelotopeLaplace(grids, n, 1, p=1),
        EllipticalGaussian(grids, n, Fraction(1, 2), p=2),
    ):
        start = time.perf_counter()
        release = mech.release_sums(sums)
        elapsed = time.perf_counter() - start
        p = mech.split.p
        measured = sum(abs(e - s) ** p for e, s in zip(release.estimates, sums, strict=True))
        g = mech.guarantee
        if isinstance(mech, EllipticalGaussian):
            eps = float(mech.epsilon_for("1/1000000"))
            claim = f"rho <= {float(g.rho or 0):.6f}, eps = {eps:.4f} at delta = 1e-6"
        else:
            claim = f"eps = {g.epsilon} (pure)"
        print(
            f"{mech.name}: n = {n}, d = {PAGES}, {claim}; E||eta||_{p}^{p} = "
            f"{float(mech.moment()):.6g} (exact), measured {float(measured):.6g}; "
            f"release {elapsed:.2f} s"
        )


if __name__ == "__main__":
    main()
