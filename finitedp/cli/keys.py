"""What ``finitedp release`` reads of a file's key column, on the engine asked for.

A histogram mechanism reads the counts, a weighted one each key's sum of a value column
(:class:`~finitedp.entries.WeightedSums`), a stream mechanism the keys in file order
(:class:`~finitedp.entries.RankedKeys`, or the keys one by one from a text file).  DuckDB
reads them in this process (:mod:`finitedp.engines.duckdb`), Spark in its executors
(:mod:`finitedp.engines.spark`); either way the noise is drawn afterwards, here.
"""

from __future__ import annotations

from typing import Any

from ..engines import engine as find_engine
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
    (``None`` without ``--value-column``), read by the engine asked for
    (:class:`~finitedp.engines.Engine`'s ``keys``).

    Raises:
        ParameterError: a value refused (its line named), or a file the engine does not read.
    """
    return find_engine(engine).keys(source, columns, universe, values, stream, progress)
