"""Sufficient statistics: what a column mechanism asks of its data, instead of its rows.

Paper: Lebeda thesis Ch. 4 (a vector sum depends on the data only through the column
sums), Alg 17's PRIVQUANTILE (a quantile only through each column's counts on its
grid: the rank of every grid point) and Alg 17 itself (PLAN through the counts of gap
and norm levels, the rounded sums within a radius and the rows beyond it:
:class:`RowStatistics`).

A column mechanism's release is a function of a :class:`ColumnStatistics` (PLAN's of a
:class:`RowStatistics`) and of its draws; the statistics are exact integers, so every
engine that computes them (numpy here, DuckDB in :mod:`finitedp.engines.duckdb`,
Spark in :mod:`finitedp.engines.spark`, sparse 0/1 rows in
:mod:`finitedp.mean.sparse`) gives the same release for the same draws, and memory
follows the statistics, never ``n x d``.

>>> stats = ArrayStatistics([np.array([3, 0, 3, 1]), np.array([2, 2, 2, 2])])
>>> stats.n, stats.d, stats.column_sums()
(4, 2, [7, 8])
>>> counts = stats.column_counts(0)
>>> counts.count_at_most(2), counts.at_rank(3), counts.pairs()
(2, 3, [(0, 1), (1, 1), (3, 2)])
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from math import isqrt
from typing import Protocol

import numpy as np

from .errors import ParameterError

__all__ = [
    "ArrayStatistics",
    "ColumnStatistics",
    "GridCounts",
    "RowStatistics",
    "ceil_sqrt",
    "level_of",
    "norm_bounds",
    "offset_division",
    "rounded",
]

#: Rows scaled at once by the in-memory engine: memory per block, not ``n x d``.
ROW_CELLS = 1 << 20


@dataclass(frozen=True, eq=False)
class GridCounts:
    """One column's values as counts on its grid: sorted distinct indices and their counts.

    The statistic the grid quantiles need (every rank query is answered from it), and
    its exact sum ``sum_k k c_k`` is the column's sum in grid units.

    Attributes:
        indices: the distinct grid indices, increasing (``int64``).
        counts: how many values each has (positive ``int64``).
        below: ``below[j]`` values lie at or below ``indices[j]`` (``int64``, increasing).
    """

    indices: np.ndarray
    counts: np.ndarray
    below: np.ndarray

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[int, int]]) -> GridCounts:
        """From ``(index, count)`` pairs in any order; equal indices are merged.

        Raises:
            ParameterError: a negative index or a count below 1.
        """
        merged: dict[int, int] = {}
        for index, count in pairs:
            if index < 0 or count < 1:
                raise ParameterError(f"counts: got ({index}, {count}); need index >= 0, count >= 1")
            merged[index] = merged.get(index, 0) + count
        keys = sorted(merged)
        if (keys and keys[-1] >= 1 << 63) or sum(merged.values()) >= 1 << 63:
            raise ParameterError("counts: an index or the total passes 2^63 (int64)")
        indices = np.array(keys, dtype=np.int64)
        counts = np.array([merged[k] for k in keys], dtype=np.int64)
        return cls(indices, counts, np.cumsum(counts, dtype=np.int64))

    @classmethod
    def from_indices(cls, values: np.ndarray, presorted: bool = False) -> GridCounts:
        """From every value's grid index (``int64``, any order; ``presorted`` skips the sort)."""
        data = np.asarray(values, dtype=np.int64)
        if not presorted:
            data = np.sort(data)
        if len(data) == 0:
            empty = np.zeros(0, dtype=np.int64)
            return cls(empty, empty, empty)
        starts = np.flatnonzero(np.concatenate(([True], data[1:] != data[:-1])))
        ends = np.append(starts[1:], len(data)).astype(np.int64)
        return cls(data[starts], np.diff(np.concatenate(([0], ends))), ends)

    @property
    def n(self) -> int:
        """The number of values."""
        return int(self.below[-1]) if len(self.below) else 0

    def count_at_most(self, y: int) -> int:
        """``#{x <= y}``."""
        j = int(np.searchsorted(self.indices, y, side="right"))
        return int(self.below[j - 1]) if j else 0

    def at_rank(self, r: int) -> int:
        """The value of rank ``r`` (from 0): ``sorted(x)[r]``, ``0 <= r < n``."""
        return int(self.indices[int(np.searchsorted(self.below, r, side="right"))])

    def total(self) -> int:
        """``sum x`` exactly (Python integers: ``k c`` may pass 2^63)."""
        return sum(int(k) * int(c) for k, c in zip(self.indices, self.counts, strict=True))

    def pairs(self) -> list[tuple[int, int]]:
        """``[(index, count), ...]`` in increasing index."""
        return [(int(k), int(c)) for k, c in zip(self.indices, self.counts, strict=True)]

    def check(self, n: int, size: int, name: str = "indices") -> GridCounts:
        """Itself, after checking ``n`` values in ``[0, size)``.

        Raises:
            ParameterError: another number of values, or one off the grid.
        """
        if self.n != n:
            raise ParameterError(f"{name}: got {self.n}; n = {n} is public")
        if n and (int(self.indices[0]) < 0 or int(self.indices[-1]) >= size):
            raise ParameterError(f"{name}: every grid index must lie in [0, {size - 1}]")
        return self


