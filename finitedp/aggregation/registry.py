"""The aggregation family's user-level entries: vector sums over numeric columns.

Paper: Lebeda thesis Alg 16 (``vector-laplace``) and Alg 15 (``vector-gaussian``).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ..accounting import Accountant
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


#: Under ``--nulls drop``, the share of the budget the counts of values present take.
PRESENT_SHARE = Fraction(1, 10)


class _Sums:
    """A vector-sum mechanism as the command line sees it: sums in, a document part out.

    Under ``--nulls drop`` (``present``), the columns whose missing values add nothing
    also get their count of values present, a second vector sum over 0/1 columns with
    :data:`PRESENT_SHARE` of the budget (composed by the accountant; replacing one row
    moves each count by at most 1), and each such sum's mean over its values present,
    a post-processing of the two.
    """

    def __init__(
        self,
        mechanism: ParallelotopeLaplace | EllipticalGaussian,
        beta: object = None,
        present: ParallelotopeLaplace | EllipticalGaussian | None = None,
        dropped: tuple[int, ...] = (),
    ) -> None:
        self.mechanism = mechanism
        self.beta = beta  # the accuracy statement's, for each sum's noise bound
        self.present, self.dropped = present, dropped
        self.accountant: Accountant | None = None
        if present is not None:  # two releases composed (without, the sums' own statement)
            self.accountant = Accountant(NEIGHBOURS)
            self.accountant.add(mechanism.guarantee)
            self.accountant.add(present.guarantee)

    @property
    def guarantee(self) -> Any:
        return self.mechanism.guarantee if self.accountant is None else self.accountant.total()

    def epsilon_for(self, delta: object) -> Fraction:
        if self.accountant is None:
            return self.mechanism.epsilon_for(delta)
        return self.accountant.epsilon_for(delta)

    def parameters(self) -> JSON:
        split = self.mechanism.split
        out: JSON = {
            "p": json_int(split.p),
            "shares": [rational(b) for b in split.b],
            "split_factor": rational(split.factor),
        }
        if self.present is not None:
            out["present_share"] = rational(PRESENT_SHARE)
        return out

    def accuracy(self, beta: object) -> JSON:
        moment, ideal = self.mechanism.moment(), self.mechanism.ideal_moment()
        statement = (
            "E ||estimate - sum||_p^p of the noise actually sampled (exact), beside the "
            "thesis' Lemma 4.7 / 4.10 for the same shares; beside each sum, its noise's "
            "bound in the data's units, all at once with probability >= 1 - beta "
            "(noise_within), and its variance (noise_variance)"
        )
        if self.present is not None:
            statement += (
                "; a column whose missing values are dropped also has its count of values "
                "present (present_count, within present_within at probability >= 1 - beta) "
                "and the mean of those values, the sum over the count (post-processing)"
            )
        return {
            "p": json_int(self.mechanism.split.p),
            "moment": rational(moment),
            "ideal_moment": None if ideal is None else rational(ideal),
            "statement": statement,
        }

    def release_from(self, data: Any, rng: RandomSource | None = None) -> ColumnOutcome:
        """The release from the columns' sums in grid units (a vector sum's sufficient
        statistic), asked of ``data``, a :class:`~finitedp.statistics.ColumnStatistics`
        (with ``present_counts``, each dropped column's count of values present, under
        ``--nulls drop``)."""
        stats: ColumnStatistics = data
        release = self.mechanism.release_sums(stats.column_sums(), rng)
        n = self.mechanism.n
        document = release.to_json_dict()
        extras: tuple[JSON, ...] | None = None
        if self.present is not None:
            counts = getattr(data, "present_counts", None)
            if counts is None or len(counts) != len(self.dropped):
                raise ParameterError("data: the counts of values present are needed (drop)")
            present = self.present.release_sums(list(counts), rng)
            document["present"] = {"columns": list(self.dropped), **present.to_json_dict()}
            extras = self._present_extras(release.estimates, present.estimates)
        return ColumnOutcome(
            document,
            release.estimates,
            self.mechanism.noise_variances(),
            tuple((n * g.lower, n * g.upper) for g in self.mechanism.grids),
            None if self.beta is None else self.mechanism.noise_within(self.beta),
            extras,
        )

    def _present_extras(
        self, sums: tuple[Fraction, ...], counts: tuple[Fraction, ...]
    ) -> tuple[JSON, ...]:
        """Each dropped column's noisy count of values present, its bound, and the mean."""
        assert self.present is not None
        within = None if self.beta is None else self.present.noise_within(self.beta)
        extras: list[JSON] = [{} for _ in sums]
        for j, i in enumerate(self.dropped):
            count = counts[j]
            extra: JSON = {"present_count": rational(count)}
            if within is not None:
                extra["present_within"] = rational(within[j])
            if count > 0:  # the mean of the values present: post-processing of the two
                grid = self.mechanism.grids[i]
                mean = sums[i] / count
                extra["mean_of_present"] = rational(mean)
                if not grid.lower <= mean <= grid.upper:
                    extra["mean_of_present_in_range"] = rational(
                        min(max(mean, grid.lower), grid.upper)
                    )
            extras[i] = extra
        return tuple(extras)


def _dropped(options: Mapping[str, str | None]) -> tuple[int, ...]:
    return tuple(int(i) for i in (options.get("dropped") or "").split(",") if i)


def _moment(options: Mapping[str, str | None], default: int) -> int:
    text = options.get("p")
    if text is None:
        return default
    p = exact_fraction(text, "p")
    if p.denominator != 1 or p < 1:
        raise ParameterError(f"p: got {text}; use a positive integer (1 or 2 usually)")
    return int(p)


def _build(kind: type[ParallelotopeLaplace] | type[EllipticalGaussian], default_p: int) -> Any:
    def build(n: int, columns: Columns, budget: str, options: Mapping[str, str | None]) -> _Sums:
        grids = [Grid(*c) for c in columns]
        dropped = _dropped(options)
        total = exact_fraction(budget, "budget")
        share = total * PRESENT_SHARE if dropped else Fraction(0)
        mechanism = kind(grids, n, total - share, p=_moment(options, default_p))
        present = None
        if dropped:  # the counts of values present: 0/1 columns, one unit each
            present = kind([Grid(0, 1)] * len(dropped), n, share, p=_moment(options, default_p))
        return _Sums(mechanism, options.get("beta"), present, dropped)

    return build


COLUMN_ENTRIES = (
    ColumnEntry(
        "vector-laplace",
        "sum of numeric columns, geometric noise split by sensitivity: pure eps-DP",
        "Lebeda thesis Alg 16, Lemma 4.11, Thm 4.2",
        NEIGHBOURS,
        "epsilon",
        _build(ParallelotopeLaplace, 1),
        (P_OPTION,),
        drops="zero",
    ),
    ColumnEntry(
        "vector-gaussian",
        "sum of numeric columns, discrete Gaussian split by sensitivity: zCDP (--rho)",
        "Lebeda thesis Alg 15, Lemma 4.8, Thm 4.1",
        NEIGHBOURS,
        "rho",
        _build(EllipticalGaussian, 2),
        (P_OPTION,),
        drops="zero",
    ),
)
