"""A file's column numbered into the universe: counts, keys in order, or ``(key, value)`` pairs.

What ``finitedp release`` hands a mechanism, read through :mod:`finitedp.io.tables`:

* :func:`read_counts`: ``(n, {key: count})`` for the histogram mechanisms (memory
  follows the distinct values; DuckDB counts CSV and Parquet files);
* :func:`ranked_keys`: the keys in file order, numbered by DuckDB, for the stream
  mechanisms (Misra-Gries reads the rows as a stream); :func:`keys_in_order` and
  :func:`count_rows` for a text file;
* :func:`read_sums`: every row's exact value checked, summed per key (``--value-column``).

A value outside the universe, or a bad amount, is an error that names its line
(CSV and text) or row (Parquet); nothing is released.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

import numpy

from ..entries import RankedKeys, WeightedSums
from ..errors import ParameterError
from .progress import Progress
from .tables import (
    BATCH_ROWS,
    InputFile,
    coded_column,
    count_labels,
    labels_in_order,
    name_the_line,
    row_count,
    text_labels,
)
from .universe import Universe
from .values import ValueColumn

__all__ = ["count_rows", "keys_in_order", "ranked_keys", "read_counts", "read_sums"]

#: Distinct labels remembered while streaming (beyond it each is numbered again).
_CACHE_LIMIT = 1 << 20


def _encode(universe: Universe, where: str, label: str) -> int:
    try:
        return universe.encode(label)
    except ParameterError as error:
        raise ParameterError(f"{where}: {error}") from None


def _labels(source: InputFile, column: str | None) -> Iterator[tuple[str, list[str]]]:
    if source.kind == "text":
        return text_labels(source)
    return labels_in_order(source, (column, "--column"))


def read_counts(
    source: InputFile, column: str | None, universe: Universe, progress: Progress
) -> tuple[int, dict[int, int]]:
    """``(n, {key: count})``: the column's counts, keys increasing.

    Raises:
        ParameterError: a value outside the universe (the message names its line),
            or an unreadable file.
    """
    counts: dict[int, int] = {}
    if source.kind == "text":
        cache: dict[str, int] = {}
        n = 0
        for where, (label,) in text_labels(source):
            key = cache.get(label)
            if key is None:
                key = _encode(universe, where, label)
                if len(cache) < _CACHE_LIMIT:
                    cache[label] = key
            counts[key] = counts.get(key, 0) + 1
            n += 1
            if n % BATCH_ROWS == 0:
                progress.advance(BATCH_ROWS)
        return n, dict(sorted(counts.items()))
    progress.phase(f"counting the values of {source.name} (DuckDB)")
    for label, count in count_labels(source, column):
        try:
            key = universe.encode(label)
        except ParameterError as error:

            def check(where: str, values: list[str]) -> None:
                _encode(universe, where, values[0])

            raise name_the_line(source, ((column, "--column"),), check, error) from None
        counts[key] = counts.get(key, 0) + count
    return sum(counts.values()), dict(sorted(counts.items()))


def count_rows(source: InputFile, column: str | None) -> int:
    """The number of rows (records, or lines of a text file)."""
    if source.kind == "text":
        return sum(1 for _ in text_labels(source))
    return row_count(source, column)


def keys_in_order(source: InputFile, column: str | None, universe: Universe) -> Iterator[int]:
    """The column's keys in file order, streamed (batches of ``BATCH_ROWS`` from DuckDB).

    Raises:
        ParameterError: a value outside the universe (its line), when it is reached.
    """
    cache: dict[str, int] = {}
    for where, (label,) in _labels(source, column):
        key = cache.get(label)
        if key is None:
            try:
                key = _encode(universe, where, label)
            except ParameterError as error:

                def check(at: str, values: list[str]) -> None:
                    _encode(universe, at, values[0])

                raise name_the_line(source, ((column, "--column"),), check, error) from None
            if len(cache) < _CACHE_LIMIT:
                cache[label] = key
        yield key


def ranked_keys(source: InputFile, column: str | None, universe: Universe) -> RankedKeys:
    """The column's keys in file order as ranks (CSV, Parquet): DuckDB numbers the rows.

    Each distinct value is numbered into the universe once; the codes DuckDB gives
    the rows (:func:`finitedp.io.tables.coded_column`) become ranks among the sorted
    keys by one array lookup a batch, so no Python object is made per row until the
    consumer reads the ranks.

    Raises:
        ParameterError: a value outside the universe (its line), before any key is
            handed out.
    """
    coded = coded_column(source, column)
    try:
        keys = [universe.encode(label) for label in coded.labels]
    except ParameterError as error:

        def check(at: str, values: list[str]) -> None:
            _encode(universe, at, values[0])

        raise name_the_line(source, ((column, "--column"),), check, error) from None
    distinct = sorted(set(keys))
    rank_of = {key: rank for rank, key in enumerate(distinct, 1)}
    ranks = numpy.array([rank_of[key] for key in keys], dtype=numpy.int64)

    def chunks() -> Iterator[list[int]]:
        for codes in coded.codes():
            yield ranks[codes].tolist()

    return RankedKeys(tuple(distinct), coded.n, chunks)


def read_sums(
    source: InputFile,
    columns: tuple[str | None, str | None],
    universe: Universe,
    values: ValueColumn,
    progress: Progress,
) -> WeightedSums:
    """Every record's value checked exactly, then summed per key (memory per key).

    Raises:
        ParameterError: text input, a key outside the universe or a bad value (the
            message names its line).
    """
    if source.kind == "text":
        raise ParameterError("--value-column: the input must be CSV or Parquet (a header names it)")
    wanted = ((columns[0], "--column"), (columns[1], "--value-column"))

    def check(where: str, fields: list[str]) -> None:
        _encode(universe, where, fields[0])
        values.read(fields[1], where)

    sums: dict[int, Fraction] = {}
    n = 0
    for where, (label, amount) in labels_in_order(source, *wanted):
        try:
            key, value = _encode(universe, where, label), values.read(amount, where)
        except ParameterError as error:
            raise name_the_line(source, wanted, check, error) from None
        sums[key] = sums.get(key, Fraction(0)) + value
        n += 1
        if n % BATCH_ROWS == 0:
            progress.advance(BATCH_ROWS)
    return WeightedSums(n, sums)