class ColumnStatistics(Protocol):
    """What the column mechanisms ask of ``n`` rows of ``d`` grid indices.

    Every engine answers with exact integers; a mechanism asks only for what its
    release depends on, so the privacy argument reads off the statistics it asks.
    """

    @property
    def n(self) -> int:
        """The number of rows."""
        ...

    @property
    def d(self) -> int:
        """The number of columns."""
        ...

    def column_sums(self) -> list[int]:
        """Each column's sum in grid units (``sum_j k_ij``), exactly."""
        ...

    def column_counts(self, i: int) -> GridCounts:
        """Column ``i``'s counts on its grid."""
        ...


class RowStatistics(ColumnStatistics, Protocol):
    """What PLAN (Alg 17) asks of its rows beyond the columns' counts and sums.

    Each answer is a function of the rows and of public or earlier released values
    (the centre ``m``, the integer scales ``P`` and the radii), so PLAN's release is a
    function of the answers and its draws, whatever computes them.  A row's scaled
    vector is ``w_j = (k_j - m) P`` (per coordinate) and its norm bound
    ``N_j = ceil(||w_j||_2)``: both exact integers.
    """

    def gap_counts(self, levels: Sequence[int]) -> list[GridCounts]:
        """Per column, the counts of the gaps' levels over the pairs of rows ``(2j, 2j + 1)``,
        ``j < n // 2``, in the rows' order: the level of a gap ``|k_2j - k_2j+1|`` is the
        least ``t`` with ``levels[t] >= gap`` (``levels`` increasing, the last at least the
        largest gap)."""
        ...

    def norm_counts(
        self, centre: Sequence[int], scales: Sequence[int], radii: Sequence[int]
    ) -> GridCounts:
        """The counts of each row's level: the least ``k`` with ``radii[k] >= N_j``, or
        the top level ``len(radii) - 1`` if none (``radii`` increasing)."""
        ...

    def rounded_sums(
        self, centre: Sequence[int], scales: Sequence[int], num: int, den: int, within: int
    ) -> list[int]:
        """Per column, ``sum_j`` of :func:`rounded` ``(w_ij, num, den)`` over the rows
        with ``N_j <= within``.

        PLAN asks with ``within < den`` (:func:`~finitedp.mean.scaling.kept_within`), so
        every term is at most ``num + 1`` in size: ``int64`` sums hold for ``n`` below
        ``2^62 / (num + 1)``, and the engines rely on it.
        """
        ...

    def rows_beyond(
        self, centre: Sequence[int], scales: Sequence[int], within: int
    ) -> Iterator[tuple[np.ndarray, list[int]]]:
        """The rows with ``N_j > within``, as blocks of grid indices (``int64``, ``d``
        columns each) with each row's ``N_j``, in any order."""
        ...


def ceil_sqrt(x: int) -> int:
    """``ceil(sqrt(x))`` for an integer ``x >= 0``."""
    root = isqrt(x)
    return root + (root * root < x)


def level_of(bounds: Sequence[int] | np.ndarray, levels: Sequence[int]) -> np.ndarray:
    """Each row's level: the least ``k`` with ``C_k >= N_j`` (the top level if none)."""
    found = np.searchsorted(np.array(levels, dtype=np.int64), np.array(bounds, dtype=np.int64))
    return np.minimum(found, len(levels) - 1).astype(np.int64)


def offset_division(num: int, den: int) -> tuple[int, int]:
    """``(D, M)`` with ``floor((2 w num + den)/D) = (2 w num + den + M D) div D - M`` for every
    ``|w| < 2^40``, the left operand non-negative and below ``2^63``: :func:`rounded` in an
    engine whose integer division truncates toward zero (DuckDB's ``//``, Spark's ``div``).

    Raises:
        ParameterError: ``num`` or ``den`` not positive, or too large for 64 bits (PLAN's
            are below ``2^14`` and ``2^51``).
    """
    big, top = 2 * den, (2 * num << 40) + den  # |2 w num + den| <= top
    if not (num > 0 and den > 0 and 4 * (top + big) < 1 << 63):
        raise ParameterError(f"offset_division: num = {num}, den = {den} pass 64 bits")
    return big, top // big + 1


def rounded(w: np.ndarray, num: int | np.ndarray, den: int | np.ndarray) -> np.ndarray:
    """``round(w num/den)``, halves up: ``floor((2 w num + den)/(2 den))`` (``den > 0``)."""
    return (2 * w * num + den) // (2 * den)


