"""The aggregation family's user-level entries: vector sums over numeric columns.

Paper: Lebeda thesis Alg 16 (``vector-laplace``) and Alg 15 (``vector-gaussian``).
"""

from __future__ import annotations

from fractions import Fraction

from ..entries import SumEntry, SumMechanism
from ..selection.quantile import Grid
from .vectorsum import NEIGHBOURS, EllipticalGaussian, ParallelotopeLaplace

__all__ = ["SUM_ENTRIES"]


def _grids(columns: list[tuple[Fraction, Fraction, Fraction]]) -> list[Grid]:
    return [Grid(lower, upper, step) for lower, upper, step in columns]


def _laplace(
    n: int, columns: list[tuple[Fraction, Fraction, Fraction]], budget: str, p: str | None
) -> SumMechanism:
    return ParallelotopeLaplace(_grids(columns), n, budget, p=1 if p is None else int(p))


def _gaussian(
    n: int, columns: list[tuple[Fraction, Fraction, Fraction]], budget: str, p: str | None
) -> SumMechanism:
    return EllipticalGaussian(_grids(columns), n, budget, p=2 if p is None else int(p))


SUM_ENTRIES = (
    SumEntry(
        "vector-laplace",
        "sum of numeric columns, geometric noise split by sensitivity: pure eps-DP",
        "Lebeda thesis Alg 16, Lemma 4.11, Thm 4.2",
        NEIGHBOURS,
        "epsilon",
        _laplace,
    ),
    SumEntry(
        "vector-gaussian",
        "sum of numeric columns, discrete Gaussian split by sensitivity: zCDP (--rho)",
        "Lebeda thesis Alg 15, Lemma 4.8, Thm 4.1",
        NEIGHBOURS,
        "rho",
        _gaussian,
    ),
)
