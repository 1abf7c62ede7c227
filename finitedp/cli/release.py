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
from ..entries import MechanismEntry, Option
from ..errors import FiniteDPError, ParameterError
from ..io.display import with_displays
from ..io.document import JsonStream, write_document
from ..io.files import STDOUT, check_out, input_format
from ..io.keyset import KeyUniverse
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
from .keys import read_keys
from .output import finish_release

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
    universe = parse_universe(args.universe, other=args.other)
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
        progress.phase(f"reading {source.name}")
        columns = (args.column, args.value_column)
        n, data = read_keys(engine, source, columns, universe, values, stream, progress)
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
        f"{chosen}, {privacy.summary()}"
    )
    return finish_release(args, payload, to_stdout, summary)


_RELEASE_DESCRIPTION = """\
Release a differentially private histogram of one column of categorical values,
or (vector-laplace, vector-gaussian) the sum of several numeric columns.

Input: a CSV file (UTF-8, header row, --column NAME), a Parquet file (--column NAME)
or a plain text file with one value per line; - reads standard input. Parquet is
assumed for a name ending in .parquet, CSV for --column or a name ending in .csv
(override with --format). CSV and Parquet files are counted by DuckDB, in-process, so
memory follows the number of distinct values, not of rows (README, "Large data").
Values are taken verbatim (no trimming); blank CSV lines are skipped; in a text file
every line is a value (a final newline ends the last one). n, the number of rows, is
public for the histogram mechanisms: it is printed and stored in the output.

Universe (declared, never inferred from the data):
  int:M      the integers 1..M, written in plain decimal ("7", not "07" or " 7")
  int:A..B   the integers A..B, e.g. int:0..59 (minutes) or int:-10..10
  utf8:L     every UTF-8 string of at most L bytes; a string of k bytes b is numbered
             1 + (256^k - 1)/255 + int(b, big-endian), so |X| = (256^(L+1) - 1)/255
             (SPEC.md, "Universe encodings")
  keys:PATH  a public list of keys, one per line of a UTF-8 file (keys=A,B,C inline);
             the release lists exactly these keys; --other adds one bin, (other), for
             every value outside the list
A value outside the universe is an error naming its line, and nothing is written.

Numbers are exact: write --epsilon 1/2 (or 0.5, read as exactly 1/2). epsilon, delta
and beta must be 1/k for an integer k (BV's N^-1).
"""

_RELEASE_EPILOG = """\
mechanisms:
{mechanisms}

defaults: without --mechanism, finitedp tries in order bounded-geometric (only if
  |X| <= {dense} or |X| <= 2n), compact, blanket and pure-sparse, and uses the first
  whose memory and time estimates fit the limits (FINITEDP_MAX_MEMORY, 4 GiB, and
  FINITEDP_MAX_SECONDS, 10 minutes) and that applies (blanket needs n above its
  threshold; blanket and pure-sparse need |X| > 2n); stderr says which was chosen and
  why each earlier one was not. In practice: bounded-geometric for small universes,
  compact up to about 10^5 rows, blanket from about 10^5 to 10^7 rows. All are pure
  (eps, 0)-DP; bounded-geometric and compact answer every value within the per-query
  error with no threshold; blanket and pure-sparse list at most n bins and only
  report counts above a threshold that grows with ln|X| (blanket's is about half of
  pure-sparse's). --beta defaults to 1/10: it is the mechanism's beta0 (pure-sparse
  and blanket: beta) and the failure probability of the accuracy statement. --delta
  is required by stability and refused by the others.

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

mechanisms over numeric columns (--columns; thesis chapters 4 and 5):
  finitedp release FILE --mechanism vector-gaussian --columns a,b --bounds=-1:1,0:100
    --grid 1/100,1 --rho 1/2 [--p 2]
  finitedp release FILE --mechanism quantile-exponential --columns a --bounds=-1:1
    --grid 1/100 --epsilon 1 [--quantile 1/2]
  (write --bounds=LO:HI when LO is negative). n rows (public), neighbours replace
  one row; each column on its public grid lower + k*step in [lower, upper], values
  read exactly as text (never as floats). Sums split the budget by sensitivity
  (optimal for E||error||_p^p) and state the exact expected error of the noise
  sampled; quantiles give each column eps/d and state each rank error at --beta.
  The output has "estimates": [{{"column", "value"}}]. --universe and --column are
  for histograms only.

exit status: 0 on success, 2 on an input error (nothing is written).
"""


def _mechanism_lines() -> str:
    """One help line per entry of :data:`MECHANISMS` and :data:`COLUMNS`."""
    summaries = [(n, e.summary) for n, e in MECHANISMS.items()]
    summaries += [(n, e.summary) for n, e in COLUMNS.items()]
    return "\n".join(f"  {name:<18} {summary}" for name, summary in summaries)


def add_release(commands: Any) -> None:
    release = commands.add_parser(
        "release",
        help="release a differentially private histogram of a column of values",
        description=_RELEASE_DESCRIPTION,
        epilog=_RELEASE_EPILOG.format(mechanisms=_mechanism_lines(), dense=DENSE_DEFAULT_LIMIT),
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
        default=False,
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
        choices=["duckdb", "spark"],
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
        "--seed", metavar="HEX", help="deterministic noise from this seed: NOT private, tests only"
    )
    release.add_argument(
        "--quiet", action="store_true", help="no progress display and no summary on stderr"
    )
    release.set_defaults(run=_release)
