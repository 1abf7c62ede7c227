"""Basket files and list columns read by Spark: the rows PLAN takes as sets (``--format baskets``).

Paper: Lebeda thesis Section 5.7 (Kosarak and POS as 0/1 vectors); proofs_notes/plan.md.

A text file is read by ``spark.read.text`` (lines end at ``\\n`` only, as
:func:`~finitedp.io.baskets.read_baskets` reads them), each line's tokens split at ASCII
whitespace and checked in Spark: digits only, at most 7, below ``--items``.  A Parquet
file's list column of integer ids is checked likewise.  Each row's distinct ids, sorted,
are then collected on the driver: memory follows the total number of ids, as with
DuckDB's reader, and the release is the same (a basket release does not depend on the
rows' order).  A refused text line is named by reading the file again with
:func:`~finitedp.io.baskets.read_baskets`.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ...errors import ParameterError
from ...io.baskets import ROW_BYTES, read_baskets
from ...io.progress import Progress
from ...io.tables import InputFile
from ...io.values import shorten
from ...resources import require_memory
from .columns import spark_session

__all__ = ["spark_baskets"]

#: Python's ``str.split()`` whitespace within ASCII.
WHITESPACE = r"[ \t\n\r\x0b\x0c\x1c-\x1f]+"


def spark_baskets(
    source: InputFile, column: str | None, items: int, progress: Progress
) -> tuple[int, list[np.ndarray]]:
    """``n`` and the rows (each the sorted array of its distinct ids) of a basket text file,
    or of a Parquet file's list ``column``, read by Spark.

    Raises:
        ParameterError: a refused line (named) or list (shown), a column that is missing
            or not a list of integers, or the rows past the memory limit.
    """
    reader = spark_session().read  # first: without pyspark, a refusal that says so
    from pyspark.sql import functions as f

    if column is None:
        lines = reader.option("lineSep", "\n").text(os.path.abspath(source.path))
        tokens = f.filter(f.split(f.col("value"), WHITESPACE), lambda t: t != "")
        bad = f.exists(tokens, lambda t: ~t.rlike("^[0-9]{1,7}$") | (t.try_cast("int") >= items))
        ids = f.transform(tokens, lambda t: t.try_cast("long"))
        frame = lines.select(ids.alias("ids"), bad.alias("bad"))
    else:
        frame = reader.parquet(os.path.abspath(source.path))
        kinds = dict(frame.dtypes)
        if column not in kinds:
            raise ParameterError(f"--columns: {source.name} has no column {column!r}")
        if kinds[column] not in {f"array<{k}>" for k in ("tinyint", "smallint", "int", "bigint")}:
            raise ParameterError(
                f"--columns: column {column!r} of {source.name} is {kinds[column]}; a basket "
                "column is a list of integer item ids"
            )
        ids = f.col("`" + column.replace("`", "``") + "`")
        bad = ids.isNull() | f.exists(ids, lambda x: x.isNull() | (x < 0) | (x >= items))
        frame = frame.select(ids.cast("array<long>").alias("ids"), bad.alias("bad"))
    found = frame.agg(
        f.count(f.lit(1)), f.sum(f.size("ids")), f.count(f.when(f.col("bad"), 1))
    ).first()
    assert found is not None  # an aggregate has one row
    if found[2]:
        raise _refused(source, column, items, frame, progress)
    n, total = int(found[0]), int(found[1] or 0)
    require_memory(8 * total + ROW_BYTES * n, "the baskets' rows", source.name)
    progress.phase(f"reading {n:,} baskets (Spark)", total=n)
    rows = []
    for (row,) in frame.select(f.array_sort(f.array_distinct("ids"))).toLocalIterator():
        rows.append(np.asarray(row, dtype=np.int64))
        if len(rows) % (1 << 15) == 0:
            progress.advance(1 << 15)
    return len(rows), rows


def _refused(
    source: InputFile, column: str | None, items: int, frame: Any, progress: Progress
) -> ParameterError:
    """The refusal of a basket: its line named by the file's reader, or its list shown."""
    if column is None:
        try:
            read_baskets(source, items, progress)
        except ParameterError as error:
            return error
        return ParameterError(f"{source.name}: a line was refused by Spark, not by the reader")
    row = frame.filter("bad").select("ids").first()
    shown = "null" if row is None or row[0] is None else shorten(str(list(row[0])))
    return ParameterError(
        f"{source.name}: column {column!r}: {shown} is not a basket; a basket is a list of "
        f"item ids, integers in [0, {items}) (--items)"
    )
