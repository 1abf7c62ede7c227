"""The aggregation family's user-level entries: vector sums over numeric columns.

Paper: Lebeda thesis Alg 16 (``vector-laplace``) and Alg 15 (``vector-gaussian``).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ..entries import JSON, P_OPTION, ColumnEntry, ColumnOutcome
from ..errors import ParameterError
from ..jsonvalues import json_int, rational
from ..oracle import RandomSource
from ..params import exact_fraction
from ..selection.grid import Grid
from ..statistics import ColumnStatistics
from .vectorsum import NEIGHBOURS, EllipticalGaussian, ParallelotopeLaplace

__all__ = ["COLUMN_ENTRIES"]

Columns = list[tuple[Fraction, Fraction, Fraction]]


class _Sums:
    """A vector-sum mechanism as the command line sees it: sums in, a document part out."""

    def __init__(
        self, mechanism: ParallelotopeLaplace | EllipticalGaussian, beta: object = None
    ) -> None:
        self.mechanism = mechanism
        self.beta = beta  # the accuracy statement's, for each sum's noise bound

    @property
    def guarantee(self) -> Any:
        return self.mechanism.guarantee

    def epsilon_for(self, delta: object) -> Fraction:
        return self.mechanism.epsilon_for(delta)

    def parameters(self) -> JSON:
        split = self.mechanism.split
        return {
            "p": json_int(split.p),
            "shares": [rational(b) for b in split.b],
            "split_factor": rational(split.factor),
        }

    def accuracy(self, beta: object) -> JSON:
        moment, ideal = self.mechanism.moment(), self.mechanism.ideal_moment()
        return {
            "p": json_int(self.mechanism.split.p),
            "moment": rational(moment),
            "ideal_moment": None if ideal is None else rational(ideal),
            "statement": "E ||estimate - sum||_p^p of the noise actually sampled (exact), "
            "beside the thesis' Lemma 4.7 / 4.10 for the same shares; beside each sum, its "
            "noise's bound in the data's units, all at once with probability >= 1 - beta "
            "(noise_within), and its variance (noise_variance)",
        }

    def release_from(self, data: Any, rng: RandomSource | None = None) -> ColumnOutcome:
        """The release from the columns' sums in grid units (a vector sum's sufficient
        statistic), asked of ``data``, a :class:`~finitedp.statistics.ColumnStatistics`."""
        stats: ColumnStatistics = data
        release = self.mechanism.release_sums(stats.column_sums(), rng)
        n = self.mechanism.n
        return ColumnOutcome(
            release.to_json_dict(),
            release.estimates,
            self.mechanism.noise_variances(),
            tuple((n * g.lower, n * g.upper) for g in self.mechanism.grids),
            None if self.beta is None else self.mechanism.noise_within(self.beta),
        )


def _moment(options: Mapping[str, str | None], default: int) -> int:
    text = options.get("p")
    if text is None:
        return default
    p = exact_fraction(text, "p")
    if p.denominator != 1 or p < 1:
        raise ParameterError(f"p: got {text}; use a positive integer (1 or 2 usually)")
    return int(p)


def _laplace(n: int, columns: Columns, budget: str, options: Mapping[str, str | None]) -> _Sums:
    grids = [Grid(*c) for c in columns]
    mechanism = ParallelotopeLaplace(grids, n, budget, p=_moment(options, 1))
    return _Sums(mechanism, options.get("beta"))


def _gaussian(n: int, columns: Columns, budget: str, options: Mapping[str, str | None]) -> _Sums:
    grids = [Grid(*c) for c in columns]
    mechanism = EllipticalGaussian(grids, n, budget, p=_moment(options, 2))
    return _Sums(mechanism, options.get("beta"))


COLUMN_ENTRIES = (
    ColumnEntry(
        "vector-laplace",
        "sum of numeric columns, geometric noise split by sensitivity: pure eps-DP",
        "Lebeda thesis Alg 16, Lemma 4.11, Thm 4.2",
        NEIGHBOURS,
        "epsilon",
        _laplace,
        (P_OPTION,),
        drops="zero",
    ),
    ColumnEntry(
        "vector-gaussian",
        "sum of numeric columns, discrete Gaussian split by sensitivity: zCDP (--rho)",
        "Lebeda thesis Alg 15, Lemma 4.8, Thm 4.1",
        NEIGHBOURS,
        "rho",
        _gaussian,
        (P_OPTION,),
        drops="zero",
    ),
)
