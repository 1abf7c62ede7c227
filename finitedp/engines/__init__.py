"""The engines: where the statistics a mechanism asks for are computed (issue 53 item 6).

A mechanism never reads data.  It asks an engine questions whose answers are exact
integers: a key column's counts (or its value column's sums per key, or its keys in
order), each numeric column's sum in grid units or counts on its grid
(:class:`~finitedp.statistics.ColumnStatistics`), PLAN's questions of whole rows
(:class:`~finitedp.statistics.RowStatistics`), a basket file's rows as sets.  The noise
is then drawn once, in this process.  Every engine gives the same answers, so a release
is the same document for a seed whatever the engine (tested in Spark local mode).

In memory, for the Python API:

* numpy arrays of grid indices: :class:`finitedp.statistics.ArrayStatistics` (beside the
  interface, since the mechanisms' own ``release(rows)`` builds it);
* 0/1 rows as the sets of their 1s: :class:`finitedp.mean.sparse.SetsStatistics` (PLAN's).

Over files (``finitedp release --engine NAME``, and :func:`finitedp.release`), one
package each, found by name in :data:`ENGINES` and imported only when asked for:

* ``duckdb`` (:mod:`.duckdb`, the default): CSV and Parquet in this process;
* ``spark`` (:mod:`.spark`): a DataFrame in Spark (``pip install 'finitedp[spark]'``).

Adding an engine is a package here with an :class:`Engine` named ``ENGINE`` and its
name in :data:`ENGINES`; the commands ask :func:`engine` and never name one.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import ParameterError

__all__ = ["ENGINES", "Engine", "engine"]

#: Each engine's name -> the package whose ``ENGINE`` it is, in ``--help``'s order.
ENGINES = {"duckdb": "finitedp.engines.duckdb", "spark": "finitedp.engines.spark"}


@dataclass(frozen=True)
class Engine:
    """What an engine answers of a file (:class:`~finitedp.io.inputs.InputFile`).

    Attributes:
        name: the ``--engine`` name.
        keys: ``(source, (key column, value column or None), universe, values, stream,
            progress) -> (n, data)``: a key column's counts
            (:class:`~finitedp.entries.Counts`), each key's sum of the value column
            (:class:`~finitedp.entries.WeightedSums`), or with ``stream`` the keys in
            file order (:class:`~finitedp.entries.RankedKeys`, or the keys one by one).
        statistics: ``(source, columns, progress, clamp) ->``
            :class:`~finitedp.statistics.ColumnStatistics` of the numeric columns.
        rows: ``(source, columns, progress, clamp) ->``
            :class:`~finitedp.statistics.RowStatistics` (PLAN), every value checked.
        baskets: ``(source, list column or None, items, progress) -> (n, sets)``: a
            basket file's rows, each the sorted ``int64`` array of its item ids.
    """

    name: str
    keys: Callable[..., tuple[int, Any]]
    statistics: Callable[..., Any]
    rows: Callable[..., Any]
    baskets: Callable[..., tuple[int, list[Any]]]


def engine(name: str) -> Engine:
    """The engine called ``name`` (its package imported now: Spark only when asked for).

    Raises:
        ParameterError: no engine of that name.
    """
    if name not in ENGINES:
        raise ParameterError(f"--engine: got {name!r}; use one of {', '.join(ENGINES)}")
    found: Engine = importlib.import_module(ENGINES[name]).ENGINE
    return found
