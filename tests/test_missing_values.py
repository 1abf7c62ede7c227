"""Missing values under a declared policy (``--nulls``, issue 51).

Laws: ``--nulls VALUE`` releases exactly what the same file with ``VALUE`` written in
place of every missing value releases (the map is row-wise; same seed, same document
but for the policy field), on CSV (an empty field) and Parquet (a NULL), for key
columns and numeric ones, on DuckDB and Spark alike; ``--nulls key`` counts missing
keys as ``(null)``; a replacement the column cannot hold is refused before any data
is read; without a policy the refusal names the column that holds the NULL.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest
from cli_run import run

SUMS = ["--mechanism", "vector-laplace", "--columns", "a,b", "--bounds=-5:5", "--epsilon", "1"]
KEYS = ["--column", "k", "--universe", "utf8:6", "--epsilon", "2"]


def _release(path: Path, flags: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code, out, err = run(["release", str(path), *flags, "--seed", "0d", "--quiet"], capsys)
    assert code == 0, err
    document: dict[str, Any] = json.loads(out)
    return document


def _without_policy(document: dict[str, Any]) -> dict[str, Any]:
    document["parameters"].pop("nulls", None)
    for column in document["parameters"].get("columns", []):
        column.pop("nulls", None)
    return document


def _parquet(path: Path, rows: str, names: str) -> Path:
    duckdb.sql(f"COPY (SELECT * FROM (VALUES {rows}) t({names})) TO '{path}' (FORMAT parquet)")
    return path


def test_a_csv_value_policy_is_the_file_with_the_value_written_in(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    holes = tmp_path / "holes.csv"
    holes.write_text("a,b\n1,\n,-2\n3,4\n,\n", encoding="utf-8")
    filled = tmp_path / "filled.csv"
    filled.write_text("a,b\n1,0\n0,-2\n3,4\n0,0\n", encoding="utf-8")
    got = _release(holes, [*SUMS, "--nulls", "0"], capsys)
    assert got["parameters"]["columns"][0]["nulls"] == "0"
    assert _without_policy(got) == _release(filled, SUMS, capsys)
    per_column = _release(holes, [*SUMS, "--nulls", "0,-1"], capsys)
    written = tmp_path / "per.csv"
    written.write_text("a,b\n1,-1\n0,-2\n3,4\n0,-1\n", encoding="utf-8")
    assert _without_policy(per_column) == _release(written, SUMS, capsys)


def test_a_parquet_null_takes_the_value_in_an_integer_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    holes = _parquet(tmp_path / "h.parquet", "(1, NULL), (NULL, -2), (3, 4)", "a, b")
    filled = _parquet(tmp_path / "f.parquet", "(1, 5), (5, -2), (3, 4)", "a, b")
    got = _release(holes, [*SUMS, "--nulls", "5"], capsys)
    assert _without_policy(got) == _release(filled, SUMS, capsys)


def test_key_policies(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    holes = _parquet(tmp_path / "k.parquet", "('A'), (NULL), ('B'), (NULL)", "k")
    named = _parquet(tmp_path / "n.parquet", "('A'), ('(null)'), ('B'), ('(null)')", "k")
    as_key = _release(holes, [*KEYS, "--nulls", "key"], capsys)
    assert as_key["parameters"]["nulls"] == "(null)"
    assert _without_policy(as_key) == _release(named, KEYS, capsys)
    listed = ["--column", "k", "--universe", "keys=A,B", "--epsilon", "2"]
    document = _release(holes, [*listed, "--nulls", "key"], capsys)
    assert document["keys"] == ["A", "B", "(null)"]
    imputed = _release(holes, [*listed, "--nulls", "B"], capsys)
    assert imputed["keys"] == ["A", "B"] and imputed["parameters"]["n"] == 4


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        ([*SUMS, "--nulls", "1/2"], "--nulls: '1/2' for column 'a'.*not on the grid"),
        ([*SUMS, "--nulls", "9"], "--nulls: '9' for column 'a'.*outside"),
        ([*SUMS, "--nulls", "0,0,0"], "3 policies for 2 columns"),
        ([*SUMS, "--nulls", "key"], "'key' counts missing keys"),
        (["--column", "k", "--universe", "keys=A,B", "--epsilon", "1", "--nulls", "C"], "C"),
    ],
)
def test_a_replacement_the_column_cannot_hold_is_refused_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], message: str
) -> None:
    path = tmp_path / "f.csv"
    path.write_text("a,b,k\n1,,A\n", encoding="utf-8")
    code, out, err = run(["release", str(path), *flags, "--quiet"], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert __import__("re").search(message, err), err


def test_without_a_policy_the_refusal_names_the_column_with_the_null(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _parquet(tmp_path / "y.parquet", "(2013, 10), (2013, NULL)", "year, air_time")
    flags = ["--mechanism", "vector-laplace", "--columns", "year,air_time"]
    flags += ["--bounds", "0:3000", "--epsilon", "1", "--quiet"]
    code, _, err = run(["release", str(path), *flags], capsys)
    assert code == 2 and "'air_time'" in err and "'year'" not in err and "--nulls" in err, err


def test_spark_reads_the_policy_as_duckdb_does(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    csv = tmp_path / "h.csv"
    csv.write_text("a,b,k\n1,,A\n,-2,\n3,4,B\n", encoding="utf-8")
    parquet = _parquet(tmp_path / "h.parquet", "(1, NULL, 'A'), (NULL, -2, NULL)", "a, b, k")
    for path in (csv, parquet):
        for flags in ([*SUMS, "--nulls", "0"], [*KEYS, "--nulls", "key"]):
            duck = _release(path, [*flags, "--engine", "duckdb"], capsys)
            sparked = _release(path, [*flags, "--engine", "spark"], capsys)
            assert duck.pop("engine") == "duckdb" and sparked.pop("engine") == "spark"
            assert duck == sparked, (path.name, flags)
