"""``finitedp release --format baskets --items D``: 0/1 rows given as lines of item ids (PLAN).

Issue 24 item 5: a basket file of ``n`` users over ``d`` public items is read as sets
(``O(items + d)``) and released as ``PLAN.release_sets`` does; every misuse is one clean
message with exit status 2.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import pytest
from cli_run import run

from finitedp import SeededSource
from finitedp.mean import PLAN

BASKETS = ["3 1", "", "2 2 0", "1", "4 3 1 0", "1 3"]
SETS = [[1, 3], [], [0, 2], [1], [0, 1, 3, 4], [1, 3]]
BASE = ["--mechanism", "plan-mean", "--rho", "2", "--seed", "00", "--quiet"]


@pytest.fixture
def baskets(tmp_path: Path) -> Path:
    path = tmp_path / "b.dat"
    path.write_bytes(("\r\n".join(BASKETS) + "\r\n").encode("ascii"))
    return path


def test_baskets_release_the_sets_as_the_api_does(
    baskets: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["release", str(baskets), "--format", "baskets", "--items", "5", *BASE]
    code, out, _ = run(argv, capsys)
    assert code == 0
    doc = json.loads(out)
    plan = PLAN(0, 1, d=5, n=6, rho=2, variance="binary", p=1)  # the defaults for 0/1 rows
    expected = plan.release_sets(SETS, SeededSource(bytes.fromhex("00")))
    assert doc["release"] == expected.to_json_dict()
    assert [e["column"] for e in doc["estimates"]] == ["0", "1", "2", "3", "4"]
    assert [Fraction(e["value"]) for e in doc["estimates"]] == list(expected.estimates)
    assert (doc["parameters"]["variance"], doc["parameters"]["p"], doc["parameters"]["n"]) == (
        "binary",
        1,
        6,
    )
    # the same rows as a CSV of 0/1 columns give the same release, draw for draw
    assert (
        plan.release_indices(
            [[int(i in s) for i in range(5)] for s in SETS], SeededSource(bytes.fromhex("00"))
        )
        == expected
    )


def test_options_still_apply(baskets: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["release", str(baskets), "--format", "baskets", "--items", "6", *BASE]
    code, out, _ = run([*argv, "--variance", "gaussian", "--rounds", "2"], capsys)
    assert code == 0
    doc = json.loads(out)
    assert doc["parameters"]["variance"] in ("gaussian", "uniform")
    assert doc["parameters"]["rounds"] == 2 and len(doc["release"]["rounds"]) == 2


@pytest.mark.parametrize(
    ("extra", "lines", "message"),
    [
        (["--items", "4"], BASKETS, r"line 5: item id 4 is not below --items 4"),
        (["--items", "9"], ["1 x"], r"line 1: 'x' is not an item id"),
        (["--items", "9"], ["1 -2"], r"line 1: '-2' is not an item id"),
        (["--items", "9"], ["1 2.0"], r"line 1: '2.0' is not an item id"),
        ([], BASKETS, r"--items: --format baskets needs it"),
        (["--items", "0"], BASKETS, r"--items: got 0; use an integer in \[1, 1048575\]"),
        (["--items", "1/2"], BASKETS, r"--items: got 1/2; use an integer"),
        (
            ["--items", "2", "--columns", "a"],
            BASKETS,
            r"--columns: a basket file \(one basket a line\) has no named columns",
        ),
        (["--items", "2", "--bounds", "0:1"], BASKETS, r"--bounds: a basket file has no"),
    ],
)
def test_bad_baskets_are_refused_by_name(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    lines: list[str],
    message: str,
) -> None:
    path = tmp_path / "bad.dat"
    path.write_text("\n".join(lines) + "\n", encoding="ascii")
    out_file = tmp_path / "out.json"
    argv = ["release", str(path), "--format", "baskets", *extra, *BASE, "--out", str(out_file)]
    code, out, err = run(argv, capsys)
    assert code == 2 and out == "" and not out_file.exists()
    assert err.count("\n") == 1
    assert re.search(message, err), err


def test_non_ascii_and_other_mechanisms_are_refused(
    tmp_path: Path, baskets: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "latin.dat"
    path.write_bytes(b"1 2\n\xff 3\n")
    code, _, err = run(["release", str(path), "--format", "baskets", "--items", "4", *BASE], capsys)
    assert code == 2 and "line 2: not ASCII text" in err
    argv = ["release", str(baskets), "--format", "baskets", "--items", "5", "--rho", "1"]
    code, _, err = run([*argv, "--mechanism", "vector-gaussian"], capsys)
    assert code == 2 and "basket files are read only by plan-mean" in err
    histogram = ["release", str(baskets), "--format", "baskets", "--epsilon", "1"]
    code, _, err = run([*histogram, "--universe", "int:5"], capsys)
    assert code == 2 and "basket files are read by plan-mean" in err
    code, _, err = run(["release", str(baskets), "--items", "5", *BASE], capsys)
    assert code == 2 and "--items: got 5; it goes with --format baskets" in err


def test_the_basket_file_is_read_once(
    baskets: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two passes (count, then parse) released a mixture of two versions of a file
    # that changed in between (issue 40): one open, one read.
    import finitedp.io.baskets as module

    opened: list[str] = []
    real_open = open

    def counting_open(path: object, *args: object, **kwargs: object) -> object:
        opened.append(str(path))
        return real_open(path, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(module, "open", counting_open, raising=False)
    argv = ["release", str(baskets), "--format", "baskets", "--items", "5", *BASE]
    code, out, _ = run(argv, capsys)
    assert code == 0 and json.loads(out)["parameters"]["n"] == 6
    assert opened == [str(baskets)]


def test_a_parquet_list_column_is_the_basket_file(
    baskets: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same baskets as a list column (ids repeated, unsorted): the same document."""
    import duckdb

    parquet = tmp_path / "b.parquet"
    lists = ", ".join(
        f"({j}, {[int(t) for t in line.split()]}::INTEGER[])" for j, line in enumerate(BASKETS)
    )
    duckdb.sql(
        f"COPY (SELECT ids FROM (VALUES {lists}) t(j, ids) ORDER BY j) TO '{parquet}' "
        "(FORMAT parquet)"
    )
    argv = ["--format", "baskets", "--items", "5", *BASE]
    code, text_doc, err = run(["release", str(baskets), *argv], capsys)
    assert code == 0, err
    code, list_doc, err = run(["release", str(parquet), *argv, "--columns", "ids"], capsys)
    assert code == 0, err
    assert list_doc == text_doc
    for extra, message in (
        ([], "--columns: name the list column"),
        (["--columns", "nope"], "has no column 'nope'"),
        (
            ["--items", "4", "--columns", "ids"],
            r"row 5, column 'ids': \[4, 3, 1, 0\] is not a basket",
        ),
    ):
        code, out, err = run(["release", str(parquet), *argv, *extra], capsys)
        assert code == 2 and out == "" and re.search(message, err), err
    scalar = tmp_path / "s.parquet"
    duckdb.sql(f"COPY (SELECT 1 AS ids) TO '{scalar}' (FORMAT parquet)")
    code, _, err = run(["release", str(scalar), *argv, "--columns", "ids"], capsys)
    assert code == 2 and "a basket column is a list of integer item ids" in err


def test_spark_without_pyspark_is_a_clear_refusal(
    baskets: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "pyspark", None)  # an import of it fails
    monkeypatch.setitem(sys.modules, "pyspark.sql", None)
    argv = ["release", str(baskets), "--format", "baskets", "--items", "5", *BASE]
    code, out, err = run([*argv, "--engine", "spark"], capsys)
    assert code == 2 and out == "" and "pyspark is not installed" in err, err
