"""``finitedp release --mechanism NAME --columns ...``: a mechanism over numeric columns.

Reads the declared columns of a CSV or Parquet file exactly (:mod:`finitedp.io.numeric`),
as sums in grid units, counts, or PLAN's row statistics (what the entry ``reads``), or a
basket file's 0/1 rows as sets (``--format baskets --items D``, :mod:`finitedp.io.baskets`,
for the entries that read baskets), runs
an entry of :data:`finitedp.registry.COLUMNS` and writes the release with its
guarantee (composed by the accountant), the neighbour relation, and the
mechanism's own accuracy statement.  Nothing is written on an input error.
"""

from __future__ import annotations

import argparse
import os
from fractions import Fraction
from typing import Any, cast

from .. import __version__
from ..engines import engine as find_engine
from ..entries import JSON, BasketMechanism, ColumnEntry, ColumnOutcome, Option
from ..errors import FiniteDPError, ParameterError
from ..io.baskets import MAX_ITEMS
from ..io.display import with_displays
from ..io.document import write_document
from ..io.files import STDOUT, check_out, input_format, say
from ..io.missing import DROP, fill_missing, null_policies
from ..io.numeric import NumericColumn, parse_columns
from ..io.progress import DELAY_SECONDS, Progress
from ..io.tables import InputFile, opened_input
from ..io.values import shorten
from ..jsonvalues import json_int, rational
from ..oracle import RandomSource, SeededSource, default_source
from ..params import decimal_nearest, exact_fraction, probability, short_fraction, sqrt_display
from ..registry import COLUMNS
from .output import finish_release

__all__ = ["AT_DELTA", "COLUMN_ONLY", "HISTOGRAM_ONLY", "column_options", "release_columns"]

#: The document also states the epsilon the accountant certifies at this delta.
AT_DELTA = "1/1000000"

#: Flags only the column mechanisms take, and flags only the histogram mechanisms take.
COLUMN_ONLY = ("columns", "bounds", "grid", "rho", "clamp", "items")
HISTOGRAM_ONLY = ("column", "universe", "other", "value_column", "value_bound", "value_step")


def column_options() -> dict[str, Option]:
    """Every column entry's own options, by name (each flag is declared once)."""
    return {o.name: o for entry in COLUMNS.values() for o in entry.options}


def _check(args: argparse.Namespace, entry: ColumnEntry) -> dict[str, str | None]:
    """Everything that does not depend on the data, before the input is read.

    Returns:
        The entry's own options, by name.
    """
    for name in HISTOGRAM_ONLY:
        if getattr(args, name, None) is not None:
            flag = "--" + name.replace("_", "-")
            raise ParameterError(f"{flag}: {entry.name} reads --columns, not {flag}")
    other = "rho" if entry.budget == "epsilon" else "epsilon"
    if getattr(args, other) is not None:
        raise ParameterError(f"--{other}: {entry.name} takes --{entry.budget}, not --{other}")
    budget = getattr(args, entry.budget)
    if budget is None:
        raise ParameterError(f"--{entry.budget}: {entry.name} needs it (its privacy budget)")
    exact_fraction(budget, f"--{entry.budget}")
    probability(args.beta, "--beta")  # every accuracy statement's beta lies in (0, 1)
    own = {o.name for o in entry.options}
    options: dict[str, str | None] = {}
    for option in column_options().values():
        value = getattr(args, option.name)
        if option.name not in own:
            if value is not None:
                users = [e.name for e in COLUMNS.values() if option in e.options]
                verb = "takes" if len(users) == 1 else "take"
                raise ParameterError(
                    f"{option.flag}: got {shorten(str(value))}; only {', '.join(users)} {verb} "
                    f"it, not {entry.name}"
                )
            continue
        if value is not None and option.kind == "choice":
            if value not in option.choices:
                raise ParameterError(
                    f"{option.flag}: got {value!r}; use one of {', '.join(option.choices)}"
                )
        elif value is not None:
            number = exact_fraction(value, option.flag)
            if option.kind == "int" and (number.denominator != 1 or number < 1):
                raise ParameterError(
                    f"{option.flag}: got {short_fraction(number)}; use a positive integer"
                )
        options[option.name] = value
    options["beta"] = args.beta  # every entry may use it (the accuracy statements' beta)
    options["format"] = "baskets" if args.format == "baskets" else None
    return options


def _basket_columns(args: argparse.Namespace, entry: ColumnEntry) -> list[NumericColumn]:
    """``--items D`` 0/1 columns named ``0`` to ``D - 1``, checked against the other flags."""
    if not entry.baskets:
        readers = [e.name for e in COLUMNS.values() if e.baskets]
        raise ParameterError(
            f"--format baskets: {entry.name} reads numeric columns; basket files are read only "
            f"by {', '.join(readers)}"
        )
    for name in ("bounds", "grid", "clamp"):
        if getattr(args, name) is not None:
            raise ParameterError(
                f"--{name}: a basket file has no named columns; its 0/1 columns are the item "
                f"ids 0 to --items - 1"
            )
    listed = args.input.lower().endswith((".parquet", ".pq"))
    if (args.columns is not None) != listed:
        raise ParameterError(
            "--columns: a basket file (one basket a line) has no named columns; a Parquet "
            "file's baskets are the list column --columns names"
            if args.columns is not None
            else "--columns: name the list column of item ids that holds the Parquet file's baskets"
        )
    if args.items is None:
        raise ParameterError("--items: --format baskets needs it (the public number of items d)")
    items = exact_fraction(args.items, "--items")
    if items.denominator != 1 or not 1 <= items <= MAX_ITEMS:
        raise ParameterError(
            f"--items: got {shorten(str(args.items))}; use an integer in [1, {MAX_ITEMS}]"
        )
    zero, one = Fraction(0), Fraction(1)
    return [NumericColumn(str(i), zero, one, one) for i in range(int(items))]


