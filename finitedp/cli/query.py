"""``finitedp query``: counts read back from a release, without the data."""

from __future__ import annotations

import argparse
import csv
import io
import json
from fractions import Fraction
from typing import Any

from ..errors import ParameterError
from ..io.files import show
from ..io.releases import column_estimates, load_release, read_document
from ..params import decimal_nearest, exact_fraction, sqrt_display
from .describe import describe_release

__all__ = ["add_query"]


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
    document = read_document(args.release)
    if args.top is not None or args.all:
        if args.values:
            raise ParameterError("--top/--all: list the release's keys, or name VALUEs; not both")
        show(_table(document, name, args))
        return 0
    if args.format is not None:
        raise ParameterError("--format: shapes the table of --top K or --all")
    if not args.values:  # the release in words
        show("\n".join(describe_release(document, name)))
        return 0
    estimates = column_estimates(document, name)
    if estimates is not None:
        return _query_columns(args, estimates, _column_margins(document, name))
    release, universe, _ = load_release(document, name)
    numbers = []
    for value in args.values:
        try:
            numbers.append(universe.encode(value))
        except ParameterError as error:
            raise ParameterError(f"query: {error}") from None
    # Every value is checked before anything is printed.
    unlisted = _unlisted_words(document, release, name)
    listed = listed_keys(release) if unlisted is not None else set()
    lines = [
        f"{value}\t{_shown(release[x], args.exact)}{_corrected_words(release, x, args.exact)}"
        if unlisted is None or x in listed
        else f"{value}\t{unlisted}"
        for value, x in zip(args.values, numbers, strict=True)
    ]
    show("\n".join(lines))
    return 0


def _corrected_words(release: Any, x: int, exact: bool) -> str:
    """For a sketch released with its noisy number of decrements (``--debias``): the count
    corrected by half of it, labelled as the post-processing it is."""
    corrected = getattr(release, "corrected", None)
    value = corrected(x) if corrected is not None else None
    if value is None:
        return ""
    return (
        f"\tbias-corrected {_shown(value, exact)} (post-processing: the count plus half the "
        f"noisy number of decrements, {release.decrements}; the sketch undercounts a key by "
        "at most that number)"
    )


def listed_keys(release: Any) -> set[int]:
    """The keys a sketch or a partial histogram lists (a compact release lists none)."""
    heavy = getattr(release, "heavy", None)
    if heavy is not None:
        return {x for x, _ in heavy}
    bins = getattr(release, "bins", None)
    return set() if bins is None else {x for x, _ in bins}


def _unlisted_words(document: Any, release: Any, name: str) -> str | None:
    """What ``query`` prints for a key the release does not list: that it is not listed and
    the bound on its count (a sketch's includes its undercount, ``n/(k + 1)``); ``None``
    where every key has a count (a dense or compact release)."""
    accuracy = document.get("accuracy") if isinstance(document, dict) else None
    if not isinstance(accuracy, dict):
        return None
    confidence = ""
    if accuracy.get("beta") is not None:
        beta = exact_fraction(str(accuracy["beta"]), "accuracy.beta")
        confidence = f" with probability >= {decimal_nearest(1 - beta, 4)}"
    if getattr(release, "heavy", None) is not None:
        k = dict(getattr(release, "parameters", ())).get("k")
        bound = accuracy.get("simultaneous")
        if k is None or bound is None:
            return "not listed"
        share = f"n/{int(k) + 1}"
        return (
            f"not listed: below the sketch's threshold; its count is at most {bound} + {share}"
            f"{confidence} (the sketch keeps {k} counters and undercounts each key by up to "
            f"{share}; n, the stream length, is not released)"
        )
    threshold, each = accuracy.get("threshold"), accuracy.get("per_query")
    if threshold is None or each is None or getattr(release, "bins", None) is None:
        return None
    # BV Def 2.7: a count above the threshold is released within ±a with probability
    # >= 1 - beta; the threshold is at least a, so such a count is listed.
    return (
        f"not listed: a count above {threshold} would be listed{confidence} (the "
        "release's threshold; counts at most that may be left out)"
    )


def _query_columns(
    args: argparse.Namespace,
    estimates: dict[str, str],
    margins: tuple[tuple[str, str, str], dict[str, str]],
) -> int:
    """A release over numeric columns: each VALUE is a column name; print its estimate and,
    beside it, its noise sd in the data's units (sums, means) or its rank error."""
    for column in args.values:
        if column not in estimates:
            raise ParameterError(
                f"column {column!r} is not in the release ({', '.join(estimates)})"
            )
    (_, _, what), figures = margins
    lines = []
    for column in args.values:
        line = f"{column}\t{_shown(exact_fraction(estimates[column], column), args.exact)}"
        if column in figures:
            line += f"\t{what} {figures[column]}"
        lines.append(line)
    show("\n".join(lines))
    return 0


