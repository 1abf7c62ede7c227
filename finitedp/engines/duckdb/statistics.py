"""The column mechanisms' statistics of a CSV or Parquet file, computed inside DuckDB.

A vector sum needs each column's sum in grid units, a quantile each column's counts
on its grid (:mod:`finitedp.statistics`).  DuckDB computes both where the data lies,
streaming: memory follows the number of distinct values of a column, never ``n``.

* **Integer Parquet columns.**  For ``lower = a/b`` and ``step = p/q`` a value ``v`` has
  index ``(v b - a) q / (b p)``, linear in ``v``
  (:class:`~finitedp.io.numeric.IntegerGrid`).  Where every integer is a grid point, a
  sum needs only ``count``, ``sum``, ``min`` and ``max`` of ``v`` in the column's own
  type (a second, filtered pass only to clamp), and counts are ``GROUP BY v`` with each
  distinct value mapped here.  Other grids are mapped in SQL with 128-bit integers
  (``HUGEINT``, which raises on overflow and never wraps); the constants' sizes are
  checked first, so no value of the column's type can overflow, else the text path is
  taken.
* **Every other column** (CSV fields, Parquet text, decimals, floats as their text) is
  counted by its distinct texts with ``GROUP BY``, and each distinct text is read
  exactly by :meth:`~finitedp.io.numeric.NumericColumn.index` (``3``, ``-2.5``, ``7/4``).

Both paths give the statistics that the rows would give one by one.  When a value is
refused (empty, off the grid, out of bounds, not a number), the file is read again by
the row reader of :mod:`finitedp.io.numeric`, only to name the row or line as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...errors import ParameterError
from ...io.files import header_positions
from ...io.missing import DROPPED
from ...io.numeric import IntegerGrid, NumericColumn, check_rows
from ...io.progress import Progress
from ...io.tables import InputFile, connect, query, relation
from ...resources import require_memory
from ...statistics import GridCounts

__all__ = ["DuckDBStatistics", "check_points"]

#: Parquet types whose values are read as integers in SQL.
INTEGER_TYPES = {
    "TINYINT": 8,
    "SMALLINT": 16,
    "INTEGER": 32,
    "BIGINT": 64,
    "UTINYINT": 8,
    "USMALLINT": 16,
    "UINTEGER": 32,
    "UBIGINT": 64,
}

#: Distinct values fetched at a time from a ``GROUP BY``.
FETCH_ROWS = 1 << 16


def _hugeint(value: int) -> str:
    return f"CAST('{value}' AS HUGEINT)"


def check_points(column: NumericColumn) -> None:
    """Refuse a grid of ``2^62`` points or more: its indices and counts are ``int64``."""
    if column.units >= 1 << 62:
        raise ParameterError(
            f"--bounds: column {column.name!r} has a grid of about "
            f"2^{column.units.bit_length()} points (--bounds and --grid); at most 2^62 "
            f"for a mechanism that counts each column's values"
        )


class _IntegerGrid:
    """A column's grid as SQL over an integer column of at most ``bits`` bits."""

    def __init__(self, column: NumericColumn, expression: str, clamp: bool) -> None:
        self.name, self.map = expression, IntegerGrid(column, clamp)
        a, b = column.lower.numerator, column.lower.denominator
        p, q = column.step.numerator, column.step.denominator
        self.den = b * p
        self.top = column.units * self.den
        t = f"(CAST({expression} AS HUGEINT) * {_hugeint(b * q)} - {_hugeint(a * q)})"
        if clamp:  # clamped to [lower, upper], then checked on the grid
            t = f"least(greatest({t}, 0), {_hugeint(self.top)})"
        self.t = t
        self.valid = f"({expression} IS NOT NULL AND {t} >= 0 AND {t} <= {_hugeint(self.top)} "
        self.valid += f"AND {t} % {_hugeint(self.den)} = 0)"
        self.index = f"({t} // {_hugeint(self.den)})"

    def sum_parts(self, clamped: bool = False) -> list[str]:
        """SQL aggregates whose values :meth:`sum_of` turns into ``(sum k, refused rows)``.

        Where every integer is a grid point: ``count``, ``sum``, ``min`` and ``max`` of
        ``v`` in the column's own type (no 128-bit arithmetic per row), or with
        ``clamped`` (values beyond the bounds, to be clamped) ``sum`` and counts over
        ``[low, high]``; else ``sum k`` and the refused rows in ``HUGEINT``.
        """
        v, m = self.name, self.map
        if m.every_integer and clamped:
            inside = f"{v} BETWEEN {m.low} AND {m.high}"
            return [
                f"count({v})",
                f"sum({v}) FILTER (WHERE {inside})",
                f"count({v}) FILTER (WHERE {inside})",
                f"count({v}) FILTER (WHERE {v} > {m.high})",
            ]
        if m.every_integer:
            return [f"count({v})", f"sum({v})", f"min({v})", f"max({v})"]
        return [
            "count(*)",
            f"sum(CASE WHEN {self.valid} THEN {self.index} ELSE 0 END)",
            f"count(*) FILTER (WHERE NOT {self.valid})",
            "0",
        ]

    def sum_of(self, n: int, found: Sequence[Any], clamped: bool = False) -> tuple[int, int] | None:
        """``(sum k, refused rows)`` from :meth:`sum_parts`' values over ``n`` rows, or
        ``None`` where values beyond the bounds are to be clamped (ask ``clamped`` parts)."""
        m = self.map
        if m.every_integer:
            return m.sums_from(n, found, clamped)
        return int(found[1] or 0), int(found[2])

    @staticmethod
    def fits(column: NumericColumn, bits: int) -> bool:
        """Whether ``|v b q| + |a q|`` and ``D b p`` stay below 2^126 for every ``v``."""
        a, b = column.lower.numerator, column.lower.denominator
        p, q = column.step.numerator, column.step.denominator
        largest = (1 << bits) * b * q + abs(a) * q
        return max(largest, column.units * b * p) < 1 << 126


