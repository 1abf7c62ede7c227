"""The ``finitedp`` command line: ``release``, ``query`` and ``audit``.

* ``finitedp release`` reads one column of categorical values (CSV or one value
  per line), numbers them into a declared universe (:mod:`finitedp.io.universe`),
  runs a user-level histogram mechanism and writes the release with its exact
  privacy and accuracy statements as JSON.
* ``finitedp query`` reads counts back from such a release, without the data.
* ``finitedp audit`` explores a counting-query sampler (``geo``, ``fast``) or a
  histogram mechanism (``bounded-geometric``, ``stability``, ``pure-sparse``,
  ``compact``) exactly on tiny parameters and decides its theorem's claims, or
  compares a foreign sampler's draws with an exact reference (``compare``).

Errors in the user's input (a float, a parameter out of range, a value outside
the universe, an unreadable file) are reported on stderr in one line and exit
with status 2, and nothing is written; a failed audit claim (or a foreign
sampler found inconsistent with its reference) exits with 1.

Mechanisms are found through :data:`MECHANISMS`, imported only when used, so a
mechanism whose module is missing is reported as unavailable instead of
breaking the whole command.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import importlib
import io
import json
import os
import re
import sys
import tempfile
import textwrap
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol, cast

from . import __version__
from .audit import (
    DEFAULT_MAX_PATHS,
    HISTOGRAM_TARGETS,
    KNOWN_SIZES,
    audit_counting_sampler,
    audit_histogram_mechanism,
    compare,
    load_callable,
)
from .counting.base import CountingSampler
from .counting.fastsample import FastSample
from .counting.geometric import GeometricMechanism
from .counting.geosample import GeoSample
from .errors import FiniteDPError, ParameterError
from .guarantees import Accuracy, Privacy
from .histograms.release import PartialHistogram
from .io.universe import Universe, Utf8Universe, parse_universe
from .oracle import RandomSource, SeededSource, SystemRandomSource
from .params import exact_fraction, short_int
from .plot import add_plot_parser

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

__all__ = ["MECHANISMS", "RELEASE_READERS", "MechanismEntry", "main"]

#: Above this n the exact tables get long; the audit still runs.
_LARGE_AUDIT = 64

#: The progress display appears only once a run has lasted this long (seconds;
#: wall-clock time for the display only, never used in a computation).
_PROGRESS_DELAY_SECONDS = 1.0

#: The default mechanism adds noise to every bin up to this many bins.
DENSE_DEFAULT_LIMIT = 10_000

#: Larger integers are written as decimal strings in the JSON envelope: many
#: JSON parsers read numbers as doubles, exact only up to 2^53.
_JSON_SAFE_INT = 2**53

_UTF8_BOM = b"\xef\xbb\xbf"


# -- mechanisms -----------------------------------------------------------------------


class _Mechanism(Protocol):
    """What ``finitedp release`` needs of a user-level mechanism."""

    @property
    def privacy(self) -> Privacy: ...

    def accuracy(self, beta: object) -> Accuracy: ...

    def release(self, data: Iterable[object], rng: RandomSource | None = None) -> Any: ...


@dataclass(frozen=True)
class ReleaseParameters:
    """The user's parameters, as typed (the mechanisms parse and check them)."""

    epsilon: str
    delta: str | None
    beta: str
    counter: str


@dataclass(frozen=True)
class MechanismEntry:
    """One ``--mechanism`` choice: where its class lives and how to call it.

    Attributes:
        module: the module holding the class, imported on first use.
        cls: the class name.
        summary: one line for ``--help``.
        uses_delta: whether ``--delta`` applies (and is then required).
        build: calls the class with ``(n, |X|, parameters)``.
    """

    module: str
    cls: str
    summary: str
    uses_delta: bool
    build: Callable[[Any, int, int, ReleaseParameters], _Mechanism]

    def load(self, name: str) -> Any:
        """Import the mechanism's class.

        Args:
            name: the ``--mechanism`` name, for the error message.

        Returns:
            The class.

        Raises:
            ParameterError: the module or class does not exist in this finitedp.
        """
        try:
            found = getattr(importlib.import_module(self.module), self.cls)
        except (ImportError, AttributeError) as error:
            raise ParameterError(
                f"mechanism: {name} is not available in this finitedp "
                f"({self.module}.{self.cls} cannot be loaded: {error}); "
                f"choose another with --mechanism"
            ) from None
        return found


#: ``--mechanism`` name -> entry.  Adding a mechanism is one entry here.
MECHANISMS: dict[str, MechanismEntry] = {
    "bounded-geometric": MechanismEntry(
        "finitedp.histograms.mechanisms",
        "BoundedGeometricHistogram",
        "every bin, noisy; (eps, 0)-DP; BV Thm 5.3; |X| <= 10^7",
        False,
        lambda cls, n, m, p: cls(n, m, p.epsilon, p.beta, counter=p.counter),
    ),
    "stability": MechanismEntry(
        "finitedp.histograms.mechanisms",
        "StabilityHistogram",
        "bins above a threshold; (eps, delta)-DP; BV Thm 5.6",
        True,
        lambda cls, n, m, p: cls(n, m, p.epsilon, p.delta, p.beta, counter=p.counter),
    ),
    "pure-sparse": MechanismEntry(
        "finitedp.histograms.sparse",
        "PureSparseHistogram",
        "at most n bins; (eps, 0)-DP; BV Thm 6.11; |X| >= 2n + 1",
        False,
        lambda cls, n, m, p: cls(n, m, p.epsilon, p.beta, counter=p.counter),
    ),
    "compact": MechanismEntry(
        "finitedp.compact.histogram",
        "CompactHistogram",
        "a polynomial, read with query; (eps, 0)-DP; BV Thm 8.6",
        False,
        lambda cls, n, m, p: cls(n, m, p.epsilon, p.beta, counter=p.counter),
    ),
}

#: A release's JSON ``"type"`` -> (module, class with ``from_json``), for ``finitedp query``.
RELEASE_READERS: dict[str, tuple[str, str]] = {
    "partial_histogram": ("finitedp.histograms.release", "PartialHistogram"),
    "compact_histogram": ("finitedp.compact.histogram", "CompactRelease"),
}


