"""Reading one column of a file without holding its rows: DuckDB for CSV and Parquet.

``finitedp release`` needs either the counts of a column (every histogram
mechanism depends on its data only through them) or, for the stream mechanisms,
the column's values in file order.  CSV and Parquet files are read by DuckDB, an
in-process database: it counts with ``GROUP BY`` inside the database, so memory
follows the number of distinct values, not of rows, and it streams a column in
file order in batches.  One value per line (``--format text``) is streamed line
by line.  Standard input is first copied to a temporary file (DuckDB reads files).

What users rely on is kept: CSV is RFC 4180 with ``,`` and ``"`` (no dialect
sniffing: DuckDB's sniffer would skip or merge records it finds odd), strict
UTF-8 with an optional byte-order mark, ``\\r\\n`` or ``\\n`` (one kind per file:
a file that mixes them is refused with a hint), blank lines
skipped, values verbatim (an empty field is the empty string), and a record
with another number of fields than the header is an error.  When DuckDB, the
universe or a value refuses something, the file is read once more by the strict
reader of :mod:`finitedp.io.files` to name the line exactly as before (only on
that error path); Parquet errors name the row.
"""

from __future__ import annotations

import codecs
import csv
import functools
import io
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import duckdb

from ..errors import ParameterError
from .duckconnect import DUCKDB_MEMORY_LIMIT, connect, literal
from .files import UTF8_BOM, csv_fields, decode_utf8, header_positions, read_bytes
from .inputs import InputFile, opened_input

__all__ = [
    "BATCH_ROWS",
    "CSV_NULL",
    "DUCKDB_MEMORY_LIMIT",
    "CodedColumn",
    "InputFile",
    "check_csv_text",
    "coded_column",
    "connect",
    "count_labels",
    "csv_relation",
    "labels_in_order",
    "literal",
    "null_row",
    "opened_input",
    "query",
    "relation",
    "row_count",
    "text_labels",
]

#: Rows fetched from DuckDB at a time when a column is streamed in order.
BATCH_ROWS = 1 << 16


# -- a file as SQL --------------------------------------------------------


def _csv_header(source: InputFile) -> list[str]:
    """The header record, read by :mod:`csv` (the data rows are DuckDB's)."""
    with open(source.path, "rb") as raw:
        head = raw.read(1 << 20)
    if head.startswith(UTF8_BOM):
        head = head[len(UTF8_BOM) :]
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as error:
        if error.start < len(head) - 4:  # not merely a character cut at the 1 MiB boundary
            raise _diagnosis(source, ()) from None
        text = head[: error.start].decode("utf-8")
    # newline="" as csv wants: a field may hold line breaks (str.splitlines would cut more).
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader, None)
    except csv.Error:
        raise _diagnosis(source, ()) from None
    if header is None:
        raise ParameterError(f"{source.name}: empty file; a CSV file needs a header row")
    return header


def relation(source: InputFile, columns: tuple[tuple[str | None, str], ...]) -> list[str]:
    """``[FROM clause, expression of each wanted column]``, the columns checked; a
    column with a declared replacement (``source.missing``) reads it for a missing value."""
    fill = dict(source.missing)
    if source.kind == "parquet":
        where = f"read_parquet({literal(source.path)})"
        try:
            described = connect().execute(f"DESCRIBE SELECT * FROM {where}").fetchall()
        except duckdb.Error as error:
            raise ParameterError(
                f"{source.name}: cannot read it as Parquet: {_first_line(error)}"
            ) from None
        header = [row[0] for row in described]
        positions = header_positions(header, columns, source.name, "Parquet")
        # A BLOB is read as UTF-8 text, strictly (decode fails on other bytes), as CSV and
        # text input are: CAST would turn bytes FF FE into the text '\xFF\xFE'.
        texts = [
            ("decode" if described[i][1] == "BLOB" else "CAST")
            + f'("{header[i].replace(chr(34), chr(34) * 2)}"'
            + ("" if described[i][1] == "BLOB" else " AS VARCHAR")
            + ")"
            for i in positions
        ]
        # A declared replacement stands for a NULL (io/missing.py).
        fills = [fill.get(str(header[i])) for i in positions]
        return [
            where,
            *(
                t if v is None else f"coalesce({t}, {literal(v)})"
                for t, v in zip(texts, fills, strict=True)
            ),
        ]
    header = _csv_header(source)
    positions = header_positions(header, columns, source.name, "CSV")
    where = csv_relation(source, len(header))
    if len(header) == 1:  # a blank line reads as NULL: csv skips it, so does finitedp
        where, texts = f"(SELECT * FROM {where} WHERE c0 IS NOT NULL)", ["c0"]
    else:  # with several columns DuckDB skips blank lines; NULL is an empty unquoted field
        texts = [f"coalesce(c{i}, '')" for i in positions]
    fills = [fill.get(header[i]) for i in positions]
    return [
        where,
        *(
            t if v is None else f"CASE WHEN {t} = '' THEN {literal(v)} ELSE {t} END"
            for t, v in zip(texts, fills, strict=True)
        ),
    ]


