"""Exact counts of a PySpark DataFrame column, for any histogram mechanism on the driver.

Paper: BV Section 2.1 (a dataset is its rows; every histogram mechanism reads
their counts).  Needs the optional extra ``finitedp[spark]``.

Spark aggregates (``groupBy(column).count()``) in its executors; only the
occupied ``(value, count)`` pairs reach the driver (at most ``n``, in practice
the distinct values).  The noise is drawn afterwards, on the driver, by the
mechanism you choose from finitedp's oracle: never in an executor, where Spark
may run a task twice and two draws would be two different releases.

>>> # counts = spark_counts(frame, "city", universe_size=m, encode=Utf8Universe(16).encode)
>>> # BoundedGeometricHistogram(n, m, "1/2", "1/10").release(counts[1])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import ParameterError
from .dataset import dataset_counts

__all__ = ["spark_counts"]


def spark_counts(
    frame: Any,
    column: str,
    universe_size: int,
    *,
    encode: Callable[[Any], int] | None = None,
) -> tuple[int, dict[int, int]]:
    """``(n, {key: count})`` of one column of a PySpark DataFrame, counted by Spark.

    Args:
        frame: a ``pyspark.sql.DataFrame``.
        column: the column to count.
        universe_size: ``|X|``; keys must lie in ``[1, |X|]``.
        encode: maps a value to its key on the driver, once per distinct value (for
            instance ``Utf8Universe(16).encode``); without it the values must be the
            keys (ints in ``[1, |X|]``).

    Returns:
        ``n`` and the positive counts, keys increasing: pass the counts to any
        histogram mechanism built for ``n``.

    Raises:
        ParameterError: a missing column, an empty (null) value, or a value outside
            the universe (the message shows it); nothing is released.
    """
    if column not in frame.columns:
        raise ParameterError(f"column: the DataFrame has no column {column!r} ({frame.columns})")
    counts: dict[int, int] = {}
    for value, count in frame.groupBy(column).count().collect():
        if value is None:
            raise ParameterError(f"column {column!r}: {count} rows have no value (null)")
        try:
            key = encode(value) if encode is not None else value
        except ParameterError as error:
            raise ParameterError(f"column {column!r}: value {value!r}: {error}") from None
        counts[key] = counts.get(key, 0) + int(count)
    n = sum(counts.values())
    if n == 0:
        raise ParameterError(f"column {column!r}: no rows; a release needs at least one")
    return n, dataset_counts(counts, n, universe_size)
