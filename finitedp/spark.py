"""Every user-level mechanism on Spark: the executors compute statistics, the driver draws noise.

Needs the optional extra ``finitedp[spark]``.  Histograms take :func:`spark_counts`,
the streaming heavy hitters :func:`spark_sketch`, and the column mechanisms (vector
sums, quantiles) :class:`SparkStatistics`, the
:class:`~finitedp.statistics.ColumnStatistics` of a DataFrame's numeric columns:

* **integer columns** (``byte``, ``short``, ``int``, ``long``) are mapped to their grid in
  Spark with ``decimal(38, 0)`` arithmetic, exact: for ``lower = a/b`` and ``step = p/q``
  a value ``v`` has ``t = (v b - a) q`` and index ``t / (b p)``; the constants' sizes
  are checked first so that no value and no sum of ``n < 2^63`` of them can overflow,
  otherwise the text path is taken;
* **every other column** is grouped by its text (``cast(... as string)``), and each
  distinct text is read exactly on the driver (``3``, ``-2.5``, ``7/4``; never a float).

The statistics are exact integers, so a release from them is byte for byte the release
from DuckDB's (:mod:`finitedp.io.duckstats`) or numpy's for the same draws.  A
floating-point column is read through the text Spark gives it (Java's spelling), which
may differ from DuckDB's: keep data exact (integers, decimals or text) for identical
releases everywhere.

>>> # stats = SparkStatistics(frame, [("a", -1, 1, "1/100"), ("b", 0, 10, 1)])
>>> # ParallelotopeLaplace(grids, stats.n, 1).release_sums(stats.column_sums())
>>> # ColumnQuantiles("exponential", columns, stats.n, 1, "1/2").release_from(stats)
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from .errors import ParameterError
from .histograms.spark import spark_counts
from .io.numeric import IntegerGrid, NumericColumn
from .io.tables import InputFile
from .io.universe import Universe
from .selection.grid import Grid
from .sketches.spark import spark_sketch
from .statistics import GridCounts

__all__ = [
    "SparkRows",
    "SparkStatistics",
    "file_counts",
    "read_frame",
    "spark_counts",
    "spark_sketch",
]

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
        pairs = []  # the raw integers grouped in their own type, each distinct one mapped here
        for v, count in self.frame.groupBy(_ref(grid.name)).count().toLocalIterator():
            k = None if v is None else grid.map.index(int(v))
            if k is None:
                raise self._refused(i, grid)
            pairs.append((k, int(count)))
        return GridCounts.from_pairs(pairs)

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

        column = self.columns[i]
        text = _ref(column.name).cast("string").alias("v")
        merged: dict[int, int] = {}
        for value, count in self.frame.groupBy(text).count().toLocalIterator():
            if value is None:
                raise ParameterError(f"column {column.name!r}: {count} rows have no value (null)")
            k = column.index(str(value), "Spark", self.clamp)
            merged[k] = merged.get(k, 0) + int(count)
        return merged


#: The most radii a norm's level is searched among (a ``CASE`` tree in Spark SQL).
MAX_RADII = 4096

#: ``monotonically_increasing_id`` puts the partition above this many bits of position.
PARTITION_SHIFT = 33


def _tree(x: str, bounds: Sequence[str], low: int, high: int) -> str:
    """Spark SQL for the least ``k`` in ``[low, high]`` with ``x <= bounds[k]`` (else ``high``)."""
    if low == high:
        return str(low)
    mid = (low + high) // 2
    below, above = _tree(x, bounds, low, mid), _tree(x, bounds, mid + 1, high)
    return f"CASE WHEN {x} <= {bounds[mid]} THEN {below} ELSE {above} END"


def _wide(value: int) -> str:
    return f"CAST('{value}' AS DECIMAL(38,0))"


class SparkRows(SparkStatistics):
    """:class:`~finitedp.statistics.RowStatistics` of a DataFrame's integer columns (PLAN).

    The rows' order is the DataFrame's: partition by partition, each in its order (what
    ``zipWithIndex`` numbers; a file ``spark.read`` reads is in file order).  Each row's
    number is its partition's offset plus its position (``monotonically_increasing_id``),
    the offsets counted on the driver first; the pairs ``(2j, 2j + 1)`` are grouped by
    ``j``.  Indices and scaled rows are ``long`` (``|w| < 2^40``), squared norms and sums
    ``decimal(38, 0)``: exact, so the answers are numpy's and DuckDB's.

    Raises:
        ParameterError: a column that is not an integer column whose every integer is a
            grid point (:func:`spark_rows` says which frames qualify).
    """

    def __init__(
        self,
        frame: Any,
        columns: Sequence[NumericColumn | Sequence[object]],
        clamp: bool = False,
    ) -> None:
        super().__init__(frame, columns, clamp)
        self.index: list[str] = []
        for column, grid in zip(self.columns, self.grids, strict=True):
            m = None if grid is None else grid.map
            if m is None or not m.every_integer or max(abs(m.low), abs(m.high)) >= 1 << 40:
                raise ParameterError(
                    f"--engine spark: plan-mean reads integer columns whose every integer is "
                    f"a grid point; column {column.name!r} is not one"
                )
            a, b = column.lower.numerator, column.lower.denominator
            p, q = column.step.numerator, column.step.denominator
            name = "`" + column.name.replace("`", "``") + "`"
            v = f"least(greatest({name}, {m.low}), {m.high})" if clamp else name
            self.index.append(
                f"(CAST({v} AS BIGINT) * {(b * q) // (b * p)} - {(a * q) // (b * p)})"
            )
        self._counts: list[GridCounts] | None = None

    def _check(self) -> list[GridCounts]:
        """Each column's counts, kept: every value checked before any row statistic."""
        if self._counts is None:
            self._counts = [SparkStatistics.column_counts(self, i) for i in range(self.d)]
            self._n = self._counts[0].n
            self._sums = [c.total() for c in self._counts]
        return self._counts

    def column_counts(self, i: int) -> GridCounts:
        return self._check()[i]

    def column_sums(self) -> list[int]:
        self._check()
        assert self._sums is not None
        return list(self._sums)

    def _indices(self) -> Any:
        """The frame of ``k0, ...``."""
        self._check()
        return self.frame.selectExpr(*(f"{e} AS k{i}" for i, e in enumerate(self.index)))

    def _numbered(self) -> Any:
        """The frame of ``k0, ...`` and ``r``, each row's number in the DataFrame's order."""
        from pyspark.sql import functions as f

        tagged = self._indices().select(
            "*", f.spark_partition_id().alias("_p"), f.monotonically_increasing_id().alias("_m")
        )
        sizes = dict(tagged.groupBy("_p").count().collect())
        offsets, total = [], 0
        for part in sorted(sizes):
            offsets.append((part, total))
            total += int(sizes[part])
        table = self.frame.sparkSession.createDataFrame(offsets, "_p int, _o long")
        return tagged.join(f.broadcast(table), "_p").selectExpr(
            "*", f"_o + (_m - (CAST(_p AS BIGINT) << {PARTITION_SHIFT})) AS r"
        )

    def gap_counts(self, levels: Sequence[int]) -> list[GridCounts]:
        from pyspark.sql import functions as f

        d, bounds = self.d, [str(t) for t in levels]
        pairs = self._numbered().groupBy(f.expr("r div 2").alias("j"))
        gaps = pairs.agg(
            *(f.expr(f"max(k{i}) - min(k{i})").alias(f"g{i}") for i in range(d)),
            f.expr("count(*)").alias("c"),
        ).filter("c = 2")
        raw = all(c.units < 1 << 20 for c in self.columns)  # gaps counted raw, levels here
        level = [f"g{i}" if raw else _tree(f"g{i}", bounds, 0, len(levels) - 1) for i in range(d)]
        stack = ", ".join(f"{i}, {e}" for i, e in enumerate(level))
        found = gaps.selectExpr(f"stack({d}, {stack}) AS (i, g)").groupBy("i", "g").count()
        merged: list[dict[int, int]] = [{} for _ in range(d)]
        top = np.asarray(levels, dtype=np.int64)
        for i, g, count in found.toLocalIterator():
            k = int(np.searchsorted(top, int(g))) if raw else int(g)
            merged[int(i)][k] = merged[int(i)].get(k, 0) + int(count)
        return [GridCounts.from_pairs(m.items()) for m in merged]

    def _scaled(self, centre: Sequence[int], scales: Sequence[int]) -> Any:
        """The frame of ``k0, ...`` and ``s = ||w||^2`` (``decimal(38, 0)``)."""
        w = [f"(k{i} - {m}) * {p}" for i, (m, p) in enumerate(zip(centre, scales, strict=True))]
        s = " + ".join(f"CAST({e} AS DECIMAL(38,0)) * CAST({e} AS DECIMAL(38,0))" for e in w)
        rows = self._indices().selectExpr("*", *(f"{e} AS w{i}" for i, e in enumerate(w)))
        return rows.selectExpr("*", f"CAST({s} AS DECIMAL(38,0)) AS s")

    def norm_counts(
        self, centre: Sequence[int], scales: Sequence[int], radii: Sequence[int]
    ) -> GridCounts:
        if len(radii) > MAX_RADII:
            raise ParameterError(
                f"clip_count: got {len(radii)} radii; at most {MAX_RADII} on Spark"
            )
        tree = _tree("s", [_wide(c * c) for c in radii], 0, len(radii) - 1)
        found = self._scaled(centre, scales).selectExpr(f"{tree} AS l").groupBy("l").count()
        return GridCounts.from_pairs((int(level), int(c)) for level, c in found.collect())

    def rounded_sums(
        self, centre: Sequence[int], scales: Sequence[int], num: int, den: int, within: int
    ) -> list[int]:
        big, top = 2 * den, (2 * num << 40) + den  # floor(t/D) as (t + M D) div D - M
        assert num > 0 and den > 0 and 4 * (top + big) < 1 << 63, (num, den)
        shift = top // big + 1
        parts = [
            f"sum(CAST((2 * w{i} * {num} + {den + shift * big}) div {big} AS DECIMAL(38,0)))"
            for i in range(self.d)
        ]
        rows = self._scaled(centre, scales).filter(f"s <= {_wide(within * within)}")
        found = rows.selectExpr("count(*)", *parts).first()
        kept = int(found[0])
        return [int(x or 0) - shift * kept for x in found[1:]]

    def rows_beyond(
        self, centre: Sequence[int], scales: Sequence[int], within: int
    ) -> Iterator[np.ndarray]:
        rows = self._scaled(centre, scales).filter(f"s > {_wide(within * within)}")
        block: list[list[int]] = []
        for row in rows.select(*(f"k{i}" for i in range(self.d))).toLocalIterator():
            block.append([int(x) for x in row])
            if len(block) == 1 << 14:
                yield np.array(block, dtype=np.int64)
                block = []
        if block:
            yield np.array(block, dtype=np.int64)


