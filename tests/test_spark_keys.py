"""A column of keys on Spark (local mode): every histogram, stream and weighted mechanism.

Laws: for the same seed, ``release --engine spark`` writes ``--engine duckdb``'s
document but for its ``engine`` field, for every histogram mechanism, every stream
mechanism (whose release depends on the rows' order: the file is read in several
partitions, so the order crosses them) and every mechanism that takes a value column, from CSV and
Parquet; a refused key or value is a ParameterError naming its line, as DuckDB's
path names it, never a release.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import duckdb
import pytest
from cli_run import run

pytest.importorskip("pyspark")

from finitedp.registry import MECHANISMS

HISTOGRAMS = [name for name, e in MECHANISMS.items() if e.public_n and not e.weighted]
STREAMS = [name for name, e in MECHANISMS.items() if not e.public_n]
WEIGHTED = [name for name, e in MECHANISMS.items() if e.weighted]
OPTIONS = {
    "stability": ["--delta", "1/1000"],
    "pmg": ["--k", "3", "--delta", "1/1000"],
    "pmg-pure": ["--k", "3", "--max-length", "5000"],
}

#: Keys whose first appearances are not in sorted order (and amounts in four spellings).
CITIES = ["Zürich", "東京", "Lima", "Oslo", "Bern", "Ålesund"]


def _rows() -> list[tuple[str, str, str]]:
    """A stream whose favourite key changes halfway (its sketch depends on the order)."""
    rng = random.Random(7)
    rows = []
    for i in range(2400):
        weights = [4, 1, 3, 1, 1, 1] if i < 1200 else [4, 1, 1, 3, 1, 1]
        city = rng.choices(CITIES, weights)[0]
        rows.append((city, ("2.5", "3", "1/4", "0.75")[i % 4], str(rng.randint(1, 40))))
    return rows


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("spark-keys")
    csv = folder / "k.csv"
    csv.write_text(
        "city,amount,id\n" + "".join(f"{','.join(r)}\n" for r in _rows()), encoding="utf-8"
    )
    parquet = folder / "k.parquet"
    duckdb.sql(
        f"COPY (SELECT city, amount, id::INTEGER AS id FROM read_csv('{csv}', all_varchar = "
        f"true)) TO '{parquet}' (FORMAT parquet, ROW_GROUP_SIZE 300)"
    )
    return {"csv": csv, "parquet": parquet}


def _documents(
    spark: Any,
    path: Path,
    flags: list[str],
    capsys: pytest.CaptureFixture[str],
    keys: tuple[str, str] = ("city", "utf8:12"),
) -> list[str]:
    argv = ["release", str(path), "--column", keys[0], "--universe", keys[1], "--epsilon"]
    argv += ["1", "--seed", "c17e", "--quiet", *flags]
    # about four partitions (more only cost Spark's per-task time)
    spark.conf.set("spark.sql.files.maxPartitionBytes", str(path.stat().st_size // 4 + 1))
    try:
        outs = [run([*argv, "--engine", engine], capsys) for engine in ("duckdb", "spark")]
        parts = (
            spark.read.csv(str(path)) if path.suffix == ".csv" else spark.read.parquet(str(path))
        )
        assert parts.rdd.getNumPartitions() > 1
    finally:
        spark.conf.unset("spark.sql.files.maxPartitionBytes")
    documents = []
    for (code, out, err), engine in zip(outs, ("duckdb", "spark"), strict=True):
        assert code == 0, err
        document = json.loads(out)
        assert document.pop("engine") == engine
        documents.append(json.dumps(document))
    return documents


@pytest.mark.parametrize("kind", ["csv", "parquet"])
@pytest.mark.parametrize("name", HISTOGRAMS)
def test_a_histogram_on_spark_is_the_duckdb_release(
    spark: Any, files: dict[str, Path], capsys: pytest.CaptureFixture[str], kind: str, name: str
) -> None:
    """Each histogram mechanism: over text keys, and over integer keys (a Parquet
    integer column, read as its text) for the dense one."""
    keys = ("id", "int:40") if name == "bounded-geometric" else ("city", "utf8:12")
    flags = ["--mechanism", name, *OPTIONS.get(name, [])]
    duck, sparked = _documents(spark, files[kind], flags, capsys, keys)
    assert duck == sparked


@pytest.mark.parametrize("kind", ["csv", "parquet"])
@pytest.mark.parametrize("name", STREAMS)
def test_a_stream_mechanism_on_spark_is_the_duckdb_release(
    spark: Any, files: dict[str, Path], capsys: pytest.CaptureFixture[str], kind: str, name: str
) -> None:
    duck, sparked = _documents(spark, files[kind], ["--mechanism", name, *OPTIONS[name]], capsys)
    assert duck == sparked


def test_the_order_of_the_stream_reaches_the_release(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The law above is not vacuous: the same rows in another order give another sketch."""
    lines = files["csv"].read_text(encoding="utf-8").splitlines()
    turned = tmp_path / "turned.csv"
    turned.write_text("\n".join([lines[0], *sorted(lines[1:])]) + "\n", encoding="utf-8")
    argv = ["--column", "city", "--universe", "utf8:12", "--epsilon", "1", "--seed", "c17e"]
    argv += ["--quiet", "--mechanism", "pmg", *OPTIONS["pmg"]]
    outs = [run(["release", str(path), *argv], capsys) for path in (turned, files["csv"])]
    assert outs[0][0] == outs[1][0] == 0 and outs[0][1] != outs[1][1]


