"""Releases on disk: reading a ``finitedp release`` document back, for ``query`` and ``plot``.

The release's JSON ``"type"`` selects its reader in :data:`finitedp.registry.READERS`.
"""

from __future__ import annotations

from typing import Any

from ..entries import Counts, ReleaseReader
from ..errors import ParameterError
from ..jsonvalues import load_json, parse_count, parse_rational
from ..params import short_int
from .files import decode_utf8, read_bytes
from .keyset import KeyUniverse
from .universe import Universe, Utf8Universe, parse_universe

__all__ = ["bin_entry", "column_estimates", "load_release", "parse_document", "read_document"]


def parse_document(text: str, name: str) -> Any:
    """The JSON of a document, read by :func:`finitedp.jsonvalues.load_json`.

    Integers of any size are exact, numbers with a fraction part are kept as
    text (so validators refuse them), ``NaN``/``Infinity`` and very deep
    nesting are errors.

    Raises:
        ParameterError: not JSON; the message names ``name`` and the line.
    """
    return load_json(text, name)


def read_document(path: str) -> Any:
    """The parsed JSON of ``path`` (``-``: standard input).

    Raises:
        ParameterError: unreadable, not UTF-8, or not JSON (the message names the line).
    """
    name = "<stdin>" if path == "-" else path
    return parse_document(decode_utf8(read_bytes(path), name), name)


def load_release(document: Any, name: str) -> tuple[Counts, Universe, ReleaseReader]:
    """The release inside a ``finitedp release`` document, or a bare release object.

    A bare release (``PartialHistogram.to_json`` / ``CompactRelease.to_json``) has
    no universe spec; its values are then the integers ``1..|X|``.

    Returns:
        The release, its universe, and the reader that parsed it.

    Raises:
        ParameterError: not a release, an unknown type, or a universe that does not fit.
    """
    if not isinstance(document, dict):
        raise ParameterError(f"{name}: not a finitedp release (expected a JSON object)")
    inner = document.get("release", document)
    from ..families import reader  # the release's family: imported to read its data

    found = reader(inner.get("type") if isinstance(inner, dict) else None, name)
    release = found.load(inner)
    if "release" in document:
        spec = document.get("universe")
        try:
            if spec in ("keys", "keys+other"):
                keys = document.get("keys")
                if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
                    raise ParameterError(
                        f'universe {spec}: the document\'s "keys" is not a list of strings'
                    )
                universe: Universe = KeyUniverse(keys, spec == "keys+other", source="the release")
            else:
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
    if "release" in document and found.lists_bins:
        _check_counts(document, release, name)
    return release, universe, found


def document_field(mapping: Any, key: str, name: str, *, kind: str) -> Any:
    """``mapping[key]`` of a release document ``name``; refused if it is missing.

    Raises:
        ParameterError: ``mapping`` is not an object or lacks ``key`` (``kind`` says what
            document was expected, e.g. ``"a plan-mean release"``).
    """
    if not isinstance(mapping, dict) or key not in mapping:
        raise ParameterError(f"{name}: {key}: missing; not {kind}")
    return mapping[key]


def column_estimates(document: Any, name: str) -> dict[str, str] | None:
    """``{column: exact estimate}`` of a release over numeric columns (a document with
    ``"estimates"``: sums, quantiles); ``None`` for other releases.

    Raises:
        ParameterError: a column release whose estimates are malformed.
    """
    if not isinstance(document, dict) or "estimates" not in document:
        return None
    rows = document.get("estimates")
    if not isinstance(rows, list) or not all(
        isinstance(r, dict) and isinstance(r.get("column"), str) and isinstance(r.get("value"), str)
        for r in rows
    ):
        raise ParameterError(f"{name}: estimates: expected [{{column, value}}, ...]")
    out = {}
    for r in rows:
        text = r["value"]
        try:  # a signed rational in lowest terms, as written
            parse_rational(text.removeprefix("-"), "value")
        except ValueError as error:
            raise ParameterError(f"{name}: estimates: {error}") from None
        out[r["column"]] = text
    return out


def _check_counts(document: dict[str, Any], release: Counts, name: str) -> None:
    """A listed count above the release's ``n`` cannot come from any mechanism: refuse it."""
    parameters = document.get("parameters")
    if not isinstance(parameters, dict) or "n" not in parameters:
        raise ParameterError(f"{name}: parameters.n: missing; a release states its n")
    try:
        n = parse_count(parameters["n"], "parameters.n")
    except ValueError as error:
        raise ParameterError(f"{name}: {error}") from None
    for x, count in getattr(release, "bins", ()):
        if count > n:
            raise ParameterError(
                f"{name}: bin {short_int(x)}: count {short_int(count)} is above n = "
                f"{short_int(n)}; a release's counts lie in [0, n], so this file was altered"
            )


def bin_entry(universe: Universe, x: int, count: int | str) -> dict[str, Any]:
    """One listed bin: its label, or (for bytes that are not UTF-8) ``null`` and the bytes."""
    try:
        return {"value": universe.decode(x), "count": count}
    except ParameterError:
        # A sparse release may list a random empty bin whose bytes are no UTF-8 string.
        raw = universe.decode_bytes(x) if isinstance(universe, Utf8Universe) else b""
        return {"value": None, "bytes": raw.hex(), "count": count}
