"""The Spark engine: the executors compute statistics, the driver draws the noise.

Needs the optional extra ``finitedp[spark]`` (pyspark is imported only inside the
functions that run a job).  :data:`ENGINE` is ``--engine spark``.  Histograms take
:func:`spark_counts`, the streaming heavy hitters :func:`spark_sketch`, the column
mechanisms (vector sums, quantiles) :class:`SparkStatistics`, the
:class:`~finitedp.statistics.ColumnStatistics` of a DataFrame's numeric columns
(:mod:`.columns`), and PLAN :class:`SparkRows`, its
:class:`~finitedp.statistics.RowStatistics` (:mod:`.rows`).

>>> # stats = SparkStatistics(frame, [("a", -1, 1, "1/100"), ("b", 0, 10, 1)])
>>> # ParallelotopeLaplace(grids, stats.n, 1).release_sums(stats.column_sums())
>>> # ColumnQuantiles("exponential", columns, stats.n, 1, "1/2").release_from(stats)
>>> # PLAN(-1, 1, d=2, n=stats.n, rho="1/2", step="1/100").release_statistics(
>>> #     SparkRows(frame, [("a", -1, 1, "1/100"), ("b", -1, 1, "1/100")]))
"""

from typing import Any

from ...histograms.spark import spark_counts
from ...io.numeric import NumericColumn
from ...io.progress import Progress
from ...io.tables import InputFile
from ...io.universe import Universe
from ...io.values import ValueColumn
from ...sketches.spark import spark_sketch
from ...statistics import ColumnStatistics, RowStatistics
from .. import Engine
from .baskets import spark_baskets
from .columns import SparkStatistics, read_frame
from .keys import file_counts, file_stream, file_sums
from .rows import SparkRows

__all__ = [
    "ENGINE",
    "SparkRows",
    "SparkStatistics",
    "file_counts",
    "file_stream",
    "file_sums",
    "read_frame",
    "spark_counts",
    "spark_sketch",
]


def _keys(
    source: InputFile,
    columns: tuple[str | None, str | None],
    universe: Universe,
    values: ValueColumn | None,
    stream: bool,
    progress: Progress,
) -> tuple[int, Any]:
    if values is not None:
        sums = file_sums(source, columns, universe, values, progress)
        return sums.n, sums
    if stream:
        keys = file_stream(source, columns[0], universe)
        return keys.n, keys
    return file_counts(source, columns[0], universe)


def _statistics(
    source: InputFile, columns: list[NumericColumn], progress: Progress, clamp: bool
) -> ColumnStatistics:
    progress.phase(f"reading {source.name} with Spark")
    return SparkStatistics(read_frame(source), columns, clamp)


def _rows(
    source: InputFile, columns: list[NumericColumn], progress: Progress, clamp: bool
) -> RowStatistics:
    progress.phase(f"reading {source.name} with Spark")
    rows = SparkRows(read_frame(source), columns, clamp)
    rows.column_sums()  # every value checked (a refused one shown), and n
    return rows


ENGINE = Engine("spark", _keys, _statistics, _rows, spark_baskets)