class DuckDBStatistics:
    """:class:`~finitedp.statistics.ColumnStatistics` of the declared columns of a file.

    Args:
        source: a CSV or Parquet file (:func:`~finitedp.io.tables.opened_input`).
        columns: the declared columns and their grids.
        progress: stderr's progress (one phase per query).
        clamp: values outside a column's bounds are moved to them first (``--clamp``).

    Raises:
        ParameterError: a text file, or a column absent from the file.
    """

    def __init__(
        self,
        source: InputFile,
        columns: Sequence[NumericColumn],
        progress: Progress,
        clamp: bool = False,
    ) -> None:
        if source.kind == "text":
            raise ParameterError(f"{source.name}: numeric columns need a CSV or Parquet file")
        self.source, self.columns, self.progress, self.clamp = source, columns, progress, clamp
        self.wanted = tuple((c.name, "--columns") for c in columns)
        self.where, *self.texts = relation(source, self.wanted)
        self.grids: list[_IntegerGrid | None] = [None] * len(columns)
        if source.kind == "parquet":
            described = connect().execute(f"DESCRIBE SELECT * FROM {self.where}").fetchall()
            header = [row[0] for row in described]
            positions = header_positions(header, self.wanted, source.name, "Parquet")
            filled = {name for name, _ in source.missing}  # read through their texts
            for i, (column, at) in enumerate(zip(columns, positions, strict=True)):
                bits = INTEGER_TYPES.get(str(described[at][1]))
                if (
                    bits is not None
                    and column.name not in filled
                    and _IntegerGrid.fits(column, bits)
                ):
                    name = '"' + header[at].replace('"', '""') + '"'
                    self.grids[i] = _IntegerGrid(column, name, clamp)
        self._n: int | None = None
        self._sums: list[int] | None = None

    @property
    def n(self) -> int:
        if self._n is None:
            self.progress.phase(f"counting the rows of {self.source.name}")
            sql = f"SELECT count(*) FROM {self.where}"
            self._n = int(query(self.source, sql, self.wanted).fetchone()[0])
        return self._n

    @property
    def d(self) -> int:
        return len(self.columns)

    def _refused(self, cause: ParameterError | None = None) -> ParameterError:
        """The row reader's refusal, naming the row or line (the error path only)."""
        try:
            check_rows(self.source, self.columns, self.progress, self.clamp)
        except ParameterError as error:
            return error
        return cause or ParameterError(
            f"{self.source.name}: a value of the columns was refused, but reading the rows "
            "again found none"
        )

    def column_sums(self) -> list[int]:
        if self._sums is not None:
            return list(self._sums)
        self.progress.phase(f"summing {self.d} columns of {self.source.name} (DuckDB)")
        parts = ["count(*)"]
        for grid in self.grids:
            if grid is not None:
                parts += grid.sum_parts()
        row = query(self.source, f"SELECT {', '.join(parts)} FROM {self.where}", self.wanted)
        found = row.fetchone()
        self._n = n = int(found[0])
        sums: list[int] = []
        at = 1
        for i, grid in enumerate(self.grids):
            if grid is None:
                sums.append(sum(k * c for k, c in self._text_pairs(i).items()))
                continue
            got = grid.sum_of(n, found[at : at + 4])
            at += 4
            if got is None:  # --clamp and values beyond the bounds: a second, filtered pass
                sql = f"SELECT {', '.join(grid.sum_parts(True))} FROM {self.where}"
                again = query(self.source, sql, self.wanted).fetchone()
                got = grid.sum_of(n, again, True)
                assert got is not None
            total, bad = got
            if bad:
                raise self._refused()
            sums.append(total)
        self._sums = sums
        return list(sums)

    def column_counts(self, i: int) -> GridCounts:
        check_points(self.columns[i])
        grid = self.grids[i]
        if grid is None:
            return GridCounts.from_pairs(self._text_pairs(i).items())
        self.progress.phase(f"counting column {self.columns[i].name!r} (DuckDB)")
        # the raw integers, grouped in their own type; each distinct one mapped here
        sql = f"SELECT {grid.name}, count(*) FROM {self.where} GROUP BY {grid.name}"
        pairs = []
        for v, count in self._fetch(sql, i):
            k = None if v is None else grid.map.index(int(v))
            if k is None:
                raise self._refused()
            pairs.append((k, int(count)))
        return GridCounts.from_pairs(pairs)

    def _fetch(self, sql: str, i: int) -> list[tuple[Any, int]]:
        """The rows of a ``GROUP BY``, within the memory limit (a value and a count each)."""
        cursor = query(self.source, sql, self.wanted)
        out: list[tuple[Any, int]] = []
        while batch := cursor.fetchmany(FETCH_ROWS):
            out += batch
            require_memory(
                200 * len(out),
                f"the distinct values of column {self.columns[i].name!r}",
                f"{len(out):,} so far",
            )
        return out

    def _text_pairs(self, i: int) -> dict[int, int]:
        """Column ``i``'s count of each grid index, from its distinct texts, each read exactly."""
        merged: dict[int, int] = {}
        for _, k, count in self._text_indices(i):
            merged[k] = merged.get(k, 0) + count
        return merged

    def _text_indices(self, i: int) -> list[tuple[str, int, int]]:
        """Column ``i``'s distinct texts, each with its grid index (read exactly) and count."""
        column = self.columns[i]
        self.progress.phase(f"counting the values of column {column.name!r} (DuckDB)")
        sql = f"SELECT v, count(*) FROM (SELECT {self.texts[i]} AS v FROM {self.where}) GROUP BY v"
        out = []
        for text, count in self._fetch(sql, i):
            if text is None:
                raise self._refused()
            if text == DROPPED:  # --nulls drop: left out of the column's counts
                continue
            try:
                k = column.index(str(text), self.source.name, self.clamp)
            except ParameterError as error:
                raise self._refused(error) from None
            out.append((str(text), k, int(count)))
        return out