@pytest.mark.parametrize("kind", ["csv", "parquet"])
@pytest.mark.parametrize("name", WEIGHTED)
def test_a_value_column_on_spark_is_the_duckdb_release(
    spark: Any, files: dict[str, Path], capsys: pytest.CaptureFixture[str], kind: str, name: str
) -> None:
    flags = ["--mechanism", name, "--value-column", "amount", "--value-bound", "3"]
    duck, sparked = _documents(spark, files[kind], [*flags, "--value-step", "1/4"], capsys)
    assert duck == sparked


@pytest.mark.parametrize(
    ("text", "flags", "message"),
    [
        ("city,amount\nLima,1\nOslo,9\n", ["--mechanism", "alp"], r"line 3: value 9 is outside"),
        ("city,amount\nLima,1\nfar too long a name,1\n", ["--mechanism", "alp"], r"line 3"),
        ("city,amount\nLima,1\nfar too long a name,1\n", ["--mechanism", "pmg"], r"line 3"),
    ],
)
def test_a_refused_key_or_value_is_named_on_spark(
    spark: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    text: str,
    flags: list[str],
    message: str,
) -> None:
    csv = tmp_path / "bad.csv"
    csv.write_text(text, encoding="utf-8")
    if "alp" in flags:
        flags = [*flags, "--value-column", "amount", "--value-bound", "3"]
    else:
        flags = [*flags, *OPTIONS["pmg"]]
    argv = ["release", str(csv), "--column", "city", "--universe", "utf8:8", "--epsilon", "1"]
    code, out, err = run([*argv, *flags, "--engine", "spark", "--quiet"], capsys)
    assert code == 2 and out == "" and "Traceback" not in err
    assert pytest.importorskip("re").search(message, err), err