def read_frame(path: str, kind: str) -> Any:
    """The DataFrame ``spark.read`` makes of a CSV (header row, every field a string) or
    Parquet file, in the session ``SparkSession.builder`` gives (``local[*]`` unless a
    master is configured).

    Raises:
        ParameterError: pyspark is not installed, or a text file (``--format text``).
    """
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise ParameterError(
            "--engine spark: pyspark is not installed; pip install 'finitedp[spark]'"
        ) from None
    if kind not in ("csv", "parquet"):
        raise ParameterError(f"--engine spark: reads CSV and Parquet files, not --format {kind}")
    reader = SparkSession.builder.appName("finitedp").getOrCreate().read
    if kind == "parquet":
        return reader.parquet(path)
    return reader.csv(path, header=True, inferSchema=False, enforceSchema=False)


def file_counts(
    source: InputFile, column: str | None, universe: Universe, in_order: bool = False
) -> tuple[int, dict[int, int]]:
    """``release --engine spark`` for a histogram: ``n`` and the counts of ``column``.

    Raises:
        ParameterError: ``in_order`` (a stream mechanism or a value column reads rows,
            through DuckDB), a file Spark does not read, or a value refused.
    """
    if in_order:
        raise ParameterError(
            "--engine spark: counts a column of keys for the histogram mechanisms; stream "
            "mechanisms and --value-column are read by DuckDB (leave --engine out)"
        )
    if column is None:
        raise ParameterError(f"--column: {source.name} is read by Spark; name the column to count")
    frame = read_frame(source.path, source.kind)
    return spark_counts(frame, column, universe.size, encode=universe.encode)
