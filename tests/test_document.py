"""The streamed release document (``finitedp.io.document``): the text of ``json.dumps``."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from finitedp.io import document
from finitedp.io.document import JsonStream, json_chunks, write_document
from finitedp.io.files import write_stdout

_SCALARS = st.none() | st.booleans() | st.integers() | st.text()
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=30,
)


def _streamed(value: Any) -> Any:
    """The same tree with every list replaced by a stream of its (streamed) items."""
    if isinstance(value, dict):
        return {key: _streamed(item) for key, item in value.items()}
    if isinstance(value, list):
        items = [_streamed(item) for item in value]
        return JsonStream(lambda: iter(items))
    return value


@given(_VALUES)
def test_the_chunks_are_the_text_of_json_dumps(value: Any) -> None:
    """Law: for any tree of dicts, lists and scalars, streamed or not, the chunks join
    to ``json.dumps(value, ensure_ascii=False, indent=2) + "\\n"``."""
    expected = json.dumps(value, ensure_ascii=False, indent=2) + "\n"
    assert "".join(json_chunks(value)) == expected
    assert "".join(json_chunks(_streamed(value))) == expected


def test_long_streams_come_in_bounded_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(document, "CHUNK_CHARS", 100)
    made: list[int] = []

    def items() -> Any:
        for i in range(1000):
            made.append(i)
            yield [i, "é"]

    chunks = json_chunks({"bins": JsonStream(items)})
    first = next(chunks)
    assert 100 <= len(first) < 200 and len(made) < 50  # made on demand, not up front
    text = first + "".join(chunks)
    assert json.loads(text) == {"bins": [[i, "é"] for i in range(1000)]}
    # a stream is made afresh each time it is written
    assert (
        "".join(json_chunks(JsonStream(items)))
        == json.dumps([[i, "é"] for i in range(1000)], ensure_ascii=False, indent=2) + "\n"
    )


def test_write_document_to_a_file_or_a_spool(tmp_path: Path) -> None:
    doc = {"a": JsonStream(lambda: iter(["ü", 2])), "b": {}}
    out = tmp_path / "r.json"
    assert write_document(doc, str(out)) is None
    expected = json.dumps({"a": ["ü", 2], "b": {}}, ensure_ascii=False, indent=2) + "\n"
    assert out.read_bytes() == expected.encode("utf-8")
    spool = write_document(doc, None)
    assert spool is not None
    with spool:
        assert spool.read() == expected.encode("utf-8")


def test_a_failed_stream_writes_nothing(tmp_path: Path) -> None:
    def broken() -> Any:
        yield 1
        raise ValueError("boom")

    out = tmp_path / "r.json"
    out.write_text("old", encoding="utf-8")
    with pytest.raises(ValueError, match="boom"):
        write_document({"a": JsonStream(broken)}, str(out))
    assert out.read_text(encoding="utf-8") == "old" and list(tmp_path.iterdir()) == [out]
    with pytest.raises(ValueError, match="boom"):
        write_document({"a": JsonStream(broken)}, None)


def test_write_stdout_copies_a_file_through_either_layer(monkeypatch: pytest.MonkeyPatch) -> None:
    payload = ("ä" * 700_000).encode("utf-8")  # blocks of 1 MiB split a character
    binary = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    monkeypatch.setattr(sys, "stdout", binary)
    write_stdout(io.BytesIO(payload))
    assert binary.buffer.getvalue() == payload  # type: ignore[attr-defined]
    text = io.StringIO()
    monkeypatch.setattr(sys, "stdout", text)
    write_stdout(io.BytesIO(payload))
    write_stdout(b"!")
    assert text.getvalue() == "ä" * 700_000 + "!"
