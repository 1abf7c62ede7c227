"""PLAN's row statistics of a Spark DataFrame: :class:`SparkRows`.

Paper: Lebeda thesis Alg 17 (what is computed: :class:`~finitedp.statistics.RowStatistics`,
``proofs_notes/plan.md``).

* **Indices.** An integer column whose every integer is a grid point is mapped in Spark
  SQL (``v alpha - beta``, ``long``); any other column (CSV text, decimals) by a join with
  the table of its distinct texts and their indices, each text read exactly on the
  driver (:meth:`~finitedp.io.numeric.NumericColumn.index`), as its counts are.
* **Order.** The rows' order is the DataFrame's: partition by partition, each in its
  order (what ``zipWithIndex`` numbers; a file that ``spark.read`` reads is in file
  order).  Integer columns on grids of fewer than ``DENSE_POINTS`` points are summarised
  in one job (:func:`~.arrowtasks.summaries`): each partition's counts, its first and
  last rows and its gaps for pairs starting at even and at odd positions; the driver,
  from the partitions' sizes, takes each one's parity and pairs the rows across their
  edges.  Otherwise each row's number is its partition's offset plus its position
  (``monotonically_increasing_id``), the offsets counted on the driver first, before any
  join, and the pairs ``(2j, 2j + 1)`` are grouped by ``j``.
* **Arithmetic.** Indices and scaled rows are ``long`` (``|w| < 2^40``).  On the
  one-pass path the norms' levels, the sums within the radius and the rows beyond it
  are each one job of numpy in the executors (:mod:`.arrowtasks`: each squared norm as
  two 40-bit words, compared exactly; the rows beyond come with the sums, up to
  ``BEYOND_KEPT`` a partition).  Otherwise squared norms and sums are
  ``decimal(38, 0)``, a value's level among the public levels is counted by its digits'
  key joined with the levels that share it (:func:`_level_counts`), and floor division
  is by an offset (``div`` truncates).  Exact, so the answers are numpy's and DuckDB's.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from ...io.numeric import NumericColumn
from ...statistics import GridCounts, ceil_sqrt, norm_bounds, offset_division
from .arrowtasks import DENSE_POINTS, level_histograms, rows_beyond, summaries, within_sums
from .columns import SparkStatistics
from .session import map_in_arrow

__all__ = ["SparkRows"]

#: ``monotonically_increasing_id`` puts the partition above this many bits of position.
PARTITION_SHIFT = 33

#: Grids of fewer points have their gaps counted raw, then given their levels here.
RAW_GAPS = 1 << 20

#: Clipped rows handed over at a time.
BLOCK_ROWS = 1 << 14

#: Rows beyond the radius a partition hands over with the sums (more: a job of their own).
BEYOND_KEPT = 1 << 12


def _key(value: int) -> tuple[int, int]:
    """A non-negative integer's key: its number of decimal digits and its first three
    (increasing with the value; a key of at most three digits is one value)."""
    text = str(value)
    return len(text), int(text[:3])


def _key_low(key: tuple[int, int]) -> int:
    """The least integer with this key."""
    digits, lead = key
    return lead * int(10 ** max(0, digits - 3))


def _level_counts(frame: Any, value: str, bounds: Sequence[int], by: str | None) -> Any:
    """``[(by, key digits, key lead, inner, count), ...]``: ``value``'s counts (a
    non-negative integer column) by key and by how many of the ``bounds`` that share its
    key lie below it, from which :func:`_levels` gives each level ``#{b < value}``.

    A ``CASE`` tree over thousands of bounds is more than Spark's code generation takes;
    the key is an equality join with the few bounds of each key (exact: integers' digits
    and ``decimal(38, 0)`` comparisons).
    """
    from pyspark.sql import functions as f

    inner: dict[tuple[int, int], list[str]] = {}
    for b in bounds:
        inner.setdefault(_key(b), []).append(str(b))
    table = frame.sparkSession.createDataFrame(
        [(digits, lead, values) for (digits, lead), values in inner.items()],
        "kl int, kd int, inner array<string>",
    )
    text = f"CAST({value} AS STRING)"
    keyed = frame.selectExpr(
        *([by] if by else []),
        f"CAST({value} AS DECIMAL(38,0)) AS v",
        f"length({text}) AS kl",
        f"CAST(substring({text}, 1, 3) AS INT) AS kd",
    )
    below = (
        "CASE WHEN inner IS NULL THEN 0 ELSE "
        "size(filter(inner, b -> CAST(b AS DECIMAL(38,0)) < v)) END"
    )
    joined = keyed.join(f.broadcast(table), ["kl", "kd"], "left").selectExpr(
        *([by] if by else []), "kl", "kd", f"{below} AS below"
    )
    return joined.groupBy(*([by] if by else []), "kl", "kd", "below").count().collect()


def _level(bounds: Sequence[int], key: tuple[int, int], below: int) -> int:
    """``#{b < v}`` for a value of this key with ``below`` of its key's bounds under it."""
    return bisect_left(bounds, _key_low(key)) + below


