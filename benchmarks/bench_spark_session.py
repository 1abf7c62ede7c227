"""Every column and key mechanism through the Spark engine, in one Spark session (issue 53 item 5).

Run: ``python benchmarks/bench_spark_session.py [--rows 10000000] [--columns 4] [--dir DIR]``
(needs ``finitedp[spark]`` and Java).

One Spark session (``local[2]``, its start timed apart) and two Parquet files made by
DuckDB: ``--columns`` integer columns on ``0..1000`` and one string key column over
10^4 Zipf-like keys.  Spark's own ``sum()`` of the columns, ``groupBy(c).count()`` of
each column and of the key are the references; then each mechanism's release through
:func:`finitedp.release` with ``engine="spark"`` in the same session (wall time and
the number of Spark jobs it ran, from the status tracker), its ratio to the reference,
and the same release through the DuckDB engine in the same process beside it.  Target:
within 3x of Spark's own aggregate for every mechanism.  It asserts nothing.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb

#: Column mechanisms, their budget, and the reference each is measured against.
COLUMNS = {
    "vector-laplace": ({"epsilon": 1}, "sum"),
    "vector-gaussian": ({"rho": "1/2"}, "sum"),
    "quantile-exponential": ({"epsilon": 1}, "groupby"),
    "quantile-binary": ({"epsilon": 1}, "groupby"),
    "plan-mean": ({"rho": "1/2"}, "groupby"),
}

#: Key mechanisms and their budget.
KEYS = {
    "stability": {"epsilon": 1, "delta": "1/1000000"},
    "pmg": {"epsilon": 1, "delta": "1/1000000", "k": 100},
    "alp": {"epsilon": 1, "delta": "1/1000000"},
}


def _timed(spark: Any, label: str, run: Callable[[], object]) -> tuple[float, int]:
    """Wall time and Spark jobs of one call (a job group of its own)."""
    context = spark.sparkContext
    group = f"bench-{label}-{time.monotonic_ns()}"
    context.setJobGroup(group, label)
    start = time.perf_counter()
    run()
    seconds = time.perf_counter() - start
    return seconds, len(context.statusTracker().getJobIdsForGroup(group))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10**7)
    parser.add_argument("--columns", type=int, default=4)
    parser.add_argument("--dir", default=tempfile.gettempdir())
    parser.add_argument("--only", default="", help="mechanisms to run, a,b (default: all)")
    args = parser.parse_args()
    d = args.columns
    numbers = Path(args.dir) / f"spark-columns-{args.rows}x{d}.parquet"
    keys = Path(args.dir) / f"spark-keys-{args.rows}.parquet"
    if not numbers.exists():
        values = ", ".join(f"(hash(i * {2 * k + 1}) % 1001)::BIGINT AS c{k}" for k in range(d))
        duckdb.sql(f"COPY (SELECT {values} FROM range({args.rows}) t(i)) TO '{numbers}'")
    if not keys.exists():
        key = "'k' || CAST(floor(10000 * pow(random(), 3)) AS INTEGER) AS key"
        duckdb.sql(f"COPY (SELECT {key} FROM range({args.rows})) TO '{keys}' (FORMAT parquet)")

    import finitedp
    from finitedp.engines.spark.session import spark_session

    start = time.perf_counter()
    spark = spark_session()
    print(f"Spark session started in {time.perf_counter() - start:.1f} s ({spark.version})")
    from pyspark.sql import functions as f

    frame = spark.read.parquet(str(numbers))
    names = [f"c{i}" for i in range(d)]
    reference = {
        "sum": _timed(spark, "sum", lambda: frame.agg(*[f.sum(c) for c in names]).collect()),
        "groupby": _timed(
            spark, "groupby", lambda: [frame.groupBy(c).count().collect() for c in names]
        ),
    }
    reference["sum"] = _timed(spark, "sum", lambda: frame.agg(*[f.sum(c) for c in names]).collect())
    frame_keys = spark.read.parquet(str(keys))
    reference["keys"] = _timed(spark, "keys", lambda: frame_keys.groupBy("key").count().collect())
    print(f"{args.rows:,} rows; Spark's own aggregates:")
    for what, (seconds, jobs) in reference.items():
        print(f"  {what:<9} {seconds:7.2f} s  {jobs:3d} jobs")
    common = {"columns": names, "bounds": "0:1000", "seed": "00"}
    runs: list[tuple[str, Callable[[str], object], str]] = []
    for name, (budget, against) in COLUMNS.items():
        runs.append(
            (
                name,
                lambda engine, n=name, b=budget: finitedp.release(  # type: ignore[misc]
                    str(numbers), mechanism=n, engine=engine, **common, **b
                ),
                against,
            )
        )
    for name, budget in KEYS.items():
        runs.append(
            (
                name,
                lambda engine, n=name, b=budget: finitedp.release(  # type: ignore[misc]
                    str(keys),
                    mechanism=n,
                    column="key",
                    universe="utf8:8",
                    engine=engine,
                    seed="00",
                    **b,
                ),
                "keys",
            )
        )
    print("mechanism              spark (jobs)        / Spark's own   duckdb   spark/duckdb")
    only = set(filter(None, args.only.split(",")))
    for name, run, against in runs:
        if only and name not in only:
            continue
        seconds, jobs = _timed(spark, name, lambda r=run: r("spark"))  # type: ignore[misc]
        start = time.perf_counter()
        run("duckdb")
        duck = time.perf_counter() - start
        base = reference[against][0]
        print(
            f"  {name:<21} {seconds:7.2f} s ({jobs:3d})  {seconds / base:6.2f}x {against:<7}"
            f" {duck:6.2f} s  {seconds / duck:6.2f}x"
        )


if __name__ == "__main__":
    main()