#: Megabytes of file read a second, by what a mechanism reads and the file's kind, with
#: DuckDB on two cores (``benchmarks/bench_columns.py`` and ``plan_kosarak.py``, rounded
#: down: 10^7 x 4 and 10^8 x 8 integer columns, 10^7 x 4 in CSV, Kosarak-size baskets).
#: Spark in local mode is about 15 times slower, after about 15 s of start.
READ_RATES = {
    ("sums", "parquet"): 200,
    ("counts", "parquet"): 150,
    ("rows", "parquet"): 20,
    ("sums", "csv"): 25,
    ("counts", "csv"): 25,
    ("rows", "csv"): 9,
    ("baskets", "parquet"): 1,
    ("baskets", "text"): 1,
}

KINDS = {"csv": "CSV", "parquet": "Parquet", "text": "text"}

#: A run estimated at least this long says so on stderr first (seconds).
ANNOUNCE_SECONDS = 10


def _announce(entry: ColumnEntry, source: InputFile, reads: str, engine: str) -> None:
    """Say on stderr, before reading, about how long a long run will take: a rough guess
    from the file's size (public: the noise never depends on it), never a promise."""
    size = os.path.getsize(source.path)
    rate = READ_RATES.get((reads, source.kind))
    if rate is None:
        return
    seconds = 1 + size // (rate * 10**6)
    if engine == "spark":
        seconds = 15 + 15 * seconds
    if seconds < ANNOUNCE_SECONDS:
        return
    shown = decimal_nearest(Fraction(size, 10**6), 3)
    say(
        f"finitedp release: {entry.name} reads {shown} MB of {KINDS[source.kind]} with "
        f"{'Spark' if engine == 'spark' else 'DuckDB'}: about "
        f"{_duration(seconds)} (a rough guess from the file's size; progress follows on a "
        "terminal)"
    )


def _duration(seconds: int) -> str:
    """``40 s``, ``3 min`` or ``2 h``: the scale a person plans by."""
    if seconds < 120:
        return f"{seconds} s"
    if seconds < 7200:
        return f"{seconds // 60} min"
    return f"{seconds // 3600} h"


