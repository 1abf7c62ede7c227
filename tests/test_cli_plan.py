"""``finitedp release --mechanism plan-mean``: PLAN over numeric columns (thesis chapter 5)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from cli_run import run

from finitedp import SeededSource
from finitedp.mean import PLAN
from finitedp.params import decimal_nearest

VALUES = [(1, "0.5"), ("-1.5", 2), (0, 0), ("3/2", "-1/2"), (2, 1), (-2, "1.5")]
INDICES = np.array([[6, 5], [1, 8], [4, 4], [7, 3], [8, 6], [0, 7]])  # grid of 1/2 on [-2, 2]
COMMON = ["--columns", "a,b", "--bounds=-2:2", "--grid", "1/2", "--seed", "00", "--quiet"]


@pytest.fixture
def table(tmp_path: Path) -> Path:
    path = tmp_path / "m.csv"
    lines = "".join(f"{a},{b}\n" for a, b in VALUES)
    path.write_text("a,b\n" + lines, encoding="utf-8")
    return path


def test_release_matches_the_api(table: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        ["release", str(table), "--mechanism", "plan-mean", "--rho", "4", *COMMON], capsys
    )
    assert code == 0
    doc = json.loads(out)
    plan = PLAN(-2, 2, d=2, n=6, rho=4, step="1/2")
    expected = plan.release_indices(INDICES, SeededSource(bytes.fromhex("00")))
    assert doc["release"] == expected.to_json_dict()
    assert [Fraction(e["value"]) for e in doc["estimates"]] == list(expected.estimates)
    assert doc["parameters"]["shares"] == [str(s) for s in plan.shares]
    assert doc["parameters"]["centre_rank_error"] == plan.centre_bound
    assert doc["parameters"]["variance"] == "gaussian" and doc["parameters"]["p"] == 2
    assert doc["parameters"]["selection"] == "gaussian"  # auto: 6 rows place no exponential median
    assert doc["privacy"]["rho"] == str(plan.guarantee.rho)
    assert doc["neighbours"] == "replace one row (a whole vector); n is public"


def test_binary_spread_and_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bits.csv"
    path.write_text("x,y,z\n" + "1,0,0\n0,0,1\n1,1,0\n1,0,0\n", encoding="utf-8")
    argv = ["release", str(path), "--mechanism", "plan-mean", "--columns", "x,y,z"]
    argv += ["--bounds", "0:1", "--rho", "2", "--variance", "binary", "--selection", "binary"]
    code, out, _ = run([*argv, "--seed", "01", "--quiet", "--beta", "1/5"], capsys)
    assert code == 0
    doc = json.loads(out)
    assert doc["parameters"]["p"] == 1 and doc["parameters"]["selection"] == "binary"
    assert "with probability >= 14/15" in doc["accuracy"]["statement"]  # 1 - beta/3
    expected = PLAN(0, 1, d=3, n=4, rho=2, p=1, variance="binary", selection="binary", beta="1/5")
    assert doc["parameters"]["clipped_rows"] == expected.clipped


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            ["--rho", "1", "--variance", "laplace"],
            "--variance: got 'laplace'; use one of gaussian, binary",
        ),
        (["--rho", "1", "--selection", "x"], "--selection: got 'x'"),
        (["--rho", "1", "--quantile", "1/2"], "--quantile: got 1/2; only quantile-exponential"),
        (["--epsilon", "1"], "--epsilon: plan-mean takes --rho"),
        (["--rho", "1", "--p", "0"], "--p: got 0; use a positive integer"),
    ],
)
def test_bad_flags_are_refused_by_name(
    table: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    code, out, err = run(
        ["release", str(table), "--mechanism", "plan-mean", *COMMON, *extra], capsys
    )
    assert code == 2 and out == "" and message in err


def test_columns_need_one_grid(table: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["release", str(table), "--mechanism", "plan-mean", "--columns", "a,b"]
    code, _, err = run([*argv, "--bounds=-2:2,-4:4", "--grid", "1/2", "--rho", "1"], capsys)
    assert code == 2 and "needs one grid for every column" in err


def test_query_reads_a_column(
    table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.json"
    code, _, _ = run(
        [
            "release",
            str(table),
            "--mechanism",
            "plan-mean",
            "--rho",
            "4",
            *COMMON,
            "--out",
            str(out),
        ],
        capsys,
    )
    assert code == 0
    doc = json.loads(out.read_text(encoding="utf-8"))
    code, printed, _ = run(["query", str(out), "b"], capsys)
    entry = doc["estimates"][1]
    exact, sd = entry["value"], entry["noise_sd_display"]
    margin = f"± {decimal_nearest(Fraction(entry['noise_within']), 3)} (sd {sd})"
    assert code == 0 and printed.strip() == f"b\t{decimal_nearest(Fraction(exact))}\t{margin}"
    code, printed, _ = run(["query", str(out), "b", "--exact"], capsys)
    assert code == 0 and printed.strip() == f"b\t{exact}\t{margin}"
    value = Fraction(exact)  # six significant digits, rounded to nearest
    assert abs(Fraction(decimal_nearest(value)) - value) <= abs(value) * Fraction(5, 10**6)
