"""Files for the tools: reading input columns, and writing outputs atomically.

One implementation for every command (``release``, ``query``, ``plot``,
``vectors``): input is strict UTF-8 (a leading byte-order mark is dropped), CSV
or one value per line; outputs appear complete or not at all.
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import io
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from ..errors import ParameterError

__all__ = [
    "STDOUT",
    "UTF8_BOM",
    "atomic_path",
    "check_out",
    "csv_fields",
    "csv_rows",
    "decode_utf8",
    "header_positions",
    "input_format",
    "read_bytes",
    "say",
    "show",
    "write_atomically",
    "write_stdout",
]

#: The UTF-8 byte-order mark that spreadsheet programs put before a CSV header.
UTF8_BOM = b"\xef\xbb\xbf"


def read_bytes(path: str) -> bytes:
    """All bytes of ``path`` (``-``: standard input).

    Raises:
        ParameterError: the file cannot be read (the message names it and says why).
    """
    if path == "-":
        if sys.stdin is None:
            raise ParameterError("-: standard input is closed; give the document on it or a file")
        try:
            return sys.stdin.buffer.read()
        except OSError as error:
            raise ParameterError(
                f"-: cannot read standard input: {error.strerror or error}"
            ) from None
    try:
        return Path(path).read_bytes()
    except OSError as error:
        raise ParameterError(f"{path}: cannot read it: {error.strerror or error}") from None


def decode_utf8(raw: bytes, name: str) -> str:
    """The text of ``raw`` read as strict UTF-8 (a leading byte-order mark is dropped).

    Raises:
        ParameterError: invalid UTF-8; the message names the line.
    """
    # Spreadsheet programs start UTF-8 CSV files with a BOM; it is not part of the header.
    if raw.startswith(UTF8_BOM):
        raw = raw[len(UTF8_BOM) :]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        raise ParameterError(
            f"{name}, line {line}: not valid UTF-8 (byte {raw[error.start]:#04x}); "
            f"finitedp reads UTF-8 text only"
        ) from None


def csv_rows(text: str, column: str | None, name: str) -> Iterator[tuple[int, str]]:
    """``(line number, value)`` for the named column of each CSV record after the header.

    Blank lines are skipped (as :class:`csv.DictReader` does); values are taken verbatim.

    Raises:
        ParameterError: no header, no such column (the message lists the header),
            the column named twice, a record with another number of fields than the
            header (the message names its first line), or malformed CSV.
    """
    for line, fields in csv_fields(text, (column, "--column"), name=name):
        yield line, fields[0]


def csv_fields(
    text: str, *columns: tuple[str | None, str], name: str
) -> Iterator[tuple[int, list[str]]]:
    """``(line number, [value of each column])`` for each CSV record after the header.

    Args:
        text: the decoded file.
        columns: ``(header name, the flag that named it)`` for each column wanted.
        name: the file's name for messages.

    Raises:
        ParameterError: as :func:`csv_rows`, naming the flag of a missing column.
    """
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    end = 0  # the last line of the last record read
    try:
        header = next(reader, None)
        if header is None:
            raise ParameterError(f"{name}: empty file; a CSV file needs a header row")
        positions = header_positions(header, columns, name, "CSV")
        end = reader.line_num
        for record in reader:
            # A quoted field may span lines: a record is named by its first line.
            start, end = end + 1, reader.line_num
            if not record:
                continue
            if len(record) != len(header):
                # Too few fields loses the value; too many (an unquoted comma, as in
                # Washington, D.C.) would silently cut it.
                raise ParameterError(
                    f"{name}, line {start}: the record has {len(record)} fields but the "
                    f"header has {len(header)}; quote values that contain commas"
                )
            yield start, [record[i] for i in positions]
    except csv.Error as error:
        raise ParameterError(f"{name}, line {end + 1}: malformed CSV: {error}") from None


def header_positions(
    header: list[str], columns: tuple[tuple[str | None, str], ...], name: str, kind: str
) -> list[int]:
    """The position of each wanted column in ``header``.

    Args:
        header: the file's column names, in order.
        columns: ``(header name, the flag that named it)`` for each column wanted.
        name: the file's name for messages.
        kind: ``"CSV"`` or ``"Parquet"``, for messages.

    Raises:
        ParameterError: a column not named, absent, or named twice (the message
            lists the header and names the flag).
    """
    shown = ", ".join(repr(h) for h in header[:20]) + (", ..." if len(header) > 20 else "")
    positions = []
    for column, flag in columns:
        if column is None:
            raise ParameterError(
                f"{flag}: {name} is read as {kind}; name the column to release with "
                f"{flag} NAME (its header has {shown})"
            )
        found = [i for i, h in enumerate(header) if h == column]
        if not found:
            raise ParameterError(
                f"{flag}: {name} has no column {column!r} (its header has {shown})"
            )
        if len(found) > 1:
            raise ParameterError(
                f"{flag}: {name} has {len(found)} columns named {column!r}, so the "
                f"choice is ambiguous"
            )
        positions.append(found[0])
    return positions


def input_format(path: str, column: str | None, chosen: str) -> str:
    """``"csv"``, ``"parquet"`` or ``"text"``: ``--format``, else by the name and ``--column``.

    A ``.parquet`` name is Parquet; otherwise ``--column`` or a ``.csv`` name is CSV,
    and anything else one value per line.

    Raises:
        ParameterError: ``--column`` with ``--format text``.
    """
    if chosen == "text" and column is not None:
        raise ParameterError("--column: applies to CSV and Parquet input, not to --format text")
    if chosen != "auto":
        return chosen
    if path.lower().endswith((".parquet", ".pq")):
        return "parquet"
    return "csv" if column is not None or path.lower().endswith(".csv") else "text"


#: ``--out -`` means standard output, as in most command-line tools.
STDOUT = "-"


def _existing_kind(path: Path) -> str:
    """What is at ``path``: missing, regular, stream (FIFO or char device), directory, other."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return "missing"
    except OSError as error:
        raise ParameterError(f"--out: cannot use {path}: {error.strerror or error}") from None
    if stat.S_ISREG(mode):
        return "regular"
    if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode):
        return "stream"
    return "directory" if stat.S_ISDIR(mode) else "other"


