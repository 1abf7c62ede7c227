"""``--nulls drop``: sums and quantiles over the values present (issue 51).

Laws, checked exactly where they are about privacy:

* a quantile over the values present (:meth:`GridQuantile.release_present`) is as
  private as stated when a row's value may go missing: every dataset of two rows over
  ``{missing, 0, 1, 2, 3}`` is enumerated, and the worst ratio over neighbours (one row
  replaced, a missing value included) is at most the stated ratio (the binary search
  attains it);
* its law is the quantile of the values present as if they were all the data (the
  target rank comes from their count), so its rank error holds of them;
* a sum drops a missing value by adding nothing: the document is ``--nulls 0``'s;
* the command line's quantile under ``drop`` is the release of the file without the
  rows whose value is missing (one column; same seed), on DuckDB and Spark alike;
* ``drop`` is refused by name where it cannot be (PLAN, a histogram, a sum whose
  grid misses 0), before the file is read.
"""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cli_run import run

from finitedp.checker import exact_distribution, max_privacy_ratio
from finitedp.selection import BinarySearchQuantile, ExponentialQuantile
from finitedp.selection.quantile import GridQuantile
from finitedp.statistics import GridCounts

DATASETS = list(itertools.product([None, 0, 1, 2, 3], repeat=2))
PAIRS = [
    (i, j)
    for i, a in enumerate(DATASETS)
    for j, b in enumerate(DATASETS)
    if i < j and sum(x != y for x, y in zip(a, b, strict=True)) == 1
]


def _present(dataset: tuple[int | None, ...]) -> GridCounts:
    values = sorted(x for x in dataset if x is not None)
    return GridCounts.from_indices(np.array(values, dtype=np.int64))


def _rank_error(values: list[int], y: Fraction, q: Fraction) -> int:
    m = (q * len(values)).__floor__()
    below = sum(1 for x in values if x < y)
    upto = sum(1 for x in values if x <= y)
    return max(0, below - m, m - upto)


SELECTORS: list[tuple[GridQuantile, Fraction]] = [
    (ExponentialQuantile(0, 3, quantile="1/2", n=2, base=2), Fraction(7, 3)),
    (BinarySearchQuantile(0, 3, quantile="1/2", n=2, epsilon=1, clip=6), Fraction(529, 196)),
]


@pytest.mark.parametrize(("selector", "worst"), SELECTORS)
def test_a_quantile_of_the_values_present_is_as_private_as_stated(
    selector: GridQuantile, worst: Fraction
) -> None:
    dists = [
        exact_distribution(lambda rng, d=d: selector.release_present(_present(d), rng))
        for d in DATASETS
    ]
    found, _ = max_privacy_ratio(dists, PAIRS)
    # (pinned: 7/3 and the binary search's (b/a)^2, the stated ratio itself)
    assert found == worst <= selector.privacy_ratio
    assert isinstance(selector, ExponentialQuantile) or found == selector.privacy_ratio
    # every dataset's rank error, about its values present, within the statement
    beta = Fraction(1, 2)
    a = selector.rank_error(beta)
    for dataset, dist in zip(DATASETS, dists, strict=True):
        values = [x for x in dataset if x is not None]
        tail = sum(
            (p for y, p in dist.items() if _rank_error(values, y, selector.quantile) > a),
            Fraction(0),
        )
        assert tail <= beta, dataset


def test_the_target_rank_is_the_count_present() -> None:
    # The law over values present is the law of a selector built for exactly them.
    data = [1, 4, 4]
    for quantile in ("1/2", "1/4", "1"):
        public = ExponentialQuantile(0, 6, quantile=quantile, n=5, base=3)
        own = ExponentialQuantile(0, 6, quantile=quantile, n=3, base=3)
        got = exact_distribution(
            lambda rng, q=public: q.release_present(_present(tuple(data)), rng)
        )
        assert got == exact_distribution(lambda rng, q=own: q.release(data, rng)), quantile
    # no value present: every grid point alike (the rank error is 0 everywhere)
    empty = exact_distribution(lambda rng: public.release_present(_present(()), rng))
    assert empty == {Fraction(y): Fraction(1, 7) for y in range(7)}
    with pytest.raises(Exception, match="at most n = 5"):
        public.release_present(_present((0,) * 6))