#: The CSV text read as NULL where an empty field must not be (a row padded with NULL;
#: Spark's ``nullValue``): no real field is expected to be this string.
CSV_NULL = "\u0000finitedp-null\u0000"


def csv_relation(source: InputFile, fields: int) -> str:
    """The rows of a CSV file with ``fields`` header fields, as columns ``c0, c1, ...``.

    RFC 4180 with ``,`` and ``"`` (a doubled quote inside quotes is one quote; quoted
    line breaks), read as plain text (never decompressed by its name).  An empty
    unquoted field is NULL (the caller makes it the empty string), a quoted one ``''``.

    Two of DuckDB's readings are not RFC 4180's, and one scan of the file (C's count
    and find) decides when to guard against them:

    * a row ending in a delimiter (``A,1,`` under a header of two fields) has a
      trailing empty field, which DuckDB drops: where a line ends in ``,`` one more
      column is declared, padded with NULL, and a row that fills it is refused (and so
      is a short row, which padding would otherwise let through);
    * its one-thread reader (which padding needs when quoted fields hold line breaks)
      drops a last record whose quote is never closed: an odd number of ``"`` in the
      file is a malformed file, refused by the strict reader naming its line.
    """
    quotes, trailing, _ = _csv_scan(source.path)
    if quotes % 2:
        raise _diagnosis(source, (), cause=ValueError(_ODD_QUOTES))
    options = (
        "header = false, skip = 1, delim = ',', quote = '\"', escape = '\"', "
        "auto_detect = false, strict_mode = true, compression = 'none', "
        "allow_quoted_nulls = false"
    )
    if not trailing:
        declared = ", ".join(f"'c{i}': 'VARCHAR'" for i in range(fields))
        return f"read_csv({literal(source.path)}, {options}, columns = {{{declared}}})"
    declared = ", ".join(f"'c{i}': 'VARCHAR'" for i in range(fields + 1))
    padded = (
        f"read_csv({literal(source.path)}, {options}, null_padding = true, "
        f"nullstr = {literal(CSV_NULL)}, parallel = {'false' if quotes else 'true'}, "
        f"columns = {{{declared}}})"
    )
    # An empty field is '' here (NULL is the padding), and blank lines are skipped.
    kept = ", ".join(f"c{i}" for i in range(fields))
    # Padding fills from the right: a row of the header's length has its last field (''
    # at least) and no extra one; a longer row fills the extra column, a shorter one
    # leaves its last field NULL (refused too, as the plain reader refuses it).
    return (
        f"(SELECT {kept} FROM {padded} WHERE CASE WHEN c{fields} IS NULL AND c{fields - 1} "
        f"IS NOT NULL THEN true ELSE error('a row with more or fewer fields than the header') "
        f"END)"
    )


def _csv_scan(path: str, utf8: bool = False) -> tuple[int, bool, bool]:
    """``(number of '"', whether a line ends in ',', whether it is UTF-8)`` of a file,
    in 4 MiB chunks (the UTF-8 check only when asked; ``True`` otherwise).  Kept per
    file version (size and modification time): a release builds its SQL several times."""
    status = os.stat(path)
    return _scan_once(path, status.st_size, status.st_mtime_ns, utf8)


@functools.lru_cache(maxsize=8)
def _scan_once(path: str, size: int, mtime: int, utf8: bool) -> tuple[int, bool, bool]:
    quotes, trailing, last, valid = 0, False, b"", True
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 22):
            quotes += chunk.count(b'"')
            window = last + chunk
            trailing = trailing or b",\n" in window or b",\r\n" in window
            last = chunk[-2:]
            if utf8 and valid:
                try:
                    decoder.decode(chunk)
                except UnicodeDecodeError:
                    valid = False
    return quotes, trailing or last.endswith(b","), valid


def check_csv_text(source: InputFile) -> None:
    """Refuse a CSV file that is not UTF-8 or whose quotes do not pair, naming the line.

    What the DuckDB path refuses before or while reading, for an engine whose reader
    would replace bad bytes or read an unclosed quote to the end (Spark).
    """
    quotes, _, valid = _csv_scan(source.path, utf8=True)
    if quotes % 2 or not valid:
        raise _diagnosis(source, (), cause=ValueError(_ODD_QUOTES if valid else "not UTF-8"))


