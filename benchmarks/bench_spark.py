"""The Spark paths in local mode (``local[2]``) beside the single-machine DuckDB path.

Run: ``python benchmarks/bench_spark.py [--rows 10000000] [--distinct 100000] [--k 1000]``
(needs ``finitedp[spark]`` and Java).

One Parquet file of ``--rows`` uniform values (made by DuckDB) is counted three
ways: :func:`finitedp.io.columns.read_counts` (DuckDB, in-process),
:func:`finitedp.histograms.spark.spark_counts` (a Spark aggregation, pairs collected
to the driver), and sketched by :func:`finitedp.sketches.spark.spark_sketch` (Alg 12
per partition in the executors, merged on the driver).  Spark's session start-up is
timed apart.  Medians of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import duckdb


def _median(run: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10**7)
    parser.add_argument("--distinct", type=int, default=10**5)
    parser.add_argument("--k", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "finitedp-bench")
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    path = args.dir / f"v_{args.rows}_{args.distinct}_bigint.parquet"
    if not path.exists():
        query = (
            f"SELECT CAST(hash(i) % {args.distinct} + 1 AS BIGINT) AS v "
            f"FROM range({args.rows}) t(i)"
        )
        duckdb.sql(f"COPY ({query}) TO '{path}' (FORMAT parquet)")

    from finitedp.io.columns import read_counts
    from finitedp.io.progress import Progress
    from finitedp.io.tables import InputFile
    from finitedp.io.universe import parse_universe

    universe = parse_universe(f"int:{args.distinct}")

    def duck() -> object:
        with Progress(False, 1.0) as progress:
            return read_counts(InputFile(str(path), str(path), "parquet"), "v", universe, progress)

    print(f"{args.rows} rows, {args.distinct} distinct values, Parquet; medians of {args.repeat}")
    print(f"DuckDB counts (one process)          {_median(duck, args.repeat):7.2f} s")

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    from finitedp.histograms.spark import spark_counts
    from finitedp.sketches.spark import spark_sketch

    start = time.perf_counter()
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("finitedp-bench")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "4g")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    frame = spark.read.parquet(str(path))
    frame.count()
    print(f"Spark start-up and first scan         {time.perf_counter() - start:7.2f} s")
    partitions = frame.rdd.getNumPartitions()

    def counts() -> object:
        return spark_counts(frame, "v", args.distinct)

    def sketch() -> object:
        return spark_sketch(frame, "v", args.k, args.distinct)

    print(f"Spark counts, local[2]                {_median(counts, args.repeat):7.2f} s")
    print(
        f"Spark sketches (k = {args.k}), local[2]  {_median(sketch, args.repeat):7.2f} s "
        f"({partitions} partitions merged on the driver)"
    )
    spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
