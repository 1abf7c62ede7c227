"""A release document written piece by piece: its long arrays are never held whole.

``finitedp release`` writes one JSON document per release.  A partial histogram
may list up to ``n`` bins, and building the whole text (with a dict per bin) took
about 700 bytes a bin: 6.5 GiB at ``n = 10^7``.  Here the document is a tree of
dicts, lists and scalars in which an array may be a :class:`JsonStream` (items
made on demand); :func:`json_chunks` yields exactly the text
``json.dumps(document, ensure_ascii=False, indent=2)`` would (and a final newline), and
:func:`write_document` writes it to ``--out`` (atomically) or to a temporary file
kept for standard output, which gets nothing until the whole document exists.

>>> doc = {"a": [1, [2, "x"]], "b": JsonStream(lambda: iter([{"v": None}])), "c": []}
>>> import json
>>> "".join(json_chunks(doc)) == json.dumps(
...     {"a": [1, [2, "x"]], "b": [{"v": None}], "c": []}, ensure_ascii=False, indent=2) + chr(10)
True
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Iterator, Mapping
from json.encoder import encode_basestring
from typing import IO, Any

from .files import atomic_path

__all__ = ["CHUNK_CHARS", "JsonStream", "json_chunks", "write_document"]

#: Pieces are joined into writes of about this many characters.
CHUNK_CHARS = 1 << 16

_INDENT = "  "


class JsonStream:
    """A JSON array whose items are made when it is written (once per writing).

    Args:
        items: called once per writing; returns the items in order.
    """

    __slots__ = ("_items",)

    def __init__(self, items: Callable[[], Iterator[Any]]) -> None:
        self._items = items

    def __iter__(self) -> Iterator[Any]:
        return self._items()


def _scalar(value: Any) -> str:
    """``json.dumps(value, ensure_ascii=False)`` for a str, int, bool or None, faster."""
    kind = type(value)
    if kind is str:
        return encode_basestring(value)
    if kind is int:
        return int.__repr__(value)
    return json.dumps(value, ensure_ascii=False)


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float))


def _pieces(value: Any, level: int) -> Iterator[str]:
    if _is_scalar(value):
        yield _scalar(value)
        return
    inner, close = "\n" + _INDENT * (level + 1), "\n" + _INDENT * level
    if type(value) is dict or isinstance(value, Mapping):
        if not value:
            yield "{}"
        elif all(_is_scalar(item) for item in value.values()):  # one piece (a bin's dict)
            entries = (f"{encode_basestring(str(k))}: {_scalar(v)}" for k, v in value.items())
            yield "{" + inner + ("," + inner).join(entries) + close + "}"
        else:
            opener = "{" + inner
            for key, item in value.items():
                yield opener + encode_basestring(str(key)) + ": "
                yield from _pieces(item, level + 1)
                opener = "," + inner
            yield close + "}"
        return
    if isinstance(value, (list, tuple)) and value and all(_is_scalar(item) for item in value):
        yield "[" + inner + ("," + inner).join(map(_scalar, value)) + close + "]"  # a bin
        return
    opener = "[" + inner
    for item in value:  # a list, a tuple or a JsonStream
        if _is_scalar(item):
            yield opener + _scalar(item)
        else:
            yield opener
            yield from _pieces(item, level + 1)
        opener = "," + inner
    yield "[]" if opener.startswith("[") else close + "]"


def json_chunks(document: Any) -> Iterator[str]:
    """The text of ``json.dumps(document, ensure_ascii=False, indent=2)``, in chunks of
    about :data:`CHUNK_CHARS` characters, with each :class:`JsonStream` written as an
    array of its items (the text is never held whole)."""
    parts: list[str] = []
    size = 0
    for piece in _pieces(document, 0):
        parts.append(piece)
        size += len(piece)
        if size >= CHUNK_CHARS:
            yield "".join(parts)
            parts, size = [], 0
    parts.append("\n")
    yield "".join(parts)


def write_document(document: Any, path: str | None) -> IO[bytes] | None:
    """Write ``document`` as UTF-8 JSON (two-space indent, a final newline).

    Args:
        document: dicts, lists, scalars and :class:`JsonStream` arrays.
        path: the ``--out`` file, written atomically (complete or not at all); or
            ``None`` for standard output.

    Returns:
        ``None`` after writing ``path``; for standard output, an anonymous temporary
        file holding the document, rewound, for the caller to copy once everything
        else has succeeded.

    Raises:
        ParameterError: ``path`` cannot be written (the message says why).
    """
    if path is not None:
        with atomic_path(path) as temporary, open(temporary, "wb") as stream:
            for chunk in json_chunks(document):
                stream.write(chunk.encode("utf-8"))
        return None
    spool = tempfile.TemporaryFile()  # noqa: SIM115 (handed to the caller, who closes it)
    try:
        for chunk in json_chunks(document):
            spool.write(chunk.encode("utf-8"))
        spool.seek(0)
    except BaseException:
        spool.close()
        raise
    return spool
