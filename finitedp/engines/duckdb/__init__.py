"""The DuckDB engine (the default): CSV and Parquet files of any size, in this process.

* :mod:`.statistics`: :class:`DuckDBStatistics`, each numeric column's sum in grid
  units and counts on its grid, in exact 128-bit SQL (``HUGEINT``), any other column
  through its distinct texts read exactly;
* :mod:`.rows`: :class:`DuckDBRows`, PLAN's questions of whole rows (integer Parquet
  columns in place, any other column copied as indices to a temporary Parquet file);
* a key column's counts, sums per key and keys in order: :mod:`finitedp.io.columns`
  (shared with the Spark engine, which reads a text file through it); basket files:
  :mod:`finitedp.io.baskets`.
"""

from __future__ import annotations

from typing import Any

from ...io.baskets import read_basket_list, read_baskets
from ...io.columns import count_rows, keys_in_order, ranked_keys, read_counts, read_sums
from ...io.numeric import NumericColumn
from ...io.progress import Progress
from ...io.tables import InputFile
from ...io.universe import Universe
from ...io.values import ValueColumn
from ...statistics import RowStatistics
from .. import Engine
from .rows import DuckDBRows, duckdb_rows
from .statistics import DuckDBStatistics

__all__ = ["ENGINE", "DuckDBRows", "DuckDBStatistics", "duckdb_rows"]


def _keys(
    source: InputFile,
    columns: tuple[str | None, str | None],
    universe: Universe,
    values: ValueColumn | None,
    stream: bool,
    progress: Progress,
) -> tuple[int, Any]:
    column = columns[0]
    if values is not None:
        sums = read_sums(source, columns, universe, values, progress)
        return sums.n, sums
    if stream and source.kind != "text":
        keys = ranked_keys(source, column, universe)
        return keys.n, keys
    if stream:
        return count_rows(source, column), keys_in_order(source, column, universe)
    return read_counts(source, column, universe, progress)


def _rows(
    source: InputFile, columns: list[NumericColumn], progress: Progress, clamp: bool
) -> RowStatistics:
    rows = duckdb_rows(source, columns, progress, clamp)
    rows.column_sums()  # every value checked (a refused one named by its row or line), and n
    return rows


def _baskets(
    source: InputFile, column: str | None, items: int, progress: Progress
) -> tuple[int, list[Any]]:
    if column is not None:
        return read_basket_list(source, column, items, progress)
    return read_baskets(source, items, progress)


ENGINE = Engine("duckdb", _keys, DuckDBStatistics, _rows, _baskets)
