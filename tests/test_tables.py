"""Reading files through DuckDB: the same values as the strict reader, any size, CSV and Parquet.

Laws: for every CSV text the strict reader (:func:`finitedp.io.files.csv_rows`)
accepts, DuckDB's counts equal the strict reader's counts; whatever it refuses,
the release command refuses with the strict reader's message (its line).  A
Parquet file holding the same column gives the same release.  The stream
mechanisms get the rows in file order.
"""

from __future__ import annotations

import csv
import io
import json
import sys
from collections import Counter
from pathlib import Path

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from finitedp.cli import main
from finitedp.errors import ParameterError
from finitedp.io.columns import keys_in_order, ranked_keys, read_counts
from finitedp.io.files import csv_rows
from finitedp.io.progress import Progress
from finitedp.io.tables import InputFile, opened_input
from finitedp.io.universe import parse_universe


def _release(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _counts_by_duckdb(path: Path, column: str, spec: str = "utf8:40") -> dict[int, int]:
    with Progress(False, 1.0) as progress:
        return read_counts(
            InputFile(str(path), str(path), "csv"), column, parse_universe(spec), progress
        )[1]


_FIELD = st.text(alphabet=st.sampled_from(list('ab,"\n\r é')), max_size=5)


@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(st.tuples(_FIELD, _FIELD), min_size=1, max_size=8),
    crlf=st.booleans(),
    bom=st.booleans(),
    quote_all=st.booleans(),
)
def test_duckdb_counts_equal_the_strict_readers(
    rows: list[tuple[str, str]],
    crlf: bool,
    bom: bool,
    quote_all: bool,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    if not quote_all:  # csv.writer leaves a lone \r unquoted: a file with mixed line ends
        rows = [(a.replace("\r", ""), b.replace("\r", "")) for a, b in rows]
    buffer = io.StringIO(newline="")
    quoting = csv.QUOTE_ALL if quote_all else csv.QUOTE_MINIMAL
    writer = csv.writer(buffer, lineterminator="\r\n" if crlf else "\n", quoting=quoting)
    writer.writerow(["key", "other"])
    writer.writerows(rows)
    text = buffer.getvalue()
    path = tmp_path_factory.mktemp("csv") / "t.csv"
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))
    universe = parse_universe("utf8:40")
    expected = Counter(universe.encode(v) for _, v in csv_rows(text, "key", str(path)))
    assert _counts_by_duckdb(path, "key") == dict(sorted(expected.items()))


def test_one_column_blank_lines_are_skipped_and_quoted_empty_is_a_value(tmp_path: Path) -> None:
    path = tmp_path / "one.csv"
    path.write_bytes(b'city\r\nA\r\n\r\n""\r\nA\r\n')
    universe = parse_universe("utf8:4")
    assert _counts_by_duckdb(path, "city", "utf8:4") == dict(
        sorted({universe.encode("A"): 2, universe.encode(""): 1}.items())
    )