def default_mechanism(n: int, universe_size: int) -> str:
    """The mechanism ``finitedp release`` uses without ``--mechanism``.

    Small universes (``|X| <= 10^4``, or ``|X| <= 2n`` where no sparse mechanism
    applies) get ``bounded-geometric``: every bin is listed with a noisy count
    whose per-query error holds for every count.  Larger ones get ``compact``:
    per-query error of the same order for every value, with no threshold,
    whereas ``pure-sparse`` only reports counts above a threshold that grows
    with ``ln |X|``.  Both are pure ``(eps, 0)``-DP, so the default never
    changes the kind of guarantee.

    Args:
        n: the number of rows.
        universe_size: ``|X|``.

    Returns:
        A key of :data:`MECHANISMS`.
    """
    if universe_size <= max(DENSE_DEFAULT_LIMIT, 2 * n):
        return "bounded-geometric"
    return "compact"


# Internal parameter names that differ from the flag the user typed.
_FLAG_OF = {"beta0": "--beta", "universe_size": "--universe"}
_NAMED_MESSAGE = re.compile(r"(\w+): ")


def _name_the_flag(error: FiniteDPError) -> FiniteDPError:
    """Prefix a mechanism's error with the flag it came from, when the names differ."""
    message = str(error)
    match = _NAMED_MESSAGE.match(message)
    if match and match.group(1) in _FLAG_OF:
        return type(error)(f"{_FLAG_OF[match.group(1)]}: {message}")
    return error


# -- reading the column -----------------------------------------------------------------


def _read_bytes(path: str) -> bytes:
    """All bytes of ``path`` (``-``: standard input).

    Raises:
        ParameterError: the file cannot be read (the message names it and says why).
    """
    if path == "-":
        return sys.stdin.buffer.read()
    try:
        return Path(path).read_bytes()
    except OSError as error:
        raise ParameterError(f"{path}: cannot read it: {error.strerror or error}") from None


def _decode_utf8(raw: bytes, name: str) -> str:
    """The text of ``raw`` read as strict UTF-8 (a leading byte-order mark is dropped).

    Raises:
        ParameterError: invalid UTF-8; the message names the line.
    """
    # Spreadsheet programs start UTF-8 CSV files with a BOM; it is not part of the header.
    if raw.startswith(_UTF8_BOM):
        raw = raw[len(_UTF8_BOM) :]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        raise ParameterError(
            f"{name}, line {line}: not valid UTF-8 (byte {raw[error.start]:#04x}); "
            f"finitedp reads UTF-8 text only"
        ) from None


def _text_rows(text: str) -> Iterator[tuple[int, str]]:
    """``(line number, value)`` for each line: one value per line, taken verbatim.

    Lines end at ``\\n`` (a ``\\r`` before it is dropped); other characters that
    ``str.splitlines`` would also split at, such as ``\\x0b`` or ``\\u2028``, are
    part of the value.  A final newline ends the last line, it does not start an
    empty one; any other empty line is the empty string.
    """
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    for number, line in enumerate(lines, start=1):
        yield number, line.removesuffix("\r")


def _csv_rows(text: str, column: str | None, name: str) -> Iterator[tuple[int, str]]:
    """``(line number, value)`` for the named column of each CSV record after the header.

    Blank lines are skipped (as :class:`csv.DictReader` does); values are taken verbatim.

    Raises:
        ParameterError: no header, no such column (the message lists the header),
            the column named twice, a record too short, or malformed CSV.
    """
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader, None)
        if header is None:
            raise ParameterError(f"{name}: empty file; a CSV file needs a header row")
        shown = ", ".join(repr(h) for h in header[:20]) + (", ..." if len(header) > 20 else "")
        if column is None:
            raise ParameterError(
                f"--column: {name} is read as CSV; name the column to release with "
                f"--column NAME (its header has {shown})"
            )
        positions = [i for i, h in enumerate(header) if h == column]
        if not positions:
            raise ParameterError(
                f"--column: {name} has no column {column!r} (its header has {shown})"
            )
        if len(positions) > 1:
            raise ParameterError(
                f"--column: {name} has {len(positions)} columns named {column!r}, so the "
                f"choice is ambiguous"
            )
        position = positions[0]
        for record in reader:
            if not record:
                continue
            if len(record) <= position:
                raise ParameterError(
                    f"{name}, line {reader.line_num}: the record has {len(record)} fields; "
                    f"column {column!r} is field {position + 1}"
                )
            yield reader.line_num, record[position]
    except csv.Error as error:
        raise ParameterError(f"{name}, line {reader.line_num}: malformed CSV: {error}") from None


def _input_format(path: str, column: str | None, chosen: str) -> str:
    """``"csv"`` or ``"text"``: ``--format``, else CSV for ``--column`` or a ``.csv`` name.

    Raises:
        ParameterError: ``--column`` with ``--format text``.
    """
    if chosen == "text" and column is not None:
        raise ParameterError("--column: applies to CSV input only, not to --format text")
    if chosen != "auto":
        return chosen
    return "csv" if column is not None or path.lower().endswith(".csv") else "text"


def _encode_rows(
    rows: Iterable[tuple[int, str]], universe: Universe, name: str, progress: _Progress
) -> list[int]:
    """Number every value into the universe.

    Raises:
        ParameterError: a value outside the universe; the message names its line.
    """
    data: list[int] = []
    for line, label in rows:
        try:
            data.append(universe.encode(label))
        except ParameterError as error:
            raise ParameterError(f"{name}, line {line}: {error}") from None
        if len(data) % 4096 == 0:
            progress.advance(4096)
    return data


# -- progress ------------------------------------------------------------------------