def _release(path: Path, flags: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code, out, err = run(["release", str(path), *flags, "--seed", "0e", "--quiet"], capsys)
    assert code == 0, err
    document: dict[str, Any] = json.loads(out)
    return document


QUANTILE = ["--columns", "a", "--bounds", "0:9", "--epsilon", "2"]


@pytest.mark.parametrize("mechanism", ["quantile-exponential", "quantile-binary"])
def test_a_dropped_quantile_is_the_quantile_of_the_rows_present(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mechanism: str
) -> None:
    holes = tmp_path / "holes.csv"
    # a one-column CSV skips blank lines: the holes are a quoted empty field
    holes.write_text('a\n1\n""\n7\n3\n""\n3\n8\n', encoding="utf-8")
    present = tmp_path / "present.csv"
    present.write_text("a\n1\n7\n3\n3\n8\n", encoding="utf-8")
    flags = ["--mechanism", mechanism, *QUANTILE]
    dropped = _release(holes, [*flags, "--nulls", "drop"], capsys)
    assert dropped["parameters"]["n"] == 7
    assert dropped["parameters"]["columns"][0]["nulls"] == "drop"
    assert "values present" in dropped["accuracy"]["statement"]
    kept = _release(present, flags, capsys)
    assert dropped["estimates"] == kept["estimates"]
    assert dropped["release"]["values"] == kept["release"]["values"]


def test_a_dropped_sum_is_the_sum_with_zero_in_place_and_counts_what_is_present(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The sums under drop are the sums with 0 read in place at 9/10 of the budget (the
    # same draws first: same seed, same values); then the counts of values present, a
    # second vector sum with 1/10, and the means over them, as post-processing.
    holes = tmp_path / "h.csv"
    holes.write_text("a,b\n1,\n,-2\n3,4\n5,\n", encoding="utf-8")
    flags = ["--mechanism", "vector-gaussian", "--columns", "a,b", "--bounds=-5:5"]
    dropped = _release(holes, [*flags, "--rho", "1", "--nulls", "drop"], capsys)
    zero = _release(holes, [*flags, "--rho", "9/10", "--nulls", "0"], capsys)
    assert [e["value"] for e in dropped["estimates"]] == [e["value"] for e in zero["estimates"]]
    assert Fraction(9, 10) < Fraction(dropped["privacy"]["rho"]) <= 1  # both parts composed
    assert dropped["parameters"]["present_share"] == "1/10"
    present = dropped["release"]["present"]
    assert present["columns"] == [0, 1] and present["n"] == 4
    for entry, count in zip(dropped["estimates"], present["estimates"], strict=True):
        assert entry["present_count"] == count and Fraction(entry["present_within"]) > 0
        if Fraction(count) > 0:
            assert Fraction(entry["mean_of_present"]) == Fraction(entry["value"]) / Fraction(count)
    full_b = tmp_path / "b.csv"
    full_b.write_text("a,b\n1,1\n,-2\n3,4\n5,0\n", encoding="utf-8")
    kept = _release(full_b, [*flags, "--rho", "1", "--nulls", "drop,refuse"], capsys)
    assert (
        kept["release"]["present"]["columns"] == [0] and "present_count" not in kept["estimates"][1]
    )


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (
            ["--mechanism", "plan-mean", "--columns", "a", "--bounds", "0:9", "--nulls", "drop"],
            "divides by the public n",
        ),
        (["--column", "a", "--universe", "int:9", "--nulls", "drop"], "counts every row"),
        (
            ["--mechanism", "vector-laplace", "--columns", "a", "--bounds=1:9", "--nulls=drop"],
            "0 in its place",
        ),
        # not policies: plan-mean's grids and options are checked before the read too
        (["--mechanism", "plan-mean", "--columns", "a,b", "--bounds", "0:9,0:8"], "one grid"),
        (["--mechanism", "plan-mean", "--columns", "a", "--bounds=0:9", "--rounds=99"], "1 to"),
        (["--mechanism", "plan-mean", "--columns", "a", "--bounds=0:9", "--p=99"], "at most 64"),
    ],
)
def test_drop_is_refused_before_reading_where_it_cannot_be(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], message: str
) -> None:
    # The file has no column a: a refusal about drop (or the grids) came before the read.
    path = tmp_path / "other.csv"
    path.write_text("x\n1\n", encoding="utf-8")
    budget = ["--rho", "1"] if "plan-mean" in flags else ["--epsilon", "1"]
    code, out, err = run(["release", str(path), *flags, *budget, "--quiet"], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert message in err and "no column" not in err, err


def test_spark_drops_as_duckdb_does(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import duckdb

    csv = tmp_path / "h.csv"
    csv.write_text("a,b\n1,\n,2\n7,5\n3,\n", encoding="utf-8")
    parquet = tmp_path / "h.parquet"
    duckdb.sql(
        "COPY (SELECT * FROM (VALUES (1, NULL), (NULL, 2), (7, 5), (3, NULL)) t(a, b)) "
        f"TO '{parquet}' (FORMAT parquet)"
    )
    for mechanism in ("quantile-binary", "vector-laplace"):
        flags = ["--mechanism", mechanism, "--columns", "a,b", "--bounds", "0:9"]
        for path in (csv, parquet):
            both = [
                _release(path, [*flags, "--epsilon", "2", "--nulls", "drop", "--engine", e], capsys)
                for e in ("duckdb", "spark")
            ]
            assert both[0].pop("engine") == "duckdb" and both[1].pop("engine") == "spark"
            assert both[0] == both[1], (mechanism, path.name)
