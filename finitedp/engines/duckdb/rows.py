"""PLAN's row statistics of a Parquet file of integer columns, computed inside DuckDB.

:class:`DuckDBRows` answers :class:`~finitedp.statistics.RowStatistics` with SQL over
the file, streaming: memory follows the answers (a count per level, a sum per column,
the clipped rows handed over a block at a time), never ``n x d``.  Every quantity is an
exact integer in SQL (``BIGINT`` for the indices and the scaled rows, below ``2^55``;
``HUGEINT`` for the squared norms, below ``2^101``), and every comparison with a
public constant is exact, so the answers are the in-memory engine's, value for value:

* **levels** (of a gap, of a norm) are found by a tree of ``CASE`` comparisons with the
  public levels (a binary search written out: ``log2`` of their number per row);
* **pairs of rows** ``(2j, 2j + 1)``: each row meets the one before it through
  ``lag() OVER ()``, which DuckDB streams in the scan's order (file order) in constant
  memory; the query also counts the odd rows whose row before is not ``2j``, and when
  any is, the pairs are made again by a window over the row number (a sort);
* **floor division** is written out (DuckDB's ``//`` truncates toward zero).

Paper: Lebeda thesis Alg 17 (what is computed: ``proofs_notes/plan.md``).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import weakref
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import duckdb
import numpy as np

from ...errors import ParameterError, ResourceLimitError
from ...io.numeric import NumericColumn
from ...io.progress import Progress
from ...io.tables import InputFile, connect, literal, query
from ...resources import describe_bytes
from ...statistics import GridCounts, ceil_sqrt, offset_division
from .statistics import DuckDBStatistics, check_points

__all__ = ["DuckDBRows", "duckdb_rows"]

#: Rows of clipped rows fetched at a time.
FETCH_ROWS = 1 << 14

#: Grids of fewer points have their gaps counted raw, then given their levels here.
RAW_GAPS = 1 << 20

#: Rows of one chunk of the gaps' window (even); :data:`GAP_WORKERS` chunks run at once.
GAP_CHUNK_ROWS = 1 << 24
GAP_WORKERS = 2

#: Levels searched by a ``CASE`` tree; more are looked up by an ``ASOF`` join.
TREE_LEVELS = 4096

#: Disk a value may take in the temporary Parquet file (8 bytes raw, before compression).
COPY_BYTES = 8


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
) -> DuckDBRows:
    """:class:`DuckDBRows` of a CSV or Parquet file's columns."""
    return DuckDBRows(source, columns, progress, clamp)


