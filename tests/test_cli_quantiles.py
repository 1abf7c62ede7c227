"""Private quantiles of numeric columns: the registry entries, checked exactly, and the CLI."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from cli_run import run

from finitedp import SeededSource
from finitedp.checker import exact_distribution, max_privacy_ratio
from finitedp.errors import ParameterError
from finitedp.exactmath import compare_exp, ln_bounds
from finitedp.registry import COLUMNS
from finitedp.selection.quantile import MAX_EPSILON, ExponentialQuantile
from finitedp.selection.registry import ColumnQuantiles
from finitedp.statistics import ArrayStatistics

ROWS = [("1", "0.5"), ("7", "-1"), ("3", "0"), ("3", "1"), ("10", "0.5")]
COMMON = ["--columns", "a,b", "--bounds=0:10,-1:1", "--grid", "1,1/2", "--seed", "00", "--quiet"]
COLUMNS_SPEC = [(0, 10, 1), (-1, 1, "1/2")]
INDICES = [np.array([1, 7, 3, 3, 10]), np.array([3, 0, 2, 4, 3])]


@pytest.fixture
def table(tmp_path: Path) -> Path:
    path = tmp_path / "q.csv"
    path.write_text("a,b\n" + "".join(",".join(r) + "\n" for r in ROWS), encoding="utf-8")
    return path


# -- the entry, exactly ---------------------------------------------------------------------------


@pytest.mark.parametrize(("kind", "epsilon"), [("exponential", 2), ("binary", 40)])
def test_two_columns_compose_to_at_most_epsilon_and_the_bound_is_attained(
    kind: str, epsilon: int
) -> None:
    """Every pair of neighbouring datasets (n = 2, one whole row replaced), exact laws.

    The worst ratio is at most the accountant's e^eps; for the binary search it equals
    the product of the two columns' ratios (tight, as for one column).  The binary
    search's joint law is the product of its columns' (independent draws): its windows
    make the joint enumeration too large, so a large eps keeps them small.
    """
    cq = ColumnQuantiles(kind, [(0, 2, 1), (0, 2, 1)], 2, epsilon, "1/2")  # type: ignore[arg-type]
    rows = list(itertools.product(range(3), repeat=2))
    datasets = list(itertools.product(rows, repeat=2))

    def law(data: tuple[tuple[int, ...], ...]) -> dict[object, Fraction]:
        columns = [np.array([r[i] for r in data]) for i in range(2)]
        if kind == "exponential":
            stats = ArrayStatistics(columns)
            return exact_distribution(lambda rng: cq.release_from(stats, rng).estimates)
        first, second = (
            exact_distribution(lambda rng, s=s, c=c: s.release_indices(c, rng))
            for s, c in zip(cq.selectors, columns, strict=True)
        )
        return {(x, y): p * q for x, p in first.items() for y, q in second.items()}

    dists = [law(d) for d in datasets]
    pairs = [
        (i, j)
        for i, a in enumerate(datasets)
        for j, b in enumerate(datasets)
        if i != j and sum(x != y for x, y in zip(a, b, strict=True)) == 1
    ]
    worst, _ = max_privacy_ratio(dists, pairs)
    product = cq.selectors[0].privacy_ratio * cq.selectors[1].privacy_ratio
    assert worst <= product
    stated = cq.guarantee.epsilon
    assert stated is not None and stated <= epsilon
    assert compare_exp(product, stated) <= 0  # the accountant states at least the ratio
    if kind == "binary":
        assert worst == product
    # the budget is used: each column's ratio is close to e^(eps/d)
    slack = Fraction(1, 1024) if kind == "exponential" else Fraction(1, 50)
    for selector in cq.selectors:
        assert ln_bounds(selector.privacy_ratio, 64)[0] > Fraction(epsilon, 2) * (1 - slack)


def test_from_epsilon_picks_the_largest_simple_base_below_the_budget() -> None:
    for eps in (Fraction(1, 1000), Fraction(1), Fraction(20)):
        q = ExponentialQuantile.from_epsilon(0, 10, quantile="1/2", n=3, epsilon=eps)
        low, high = ln_bounds(q.privacy_ratio, 80)
        assert high <= eps  # beta^2 <= e^eps
        assert low >= eps * (1 - Fraction(1, 1 << 15))  # and not much below
    with pytest.raises(ParameterError, match="epsilon: got 129; at most 128"):
        ExponentialQuantile.from_epsilon(0, 1, quantile=0, n=1, epsilon=MAX_EPSILON + 1)
    with pytest.raises(ParameterError, match="epsilon"):
        ExponentialQuantile.from_epsilon(0, 1, quantile=0, n=1, epsilon=0)


def test_rank_errors_are_each_columns_at_beta_over_d() -> None:
    cq = ColumnQuantiles("exponential", COLUMNS_SPEC, 5, 2, "1/2")
    assert cq.rank_errors("1/10") == [s.rank_error(Fraction(1, 20)) for s in cq.selectors]
    assert cq.rank_errors("1/10") != [s.rank_error(Fraction(1, 10)) for s in cq.selectors]
    accuracy = cq.accuracy("1/10")
    assert accuracy["rank_errors"] == cq.rank_errors("1/10") and accuracy["beta"] == "1/10"


def test_release_indices_refuses_bad_indices() -> None:
    q = ExponentialQuantile(0, 4, quantile="1/2", n=2, base=2)
    for bad, message in (([0], "got 1; n = 2"), ([0, 5], r"\[0, 4\]"), ([-1, 0], r"\[0, 4\]")):
        with pytest.raises(ParameterError, match=message):
            q.release_indices(np.array(bad))
    assert q.release_indices(np.array([4, 0]), SeededSource(b"\x00")) in {
        Fraction(k) for k in range(5)
    }


# -- the command line -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "kind"), [("quantile-exponential", "exponential"), ("quantile-binary", "binary")]
)
def test_release_matches_the_api(
    table: Path, capsys: pytest.CaptureFixture[str], name: str, kind: str
) -> None:
    code, out, _ = run(
        ["release", str(table), "--mechanism", name, "--epsilon", "2", *COMMON], capsys
    )
    assert code == 0
    doc = json.loads(out)
    api = ColumnQuantiles(kind, COLUMNS_SPEC, 5, 2, "1/2")  # type: ignore[arg-type]
    expected = api.release_from(ArrayStatistics(INDICES), SeededSource(bytes.fromhex("00")))
    assert [e["value"] for e in doc["estimates"]] == [str(e) for e in expected.estimates]
    assert doc["release"] == expected.release
    assert doc["release"]["type"] == "column-quantiles" and doc["parameters"]["selection"] == kind
    assert doc["accuracy"]["rank_errors"] == api.rank_errors("1/10")
    assert doc["privacy"]["epsilon"] == str(api.guarantee.epsilon)
    assert doc["neighbours"] == COLUMNS[name].neighbours
    assert doc["parameters"]["quantile"] == "1/2"


def test_quantile_flag_and_query(
    table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.json"
    argv = ["release", str(table), "--mechanism", "quantile-exponential", "--epsilon", "40"]
    code, _, _ = run([*argv, *COMMON, "--quantile", "1", "--out", str(out)], capsys)
    assert code == 0
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["parameters"]["quantile"] == "1"
    assert [e["value"] for e in doc["estimates"]] == ["10", "1"]  # eps = 20 a column: the maxima
    code, printed, _ = run(["query", str(out), "a"], capsys)
    assert code == 0 and "10" in printed


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            ["--epsilon", "1", "--p", "2"],
            "--p: got 2; only vector-laplace, vector-gaussian, plan-mean take it",
        ),
        (["--epsilon", "1", "--quantile", "2"], "--quantile: "),
        (["--rho", "1"], "--rho: quantile-exponential takes --epsilon"),
        (["--epsilon", "0"], "--epsilon: got 0"),
        (["--epsilon", "1/x"], "--epsilon: "),
        (["--epsilon", "1", "--beta", "2"], "--beta: "),
    ],
)
def test_bad_flags_are_refused_by_name(
    table: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    argv = ["release", str(table), "--mechanism", "quantile-exponential", *COMMON, *extra]
    code, out, err = run(argv, capsys)
    assert code == 2 and out == "" and message in err


def test_quantile_flag_is_refused_by_the_other_mechanisms(
    table: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["release", str(table), "--mechanism", "vector-laplace", "--epsilon", "1", *COMMON]
    code, _, err = run([*argv, "--quantile", "1/2"], capsys)
    assert code == 2 and "only quantile-exponential, quantile-binary take it" in err
    argv = ["release", str(table), "--column", "a", "--universe", "int:10", "--epsilon", "1/2"]
    code, _, err = run([*argv, "--quantile", "1/2"], capsys)
    assert code == 2 and "--quantile: only quantile-exponential, quantile-binary take it" in err


def test_a_value_off_the_grid_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.csv"
    path.write_text("a,b\n1,0\n2,0.25\n", encoding="utf-8")
    argv = ["release", str(path), "--mechanism", "quantile-binary", "--epsilon", "1", *COMMON]
    code, out, err = run(argv, capsys)
    assert code == 2 and out == "" and "line 3" in err and "'b'" in err and "not on the grid" in err
