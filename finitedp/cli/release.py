"""``finitedp release``: a private histogram of one column of a file.

Reads one column of categorical values (CSV or Parquet through DuckDB, or one
value per line: :mod:`finitedp.io.columns`), numbers them into a declared
universe (:mod:`finitedp.io.universe`), runs a user-level mechanism from
:data:`finitedp.registry.MECHANISMS` and writes the release with its exact
privacy and accuracy statements (and the neighbour relation they are for) as
JSON.  Nothing is written on an input error.
"""

from __future__ import annotations

import argparse
from fractions import Fraction
from typing import Any

from .. import __version__
from ..engines import ENGINES
from ..engines import engine as find_engine
from ..entries import MechanismEntry, Option
from ..errors import FiniteDPError, ParameterError
from ..io.display import with_displays
from ..io.document import JsonStream, write_document
from ..io.files import STDOUT, check_out, input_format
from ..io.keyset import KeyUniverse
from ..io.missing import NULL_KEY, fill_missing, null_policies
from ..io.progress import DELAY_SECONDS, Progress
from ..io.releases import bin_entry
from ..io.tables import opened_input
from ..io.universe import parse_universe
from ..io.values import ValueColumn
from ..jsonvalues import json_int, rational
from ..oracle import RandomSource, SeededSource, default_source
from ..params import decimal_nearest, exact_fraction
from ..registry import (
    COLUMNS,
    DEFAULT_CHOICES,
    DENSE_DEFAULT_LIMIT,
    MECHANISMS,
    READERS,
    mechanism,
)
from .building import build_mechanism, name_the_flag
from .columns import COLUMN_ONLY, column_options, release_columns
from .output import finish_release
from .releasehelp import RELEASE_DESCRIPTION, RELEASE_EPILOG

__all__ = ["add_release"]


def _check_value_column(
    args: argparse.Namespace, entry: MechanismEntry | None
) -> ValueColumn | None:
    """``--value-column`` with its ``--value-bound`` (and ``--value-step``), checked early.

    Raises:
        ParameterError: a bound or step without a column, a column without a bound,
            or a mechanism that takes keys only.
    """
    if args.value_column is None:
        for flag, value in (("--value-bound", args.value_bound), ("--value-step", args.value_step)):
            if value is not None:
                raise ParameterError(f"{flag}: got {value}; it goes with --value-column")
        return None
    if entry is None or not entry.weighted:
        takers = ", ".join(name for name, e in MECHANISMS.items() if e.weighted)
        raise ParameterError(
            f"--value-column: only {takers} takes values; choose it with --mechanism"
        )
    if args.value_bound is None:
        raise ParameterError(
            "--value-bound: --value-column needs the public bound B on every value"
        )
    if args.value_column == args.column:
        raise ParameterError(
            f"--value-column: got {args.value_column!r}, the key column (--column); the "
            f"values must be another column"
        )
    try:
        return ValueColumn.parse(args.value_bound, args.value_step)
    except FiniteDPError as error:
        raise name_the_flag(error) from None


def _value_neighbours(values: ValueColumn) -> str:
    return (
        f"one row of the n replaced (n public); each row adds a value in [0, {values.bound}] "
        f"to its key, so vectors at l1 distance at most {2 * values.bound}"
    )


def _value_json(args: argparse.Namespace, values: ValueColumn | None) -> dict[str, Any]:
    if values is None:
        return {}
    return {
        "value_column": args.value_column,
        "value_bound": rational(values.bound),
        "value_step": rational(values.step),
    }


def _release_options() -> dict[str, Option]:
    """Every mechanism's own release options, by name (a flag is added once)."""
    return {o.name: o for entry in MECHANISMS.values() for o in entry.release_options}


def _check_release_options(args: argparse.Namespace) -> MechanismEntry | None:
    """Check everything that does not depend on the data, before the input is read.

    Returns:
        The entry of ``--mechanism``, or ``None`` for the default.

    Raises:
        ParameterError: an unknown mechanism, one of its required options missing,
            an option it does not take, or a parameter that is not an exact number.
    """
    entry = None if args.mechanism is None else mechanism(args.mechanism)
    if entry is not None:
        own = {o.name: o for o in entry.release_options}
    else:  # the default is chosen once n is known: the options every choice takes
        choices = [{o.name: o for o in MECHANISMS[c].release_options} for c in DEFAULT_CHOICES]
        own = {k: o for k, o in choices[0].items() if all(k in c for c in choices[1:])}
    # The form only (the mechanism checks the range once n is known), so that a typo
    # fails before a large file is read.
    exact_fraction(args.epsilon, "epsilon")
    exact_fraction(args.beta, "beta")
    for option in _release_options().values():
        value = getattr(args, option.name)
        mine = own.get(option.name)  # the mechanism's own option: its help, whether required
        if value is None and mine is not None and mine.required and entry is not None:
            raise ParameterError(f"{option.flag}: {args.mechanism} needs it ({mine.help})")
        if value is not None and mine is None:
            users = [
                e.name
                for e in MECHANISMS.values()
                if option.name in {o.name for o in e.release_options}
            ]
            takes = "takes" if len(users) == 1 else "take"
            raise ParameterError(
                f"{option.flag}: got {value}; only {', '.join(users)} {takes} it, not "
                + (args.mechanism or f"the default mechanism ({', '.join(DEFAULT_CHOICES)})")
            )
        if value is not None and option.kind == "exact":
            exact_fraction(value, option.name)
    return entry


