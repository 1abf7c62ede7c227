"""PLAN's row statistics: every engine answers as the rows do, so every engine releases alike.

The laws: for any rows, centre, scales and radii, DuckDB's SQL (:mod:`finitedp.engines.duckdb.rows`)
and the sparse sets (:mod:`finitedp.mean.sparse`) give the in-memory engine's gap-level
counts, norm-level counts, rounded sums within a radius and rows beyond it, exactly; and
PLAN fed any of them makes the same release for the same draws.
"""

from __future__ import annotations

import gc
import shutil
import tempfile
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import duckdb
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from finitedp.engines.duckdb import DuckDBRows, duckdb_rows
from finitedp.engines.duckdb import rows as duckrows
from finitedp.errors import ParameterError, ResourceLimitError
from finitedp.io.numeric import NumericColumn
from finitedp.io.progress import Progress
from finitedp.io.tables import opened_input
from finitedp.mean import PLAN
from finitedp.mean.sparse import SetsStatistics
from finitedp.oracle import SeededSource
from finitedp.statistics import ArrayStatistics, RowStatistics


def _parquet(path: Path, rows: np.ndarray, groups: int = 2048) -> None:
    """``rows`` (grid values, integers) as a Parquet file of columns c0.., in row order."""
    csv = path.with_suffix(".csv")
    header = ",".join(["id", *(f"c{i}" for i in range(rows.shape[1]))])
    body = "".join(",".join(map(str, [j, *row])) + "\n" for j, row in enumerate(rows.tolist()))
    csv.write_text(header + "\n" + body, encoding="utf-8")
    names = ", ".join(f"c{i}::INTEGER AS c{i}" for i in range(rows.shape[1]))
    duckdb.sql(
        f"COPY (SELECT {names} FROM read_csv('{csv}') ORDER BY id) TO '{path}' "
        f"(FORMAT parquet, ROW_GROUP_SIZE {groups})"
    )


def _csv(path: Path, rows: np.ndarray) -> None:
    """``rows`` as a CSV file of columns c0.., each value in one of three spellings (texts
    that are read to one grid point)."""
    header = ",".join(f"c{i}" for i in range(rows.shape[1]))
    spell = (str, lambda v: f"{v}.0", lambda v: f"{2 * v}/2")
    body = "".join(
        ",".join(spell[(j + i) % 3](v) for i, v in enumerate(row)) + "\n"
        for j, row in enumerate(rows.tolist())
    )
    path.write_text(header + "\n" + body, encoding="utf-8")


def _columns(d: int, lower: int, upper: int, step: str = "1") -> list[NumericColumn]:
    return [
        NumericColumn(f"c{i}", Fraction(lower), Fraction(upper), Fraction(step)) for i in range(d)
    ]


def _beyond(
    stats: RowStatistics, centre: list[int], scales: list[int], within: int
) -> list[tuple[int, ...]]:
    return sorted(
        (*row, bound)
        for block, bounds in stats.rows_beyond(centre, scales, within)
        for row, bound in zip(block.tolist(), bounds, strict=True)
    )


