"""Declared universes (issue 51): integer ranges with any lower end, and public key lists.

Laws: ``int:A..B`` numbers ``v`` as ``v - A + 1`` and reads only canonical spellings;
a key list numbers its keys in order and, with ``--other``, sends every other value to
one bin (a row-wise map, nothing refused); a release over a key list lists exactly its
keys (never a noise bin outside it) and is read back from the document alone.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_run import run
from hypothesis import given
from hypothesis import strategies as st

from finitedp.errors import ParameterError
from finitedp.io.keyset import OTHER, KeyUniverse, key_list
from finitedp.io.releases import load_release
from finitedp.io.universe import RangeUniverse, parse_universe


@given(low=st.integers(-(10**6), 10**6), width=st.integers(0, 10**6), data=st.data())
def test_a_range_numbers_each_integer_once(low: int, width: int, data: st.DataObject) -> None:
    universe = parse_universe(f"int:{low}..{low + width}")
    assert universe.size == width + 1
    value = data.draw(st.integers(low, low + width))
    x = universe.encode(str(value))
    assert x == value - low + 1 and universe.decode(x) == str(value)


@pytest.mark.parametrize("label", ["-0", "007", "+1", " 1", "1.0", "60", "-1", ""])
def test_a_range_reads_only_canonical_spellings_inside_it(label: str) -> None:
    with pytest.raises(ParameterError, match=r"int:0\.\.59"):
        parse_universe("int:0..59").encode(label)


@pytest.mark.parametrize("spec", ["int:5..4", "int:1..", "int:..3", "int:a..b", "int:01..3"])
def test_a_malformed_range_is_refused(spec: str) -> None:
    with pytest.raises(ParameterError, match="universe"):
        parse_universe(spec)


def test_int_m_is_the_range_from_one() -> None:
    assert parse_universe("int:-3..3").encode("0") == 4
    assert RangeUniverse(1, 9).size == parse_universe("int:9").size
    assert parse_universe("int:0..0").decode(1) == "0"


def test_a_key_list_numbers_keys_in_order_and_other_takes_the_rest() -> None:
    keys = parse_universe("keys=b,a,c", other=True)
    assert isinstance(keys, KeyUniverse) and keys.size == 4
    assert [keys.encode(k) for k in ("b", "a", "c", "zz", "")] == [1, 2, 3, 4, 4]
    assert [keys.decode(x) for x in range(1, 5)] == ["b", "a", "c", OTHER]
    with pytest.raises(ParameterError, match="--other"):
        parse_universe("keys=b,a,c").encode("zz")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a\nb\na\n", "declared twice.*keys 1 and 3"),
        ("", "no key"),
        ("a\n\nb\n", "line 2: a blank line"),
        (b"a\n\xff\n", "not valid UTF-8"),
    ],
)
def test_a_bad_key_file_is_refused_by_name(tmp_path: Path, text: str | bytes, message: str) -> None:
    path = tmp_path / "keys.txt"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    with pytest.raises(ParameterError, match=message):
        parse_universe(f"keys:{path}")


def test_other_is_refused_where_it_means_nothing_or_collides() -> None:
    with pytest.raises(ParameterError, match="--other"):
        parse_universe("utf8:4", other=True)
    with pytest.raises(ParameterError, match="catch-all"):
        parse_universe("keys=a,(other)", other=True)
    assert parse_universe("keys=a,(other)").size == 2  # a key like any other without it


def test_a_million_keys_and_crlf_lines(tmp_path: Path) -> None:
    path = tmp_path / "many.txt"
    path.write_text("".join(f"k{i}\r\n" for i in range(10**6)), encoding="utf-8")
    assert key_list(str(path))[:2] == ["k0", "k1"]
    universe = parse_universe(f"keys:{path}")
    assert universe.size == 10**6 and universe.encode("k999999") == 10**6


def test_a_release_over_a_key_list_lists_exactly_its_keys(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "f.csv").write_text("origin\nJFK\nLGA\nEWR\nJFK\nXYZ\n", encoding="utf-8")
    (tmp_path / "k.txt").write_text("JFK\nLGA\nEWR\nSWF\n", encoding="utf-8")
    out = tmp_path / "r.json"
    argv = ["release", str(tmp_path / "f.csv"), "--column", "origin", "--universe"]
    argv += [f"keys:{tmp_path / 'k.txt'}", "--other", "--epsilon", "2", "--seed", "01"]
    code, _, err = run([*argv, "--out", str(out), "--quiet"], capsys)
    assert code == 0, err
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["universe"] == "keys+other" and document["universe_size"] == 5
    assert document["keys"] == ["JFK", "LGA", "EWR", "SWF"]
    # Every bin listed is a declared key (a bin not listed has the noisy count 0).
    listed = [b["value"] for b in document["bins"]]
    assert listed and set(listed) <= {"JFK", "LGA", "EWR", "SWF", OTHER}
    _, universe, _ = load_release(document, "r.json")
    assert universe == parse_universe("keys=JFK,LGA,EWR,SWF", other=True)
    code, said, _ = run(["query", str(out), "SWF", OTHER], capsys)
    assert code == 0 and said.startswith("SWF\t")
    document["keys"] = "JFK"
    with pytest.raises(ParameterError, match="not a list of strings"):
        load_release(document, "r.json")


def test_minutes_from_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "m.csv").write_text("minute\n0\n59\n0\n", encoding="utf-8")
    argv = ["release", str(tmp_path / "m.csv"), "--column", "minute", "--universe"]
    code, out, err = run([*argv, "int:0..59", "--epsilon", "1", "--seed", "01", "--quiet"], capsys)
    assert code == 0, err
    document = json.loads(out)
    assert document["universe"] == "int:0..59" and document["bins"][0]["value"] == "0"