def _option_json(option: Option, value: object) -> object:
    """A mechanism option as the document records it: exact text, a flag's bool, or null."""
    if option.kind == "flag":
        return bool(value)
    if option.kind == "choice":
        return option.choices[0] if value is None else value
    return None if value is None else rational(exact_fraction(value, option.name))


def _count_json(count: int | Fraction) -> int | str:
    """A released count beside its label: an int, or (a scaled sketch) an exact string."""
    if isinstance(count, int):
        return json_int(count)
    return json_int(count.numerator) if count.denominator == 1 else rational(count)


def _show_size(size: int) -> str:
    """``|X|`` for the summary line: in full up to 30 digits, else ``≈ 3.42e+38`` and
    its bit length (the JSON has it in full)."""
    if size < 10**30:
        return f"= {size:,}"
    return f"≈ {decimal_nearest(size, 3)} (a {size.bit_length()}-bit number)"


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
    if args.mechanism in COLUMNS:
        for option in _release_options().values():  # the histogram mechanisms' own options
            if getattr(args, option.name) is not None:
                raise ParameterError(
                    f"{option.flag}: got {getattr(args, option.name)}; {args.mechanism} does "
                    f"not take it"
                )
        return release_columns(args, COLUMNS[args.mechanism])
    takers = {
        o.name: [e.name for e in COLUMNS.values() if o in e.options]
        for o in column_options().values()
    }
    for name in (*COLUMN_ONLY, *takers):
        if getattr(args, name) is not None:
            users = takers.get(name, list(COLUMNS))
            raise ParameterError(
                f"--{name}: only {', '.join(users)} take it (numeric columns); choose one "
                f"with --mechanism"
            )
    if args.format == "baskets":
        readers = ", ".join(e.name for e in COLUMNS.values() if e.baskets)
        raise ParameterError(
            f"--format baskets: a histogram reads one column of keys; basket files are read by "
            f"{readers} (--mechanism)"
        )
    for name, what in (
        ("universe", "int:M, int:A..B, utf8:L or keys:PATH"),
        ("epsilon", "the budget, e.g. 1/2"),
    ):
        if getattr(args, name) is None:
            raise ParameterError(f"--{name}: required for a histogram ({what})")
    universe = parse_universe(args.universe, other=bool(args.other))
    policies = null_policies(args.nulls, [str(args.column)], keys=True)
    if policies[0] == NULL_KEY and isinstance(universe, KeyUniverse):
        universe = universe.with_key(NULL_KEY)  # (null) is one more declared key
    entry = _check_release_options(args)
    values = _check_value_column(args, entry)
    try:
        rng: RandomSource = default_source() if args.seed is None else SeededSource(args.seed)
    except FiniteDPError as error:  # SeededSource names "seed": the user typed --seed
        raise type(error)(f"--{error}" if str(error).startswith("seed: ") else str(error)) from None
    check_out(args.out, args.input)
    to_stdout = args.out in (None, STDOUT)
    kind = input_format(args.input, args.column, args.format)
    stream = entry is not None and not entry.public_n  # the rows, in order, are a stream
    engine = args.engine or "duckdb"
    with (
        Progress(not args.quiet, DELAY_SECONDS) as progress,
        opened_input(args.input, kind) as source,
    ):
        source = fill_missing(source, [args.column], policies, lambda _, v: universe.encode(v))
        progress.phase(f"reading {source.name}")
        columns = (args.column, args.value_column)
        # the engine reads the key column where the data lies; the noise is drawn here
        n, data = find_engine(engine).keys(source, columns, universe, values, stream, progress)
        if n == 0:
            raise ParameterError(f"{source.name}: no rows; a release needs at least one (n >= 1)")
        size = universe.size
        entry, built = build_mechanism(args, entry, n, size, values, progress)
        chosen = entry.name
        own = {o.name: o for o in entry.release_options}
        options = {key: getattr(args, key) for key in own}
        progress.phase(f"releasing with {chosen}")
        release = built.release(data, rng=rng)
        privacy, accuracy = built.privacy, built.accuracy(args.beta)
        document: dict[str, Any] = {
            "finitedp": __version__,
            "mechanism": chosen,
            "parameters": {
                **({"n": json_int(n)} if entry.public_n else {}),
                "epsilon": rational(privacy.epsilon),
                **{key: _option_json(own[key], value) for key, value in options.items()},
                **_value_json(args, values),
                "beta": rational(accuracy.beta),
                "counter": args.counter,
                **({"nulls": policies[0]} if args.nulls is not None else {}),
            },
            "universe": universe.spec,
            **({"keys": universe.keys} if isinstance(universe, KeyUniverse) else {}),
            "universe_size": json_int(size),
            "privacy": privacy.to_json_dict(),
            "neighbours": entry.neighbours if values is None else _value_neighbours(values),
            "accuracy": accuracy.to_json_dict(),
            "release": release.to_json_dict(),
        }
        if READERS[entry.release_type].lists_bins:  # up to n bins: written, never held
            bins = release.bins
            document["release"]["bins"] = JsonStream(release.json_bins)
            document["bins"] = JsonStream(lambda: (bin_entry(universe, x, c) for x, c in bins))
        elif hasattr(release, "heavy"):  # a sketch's keys are universe numbers: label them
            document["bins"] = [
                bin_entry(universe, x, _count_json(release[x])) for x, _ in release.heavy
            ]
        document["seeded"] = args.seed is not None
        document["engine"] = engine
        progress.phase("writing the release")
        payload = write_document(with_displays(document), None if to_stdout else args.out)
    summary = (
        f"n = {n:,} rows; universe {universe.spec} with |X| {_show_size(size)} values; "
        f"{chosen}, {privacy.summary()}{_sketch_words(release, accuracy.simultaneous)}"
        f"{_noise_words(release, accuracy)}"
    )
    return finish_release(args, payload, to_stdout, summary)


