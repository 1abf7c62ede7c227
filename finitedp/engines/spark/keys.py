"""A file's column of keys read by Spark, for ``release --engine spark``: the histogram
mechanisms' counts, a value column's sums per key, and the stream mechanisms' keys in order.

Paper: BV Section 2.1 (a histogram reads the counts), Lebeda thesis Alg 12 (Misra-Gries
reads its stream in order) and Ch. 4 (a weighted histogram reads each key's sum).

Each distinct label (and each distinct value text of a value column) is read exactly,
once, on the driver, as the DuckDB path reads it; so each function's answer, and the
release made from it for the same draws, is DuckDB's byte for byte:

* :func:`file_counts`: ``groupBy(column).count()``;
* :func:`file_sums`: ``groupBy(column, cast(value as string)).count()``, each distinct
  pair's value times its count;
* :func:`file_stream`: the labels' ranks among the sorted distinct keys, mapped in the
  executors (a broadcast table) and handed to the driver one partition at a time, in
  partition order.  Spark splits one file into partitions in the file's order, so that
  is the file's order (the assumption :class:`~finitedp.engines.spark.SparkRows` makes too;
  the tests check it against DuckDB's order with a file in several partitions).

A refused label or value is named as DuckDB's path names it: the file is read again by
that path's row reader (:mod:`finitedp.io.columns`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from fractions import Fraction
from functools import partial
from typing import Any

import numpy as np

from ...entries import RankedKeys, WeightedSums
from ...errors import ParameterError, ResourceLimitError
from ...histograms.spark import spark_counts
from ...io.columns import ranked_keys, read_counts, read_sums
from ...io.progress import Progress
from ...io.tables import InputFile
from ...io.universe import Universe
from ...io.values import ValueColumn
from ...resources import require_memory
from .columns import read_frame, text_of
from .session import map_in_arrow

__all__ = ["file_counts", "file_stream", "file_sums"]


def _frame(source: InputFile, *wanted: tuple[str | None, str]) -> Any:
    """The file's DataFrame, each ``(column, flag)`` wanted checked by the flag's name."""
    for column, flag in wanted:
        if column is None:
            raise ParameterError(f"{flag}: {source.name} is read by Spark; name the column")
    frame = read_frame(source)
    for column, flag in wanted:
        if column not in frame.columns:
            raise ParameterError(f"{flag}: {source.name} has no column {column!r}")
    return frame


def file_counts(
    source: InputFile, column: str | None, universe: Universe
) -> tuple[int, dict[int, int]]:
    """``n`` and the counts of ``column`` (a histogram mechanism's input).

    Raises:
        ParameterError: a file Spark does not read, a missing column, or a value refused.
    """
    frame = _frame(source, (column, "--column"))
    assert column is not None
    text = frame.select(text_of(frame, column).alias("v"))  # the text DuckDB reads
    try:
        return spark_counts(text, "v", universe.size, encode=universe.encode)
    except ResourceLimitError:  # a size, not a line: nothing to name
        raise
    except ParameterError as error:  # named by DuckDB's reader, or shown with its column
        renamed = ParameterError(str(error).replace("column 'v'", f"column {column!r}", 1))
        quiet = Progress(False, 0)
        raise _named(renamed, partial(read_counts, source, column, universe, quiet)) from None


#: Bytes a distinct label (or label and value) costs on the driver: its text, key and counts.
DISTINCT_BYTES = 200


def _distinct(rows: Iterable[Any], what: str, name: str) -> Iterator[Any]:
    """``rows`` (a ``groupBy``'s, streamed to the driver), refused past the memory limit."""
    for seen, row in enumerate(rows, 1):
        if seen % (1 << 16) == 0:
            require_memory(DISTINCT_BYTES * seen, what, f"{name}: {seen:,} so far")
        yield row


def _named(error: ParameterError, reread: Callable[[], object]) -> ParameterError:
    """``error``, or the error DuckDB's row reader raises on the file (it names the line)."""
    try:
        reread()
    except ParameterError as named:
        return named
    return error


def file_sums(
    source: InputFile,
    columns: tuple[str | None, str | None],
    universe: Universe,
    values: ValueColumn,
    progress: Progress,
) -> WeightedSums:
    """Each key's sum of its rows' values (``--value-column``), every value read exactly.

    Raises:
        ParameterError: a missing column, a null, or a key or value refused (its line
            named where the file is CSV).
    """
    frame = _frame(source, (columns[0], "--column"), (columns[1], "--value-column"))
    label, amount = (text_of(frame, str(c)) for c in columns)
    progress.phase(f"summing {columns[1]!r} per key (Spark)")
    sums: dict[int, Fraction] = {}
    keys: dict[str, int] = {}
    n = 0
    try:
        pairs = frame.groupBy(label, amount).count().toLocalIterator()
        for text, value, count in _distinct(pairs, "the distinct keys and values", source.name):
            if text is None or value is None:
                raise ParameterError(f"{source.name}: {count} rows have no key or value (null)")
            key = keys.get(text)
            if key is None:
                key = keys[text] = universe.encode(text)
            sums[key] = sums.get(key, Fraction(0)) + values.read(value, "Spark") * count
            n += int(count)
    except ResourceLimitError:  # a size, not a line: nothing to name
        raise
    except ParameterError as error:
        raise _named(
            error, partial(read_sums, source, columns, universe, values, progress)
        ) from None
    return WeightedSums(n, dict(sorted(sums.items())))


def _ranks(table: Any) -> Callable[[Iterator[Any]], Iterator[Any]]:
    """Each Arrow batch of labels as one blob of their ranks (``int64``), in its order:
    the executors look the labels up in bulk (``pyarrow.compute.index_in``), so no row
    crosses into Python one at a time."""

    def ranks(batches: Iterator[Any]) -> Iterator[Any]:
        import numpy as np
        import pyarrow as pa
        import pyarrow.compute as pc

        texts, ranks = table.value
        value_set, rank_of = pa.array(texts, type=pa.string()), np.asarray(ranks, np.int64)
        for batch in batches:
            at = pc.index_in(batch.column(0), value_set=value_set)
            # every label is one of the distinct ones counted before: none is missing
            blob = rank_of[at.to_numpy(zero_copy_only=False)].tobytes()
            yield pa.RecordBatch.from_arrays([pa.array([blob], pa.binary())], ["ranks"])

    return ranks


def file_stream(source: InputFile, column: str | None, universe: Universe) -> RankedKeys:
    """The keys of ``column`` in the file's order, as ranks (a stream mechanism's input).

    Raises:
        ParameterError: a missing column, a null, or a label outside the universe (its
            line named where the file is CSV).
    """
    frame = _frame(source, (column, "--column"))
    assert column is not None
    label = text_of(frame, column)  # the text DuckDB's path reads
    labels = frame.groupBy(label).count().toLocalIterator()
    encoded, n = [], 0
    try:
        for text, count in _distinct(labels, "the distinct keys", source.name):
            if text is None:
                raise ParameterError(f"column {column!r}: {count} rows have no value (null)")
            encoded.append((text, universe.encode(text)))
            n += int(count)
    except ResourceLimitError:  # a size, not a line: nothing to name
        raise
    except ParameterError as error:
        raise _named(error, partial(ranked_keys, source, column, universe)) from None
    distinct = sorted({key for _, key in encoded})
    rank_of = {key: rank for rank, key in enumerate(distinct, 1)}
    table = frame.sparkSession.sparkContext.broadcast(
        ([text for text, _ in encoded], [rank_of[key] for _, key in encoded])
    )

    def chunks() -> Iterator[list[int]]:
        blobs = map_in_arrow(frame.select(label.alias("label")), _ranks(table), "ranks binary")
        for (blob,) in blobs.toLocalIterator():
            yield np.frombuffer(blob, dtype=np.int64).tolist()

    return RankedKeys(tuple(distinct), n, chunks)
