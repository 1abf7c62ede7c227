"""The selection family's user-level entries: private quantiles of numeric columns.

Paper: Smith 2011 (``quantile-exponential``); Huang-Liang-Yi 2021 with BV Alg 4.8
(``quantile-binary``); both are Lebeda thesis Alg 17's PRIVQUANTILE.

Each column gets its ``q``-quantile with ``eps/d`` of the budget (``d`` columns);
the accountant composes the ``d`` pure guarantees, and the accuracy statement is
each column's rank error at ``beta/d``, so all hold together with probability at
least ``1 - beta`` (a union bound).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any, Literal

from ..accounting import Accountant, Guarantee
from ..entries import JSON, ColumnEntry, ColumnOutcome, Option
from ..errors import ParameterError
from ..jsonvalues import json_int, rational
from ..oracle import RandomSource, default_source
from ..params import positive_fraction, probability, short_fraction
from ..statistics import ColumnStatistics
from .quantile import BinarySearchQuantile, ExponentialQuantile

__all__ = ["COLUMN_ENTRIES", "NEIGHBOURS", "QUANTILE_RELEASE_VERSION", "ColumnQuantiles"]

#: The neighbour relation of the quantile entries.
NEIGHBOURS = "replace one row (every column's value may change); n is public"

#: The ``"version"`` of a ``"column-quantiles"`` release.
QUANTILE_RELEASE_VERSION = 1

#: ``--quantile``: which quantile (default the median).
QUANTILE_OPTION = Option("quantile", "the quantile q in [0, 1] (default 1/2, the median)")

Columns = list[tuple[Fraction, Fraction, Fraction]]


class ColumnQuantiles:
    """One private ``q``-quantile per column, ``eps/d`` each, composed by one accountant.

    Paper: Smith 2011 / Huang-Liang-Yi 2021 (one per column); Lebeda thesis Alg 17
    (PRIVQUANTILE). Neighbours: :data:`NEIGHBOURS`.

    Args:
        kind: ``"exponential"`` (:class:`ExponentialQuantile`, one draw per column) or
            ``"binary"`` (:class:`BinarySearchQuantile`, ``ceil(log2 N_i)`` draws).
        columns: each column's ``(lower, upper, step)``.
        n: the public number of rows.
        epsilon: the total budget (pure DP).
        quantile: ``q`` in ``[0, 1]``.
        dropped: the columns whose missing values are left out (``--nulls drop``): each
            one's target rank comes from its count of values present
            (:meth:`~.quantile.GridQuantile.release_present`), never released.

    >>> cq = ColumnQuantiles("exponential", [(0, 10, 1), (-1, 1, "1/2")], 3, 2, "1/2")
    >>> cq.guarantee.epsilon <= 2, cq.rank_errors("1/10")
    (True, [10, 9])
    """

    def __init__(
        self,
        kind: Literal["exponential", "binary"],
        columns: Sequence[tuple[object, object, object]],
        n: int,
        epsilon: object,
        quantile: object,
        dropped: Sequence[int] = (),
    ) -> None:
        self.kind = kind
        self.n = n
        self.dropped = frozenset(dropped)
        self.epsilon = positive_fraction(epsilon, "epsilon")
        self.quantile = probability(quantile, "quantile", allow_zero=True, allow_one=True)
        share = self.epsilon / len(columns)
        self.selectors: list[ExponentialQuantile | BinarySearchQuantile] = []
        for lower, upper, step in columns:
            if kind == "exponential":
                self.selectors.append(
                    ExponentialQuantile.from_epsilon(
                        lower, upper, quantile=self.quantile, n=n, epsilon=share, step=step
                    )
                )
            else:
                self.selectors.append(
                    BinarySearchQuantile(
                        lower, upper, quantile=self.quantile, n=n, epsilon=share, step=step
                    )
                )
        self.accountant = Accountant(NEIGHBOURS)
        for i, selector in enumerate(self.selectors):
            self.accountant.add(selector.guarantee(f"quantile of column {i}"))

    @property
    def guarantee(self) -> Guarantee:
        """The composed pure guarantee (at most ``eps``)."""
        return self.accountant.total()

    def epsilon_for(self, delta: object) -> Fraction:
        """The pure ``eps`` the accountant certifies (whatever ``delta``)."""
        return self.accountant.epsilon_for(delta)

    def rank_errors(self, beta: object) -> list[int]:
        """Each column's rank error at ``beta/d``: all hold at once w.p. ``>= 1 - beta``."""
        b = probability(beta, "beta") / len(self.selectors)
        return [s.rank_error(b) for s in self.selectors]

    def parameters(self) -> JSON:
        """The document's own parameters: ``q``, the kind, and each column's base or steps."""
        out: JSON = {"quantile": rational(self.quantile), "selection": self.kind}
        if self.kind == "exponential":
            out["bases"] = [
                rational(s.mechanism.base)
                for s in self.selectors
                if isinstance(s, ExponentialQuantile)
            ]
        else:
            out["steps"] = [
                json_int(s.steps) for s in self.selectors if isinstance(s, BinarySearchQuantile)
            ]
        return out

    def accuracy(self, beta: object) -> JSON:
        """The rank errors at ``beta``, and what they mean."""
        statement = (
            "with probability >= 1 - beta, every column's released value y has "
            "#{x < y} <= m + a and #{x <= y} >= m - a, m = floor(q n), a its rank error"
        )
        if self.dropped:
            statement += (
                "; for a column whose missing values are dropped, x ranges over its values "
                "present and n is their count (not released)"
            )
        return {
            "beta": rational(probability(beta, "beta")),
            "rank_errors": [json_int(e) for e in self.rank_errors(beta)],
            "statement": statement,
        }

    def release_from(self, data: Any, rng: RandomSource | None = None) -> ColumnOutcome:
        """Each column's quantile from its counts on its grid (the sufficient statistic),
        asked of ``data``, a :class:`~finitedp.statistics.ColumnStatistics`, one column
        at a time."""
        stats: ColumnStatistics = data
        if stats.d != len(self.selectors):
            raise ParameterError(f"data: got {stats.d} columns; need {len(self.selectors)}")
        source = rng or default_source()
        values = tuple(
            (s.release_present if i in self.dropped else s.release_counts)(
                stats.column_counts(i), source
            )
            for i, s in enumerate(self.selectors)
        )
        release: JSON = {
            "version": QUANTILE_RELEASE_VERSION,
            "type": "column-quantiles",
            "selection": self.kind,
            "neighbours": NEIGHBOURS,
            "n": json_int(self.n),
            "quantile": rational(self.quantile),
            "values": [rational(v) for v in values],
            "guarantee": self.guarantee.to_json_dict(),
        }
        return ColumnOutcome(release, values)

    def __repr__(self) -> str:
        return (
            f"ColumnQuantiles({self.kind!r}, d={len(self.selectors)}, n={self.n}, "
            f"epsilon={short_fraction(self.epsilon)}, quantile={short_fraction(self.quantile)})"
        )