def _sketch_words(release: Any, bound: int | None) -> str:
    """For a sketch that lists fewer keys than its ``k`` counters: why, and what it misses."""
    heavy, parameters = getattr(release, "heavy", None), dict(getattr(release, "parameters", ()))
    if heavy is None or "k" not in parameters or len(heavy) >= int(parameters["k"]):
        return ""
    k = int(parameters["k"])
    tau = f" tau = {parameters['tau']}" if "tau" in parameters else ""
    unseen = "" if bound is None else f"; a key it does not list counts at most {bound} + n/{k + 1}"
    return (
        f"\n{len(heavy)} of k = {k} keys listed: the other counters' noisy values were below the "
        f"threshold{tau} (the sketch undercounts every key by up to n/{k + 1}){unseen}; a larger "
        "--k or epsilon sees more"
    )


def _noise_words(release: Any, accuracy: Any) -> str:
    """For a top-``k`` release over a universe: how many listed keys lie within the noise
    of an absent key (each may not be in the data at all)."""
    heavy, floor = getattr(release, "heavy", None), getattr(accuracy, "noise_floor", None)
    if floor is None or not heavy:
        return ""
    faint = sum(1 for x, _ in heavy if release.estimate(x) <= floor)
    if not faint:
        return ""
    return (
        f"\n{faint} of the {len(heavy)} keys listed have estimates at most {floor:,}, within the "
        "noise of a key absent from the data: each may be noise (the top k over every key of "
        "the universe fills up with the largest noise when fewer than k keys stand out); "
        f"the {len(heavy) - faint} above it are in the data with probability >= "
        f"{decimal_nearest(1 - accuracy.beta, 4)}"
    )


def _mechanism_lines() -> str:
    """One help line per entry of :data:`MECHANISMS` and :data:`COLUMNS`."""
    summaries = [(n, e.summary) for n, e in MECHANISMS.items()]
    summaries += [(n, e.summary) for n, e in COLUMNS.items()]
    return "\n".join(f"  {name:<18} {summary}" for name, summary in summaries)