def _answers(
    stats: RowStatistics, centre: list[int], scales: list[int], radii: list[int], within: int
) -> tuple[object, ...]:
    alone = _beyond(stats, centre, scales, within)  # asked on its own
    sums = stats.rounded_sums(centre, scales, 37, radii[len(radii) // 2], within)
    after = _beyond(stats, centre, scales, within)  # DuckDB: the rest of the sums' scan
    assert after == alone
    return (
        stats.n,
        stats.column_sums(),
        [stats.column_counts(i).pairs() for i in range(stats.d)],
        [g.pairs() for g in stats.gap_counts([1, 2, 3, 5, 8, 13, 21])],
        stats.norm_counts(centre, scales, radii).pairs(),
        sums,
        alone,
    )


def _cases(d: int, top: int) -> Iterator[tuple[list[int], list[int], list[int], int]]:
    rng = np.random.default_rng(d * 1000 + top)
    for _ in range(3):
        centre = rng.integers(0, top + 1, size=d).tolist()
        scales = [int(s) for s in rng.integers(1, 1 << 24, size=d)]
        largest = int(np.sqrt(d)) * top * (1 << 24) + 1
        radii = sorted({int(x) for x in rng.integers(1, largest, size=int(rng.integers(1, 40)))})
        yield centre, scales, radii, int(rng.choice(radii))
    # every row beyond but the centre's (within 0), and none beyond
    yield centre, scales, radii, 0
    yield centre, scales, radii, largest


@settings(max_examples=10, deadline=None)
@given(
    st.integers(1, 3).flatmap(
        lambda d: st.lists(
            st.lists(st.integers(-3, 12), min_size=d, max_size=d), min_size=1, max_size=40
        )
    )
)
def test_sql_rows_answer_as_the_rows_do(
    tmp_path_factory: pytest.TempPathFactory, rows: list[list[int]]
) -> None:
    """Integer Parquet columns (read in place) and CSV texts (copied, as indices, to a
    temporary Parquet file in the rows' order)."""
    data = np.array(rows, dtype=np.int64)
    folder = tmp_path_factory.mktemp("rows")
    _parquet(folder / "t.parquet", data)
    _csv(folder / "u.csv", data)
    memory = ArrayStatistics([data[:, i] + 3 for i in range(data.shape[1])])
    shifted = data + 3  # the same indices handed over as rows too (blocks are its slices)
    rows = ArrayStatistics(list(shifted.T), rows=shifted)
    with pytest.raises(ParameterError, match="rows: got shape"):
        ArrayStatistics(list(shifted.T), rows=shifted[1:])
    for centre, scales, radii, within in _cases(data.shape[1], 15):
        assert _answers(rows, centre, scales, radii, within) == _answers(
            memory, centre, scales, radii, within
        )
    for name, kind in (("t.parquet", "parquet"), ("u.csv", "csv")):
        with opened_input(str(folder / name), kind) as source:
            sql = duckdb_rows(source, _columns(data.shape[1], -3, 12), Progress(False, 0))
            assert sql.copied == (kind == "csv")
            for centre, scales, radii, within in _cases(data.shape[1], 15):
                assert _answers(sql, centre, scales, radii, within) == _answers(
                    memory, centre, scales, radii, within
                )


def test_pairs_across_row_groups_and_both_ways_of_pairing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Many row groups and two threads: the streamed pairs are checked, and the sorted
    pairs (the fallback) agree; an odd last row is in no pair."""
    rng = np.random.default_rng(5)
    data = rng.integers(0, 200, size=(20_001, 2))
    path = tmp_path / "t.parquet"
    _parquet(path, data, groups=2048)
    memory = ArrayStatistics([data[:, 0], data[:, 1]])
    levels = [1, 2, 4, 8, 16, 32, 64, 128, 256]
    expected = [g.pairs() for g in memory.gap_counts(levels)]
    _csv(tmp_path / "t.csv", data)
    with opened_input(str(tmp_path / "t.csv"), "csv") as source:  # numbered, joined, copied
        copied = duckdb_rows(source, _columns(2, 0, 200), Progress(False, 0))
        assert [g.pairs() for g in copied.gap_counts(levels)] == expected
        assert copied._gaps_streamed(levels, True) is not None  # the copy is in order
    with opened_input(str(path), "parquet") as source:
        sql = duckdb_rows(source, _columns(2, 0, 200), Progress(False, 0))
        assert [g.pairs() for g in sql.gap_counts(levels)] == expected
        for raw in (False, True):  # levels in SQL, or each gap counted then its level here
            sides, ordered = sql._gaps_streamed(levels, raw), sql._gaps_sorted(levels, raw)
            assert sides is not None and [dict(h) for h in sides] == [dict(h) for h in ordered]
        monkeypatch.setattr(duckrows, "RAW_GAPS", 2)
        assert [g.pairs() for g in sql.gap_counts(levels)] == expected
        # chunks of 2,048 rows, two windows at a time, the last chunk short and odd
        monkeypatch.setattr(duckrows, "GAP_CHUNK_ROWS", 2048)
        for raw in (False, True):
            chunked = sql._gaps_streamed(levels, raw)
            assert chunked is not None and chunked == [
                dict(h) for h in sql._gaps_sorted(levels, raw)
            ]
        assert [g.pairs() for g in sql.gap_counts(levels)] == expected
    assert sum(c for _, c in expected[0]) == 10_000


def test_many_radii_are_looked_up_by_a_join(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = np.random.default_rng(2).integers(0, 50, size=(500, 3))
    path = tmp_path / "t.parquet"
    _parquet(path, data)
    memory = ArrayStatistics([data[:, i] for i in range(3)])
    radii = list(range(1, 4000, 7))
    with opened_input(str(path), "parquet") as source:
        sql = duckdb_rows(source, _columns(3, 0, 50), Progress(False, 0))
        assert sql is not None
        tree = sql.norm_counts([25, 25, 25], [3, 5, 7], radii).pairs()
        monkeypatch.setattr(duckrows, "TREE_LEVELS", 2)
        joined = sql.norm_counts([25, 25, 25], [3, 5, 7], radii).pairs()
    assert tree == joined == memory.norm_counts([25, 25, 25], [3, 5, 7], radii).pairs()


@settings(max_examples=20, deadline=None)
@given(st.lists(st.sets(st.integers(0, 5), max_size=6), min_size=2, max_size=30))
def test_sets_answer_as_their_dense_rows(sets: list[set[int]]) -> None:
    d = 6
    dense = np.zeros((len(sets), d), dtype=np.int64)
    for j, items in enumerate(sets):
        dense[j, sorted(items)] = 1
    memory = ArrayStatistics([dense[:, i] for i in range(d)])
    sparse = SetsStatistics([sorted(s) for s in sets], len(sets), d)
    for centre, scales, radii, within in _cases(d, 1):
        assert _answers(sparse, centre, scales, radii, within) == _answers(
            memory, centre, scales, radii, within
        )


@pytest.mark.parametrize(
    "options",
    [
        {"variance": "gaussian"},
        {"variance": "gaussian", "rounds": 3},
        {"variance": "binary", "centre": "lower"},
    ],
)
def test_plan_on_sql_rows_is_plan_on_the_array(tmp_path: Path, options: dict[str, object]) -> None:
    binary = options["variance"] == "binary"
    rng = np.random.default_rng(11)
    data = rng.integers(0, 2, size=(301, 4)) if binary else rng.integers(-20, 21, size=(301, 4))
    lower, upper = (0, 1) if binary else (-20, 20)
    path = tmp_path / "t.parquet"
    _parquet(path, data)
    plan = PLAN(lower, upper, d=4, n=301, rho="1/2", **options)  # type: ignore[arg-type]
    expected = plan.release_indices(data - lower, SeededSource(b"engines"))
    with opened_input(str(path), "parquet") as source:
        sql = duckdb_rows(source, _columns(4, lower, upper), Progress(False, 0))
        assert isinstance(sql, DuckDBRows)
        got = plan.release_statistics(sql, SeededSource(b"engines"))
    assert got == expected


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.lists(st.integers(0, 30), min_size=3, max_size=3), min_size=1, max_size=12),
    st.lists(st.integers(1, 1 << 30), min_size=3, max_size=3),
    st.integers(1, 8191),
)
def test_clip_rows_is_clipped_sum_on_rows_beyond_the_radius(
    rows: list[list[int]], scales: list[int], units: int
) -> None:
    """The in-place sum of clipped rows is :func:`clipped_sum`'s, row for row."""
    from finitedp.mean.scaling import clip_rows, clipped_sum, kept_within
    from finitedp.statistics import norm_bounds

    data, m, p = np.array(rows), np.array([15, 3, 27]), np.array(scales)
    w = (data - m) * p
    bounds = norm_bounds(w)
    radius = max(1, min(bounds))  # every row with N_j > kept_within(radius) is clipped
    beyond = [j for j, n in enumerate(bounds) if n > kept_within(radius, units, 3)]
    if beyond:
        got = clip_rows(data[beyond], m, p, [bounds[j] for j in beyond], units)
        assert (
            got.tolist()
            == clipped_sum(w[beyond], [bounds[j] for j in beyond], radius, units).tolist()
        )


def test_the_copy_is_refused_beyond_the_free_disk_and_removed_after_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The temporary copy is estimated (8 bytes a value) against the free disk before it
    is written, and its folder goes with the statistics."""
    data = np.arange(12, dtype=np.int64).reshape(6, 2)
    _csv(tmp_path / "t.csv", data)
    with opened_input(str(tmp_path / "t.csv"), "csv") as source:
        rows = duckdb_rows(source, _columns(2, 0, 11), Progress(False, 0))
        assert rows.column_sums() == [30, 36]
        folder = Path(rows.where.split("'")[1]).parent
        assert folder.is_dir() and folder.parent == Path(tempfile.gettempdir())
        del rows
        gc.collect()
        assert not folder.exists()
        # 8 bytes a value: 6 rows x 2 columns need 96 bytes; 95 free is too little
        usage = shutil.disk_usage(tempfile.gettempdir())
        for free, refused in ((96, False), (95, True)):
            monkeypatch.setattr(
                duckrows.shutil, "disk_usage", lambda _, f=free: usage._replace(free=f)
            )
            rows = duckdb_rows(source, _columns(2, 0, 11), Progress(False, 0))
            if refused:
                with pytest.raises(ResourceLimitError, match="set TMPDIR to a larger disk"):
                    rows.column_sums()
            else:
                assert rows.column_sums() == [30, 36]


def test_a_failed_copy_is_a_clear_refusal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A DuckDB error while the indices are copied (a full disk, say) is a ParameterError
    naming the file and the folder, never a traceback."""
    _csv(tmp_path / "t.csv", np.arange(8, dtype=np.int64).reshape(4, 2))
    real = duckrows.connect

    class Failing:
        def __init__(self) -> None:
            self.con = real()

        def register(self, name: str, table: object) -> None:
            self.con.register(name, table)

        def execute(self, sql: str) -> object:
            if sql.startswith("COPY"):
                raise duckdb.IOException("IO Error: No space left on device")
            return self.con.execute(sql)

    monkeypatch.setattr(duckrows, "connect", Failing)
    with opened_input(str(tmp_path / "t.csv"), "csv") as source:
        rows = duckdb_rows(source, _columns(2, 0, 7), Progress(False, 0))
        with pytest.raises(ParameterError, match=r"t\.csv: the temporary copy .* No space left"):
            rows.column_sums()


def test_a_row_at_the_radius_is_in_duckdbs_sums_and_not_beyond(tmp_path: Path) -> None:
    # Rows 1 and 2 lie exactly at 5 (3-4-5) and row 3 at 10: the sums' scan keeps the
    # first two, and its rest (or a scan of its own) hands over row 3 alone.
    data = np.array([[0, 0], [3, 4], [4, 3], [6, 8], [1, 1]])
    path = tmp_path / "t.parquet"
    _parquet(path, data)
    memory = ArrayStatistics([data[:, 0], data[:, 1]])
    with opened_input(str(path), "parquet") as source:
        sql = duckdb_rows(source, _columns(2, 0, 10), Progress(False, 0))
        sums = sql.rounded_sums([0, 0], [1, 1], 3, 2, 5)
        assert sums == memory.rounded_sums([0, 0], [1, 1], 3, 2, 5)
        assert _beyond(sql, [0, 0], [1, 1], 5) == [(6, 8, 10)]
        assert _beyond(sql, [0, 0], [1, 1], 5) == [(6, 8, 10)]  # asked again: its own scan
        assert sql.rounded_sums([0, 0], [1, 1], 3, 2, 0) == [0, 0]  # only the centre within
        assert _beyond(sql, [0, 0], [1, 1], 4) == [(3, 4, 5), (4, 3, 5), (6, 8, 10)]


def test_rows_out_of_the_files_order_are_paired_by_a_sort(tmp_path: Path) -> None:
    # The streamed pairs check each odd row's row before: rows that come out shuffled
    # are noticed (None), and the gaps are made again by the sorted window.
    data = np.random.default_rng(9).integers(0, 50, size=(1001, 2))
    path = tmp_path / "t.parquet"
    _parquet(path, data)
    expected = [g.pairs() for g in ArrayStatistics([data[:, 0], data[:, 1]]).gap_counts([1, 4])]
    with opened_input(str(path), "parquet") as source:
        sql = duckdb_rows(source, _columns(2, 0, 50), Progress(False, 0))
        assert sql._gaps_streamed([1, 4], True) is not None
        sql.numbered = f"(SELECT * FROM {sql.numbered} ORDER BY hash(file_row_number))"
        assert sql._gaps_streamed([1, 4], True) is None
        with pytest.MonkeyPatch.context() as patch:  # in chunks too: each is out of order
            patch.setattr(duckrows, "GAP_CHUNK_ROWS", 256)
            assert sql._gaps_streamed([1, 4], True) is None
        assert [g.pairs() for g in sql.gap_counts([1, 4])] == expected


def test_norms_above_every_radius_take_the_top_level_and_half_steps_stay_in_place(
    tmp_path: Path,
) -> None:
    """A row whose norm passes the largest radius is at the top level (the tree's last
    leaf), as numpy says; a column on ``[-1/2, 10]`` by ``1/2`` (every integer a grid
    point, the lower bound a fraction) is read in place with ``k = 2 v + 1``."""
    data = np.array([[0, 0], [10, 10], [3, 4], [1, 2]])
    path = tmp_path / "t.parquet"
    _parquet(path, data)
    half = [NumericColumn(f"c{i}", Fraction(-1, 2), Fraction(10), Fraction(1, 2)) for i in (0, 1)]
    memory = ArrayStatistics([2 * data[:, i] + 1 for i in (0, 1)])
    with opened_input(str(path), "parquet") as source:
        sql = duckdb_rows(source, half, Progress(False, 0))
        assert not sql.copied  # in place: k = v * 2 + 1 in SQL
        assert [sql.column_counts(i).pairs() for i in (0, 1)] == [
            memory.column_counts(i).pairs() for i in (0, 1)
        ]
        for radii in ([1, 2], [3, 40, 41]):
            got = sql.norm_counts([1, 1], [1, 1], radii).pairs()
            assert got == memory.norm_counts([1, 1], [1, 1], radii).pairs()
        assert sql.norm_counts([1, 1], [1, 1], [1, 2]).pairs() == [(0, 1), (1, 3)]
