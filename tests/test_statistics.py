"""The column mechanisms' sufficient statistics: every engine gives the rows' own figures.

The laws: a column's sum is ``sum of k``, its counts are those of ``k``, for the grid
index ``k`` of each row's value, whatever the engine (numpy, DuckDB's typed SQL,
DuckDB's distinct texts) and the file's types; a refused value names its row or line
as the row reader does.
"""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import duckdb
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from finitedp.engines.duckdb import DuckDBStatistics
from finitedp.errors import ParameterError
from finitedp.io.numeric import NumericColumn
from finitedp.io.progress import Progress
from finitedp.io.tables import opened_input
from finitedp.statistics import ArrayStatistics, GridCounts

Stats = tuple[int, list[int], list[list[tuple[int, int]]]]


def _column(name: str, lower: object, upper: object, step: object = 1) -> NumericColumn:
    return NumericColumn(name, Fraction(str(lower)), Fraction(str(upper)), Fraction(str(step)))


def _stats(
    path: Path, kind: str, columns: list[NumericColumn], clamp: bool = False
) -> tuple[int, list[int], list[list[tuple[int, int]]]]:
    with opened_input(str(path), kind) as source:
        stats = DuckDBStatistics(source, columns, Progress(False, 0), clamp)
        sums = stats.column_sums()
        counts = [stats.column_counts(i).pairs() for i in range(stats.d)]
        return stats.n, sums, counts


def _expected(rows: list[tuple[int, ...]]) -> Stats:
    stats = ArrayStatistics([np.array(c, dtype=np.int64) for c in zip(*rows, strict=True)])
    counts = [stats.column_counts(i).pairs() for i in range(stats.d)]
    return stats.n, stats.column_sums(), counts


def test_grid_counts_answer_rank_queries_as_the_sorted_values_do() -> None:
    rng = np.random.default_rng(7)
    for _ in range(50):
        values = rng.integers(0, 20, size=int(rng.integers(1, 40)))
        counts = GridCounts.from_indices(values)
        ordered = np.sort(values)
        assert counts.n == len(values) and counts.total() == int(values.sum())
        for y in range(-1, 22):
            assert counts.count_at_most(y) == int(np.searchsorted(ordered, y, side="right"))
        for r in range(len(values)):
            assert counts.at_rank(r) == int(ordered[r])
        assert GridCounts.from_pairs(counts.pairs()).pairs() == counts.pairs()


def test_array_sums_are_exact_past_int64() -> None:
    big = (1 << 62) - 1
    stats = ArrayStatistics([np.full(8, big, dtype=np.int64)])
    assert stats.column_sums() == [8 * big]


@settings(max_examples=12, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(-3, 5), st.integers(0, 8)),
        min_size=1,
        max_size=30,
    )
)
def test_parquet_integers_and_csv_texts_give_the_rows_statistics(
    tmp_path_factory: pytest.TempPathFactory, rows: list[tuple[int, int]]
) -> None:
    folder = tmp_path_factory.mktemp("stats")
    csv = folder / "t.csv"
    csv.write_text("a,b\n" + "".join(f"{a},{b / 4}\n" for a, b in rows), encoding="utf-8")
    parquet = folder / "t.parquet"
    duckdb.sql(
        f"COPY (SELECT a::BIGINT AS a, b::VARCHAR AS b FROM read_csv('{csv}', all_varchar = "
        f"true)) TO '{parquet}' (FORMAT parquet)"
    )
    columns = [_column("a", -3, 5), _column("b", 0, 2, "1/4")]
    expected = _expected([(a + 3, b) for a, b in rows])
    assert _stats(csv, "csv", columns) == expected
    assert _stats(parquet, "parquet", columns) == expected