def add_release(commands: Any) -> None:
    release = commands.add_parser(
        "release",
        help="release a differentially private histogram of a column of values",
        description=RELEASE_DESCRIPTION,
        epilog=RELEASE_EPILOG.format(mechanisms=_mechanism_lines(), dense=DENSE_DEFAULT_LIMIT),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    release.add_argument(
        "input", metavar="FILE", help="a CSV, Parquet or text file (or baskets); - for stdin"
    )
    release.add_argument("--column", help="the CSV column to release (by header name)")
    release.add_argument(
        "--value-column",
        metavar="NAME",
        help="a CSV column of non-negative amounts, summed per key ("
        + ", ".join(name for name, e in MECHANISMS.items() if e.weighted)
        + " only): needs --value-bound",
    )
    release.add_argument(
        "--value-bound", metavar="B", help="the public bound on every amount (with --value-column)"
    )
    release.add_argument(
        "--value-step",
        metavar="1/Q",
        help="the public grid of the amounts, 1 (the default) or 1/q (with --value-column)",
    )
    release.add_argument(
        "--format",
        choices=["auto", "csv", "parquet", "text", "baskets"],
        default="auto",
        help="input format (baskets: one row per line, its 1s as item ids, or a Parquet "
        "file's list column of ids named by --columns; with --items, for plan-mean)",
    )
    release.add_argument(
        "--universe",
        metavar="SPEC",
        help="int:M, int:A..B, utf8:L, keys:PATH or keys=A,B,C (see above; histograms only)",
    )
    release.add_argument(
        "--other",
        action="store_true",
        default=None,
        help="with a key list: one more bin, (other), counts every value outside it",
    )
    release.add_argument(
        "--mechanism",
        metavar="NAME",
        help=f"one of {', '.join([*MECHANISMS, *COLUMNS])} (default: see below)",
    )
    release.add_argument(
        "--epsilon",
        help="privacy budget: 1/k for a histogram, any positive rational for a column "
        "mechanism that takes it",
    )
    sums = ", ".join(COLUMNS)
    release.add_argument(
        "--columns", metavar="A,B", help=f"{sums}: the numeric columns (CSV or Parquet)"
    )
    release.add_argument(
        "--bounds",
        metavar="LO:HI[,...]",
        help=f"{sums}: each column's public interval (one for all, or one per column)",
    )
    release.add_argument(
        "--grid", metavar="STEP[,...]", help=f"{sums}: each column's grid step (default 1)"
    )
    release.add_argument(
        "--items",
        metavar="D",
        help="--format baskets: the public number of items (ids 0 to D - 1), the dimension",
    )
    release.add_argument(
        "--rho",
        help="the zCDP budget of the column mechanisms that take it (vector-gaussian, "
        "plan-mean), e.g. 1/2",
    )
    release.add_argument(
        "--engine",
        choices=list(ENGINES),
        help="where counts and statistics are computed (default duckdb, in this process; "
        "spark: the session of pyspark's SparkSession.builder, reading the file with "
        "spark.read; the same release either way, the noise drawn here)",
    )
    release.add_argument(
        "--clamp",
        action="store_const",
        const=True,
        help=f"{sums}: move values beyond --bounds to the nearer bound instead of refusing "
        "them (stated in the output; values off the grid are still refused)",
    )
    for option in column_options().values():
        users = ", ".join(e.name for e in COLUMNS.values() if option in e.options)
        release.add_argument(
            option.flag, metavar=option.metavar, help=f"{users} only: {option.help}"
        )
    for option in _release_options().values():
        users = ", ".join(
            e.name
            for e in MECHANISMS.values()
            if option.name in {o.name for o in e.release_options}
        )
        if option.kind == "flag":  # a switch: absent is None, so other mechanisms refuse it
            release.add_argument(
                option.flag, action="store_const", const=True, help=f"{users} only: {option.help}"
            )
        elif option.kind == "choice":
            release.add_argument(
                option.flag, choices=option.choices, help=f"{users} only: {option.help}"
            )
        else:
            release.add_argument(option.flag, help=f"{users} only: {option.help}")
    release.add_argument(
        "--beta", default="1/10", help="failure probability 1/k of the accuracy statement"
    )
    release.add_argument(
        "--counter",
        choices=["fast", "geo"],
        default="fast",
        help="counting sampler: FastSample (the theorems' choice) or GeoSample",
    )
    release.add_argument(
        "--out",
        metavar="PATH",
        help="write the JSON here (atomically; - or no --out: stdout; a FIFO or device is "
        "written through, a symlink's target is replaced)",
    )
    release.add_argument(
        "--nulls",
        metavar="POLICY",
        help="missing values (a Parquet NULL, an empty CSV field): refuse (the default), "
        "VALUE (read in their place; for --columns one for all or one per column), key "
        "(a key column: counted as the key (null)), or drop (sums and quantiles: left out)",
    )
    release.add_argument(
        "--seed", metavar="HEX", help="deterministic noise from this seed: NOT private, tests only"
    )
    release.add_argument(
        "--quiet", action="store_true", help="no progress display and no summary on stderr"
    )
    release.set_defaults(run=_release)