def norm_bounds(w: np.ndarray) -> list[int]:
    """``N_j = ceil(||w_j||_2)`` exactly, for each row of the int64 matrix ``w``.

    ``|w| < 2^40`` and ``d < 2^20``: each magnitude is split as ``h 2^20 + l``, the
    three int64 sums ``sum h^2``, ``sum h l`` and ``sum l^2`` stay below ``2^60``, and
    ``sum w^2 = (sum h^2) 2^40 + (sum h l) 2^21 + sum l^2`` is put together as a
    Python integer.  Exact, so the value depends on the row only (a sparse row gives
    the same bound as its dense form).
    """
    magnitude = np.abs(w)
    high, low = magnitude >> 20, magnitude & ((1 << 20) - 1)
    squares = zip(
        (high * high).sum(axis=1).tolist(),
        (high * low).sum(axis=1).tolist(),
        (low * low).sum(axis=1).tolist(),
        strict=True,
    )
    return [ceil_sqrt((a << 40) + (b << 21) + c) for a, b, c in squares]


class ArrayStatistics:
    """:class:`ColumnStatistics` and :class:`RowStatistics` of in-memory columns of grid
    indices (numpy; the rows in the columns' order).

    Args:
        columns: each column's grid indices, one ``int64`` array per column, all of
            one length ``n``.
        rows: the same indices as one ``n x d`` array, if the caller has it: the row
            blocks are then its slices (views of ``int64`` rows), not stacked columns.
    """

    def __init__(self, columns: Sequence[np.ndarray], rows: np.ndarray | None = None) -> None:
        self._columns = [np.asarray(c, dtype=np.int64) for c in columns]
        self._rows = rows
        lengths = {len(c) for c in self._columns}
        if len(lengths) > 1:
            raise ParameterError(f"columns: got lengths {sorted(lengths)}; one n for every column")
        self._n = lengths.pop() if lengths else 0
        if rows is not None and rows.shape != (self._n, len(self._columns)):
            raise ParameterError(
                f"rows: got shape {rows.shape}; need the columns' {self._n} x {len(self._columns)}"
            )
        self._norms: tuple[tuple[tuple[int, ...], tuple[int, ...]], np.ndarray] | None = None

    @property
    def n(self) -> int:
        return self._n

    @property
    def d(self) -> int:
        return len(self._columns)

    def column_sums(self) -> list[int]:
        # int64 sums may wrap past 2^63: halves of 31 bits each are summed apart
        out = []
        for column in self._columns:
            high = int((column >> 31).sum(dtype=np.int64))
            low = int((column & ((1 << 31) - 1)).sum(dtype=np.int64))
            out.append((high << 31) + low)
        return out

    def column_counts(self, i: int) -> GridCounts:
        return GridCounts.from_indices(self._columns[i])

    # -- PLAN's row statistics, a block of rows at a time --------------------------------

    def _blocks(self) -> Iterator[np.ndarray]:
        """The rows as ``int64`` blocks of about :data:`ROW_CELLS` entries."""
        rows = max(1, ROW_CELLS // max(1, self.d))
        for start in range(0, self._n, rows):
            if self._rows is not None:  # a view where the rows are int64 already
                yield np.asarray(self._rows[start : start + rows], dtype=np.int64)
            else:
                yield np.column_stack([c[start : start + rows] for c in self._columns])

    def _bounds(self, centre: Sequence[int], scales: Sequence[int]) -> np.ndarray:
        """Every row's ``N_j`` for this centre and these scales (the last one kept: a
        round asks for its levels, then its sums and clipped rows, with the same)."""
        key = (tuple(centre), tuple(scales))
        if self._norms is None or self._norms[0] != key:
            m, p = np.asarray(centre, dtype=np.int64), np.asarray(scales, dtype=np.int64)
            bounds: list[int] = []
            for block in self._blocks():
                bounds += norm_bounds((block - m) * p)
            self._norms = (key, np.asarray(bounds, dtype=np.int64))
        return self._norms[1]

    def gap_counts(self, levels: Sequence[int]) -> list[GridCounts]:
        half = self._n // 2
        top = np.asarray(levels, dtype=np.int64)
        return [
            GridCounts.from_indices(
                np.searchsorted(top, np.abs(c[0 : 2 * half : 2] - c[1::2][:half]))
            )
            for c in self._columns
        ]

    def norm_counts(
        self, centre: Sequence[int], scales: Sequence[int], radii: Sequence[int]
    ) -> GridCounts:
        return GridCounts.from_indices(level_of(self._bounds(centre, scales), radii))

    def rounded_sums(
        self, centre: Sequence[int], scales: Sequence[int], num: int, den: int, within: int
    ) -> list[int]:
        m, p = np.asarray(centre, dtype=np.int64), np.asarray(scales, dtype=np.int64)
        inside = self._bounds(centre, scales) <= within
        total = np.zeros(self.d, dtype=np.int64)
        start = 0
        for block in self._blocks():
            kept = inside[start : start + len(block)]
            start += len(block)
            total += rounded((block[kept] - m) * p, num, den).sum(axis=0, dtype=np.int64)
        return [int(t) for t in total]

    def rows_beyond(
        self, centre: Sequence[int], scales: Sequence[int], within: int
    ) -> Iterator[tuple[np.ndarray, list[int]]]:
        bounds = self._bounds(centre, scales)
        start = 0
        for block in self._blocks():
            here = bounds[start : start + len(block)]
            start += len(block)
            beyond = here > within
            if beyond.any():
                yield block[beyond], here[beyond].tolist()
