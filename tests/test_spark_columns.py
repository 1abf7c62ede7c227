"""The column mechanisms on Spark (local mode): the same release as DuckDB's, byte for byte.

Laws: for the same seed, ``release --engine spark`` writes the document of
``--engine duckdb`` but for its ``engine`` field, for every column entry that reads
statistics, from CSV and Parquet (integer columns through Spark's exact decimals,
text columns through their distinct texts); Spark's statistics are numpy's; a refused
value is a ParameterError (exit status 2), never a release.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pytest
from cli_run import run
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("pyspark")


from finitedp.engines.spark import SparkStatistics
from finitedp.errors import ParameterError
from finitedp.registry import COLUMNS
from finitedp.statistics import ArrayStatistics

ROWS = [(i % 7 - 3, (i * 5) % 9, f"{(i * 3) % 5}/4") for i in range(40)]
SPEC = [("a", -3, 3, 1), ("b", 0, 8, 1), ("c", 0, 1, "1/4")]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("spark-columns")
    csv = folder / "t.csv"
    csv.write_text("a,b,c\n" + "".join(f"{a},{b},{c}\n" for a, b, c in ROWS), encoding="utf-8")
    parquet = folder / "t.parquet"
    duckdb.sql(
        f"COPY (SELECT a::INTEGER AS a, b::BIGINT AS b, c FROM read_csv('{csv}', all_varchar "
        f"= true)) TO '{parquet}' (FORMAT parquet)"
    )
    return {"csv": csv, "parquet": parquet}


def _expected() -> ArrayStatistics:
    columns = [
        np.array([r[0] + 3 for r in ROWS]),
        np.array([r[1] for r in ROWS]),
        np.array([int(r[2].split("/")[0]) for r in ROWS]),
    ]
    return ArrayStatistics(columns)


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_spark_statistics_are_the_rows_statistics(
    spark: Any, files: dict[str, Path], kind: str
) -> None:
    reader = spark.read
    frame = (
        reader.parquet(str(files[kind]))
        if kind == "parquet"
        else reader.csv(str(files[kind]), header=True)
    )
    stats, expected = SparkStatistics(frame, SPEC), _expected()
    assert [g is not None for g in stats.grids] == [kind == "parquet"] * 2 + [False]
    assert stats.n == expected.n and stats.column_sums() == expected.column_sums()
    for i in range(3):
        assert stats.column_counts(i).pairs() == expected.column_counts(i).pairs()


def _release(path: Path, name: str, engine: str, capsys: pytest.CaptureFixture[str]) -> Any:
    budget = ["--rho", "1/2"] if COLUMNS[name].budget == "rho" else ["--epsilon", "1"]
    argv = ["release", str(path), "--mechanism", name, *budget, "--columns", "a,b,c"]
    argv += ["--bounds=-3:3,0:8,0:1", "--grid", "1,1,1/4", "--seed", "5eed", "--quiet"]
    code, out, err = run([*argv, "--engine", engine], capsys)
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize("kind", ["csv", "parquet"])
@pytest.mark.parametrize("name", [n for n, e in COLUMNS.items() if e.reads != "rows"])
def test_every_engine_writes_the_same_release(
    spark: Any, files: dict[str, Path], capsys: pytest.CaptureFixture[str], kind: str, name: str
) -> None:
    duck = _release(files[kind], name, "duckdb", capsys)
    sparked = _release(files[kind], name, "spark", capsys)
    assert duck.pop("engine") == "duckdb" and sparked.pop("engine") == "spark"
    assert json.dumps(duck) == json.dumps(sparked)


def test_a_refused_value_is_an_error_on_spark(spark: Any) -> None:
    frame = spark.createDataFrame([(1,), (9,)], "v long")
    with pytest.raises(ParameterError, match="value 9 is outside"):
        SparkStatistics(frame, [("v", 0, 4, 1)]).column_sums()
    with pytest.raises(ParameterError, match="value 9 is outside"):
        SparkStatistics(frame, [("v", 0, 4, 1)]).column_counts(0)
    text = spark.createDataFrame([("1",), ("x",)], "v string")
    with pytest.raises(ParameterError, match="not an exact number"):
        SparkStatistics(text, [("v", 0, 4, 1)]).column_sums()
    nulls = spark.createDataFrame([(1,), (None,)], "v long")
    with pytest.raises(ParameterError, match="null"):
        SparkStatistics(nulls, [("v", 0, 4, 1)]).column_sums()
    with pytest.raises(ParameterError, match="no column 'w'"):
        SparkStatistics(frame, [("w", 0, 4, 1)])


def test_both_integer_paths_and_clamp_on_spark(spark: Any) -> None:
    frame = spark.createDataFrame([(0, -5), (2, 3), (4, 99), (4, 7)], "v long, w long")
    stats = SparkStatistics(frame, [("v", 0, 8, 2), ("w", 0, 10, 1)], clamp=True)
    assert [g is not None and g.map.every_integer for g in stats.grids] == [False, True]
    assert stats.column_sums() == [0 + 1 + 2 + 2, 0 + 3 + 10 + 7]
    assert stats.column_counts(0).pairs() == [(0, 1), (1, 1), (2, 2)]
    assert stats.column_counts(1).pairs() == [(0, 1), (3, 1), (7, 1), (10, 1)]
    odd = spark.createDataFrame([(1,)], "v long")
    with pytest.raises(ParameterError, match="not on the grid"):
        SparkStatistics(odd, [("v", 0, 8, 2)]).column_sums()


def test_a_column_name_with_a_dot_is_read_literally(spark: Any) -> None:
    frame = spark.createDataFrame([(1, "2"), (3, "4")], "`a.b` long, `c``d` string")
    stats = SparkStatistics(frame, [("a.b", 0, 4, 1), ("c`d", 0, 4, 1)])
    assert stats.column_sums() == [4, 6]
    assert stats.column_counts(0).pairs() == [(1, 1), (3, 1)]


def test_plan_mean_on_spark_is_the_duckdb_release(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PLAN's rows in Spark, read in several partitions (the pairs cross them), from
    integer Parquet columns and CSV texts (joined with their indices): the same document as
    DuckDB's SQL and as the rows read into memory (CSV)."""
    rng = np.random.default_rng(3)
    data = rng.integers(-20, 21, size=(3001, 3))
    csv = tmp_path / "rows.csv"
    csv.write_text(
        "a,b,c\n" + "".join(",".join(map(str, r)) + "\n" for r in data.tolist()), encoding="utf-8"
    )
    parquet = tmp_path / "rows.parquet"
    duckdb.sql(
        f"COPY (SELECT a::INTEGER AS a, b::BIGINT AS b, c::SMALLINT AS c FROM read_csv('{csv}')) "
        f"TO '{parquet}' (FORMAT parquet, ROW_GROUP_SIZE 2048)"
    )
    argv = ["--mechanism", "plan-mean", "--rho", "1/2", "--columns", "a,b,c", "--bounds=-20:20"]
    argv += ["--seed", "91", "--quiet"]
    spark.conf.set("spark.sql.files.maxPartitionBytes", "4096")
    try:
        outs = [
            run(["release", str(path), *argv, "--engine", engine], capsys)
            for path, engine in (
                (parquet, "spark"),
                (parquet, "duckdb"),
                (csv, "duckdb"),
                (csv, "spark"),
            )
        ]
        assert spark.read.parquet(str(parquet)).rdd.getNumPartitions() > 1
    finally:
        spark.conf.unset("spark.sql.files.maxPartitionBytes")
    documents = []
    for code, out, err in outs:
        assert code == 0, err
        document = json.loads(out)
        document.pop("engine")
        documents.append(json.dumps(document))
    assert documents[0] == documents[1] == documents[2] == documents[3]