def check_out(out: str | None, inputs: str) -> None:
    """Refuse an ``--out`` that cannot be written, before any work is done.

    A symbolic link is judged by what it points to (its target is written, the
    link stays).  ``-`` (standard output), a FIFO and a character device such
    as ``/dev/null`` are written through; a socket or block device is refused.

    Raises:
        ParameterError: ``--out`` is a directory, its directory does not exist,
            it is a socket or block device, or it is the input file (the release
            would replace the data).
    """
    if out is None or out == STDOUT:
        return
    if out.endswith(("/", os.sep)):
        raise ParameterError(f"--out: {out} names a directory (it ends with /); give a file name")
    target, kind = _resolved(out)
    if kind == "directory":
        raise ParameterError(f"--out: {out} is a directory; give a file name")
    if kind == "other":
        raise ParameterError(
            f"--out: {out} is neither a regular file, a FIFO nor a character device; "
            f"refusing to write to it"
        )
    if kind == "missing" and not target.parent.is_dir():
        raise ParameterError(f"--out: the directory of {out} does not exist")
    if kind in ("missing", "regular"):
        # The release is written to a temporary file beside it, then renamed: a folder
        # that takes no new file is refused now, not after the whole read.
        try:
            handle, probe = tempfile.mkstemp(prefix=".finitedp-probe-", dir=target.parent)
        except OSError as error:
            raise ParameterError(
                f"--out: cannot write in the directory of {out}: {error.strerror or error}"
            ) from None
        os.close(handle)
        with contextlib.suppress(OSError):
            os.unlink(probe)
    if inputs != "-" and kind != "missing":
        with contextlib.suppress(OSError):
            if os.path.samefile(target, inputs):
                raise ParameterError(
                    f"--out: {out} is the input file; refusing to replace the data"
                )