class _Progress:
    """A transient progress display on stderr, shown only once the run has lasted a while.

    A timer thread starts the display after ``delay`` seconds, so quick runs
    print nothing.  The display never touches stdout (which may carry the
    JSON), and is absent with ``--quiet``, when stderr is not a terminal (rich
    draws nothing there), or when ``rich`` is not installed.
    """

    def __init__(self, enabled: bool, delay: float) -> None:
        """Prepare the display and start the timer that will show it.

        Args:
            enabled: ``False`` for ``--quiet``.
            delay: seconds before the display appears.
        """
        self._lock = threading.Lock()
        self._closed = False
        self._shown = False
        self._display: Progress | None = None
        self._task: TaskID | None = None
        self._timer: threading.Timer | None = None
        if not enabled:
            return
        try:
            from rich.console import Console
            from rich.progress import BarColumn, SpinnerColumn, TextColumn, TimeElapsedColumn
            from rich.progress import Progress as RichProgress
        except ImportError:  # a missing display must not stop a release
            return
        self._display = RichProgress(
            SpinnerColumn(),
            TextColumn("{task.description}", markup=False),  # file names may contain [brackets]
            BarColumn(),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=True,
            redirect_stdout=False,
            redirect_stderr=False,
        )
        self._task = self._display.add_task("starting", total=None)
        self._timer = threading.Timer(delay, self._show)
        self._timer.daemon = True
        self._timer.start()

    def _show(self) -> None:
        with self._lock:
            if self._display is not None and not self._closed:
                self._display.start()
                self._shown = True

    def phase(self, description: str, total: int | None = None) -> None:
        """Start a new step: a bar if ``total`` is known, else a pulsing bar."""
        if self._display is None or self._task is None:
            return
        # A fresh task resets both the bar and its total (update(total=None) keeps the old one).
        self._display.remove_task(self._task)
        self._task = self._display.add_task(description, total=total)

    def advance(self, amount: int) -> None:
        """Move the current bar on by ``amount`` steps."""
        if self._display is not None and self._task is not None:
            self._display.advance(self._task, amount)

    def close(self) -> None:
        """Stop the timer and remove the display (idempotent)."""
        with self._lock:
            self._closed = True
            if self._timer is not None:
                self._timer.cancel()
            if self._display is not None and self._shown:
                self._display.stop()
                self._shown = False

    def __enter__(self) -> _Progress:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


# -- writing -------------------------------------------------------------------------


def _check_out(out: str | None, inputs: str) -> None:
    """Refuse an ``--out`` that cannot be written, before any work is done.

    Raises:
        ParameterError: ``--out`` is a directory, its directory does not exist,
            or it is the input file (the release would replace the data).
    """
    if out is None:
        return
    target = Path(out)
    if target.is_dir():
        raise ParameterError(f"--out: {out} is a directory; give a file name")
    if not target.absolute().parent.is_dir():
        raise ParameterError(f"--out: the directory of {out} does not exist")
    if inputs != "-" and target.exists():
        with contextlib.suppress(OSError):
            if os.path.samefile(out, inputs):
                raise ParameterError(
                    f"--out: {out} is the input file; refusing to replace the data"
                )


@contextlib.contextmanager
def _atomic_path(path: str) -> Iterator[str]:
    """A temporary file in the directory of ``path`` that replaces ``path`` on success.

    The caller writes the temporary file (named by the yielded path); when the
    block ends normally the file is flushed to disk and renamed to ``path``. The
    file appears complete or not at all: ``os.replace`` is atomic within a file
    system, and the temporary file is removed on any error.  The result keeps the
    mode of the file it replaces, else gets the usual ``0o666 & ~umask``.

    Raises:
        ParameterError: the file cannot be written (the message names it and says
            why), including an ``OSError`` raised inside the block.
    """
    target = Path(path)
    try:
        mode = target.stat().st_mode & 0o777
    except OSError:
        umask = os.umask(0)  # reading the umask means setting it; restore at once
        os.umask(umask)
        mode = 0o666 & ~umask
    try:
        handle, temporary = tempfile.mkstemp(
            dir=target.absolute().parent, prefix=f".{target.name}.", suffix=".tmp"
        )
    except OSError as error:
        raise ParameterError(f"--out: cannot write {path}: {error.strerror or error}") from None
    try:
        os.close(handle)
        yield temporary
        with open(temporary, "rb+") as stream:
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(error, OSError):
            raise ParameterError(f"--out: cannot write {path}: {error.strerror or error}") from None
        raise


