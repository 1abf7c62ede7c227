"""One file, one release, whatever the engine (issue 54).

Law: for every file below, ``release --engine duckdb`` and ``--engine spark`` either
write the same document for a seed (but for ``engine``) or both refuse, each with one
line on stderr naming the file; a path is the local file it names on both engines.
"""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path
from typing import Any

import duckdb
import pytest
from cli_run import run

pytest.importorskip("pyspark")

#: (file name, bytes, outcome): "same" (both release, the same document) or "refused".
CSV_CASES = [
    ("plain.csv", b"k\nA\nB\nA\n", "same"),
    ("doubled_quote.csv", b'k\n"A""B"\nC\n', "same"),  # A"B on both (RFC 4180)
    ("quote_only.csv", b'k\n""""\nC\n', "same"),  # the key "
    ("backslash_close.csv", b'k,v\n"A\\",1\nC,2\n', "same"),  # A\ : \ is no escape
    ("backslash_mid.csv", b'k\n"A\\"B"\nC\n', "refused"),
    ("multiline.csv", b'k\n"A\nB"\nC\n', "same"),  # a quoted line break
    ("trailing_comma.csv", b"k,v\nA,1,\nC,2,\n", "refused"),  # three fields, not two
    ("empty_last_field.csv", b"k,v\nA,\nB,2\n", "same"),  # two fields, the last empty
    ("short_row.csv", b"k,v\nA,\nB\n", "refused"),  # one field (padding must not hide it)
    ("space_line.csv", b"k\nA\n \nC\n", "same"),  # the key " "
    ("bom.csv", "\ufeffk\nA\nC\n".encode(), "same"),
    ("crlf.csv", b"k\r\nA\r\nC\r\n", "same"),
    ("empty_fields.csv", b'k,v\n,1\n"",2\nC,3\n', "same"),  # "" twice
    ("nul_field.csv", b"k,v\nA,1\n\x00,2\n", "same"),
    ("unclosed.csv", b'k\nA\n"B\n', "refused"),
    ("gzip.csv.gz", gzip.compress(b"k\nA\nB\n"), "refused"),
    ("fake.csv.gz", b"k\nA\nB\n", "same"),  # plain text whatever its name
    ("binary.csv", b"k\nA\xff\nB\n", "refused"),
    ("_under.csv", b"k\nA\nB\n", "same"),  # hidden to Hadoop
    (".dot.csv", b"k\nA\nB\n", "same"),
    ("co:lon.csv", b"k\nA\nB\n", "same"),  # a URI to Hadoop
]


def _parquet(path: Path, values: str) -> None:
    duckdb.sql(f"COPY (SELECT * FROM (VALUES {values}) t(k)) TO '{path}' (FORMAT parquet)")


def _releases(
    path: str, capsys: pytest.CaptureFixture[str], universe: str = "utf8:4"
) -> list[tuple[int, str, str]]:
    argv = ["release", path, "--column", "k", "--universe", universe, "--epsilon", "1"]
    argv += ["--seed", "5eed", "--quiet"]
    return [run([*argv, "--engine", engine], capsys) for engine in ("duckdb", "spark")]


def _judge(outs: list[tuple[int, str, str]], name: str) -> str:
    (duck_code, duck_out, duck_err), (spark_code, spark_out, spark_err) = outs
    if duck_code == spark_code == 0:
        documents = [json.loads(out) for out in (duck_out, spark_out)]
        engines = [document.pop("engine") for document in documents]
        assert engines == ["duckdb", "spark"]
        assert documents[0] == documents[1], name
        return "same"
    assert duck_code == spark_code == 2, (duck_err, spark_err)
    for err in (duck_err, spark_err):
        lines = [line for line in err.splitlines() if "WARNING: --seed" not in line]
        assert len(lines) == 1 and name in lines[0], err
        assert "Traceback" not in err
    return "refused"


@pytest.mark.parametrize(("name", "content", "outcome"), CSV_CASES, ids=[c[0] for c in CSV_CASES])
def test_a_csv_file_gives_one_release_on_both_engines(
    spark: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
    content: bytes,
    outcome: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    Path(name).write_bytes(content)
    assert _judge(_releases(name, capsys), name) == outcome


@pytest.mark.parametrize(
    ("name", "outcome"),
    [
        ("blob_utf8.parquet", "same"),
        ("blob_ff.parquet", "refused"),
        ("corrupt.parquet", "refused"),
        ("text_as.parquet", "refused"),
    ],
)
def test_a_parquet_file_gives_one_release_on_both_engines(
    spark: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
    outcome: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    if name == "blob_utf8.parquet":
        _parquet(tmp_path / name, r"('\xC3\xA9'::BLOB), ('A'::BLOB)")
    elif name == "blob_ff.parquet":
        _parquet(tmp_path / name, r"('\xFF'::BLOB), ('A'::BLOB)")
    elif name == "corrupt.parquet":
        Path(name).write_bytes(b"PAR1garbagePAR1")
    else:
        Path(name).write_bytes(b"k\nA\nB\n")
    assert _judge(_releases(name, capsys), name) == outcome


def test_a_file_colon_path_is_the_local_file(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``file:/x/num.csv`` relative to the working folder names a local file of 4 rows; the
    absolute ``/x/num.csv`` (40 rows) is what an engine reading a URL would release."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "num.csv").write_text("k\n" + "A\n" * 40)
    work = tmp_path / "work"
    local = work / ("file:" + str(elsewhere)) / "num.csv"
    local.parent.mkdir(parents=True)
    local.write_text("k\n" + "B\n" * 4)
    monkeypatch.chdir(work)
    relative = "file:" + str(elsewhere / "num.csv")
    assert os.path.isfile(relative)
    outs = _releases(relative, capsys)
    assert _judge(outs, relative) == "same"
    assert json.loads(outs[0][1])["parameters"]["n"] == 4
