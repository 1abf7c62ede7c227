"""Sums and medians of a Parquet file's columns from their statistics, computed in DuckDB.

The column mechanisms depend on the data only through statistics: a vector sum
(thesis chapter 4) through each column's sum in grid units, a private quantile
(Alg 17's PRIVQUANTILE) through each column's counts on its grid.  This script writes
a Parquet file of 10^6 rows of two integer columns, has DuckDB compute those
statistics where the file lies (memory independent of the number of rows), and
releases a vector sum and the medians from them; then it releases the same from the
columns as numpy arrays and shows that the releases are equal for the same seed: the
engine changes where the work is done, never the release.  With pyspark installed,
``finitedp.engines.spark.SparkStatistics(frame, columns)`` is a third engine, used the same way.

Run: ``python examples/column_statistics.py``.  Floats only in the output.
"""

from __future__ import annotations

import tempfile
import time
from fractions import Fraction
from pathlib import Path

import duckdb
import numpy as np

from finitedp import SeededSource
from finitedp.aggregation.vectorsum import ParallelotopeLaplace
from finitedp.engines.duckdb import DuckDBStatistics
from finitedp.io.numeric import NumericColumn
from finitedp.io.progress import Progress
from finitedp.io.tables import opened_input
from finitedp.selection import Grid
from finitedp.selection.registry import ColumnQuantiles
from finitedp.statistics import ArrayStatistics

ROWS = 1_000_000
COLUMNS = [("age", 0, 120, 1), ("visits", 0, 1000, 1)]  # public grids: (name, lower, upper, step)


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "people.parquet"
        duckdb.sql(
            f"COPY (SELECT (hash(i) % 121)::INTEGER AS age, (hash(i * 7) % 1001)::BIGINT AS "
            f"visits FROM range({ROWS}) t(i)) TO '{path}' (FORMAT parquet)"
        )
        declared = [
            NumericColumn(c, Fraction(lo), Fraction(hi), Fraction(st)) for c, lo, hi, st in COLUMNS
        ]
        grids = [Grid(lo, hi, st) for _, lo, hi, st in COLUMNS]
        spec = [(lo, hi, st) for _, lo, hi, st in COLUMNS]
        with opened_input(str(path), "parquet") as source:
            start = time.perf_counter()
            stats = DuckDBStatistics(source, declared, Progress(False, 1.0))
            sums = ParallelotopeLaplace(grids, stats.n, 1).release_sums(
                stats.column_sums(), SeededSource(b"example")
            )
            medians = ColumnQuantiles("exponential", spec, stats.n, 1, "1/2").release_from(
                stats, SeededSource(b"example")
            )
            seconds = time.perf_counter() - start
        print(f"{stats.n:,} rows, statistics computed by DuckDB, released in {seconds:.2f} s")
        for (name, *_), total, median in zip(
            COLUMNS, sums.estimates, medians.estimates, strict=True
        ):
            print(f"  {name:<7} sum {float(total):14,.0f}   median {float(median):6.0f}")
        # the same rows as numpy arrays: the same statistics, so the same releases
        arrays = duckdb.sql(f"SELECT age, visits FROM '{path}'").fetchnumpy()
        in_memory = ArrayStatistics([np.asarray(arrays[c], dtype=np.int64) for c, *_ in COLUMNS])
        again = ParallelotopeLaplace(grids, in_memory.n, 1).release_sums(
            in_memory.column_sums(), SeededSource(b"example")
        )
        medians_again = ColumnQuantiles("exponential", spec, in_memory.n, 1, "1/2").release_from(
            in_memory, SeededSource(b"example")
        )
        same = again.estimates == sums.estimates and medians_again.estimates == medians.estimates
        print(f"numpy engine, same seed: {'the same releases' if same else 'DIFFERENT releases'}")
        if not same:
            raise SystemExit(1)


if __name__ == "__main__":
    main()