def release_columns(args: argparse.Namespace, entry: ColumnEntry) -> int:
    """Read the columns, release and write the JSON document of a column mechanism.

    Raises:
        FiniteDPError: any input error; the message names the flag, file, line and column.
    """
    options = _check(args, entry)
    baskets = args.format == "baskets"
    engine = args.engine or "duckdb"
    if baskets:
        columns = _basket_columns(args, entry)
    elif args.items is not None:
        raise ParameterError(
            f"--items: got {shorten(str(args.items))}; it goes with --format baskets"
        )
    else:
        columns = parse_columns(args.columns, args.bounds, args.grid)
    try:
        rng: RandomSource = default_source() if args.seed is None else SeededSource(args.seed)
    except FiniteDPError as error:  # SeededSource names "seed": the user typed --seed
        raise type(error)(_flagged(str(error), ["seed"])) from None
    check_out(args.out, args.input)
    to_stdout = args.out in (None, STDOUT)
    list_column = args.columns if baskets else None  # a Parquet file's list column of ids
    kind = "parquet" if list_column else input_format(args.input, columns[0].name, args.format)
    budget = getattr(args, entry.budget)
    if baskets and args.nulls is not None:
        raise ParameterError("--nulls: a basket has no missing values (its ids are its 1s)")
    names = [c.name for c in columns]
    policies = null_policies(args.nulls, names, keys=False, drops=entry.drops)
    dropped = [i for i, p in enumerate(policies) if p == DROP]
    if entry.drops is not None:
        options["dropped"] = ",".join(str(i) for i in dropped)
    clamp = bool(args.clamp)
    grids = [(c.lower, c.upper, c.step) for c in columns]
    if entry.check is not None:  # what the build would refuse after the read, refused now
        try:
            entry.check(grids, budget, options)
        except FiniteDPError as error:
            raise type(error)(_flagged(str(error), [*options, entry.budget])) from None
    with (
        Progress(not args.quiet, DELAY_SECONDS) as progress,
        opened_input(args.input, kind) as source,
    ):
        raw = source

        def check(i: int, v: str) -> object:
            return columns[i].index(v, "--nulls", clamp)

        source = fill_missing(source, names, policies, check, entry.drops)
        if not args.quiet:
            _announce(entry, source, "baskets" if baskets else entry.reads, engine)
        progress.phase(f"reading {source.name}")
        data: Any
        runs = find_engine(engine)  # the statistics are computed where the data is
        if baskets:
            n, data = runs.baskets(source, list_column, len(columns), progress)
        elif entry.reads == "rows":
            data = runs.rows(source, columns, progress, clamp)
            n = data.n
        else:
            data = runs.statistics(source, columns, progress, clamp)
            if entry.reads == "sums":
                data.column_sums()  # one scan: the sums and n
            if entry.drops == "zero" and dropped:  # and each dropped column's count present
                present = fill_missing(raw, names, policies, check, "skip")
                counter = runs.statistics(present, [columns[i] for i in dropped], progress, clamp)
                counts = [counter.column_counts(j).n for j in range(len(dropped))]
                data = _WithPresent(data, counts)
            n = data.n
        if n == 0:
            raise ParameterError(f"{source.name}: no rows; a release needs at least one (n >= 1)")
        progress.phase(f"building {entry.name} for n = {n}, d = {len(columns)}")
        try:
            built = entry.build(n, grids, budget, options)
            accuracy = built.accuracy(args.beta)
        except FiniteDPError as error:
            raise type(error)(_flagged(str(error), [*options, entry.budget])) from None
        progress.phase(f"releasing with {entry.name}")
        outcome = (
            cast(BasketMechanism, built).release_from_sets(data, rng)
            if baskets
            else built.release_from(data, rng)
        )
        document: dict[str, Any] = {
            "finitedp": __version__,
            "mechanism": entry.name,
            "paper": entry.paper,
            "parameters": {
                "n": json_int(n),
                entry.budget: rational(exact_fraction(budget, entry.budget)),
                "columns": [
                    {
                        "name": c.name,
                        "lower": rational(c.lower),
                        "upper": rational(c.upper),
                        "step": rational(c.step),
                        **({"nulls": p} if args.nulls is not None else {}),
                    }
                    for c, p in zip(columns, policies, strict=True)
                ],
                "clamp": clamp,
                **built.parameters(),
            },
            "privacy": built.guarantee.to_json_dict(),
            "neighbours": entry.neighbours,
            "accuracy": accuracy,
            "release": outcome.release,
            "estimates": _estimates(columns, outcome),
            "seeded": args.seed is not None,
            "engine": engine,
        }
        document["privacy"]["at_delta"] = {
            "delta": AT_DELTA,
            "epsilon": rational(built.epsilon_for(AT_DELTA)),
        }
        progress.phase("writing the release")
        payload = write_document(with_displays(document), None if to_stdout else args.out)
    total = built.guarantee
    at_delta = (Fraction(AT_DELTA), built.epsilon_for(AT_DELTA)) if total.rho is not None else None
    summary = f"n = {n:,} rows, d = {len(columns):,} columns; {entry.name}, " + total.summary(
        at_delta
    )
    return finish_release(args, payload, to_stdout, summary)


class _WithPresent:
    """A file's column statistics, with each dropped column's count of values present
    (``--nulls drop`` for sums: the counts a mean over the values present needs)."""

    def __init__(self, stats: Any, counts: list[int]) -> None:
        self._stats, self.present_counts = stats, counts

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stats, name)


def _estimates(columns: list[NumericColumn], outcome: ColumnOutcome) -> list[JSON]:
    """Each column's estimate, with its noise variance in the data's units and, where the
    noise carried it out of the public range its quantity lies in, the estimate moved
    into it (post-processing: labelled, the released value kept beside it)."""
    out: list[JSON] = []
    for i, (column, value) in enumerate(zip(columns, outcome.estimates, strict=True)):
        entry: JSON = {"column": column.name, "value": rational(value)}
        if outcome.noise_variances is not None:
            variance = outcome.noise_variances[i]
            entry["noise_variance"] = rational(variance)
            entry["noise_sd_display"] = sqrt_display(variance)
        if outcome.noise_within is not None:
            entry["noise_within"] = rational(outcome.noise_within[i])
        if outcome.ranges is not None:
            low, high = outcome.ranges[i]
            if not low <= value <= high:
                entry["value_in_range"] = rational(min(max(value, low), high))
        if outcome.extras is not None:
            entry.update(outcome.extras[i])
        out.append(entry)
    return out


def _flagged(message: str, names: list[str]) -> str:
    """``epsilon: ...`` -> ``--epsilon: ...``: the flag the user typed (the split's
    ``exponent`` comes from ``--p``)."""
    for name in names:
        if message.startswith(f"{name}: "):
            return f"--{name.replace('_', '-')}: " + message[len(name) + 2 :]
    for name, flags in (("step", "--bounds/--grid"), ("lower", "--bounds"), ("upper", "--bounds")):
        if message.startswith(f"{name}: "):  # a column's grid, from --bounds LO:HI --grid STEP
            return f"{flags}: " + message[len(name) + 2 :]
    if message.startswith("exponent: "):
        return "--p: " + message[len("exponent: ") :] + " (the split's exponent p/(p+1) or p/(p+2))"
    return message