def _table(document: Any, name: str, args: argparse.Namespace) -> str:
    """The release as a table: each estimate (columns) or listed key by count, largest
    first, with the stated ``±`` at ``beta`` beside it (``--top K`` keeps the first K)."""
    estimates = column_estimates(document, name)
    accuracy = document.get("accuracy") if isinstance(document, dict) else None
    plus = accuracy.get("per_query") if isinstance(accuracy, dict) else None
    rows: list[tuple[str, Fraction]]
    margins: dict[str, str] = {}
    if estimates is not None:
        rows = [(c, exact_fraction(v, c)) for c, v in estimates.items()]
        header, margins = _column_margins(document, name)
    else:
        bins = document.get("bins") if isinstance(document, dict) else None
        if not isinstance(bins, list):
            raise ParameterError(
                f"{name}: --top/--all list the keys a release lists; this one answers every "
                "key (name the VALUEs to look up)"
            )
        load_release(document, name)  # the document checked as a query checks it
        rows = []
        for entry in bins:
            label = entry.get("value")
            shown = str(label) if label is not None else "0x" + str(entry.get("bytes", ""))
            rows.append((shown, exact_fraction(str(entry["count"]), "count")))
        rows.sort(key=lambda row: (-row[1], row[0]))
        header = ("value", "count", "±")
    if args.top is not None:
        if args.top < 1:
            raise ParameterError(f"--top: got {args.top}; give K >= 1")
        rows = rows[: args.top]
    margin = "" if plus is None else str(plus)
    cells = [(key, _shown(value, args.exact), margins.get(key, margin)) for key, value in rows]
    form = args.format or "tsv"
    if form == "json":
        third = "plus_minus" if header[2] == "±" else header[2].replace(" ", "_")
        return json.dumps(
            [
                {header[0]: k, header[1]: str(v), third: margins.get(k, margin) or None}
                for k, v in rows
            ],
            ensure_ascii=False,
            indent=1,
        )
    if form in ("tsv", "csv"):
        out = io.StringIO()
        writer = csv.writer(out, delimiter="\t" if form == "tsv" else ",", lineterminator="\n")
        if form == "csv":
            writer.writerow(header)
        writer.writerows(cells)
        return out.getvalue().rstrip("\n")
    widths = [max(len(str(c[i])) for c in [header, *cells]) for i in range(3)]
    lines = [
        "  ".join(str(c[i]).ljust(widths[i]) for i in range(3)).rstrip() for c in [header, *cells]
    ]
    return "\n".join([lines[0], "  ".join("-" * w for w in widths), *lines[1:]])


def _column_margins(document: Any, name: str) -> tuple[tuple[str, str, str], dict[str, str]]:
    """The third column of a column release's table: each estimate's noise sd in the
    data's units (sums, means), or its rank error (quantiles)."""
    entries = [e for e in document.get("estimates", []) if isinstance(e, dict)]
    if any("noise_within" in e for e in entries):  # the bound at beta, and the sd
        return ("column", "estimate", "±"), {
            str(e["column"]): (
                decimal_nearest(exact_fraction(str(e["noise_within"]), name), 3)
                + (
                    f" (sd {sqrt_display(exact_fraction(str(e['noise_variance']), name))})"
                    if "noise_variance" in e
                    else ""
                )
            )
            for e in entries
            if "noise_within" in e
        }
    if any("noise_variance" in e for e in entries):
        return ("column", "estimate", "noise sd"), {
            str(e["column"]): sqrt_display(exact_fraction(str(e["noise_variance"]), name))
            for e in entries
            if "noise_variance" in e
        }
    accuracy = document.get("accuracy")
    errors = accuracy.get("rank_errors") if isinstance(accuracy, dict) else None
    if isinstance(errors, list) and len(errors) == len(entries):
        return ("column", "estimate", "rank error"), {
            str(e["column"]): str(r) for e, r in zip(entries, errors, strict=True)
        }
    return ("column", "estimate", "±"), {}


def _shown(value: int | Fraction, exact: bool) -> str:
    """An estimate as printed: exact with ``--exact``, else 6 significant digits."""
    return str(value) if exact else decimal_nearest(value)


def add_query(commands: Any) -> None:
    query = commands.add_parser(
        "query",
        help="read counts from a release, without the data",
        description="Print 'VALUE<TAB>COUNT' for each VALUE, from a release written by "
        "finitedp release (for a release over numeric columns, a sum, quantiles or means, "
        "each VALUE is a column name and its estimate is printed, with its noise sd in the data's "
        "units, or a quantile's rank error), "
        "finitedp release (a value a sketch or a thresholded histogram does not list is "
        "printed as 'not listed' with the bound on its count; compact releases are "
        "evaluated) or from a bare release JSON (values are then the integers 1..|X|). "
        "--top K and --all print the listed keys (or a column release's estimates) as a "
        "table, largest first, with the stated ± beside each. "
        "Every value is checked against the release's universe before anything is printed. "
        "A figure that is not a whole number is printed to 6 significant digits, rounded to "
        "nearest (a readable estimate, not a bound); --exact prints the exact fraction the "
        "release holds.",
    )
    query.add_argument("release", metavar="RELEASE.json", help="the release; - for stdin")
    query.add_argument(
        "values",
        metavar="VALUE",
        nargs="*",
        help="values to look up; none: describe the release in words (what it protects, "
        "its guarantee and accuracy in decimals, its estimates)",
    )
    query.add_argument(
        "--exact", action="store_true", help="print exact fractions instead of 6-digit decimals"
    )
    query.add_argument(
        "--top", type=int, metavar="K", help="the K largest listed keys (or estimates), a table"
    )
    query.add_argument("--all", action="store_true", help="every listed key, largest first")
    query.add_argument(
        "--format",
        choices=("tsv", "csv", "table", "json"),
        help="the table's shape with --top or --all (default tsv; json keeps exact strings)",
    )
    query.set_defaults(run=_query)
