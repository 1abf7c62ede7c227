"""What ``finitedp release`` reads of a file's key column, on the engine asked for.

A histogram mechanism reads the counts, a weighted one each key's sum of a value column
(:class:`~finitedp.entries.WeightedSums`), a stream mechanism the keys in file order
(:class:`~finitedp.entries.RankedKeys`, or the keys one by one from a text file).  DuckDB
reads them in this process (:mod:`finitedp.io.columns`), Spark in its executors
(:mod:`finitedp.spark.keys`); either way the noise is drawn afterwards, here.
"""

from __future__ import annotations

from typing import Any

from ..io.columns import count_rows, keys_in_order, ranked_keys, read_counts, read_sums
from ..io.progress import Progress
from ..io.tables import InputFile
from ..io.universe import Universe
from ..io.values import ValueColumn

__all__ = ["read_keys"]


def read_keys(
    engine: str,
    source: InputFile,
    columns: tuple[str | None, str | None],
    universe: Universe,
    values: ValueColumn | None,
    stream: bool,
    progress: Progress,
) -> tuple[int, Any]:
    """``(n, data)`` for the mechanism: ``columns`` is the key column and the value column
    (``None`` without ``--value-column``).

    Raises:
        ParameterError: a value refused (its line named), or a file the engine does not read.
    """
    column = columns[0]
    if engine == "spark":
        from .. import spark  # pyspark only when asked for

        if values is not None:
            sums = spark.file_sums(source, columns, universe, values, progress)
            return sums.n, sums
        if stream:
            keys = spark.file_stream(source, column, universe)
            return keys.n, keys
        return spark.file_counts(source, column, universe)
    if values is not None:
        sums = read_sums(source, columns, universe, values, progress)
        return sums.n, sums
    if stream and source.kind != "text":
        keys = ranked_keys(source, column, universe)
        return keys.n, keys
    if stream:
        return count_rows(source, column), keys_in_order(source, column, universe)
    return read_counts(source, column, universe, progress)