class DuckDBRows(DuckDBStatistics):
    """:class:`~finitedp.statistics.RowStatistics` of a CSV or Parquet file's columns.

    Integer Parquet columns whose every integer is a grid point are read in place.  Any
    other column set (CSV fields, texts, decimals, finer grids) is first copied, as its
    grid indices, into a temporary Parquet file in the rows' order: each column's
    distinct texts are read exactly here (the counts the centre asks for, so every value
    is checked), joined back to the rows in SQL, and the rows written sorted by their
    ``row_number() OVER ()`` (DuckDB's documented way to keep a file's order through a
    join).  The file lives in the system's temporary directory until this object goes.

    Every value is checked (with each column's counts, which the centre asks for too)
    before a row statistic is asked.

    Raises:
        ResourceLimitError: the temporary file would not fit the free disk.
    """

    def __init__(
        self,
        source: InputFile,
        columns: Sequence[NumericColumn],
        progress: Progress,
        clamp: bool = False,
    ) -> None:
        super().__init__(source, columns, progress, clamp)
        for column in columns:
            check_points(column)
        self.numbered = f"read_parquet({literal(source.path)}, file_row_number = true)"
        self._counts: list[GridCounts] | None = None
        in_place = self._in_place(clamp)
        #: whether the rows are first copied, as indices, to a temporary Parquet file
        self.copied = in_place is None
        self.index: list[str] = in_place or [f"k{i}" for i in range(self.d)]
        #: the sums' scan, whose rows beyond the radius :meth:`rows_beyond` reads next
        self._pending: tuple[tuple[Any, ...], Any, list[Any]] | None = None

    def _in_place(self, clamp: bool) -> list[str] | None:
        """Each column's index as SQL over the file, or ``None`` unless every column is an
        integer Parquet column whose every integer is a grid point (within ``BIGINT``)."""
        index = []
        for grid in self.grids:
            m = None if grid is None else grid.map
            if grid is None or m is None or not m.every_integer:
                return None
            # k = v alpha - beta, linear (every integer a grid point); clamped first
            a, b = m.column.lower.numerator, m.column.lower.denominator
            p, q = m.column.step.numerator, m.column.step.denominator
            alpha, beta = (b * q) // (b * p), (a * q) // (b * p)
            v = f"least(greatest({grid.name}, {m.low}), {m.high})" if clamp else grid.name
            if max(abs(m.low), abs(m.high)) * alpha + abs(beta) >= 1 << 62:
                return None  # beyond BIGINT: through the texts instead
            index.append(f"(CAST({v} AS BIGINT) * {alpha} - {beta})")
        return index

    def _check(self) -> list[GridCounts]:
        """Each column's counts, kept: every value checked (a refused one named by its row)
        before any row statistic, and ``n`` and the sums with them (no scan of their own)."""
        if self._counts is None:
            if self.copied:
                self._counts = self._copy_indices()
            else:
                self._counts = [DuckDBStatistics.column_counts(self, i) for i in range(self.d)]
            self._n = self._counts[0].n
            self._sums = [c.total() for c in self._counts]
        return self._counts

    def _copy_indices(self) -> list[GridCounts]:
        """Each column's counts from its distinct texts; then the rows, as indices, copied
        in order to a temporary Parquet file, which the statistics read from then on."""
        found = [self._text_indices(i) for i in range(self.d)]
        counts = []
        for pairs in found:
            merged: dict[int, int] = {}
            for _, k, c in pairs:
                merged[k] = merged.get(k, 0) + c
            counts.append(GridCounts.from_pairs(merged.items()))
        n = counts[0].n
        folder = tempfile.mkdtemp(prefix="finitedp-rows-")
        weakref.finalize(self, shutil.rmtree, folder, True)
        need, free = COPY_BYTES * n * self.d, shutil.disk_usage(folder).free
        if need > free:
            raise ResourceLimitError(
                f"{self.source.name}: PLAN numbers the rows' values into a temporary Parquet "
                f"file of up to {describe_bytes(need)}, but {tempfile.gettempdir()} has "
                f"{describe_bytes(free)} free; set TMPDIR to a larger disk, or give integer "
                "Parquet columns (read in place)"
            )
        path = os.path.join(folder, "indices.parquet")
        con = connect()
        for i, pairs in enumerate(found):
            table = {"t": np.array([t for t, _, _ in pairs], dtype=object)}
            table["k"] = np.array([k for _, k, _ in pairs], dtype=np.int64)
            con.register(f"m{i}", table)
        texts = ", ".join(f"{e} AS v{i}" for i, e in enumerate(self.texts))
        joins = " ".join(f"JOIN m{i} ON s.v{i} = m{i}.t" for i in range(self.d))
        ks = ", ".join(f"m{i}.k AS k{i}" for i in range(self.d))
        self.progress.phase(f"numbering the values of {n:,} rows in order (DuckDB)")
        metadata = f"SELECT sum(num_rows) FROM parquet_file_metadata({literal(path)})"
        try:
            con.execute(
                f"COPY (SELECT {ks} FROM (SELECT row_number() OVER () AS r, {texts} FROM "
                f"{self.where}) s {joins} ORDER BY s.r) TO {literal(path)} (FORMAT parquet)"
            )
            written = int(con.execute(metadata).fetchone()[0])  # type: ignore[index]
        except duckdb.Error as error:  # the values were read already: the disk, say
            first = str(error).splitlines()[0] if str(error) else type(error).__name__
            raise ParameterError(
                f"{self.source.name}: the temporary copy of the rows' indices in "
                f"{tempfile.gettempdir()} failed ({first}); nothing was released"
            ) from None
        if written != n:  # every text was read above: each row meets its own
            raise AssertionError(f"{written} rows numbered of {n}")  # pragma: no cover
        self.where = f"read_parquet({literal(path)})"
        self.numbered = f"read_parquet({literal(path)}, file_row_number = true)"
        return counts

    def column_counts(self, i: int) -> GridCounts:
        return self._check()[i]

    def column_sums(self) -> list[int]:
        self._check()
        assert self._sums is not None
        return list(self._sums)

    def _indices(self) -> list[str]:
        self._check()
        return self.index

    def _scaled(self, centre: Sequence[int], scales: Sequence[int], numbered: bool = False) -> str:
        """A ``FROM`` clause of the rows' indices ``k0, ...``, ``w0, ...`` (``w = (k - m) P``,
        ``|w| < 2^40``: ``BIGINT``) and ``s = ||w||^2`` (``HUGEINT``); with ``numbered``
        also each row's number ``r``."""
        d = self.d
        k = ", ".join(f"{e} AS k{i}" for i, e in enumerate(self._indices()))
        w = ", ".join(
            f"(k{i} - {m}) * {p} AS w{i}"
            for i, (m, p) in enumerate(zip(centre, scales, strict=True))
        )
        s = " + ".join(f"CAST(w{i} AS HUGEINT) * w{i}" for i in range(d))
        rows = (
            f"SELECT file_row_number AS r, {k} FROM {self.numbered}"
            if numbered
            else (f"SELECT {k} FROM {self.where}")
        )
        return f"(SELECT *, {s} AS s FROM (SELECT *, {w} FROM ({rows})))"

    def _all(self, sql: str) -> list[Any]:
        return list(query(self.source, sql, self.wanted).fetchall())

    def gap_counts(self, levels: Sequence[int]) -> list[GridCounts]:
        self.progress.phase(f"the gaps of {self.d} columns over pairs of rows (DuckDB)")
        # A grid of at most RAW_GAPS points: each gap's count, then its level here (a
        # CASE tree per value is slower); a longer grid: the levels in SQL (memory).
        raw = all(c.units < RAW_GAPS for c in self.columns)
        found = self._gaps_streamed(levels, raw)
        if found is None:  # the rows did not come out in the file's order: sort them
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

    def _gaps_streamed(self, levels: Sequence[int], raw: bool) -> list[Any] | None:
        """Each column's gap-level histogram, each odd row beside the row before it, or
        ``None`` if any odd row's row before is not its predecessor in the file.

        The window runs in one thread, so the rows are cut into chunks of
        :data:`GAP_CHUNK_ROWS` (even: no pair crosses a cut; a chunk reads only its row
        groups) whose windows run side by side, :data:`GAP_WORKERS` at a time.
        """
        k = ", ".join(f"k{i}, lag(k{i}) OVER () AS p{i}" for i in range(self.d))
        parts = ", ".join(
            f"histogram({self._gap(f'abs(k{i} - p{i})', levels, raw)})" for i in range(self.d)
        )

        def chunk(low: int) -> Any:
            within = f"file_row_number >= {low} AND file_row_number < {low + GAP_CHUNK_ROWS}"
            rows = (
                f"(SELECT r, lag(r) OVER () AS q, {k} FROM (SELECT file_row_number AS r, "
                f"{self._columns()} FROM {self.numbered} WHERE {within}))"
            )
            sql = (
                f"SELECT count(*) FILTER (WHERE q IS DISTINCT FROM r - 1), count(*), {parts} "
                f"FROM {rows} WHERE r % 2 = 1"
            )
            return self._all(sql)[0]

        lows = range(0, max(self.n, 1), GAP_CHUNK_ROWS)
        if len(lows) == 1:
            found = [chunk(0)]
        else:
            with ThreadPoolExecutor(GAP_WORKERS) as pool:
                found = list(pool.map(chunk, lows))
        if sum(f[0] for f in found) or sum(f[1] for f in found) != self.n // 2:
            return None
        merged: list[dict[int, int]] = [{} for _ in range(self.d)]
        for f in found:
            for histogram, into in zip(f[2:], merged, strict=True):
                for key, count in dict(histogram or {}).items():
                    into[key] = into.get(key, 0) + count
        return merged

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
        """The sums within the radius, and in the same scan the rows beyond it: every row
        beyond is a group of its own (its row number), the rows within one group (``NULL``),
        which comes first; the rest of the cursor is :meth:`rows_beyond`'s."""
        self.progress.phase("the sums within the radius and the rows beyond it (DuckDB)")
        big, shift = offset_division(num, den)  # DuckDB's // truncates toward zero
        edge = _hugeint(within * within)
        parts = [f"sum((2 * w{i} * {num} + {den + shift * big}) // {big})" for i in range(self.d)]
        rows = ", ".join(f"any_value(k{i})" for i in range(self.d))
        sql = (
            f"SELECT CASE WHEN s <= {edge} THEN NULL ELSE r END AS g, count(*), "
            f"{', '.join(parts)}, any_value(s), {rows} FROM {self._scaled(centre, scales, True)} "
            f"GROUP BY g ORDER BY g NULLS FIRST"
        )
        cursor = query(self.source, sql, self.wanted)
        first = cursor.fetchone()
        beyond: list[Any] = []
        if first is None or first[0] is not None:  # no row within the radius
            kept, sums = 0, [0] * self.d
            beyond = [] if first is None else [first]
        else:
            kept, sums = int(first[1]), [int(x) for x in first[2 : 2 + self.d]]
        self._pending = ((tuple(centre), tuple(scales), within), cursor, beyond)
        return [x - shift * kept for x in sums]

    def rows_beyond(
        self, centre: Sequence[int], scales: Sequence[int], within: int
    ) -> Iterator[tuple[np.ndarray, list[int]]]:
        key, cursor, first = self._pending or (None, None, [])
        self._pending = None
        if key != (tuple(centre), tuple(scales), within) or cursor is None:
            yield from self._rows_beyond_alone(centre, scales, within)
            return
        self.progress.phase("the rows beyond the radius (DuckDB)")
        at = 2 + self.d  # after g, count(*) and the sums: s, then the row
        batch = first + cursor.fetchmany(FETCH_ROWS)
        while batch:
            block = np.array([row[at + 1 :] for row in batch], dtype=np.int64)
            yield block.reshape(len(batch), self.d), [ceil_sqrt(int(row[at])) for row in batch]
            batch = cursor.fetchmany(FETCH_ROWS)

    def _rows_beyond_alone(
        self, centre: Sequence[int], scales: Sequence[int], within: int
    ) -> Iterator[tuple[np.ndarray, list[int]]]:
        """The rows beyond the radius, asked without the sums first (a scan of their own)."""
        self.progress.phase("reading the rows beyond the radius (DuckDB)")
        names = ", ".join(f"k{i}" for i in range(self.d))
        rows = self._scaled(centre, scales)
        sql = f"SELECT s, {names} FROM {rows} WHERE s > {_hugeint(within * within)}"
        cursor = query(self.source, sql, self.wanted)
        while batch := cursor.fetchmany(FETCH_ROWS):
            block = np.array([row[1:] for row in batch], dtype=np.int64).reshape(len(batch), self.d)
            yield block, [ceil_sqrt(int(row[0])) for row in batch]