def _resolved(path: str) -> tuple[Path, str]:
    """Where ``--out`` writes and what is there.  A stream (FIFO, character device) is
    written through the name given: ``/dev/stdout`` on a pipe resolves to ``pipe:[N]``,
    which no path reaches; anything else through its real path (a link's target)."""
    with contextlib.suppress(OSError):
        mode = os.stat(path).st_mode
        if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode):
            return Path(path), "stream"
    target = Path(os.path.realpath(path))
    return target, _existing_kind(target)


@contextlib.contextmanager
def atomic_path(path: str) -> Iterator[str]:
    """A temporary file that becomes ``path`` when the block ends normally.

    The caller writes the temporary file (named by the yielded path).  For a
    regular file (or a new one) the temporary file lies in the same directory
    and is flushed to disk and renamed onto ``path``: the file appears complete
    or not at all (``os.replace`` is atomic within a file system), and the result
    keeps the mode of the file it replaces, else gets ``0o666 & ~umask``.  A
    symbolic link is followed: its target is replaced, the link is kept.  A FIFO
    or character device (``/dev/null``, a terminal) is never replaced: the
    finished bytes are written through it.  The temporary file is removed on any
    error, so nothing is written unless the whole output exists.

    Raises:
        ParameterError: the file cannot be written (the message names it and says
            why), including an ``OSError`` raised inside the block.
    """
    target, kind = _resolved(path)
    if kind in ("directory", "other"):
        check_out(path, "-")  # raises the message for this kind
    mode = 0o666
    if kind == "regular":
        mode = target.stat().st_mode & 0o777
    else:
        umask = os.umask(0)  # reading the umask means setting it; restore at once
        os.umask(umask)
        mode &= ~umask
    # A device's directory (/dev) is no place for a temporary file.
    where = None if kind == "stream" else target.parent
    try:
        handle, temporary = tempfile.mkstemp(dir=where, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as error:
        raise ParameterError(f"--out: cannot write {path}: {error.strerror or error}") from None
    try:
        os.close(handle)
        yield temporary
        if kind == "stream":
            with open(temporary, "rb") as source, open(target, "wb") as sink:
                shutil.copyfileobj(source, sink)
            os.unlink(temporary)
            return
        with open(temporary, "rb+") as stream:
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(error, OSError):
            raise ParameterError(f"--out: cannot write {path}: {error.strerror or error}") from None
        raise


def write_atomically(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same directory.

    See :func:`atomic_path`: the file appears complete or not at all.

    Raises:
        ParameterError: the file cannot be written (the message says why).
    """
    with atomic_path(path) as temporary, open(temporary, "wb") as stream:
        stream.write(data)


def say(text: str) -> None:
    """One message line on standard error, never elsewhere: nothing if stderr is closed
    or full (a message must not turn a result into a failure, nor land in stdout)."""
    stream = sys.stderr
    if stream is None:
        return
    with contextlib.suppress(OSError, ValueError):
        stream.write(text + "\n")
        stream.flush()


def show(text: str) -> None:
    """A result line on standard output.

    Raises:
        ParameterError: standard output is closed (the result would go nowhere).
        OSError: it cannot be written (a full device); ``BrokenPipeError`` included.
    """
    if sys.stdout is None:
        raise ParameterError("standard output is closed; the result would be lost")
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def write_stdout(payload: bytes | IO[bytes]) -> None:
    """Write UTF-8 bytes to stdout (through its text layer if it has no binary one).

    Args:
        payload: the bytes, or a binary file read from its current position to its
            end (copied in blocks).

    Raises:
        ParameterError: standard output is closed.
        OSError: it cannot be written.
    """
    if sys.stdout is None:
        raise ParameterError("standard output is closed; the release would be lost (use --out)")
    sys.stdout.flush()
    blocks = [payload] if isinstance(payload, bytes) else iter(lambda: payload.read(1 << 20), b"")
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        decoder = codecs.getincrementaldecoder("utf-8")()
        for block in blocks:
            sys.stdout.write(decoder.decode(block))
        sys.stdout.write(decoder.decode(b"", final=True))
        sys.stdout.flush()
    else:
        for block in blocks:
            buffer.write(block)
        buffer.flush()
