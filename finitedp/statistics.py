"""Sufficient statistics: what a column mechanism asks of its data, instead of its rows.

Paper: Lebeda thesis Ch. 4 (a vector sum depends on the data only through the column
sums) and Alg 17's PRIVQUANTILE (a quantile only through each column's counts on its
grid: the rank of every grid point).

A column mechanism's release is a function of a :class:`ColumnStatistics` and of its
draws; the statistics are exact integers, so every engine that computes them (numpy
here, DuckDB in :mod:`finitedp.io.duckstats`, Spark in :mod:`finitedp.spark`) gives the
same release for the same draws, and memory follows the statistics, never ``n x d``.

>>> stats = ArrayStatistics([np.array([3, 0, 3, 1]), np.array([2, 2, 2, 2])])
>>> stats.n, stats.d, stats.column_sums()
(4, 2, [7, 8])
>>> counts = stats.column_counts(0)
>>> counts.count_at_most(2), counts.at_rank(3), counts.pairs()
(2, 3, [(0, 1), (1, 1), (3, 2)])
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from .errors import ParameterError

__all__ = ["ArrayStatistics", "ColumnStatistics", "GridCounts"]


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


class ArrayStatistics:
    """:class:`ColumnStatistics` of in-memory columns of grid indices (numpy).

    Args:
        columns: each column's grid indices, one ``int64`` array per column, all of
            one length ``n``.
    """

    def __init__(self, columns: Sequence[np.ndarray]) -> None:
        self._columns = [np.asarray(c, dtype=np.int64) for c in columns]
        lengths = {len(c) for c in self._columns}
        if len(lengths) > 1:
            raise ParameterError(f"columns: got lengths {sorted(lengths)}; one n for every column")
        self._n = lengths.pop() if lengths else 0

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
