"""PLAN's row statistics of sparse 0/1 rows (each row the set of its 1s), without ``n x d``.

Paper: Lebeda thesis Alg 17 and Section 5.7 (binary data: Kosarak, POS);
proofs_notes/plan.md.

:class:`SetsStatistics` answers every question of
:class:`~finitedp.statistics.RowStatistics` from the sets, exactly as the dense rows
would, so :meth:`PLAN.release_sets` makes the same draws and returns the same release
as the dense path on the same rows:

* a column's counts are ``n - c_i`` zeros and ``c_i`` ones (``c_i`` its count), and
  its sum is ``c_i``;
* a pair's gap is 0 or 1, whose level is 0 (the gap levels start at ``T_0 = 1``);
* row ``j``'s squared norm is ``sum_i (m_i P_i)^2`` plus, over its items,
  ``((1 - m_i) P_i)^2 - (m_i P_i)^2`` (exact integers: the same ``ceil`` as the dense
  :func:`~finitedp.statistics.norm_bounds`);
* rows that are not clipped share one factor, so their rounded coordinates are one of
  two values per column and sum from counts; the clipped rows (about ``k`` of them)
  are handed over densely, a few at a time.

Memory: the sets, ``O(d)`` per column, and ``O(d)`` per clipped row handed over.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from ..errors import ParameterError
from ..statistics import GridCounts, ceil_sqrt, level_of, rounded

__all__ = ["SetsStatistics"]

#: Entries of the dense blocks of clipped rows handed over at once.
DENSE_CELLS = 1 << 20


class SetsStatistics:
    """:class:`~finitedp.statistics.RowStatistics` of ``n`` 0/1 rows given as sets of items.

    Args:
        sets: row ``j``'s items (its 1s), each in ``[0, d)``; repeats count once.
        n: the public number of rows; d: the number of columns.

    Raises:
        ParameterError: not ``n`` rows, or an item outside ``[0, d)`` (the row is named).
    """

    def __init__(self, sets: Sequence[Sequence[int]], n: int, d: int) -> None:
        if len(sets) != n:
            raise ParameterError(f"sets: got {len(sets)} rows; n = {n} is public")
        rows: list[np.ndarray] = []
        for j, items in enumerate(sets):
            row = np.unique(np.asarray(items, dtype=np.int64))
            if row.size and (int(row[0]) < 0 or int(row[-1]) >= d):
                raise ParameterError(f"sets[{j}]: every item must lie in [0, {d - 1}]")
            rows.append(row)
        self._rows, self._n, self._d = rows, n, d
        flat = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
        self._counts = np.bincount(flat, minlength=d).astype(np.int64)
        self._norms: tuple[tuple[tuple[int, ...], tuple[int, ...]], np.ndarray] | None = None

    @property
    def n(self) -> int:
        return self._n

    @property
    def d(self) -> int:
        return self._d

    def column_sums(self) -> list[int]:
        return [int(c) for c in self._counts]

    def column_counts(self, i: int) -> GridCounts:
        ones = int(self._counts[i])
        return GridCounts.from_pairs([(k, c) for k, c in ((0, self._n - ones), (1, ones)) if c])

    def gap_counts(self, levels: Sequence[int]) -> list[GridCounts]:
        if levels[0] < 1:
            raise ParameterError(f"levels: got T_0 = {levels[0]}; a 0/1 gap needs T_0 >= 1")
        half = self._n // 2
        same = GridCounts.from_pairs([(0, half)] if half else [])
        return [same] * self._d

    def _w(self, centre: Sequence[int], scales: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """Each coordinate's ``w`` for a 0 and for a 1."""
        m, p = np.asarray(centre, dtype=np.int64), np.asarray(scales, dtype=np.int64)
        return -m * p, (1 - m) * p

    def _bounds(self, centre: Sequence[int], scales: Sequence[int]) -> np.ndarray:
        """Every row's ``N_j`` (the last centre's kept, as :class:`ArrayStatistics` does)."""
        key = (tuple(centre), tuple(scales))
        if self._norms is None or self._norms[0] != key:
            absent, present = self._w(centre, scales)
            base = sum(int(a) * int(a) for a in absent.tolist())
            delta = [
                int(b) * int(b) - int(a) * int(a)
                for a, b in zip(absent.tolist(), present.tolist(), strict=True)
            ]
            bounds = [ceil_sqrt(base + sum(delta[i] for i in row.tolist())) for row in self._rows]
            self._norms = (key, np.asarray(bounds, dtype=np.int64))
        return self._norms[1]

    def norm_counts(
        self, centre: Sequence[int], scales: Sequence[int], radii: Sequence[int]
    ) -> GridCounts:
        return GridCounts.from_indices(level_of(self._bounds(centre, scales), radii))

    def rounded_sums(
        self, centre: Sequence[int], scales: Sequence[int], num: int, den: int, within: int
    ) -> list[int]:
        inside = self._bounds(centre, scales) <= within
        kept = np.zeros(self._d, dtype=np.int64)  # the ones of the rows within
        for row, keep in zip(self._rows, inside.tolist(), strict=True):
            if keep:
                kept[row] += 1
        absent, present = self._w(centre, scales)
        low, high = rounded(absent, num, den), rounded(present, num, den)
        total = (int(inside.sum()) - kept) * low + kept * high
        return [int(t) for t in total]

    def rows_beyond(
        self, centre: Sequence[int], scales: Sequence[int], within: int
    ) -> Iterator[tuple[np.ndarray, list[int]]]:
        bounds = self._bounds(centre, scales)
        beyond = np.flatnonzero(bounds > within).tolist()
        step = max(1, DENSE_CELLS // max(1, self._d))
        for start in range(0, len(beyond), step):
            chosen = beyond[start : start + step]
            block = np.zeros((len(chosen), self._d), dtype=np.int64)
            for r, j in enumerate(chosen):
                block[r, self._rows[j]] = 1
            yield block, bounds[chosen].tolist()