_ODD_QUOTES = "an odd number of '\"' in the file: a quoted field is never closed"


def _first_line(error: BaseException) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


def _diagnosis(
    source: InputFile,
    columns: tuple[tuple[str | None, str], ...],
    check: Callable[[str, list[str]], None] | None = None,
    cause: BaseException | None = None,
) -> ParameterError:
    """The error the strict reader finds, naming its line (the error path only).

    Reads the file as :mod:`finitedp.io.files` does (strict UTF-8, strict CSV) and
    applies ``check(where, values)`` to each record; returns the first error.  If
    none is found, the refusal of ``cause`` is reported as it is.
    """
    if source.kind == "csv":
        try:
            text = decode_utf8(read_bytes(source.path), source.name)
            if columns:
                # A declared replacement stands for an empty field here as in SQL.
                fills = [dict(source.missing).get(str(c)) for c, _ in columns]
                for line, values in csv_fields(text, *columns, name=source.name):
                    if check is not None:
                        values = [
                            v if f is None or v != "" else f
                            for v, f in zip(values, fills, strict=True)
                        ]
                        check(f"{source.name}, line {line}", values)
            else:
                for _ in csv.reader(io.StringIO(text, newline=""), strict=True):
                    pass
        except ParameterError as error:
            return error
        except csv.Error as error:
            return ParameterError(f"{source.name}: malformed CSV: {error}")
    reason = "no reason given" if cause is None else _first_line(cause)
    hint = ""
    if source.kind == "csv":
        raw = read_bytes(source.path)
        if b"\r\n" in raw and raw.count(b"\n") != raw.count(b"\r\n"):
            hint = (
                "; it mixes \\r\\n and \\n line ends, and DuckDB reads one kind per file "
                "(convert it, e.g. with dos2unix)"
            )
    kind = source.kind.upper() if source.kind == "csv" else source.kind.capitalize()
    return ParameterError(f"{source.name}: cannot read it as {kind}: {reason}{hint}")


def query(source: InputFile, sql: str, columns: tuple[tuple[str | None, str], ...]) -> Any:
    """``sql``'s cursor; a DuckDB error becomes the strict reader's, naming the line."""
    try:
        return connect().execute(sql)
    except duckdb.Error as error:
        raise _diagnosis(source, columns, cause=error) from None


# -- what the release command asks -------------------------------------------------------


def count_labels(source: InputFile, column: str | None) -> list[tuple[str, int]]:
    """``[(value, count), ...]`` of one column, counted inside DuckDB (CSV, Parquet).

    Memory follows the number of distinct values.

    Raises:
        ParameterError: an unreadable file, a bad header or record (the message
            names the line), or an empty value in a Parquet file (its row).
    """
    columns = ((column, "--column"),)
    where, expression = relation(source, columns)
    sql = f"SELECT v, count(*) FROM (SELECT {expression} AS v FROM {where}) GROUP BY v"
    rows: list[tuple[str | None, int]] = query(source, sql, columns).fetchall()
    if any(label is None for label, _ in rows):
        raise null_row(source, column)
    return [(str(label), int(count)) for label, count in rows]


def row_count(source: InputFile, column: str | None) -> int:
    """The number of records of a CSV or Parquet file (after checking the column)."""
    columns = ((column, "--column"),)
    where, _ = relation(source, columns)
    return int(query(source, f"SELECT count(*) FROM {where}", columns).fetchone()[0])


def labels_in_order(
    source: InputFile, *wanted: tuple[str | None, str]
) -> Iterator[tuple[str, list[str]]]:
    """``(where, [value of each wanted column])`` for every record, in file order.

    ``where`` is ``"row r"`` (from 1): a caller that refuses a value re-reads the
    file with :func:`name_the_line` to name its line.

    Raises:
        ParameterError: as :func:`count_labels`.
    """
    where, *expressions = relation(source, wanted)
    cursor = query(source, f"SELECT {', '.join(expressions)} FROM {where}", wanted)
    row = 0
    while True:
        try:
            batch = cursor.fetchmany(BATCH_ROWS)
        except duckdb.Error as error:
            raise _diagnosis(source, wanted, cause=error) from None
        if not batch:
            return
        for record in batch:
            row += 1
            if None in record:  # the column that holds it, not the first one asked
                raise null_row(source, wanted[list(record).index(None)][0], row)
            yield f"{source.name}, row {row}", list(record)