def _wide(value: int) -> str:
    return f"CAST('{value}' AS DECIMAL(38,0))"


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


class SparkRows(SparkStatistics):
    """:class:`~finitedp.statistics.RowStatistics` of a PySpark DataFrame's columns (PLAN).

    Args:
        frame: a ``pyspark.sql.DataFrame``, its rows in the order PLAN pairs them.
        columns: each column's ``(name, lower, upper, step)`` (or a
            :class:`~finitedp.io.numeric.NumericColumn`).
        clamp: values outside a column's bounds are moved to them first.

    Every value is checked (with each column's counts, which the centre asks for too)
    before a row statistic is asked.

    Raises:
        ParameterError: a column the DataFrame lacks, or a grid refused.
    """

    def __init__(
        self,
        frame: Any,
        columns: Sequence[NumericColumn | Sequence[object]],
        clamp: bool = False,
    ) -> None:
        super().__init__(frame, columns, clamp)
        # each column: its index in Spark SQL, or None (a join with its texts' indices)
        self.index: list[str | None] = []
        for column, grid in zip(self.columns, self.grids, strict=True):
            m = None if grid is None else grid.map
            if m is None or not m.every_integer or max(abs(m.low), abs(m.high)) >= 1 << 40:
                self.index.append(None)
                continue
            a, b = column.lower.numerator, column.lower.denominator
            p, q = column.step.numerator, column.step.denominator
            name = _quoted(column.name)
            v = f"least(greatest({name}, {m.low}), {m.high})" if clamp else name
            alpha, beta = (b * q) // (b * p), (a * q) // (b * p)
            self.index.append(f"(CAST({v} AS BIGINT) * {alpha} - {beta})")
        self._counts: list[GridCounts] | None = None
        self._texts: dict[int, list[tuple[str, int, int]]] = {}
        #: each column's raw gap counts, from the one-pass summary (None: not taken)
        self._raw_gaps: list[dict[int, int]] | None = None
        #: the rows beyond the radius read with the sums: (centre, scales, within), blocks
        self._beyond: tuple[tuple[Any, ...], list[Any]] | None = None

    def _check(self) -> list[GridCounts]:
        """Each column's counts, kept: every value checked before any row statistic (a
        text column's distinct texts and their indices kept for the joins)."""
        if self._counts is None and self._summarise():
            assert self._counts is not None
        if self._counts is None:
            counts = []
            for i, rule in enumerate(self.index):
                if rule is not None:
                    counts.append(SparkStatistics.column_counts(self, i))
                    continue
                self._texts[i] = self._text_indices(i)
                merged: dict[int, int] = {}
                for _, k, c in self._texts[i]:
                    merged[k] = merged.get(k, 0) + c
                counts.append(GridCounts.from_pairs(merged.items()))
            self._counts = counts
            self._n = counts[0].n
            self._sums = [c.total() for c in counts]
        return self._counts

    def _summarise(self) -> bool:
        """Counts and raw gaps of every column in one job (:func:`~.arrowtasks.summaries`),
        when every column is an integer one mapped in place on a grid of at most
        ``DENSE_POINTS``;
        ``False`` (nothing kept) otherwise, or when a value is refused: the column-by-column
        path then names it."""
        import pickle

        units = [c.units for c in self.columns]
        if any(rule is None for rule in self.index) or max(units) >= DENSE_POINTS:
            return False
        job = self._in_arrow(summaries(units), "p int, blob binary")
        parts = sorted((int(p), pickle.loads(blob)) for p, blob in job.collect())
        if any(part[1] for _, part in parts):
            return False
        d, n = self.d, 0
        counts: list[dict[int, int]] = [{} for _ in range(d)]
        gaps: list[dict[int, int]] = [{} for _ in range(d)]
        pending: list[int] | None = None  # the last row of an even position, unpaired
        for _, (size, _, first, last, column_counts, sides) in parts:
            if not size:
                continue
            for i, (at, c) in enumerate(column_counts):
                for k, count in zip(at.tolist(), c.tolist(), strict=True):
                    counts[i][k] = counts[i].get(k, 0) + count
            if n % 2:  # this partition's first row closes the pair its predecessor opened
                assert pending is not None and first is not None
                for i in range(d):
                    g = abs(first[i] - pending[i])
                    gaps[i][g] = gaps[i].get(g, 0) + 1
            for i, (at, c) in enumerate(sides[n % 2]):
                for g, count in zip(at.tolist(), c.tolist(), strict=True):
                    gaps[i][g] = gaps[i].get(g, 0) + count
            n += size
            pending = last if n % 2 else None
        self._counts = [GridCounts.from_pairs(c.items()) for c in counts]
        self._raw_gaps = gaps
        self._n = n
        self._sums = [c.total() for c in self._counts]
        return True

    def _in_arrow(self, task: Any, schema: str) -> Any:
        """The frame of ``mapInArrow(task)`` over the indices ``k0, ...`` (every column an
        integer one mapped in place)."""
        rules = (f"{rule} AS k{i}" for i, rule in enumerate(self.index))
        return map_in_arrow(self.frame.selectExpr(*rules), task, schema)

    def _widest(self, centre: Sequence[int], scales: Sequence[int]) -> int:
        """The largest ``|w| = |(k - m) P|`` an index ``k`` in ``[0, units]`` can make."""
        pairs = zip(self.columns, centre, scales, strict=True)
        return max(max(abs(m), abs(c.units - m)) * abs(p) for c, m, p in pairs)

    @staticmethod
    def _norm_bounds(rows: np.ndarray, centre: Sequence[int], scales: Sequence[int]) -> list[int]:
        """Each row's ``ceil(||w||)`` (:func:`~finitedp.statistics.norm_bounds`)."""
        return norm_bounds((rows - np.asarray(centre, np.int64)) * np.asarray(scales, np.int64))

    def _norms_in_arrow(self, centre: Sequence[int], scales: Sequence[int], top: int) -> bool:
        """Whether the norms are taken in the executors (:func:`~.arrowtasks.norm_words`):
        the one-pass summary was (integer columns, small grids), ``|w| < 2^40``, and the
        largest square compared, ``top``, has a high word within ``int64``."""
        fits = self._widest(centre, scales) < 1 << 40 and top >> 40 < 1 << 62
        return self._raw_gaps is not None and fits

    def column_counts(self, i: int) -> GridCounts:
        return self._check()[i]

    def column_sums(self) -> list[int]:
        self._check()
        assert self._sums is not None
        return list(self._sums)

    def _tagged(self, numbered: bool) -> Any:
        """The frame of ``k0, ...`` (and with ``numbered`` each row's number ``r``)."""
        from pyspark.sql import functions as f

        self._check()
        parts = [
            f"{rule} AS k{i}"
            if rule is not None
            else f"CAST({_quoted(self.columns[i].name)} AS STRING) AS t{i}"
            for i, rule in enumerate(self.index)
        ]
        frame = self.frame.selectExpr(*parts)
        if numbered:  # before any join: a join moves rows between partitions
            frame = frame.select(
                "*", f.spark_partition_id().alias("_p"), f.monotonically_increasing_id().alias("_m")
            )
            sizes = dict(frame.groupBy("_p").count().collect())
            offsets, total = [], 0
            for part in sorted(sizes):
                offsets.append((part, total))
                total += int(sizes[part])
            table = self.frame.sparkSession.createDataFrame(offsets, "_p int, _o long")
            frame = frame.join(f.broadcast(table), "_p").selectExpr(
                *(c for c in frame.columns if c not in ("_p", "_m")),
                f"_o + (_m - (CAST(_p AS BIGINT) << {PARTITION_SHIFT})) AS r",
            )
        session = self.frame.sparkSession
        for i, texts in self._texts.items():
            table = session.createDataFrame(
                [(t, k) for t, k, _ in texts], f"t{i} string, k{i} long"
            )
            frame = frame.join(table, f"t{i}").drop(f"t{i}")
        return frame

    def gap_counts(self, levels: Sequence[int]) -> list[GridCounts]:
        from pyspark.sql import functions as f

        self._check()
        if self._raw_gaps is not None:  # counted with the columns, in the same job
            top = np.asarray(levels, dtype=np.int64)
            out = []
            for column_gaps in self._raw_gaps:
                merged: dict[int, int] = {}
                for g, count in column_gaps.items():
                    k = int(np.searchsorted(top, g))
                    merged[k] = merged.get(k, 0) + count
                out.append(GridCounts.from_pairs(merged.items()))
            return out
        d = self.d
        pairs = self._tagged(True).groupBy(f.expr("r div 2").alias("j"))
        gaps = pairs.agg(
            *(f.expr(f"max(k{i}) - min(k{i})").alias(f"g{i}") for i in range(d)),
            f.expr("count(*)").alias("c"),
        ).filter("c = 2")
        raw = all(c.units < RAW_GAPS for c in self.columns)  # gaps counted raw, levels here
        stack = ", ".join(f"{i}, g{i}" for i in range(d))
        stacked = gaps.selectExpr(f"stack({d}, {stack}) AS (i, g)")
        merged_by: list[dict[int, int]] = [{} for _ in range(d)]
        if raw:
            top = np.asarray(levels, dtype=np.int64)
            found = stacked.groupBy("i", "g").count()
            small = d * max(c.units for c in self.columns) < 1 << 16  # one job: collect
            for i, g, count in found.collect() if small else found.toLocalIterator():
                k = int(np.searchsorted(top, int(g)))
                merged_by[int(i)][k] = merged_by[int(i)].get(k, 0) + int(count)
        else:
            for i, digits, lead, below, count in _level_counts(stacked, "g", levels, "i"):
                k = _level(levels, (digits, lead), below)
                merged_by[int(i)][k] = merged_by[int(i)].get(k, 0) + int(count)
        return [GridCounts.from_pairs(m.items()) for m in merged_by]

    def _scaled(self, centre: Sequence[int], scales: Sequence[int]) -> Any:
        """The frame of ``k0, ...`` and ``s = ||w||^2`` (``decimal(38, 0)``)."""
        w = [f"(k{i} - {m}) * {p}" for i, (m, p) in enumerate(zip(centre, scales, strict=True))]
        s = " + ".join(f"CAST({e} AS DECIMAL(38,0)) * CAST({e} AS DECIMAL(38,0))" for e in w)
        rows = self._tagged(False).selectExpr("*", *(f"{e} AS w{i}" for i, e in enumerate(w)))
        return rows.selectExpr("*", f"CAST({s} AS DECIMAL(38,0)) AS s")

    def norm_counts(
        self, centre: Sequence[int], scales: Sequence[int], radii: Sequence[int]
    ) -> GridCounts:
        squares, top = [c * c for c in radii], len(radii) - 1
        if self._norms_in_arrow(centre, scales, squares[-1]):
            return self._norm_counts_in_arrow(centre, scales, squares)  # |w| < 2^40: int64
        merged: dict[int, int] = {}
        for digits, lead, below, count in _level_counts(
            self._scaled(centre, scales), "s", squares, None
        ):
            k = min(_level(squares, (digits, lead), below), top)
            merged[k] = merged.get(k, 0) + int(count)
        return GridCounts.from_pairs(merged.items())

    def _norm_counts_in_arrow(
        self, centre: Sequence[int], scales: Sequence[int], squares: Sequence[int]
    ) -> GridCounts:
        """The norms' levels in one job over the indices (:func:`~.arrowtasks.norm_levels`
        in the executors), when the one-pass summary was taken."""
        import pickle

        high = np.array([q >> 40 for q in squares], dtype=np.int64)
        low = np.array([q & ((1 << 40) - 1) for q in squares], dtype=np.int64)
        task = level_histograms(list(centre), list(scales), high, low)
        total = np.zeros(len(squares), np.int64)
        for (blob,) in self._in_arrow(task, "b binary").collect():
            total += pickle.loads(blob)
        return GridCounts.from_pairs((k, int(c)) for k, c in enumerate(total.tolist()) if c)

    def rounded_sums(
        self, centre: Sequence[int], scales: Sequence[int], num: int, den: int, within: int
    ) -> list[int]:
        """The sums within the radius; on the one-pass path in one job with (up to
        ``BEYOND_KEPT`` a partition) the rows beyond it, which :meth:`rows_beyond` reads."""
        big, shift = offset_division(num, den)  # Spark's div truncates toward zero
        edge = within * within
        if self._norms_in_arrow(centre, scales, edge):
            return self._sums_in_arrow(centre, scales, num, den, within)
        parts = [
            f"sum(CAST((2 * w{i} * {num} + {den + shift * big}) div {big} AS DECIMAL(38,0)))"
            for i in range(self.d)
        ]
        rows = self._scaled(centre, scales).filter(f"s <= {_wide(edge)}")
        found = rows.selectExpr("count(*)", *parts).first()
        kept = int(found[0])
        return [int(x or 0) - shift * kept for x in found[1:]]

    def _sums_in_arrow(
        self, centre: Sequence[int], scales: Sequence[int], num: int, den: int, within: int
    ) -> list[int]:
        """:meth:`rounded_sums` in the executors (:func:`~.arrowtasks.within_sums`): each
        term ``floor((2 w num + den)/(2 den))`` of a row within is at most ``term`` in size
        (``|w| <= ||w|| <= within``; PLAN's ``within < den`` makes it ``num + 1``), so
        ``2^62 // term`` of them add up within ``int64``."""
        import pickle

        largest = min(self._widest(centre, scales), within)
        term = (2 * largest * num + den) // (2 * den) + 1
        task = within_sums(
            list(centre),
            list(scales),
            num,
            den,
            within * within,
            max(1, (1 << 62) // term),
            BEYOND_KEPT,
        )
        parts = [pickle.loads(blob) for (blob,) in self._in_arrow(task, "b binary").collect()]
        sums = [sum(part[1][i] for part in parts) for i in range(self.d)]
        if all(part[2] <= BEYOND_KEPT for part in parts):  # every row beyond is here
            found = [rows for part in parts for rows in part[3]]
            self._beyond = ((tuple(centre), tuple(scales), within), found)
        return sums

    def rows_beyond(
        self, centre: Sequence[int], scales: Sequence[int], within: int
    ) -> Iterator[tuple[np.ndarray, list[int]]]:
        key, found = self._beyond or (None, [])
        self._beyond = None
        if key == (tuple(centre), tuple(scales), within):  # read with the sums
            for rows in found:
                yield rows, self._norm_bounds(rows, centre, scales)
            return
        if self._norms_in_arrow(centre, scales, within * within):
            import pickle

            task = rows_beyond(list(centre), list(scales), within * within)
            for (blob,) in self._in_arrow(task, "b binary").toLocalIterator():
                rows = pickle.loads(blob)
                yield rows, self._norm_bounds(rows, centre, scales)
            return
        rows = self._scaled(centre, scales).filter(f"s > {_wide(within * within)}")
        block: list[list[int]] = []
        bounds: list[int] = []
        for row in rows.select("s", *(f"k{i}" for i in range(self.d))).toLocalIterator():
            bounds.append(ceil_sqrt(int(row[0])))
            block.append([int(x) for x in row[1:]])
            if len(block) == BLOCK_ROWS:
                yield np.array(block, dtype=np.int64), bounds
                block, bounds = [], []
        if block:
            yield np.array(block, dtype=np.int64), bounds
