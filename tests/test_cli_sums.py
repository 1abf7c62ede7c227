"""``finitedp release`` for sums of numeric columns (thesis chapter 4), and ``query`` by column."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from cli_run import run

from finitedp import SeededSource
from finitedp.aggregation.vectorsum import EllipticalGaussian, ParallelotopeLaplace
from finitedp.params import decimal_nearest
from finitedp.selection import Grid

ROWS = [("1", "0.25", "x"), ("-2", "1", "y"), ("2", "3/4", "z"), ("0", "0", "w")]


@pytest.fixture
def table(tmp_path: Path) -> Path:
    path = tmp_path / "v.csv"
    path.write_text("a,b,label\n" + "".join(",".join(r) + "\n" for r in ROWS), encoding="utf-8")
    return path


COMMON = ["--columns", "a,b", "--bounds=-2:2,0:1", "--grid", "1,1/4", "--seed", "00", "--quiet"]
GRIDS = [Grid(-2, 2), Grid(0, 1, "1/4")]
SUMS = [3 + 0 + 4 + 2, 1 + 4 + 3 + 0]


@pytest.mark.parametrize(
    ("name", "budget", "mechanism"),
    [
        ("vector-laplace", ["--epsilon", "1"], ParallelotopeLaplace(GRIDS, 4, 1)),
        ("vector-gaussian", ["--rho", "1/2"], EllipticalGaussian(GRIDS, 4, "1/2")),
    ],
)
def test_release_matches_the_api_and_states_its_guarantee(
    table: Path, capsys: pytest.CaptureFixture[str], name: str, budget: list[str], mechanism: object
) -> None:
    code, out, _ = run(["release", str(table), "--mechanism", name, *budget, *COMMON], capsys)
    assert code == 0
    doc = json.loads(out)
    expected = mechanism.release_sums(SUMS, SeededSource(bytes.fromhex("00")))  # type: ignore[attr-defined]
    assert [e["value"] for e in doc["estimates"]] == [str(e) for e in expected.estimates]
    assert doc["parameters"]["n"] == 4 and doc["neighbours"].startswith("replace one row")
    assert doc["accuracy"]["moment"] == str(mechanism.moment())  # type: ignore[attr-defined]
    assert doc["privacy"]["at_delta"]["delta"] == "1/1000000"
    assert doc["release"]["type"] == "vector-sum"


def test_parquet_gives_the_same_release(
    table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import duckdb

    parquet = tmp_path / "v.parquet"
    duckdb.sql(
        f"COPY (SELECT * FROM read_csv('{table}', all_varchar = true)) TO '{parquet}' "
        "(FORMAT PARQUET)"
    )
    argv = ["--mechanism", "vector-laplace", "--epsilon", "1", *COMMON]
    _, from_csv, _ = run(["release", str(table), *argv], capsys)
    _, from_parquet, _ = run(["release", str(parquet), *argv], capsys)
    assert json.loads(from_csv)["estimates"] == json.loads(from_parquet)["estimates"]


def test_query_by_column(table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_path = tmp_path / "r.json"
    argv = ["release", str(table), "--mechanism", "vector-laplace", "--epsilon", "1", *COMMON]
    assert run([*argv, "--out", str(out_path)], capsys)[0] == 0
    estimates = {e["column"]: e["value"] for e in json.loads(out_path.read_text())["estimates"]}
    margins = {  # the bound at beta and the sd, beside each estimate
        e["column"]: f"± {decimal_nearest(Fraction(e['noise_within']), 3)} "
        f"(sd {e['noise_sd_display']})"
        for e in json.loads(out_path.read_text())["estimates"]
    }
    code, out, _ = run(["query", str(out_path), "b", "a", "--exact"], capsys)
    assert code == 0 and out.splitlines() == [
        f"b\t{estimates['b']}\t{margins['b']}",
        f"a\t{estimates['a']}\t{margins['a']}",
    ]
    code, out, _ = run(["query", str(out_path), "b"], capsys)
    assert out.splitlines() == [f"b\t{decimal_nearest(Fraction(estimates['b']))}\t{margins['b']}"]
    code, _, err = run(["query", str(out_path), "c"], capsys)
    assert code == 2 and "column 'c'" in err


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([("1", "1.1")], r"line 3, column 'b': value 1.1 is outside \[0, 1\]"),
        ([("1", "0.3")], r"line 3, column 'b': value 0.3 is not on the grid"),
        ([("1.5", "0")], r"line 3, column 'a': value 1.5 is not on the grid"),
        ([("one", "0")], r"line 3, column 'a': value 'one' is not an exact number"),
    ],
)
def test_a_bad_value_names_line_and_column_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], rows: list[tuple[str, str]], message: str
) -> None:
    path = tmp_path / "bad.csv"
    path.write_text("a,b\n0,0\n" + "".join(",".join(r) + "\n" for r in rows), encoding="utf-8")
    out_path = tmp_path / "r.json"
    argv = ["release", str(path), "--mechanism", "vector-laplace", "--epsilon", "1", *COMMON]
    code, _, err = run([*argv, "--out", str(out_path)], capsys)
    assert code == 2 and not out_path.exists()
    import re

    assert re.search(message, err), err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--mechanism", "vector-laplace", "--epsilon", "1", "--universe", "int:3"], "--universe"),
        (["--mechanism", "vector-gaussian", "--epsilon", "1"], "--epsilon: vector-gaussian takes"),
        (["--mechanism", "vector-gaussian"], "--rho: vector-gaussian needs it"),
        (["--mechanism", "vector-laplace", "--rho", "1"], "--rho: vector-laplace takes"),
        (["--mechanism", "vector-laplace", "--epsilon", "1", "--p", "0"], "--p: got 0"),
        (["--mechanism", "vector-laplace", "--epsilon", "0.5e"], "--epsilon: got"),
        (["--mechanism", "vector-gaussian", "--rho", "x"], "--rho: got"),
        (["--mechanism", "vector-laplace", "--epsilon", "1", "--p", "1/2"], "--p: got 1/2"),
        (["--mechanism", "vector-laplace", "--epsilon", "1", "--delta", "1/10"], "--delta"),
        (["--mechanism", "vector-laplace", "--epsilon", "1", "--noise", "tight"], "--noise"),
    ],
)
def test_flag_errors(
    table: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    code, _, err = run(["release", str(table), *COMMON, *extra], capsys)
    assert code == 2 and message in err


def test_histogram_flags_and_sum_flags_do_not_mix(
    table: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(
        [
            "release",
            str(table),
            "--column",
            "label",
            "--universe",
            "utf8:2",
            "--epsilon",
            "1",
            "--columns",
            "a",
        ],
        capsys,
    )
    assert code == 2 and "--columns: only vector-laplace, vector-gaussian" in err
    code, _, err = run(["release", str(table), "--column", "label", "--epsilon", "1"], capsys)
    assert code == 2 and "--universe: required for a histogram" in err
    code, _, err = run(["release", str(table), "--column", "label", "--universe", "utf8:2"], capsys)
    assert code == 2 and "--epsilon: required for a histogram" in err


def test_bounds_and_grid_parsing_errors(table: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["release", str(table), "--mechanism", "vector-laplace", "--epsilon", "1"]
    for extra, message in (
        (["--columns", "a,b"], "--bounds: required"),
        (["--columns", "a,a", "--bounds=0:1"], "named twice"),
        (["--columns", "a,b", "--bounds=0:1,0:1,0:1"], "3 entries for 2 columns"),
        (["--columns", "a", "--bounds=0-1"], "write lower:upper"),
        (["--columns", "a", "--bounds=1:0"], "positive whole number"),
        (["--columns", "a", "--bounds=0:1", "--grid", "2/3"], "positive whole number"),
        (["--columns", "a", "--bounds=0:1", "--grid", "0"], "--grid"),
        (["--bounds=0:1"], "--columns: required"),
    ):
        code, _, err = run([*base, *extra], capsys)
        assert code == 2 and message in err, (extra, err)


def test_clamp_moves_values_to_the_bounds_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wide = tmp_path / "wide.csv"
    wide.write_text("a,b\n1,0.25\n-9,1\n7,3/4\n0,0\n", encoding="utf-8")
    base = ["release", "--mechanism", "vector-laplace", "--epsilon", "1", *COMMON]
    code, _, err = run([base[0], str(wide), *base[1:]], capsys)
    assert code == 2 and "line 3, column 'a': value -9 is outside" in err
    code, out, _ = run([base[0], str(wide), *base[1:], "--clamp"], capsys)
    assert code == 0
    doc = json.loads(out)
    assert doc["parameters"]["clamp"] is True
    # -9 and 7 become -2 and 2: the same data as ROWS
    expected = ParallelotopeLaplace(GRIDS, 4, 1).release_sums(SUMS, SeededSource(b"\x00"))
    assert [e["value"] for e in doc["estimates"]] == [str(e) for e in expected.estimates]
    code, _, err = run(
        ["release", str(wide), "--column", "a", "--universe", "int:9", "--epsilon", "1", "--clamp"],
        capsys,
    )
    assert code == 2 and "--clamp: only" in err


def test_a_long_run_says_its_estimate_first(
    table: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Estimated from the file's size before it is read; said unless --quiet, only above
    the threshold (a real file of the announced size is a benchmark's, not a test's)."""
    from finitedp.cli import columns

    argv = ["release", str(table), "--mechanism", "vector-laplace", "--epsilon", "1"]
    argv += [*COMMON[:-1]]
    code, _, err = run(argv, capsys)
    assert code == 0 and "rough guess" not in err  # a 44-byte file: about 1 s
    monkeypatch.setattr(columns, "ANNOUNCE_SECONDS", 1)
    code, _, err = run(argv, capsys)
    first = err.splitlines()[0]
    assert code == 0 and first.startswith("finitedp release: vector-laplace reads ")
    assert "MB of CSV with DuckDB: about 1 s (a rough guess" in first
    code, _, err = run([*argv, "--quiet"], capsys)
    assert code == 0 and "rough guess" not in err
    assert [columns._duration(s) for s in (40, 300, 9000)] == ["40 s", "5 min", "2 h"]
