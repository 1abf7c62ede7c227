"""Basket files: one row per line, the row's 1s as item ids (the FIMI format of Kosarak, POS).

``finitedp release kosarak.dat --format baskets --items 41270 --mechanism plan-mean
--rho 1/4``: line ``j`` (``\\n`` or ``\\r\\n`` ends) is row ``j``, a 0/1 vector of
``d = --items`` coordinates whose 1s are the whitespace-separated ids on the line
(each an integer in ``[0, d)``; an id repeated counts once; an empty line is a row
of zeros).  ``d`` is public: an id at or beyond it is refused, naming the line,
never used to grow ``d`` (the largest id seen is private).  Memory follows the
total number of ids plus ``d`` (``O(items + d)``, never ``n x d``): each row is
kept as the sorted array of its ids.

A Parquet file may hold the baskets as a list column instead (``--format baskets
--columns ids``, :func:`read_basket_list`): row ``j``'s 1s are the integers of its list,
read by DuckDB.

Paper: Lebeda thesis Section 5.7 (Kosarak and POS as 0/1 vectors); proofs_notes/plan.md.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import numpy as np

from ..errors import ParameterError
from ..resources import require_memory
from .progress import Progress
from .tables import InputFile, connect, literal, query
from .values import shorten

__all__ = ["MAX_ITEMS", "read_basket_list", "read_baskets"]

#: Integer element types of a list column of item ids.
LIST_TYPES = frozenset(
    f"{kind}[]"
    for kind in ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER")
) | {"UBIGINT[]"}

#: Rows fetched at a time from DuckDB.
FETCH_ROWS = 1 << 14

#: The most coordinates a basket file may declare (PLAN takes fewer than 2^20).
MAX_ITEMS = (1 << 20) - 1

#: Bytes each kept row costs beyond its ids (a numpy array's header and the list slot).
ROW_BYTES = 120

#: Lines between progress updates.
PROGRESS_LINES = 1 << 15


def read_baskets(source: InputFile, items: int, progress: Progress) -> tuple[int, list[np.ndarray]]:
    """The rows of a basket file, each the sorted array of its distinct ids.

    Memory is estimated from the file's size and lines before the rows are kept, and
    refused above the limit (:func:`finitedp.resources.require_memory`).

    Raises:
        ParameterError: naming the file and the line, for a token that is not an
            integer id or an id outside ``[0, items)``; a file that is not ASCII text.
    """
    # One read of one handle: counting the lines in a first pass and parsing in a
    # second would release a mixture if the file changed in between.
    with open(source.path, "rb") as handle:
        require_memory(os.fstat(handle.fileno()).st_size, "the basket file", source.name)
        data = handle.read()
    lines = data.count(b"\n")
    # each id takes at least 2 bytes of the file and 8 in memory; each row ROW_BYTES
    require_memory(5 * len(data) + ROW_BYTES * (lines + 1), "the baskets' rows", source.name)
    progress.phase(f"reading {lines:,} baskets", total=lines + 1)
    rows: list[np.ndarray] = []
    for number, raw in enumerate(_lines(data), start=1):
        try:
            tokens = raw.decode("ascii").split()
        except UnicodeDecodeError:
            raise ParameterError(
                f"{source.name}: line {number}: not ASCII text; a basket line is item ids "
                f"(integers in [0, {items})) separated by spaces"
            ) from None
        ids = []
        for token in tokens:
            if not token.isdigit() or len(token) > 7:
                raise ParameterError(
                    f"{source.name}: line {number}: {shorten(token)!r} is not an item id; "
                    f"ids are integers in [0, {items}) (--items)"
                )
            ids.append(int(token))
        row = np.unique(np.asarray(ids, dtype=np.int64))
        if row.size and int(row[-1]) >= items:
            raise ParameterError(
                f"{source.name}: line {number}: item id {int(row[-1])} is not below "
                f"--items {items}; the number of items is public: declare all of them"
            )
        rows.append(row)
        if number % PROGRESS_LINES == 0:
            progress.advance(PROGRESS_LINES)
    return len(rows), rows


def read_basket_list(
    source: InputFile, column: str, items: int, progress: Progress
) -> tuple[int, list[np.ndarray]]:
    """The rows of a Parquet file's list column of item ids, each the sorted array of its
    distinct ids (the rows of :func:`read_baskets`, from a list column).

    Every list is checked in DuckDB first (one scan); a refused one is named by its row.
    Memory follows the total number of ids, estimated from that scan first.

    Raises:
        ParameterError: not a Parquet file, no such column or not a list of integers, an
            empty (null) list or id, or an id outside ``[0, items)`` (its row named).
    """
    if source.kind != "parquet":
        raise ParameterError(
            f"--columns: {source.name} is read as a basket file (one basket a line); a list "
            "column of ids is read from a Parquet file"
        )
    where = f"read_parquet({literal(source.path)}, file_row_number = true)"
    name = '"' + column.replace('"', '""') + '"'
    described = dict(
        (str(row[0]), str(row[1]))
        for row in connect().execute(f"DESCRIBE SELECT * FROM {where}").fetchall()
    )
    if column not in described:
        raise ParameterError(f"--columns: {source.name} has no column {column!r}")
    if described[column] not in LIST_TYPES:
        raise ParameterError(
            f"--columns: column {column!r} of {source.name} is {described[column]}; a basket "
            "column is a list of integer item ids"
        )
    wanted = ((column, "--columns"),)
    refused = f"lambda x: x IS NULL OR x < 0 OR x >= {items}"
    bad = f"{name} IS NULL OR len(list_filter({name}, {refused})) > 0"
    sql = (
        f"SELECT count(*), coalesce(sum(len({name})), 0), min(file_row_number) FILTER "
        f"(WHERE {bad}) FROM {where}"
    )
    n, ids, first = query(source, sql, wanted).fetchone()
    if first is not None:
        (found,) = query(
            source, f"SELECT {name} FROM {where} WHERE file_row_number = {first}", wanted
        ).fetchone()
        shown = "null" if found is None else shorten(str(found))
        raise ParameterError(
            f"{source.name}: row {int(first) + 1}, column {column!r}: {shown} is not a basket; "
            f"a basket is a list of item ids, integers in [0, {items}) (--items)"
        )
    require_memory(8 * int(ids) + ROW_BYTES * int(n), "the baskets' rows", source.name)
    progress.phase(f"reading {int(n):,} baskets", total=int(n))
    cursor = query(source, f"SELECT list_sort(list_distinct({name})) FROM {where}", wanted)
    rows: list[np.ndarray] = []
    while batch := cursor.fetchmany(FETCH_ROWS):
        rows += [np.asarray(ids_, dtype=np.int64) for (ids_,) in batch]
        progress.advance(len(batch))
    return len(rows), rows


def _lines(data: bytes) -> Iterator[bytes]:
    """The lines of ``data`` as the file iterator gives them (``\n`` ends one; a final
    line without it counts), one at a time."""
    start = 0
    while start < len(data):
        end = data.find(b"\n", start)
        if end < 0:
            yield data[start:]
            return
        yield data[start : end + 1]
        start = end + 1
