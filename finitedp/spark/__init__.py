"""Every user-level mechanism on Spark: the executors compute statistics, the driver draws noise.

Needs the optional extra ``finitedp[spark]``.  Histograms take :func:`spark_counts`,
the streaming heavy hitters :func:`spark_sketch`, the column mechanisms (vector sums,
quantiles) :class:`SparkStatistics`, the :class:`~finitedp.statistics.ColumnStatistics`
of a DataFrame's numeric columns (:mod:`.columns`), and PLAN :class:`SparkRows`, its
:class:`~finitedp.statistics.RowStatistics` (:mod:`.rows`).

>>> # stats = SparkStatistics(frame, [("a", -1, 1, "1/100"), ("b", 0, 10, 1)])
>>> # ParallelotopeLaplace(grids, stats.n, 1).release_sums(stats.column_sums())
>>> # ColumnQuantiles("exponential", columns, stats.n, 1, "1/2").release_from(stats)
>>> # PLAN(-1, 1, d=2, n=stats.n, rho="1/2", step="1/100").release_statistics(
>>> #     SparkRows(frame, [("a", -1, 1, "1/100"), ("b", -1, 1, "1/100")]))
"""

from ..histograms.spark import spark_counts
from ..sketches.spark import spark_sketch
from .columns import SparkStatistics, read_frame
from .keys import file_counts, file_stream, file_sums
from .rows import SparkRows

__all__ = [
    "SparkRows",
    "SparkStatistics",
    "file_counts",
    "file_stream",
    "file_sums",
    "read_frame",
    "spark_counts",
    "spark_sketch",
]