def test_spark_rows_answer_as_the_rows_do(spark: Any) -> None:
    """Integer and text columns, clamped: every row statistic is the in-memory one."""
    from finitedp.engines.spark import SparkRows

    rows = [(i % 13 - 4, f"{(i * 7) % 9}/2") for i in range(57)]
    frame = spark.createDataFrame(rows, "a long, b string").repartition(3)
    frame = spark.createDataFrame(frame.rdd.zipWithIndex().map(lambda x: (*x[0], x[1])))
    frame = frame.orderBy("_3").drop("_3").toDF("a", "b")  # three partitions, rows in order
    ordered = [(int(a), str(b)) for a, b in frame.collect()]
    stats = SparkRows(frame, [("a", -2, 6, 1), ("b", 0, 4, "1/2")], clamp=True)
    memory = ArrayStatistics(
        [
            np.array([min(max(a, -2), 6) + 2 for a, _ in ordered]),
            np.array([int(b.split("/")[0]) for _, b in ordered]),
        ]
    )
    centre, scales, radii = [3, 4], [5, 9], [1, 5, 9, 20, 40, 80]
    assert stats.n == memory.n and stats.column_sums() == memory.column_sums()
    levels = [1, 2, 3, 5, 8]
    assert [g.pairs() for g in stats.gap_counts(levels)] == [
        g.pairs() for g in memory.gap_counts(levels)
    ]
    got, want = stats.norm_counts(centre, scales, radii), memory.norm_counts(centre, scales, radii)
    assert got.pairs() == want.pairs()
    for within in (0, 9, 40, 1000):
        assert stats.rounded_sums(centre, scales, 3, 17, within) == memory.rounded_sums(
            centre, scales, 3, 17, within
        )
        beyond = [
            (*r, n)
            for b, ns in stats.rows_beyond(centre, scales, within)
            for r, n in zip(b.tolist(), ns, strict=True)
        ]
        kept = [
            (*r, n)
            for b, ns in memory.rows_beyond(centre, scales, within)
            for r, n in zip(b.tolist(), ns, strict=True)
        ]
        assert sorted(beyond) == sorted(kept)
    nulls = spark.createDataFrame([("1",), (None,)], "v string")
    with pytest.raises(ParameterError, match="null"):
        SparkRows(nulls, [("v", 0, 4, 1)]).column_sums()


