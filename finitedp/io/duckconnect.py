"""finitedp's DuckDB connections: one in-memory database per thread, its settings given once.

Every engine question (:mod:`finitedp.io.tables`, :mod:`finitedp.engines.duckdb`)
takes a cursor of this thread's database from :func:`connect`: DuckDB's memory limit,
a spill folder in the system's temporary directory, the scan's file order kept, and no
progress bar on stdout.
"""

from __future__ import annotations

import os
import tempfile
import threading

import duckdb

__all__ = ["DUCKDB_MEMORY_LIMIT", "connect", "literal"]

#: DuckDB's memory limit: counting spills to disk beyond it instead of failing.
DUCKDB_MEMORY_LIMIT = "1GB"


def literal(text: str) -> str:
    """``text`` as an SQL string literal (a path, say)."""
    return "'" + text.replace("'", "''") + "'"


#: This thread's DuckDB database, whose cursors :func:`connect` hands out.
_LOCAL = threading.local()


def connect(*, fresh: bool = False) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection with finitedp's limits: memory, spill folder, no bar, file order.

    A cursor of this thread's in-memory database: a connection of its own (its results,
    temporary tables and registered frames are its own) at about 0.5 ms, where a new
    database costs 15-20 ms, and a release asks several questions.  ``fresh``: a
    database of its own, for what writes the catalog (a type).
    """
    if fresh:
        return _quiet(_database())
    base = getattr(_LOCAL, "base", None)
    if base is None:
        base = _LOCAL.base = _database()
    return _quiet(base.cursor())


def _database() -> duckdb.DuckDBPyConnection:
    """A new in-memory database with finitedp's database-wide settings, set once: DuckDB
    refuses to move the spill folder of a database that has spilled already."""
    # Spills go to the system's temporary directory, never to the user's working directory.
    spill = os.path.join(tempfile.gettempdir(), "finitedp-duckdb")
    config: dict[str, str | bool | int | float | list[str]] = {
        "memory_limit": DUCKDB_MEMORY_LIMIT,
        "threads": 2,
        "temp_directory": spill,
        "preserve_insertion_order": True,  # streams come out in file order
    }
    return duckdb.connect(config=config)


def _quiet(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    # Its bar goes to stdout, where a release may be going: finitedp's own is on stderr.
    con.execute("SET enable_progress_bar = false")
    return con