@pytest.mark.parametrize("kind", ["TINYINT", "INTEGER", "BIGINT", "UBIGINT", "DECIMAL(9,2)"])
def test_every_parquet_type_reads_the_same(tmp_path: Path, kind: str) -> None:
    parquet = tmp_path / "t.parquet"
    values = [0, 3, 6, 6, 12, 9]
    duckdb.sql(
        f"COPY (SELECT v::{kind} AS v FROM unnest({values}) t(v)) TO '{parquet}' (FORMAT parquet)"
    )
    # lower 0, step 3/2: 3 and 9 are off the grid only for step 2; 6 = 4 steps
    columns = [_column("v", 0, 12, "3/2")]
    assert _stats(parquet, "parquet", columns) == _expected([(v * 2 // 3,) for v in values])


def test_a_rational_grid_in_sql(tmp_path: Path) -> None:
    """lower -1/3, step 1/3: the integer 2 is index 9; typed SQL and texts agree."""
    parquet = tmp_path / "t.parquet"
    duckdb.sql(
        f"COPY (SELECT v::BIGINT AS v, v::VARCHAR AS w FROM unnest([-0, 1, 2, 2]) t(v)) TO "
        f"'{parquet}' (FORMAT parquet)"
    )
    columns = [_column("v", "-1/3", 3, "1/3"), _column("w", "-1/3", 3, "1/3")]
    n, sums, counts = _stats(parquet, "parquet", columns)
    assert n == 4 and sums == [1 + 4 + 7 + 7] * 2 and counts[0] == counts[1]
    with opened_input(str(parquet), "parquet") as source:
        paths = DuckDBStatistics(source, columns, Progress(False, 0)).grids
    assert paths[0] is not None and paths[1] is None  # typed SQL, then distinct texts


@pytest.mark.parametrize(
    ("values", "column", "message"),
    [
        ([0, 1, 7], _column("v", 0, 5), "row 3, column 'v': value 7 is outside [0, 5]"),
        ([0, 1, 3], _column("v", 0, 4, 2), "row 2, column 'v': value 1 is not on the grid"),
        ([-1, 1], _column("v", 0, 4), "row 1, column 'v': value -1 is outside"),
    ],
)
def test_a_refused_integer_names_its_row(
    tmp_path: Path, values: list[int], column: NumericColumn, message: str
) -> None:
    parquet = tmp_path / "t.parquet"
    duckdb.sql(
        f"COPY (SELECT v::BIGINT AS v FROM unnest({values}) t(v)) TO '{parquet}' (FORMAT parquet)"
    )
    for ask in ("sums", "counts"):
        with opened_input(str(parquet), "parquet") as source:
            stats = DuckDBStatistics(source, [column], Progress(False, 0))
            with pytest.raises(ParameterError, match=re.escape(message)):
                stats.column_sums() if ask == "sums" else stats.column_counts(0)


def test_a_refused_text_and_an_empty_value_name_their_line(tmp_path: Path) -> None:
    csv = tmp_path / "t.csv"
    csv.write_text("a,b\n1,2\n1,x\n", encoding="utf-8")
    columns = [_column("a", 0, 4), _column("b", 0, 4)]
    refused = "line 3, column 'b': value 'x' is not an exact"
    with opened_input(str(csv), "csv") as source, pytest.raises(ParameterError, match=refused):
        DuckDBStatistics(source, columns, Progress(False, 0)).column_sums()
    parquet = tmp_path / "t.parquet"
    duckdb.sql(f"COPY (SELECT * FROM (VALUES (1), (NULL)) t(v)) TO '{parquet}' (FORMAT parquet)")
    with opened_input(str(parquet), "parquet") as source:
        stats = DuckDBStatistics(source, [_column("v", 0, 4)], Progress(False, 0))
        with pytest.raises(ParameterError, match="row 2"):
            stats.column_counts(0)


def test_clamp_moves_values_to_the_bounds_in_both_paths(tmp_path: Path) -> None:
    parquet = tmp_path / "t.parquet"
    duckdb.sql(
        f"COPY (SELECT v::BIGINT AS v, v::VARCHAR AS w FROM unnest([-5, 2, 99]) t(v)) TO "
        f"'{parquet}' (FORMAT parquet)"
    )
    columns = [_column("v", 0, 10), _column("w", 0, 10)]
    assert _stats(parquet, "parquet", columns, clamp=True) == _expected([(0, 0), (2, 2), (10, 10)])


def test_constants_too_wide_for_128_bits_take_the_text_path(tmp_path: Path) -> None:
    parquet = tmp_path / "t.parquet"
    duckdb.sql(
        f"COPY (SELECT v::BIGINT AS v FROM unnest([1, 2]) t(v)) TO '{parquet}' (FORMAT parquet)"
    )
    step = Fraction(1, 1 << 80)
    column = NumericColumn("v", Fraction(0), Fraction(4), step)
    with opened_input(str(parquet), "parquet") as source:
        stats = DuckDBStatistics(source, [column], Progress(False, 0))
        assert stats.grids == [None]
        assert stats.column_sums() == [3 << 80]


def test_plan_mean_reads_integer_parquet_columns_as_the_row_reader_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cli_run import run

    rows = [(i % 9 - 4, (i * 7) % 9 - 4) for i in range(60)] + [(40, -40)]
    csv = tmp_path / "t.csv"
    csv.write_text("a,b\n" + "".join(f"{a},{b}\n" for a, b in rows), encoding="utf-8")
    parquet = tmp_path / "t.parquet"
    duckdb.sql(
        f"COPY (SELECT a::BIGINT AS a, b::BIGINT AS b FROM read_csv('{csv}', all_varchar = "
        f"true)) TO '{parquet}' (FORMAT parquet)"
    )
    argv = ["--mechanism", "plan-mean", "--rho", "1", "--columns", "a,b", "--bounds=-8:8"]
    argv += ["--seed", "0d", "--quiet", "--clamp"]
    outs = [run(["release", str(path), *argv], capsys) for path in (csv, parquet)]
    assert outs[0][0] == outs[1][0] == 0 and outs[0][1] == outs[1][1]
    code, _, err = run(["release", str(parquet), *argv[:-1]], capsys)  # no --clamp: refused
    assert code == 2 and "row 61, column 'a': value 40 is outside [-8, 8]" in err


def test_the_sql_rows_read_in_place_only_where_every_integer_is_a_point(tmp_path: Path) -> None:
    from finitedp.engines.duckdb import duckdb_rows

    parquet = tmp_path / "t.parquet"
    duckdb.sql(
        f"COPY (SELECT v::BIGINT AS v FROM unnest([0, 2, 4]) t(v)) TO '{parquet}' (FORMAT parquet)"
    )
    with opened_input(str(parquet), "parquet") as source:
        whole = duckdb_rows(source, [_column("v", 0, 4)], Progress(False, 0))
        assert not whole.copied and whole.column_sums() == [6] and whole.n == 3
        halves = duckdb_rows(source, [_column("v", 0, 4, "1/2")], Progress(False, 0))
        assert not halves.copied and halves.column_sums() == [12]
        twos = duckdb_rows(source, [_column("v", 0, 4, 2)], Progress(False, 0))
        assert twos.copied and twos.column_sums() == [3]  # odd integers are not points
