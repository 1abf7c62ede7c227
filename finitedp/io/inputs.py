"""An input file as every engine reads it: the local file it names, and nothing else.

A command checks one file and each engine must read exactly that file, the same way
(issue 54).  Engines interpret names: DuckDB expands globs (``* ? [ ] { }``) and
``~`` and reads URLs (``file:/x``, ``http:/x``, ``s3://x``); Spark and Hadoop read a
name with a ``:`` as a URI, skip names starting with ``_`` or ``.`` as hidden, and
pick a decompressor by the name's suffix.  So any name that is not plainly local
(the characters ``A-Z a-z 0-9 _ . / + -``, no component starting with ``_`` or
``.``, no compression suffix) is handed to the engines through a temporary symbolic
link with a plain name (``input.csv``, ``input.parquet``) to the absolute path.

Compressed text (gzip, bzip2, xz, zstd, zip) is refused by its first bytes, on every
engine, whatever the name: DuckDB and Spark would each decide by the suffix, and
differently.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import re
import stat
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ParameterError
from ..resources import MEMORY_ENV, describe_bytes, max_memory

__all__ = ["MAX_LINE_BYTES", "InputFile", "opened_input"]


@dataclass(frozen=True)
class InputFile:
    """A readable input: ``path`` on disk (a copy of standard input for ``-``).

    Attributes:
        path: the file DuckDB or the line reader opens (it may be read twice).
        name: the name messages use (``<stdin>`` for ``-``).
        kind: ``"csv"``, ``"parquet"`` or ``"text"``.
        missing: ``(column, value)``: every engine reads a missing value of the column
            (a Parquet NULL, an empty CSV field) as ``value`` (:mod:`finitedp.io.missing`).
    """

    path: str
    name: str
    kind: str
    missing: tuple[tuple[str, str], ...] = ()


#: The characters of a name every engine reads literally as a local path.
_PLAIN = re.compile(r"[A-Za-z0-9_./+-]+")
#: Suffixes an engine takes as a compression codec (DuckDB's and Hadoop's).
_CODEC_SUFFIXES = {".gz", ".gzip", ".bz2", ".xz", ".zst", ".zstd", ".lz4", ".snappy", ".deflate"}
#: First bytes of compressed files, and their names.
_MAGIC = (
    (b"\x1f\x8b", "gzip"),
    (b"BZh", "bzip2"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
    (b"PK\x03\x04", "zip"),
)


@contextlib.contextmanager
def opened_input(path: str, kind: str) -> Iterator[InputFile]:
    """The input ``path``, to be read from exactly that path and nothing else.

    * ``-`` (standard input) and any file that is not a regular file (a pipe, a
      FIFO, ``/dev/stdin``, a character device) are copied once to a temporary file:
      the header, DuckDB and an error's diagnosis each read the file again, and a
      pipe can be read only once.  The copy stops with a refusal past the memory
      limit (:func:`finitedp.resources.max_memory`), so an endless device ends.
    * A name an engine would not read literally (module notes) is handed over as a
      temporary symbolic link with a plain name, so the file read is the one named.
    * CSV or text input that is compressed is refused (decompress it first).

    Raises:
        ParameterError: the file cannot be read (the message names it and says why),
            it is compressed, or a stream is longer than the limit.
    """
    if path == "-":
        if sys.stdin is None:
            raise ParameterError("-: standard input is closed; give the data on it or a file")
        with _copied(sys.stdin.buffer, "<stdin>", kind) as source:
            yield source
        return
    try:
        with open(path, "rb") as probe:
            if Path(path).is_dir():
                raise IsADirectoryError(21, "Is a directory")
            if not stat.S_ISREG(os.fstat(probe.fileno()).st_mode):
                with _copied(probe, path, kind) as source:
                    yield source
                return
    except OSError as error:
        raise ParameterError(f"{path}: cannot read it: {error.strerror or error}") from None
    _refuse_compressed(InputFile(path, path, kind))
    if not plain(path):
        with tempfile.TemporaryDirectory(prefix="finitedp-input-") as folder:
            link = os.path.join(folder, "input." + ("txt" if kind == "text" else kind))
            os.symlink(os.path.abspath(path), link)
            yield InputFile(link, path, kind)
        return
    yield InputFile(path, path, kind)


def plain(path: str) -> bool:
    """Whether every engine reads ``path`` literally as the local file it names."""
    absolute = os.path.abspath(path)
    parts = Path(absolute).parts[1:]
    return (
        _PLAIN.fullmatch(absolute) is not None
        and not path.startswith("~")
        and not any(part.startswith(("_", ".")) for part in parts)
        and Path(path).suffix.lower() not in _CODEC_SUFFIXES
    )


def _refuse_compressed(source: InputFile) -> None:
    """Refuse CSV or text input whose first bytes are a compressed format's."""
    if source.kind == "parquet":
        return
    with open(source.path, "rb") as handle:
        _refuse_compressed_head(handle.read(8), source.name, source.kind)


#: The longest line a copied CSV or text stream may have (an endless device has none).
MAX_LINE_BYTES = 64 << 20


def _check_text(decoder: codecs.IncrementalDecoder, chunk: bytes, name: str, at: int) -> None:
    """Refuse a stream that is not UTF-8 as soon as a chunk shows it."""
    try:
        decoder.decode(chunk)
    except UnicodeDecodeError as error:
        raise ParameterError(
            f"{name}: byte {at + error.start + 1:,} is not UTF-8 text; CSV and text input "
            "must be UTF-8"
        ) from None


@contextlib.contextmanager
def _copied(stream: Any, name: str, kind: str) -> Iterator[InputFile]:
    """A temporary copy of a stream read once, refused past the memory limit."""
    limit = max_memory()
    text = kind != "parquet"  # CSV and text input are UTF-8 lines: checked as they come
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    handle, copy = tempfile.mkstemp(prefix="finitedp-stream-")
    try:
        with os.fdopen(handle, "wb") as out:
            copied = line = 0
            while chunk := stream.read(1 << 20):
                copied += len(chunk)
                if copied > limit:
                    raise ParameterError(
                        f"{name}: a stream (not a regular file) longer than "
                        f"{describe_bytes(limit)}, the memory limit, is not copied; save it "
                        f"to a file first, or raise {MEMORY_ENV}"
                    )
                if text:
                    if copied == len(chunk):
                        _refuse_compressed_head(chunk, name, kind)
                    _check_text(decoder, chunk, name, copied - len(chunk))
                    end = chunk.rfind(b"\n")
                    line = len(chunk) - 1 - end if end >= 0 else line + len(chunk)
                    if line > MAX_LINE_BYTES:
                        raise ParameterError(
                            f"{name}: no line break in {describe_bytes(MAX_LINE_BYTES)}; "
                            f"{kind} input is lines of text, each at most that long"
                        )
                out.write(chunk)
        yield InputFile(copy, name, kind)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(copy)


def _refuse_compressed_head(head: bytes, name: str, kind: str) -> None:
    for magic, codec in _MAGIC:
        if head.startswith(magic):
            raise ParameterError(
                f"{name}: a {codec}-compressed file; {kind.upper()} input is read as plain "
                "UTF-8 text: decompress it first"
            )