def _build(kind: Literal["exponential", "binary"]) -> Any:
    def build(
        n: int, columns: Columns, budget: str, options: Mapping[str, str | None]
    ) -> ColumnQuantiles:
        quantile = options.get("quantile") or "1/2"
        dropped = [int(i) for i in (options.get("dropped") or "").split(",") if i]
        return ColumnQuantiles(kind, columns, n, budget, quantile, dropped)

    return build


COLUMN_ENTRIES = (
    ColumnEntry(
        "quantile-exponential",
        "a private quantile of each numeric column, exponential mechanism: pure eps-DP",
        "Smith 2011 Sec 3; Lebeda thesis Alg 17 (PRIVQUANTILE)",
        NEIGHBOURS,
        "epsilon",
        _build("exponential"),
        (QUANTILE_OPTION,),
        "counts",
        drops="skip",
    ),
    ColumnEntry(
        "quantile-binary",
        "a private quantile of each numeric column, binary search with BV counts: pure eps-DP",
        "Huang-Liang-Yi 2021 Sec 3; BV Alg 4.8; Lebeda thesis Alg 17 (PRIVQUANTILE)",
        NEIGHBOURS,
        "epsilon",
        _build("binary"),
        (QUANTILE_OPTION,),
        "counts",
        drops="skip",
    ),
)
