"""Accuracy in the data's units (issue 52 item 3).

Laws: each sum's and mean's stated ``noise_variance`` is the variance of the noise the
release added, in the data's units: for sums, the coordinates' variances add up to the
mechanism's exact ``E ||eta||_2^2`` (thesis Lemma 4.7/4.10's quantity); for PLAN's
single round, ``Var(z) (C step/(K n P_i))^2`` from the release's own radius and scales;
a mean the noise carried out of its grid's bounds is also stated moved into them (never
for an estimate inside); ``query`` prints the noise sd, or a quantile's rank error, in
its table and its words.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from cli_run import run

from finitedp.aggregation.vectorsum import EllipticalGaussian, ParallelotopeLaplace
from finitedp.mean.plan import PLAN
from finitedp.selection import Grid

DATA = Path(__file__).resolve().parent.parent / "examples" / "data"


def _release(flags: list[str], capsys: pytest.CaptureFixture[str], path: Path) -> dict[str, Any]:
    code, out, err = run(["release", str(path), *flags, "--seed", "02", "--quiet"], capsys)
    assert code == 0, err
    document: dict[str, Any] = json.loads(out)
    return document


@pytest.mark.parametrize("kind", [ParallelotopeLaplace, EllipticalGaussian])
def test_sum_noise_variances_add_up_to_the_exact_second_moment(kind: Any) -> None:
    grids = [Grid(-2, 2), Grid(0, 1), Grid(0, 3, "1/2")]
    budget = 1 if kind is ParallelotopeLaplace else "1/2"
    mechanism = kind(grids, 7, budget, p=2)
    variances = mechanism.noise_variances()
    assert sum(variances) == mechanism.moment(2) and all(v > 0 for v in variances)
    # a coordinate's variance scales with its step squared: the 1/2 grid in data units
    assert variances[2] == Fraction(1, 4) * mechanism._noise_moment(2, 2)


def test_plan_states_the_variance_of_the_noise_it_added(
    capsys: pytest.CaptureFixture[str],
) -> None:
    flags = ["--mechanism", "plan-mean", "--columns", "a,b,c", "--bounds=-20:20"]
    document = _release([*flags, "--grid", "1/16", "--rho", "1"], capsys, DATA / "measurements.csv")
    release, n = document["release"], int(document["parameters"]["n"])
    plan = PLAN(-20, 20, d=3, n=n, rho=1, step=Fraction(1, 16))
    assert plan.rounds == 1
    variance = plan.noise.moment(2)
    radius, units = int(release["clip_radius"]), int(release["units"])
    for entry, scale in zip(document["estimates"], release["scales"], strict=True):
        per_unit = Fraction(radius, units * n * int(scale)) * Fraction(1, 16)
        assert Fraction(entry["noise_variance"]) == variance * per_unit**2
        assert "value_in_range" not in entry  # inside [-20, 20]


def test_a_mean_out_of_its_bounds_is_also_stated_in_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    flags = ["--format", "baskets", "--items", "1180", "--mechanism", "plan-mean", "--rho", "1/4"]
    document = _release(flags, capsys, DATA / "kosarak-400.dat")
    moved = 0
    for entry in document["estimates"]:
        value = Fraction(entry["value"])
        if 0 <= value <= 1:
            assert "value_in_range" not in entry
        else:
            moved += 1
            assert Fraction(entry["value_in_range"]) == min(max(value, 0), 1)
    assert moved > 0  # 0/1 columns near 0: the noise carries some below


def test_query_prints_the_noise_sd_and_the_rank_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    flights = DATA / "flights.csv"
    for flags, third, shown in (
        (
            [
                "--mechanism",
                "vector-gaussian",
                "--columns",
                "dep_delay",
                "--bounds=-60:300",
                "--clamp",
                "--nulls",
                "drop",
                "--rho",
                "1",
            ],
            "±",
            " ± ",
        ),
        (
            [
                "--mechanism",
                "quantile-exponential",
                "--columns",
                "air_time",
                "--bounds",
                "0:700",
                "--nulls",
                "drop",
                "--epsilon",
                "1",
            ],
            "rank error",
            "(rank error at most ",
        ),
    ):
        out = tmp_path / "r.json"
        code, _, err = run(
            ["release", str(flights), *flags, "--seed", "02", "--quiet", "--out", str(out)], capsys
        )
        assert code == 0, err
        code, table, _ = run(["query", str(out), "--all", "--format", "csv"], capsys)
        assert code == 0 and table.splitlines()[0] == f"column,estimate,{third}"
        assert table.splitlines()[1].split(",")[2]  # the figure itself
        code, words, _ = run(["query", str(out)], capsys)
        assert code == 0 and shown in words


def test_a_query_loads_only_what_it_reads() -> None:
    # Work, not time: `finitedp query` of a column release imports no family, no DuckDB
    # and no plotting; `import finitedp` imports no family (issue 52: answers in a blink).
    import subprocess
    import sys

    probe = (
        "import sys, json, tempfile, pathlib\n"
        "import finitedp\n"
        "assert 'finitedp.compact' not in sys.modules and 'numpy' not in sys.modules\n"
        "doc = {'mechanism': 'vector-laplace', 'estimates': [{'column': 'a', 'value': '3/2'}]}\n"
        "path = pathlib.Path(tempfile.mkdtemp()) / 'r.json'\n"
        "path.write_text(json.dumps(doc))\n"
        "from finitedp.cli import main\n"
        "assert main(['query', str(path), 'a']) == 0\n"
        "loaded = [m for m in ('finitedp.registry', 'duckdb', 'matplotlib', 'finitedp.cli.release')"
        " if m in sys.modules]\n"
        "assert not loaded, loaded\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "a\t1.5"


def test_each_sums_noise_bound_is_certified_and_tight() -> None:
    # noise_within at beta: step_i a_i with a_i the least with Pr[|noise_i| > a_i] <= beta/d
    # for Alg 16's mixed geometric (its uniform share counted whole): a_i - 1 fails.
    grids = [Grid(-2, 2), Grid(0, 3, "1/2")]
    mechanism = ParallelotopeLaplace(grids, 7, 1, p=1)
    beta = Fraction(1, 10)
    within = mechanism.noise_within(beta)
    assert within is not None
    for i, grid in enumerate(grids):
        sampler = mechanism.sampler(i)
        a = within[i] / grid.step
        assert a.denominator == 1

        def tail(t: int, sampler: Any = sampler) -> Fraction:
            total = sampler.noise_cdf(sampler.t)
            outside = (total - sampler.noise_cdf(t)) + sampler.noise_cdf(-t - 1)
            return Fraction(outside, total) + Fraction(1, 1 << 64)

        assert tail(int(a)) <= beta / 2 < tail(int(a) - 1)
    gaussian = EllipticalGaussian(grids, 7, "1/2", p=2)
    bounds = gaussian.noise_within(beta)
    assert bounds is not None and all(b > 0 for b in bounds)
    assert gaussian.noise_within(Fraction(1, 10**40)) is None or all(
        b >= c
        for b, c in zip(gaussian.noise_within(Fraction(1, 10**40)) or (), bounds, strict=True)
    )


def test_plan_states_its_noise_bound_from_its_rounds(capsys: pytest.CaptureFixture[str]) -> None:
    flags = ["--mechanism", "plan-mean", "--columns", "a,b,c", "--bounds=-20:20"]
    document = _release([*flags, "--grid", "1/16", "--rho", "1"], capsys, DATA / "measurements.csv")
    release, n = document["release"], int(document["parameters"]["n"])
    plan = PLAN(-20, 20, d=3, n=n, rho=1, step=Fraction(1, 16))
    a = plan.noise.accuracy(plan.beta / (3 * 3))  # one round, d = 3, beta/3 for the noise
    radius, units = int(release["clip_radius"]), int(release["units"])
    for entry, scale in zip(document["estimates"], release["scales"], strict=True):
        per_unit = Fraction(radius, units * n * int(scale)) * Fraction(1, 16)
        assert Fraction(entry["noise_within"]) == a * per_unit
    assert "noise_within" in document["accuracy"]["statement"]


def test_the_sums_own_edges(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # --p takes the positive integers (1 included, 0 refused); a dropped column's mean
    # exactly at a bound is in range (no moved figure); drop needs the counts present.
    import numpy as np

    from finitedp.aggregation import registry as sums
    from finitedp.errors import ParameterError as Refused
    from finitedp.statistics import ArrayStatistics

    flags = ["--mechanism", "vector-laplace", "--columns", "a", "--bounds", "0:9"]
    table = tmp_path / "t.csv"
    table.write_text("a\n1\n2\n", encoding="utf-8")
    _release([*flags, "--epsilon", "1", "--p", "1"], capsys, table)
    code, _, err = run(["release", str(table), *flags, "--epsilon", "1", "--p", "0"], capsys)
    assert code == 2 and "--p: got 0; use a positive integer" in err
    build = sums.COLUMN_ENTRIES[0].build
    grid = [(Fraction(0), Fraction(2), Fraction(1))]
    dropped = build(5, grid, "1", {"dropped": "0", "beta": "1/10"})
    at_bound = dropped._present_extras((Fraction(10),), (Fraction(5),))  # mean 2 = upper
    assert at_bound[0]["mean_of_present"] == "2" and "mean_of_present_in_range" not in at_bound[0]
    at_lower = dropped._present_extras((Fraction(0),), (Fraction(5),))  # mean 0 = lower
    assert "mean_of_present_in_range" not in at_lower[0]
    beyond = dropped._present_extras((Fraction(15),), (Fraction(5),))  # mean 3
    assert beyond[0]["mean_of_present_in_range"] == "2"
    with pytest.raises(Refused, match="counts of values present"):
        dropped.release_from(ArrayStatistics([np.array([0, 1, 2, 0, 1], dtype=np.int64)]))