def test_baskets_on_spark_are_the_duckdb_release(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A basket file (CRLF, blank lines, repeats) and the same baskets as a list column:
    Spark's document is DuckDB's; a refused line is named by the file's reader."""
    lines = ["3 1", "", "2 2 0", "1", "4\t3 1 0", "1 3"] * 7
    text = tmp_path / "b.dat"
    text.write_bytes(("\r\n".join(lines) + "\r\n").encode("ascii"))
    lists = ", ".join(
        f"({j}, {[int(t) for t in line.split()]}::BIGINT[])" for j, line in enumerate(lines)
    )
    parquet = tmp_path / "b.parquet"
    duckdb.sql(
        f"COPY (SELECT ids FROM (VALUES {lists}) t(j, ids) ORDER BY j) TO '{parquet}' "
        "(FORMAT parquet)"
    )
    argv = ["--format", "baskets", "--items", "5", "--mechanism", "plan-mean", "--rho", "1"]
    argv += ["--seed", "77", "--quiet"]
    documents = []
    for path, extra in ((text, []), (parquet, ["--columns", "ids"])):
        for engine in ("duckdb", "spark"):
            code, out, err = run(["release", str(path), *argv, *extra, "--engine", engine], capsys)
            assert code == 0, err
            document = json.loads(out)
            document.pop("engine")
            documents.append(json.dumps(document))
    assert len(set(documents)) == 1
    bad = tmp_path / "bad.dat"
    bad.write_text("1 2\n3 x\n", encoding="ascii")
    code, _, err = run(["release", str(bad), *argv, "--engine", "spark"], capsys)
    assert code == 2 and "line 2: 'x' is not an item id" in err
    code, _, err = run(
        ["release", str(parquet), *argv, "--items", "4", "--columns", "ids", "--engine", "spark"],
        capsys,
    )
    assert code == 2 and "is not a basket" in err


def test_one_pass_summary_pairs_rows_across_uneven_partitions(spark: Any) -> None:
    """Integer columns on small grids take one job for counts and gaps: partitions of odd,
    even and zero sizes (pairs crossing them), against the rows in memory; a value out of
    its bounds falls back to the column-by-column path, which names it."""
    from finitedp.engines.spark import SparkRows

    rng = np.random.default_rng(11)
    sizes = [3, 0, 4, 1, 1, 0, 6, 5]
    data = rng.integers(0, 30, size=(sum(sizes), 2))
    parts, at = [], 0
    for size in sizes:
        parts.append([(int(a), int(b)) for a, b in data[at : at + size].tolist()])
        at += size
    rdd = spark.sparkContext.parallelize(range(len(sizes)), len(sizes))
    frame = rdd.mapPartitionsWithIndex(lambda i, _: iter(parts[i])).toDF("a long, b long")
    stats = SparkRows(frame, [("a", 0, 29, 1), ("b", 0, 29, 1)])
    memory = ArrayStatistics([data[:, 0], data[:, 1]])
    assert stats.n == memory.n == 20 and stats.column_sums() == memory.column_sums()
    assert stats._raw_gaps is not None  # the one-pass summary was taken
    for i in range(2):
        assert stats.column_counts(i).pairs() == memory.column_counts(i).pairs()
    for levels in ([1, 2, 4, 8, 16, 32], [0, 29]):
        assert [g.pairs() for g in stats.gap_counts(levels)] == [
            g.pairs() for g in memory.gap_counts(levels)
        ]
    centre, scales = [14, 15], [3, 5]
    radii = [1, 10, 40, 90]
    got = stats.norm_counts(centre, scales, radii).pairs()
    assert got == memory.norm_counts(centre, scales, radii).pairs()

    def rows(source: Any, within: int, by: list[int] = scales) -> list[tuple[int, ...]]:
        return sorted(
            (*r, n)
            for b, ns in source.rows_beyond(centre, by, within)
            for r, n in zip(b.tolist(), ns, strict=True)
        )

    for within in (0, 40, 10**6):  # none within (a centre no row has), some, all
        assert stats.rounded_sums(centre, scales, 3, 17, within) == memory.rounded_sums(
            centre, scales, 3, 17, within
        )
        assert rows(stats, within) == rows(memory, within)
        assert rows(stats, within) == rows(memory, within)  # asked alone: a job of their own
    # a partition with more rows beyond than it hands over with the sums: asked again;
    # huge scales and a small radius: terms of about 2^53, summed a few at a time
    from finitedp.engines.spark import rows as spark_rows

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(spark_rows, "BEYOND_KEPT", 1)
        for within, huge in ((40, scales), (7, [1 << 28, (1 << 28) - 3])):
            got = stats.rounded_sums(centre, huge, 1 << 13, 3, within)
            assert got == memory.rounded_sums(centre, huge, 1 << 13, 3, within)
            assert stats._beyond is None
            assert rows(stats, within, huge) == rows(memory, within, huge)
    # scales at and past |w| < 2^40: the arrays' words, then Spark SQL's decimals
    import bisect
    from math import isqrt

    for big in (1 << 34, 1 << 37):  # |w| up to 15 * 2^34 < 2^40, then 15 * 2^37
        wide = [big, big - 1]
        norms = [
            sum(((v - m) * p) ** 2 for v, m, p in zip(r, centre, wide, strict=True))
            for r in data.tolist()
        ]
        radii2 = sorted({1, *(isqrt(x) for x in norms), *(isqrt(x) + 1 for x in norms)})
        squares = [r * r for r in radii2]
        want: dict[int, int] = {}
        for x in norms:
            k = min(bisect.bisect_left(squares, x), len(squares) - 1)
            want[k] = want.get(k, 0) + 1
        assert stats.norm_counts(centre, wide, radii2).pairs() == sorted(want.items())
    beyond = SparkRows(frame, [("a", 0, 20, 1), ("b", 0, 29, 1)])
    with pytest.raises(ParameterError, match=r"column 'a': value \d+ is outside \[0, 20\]"):
        beyond.column_sums()
    assert beyond._raw_gaps is None


def test_every_columns_counts_come_from_one_job(spark: Any) -> None:
    """The counts need no noisy answer in between: the first column's question runs the
    job for all integer columns, and the others run none (equal to one by one)."""
    rows = [(i % 7, (i * 3) % 11, i % 2) for i in range(300)]
    frame = spark.createDataFrame(rows, "a long, b int, c long").repartition(3)
    columns = [("a", 0, 6, 1), ("b", 0, 10, 1), ("c", 0, 1, 1)]
    stats = SparkStatistics(frame, columns)
    context = spark.sparkContext
    context.setJobGroup("first-column", "first")
    first = stats.column_counts(0)
    assert len(context.statusTracker().getJobIdsForGroup("first-column")) >= 1
    context.setJobGroup("other-columns", "others")
    others = [stats.column_counts(1), stats.column_counts(2)]
    assert context.statusTracker().getJobIdsForGroup("other-columns") == []
    memory = ArrayStatistics([np.array([r[i] for r in frame.collect()]) for i in range(3)])
    assert [c.pairs() for c in (first, *others)] == [
        memory.column_counts(i).pairs() for i in range(3)
    ]
    assert stats.n == 300


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_norm_levels_in_arrays_are_the_exact_levels(data: Any) -> None:
    """Two 40-bit words per squared norm, searched on the high word and then on the low
    one among the radii that share it: each row's level is the exact least radius at or
    above its norm (radii at and around the rows' own norms, and up to 2^50)."""
    import bisect
    from math import isqrt

    from finitedp.engines.spark.arrowtasks import norm_levels

    d = data.draw(st.integers(1, 8))
    span = data.draw(st.integers(1, 2000))
    rows = data.draw(
        st.lists(st.lists(st.integers(0, span), min_size=d, max_size=d), min_size=1, max_size=40)
    )
    centre = data.draw(st.lists(st.integers(0, span), min_size=d, max_size=d))
    scales = data.draw(
        st.lists(st.integers(1, (1 << (40 - span.bit_length())) - 1), min_size=d, max_size=d)
    )
    s = [
        sum(((v - m) * p) ** 2 for v, m, p in zip(row, centre, scales, strict=True)) for row in rows
    ]
    edges = {isqrt(x) + e for x in s for e in (-1, 0, 1)}
    radii = sorted({r for r in edges | set(data.draw(st.lists(st.integers(1, 1 << 50)))) if r > 0})
    squares = [r * r for r in radii]
    high = np.array([q >> 40 for q in squares], dtype=np.int64)
    low = np.array([q & ((1 << 40) - 1) for q in squares], dtype=np.int64)
    columns = [np.array([row[i] for row in rows], dtype=np.int64) for i in range(d)]
    got = norm_levels(columns, centre, scales, high, low).tolist()
    assert got == [min(bisect.bisect_left(squares, x), len(squares) - 1) for x in s]