@dataclass(frozen=True, eq=False)
class CodedColumn:
    """One column numbered inside DuckDB: its distinct values, and each row's code.

    Attributes:
        labels: the distinct values; code ``i`` is ``labels[i]``.
        n: the number of rows.
        codes: called once: arrays of codes (unsigned ints), in file order, ``n`` in all.
    """

    labels: list[str]
    n: int
    codes: Callable[[], Iterator[Any]]


def coded_column(source: InputFile, column: str | None) -> CodedColumn:
    """The column as codes in file order, numbered by DuckDB (CSV, Parquet).

    The distinct values become an ``ENUM`` type and the file is read once more into
    a temporary table of their codes (insertion order is preserved, so ``rowid`` is
    the row's position); the codes are then fetched :data:`BATCH_ROWS` x 4 at a
    time.  No Python object is made per row.

    Raises:
        ParameterError: as :func:`count_labels`; an empty value names its row.
    """
    columns = ((column, "--column"),)
    where, expression = relation(source, columns)
    con = connect(fresh=True)  # it creates a type: a database of its own
    try:
        con.execute(
            f"CREATE TYPE finitedp_labels AS ENUM (SELECT DISTINCT v FROM (SELECT {expression} "
            f"AS v FROM {where}) WHERE v IS NOT NULL ORDER BY v)"
        )
        con.execute(
            f"CREATE TEMP TABLE finitedp_codes AS SELECT enum_code(CAST({expression} AS "
            f"finitedp_labels)) AS c FROM {where}"
        )
        every = "SELECT unnest(enum_range(NULL::finitedp_labels))"
        labels = [str(v) for (v,) in con.execute(every).fetchall()]
        n, null = con.execute(
            "SELECT count(*), min(rowid) FILTER (WHERE c IS NULL) FROM finitedp_codes"
        ).fetchall()[0]
    except duckdb.Error as error:
        con.close()
        raise _diagnosis(source, columns, cause=error) from None
    if null is not None:
        con.close()
        raise null_row(source, column, int(null) + 1)
    step = BATCH_ROWS * 4

    def codes() -> Iterator[Any]:
        try:
            for start in range(0, n, step):
                got = con.execute(
                    f"SELECT c FROM finitedp_codes WHERE rowid >= {start} AND rowid < "
                    f"{start + step} ORDER BY rowid"
                ).fetchnumpy()["c"]
                yield got.data if hasattr(got, "mask") else got
        finally:
            con.close()

    return CodedColumn(labels, int(n), codes)


def name_the_line(
    source: InputFile,
    wanted: tuple[tuple[str | None, str], ...],
    check: Callable[[str, list[str]], None],
    error: ParameterError,
) -> ParameterError:
    """The first error ``check`` raises when the CSV file is read again line by line.

    For Parquet (rows, not lines) and when the file cannot be re-read, ``error``.
    """
    if source.kind != "csv":
        return error
    found = _diagnosis(source, wanted, check)
    return error if "cannot read it as" in str(found) else found


def text_labels(source: InputFile) -> Iterator[tuple[str, list[str]]]:
    """``(where, [value])`` for each line of a one-value-per-line file, streamed.

    Lines end at ``\n`` (a ``\r`` before it is dropped; other characters that
    ``str.splitlines`` would split at, such as ``\x0b``, are part of the value), a
    final newline does not start an empty line, other empty lines are the empty
    string, a leading byte-order mark is dropped, and the text is strict UTF-8.

    Raises:
        ParameterError: invalid UTF-8 (the message names the line).
    """
    with open(source.path, "rb") as lines:
        for number, raw in enumerate(lines, start=1):
            if number == 1 and raw.startswith(UTF8_BOM):
                raw = raw[len(UTF8_BOM) :]
            raw = raw.removesuffix(b"\n").removesuffix(b"\r")
            try:
                value = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                raise ParameterError(
                    f"{source.name}, line {number}: not valid UTF-8 (byte "
                    f"{raw[error.start]:#04x}); finitedp reads UTF-8 text only"
                ) from None
            yield f"{source.name}, line {number}", [value]


def null_row(source: InputFile, column: str | None, row: int | None = None) -> ParameterError:
    """The refusal of an empty (NULL) value of ``column``, at ``row`` if known."""
    at = "" if row is None else f", row {row}"
    return ParameterError(
        f"{source.name}{at}: the column {column!r} has a missing value (NULL); give "
        "--nulls VALUE to read a public value in its place (--nulls key counts missing "
        "keys as the key (null); --nulls drop leaves them out of sums and quantiles); "
        'README, "Missing values"'
    )
