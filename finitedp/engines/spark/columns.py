"""The column mechanisms' statistics of a Spark DataFrame (sums and counts), and files read.

Paper: Lebeda thesis Ch. 4 and Alg 17's PRIVQUANTILE (what is counted:
:mod:`finitedp.statistics`).

* **integer columns** (``byte``, ``short``, ``int``, ``long``) are mapped to their grid in
  Spark with ``decimal(38, 0)`` arithmetic, exact: for ``lower = a/b`` and ``step = p/q``
  a value ``v`` has ``t = (v b - a) q`` and index ``t / (b p)``; the constants' sizes
  are checked first so that no value and no sum of ``n < 2^63`` of them can overflow,
  otherwise the text path is taken;
* **every other column** is grouped by its text (``cast(... as string)``), and each
  distinct text is read exactly on the driver (``3``, ``-2.5``, ``7/4``; never a float).

The statistics are exact integers, so a release from them is byte for byte the release
from DuckDB's (:mod:`finitedp.engines.duckdb.statistics`) or numpy's for the same draws.  A
floating-point column is read through the text Spark gives it (Java's spelling), which
may differ from DuckDB's: keep data exact (integers, decimals or text) for identical
releases everywhere.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from ...errors import ParameterError
from ...io.missing import DROPPED
from ...io.numeric import IntegerGrid, NumericColumn
from ...io.tables import CSV_NULL, InputFile, check_csv_text
from ...selection.grid import Grid
from ...statistics import GridCounts
from .session import spark_refusal, spark_session

__all__ = ["CSV_NULL", "SparkStatistics", "read_frame", "spark_refusal", "spark_session"]

#: Spark's integer types, by their ``simpleString``: read as integers in Spark.
INTEGER_TYPES = {"tinyint": 8, "smallint": 16, "int": 32, "bigint": 64}

#: ``decimal(38, 0)`` holds every integer below ``10^38``.
DECIMAL_LIMIT = 10**38


def _column(spec: NumericColumn | Sequence[object]) -> NumericColumn:
    if isinstance(spec, NumericColumn):
        return spec
    name, lower, upper, step = spec
    grid = Grid(lower, upper, step)  # its own checks: exact values, a whole number of steps
    return NumericColumn(str(name), grid.lower, grid.upper, grid.step)


def _ref(name: str) -> Any:
    """The column named ``name``, literally (a dot or a backtick in it is not syntax)."""
    from pyspark.sql import functions as f

    return f.col("`" + name.replace("`", "``") + "`")


def text_of(frame: Any, name: str) -> Any:
    """The column ``name`` as the text DuckDB reads: a binary column is decoded as strict
    UTF-8 (a value that is not is refused while the job runs, as DuckDB's ``decode``
    refuses it; Spark's cast would pass the bytes through), any other is cast."""
    from pyspark.sql import functions as f

    column = _ref(name)
    if frame.schema[name].dataType.simpleString() != "binary":
        return column.cast("string")
    text = f.decode(column, "UTF-8")
    return f.when(column.isNull() | (f.encode(text, "UTF-8") == column), text).otherwise(
        f.raise_error(f.lit(f"column {name!r} holds bytes that are not UTF-8 text"))
    )


class _IntegerGrid:
    """A column's grid as ``decimal(38, 0)`` expressions over an integer column."""

    def __init__(self, column: NumericColumn, name: str, clamp: bool) -> None:
        from pyspark.sql import functions as f

        self.name, self.map = name, IntegerGrid(column, clamp)
        a, b = column.lower.numerator, column.lower.denominator
        p, q = column.step.numerator, column.step.denominator
        self.den, self.top = b * p, column.units * b * p

        def lit(x: int) -> Any:
            return f.lit(x).cast("decimal(38,0)")

        t = _ref(name).cast("decimal(38,0)") * lit(b * q) - lit(a * q)
        if clamp:
            t = f.least(f.greatest(t, lit(0)), lit(self.top))
        self.t = t
        self.valid = (
            _ref(name).isNotNull() & (t >= lit(0)) & (t <= lit(self.top)) & (t % lit(self.den) == 0)
        )

    def sum_parts(self, clamped: bool = False) -> list[Any]:
        """Aggregates that :meth:`sum_of` turns into ``(sum k, refused rows)``: where every
        integer is a grid point ``count``, ``sum``, ``min`` and ``max`` of ``v`` (with
        ``clamped``: ``sum`` and counts over ``[low, high]``) in the column's type, no
        decimal per row; else ``sum t`` and the refused rows in ``decimal(38, 0)``."""
        from pyspark.sql import functions as f

        v, m = _ref(self.name), self.map
        if m.every_integer:
            wide = max(abs(m.low), abs(m.high)) >= 1 << 20  # long sums exact below 2^43 rows
            value = v.cast("decimal(38,0)") if wide else v.cast("long")
            if not clamped:
                return [f.count(v), f.sum(value), f.min(v), f.max(v)]
            inside = (v >= f.lit(m.low)) & (v <= f.lit(m.high))
            return [
                f.count(v),
                f.sum(f.when(inside, value)),
                f.count(f.when(inside, 1)),
                f.count(f.when(v > f.lit(m.high), 1)),
            ]
        return [
            f.count(f.lit(1)),
            f.sum(f.when(self.valid, self.t).otherwise(0)),
            f.count(f.when(~self.valid, 1)),
            f.lit(0),
        ]

    def sum_of(self, n: int, found: Sequence[Any], clamped: bool = False) -> tuple[int, int] | None:
        """``(sum k, refused rows)`` from :meth:`sum_parts`' values over ``n`` rows, or
        ``None`` where values beyond the bounds are to be clamped (ask ``clamped`` parts)."""
        m = self.map
        if m.every_integer and n >= 1 << 43 and max(abs(m.low), abs(m.high)) < 1 << 20:
            raise ParameterError(  # pragma: no cover - 8.8e12 rows
                f"column {m.column.name!r}: {n} rows could pass a long sum; at most 2^43"
            )
        if m.every_integer:
            return m.sums_from(n, found, clamped)
        return int(found[1] or 0) // self.den, int(found[2])

    @staticmethod
    def fits(column: NumericColumn, bits: int) -> bool:
        """Whether every ``t`` and every sum of fewer than ``2^63`` of them stays in 38 digits."""
        a, b = column.lower.numerator, column.lower.denominator
        p, q = column.step.numerator, column.step.denominator
        largest = (1 << bits) * b * q + abs(a) * q
        return largest < DECIMAL_LIMIT and column.units * b * p << 63 < DECIMAL_LIMIT


class SparkStatistics:
    """:class:`~finitedp.statistics.ColumnStatistics` of a PySpark DataFrame's columns.

    Args:
        frame: a ``pyspark.sql.DataFrame``.
        columns: each column's ``(name, lower, upper, step)`` (or a
            :class:`~finitedp.io.numeric.NumericColumn`).
        clamp: values outside a column's bounds are moved to them first.

    Raises:
        ParameterError: a column the DataFrame lacks, or a grid refused.
    """

    def __init__(
        self,
        frame: Any,
        columns: Sequence[NumericColumn | Sequence[object]],
        clamp: bool = False,
    ) -> None:
        self.frame, self.clamp = frame, clamp
        self.columns = [_column(c) for c in columns]
        types = dict(frame.dtypes)
        self.grids: list[_IntegerGrid | None] = []
        for column in self.columns:
            if column.name not in types:
                raise ParameterError(
                    f"--columns: the DataFrame has no column {column.name!r} ({frame.columns})"
                )
            bits = INTEGER_TYPES.get(types[column.name])
            typed = bits is not None and _IntegerGrid.fits(column, bits)
            self.grids.append(_IntegerGrid(column, column.name, clamp) if typed else None)
        self._n: int | None = None
        self._sums: list[int] | None = None
        self._raw: list[dict[int | None, int]] | None = None

    @property
    def n(self) -> int:
        if self._n is None:
            self._n = int(self.frame.count())
        return self._n

    @property
    def d(self) -> int:
        return len(self.columns)

    def column_sums(self) -> list[int]:
        from pyspark.sql import functions as f

        if self._sums is not None:
            return list(self._sums)
        parts = [f.count(f.lit(1))]
        for grid in self.grids:
            if grid is not None:
                parts += grid.sum_parts()
        found = self.frame.agg(*parts).first()
        self._n = n = int(found[0])
        sums, at = [], 1
        for i, grid in enumerate(self.grids):
            if grid is None:
                sums.append(sum(k * c for k, c in self._text_pairs(i).items()))
                continue
            got = grid.sum_of(n, found[at : at + 4])
            at += 4
            if got is None:  # clamp and values beyond the bounds: a second, filtered pass
                got = grid.sum_of(n, self.frame.agg(*grid.sum_parts(True)).first(), True)
                assert got is not None
            total, bad = got
            if bad:
                raise self._refused(i, grid)
            sums.append(total)
        self._sums = sums
        return list(sums)

    def column_counts(self, i: int) -> GridCounts:
        column, grid = self.columns[i], self.grids[i]
        if column.units >= 1 << 62:
            raise ParameterError(
                f"--bounds: column {column.name!r} has a grid of about "
                f"2^{column.units.bit_length()} points; at most 2^62 for a mechanism that "
                f"counts each column's values"
            )
        if grid is None:
            return GridCounts.from_pairs(self._text_pairs(i).items())
        raw = self._raw_counts()
        pairs = []  # the raw integers grouped in their own type, each distinct one mapped here
        found = (
            raw[i].items()
            if raw is not None
            else self.frame.groupBy(_ref(grid.name)).count().toLocalIterator()
        )
        for v, count in found:
            k = None if v is None else grid.map.index(int(v))
            if k is None:
                raise self._refused(i, grid)
            pairs.append((k, int(count)))
        return GridCounts.from_pairs(pairs)

    def _raw_counts(self) -> list[dict[int | None, int]] | None:
        """Every column's count of each raw integer, from one job (the columns stacked as
        ``(i, v)`` pairs, then one ``groupBy``), kept; ``None`` unless every column is an
        integer one.  The counts need no noisy answer in between, so one job serves all."""
        from pyspark.sql import functions as f

        if self._raw is not None or any(g is None for g in self.grids):
            return self._raw
        pairs = [
            f.struct(f.lit(i).alias("i"), _ref(g.name).cast("long").alias("v"))
            for i, g in enumerate(self.grids)
            if g is not None
        ]
        stacked = self.frame.select(f.explode(f.array(*pairs)).alias("p")).select("p.i", "p.v")
        raw: list[dict[int | None, int]] = [{} for _ in self.grids]
        for i, v, count in stacked.groupBy("i", "v").count().toLocalIterator():
            raw[int(i)][None if v is None else int(v)] = int(count)
        self._raw = raw
        self._n = sum(raw[0].values())
        return raw

    def _refused(self, i: int, grid: _IntegerGrid) -> ParameterError:
        """A refused value of an integer column, shown (Spark rows have no line numbers)."""
        column = self.columns[i]
        row = self.frame.filter(~grid.valid).select(_ref(column.name)).first()
        if row is None:  # pragma: no cover - the aggregate counted a refused row
            return ParameterError(f"column {column.name!r}: a value was refused")
        (value,) = row
        if value is None:
            return ParameterError(f"column {column.name!r}: a row has no value (null)")
        try:
            column.index(str(value), "Spark", self.clamp)
        except ParameterError as error:
            return error
        return ParameterError(f"column {column.name!r}: value {value} refused")  # pragma: no cover

    def _text_pairs(self, i: int) -> dict[int, int]:
        """Column ``i``'s count of each grid index, from its distinct texts, read exactly."""
        merged: dict[int, int] = {}
        for _, k, count in self._text_indices(i):
            merged[k] = merged.get(k, 0) + count
        return merged

    def _text_indices(self, i: int) -> list[tuple[str, int, int]]:
        """Column ``i``'s distinct texts, each with its grid index and count (read exactly)."""
        column = self.columns[i]
        text = text_of(self.frame, column.name).alias("v")
        out = []
        for value, count in self.frame.groupBy(text).count().toLocalIterator():
            if value is None:
                raise ParameterError(f"column {column.name!r}: {count} rows have no value (null)")
            if value == DROPPED:  # --nulls drop: left out of the column's counts
                continue
            out.append((str(value), column.index(str(value), "Spark", self.clamp), int(count)))
        return out


def read_frame(source: InputFile) -> Any:
    """The DataFrame ``spark.read`` makes of a CSV (header row, every field a string) or
    Parquet file, in :func:`spark_session`.

    A CSV file is read in DuckDB's dialect (:func:`finitedp.io.tables.csv_relation`),
    RFC 4180: a doubled quote inside quotes is one quote (``escape='"'``; Spark's default
    escape is ``\\``), a quoted field may hold line breaks (``multiLine``: one task reads
    the file), a row with more or fewer fields than the header is refused
    (``FAILFAST``, where Spark would pad or cut it; see :func:`spark_refusal`), an empty
    field, quoted or not, is the empty string, and bytes that are not UTF-8 or a quote
    never closed are refused before Spark reads (it would replace or swallow them).
    For the ragged rows every field is parsed: this sets the session's
    ``spark.sql.csv.parser.columnPruning.enabled`` to ``false``.

    Raises:
        ParameterError: pyspark is not installed, a text file (``--format text``), or a
            CSV file that is not UTF-8 or leaves a quote open (its line named).
    """
    # Absolute: the JVM resolves a relative path against its own start-up folder.
    kind, path = source.kind, os.path.abspath(source.path)
    if kind not in ("csv", "parquet"):
        raise ParameterError(f"--engine spark: reads CSV and Parquet files, not --format {kind}")
    if kind == "csv":
        check_csv_text(source)
    session = spark_session()
    reader = session.read
    if kind == "parquet":
        return _filled(reader.parquet(path), source, csv=False)
    # With column pruning (the default) Spark parses only the columns a job selects and
    # lets a ragged row through; every field is parsed, as DuckDB's reader does.
    session.conf.set("spark.sql.csv.parser.columnPruning.enabled", "false")
    frame = reader.csv(
        path,
        header=True,
        inferSchema=False,
        enforceSchema=False,
        mode="FAILFAST",
        quote='"',
        escape='"',
        multiLine=True,
        encoding="UTF-8",
        ignoreLeadingWhiteSpace=False,
        ignoreTrailingWhiteSpace=False,
        nullValue=CSV_NULL,
    )
    # An unquoted empty field is still a null to Spark; FAILFAST leaves it the only one.
    return _filled(frame.na.fill(""), source, csv=True)


def _filled(frame: Any, source: InputFile, csv: bool) -> Any:
    """``frame`` with each declared replacement read for a missing value (a NULL; in a CSV
    file an empty field), as DuckDB's relation reads it (:mod:`finitedp.io.missing`)."""
    from pyspark.sql import functions as f

    for name, value in source.missing:
        if name not in frame.columns:
            continue  # the caller names the missing column
        text = text_of(frame, name)
        missing = (text == "") if csv else text.isNull()
        frame = frame.withColumn(name, f.when(missing, f.lit(value)).otherwise(text))
    return frame
