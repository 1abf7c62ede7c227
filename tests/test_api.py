"""``finitedp.release``: one entry point over the data where it lies (issue 52).

Laws: the same release, for a seed, from a path, a pandas DataFrame, a Polars
DataFrame, a pyarrow Table, a DuckDB relation and a Spark DataFrame (on the Spark
engine, and on DuckDB's), and the same document the command line writes; the command
line's refusals are raised as exceptions; a float is refused.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import duckdb
import pytest
from cli_run import run

import finitedp
from finitedp.errors import FloatParameterError, ParameterError, ParameterTypeError

FLIGHTS = Path(__file__).resolve().parent.parent / "examples" / "data" / "flights.csv"
CARRIERS = FLIGHTS.parent / "carriers.txt"


def _frames() -> dict[str, Any]:
    pandas = pytest.importorskip("pandas")
    polars = pytest.importorskip("polars")
    pyarrow_csv = pytest.importorskip("pyarrow.csv")
    # Each reads the file's text, an empty field as a null (a missing value: --nulls).
    return {
        "path": str(FLIGHTS),
        "pandas": pandas.read_csv(FLIGHTS, dtype=str),
        "polars": polars.read_csv(FLIGHTS, infer_schema=False),
        "arrow": pyarrow_csv.read_csv(
            FLIGHTS, convert_options=pyarrow_csv.ConvertOptions(strings_can_be_null=True)
        ),
        "duckdb": duckdb.read_csv(str(FLIGHTS), all_varchar=True),
    }


CASES: dict[str, dict[str, object]] = {
    "histogram": {"column": "carrier", "universe": f"keys:{CARRIERS}", "epsilon": 2},
    "sketch": {"column": "dest", "universe": "utf8:3", "mechanism": "pmg", "k": 20}
    | {"epsilon": 2, "delta": "1/1000000"},
    "sums": {"mechanism": "vector-laplace", "columns": ["dep_delay", "arr_delay"]}
    | {"bounds": "-60:300", "clamp": True, "nulls": "0", "epsilon": 1},
}


@pytest.mark.parametrize("case", list(CASES))
def test_every_input_kind_gives_the_command_lines_document(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    options = CASES[case]
    documents = {}
    for kind, data in _frames().items():
        made = finitedp.release(data, seed="0d", **options)  # type: ignore[arg-type]
        documents[kind] = made.document
    assert all(d == documents["path"] for d in documents.values()), [
        k for k, d in documents.items() if d != documents["path"]
    ]
    argv = ["release", str(FLIGHTS), "--seed", "0d", "--out", str(tmp_path / "r.json")]
    for name, value in options.items():
        flag = "--" + name.replace("_", "-")
        if value is True:
            argv.append(flag)
        else:
            argv.append(f"{flag}={','.join(value) if isinstance(value, list) else value}")
    code, _, err = run([*argv, "--quiet"], capsys)
    assert code == 0, err
    assert json.loads((tmp_path / "r.json").read_text(encoding="utf-8")) == documents["path"]


def test_a_release_reads_as_a_table_and_in_words() -> None:
    made = finitedp.release(FLIGHTS, column="carrier", universe=f"keys:{CARRIERS}", epsilon=2)
    rows = made.rows()
    assert {r["value"] for r in rows} <= set(CARRIERS.read_text().split())
    assert all(isinstance(r["count"], Fraction) for r in rows)
    assert made.guarantee["epsilon"] == "2" and made.mechanism == "bounded-geometric"
    assert "guarantee: epsilon <= 2 (pure DP)" in made.explain()
    assert "<table>" in made._repr_html_()
    pytest.importorskip("pandas")
    assert list(made.to_pandas().columns) == ["value", "count"]


def test_refusals_are_exceptions() -> None:
    with pytest.raises(FloatParameterError, match=r"epsilon: got 0\.5"):
        finitedp.release(FLIGHTS, column="carrier", universe="utf8:2", epsilon=0.5)
    with pytest.raises(ParameterError, match="--universe: required"):
        finitedp.release(FLIGHTS, column="carrier", epsilon=1)
    with pytest.raises(ParameterTypeError, match="give a path"):
        finitedp.release([1, 2, 3], column="carrier", universe="utf8:2", epsilon=1)


@pytest.mark.parametrize("case", list(CASES))
def test_a_spark_dataframe_gives_the_same_document(spark: Any, case: str, tmp_path: Path) -> None:
    # Spark reads the file's text itself (every field a string, an empty field null, as
    # the other frames read it); the release goes to the Spark engine by default.
    frame = spark.read.csv(str(FLIGHTS), header=True, inferSchema=False)
    options = CASES[case]
    made = finitedp.release(frame, seed="0d", **options)  # type: ignore[arg-type]
    from_path = finitedp.release(FLIGHTS, seed="0d", **options)  # type: ignore[arg-type]
    assert made.document.pop("engine") == "spark"
    assert from_path.document.pop("engine") == "duckdb"
    assert made.document == from_path.document
    on_duckdb = finitedp.release(frame, seed="0d", engine="duckdb", **options)  # type: ignore[arg-type]
    assert on_duckdb.document.pop("engine") == "duckdb" and on_duckdb.document == made.document


#: Every mechanism of the registry, with what it needs, on a 40-row table: key column
#: ``k`` (4 keys) and numeric columns ``a``, ``b``.
EVERY: dict[str, dict[str, object]] = {
    "bounded-geometric": {"column": "k", "universe": "keys=A,B,C,D", "epsilon": 1},
    "stability": {"column": "k", "universe": "utf8:2", "epsilon": 1, "delta": "1/10"},
    "pure-sparse": {"column": "k", "universe": "utf8:2", "epsilon": 1},
    "blanket": {"column": "k", "universe": "utf8:2", "epsilon": 2},
    "compact": {"column": "k", "universe": "keys=A,B,C,D", "epsilon": 1},
    "alp": {"column": "k", "universe": "keys=A,B,C,D", "epsilon": 1},
    "pmg": {"column": "k", "universe": "utf8:2", "epsilon": 1, "delta": "1/10", "k": 2},
    "pmg-pure": {"column": "k", "universe": "utf8:2", "epsilon": 1, "k": 2, "max_length": 100},
    "vector-laplace": {"columns": ["a", "b"], "bounds": "0:9", "epsilon": 1},
    "vector-gaussian": {"columns": ["a", "b"], "bounds": "0:9", "rho": 1},
    "quantile-exponential": {"columns": ["a", "b"], "bounds": "0:9", "epsilon": 1},
    "quantile-binary": {"columns": ["a", "b"], "bounds": "0:9", "epsilon": 1},
    "plan-mean": {"columns": ["a", "b"], "bounds": "0:9", "rho": 1},
}


@pytest.mark.parametrize("name", list(EVERY))
def test_every_mechanism_gives_the_command_lines_document(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from finitedp.registry import COLUMNS, MECHANISMS

    assert set(EVERY) == set(MECHANISMS) | set(COLUMNS)  # a new mechanism joins this test
    pandas = pytest.importorskip("pandas")
    table = tmp_path / "t.csv"
    rows = [f"{'ABCD'[i % 4 if i % 3 else 0]},{i % 10},{(3 * i) % 10}" for i in range(40)]
    table.write_text("k,a,b\n" + "\n".join(rows) + "\n", encoding="utf-8")
    options = {"mechanism": name, **EVERY[name]}
    made = finitedp.release(pandas.read_csv(table, dtype=str), seed="0e", **options)  # type: ignore[arg-type]
    argv = ["release", str(table), "--seed", "0e", "--out", str(tmp_path / "r.json")]
    for key, value in options.items():
        argv.append(
            f"--{key.replace('_', '-')}={','.join(value) if isinstance(value, list) else value}"
        )
    code, _, err = run([*argv, "--quiet"], capsys)
    assert code == 0, err
    assert json.loads((tmp_path / "r.json").read_text(encoding="utf-8")) == made.document