def test_parquet_gives_the_release_of_the_same_csv(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    csv_path, parquet = tmp_path / "v.csv", tmp_path / "v.parquet"
    csv_path.write_text(
        "city,n\n" + "".join(f"c{i % 7},{i}\n" for i in range(300)), encoding="utf-8"
    )
    duckdb.sql(
        f"COPY (SELECT * FROM read_csv('{csv_path}', all_varchar = true)) TO '{parquet}' "
        f"(FORMAT parquet)"
    )
    argv = ["--column", "city", "--universe", "utf8:4", "--epsilon", "1", "--seed", "0a", "--quiet"]
    outs = []
    for path in (csv_path, parquet):
        code, out, err = _release(["release", str(path), *argv], capsys)
        assert code == 0, err
        outs.append(json.loads(out))
    assert outs[0]["release"] == outs[1]["release"] and outs[0]["parameters"]["n"] == 300
    code, _, err = _release(["release", str(parquet), "--column", "town", *argv[2:]], capsys)
    assert code == 2 and "has no column 'town' (its header has 'city', 'n')" in err


def test_parquet_null_and_non_text_values_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nulls, floats = tmp_path / "nulls.parquet", tmp_path / "floats.parquet"
    duckdb.sql(f"COPY (SELECT * FROM (VALUES (1), (NULL), (3)) t(k)) TO '{nulls}' (FORMAT parquet)")
    duckdb.sql(f"COPY (SELECT * FROM (VALUES (1.5), (2.0)) t(k)) TO '{floats}' (FORMAT parquet)")
    argv = ["--column", "k", "--universe", "int:5", "--epsilon", "1", "--quiet"]
    code, out, err = _release(["release", str(nulls), *argv], capsys)
    assert code == 2 and out == "" and "a missing value (NULL)" in err
    code, out, err = _release(["release", str(floats), *argv], capsys)
    assert code == 2 and out == "" and "is not in the universe int:5" in err
    with (
        opened_input(str(nulls), "parquet") as source,
        pytest.raises(ParameterError, match="row 2: the column 'k' has a missing value"),
    ):
        list(keys_in_order(source, "k", parse_universe("int:5")))


def test_csv_from_standard_input(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = b"city\nOslo\nLima\nOslo\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    argv = ["release", "-", "--column", "city", "--universe", "utf8:4", "--epsilon", "1"]
    code, out, err = _release([*argv, "--quiet", "--seed", "01"], capsys)
    assert code == 0, err and json.loads(out)["parameters"]["n"] == 3
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"city\nOslo\nAtlantis\n")))
    code, out, err = _release([*argv, "--quiet"], capsys)
    assert code == 2 and out == "" and "<stdin>, line 3: value 'Atlantis' has 8 bytes" in err


