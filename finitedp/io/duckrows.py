"""PLAN's row statistics of a Parquet file of integer columns, computed inside DuckDB.

:class:`DuckDBRows` answers :class:`~finitedp.statistics.RowStatistics` with SQL over
the file, streaming: memory follows the answers (a count per level, a sum per column,
the clipped rows handed over a block at a time), never ``n x d``.  Every quantity is an
exact integer in SQL (``BIGINT`` for the indices and the scaled rows, below ``2^55``;
``HUGEINT`` for the squared norms, below ``2^101``), and every comparison with a
public constant is exact, so the answers are the in-memory engine's, value for value:

* **levels** (of a gap, of a norm) are found by a tree of ``CASE`` comparisons with the
  public levels (a binary search written out: ``log2`` of their number per row);
* **pairs of rows** ``(2j, 2j + 1)`` are the rows of even and odd ``file_row_number``
  side by side (``POSITIONAL JOIN``); the query also counts the pairs whose row numbers
  are not ``2j`` and ``2j + 1``, and when any is, the pairs are made again by a window
  over the row number (a sort);
* **floor division** is written out (DuckDB's ``//`` truncates toward zero).

Paper: Lebeda thesis Alg 17 (what is computed: ``proofs_notes/plan.md``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from ..statistics import GridCounts, ceil_sqrt, offset_division
from .duckstats import DuckDBStatistics
from .numeric import NumericColumn
from .progress import Progress
from .tables import InputFile, literal, query

__all__ = ["DuckDBRows", "duckdb_rows"]

#: Rows of clipped rows fetched at a time.
FETCH_ROWS = 1 << 14

#: Grids of fewer points have their gaps counted raw, then given their levels here.
RAW_GAPS = 1 << 20

#: Levels searched by a ``CASE`` tree; more are looked up by an ``ASOF`` join.
TREE_LEVELS = 4096


def _level_tree(x: str, bounds: Sequence[str], low: int, high: int) -> str:
    """SQL for the least ``k`` in ``[low, high]`` with ``x <= bounds[k]`` (``high`` if none)."""
    if low == high:
        return str(low)
    mid = (low + high) // 2
    below, above = _level_tree(x, bounds, low, mid), _level_tree(x, bounds, mid + 1, high)
    return f"CASE WHEN {x} <= {bounds[mid]} THEN {below} ELSE {above} END"


def _hugeint(value: int) -> str:
    return f"CAST('{value}' AS HUGEINT)"


def duckdb_rows(
    source: InputFile, columns: Sequence[NumericColumn], progress: Progress, clamp: bool = False
) -> DuckDBRows | None:
    """:class:`DuckDBRows` of the file, or ``None`` where its columns are not all integer
    Parquet columns whose every integer is a grid point (the rows are then read)."""
    if source.kind != "parquet":
        return None
    rows = DuckDBRows(source, columns, progress, clamp)
    return rows if rows.index is not None else None


class DuckDBRows(DuckDBStatistics):
    """:class:`~finitedp.statistics.RowStatistics` of a Parquet file's integer columns.

    Every value is checked (with each column's counts, which the centre asks for too)
    before a row statistic is asked.
    """

    def __init__(
        self,
        source: InputFile,
        columns: Sequence[NumericColumn],
        progress: Progress,
        clamp: bool = False,
    ) -> None:
        super().__init__(source, columns, progress, clamp)
        self.numbered = f"read_parquet({literal(source.path)}, file_row_number = true)"
        self._counts: list[GridCounts] | None = None
        self.index: list[str] | None = []
        for grid in self.grids:
            m = None if grid is None else grid.map
            if grid is None or m is None or not m.every_integer:
                self.index = None
                return
            # k = v alpha - beta, linear (every integer a grid point); clamped first
            a, b = m.column.lower.numerator, m.column.lower.denominator
            p, q = m.column.step.numerator, m.column.step.denominator
            alpha, beta = (b * q) // (b * p), (a * q) // (b * p)
            v = f"least(greatest({grid.name}, {m.low}), {m.high})" if clamp else grid.name
            if max(abs(m.low), abs(m.high)) * alpha + abs(beta) >= 1 << 62:
                self.index = None  # beyond BIGINT: the rows are read instead
                return
            self.index.append(f"(CAST({v} AS BIGINT) * {alpha} - {beta})")

    def _check(self) -> list[GridCounts]:
        """Each column's counts, kept: every value checked (a refused one named by its row)
        before any row statistic, and ``n`` and the sums with them (no scan of their own)."""
        if self._counts is None:
            self._counts = [DuckDBStatistics.column_counts(self, i) for i in range(self.d)]
            self._n = self._counts[0].n
            self._sums = [c.total() for c in self._counts]
        return self._counts

    def column_counts(self, i: int) -> GridCounts:
        return self._check()[i]

    def column_sums(self) -> list[int]:
        self._check()
        assert self._sums is not None
        return list(self._sums)

    def _indices(self) -> list[str]:
        assert self.index is not None
        self._check()
        return self.index

    def _scaled(self, centre: Sequence[int], scales: Sequence[int]) -> str:
        """A ``FROM`` clause of the rows' indices ``k0, ...``, ``w0, ...`` (``w = (k - m) P``,
        ``|w| < 2^40``: ``BIGINT``) and ``s = ||w||^2`` (``HUGEINT``)."""
        d = self.d
        k = ", ".join(f"{e} AS k{i}" for i, e in enumerate(self._indices()))
        w = ", ".join(
            f"(k{i} - {m}) * {p} AS w{i}"
            for i, (m, p) in enumerate(zip(centre, scales, strict=True))
        )
        s = " + ".join(f"CAST(w{i} AS HUGEINT) * w{i}" for i in range(d))
        return f"(SELECT *, {s} AS s FROM (SELECT *, {w} FROM (SELECT {k} FROM {self.where})))"

    def _all(self, sql: str) -> list[Any]:
        return list(query(self.source, sql, self.wanted).fetchall())

    def gap_counts(self, levels: Sequence[int]) -> list[GridCounts]:
        self.progress.phase(f"the gaps of {self.d} columns over pairs of rows (DuckDB)")
        # A grid of at most RAW_GAPS points: each gap's count, then its level here (a
        # CASE tree per value is slower); a longer grid: the levels in SQL (memory).
        raw = all(c.units < RAW_GAPS for c in self.columns)
        found = self._gaps_side_by_side(levels, raw)
        if found is None:  # the two sides did not come out side by side: sort them
            found = self._gaps_sorted(levels, raw)
        out = []
        top = np.asarray(levels, dtype=np.int64)
        for histogram in found:
            keys, counts = zip(*dict(histogram).items(), strict=True) if histogram else ((), ())
            at = np.searchsorted(top, np.asarray(keys, dtype=np.int64)) if raw else keys
            out.append(GridCounts.from_pairs(zip((int(k) for k in at), counts, strict=True)))
        return out

    def _columns(self) -> str:
        return ", ".join(f"{e} AS k{i}" for i, e in enumerate(self._indices()))

    @staticmethod
    def _gap(gap: str, levels: Sequence[int], raw: bool) -> str:
        """SQL for a gap's level, or with ``raw`` the gap itself."""
        bounds = [str(t) for t in levels]
        return gap if raw else _level_tree(gap, bounds, 0, len(levels) - 1)

    def _gaps_side_by_side(self, levels: Sequence[int], raw: bool) -> list[Any] | None:
        """Each column's gap-level histogram from the even and odd rows joined by position,
        or ``None`` if any pair's row numbers are not ``2j`` and ``2j + 1``."""
        number = "file_row_number"
        side = (
            f"(SELECT {number} AS r, {self._columns()} FROM {self.numbered} "
            f"WHERE {number} % 2 = {{}})"
        )
        parts = ", ".join(
            f"histogram({self._gap(f'abs(e.k{i} - o.k{i})', levels, raw)}) "
            "FILTER (WHERE o.r IS NOT NULL)"
            for i in range(self.d)
        )
        sql = (
            f"SELECT count(*) FILTER (WHERE o.r IS NOT NULL AND o.r <> e.r + 1), count(o.r), "
            f"{parts} FROM {side.format(0)} e POSITIONAL JOIN {side.format(1)} o"
        )
        (found,) = self._all(sql)
        return None if found[0] or found[1] != self.n // 2 else list(found[2:])

    def _gaps_sorted(self, levels: Sequence[int], raw: bool) -> list[Any]:
        """Each column's gap-level histogram, the pairs made by a window over the row number."""
        lags = ", ".join(f"k{i} - lag(k{i}) OVER (ORDER BY r) AS g{i}" for i in range(self.d))
        inner = f"SELECT file_row_number AS r, {self._columns()} FROM {self.numbered}"
        hist = ", ".join(
            f"histogram({self._gap(f'abs(g{i})', levels, raw)})" for i in range(self.d)
        )
        sql = f"SELECT {hist} FROM (SELECT r, {lags} FROM ({inner})) WHERE r % 2 = 1"
        (found,) = self._all(sql)
        return list(found)

    def norm_counts(
        self, centre: Sequence[int], scales: Sequence[int], radii: Sequence[int]
    ) -> GridCounts:
        self.progress.phase(f"the norms' levels of {self.n:,} rows (DuckDB)")
        rows, top = self._scaled(centre, scales), len(radii) - 1
        if len(radii) <= TREE_LEVELS:
            tree = _level_tree("s", [_hugeint(c * c) for c in radii], 0, top)
            sql = f"SELECT {tree} AS l, count(*) FROM {rows} GROUP BY l"
        else:
            table = ", ".join(f"({i}, {_hugeint(c * c)})" for i, c in enumerate(radii))
            sql = (
                f"SELECT coalesce(t.l, {top}) AS l, count(*) FROM {rows} r ASOF LEFT JOIN "
                f"(VALUES {table}) t(l, sq) ON r.s <= t.sq GROUP BY ALL"
            )
        return GridCounts.from_pairs((int(level), int(c)) for level, c in self._all(sql))

    def rounded_sums(
        self, centre: Sequence[int], scales: Sequence[int], num: int, den: int, within: int
    ) -> list[int]:
        self.progress.phase("the sums of the rows within the radius (DuckDB)")
        big, shift = offset_division(num, den)  # DuckDB's // truncates toward zero
        parts = [f"sum((2 * w{i} * {num} + {den + shift * big}) // {big})" for i in range(self.d)]
        sql = (
            f"SELECT count(*), {', '.join(parts)} FROM {self._scaled(centre, scales)} "
            f"WHERE s <= {_hugeint(within * within)}"
        )
        (found,) = self._all(sql)
        kept = int(found[0])
        return [int(x or 0) - shift * kept for x in found[1:]]

    def rows_beyond(
        self, centre: Sequence[int], scales: Sequence[int], within: int
    ) -> Iterator[tuple[np.ndarray, list[int]]]:
        self.progress.phase("reading the rows beyond the radius (DuckDB)")
        names = ", ".join(f"k{i}" for i in range(self.d))
        rows = self._scaled(centre, scales)
        sql = f"SELECT s, {names} FROM {rows} WHERE s > {_hugeint(within * within)}"
        cursor = query(self.source, sql, self.wanted)
        while batch := cursor.fetchmany(FETCH_ROWS):
            block = np.array([row[1:] for row in batch], dtype=np.int64).reshape(len(batch), self.d)
            yield block, [ceil_sqrt(int(row[0])) for row in batch]