def _write_atomically(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same directory.

    See :func:`_atomic_path`: the file appears complete or not at all.

    Raises:
        ParameterError: the file cannot be written (the message says why).
    """
    with _atomic_path(path) as temporary, open(temporary, "wb") as stream:
        stream.write(data)


def _json_int(value: int) -> int | str:
    """``value`` as a JSON number if doubles hold it exactly, else as a decimal string."""
    return value if abs(value) <= _JSON_SAFE_INT else str(value)


def _bin_entry(universe: Universe, x: int, count: int) -> dict[str, Any]:
    """One listed bin: its label, or (for bytes that are not UTF-8) ``null`` and the bytes."""
    try:
        return {"value": universe.decode(x), "count": count}
    except ParameterError:
        # A sparse release may list a random empty bin whose bytes are no UTF-8 string.
        raw = universe.decode_bytes(x) if isinstance(universe, Utf8Universe) else b""
        return {"value": None, "bytes": raw.hex(), "count": count}


# -- finitedp release ----------------------------------------------------------------


def _check_release_options(args: argparse.Namespace) -> MechanismEntry | None:
    """Check everything that does not depend on the data, before the input is read.

    Returns:
        The entry of ``--mechanism`` (its class loaded), or ``None`` for the default.

    Raises:
        ParameterError: an unknown or unavailable mechanism, ``--delta`` missing or
            not applicable, or a parameter that is not an exact number.
    """
    entry = None
    if args.mechanism is not None:
        if args.mechanism not in MECHANISMS:
            raise ParameterError(
                f"--mechanism: got {args.mechanism!r}; choose one of {', '.join(MECHANISMS)}"
            )
        entry = MECHANISMS[args.mechanism]
        entry.load(args.mechanism)
        if entry.uses_delta and args.delta is None:
            raise ParameterError(
                f"--delta: {args.mechanism} is (eps, delta)-DP and needs --delta 1/k, "
                f"e.g. --delta 1/1000000"
            )
    if args.delta is not None and (entry is None or not entry.uses_delta):
        raise ParameterError(
            f"--delta: got {args.delta}; only the stability mechanism takes a delta, the "
            f"{args.mechanism or 'default'} mechanism is (eps, 0)-DP"
        )
    # The form only (the mechanism checks the range once n is known), so that a typo
    # fails before a large file is read.
    for flag, value in (("epsilon", args.epsilon), ("delta", args.delta), ("beta", args.beta)):
        if value is not None:
            exact_fraction(value, flag)
    return entry


def _show_size(size: int) -> str:
    """``|X|`` for the summary line: in full below 2^256, else its bit length."""
    digits = str(size) if size.bit_length() < 256 else ""
    return digits or f"a {size.bit_length()}-bit number (in full in the JSON)"


def _release(args: argparse.Namespace) -> int:
    """``finitedp release``: read, number, release, and write the JSON document.

    Everything that can fail is checked before anything is written: the output
    goes to stdout or ``--out`` only once the whole document exists.

    Args:
        args: the parsed command line.

    Returns:
        0 (errors are raised).

    Raises:
        FiniteDPError: any input error; the message names the flag, file or line.
    """
    universe = parse_universe(args.universe)
    entry = _check_release_options(args)
    rng: RandomSource = SystemRandomSource() if args.seed is None else SeededSource(args.seed)
    _check_out(args.out, args.input)
    kind = _input_format(args.input, args.column, args.format)
    name = "<stdin>" if args.input == "-" else args.input
    with _Progress(not args.quiet, _PROGRESS_DELAY_SECONDS) as progress:
        progress.phase(f"reading {name}")
        text = _decode_utf8(_read_bytes(args.input), name)
        rows = _csv_rows(text, args.column, name) if kind == "csv" else _text_rows(text)
        progress.phase(f"numbering values into {universe.spec}", total=text.count("\n") + 1)
        data = _encode_rows(rows, universe, name, progress)
        if not data:
            raise ParameterError(f"{name}: no rows; a release needs at least one (n >= 1)")
        n, size = len(data), universe.size
        chosen = args.mechanism or default_mechanism(n, size)
        entry = entry or MECHANISMS[chosen]
        parameters = ReleaseParameters(args.epsilon, args.delta, args.beta, args.counter)
        progress.phase(f"building {chosen} for n = {n}")
        try:
            mechanism = entry.build(entry.load(chosen), n, size, parameters)
        except FiniteDPError as error:
            raise _name_the_flag(error) from None
        progress.phase(f"releasing with {chosen}")
        release = mechanism.release(data, rng=rng)
        privacy, accuracy = mechanism.privacy, mechanism.accuracy(args.beta)
        document: dict[str, Any] = {
            "finitedp": __version__,
            "mechanism": chosen,
            "parameters": {
                "n": n,
                "epsilon": str(privacy.epsilon),
                "delta": None if args.delta is None else str(privacy.delta),
                "beta": str(accuracy.beta),
                "counter": args.counter,
            },
            "universe": universe.spec,
            "universe_size": _json_int(size),
            "privacy": privacy.to_json_dict(),
            "accuracy": accuracy.to_json_dict(),
            "release": release.to_json_dict(),
        }
        if isinstance(release, PartialHistogram):
            document["bins"] = [_bin_entry(universe, x, c) for x, c in release.bins]
        document["seeded"] = args.seed is not None
        progress.phase("writing the release")
        payload = (json.dumps(document, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
        if args.out is not None:
            _write_atomically(args.out, payload)
    if args.seed is not None:
        print(
            "finitedp release: WARNING: --seed makes the noise deterministic (SeededSource, "
            "SPEC.md); this output is NOT private against anyone who knows or can guess the "
            "seed. Use it for tests and reproducible examples only.",
            file=sys.stderr,
        )
    if not args.quiet:
        where = f"written to {args.out}" if args.out is not None else "on stdout"
        print(
            f"finitedp release: n = {n} rows; universe {universe.spec} with |X| = "
            f"{_show_size(size)} values; {chosen}, ({privacy.epsilon}, {privacy.delta})-DP; "
            f"release {where}",
            file=sys.stderr,
        )
    if args.out is None:
        _write_stdout(payload)
    return 0


def _write_stdout(payload: bytes) -> None:
    """Write UTF-8 bytes to stdout (through its text layer if it has no binary one)."""
    sys.stdout.flush()
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        sys.stdout.write(payload.decode("utf-8"))
    else:
        buffer.write(payload)
        buffer.flush()


# -- finitedp query ------------------------------------------------------------------


class _Counts(Protocol):
    """A parsed release: a universe size and a count for every bin."""

    @property
    def universe_size(self) -> int: ...

    def __getitem__(self, x: int) -> int: ...


def _load_release(document: Any, name: str) -> tuple[_Counts, Universe]:
    """The release inside a ``finitedp release`` document, or a bare release object.

    A bare release (``PartialHistogram.to_json`` / ``CompactRelease.to_json``) has
    no universe spec; its values are then the integers ``1..|X|``.

    Raises:
        ParameterError: not a release, an unknown type, or a universe that does not fit.
    """
    if not isinstance(document, dict):
        raise ParameterError(f"{name}: not a finitedp release (expected a JSON object)")
    inner = document.get("release", document)
    kind = inner.get("type") if isinstance(inner, dict) else None
    if kind not in RELEASE_READERS:
        raise ParameterError(
            f"{name}: release type {kind!r} is not one finitedp can read "
            f"({', '.join(RELEASE_READERS)})"
        )
    module, cls = RELEASE_READERS[kind]
    try:
        reader = getattr(importlib.import_module(module), cls)
    except (ImportError, AttributeError) as error:
        raise ParameterError(
            f"{name}: {kind} releases need {module}.{cls}, which cannot be loaded: {error}"
        ) from None
    release = cast(_Counts, reader.from_json(inner))
    if "release" in document:
        spec = document.get("universe")
        try:
            universe = parse_universe(spec if isinstance(spec, str) else repr(spec))
        except ParameterError as error:
            raise ParameterError(f"{name}: {error}") from None
    else:
        universe = parse_universe(f"int:{release.universe_size}")
    if universe.size != release.universe_size:
        raise ParameterError(
            f"{name}: the universe {universe.spec} has {short_int(universe.size)} values but "
            f"the release has {short_int(release.universe_size)} bins"
        )
    return release, universe


def _query(args: argparse.Namespace) -> int:
    """``finitedp query``: print ``VALUE<TAB>COUNT`` for each value, from the release alone.

    Args:
        args: the parsed command line.

    Returns:
        0 (errors are raised).

    Raises:
        FiniteDPError: unreadable or unknown release, or a value outside its universe.
    """
    name = "<stdin>" if args.release == "-" else args.release
    try:
        document = json.loads(_decode_utf8(_read_bytes(args.release), name))
    except json.JSONDecodeError as error:
        raise ParameterError(f"{name}, line {error.lineno}: not JSON: {error.msg}") from None
    release, universe = _load_release(document, name)
    numbers = []
    for value in args.values:
        try:
            numbers.append(universe.encode(value))
        except ParameterError as error:
            raise ParameterError(f"query: {error}") from None
    # Every value is checked before anything is printed.
    lines = [f"{value}\t{release[x]}" for value, x in zip(args.values, numbers, strict=True)]
    print("\n".join(lines))
    return 0


# -- finitedp audit ------------------------------------------------------------------


def _build_sampler(args: argparse.Namespace) -> CountingSampler:
    """The sampler of ``finitedp audit geo|fast``.

    Raises:
        ParameterError: ``--gamma`` missing for ``fast`` or given for ``geo``, or a
            parameter out of range (an input error: exit status 2).
    """
    options = {"noise": args.noise}
    if args.slack is not None:
        options["slack"] = args.slack
    if args.sampler == "geo":
        if args.gamma is not None:
            raise ParameterError("--gamma: applies to the fast sampler only")
        return GeoSample(args.n, args.epsilon, **options)
    if args.gamma is None:
        raise ParameterError("--gamma: the fast sampler needs it, e.g. --gamma 1/8")
    return FastSample(args.n, args.epsilon, args.gamma, **options)


def _audit(args: argparse.Namespace) -> int:
    sampler = _build_sampler(args)
    if sampler.n > _LARGE_AUDIT and not args.quiet:
        print(f"finitedp audit: exploring {sampler.n + 1} counts exactly...", file=sys.stderr)
    report = audit_counting_sampler(sampler, args.beta)
    print(report.render(distributions=not args.no_distributions))
    return 0 if report.ok else 1


def _audit_histogram(args: argparse.Namespace) -> int:
    """``finitedp audit bounded-geometric|stability|pure-sparse|compact``.

    Returns:
        0 if every claim holds, 1 otherwise.

    Raises:
        FiniteDPError: a parameter error, or an instance too large to enumerate
            (the message gives the estimate and the sizes known to work).
    """
    with _Progress(not args.quiet, _PROGRESS_DELAY_SECONDS) as progress:
        report = audit_histogram_mechanism(
            args.target,
            args.n,
            args.universe_size,
            args.epsilon,
            delta=getattr(args, "delta", None),
            beta=args.beta,
            counter=args.counter,
            threshold=getattr(args, "threshold", None),
            level=getattr(args, "level", None),
            gamma=getattr(args, "gamma", None),
            ordered=args.ordered,
            split_mixture=getattr(args, "split_mixture", False),
            max_paths=args.max_paths,
            progress=progress,
        )
    print(report.render(distributions=args.distributions))
    return 0 if report.ok else 1


def _reference(args: argparse.Namespace) -> tuple[dict[int, Fraction], str]:
    """The exact reference PMF of ``finitedp audit compare`` and its description.

    Raises:
        ParameterError: a missing or inapplicable option, or a parameter out of range.
    """
    kind = args.reference
    needs = {"geometric": ("ratio",), "geo": ("epsilon",), "fast": ("epsilon", "gamma")}[kind]
    for option in ("ratio", "epsilon", "gamma"):
        given = getattr(args, option) is not None
        if option in needs and not given:
            raise ParameterError(f"--{option}: --reference {kind} needs it")
        if option not in needs and given:
            raise ParameterError(
                f"--{option}: does not apply to --reference {kind} (it takes "
                f"{', '.join('--' + o for o in needs)})"
            )
    reference: dict[int, Fraction]
    if kind == "geometric":
        mechanism = GeometricMechanism(args.n, args.ratio)
        reference = mechanism.pmf(args.count)
        return reference, f"{mechanism!r}.pmf({args.count}): c + Geo clamped to [0, {args.n}]"
    sampler: CountingSampler = (
        GeoSample(args.n, args.epsilon)
        if kind == "geo"
        else FastSample(args.n, args.epsilon, args.gamma)
    )
    return sampler.pmf(args.count), f"{sampler!r}.pmf({args.count})"


def _audit_compare(args: argparse.Namespace) -> int:
    """``finitedp audit compare IMPORT.PATH:CALLABLE``: a foreign sampler against an exact PMF.

    Returns:
        0 if the draws are consistent with the reference, 1 otherwise.

    Raises:
        FiniteDPError: a bad option, a callable that cannot be loaded, or one that
            fails or returns something other than an int.
    """
    reference, described = _reference(args)
    if os.getcwd() not in sys.path:  # import from the current directory, as python -m would
        sys.path.append(os.getcwd())
    sampler = load_callable(args.sampler)
    with _Progress(not args.quiet, _PROGRESS_DELAY_SECONDS) as progress:
        try:
            report = compare(
                sampler,
                reference,
                args.samples,
                confidence=exact_fraction(args.confidence, "confidence"),
                description=f"{args.sampler} against {described}",
                progress=progress,
            )
        except FiniteDPError:
            raise
        except Exception as error:  # the foreign sampler's own failure
            raise ParameterError(
                f"sampler: {args.sampler} raised {type(error).__name__}: {error}"
            ) from error
    print(report.render())
    return 0 if report.consistent else 1


# -- the parser ----------------------------------------------------------------------

_RELEASE_DESCRIPTION = """\
Release a differentially private histogram of one column of categorical values.

Input: a CSV file (UTF-8, header row, --column NAME) or a plain text file with one
value per line; - reads standard input. CSV is assumed for --column or a name ending
in .csv (override with --format). Values are taken verbatim (no trimming); blank CSV
lines are skipped; in a text file every line is a value (a final newline ends the last
one). n, the number of rows, is public: it is printed and stored in the output.

Universe (declared, never inferred from the data):
  int:M    the integers 1..M, written in plain decimal ("7", not "07" or " 7")
  utf8:L   every UTF-8 string of at most L bytes; a string of k bytes b is numbered
           1 + (256^k - 1)/255 + int(b, big-endian), so |X| = (256^(L+1) - 1)/255
           (SPEC.md, "Universe encodings")
A value outside the universe is an error naming its line, and nothing is written.

Numbers are exact: write --epsilon 1/2 (or 0.5, read as exactly 1/2). epsilon, delta
and beta must be 1/k for an integer k (BV's N^-1).
"""

_RELEASE_EPILOG = """\
mechanisms:
{mechanisms}

defaults: without --mechanism, bounded-geometric if |X| <= {dense} (or |X| <= 2n),
  else compact: both pure (eps, 0)-DP; compact answers every value within the
  per-query error with no threshold, pure-sparse lists at most n bins but only
  reports counts above a threshold that grows with ln|X|. --beta defaults to
  1/10: it is the mechanism's beta0 (pure-sparse: beta) and the failure
  probability of the accuracy statement. --delta is required by stability and
  refused by the others.

output: one JSON object, on stdout or written atomically to --out (a temporary
  file in the same directory, then renamed): "finitedp" (version), "mechanism",
  "parameters" (n and the exact fractions as strings), "universe" (the spec),
  "universe_size" (a number, or a decimal string above 2^53), "privacy"
  (epsilon, delta), "accuracy" (beta, per_query a, threshold t, simultaneous a,
  source theorem), "release" (the release's own JSON), for partial vectors
  "bins" ([{{"value": label, "count": c}}, ...] in increasing order of the number;
  "value" is null and "bytes" holds hex for a listed bin whose bytes are not
  UTF-8), and "seeded". Read counts back with: finitedp query RELEASE.json VALUE...

randomness: the OS CSPRNG. --seed HEX uses the deterministic SeededSource of
  SPEC.md instead: the output is then NOT private against anyone who knows the seed.

exit status: 0 on success, 2 on an input error (nothing is written).
"""


def _mechanism_lines() -> str:
    """One help line per entry of :data:`MECHANISMS`."""
    return "\n".join(f"  {name:<18} {entry.summary}" for name, entry in MECHANISMS.items())


def _add_release(commands: Any) -> None:
    release = commands.add_parser(
        "release",
        help="release a differentially private histogram of a column of values",
        description=_RELEASE_DESCRIPTION,
        epilog=_RELEASE_EPILOG.format(mechanisms=_mechanism_lines(), dense=DENSE_DEFAULT_LIMIT),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    release.add_argument("input", metavar="FILE", help="CSV or text file; - for stdin")
    release.add_argument("--column", help="the CSV column to release (by header name)")
    release.add_argument(
        "--format", choices=["auto", "csv", "text"], default="auto", help="input format"
    )
    release.add_argument(
        "--universe", required=True, metavar="SPEC", help="int:M or utf8:L (see above)"
    )
    release.add_argument(
        "--mechanism", metavar="NAME", help=f"one of {', '.join(MECHANISMS)} (default: see below)"
    )
    release.add_argument("--epsilon", required=True, help="privacy budget 1/k, e.g. 1/2")
    release.add_argument("--delta", help="stability only: 1/k, e.g. 1/1000000")
    release.add_argument(
        "--beta", default="1/10", help="failure probability 1/k of the accuracy statement"
    )
    release.add_argument(
        "--counter",
        choices=["fast", "geo"],
        default="fast",
        help="counting sampler: FastSample (the theorems' choice) or GeoSample",
    )
    release.add_argument("--out", metavar="PATH", help="write the JSON here instead of stdout")
    release.add_argument(
        "--seed", metavar="HEX", help="deterministic noise from this seed: NOT private, tests only"
    )
    release.add_argument(
        "--quiet", action="store_true", help="no progress display and no summary on stderr"
    )
    release.set_defaults(run=_release)


def _add_query(commands: Any) -> None:
    query = commands.add_parser(
        "query",
        help="read counts from a release, without the data",
        description="Print 'VALUE<TAB>COUNT' for each VALUE, from a release written by "
        "finitedp release (partial vectors: an unlisted value counts 0; compact releases are "
        "evaluated) or from a bare release JSON (values are then the integers 1..|X|). "
        "Every value is checked against the release's universe before anything is printed.",
    )
    query.add_argument("release", metavar="RELEASE.json", help="the release; - for stdin")
    query.add_argument("values", metavar="VALUE", nargs="+", help="values to look up")
    query.set_defaults(run=_query)


_AUDIT_DESCRIPTION = """\
Exact audits: enumerate every outcome of a mechanism's oracle calls on tiny
parameters and decide its theorem's claims with exact arithmetic; or compare a
foreign sampler's draws with one of finitedp's exact distributions.

targets:
  geo, fast            a counting-query sampler for every count (BV Thm 4.7, 4.10)
  bounded-geometric    BV Thm 5.3: every bin noisy, (eps, 0)-DP
  stability            BV Thm 5.6 (user level, --delta) or Thm 5.5 (--threshold B)
  pure-sparse          BV Thm 6.11: at most n bins, (eps, 0)-DP
  compact              BV Thm 8.3 in a small field (--level L); Thm 8.6 is refused
  compare              draws of IMPORT.PATH:CALLABLE against an exact PMF

Run finitedp audit TARGET --help for each target's options and feasible sizes.
Numbers are exact: write 1/2 (or 0.5, read as exactly 1/2). Exit status: 0 if
every claim holds, 1 if one fails, 2 on an input error (such as --gamma missing
for fast) or an instance too large to enumerate.
"""

_HISTOGRAM_AUDIT_EPILOG = """\
what is reported: the exact worst privacy ratio over all neighbouring datasets
  (pure DP) or exact bounds on the hockey-stick delta at e^epsilon (bracketed
  between rationals, so decided without floats); the accuracy achieved (the
  minimum over datasets and bins of Pr[|h_x - c_x| <= a]) against each claimed
  a, and the tightest a; the oracle calls on every path; with --distributions,
  the exact law of the counts (h_1, ..., h_m) for every dataset.

datasets: one sorted dataset per multiset of n rows over X = [1, M], with three
  reorderings spot-checked (the release must depend on the counts only), or
  every dataset of X^n with --ordered. --beta is also the mechanism's beta0, as
  in finitedp release.

size: the number of paths is estimated first and the audit refused above
  --max-paths (default {limit:,}; 50-150 microseconds a path). Known to work:
{sizes}
{extra}"""

_HISTOGRAM_EXTRA = {
    "stability": """
layers: with --delta D, the user-level StabilityHistogram (BV Thm 5.6); it needs
  n >= b = 1 + ceil(9/(2 eps) ln(2/delta)) (geo; 4/delta for fast), i.e. n >= 8 at
  eps = 1, delta = 1/2. With --threshold B instead, the paper layer
  StabilityHistogram_{M,B} (Alg 5.4, Thm 5.5) with M = GeoSample(n, eps) or
  FastSample(n, eps, --gamma), claiming delta = 2 Pr[M(1, U) > B].
""",
    "compact": """
layers: the user-level CompactHistogram (BV Thm 8.6) works in a field of at least
  2^18 elements whose filler draws would be enumerated value by value: it is
  always refused. --level L audits the paper layer CompactHistogram_{M,M0}
  (Alg 8.2, Thm 8.3) with d0 = 2^(2*3^L) and M = GeoSample(n, eps) (--counter
  geo): --level 1 (d0 = 64) at n = 1.
""",
    "pure-sparse": """
--split-mixture: explore SparseHistogram and the data-independent fallback
  separately and combine them as BV Alg 3.1's law (1 - beta1) S + beta1 F,
  instead of exploring their product: reaches n = 2.
""",
}

_COMPARE_DESCRIPTION = """\
Draw --samples values from a foreign sampler that claims to realise one of
finitedp's exact distributions, and report the empirical distribution, the
plug-in total-variation distance with a confidence interval (Bretagnolle-
Huber-Carol L1 bound), a chi-square goodness-of-fit test (exact statistic; its
p-value is a float, display only) and any draw outside the reference support (a
red flag: probability 0).

IMPORT.PATH:CALLABLE names a callable taking no arguments and returning an int,
e.g. mypackage.noise:draw or mymodule:sampler.draw; the current directory is
importable. Its randomness is its own business.

references:
  geometric   GeometricMechanism(--n, --ratio).pmf(--count): c + Geo with
              Pr[noise = j] proportional to ratio^-|j|, clamped to [0, n]
              (e.g. diffprivlib GeometricTruncated with epsilon = ln(ratio))
  geo         GeoSample(--n, --epsilon).pmf(--count)
  fast        FastSample(--n, --epsilon, --gamma).pmf(--count)

exit status: 0 if consistent with the reference, 1 if not, 2 on an input error.
"""


def _add_counting_audit(targets: Any, name: str, summary: str) -> None:
    audit = targets.add_parser(
        name,
        help=summary,
        description="Explore a sampler exactly for every count and check its theorem's claims "
        "(BV Thm 4.7 for geo, Thm 4.10 for fast). Numbers are exact: write 1/2 (or 0.5, "
        "read as exactly 1/2). Exit status: 0 if every claim holds, 1 if one fails, 2 on an "
        "input error.",
    )
    audit.add_argument("--n", type=int, required=True, help="number of rows (counts in [0, n])")
    audit.add_argument("--epsilon", required=True, help="privacy budget, e.g. 1/2")
    audit.add_argument(
        "--gamma", help="fast only (required): FastSample's mixing weight 1/g, e.g. 1/8"
    )
    audit.add_argument("--beta", default="1/10", help="failure probability for the accuracy claim")
    audit.add_argument("--noise", choices=["paper", "tight"], default="paper")
    audit.add_argument("--slack", help="tight mode: share of eps/2 left unused (default 1/100)")
    audit.add_argument("--no-distributions", action="store_true", help="omit the exact tables")
    audit.add_argument("--quiet", action="store_true", help="no progress messages on stderr")
    audit.set_defaults(run=_audit, sampler=name)


_HISTOGRAM_SUMMARY = {
    "bounded-geometric": "BoundedGeometricHistogram over every dataset of a tiny universe",
    "stability": "StabilityHistogram (user level, or the paper layer with --threshold)",
    "pure-sparse": "PureSparseHistogram over every dataset of a tiny universe",
    "compact": "CompactHistogram's paper layer in a small field (--level)",
}


def _add_histogram_audit(targets: Any, name: str) -> None:
    audit = targets.add_parser(
        name,
        help=_HISTOGRAM_SUMMARY[name],
        description=f"Audit {name} exactly: every dataset of n rows over X = [1, M], every "
        f"outcome of the oracle. Numbers are exact: write 1/2 (or 0.5, read as exactly 1/2).",
        epilog=_HISTOGRAM_AUDIT_EPILOG.format(
            limit=DEFAULT_MAX_PATHS,
            sizes=textwrap.fill(KNOWN_SIZES[name], 80, initial_indent="  ", subsequent_indent="  "),
            extra=_HISTOGRAM_EXTRA.get(name, ""),
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    audit.add_argument("--n", type=int, required=True, help="rows per dataset")
    audit.add_argument(
        "--universe-size", type=int, required=True, metavar="M", help="|X| = M (at least 2)"
    )
    audit.add_argument("--epsilon", required=True, help="privacy budget 1/k, e.g. 1")
    audit.add_argument(
        "--beta", default="1/10", help="failure probability 1/k of the accuracy claims (beta0)"
    )
    audit.add_argument(
        "--counter", choices=["fast", "geo"], default="fast", help="FastSample or GeoSample"
    )
    if name == "stability":
        audit.add_argument("--delta", help="user level: delta = 1/k, e.g. 1/2")
        audit.add_argument(
            "--threshold", type=int, metavar="B", help="paper layer: the threshold b in [0, n]"
        )
        audit.add_argument(
            "--gamma", help="paper layer with --counter fast: FastSample's gamma, e.g. 1/20"
        )
    if name == "compact":
        audit.add_argument(
            "--level", type=int, metavar="L", help="paper layer: d0 = 2^(2*3^L), e.g. 1"
        )
    if name == "pure-sparse":
        audit.add_argument(
            "--split-mixture", action="store_true", help="explore the two branches separately"
        )
    audit.add_argument("--ordered", action="store_true", help="enumerate every dataset of X^n")
    audit.add_argument(
        "--max-paths",
        type=int,
        default=DEFAULT_MAX_PATHS,
        metavar="K",
        help=f"refuse above this many paths (default {DEFAULT_MAX_PATHS:,})",
    )
    audit.add_argument(
        "--distributions", action="store_true", help="print the exact law of the counts"
    )
    audit.add_argument("--quiet", action="store_true", help="no progress display on stderr")
    audit.set_defaults(run=_audit_histogram, target=name)


def _add_compare(targets: Any) -> None:
    audit = targets.add_parser(
        "compare",
        help="a foreign sampler's draws against an exact distribution",
        description=_COMPARE_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    audit.add_argument(
        "sampler", metavar="IMPORT.PATH:CALLABLE", help="a callable: () -> int, e.g. mod:draw"
    )
    audit.add_argument(
        "--reference",
        choices=["geometric", "geo", "fast"],
        default="geometric",
        help="the exact distribution it claims (default geometric)",
    )
    audit.add_argument("--n", type=int, required=True, help="outputs lie in [0, n]")
    audit.add_argument("--count", type=int, required=True, help="the true count c in [0, n]")
    audit.add_argument("--ratio", help="geometric: e^(eps/2) > 1, e.g. 2")
    audit.add_argument("--epsilon", help="geo, fast: the sampler's epsilon 1/k")
    audit.add_argument("--gamma", help="fast: FastSample's gamma 1/g")
    audit.add_argument(
        "--samples", type=int, default=10_000, help="number of draws (default 10,000)"
    )
    audit.add_argument(
        "--confidence",
        default="99/100",
        help="confidence of the TV interval; 1 - it is the test's level (default 99/100)",
    )
    audit.add_argument("--quiet", action="store_true", help="no progress display on stderr")
    audit.set_defaults(run=_audit_compare, target="compare")


def _add_audit(commands: Any) -> None:
    audit = commands.add_parser(
        "audit",
        help="exact audits of samplers and histogram mechanisms; foreign samplers",
        description=_AUDIT_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    targets = audit.add_subparsers(dest="target", required=True, metavar="TARGET")
    _add_counting_audit(targets, "geo", "GeoSample for every count (BV Thm 4.7)")
    _add_counting_audit(targets, "fast", "FastSample for every count (BV Thm 4.10)")
    for name in HISTOGRAM_TARGETS:
        _add_histogram_audit(targets, name)
    _add_compare(targets)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="finitedp",
        description="Differential privacy on finite computers, in exact arithmetic.",
    )
    parser.add_argument("--version", action="version", version=f"finitedp {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    _add_release(commands)
    _add_query(commands)
    _add_audit(commands)
    _add_vectors(commands)
    add_plot_parser(commands)
    return parser


def _add_vectors(commands: Any) -> None:
    vectors = commands.add_parser(
        "vectors",
        help="generate or verify reference test vectors (JSON Lines, SPEC.md)",
        description="Reference test vectors for other implementations: every sampler and "
        "mechanism with its parameters, dataset, tape of (d, u) oracle answers and output.",
    )
    actions = vectors.add_subparsers(dest="action", required=True)
    generate = actions.add_parser(
        "generate", help="write the deterministic vector file (atomically; exit 2 if it cannot)"
    )
    generate.add_argument("--out", required=True, help="the JSON Lines file to write")
    generate.set_defaults(run=_vectors_generate)
    verify = actions.add_parser(
        "verify",
        help="replay every vector; exit 1 at the first failure, 2 if the file cannot be read",
    )
    verify.add_argument("file", help="a JSON Lines vector file")
    verify.set_defaults(run=_vectors_verify)


def _vectors_generate(args: argparse.Namespace) -> int:
    """``finitedp vectors generate --out FILE``, written atomically.

    Returns:
        0 (errors are raised).

    Raises:
        ParameterError: ``--out`` cannot be written (nothing is written).
    """
    from . import vectors

    _check_out(args.out, "-")
    with _atomic_path(args.out) as temporary:
        count = vectors.generate_to(temporary)
    print(f"wrote {count} vectors to {args.out}")
    return 0


def _vectors_verify(args: argparse.Namespace) -> int:
    """``finitedp vectors verify FILE``.

    Returns:
        0 if every vector verifies, 1 at the first failure (the message names the line).

    Raises:
        ParameterError: the file cannot be read (an input error, not a failure).
    """
    from .vectors import verify_file

    try:
        with open(args.file, "rb"):
            pass
    except OSError as error:
        raise ParameterError(f"{args.file}: cannot read it: {error.strerror or error}") from None
    ok, message = verify_file(args.file)
    print(message, file=sys.stdout if ok else sys.stderr)
    return 0 if ok else 1


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line.

    Args:
        argv: the arguments after the program name (default: ``sys.argv[1:]``).

    Returns:
        The exit status: 0 on success, 1 when an audited claim fails, 2 on an input error.

    Raises:
        SystemExit: from argparse, for ``--help`` and malformed command lines.
    """
    args = _parser().parse_args(argv)
    try:
        return int(args.run(args))
    except FiniteDPError as error:
        print(f"finitedp {args.command}: {error}", file=sys.stderr)
        return 2