def test_stream_mechanism_reads_rows_in_file_order(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    labels = [str((i * 7919) % 97 + 1) for i in range(5000)]
    path.write_text("x\n" + "\n".join(labels) + "\n", encoding="utf-8")
    with opened_input(str(path), "csv") as source:
        keys = list(keys_in_order(source, "x", parse_universe("int:100")))
    assert keys == [int(v) for v in labels]


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_ranked_keys_are_the_rows_in_file_order(
    tmp_path: Path, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DuckDB's numbering (an ENUM, a temporary table read by rowid ranges) gives the
    keys of the strict line-by-line stream, in order, across many fetches; the ranks
    index the sorted keys (numeric order for int:M, not the labels' text order)."""
    from finitedp.io import tables

    monkeypatch.setattr(tables, "BATCH_ROWS", 8)  # fetches of 32 rows
    labels = [str((i * 7919) % 97 + 1) for i in range(5000)]
    path = tmp_path / "s.csv"
    path.write_text("x\n" + "\n".join(labels) + "\n", encoding="utf-8")
    if kind == "parquet":
        csv_path, path = path, tmp_path / "s.parquet"
        duckdb.sql(
            f"COPY (SELECT * FROM read_csv('{csv_path}', all_varchar = true)) TO '{path}' "
            f"(FORMAT parquet, ROW_GROUP_SIZE 100)"
        )
    universe = parse_universe("int:100")
    with opened_input(str(path), kind) as source:
        stream = ranked_keys(source, "x", universe)
        assert stream.keys == tuple(sorted({int(v) for v in labels})) and stream.n == 5000
        assert list(stream) == [int(v) for v in labels]


def test_ranked_keys_refuse_nulls_and_values_outside_the_universe(tmp_path: Path) -> None:
    nulls = tmp_path / "nulls.parquet"
    duckdb.sql(
        f"COPY (SELECT * FROM (VALUES ('1'), ('2'), (NULL), ('3')) t(k)) TO '{nulls}' "
        f"(FORMAT parquet)"
    )
    with (
        opened_input(str(nulls), "parquet") as source,
        pytest.raises(ParameterError, match="row 3: the column 'k' has a missing value"),
    ):
        ranked_keys(source, "k", parse_universe("int:5"))
    path = tmp_path / "out.csv"
    path.write_text("k\n1\n2\n9\n", encoding="utf-8")
    with (
        opened_input(str(path), "csv") as source,
        pytest.raises(ParameterError, match=r"line 4: value '9'"),
    ):
        ranked_keys(source, "k", parse_universe("int:5"))
    empty = tmp_path / "empty.csv"
    empty.write_text("k\n", encoding="utf-8")
    with opened_input(str(empty), "csv") as source:
        stream = ranked_keys(source, "k", parse_universe("int:5"))
        assert (stream.keys, stream.n, list(stream)) == ((), 0, [])


def test_pmg_from_a_file_is_the_pmg_of_its_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same rows as CSV (ranked keys, DuckDB) and as text (keys one by one): with the
    same seed the same release, byte for byte."""
    labels = ["7" if i % 3 else str((i * i * 31) % 23 + 1) for i in range(3000)]
    csv_path, text = tmp_path / "s.csv", tmp_path / "s.txt"
    csv_path.write_text("x\n" + "\n".join(labels) + "\n", encoding="utf-8")
    text.write_text("\n".join(labels) + "\n", encoding="utf-8")
    argv = ["--universe", "int:30", "--epsilon", "1", "--mechanism", "pmg", "--k", "4"]
    argv += ["--delta", "1/100", "--seed", "0a", "--quiet"]
    code, from_csv, err = _release(["release", str(csv_path), "--column", "x", *argv], capsys)
    assert code == 0, err
    code, from_text, err = _release(["release", str(text), "--format", "text", *argv], capsys)
    assert code == 0, err
    assert from_csv == from_text and json.loads(from_csv)["release"]["heavy"]


def test_out_of_universe_value_names_its_first_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "big.csv"
    rows = ["3"] * 5000 + ["12", "9", "13"] + ["4"] * 10
    path.write_text("a,b\n" + "".join(f"{v},x\n" for v in rows), encoding="utf-8")
    argv = ["release", str(path), "--column", "a", "--universe", "int:10", "--epsilon", "1"]
    code, out, err = _release(argv, capsys)
    assert code == 2 and out == "" and f"{path}, line 5002: value '12'" in err
    code, out, err = _release([*argv, "--mechanism", "pmg", "--k", "2", "--delta", "1/100"], capsys)
    assert code == 2 and out == "" and f"{path}, line 5002: value '12'" in err


def test_mixed_line_ends_are_refused_with_a_hint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "mixed.csv"
    path.write_bytes(b"key,other\n,a\r\nb,c\n")
    argv = ["release", str(path), "--column", "key", "--universe", "utf8:3", "--epsilon", "1"]
    code, out, err = _release(argv, capsys)
    assert code == 2 and out == "" and "mixes \\r\\n and \\n line ends" in err


def test_a_database_that_has_spilled_still_hands_out_cursors() -> None:
    # The spill folder is a database-wide setting, given once: DuckDB refuses to move it
    # after a spill, and a PLAN over 10^8 narrow rows spilled before its next question.
    import threading

    from finitedp.io.tables import connect

    found: list[object] = []

    def run() -> None:  # a thread of its own: its own database
        con = connect()
        con.execute("SET memory_limit = '20MB'")
        rows = "SELECT i, i::VARCHAR s FROM range(3000000) t(i) ORDER BY hash(i)"
        sql = f"SELECT count(*) FROM ({rows})"
        found.append(con.execute(sql).fetchone())
        try:
            again = connect()
            found.append(again.execute("SELECT current_setting('temp_directory')").fetchone())
        except duckdb.Error as error:
            found.append(error)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert found[0] == (3000000,)
    assert isinstance(found[1], tuple) and str(found[1][0]).endswith("finitedp-duckdb")