def test_a_refused_histogram_key_is_named_on_spark(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    csv = tmp_path / "keys.csv"
    csv.write_text("id\n3\n7\n41\n", encoding="utf-8")
    argv = ["release", str(csv), "--column", "id", "--universe", "int:40", "--epsilon", "1"]
    code, out, err = run([*argv, "--engine", "spark", "--quiet"], capsys)
    assert code == 2 and out == "" and "line 4" in err and "41" in err, err


def test_the_distinct_keys_stop_at_the_memory_limit(
    spark: Any, files: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The driver holds each distinct key (and value): past the limit, a refusal by name."""
    from finitedp.engines.spark import keys
    from finitedp.errors import ResourceLimitError
    from finitedp.io.tables import opened_input
    from finitedp.io.universe import parse_universe

    monkeypatch.setattr(keys, "DISTINCT_BYTES", 1 << 40)
    rows = [(i,) for i in range(1 << 16)]
    assert list(keys._distinct(iter(rows[:100]), "the distinct keys", "f")) == rows[:100]
    with pytest.raises(ResourceLimitError, match="the distinct keys"):
        list(keys._distinct(iter(rows), "the distinct keys", "f"))
    with opened_input(str(files["csv"]), "csv") as source:  # a few keys: far below it
        assert keys.file_stream(source, "city", parse_universe("utf8:12")).n == 2400


def _both(
    csv: Path, flags: list[str], capsys: pytest.CaptureFixture[str]
) -> list[tuple[int, str, str]]:
    argv = ["release", str(csv), *flags, "--epsilon", "1", "--seed", "e1", "--quiet"]
    return [run([*argv, "--engine", engine], capsys) for engine in ("duckdb", "spark")]


def test_an_empty_key_field_is_the_empty_string_on_both_engines(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Spark reads an empty field as a null by default; read as DuckDB reads it, a quoted
    # and an unquoted empty field are both the empty string, a key utf8:8 accepts.
    csv = tmp_path / "empty.csv"
    csv.write_text('city,amount\nLima,1\n,2\n"",3\nOslo,1\n', encoding="utf-8")
    for flags in (
        ["--column", "city", "--universe", "utf8:8"],
        ["--column", "city", "--universe", "utf8:8", *OPTIONS["pmg"], "--mechanism", "pmg"],
    ):
        (code, duck, err), (code_s, sparked, err_s) = _both(csv, flags, capsys)
        assert code == code_s == 0, err + err_s
        documents = [json.loads(out) for out in (duck, sparked)]
        assert documents[0].pop("engine") == "duckdb" and documents[1].pop("engine") == "spark"
        assert documents[0] == documents[1]


@pytest.mark.parametrize("row", ["Bern,1,extra", "Bern"])
@pytest.mark.parametrize(
    "flags",
    [
        ["--column", "city", "--universe", "utf8:8"],
        ["--mechanism", "vector-laplace", "--columns", "amount", "--bounds", "0:4", "--grid", "1"],
    ],
)
def test_a_row_with_more_or_fewer_fields_is_refused_by_both_engines(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str], row: str, flags: list[str]
) -> None:
    # Spark would cut a long row and pad a short one with a null; FAILFAST refuses both,
    # as DuckDB's reader does, wherever the job that reads the row runs.
    csv = tmp_path / "ragged.csv"
    csv.write_text(f"city,amount\nLima,1\n{row}\nOslo,1\n", encoding="utf-8")
    (code, out, err), (code_s, out_s, err_s) = _both(csv, flags, capsys)
    assert code == code_s == 2 and out == out_s == "", err + err_s
    assert "Traceback" not in err + err_s
    assert "line 3" in err, err
    assert "more or fewer fields than the header" in err_s and row in err_s, err_s


def test_spark_errors_become_one_line_refusals() -> None:
    from finitedp.engines.spark.session import spark_refusal

    class Py4JJavaError(Exception):  # the name py4j gives Java's errors
        pass

    Py4JJavaError.__module__ = "py4j.protocol"
    java = Py4JJavaError(
        "...\nCaused by: [MALFORMED_CSV_RECORD] Malformed CSV record: a,b,c SQLSTATE"
    )
    refusal = spark_refusal(java)
    assert refusal is not None and "'a,b,c'" in str(refusal)
    # Any other error of Spark's: its deepest cause, without the Java class name.
    other = spark_refusal(
        Py4JJavaError(
            "An error occurred while calling o1.csv.\n: org.apache.spark.SparkException: "
            "outer\n\tat x\nCaused by: java.io.IOException: the footer is wrong\n\tat y"
        )
    )
    assert other is not None and str(other) == "Spark cannot read it: the footer is wrong"
    assert spark_refusal(ValueError("Malformed CSV record: a")) is None
    assert spark_refusal(KeyError("x")) is None
