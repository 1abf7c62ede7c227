"""``finitedp release --mechanism NAME --columns ...``: a private sum of numeric columns.

Reads the declared columns of a CSV or Parquet file exactly (:mod:`finitedp.io.numeric`),
sums them in grid units, runs a sum entry of :data:`finitedp.registry.SUMS` and
writes the release with its guarantee (composed by the accountant), the
neighbour relation, and the exact expected error of the noise actually sampled.
Nothing is written on an input error.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from .. import __version__
from ..entries import SumEntry
from ..errors import FiniteDPError, ParameterError
from ..io.files import STDOUT, check_out, input_format, write_atomically
from ..io.numeric import parse_columns, read_column_sums
from ..io.progress import DELAY_SECONDS, Progress
from ..io.tables import opened_input
from ..jsonvalues import json_int, rational
from ..oracle import RandomSource, SeededSource, default_source
from ..params import exact_fraction
from .output import finish_release

__all__ = ["AT_DELTA", "HISTOGRAM_ONLY", "SUM_ONLY", "release_columns"]

#: The document also states the epsilon the accountant certifies at this delta.
AT_DELTA = "1/1000000"

#: Flags only the sum mechanisms take, and flags only the histogram mechanisms take.
SUM_ONLY = ("columns", "bounds", "grid", "rho", "p", "clamp")
HISTOGRAM_ONLY = ("column", "universe", "value_column", "value_bound", "value_step")


def _check(args: argparse.Namespace, entry: SumEntry) -> None:
    """Everything that does not depend on the data, before the input is read."""
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
    if args.p is not None:
        p = exact_fraction(args.p, "--p")
        if p.denominator != 1 or p < 1:
            raise ParameterError(f"--p: got {args.p}; use a positive integer (1 or 2 usually)")


def release_columns(args: argparse.Namespace, entry: SumEntry) -> int:
    """Read, sum, release and write the JSON document of a sum mechanism.

    Raises:
        FiniteDPError: any input error; the message names the flag, file, line and column.
    """
    _check(args, entry)
    columns = parse_columns(args.columns, args.bounds, args.grid)
    rng: RandomSource = default_source() if args.seed is None else SeededSource(args.seed)
    check_out(args.out, args.input)
    to_stdout = args.out in (None, STDOUT)
    kind = input_format(args.input, columns[0].name, args.format)
    budget = getattr(args, entry.budget)
    with (
        Progress(not args.quiet, DELAY_SECONDS) as progress,
        opened_input(args.input, kind) as source,
    ):
        progress.phase(f"reading {source.name}")
        clamp = bool(args.clamp)
        n, sums = read_column_sums(source, columns, progress, clamp)
        if n == 0:
            raise ParameterError(f"{source.name}: no rows; a release needs at least one (n >= 1)")
        progress.phase(f"building {entry.name} for n = {n}, d = {len(columns)}")
        grids = [(c.lower, c.upper, c.step) for c in columns]
        try:
            built = entry.build(n, grids, budget, None if args.p is None else str(int(args.p)))
        except FiniteDPError as error:
            raise type(error)(_flagged(str(error))) from None
        progress.phase(f"releasing with {entry.name}")
        release = built.release_sums(sums, rng)
        ideal, moment = built.ideal_moment(), built.moment()
        guarantee = built.guarantee
        document: dict[str, Any] = {
            "finitedp": __version__,
            "mechanism": entry.name,
            "paper": entry.paper,
            "parameters": {
                "n": json_int(n),
                entry.budget: rational(exact_fraction(budget, entry.budget)),
                "p": json_int(built.split.p),
                "columns": [
                    {
                        "name": c.name,
                        "lower": rational(c.lower),
                        "upper": rational(c.upper),
                        "step": rational(c.step),
                    }
                    for c in columns
                ],
                "clamp": clamp,
                "shares": [rational(b) for b in built.split.b],
                "split_factor": rational(built.split.factor),
            },
            "privacy": guarantee.to_json_dict(),
            "neighbours": entry.neighbours,
            "accuracy": {
                "p": json_int(built.split.p),
                "moment": rational(moment),
                "moment_display": f"{float(moment):.6g}",
                "ideal_moment": None if ideal is None else rational(ideal),
                "statement": "E ||estimate - sum||_p^p of the noise actually sampled (exact), "
                "beside the thesis' Lemma 4.7 / 4.10 for the same shares",
            },
            "release": release.to_json_dict(),
            "estimates": [
                {"column": c.name, "value": rational(e)}
                for c, e in zip(columns, release.estimates, strict=True)
            ],
            "seeded": args.seed is not None,
        }
        document["privacy"]["at_delta"] = {
            "delta": AT_DELTA,
            "epsilon": rational(built.epsilon_for(AT_DELTA)),
        }
        progress.phase("writing the release")
        payload = (json.dumps(document, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
        if not to_stdout:
            write_atomically(args.out, payload)
    summary = f"n = {n} rows, d = {len(columns)} columns; {entry.name}"
    return finish_release(args, payload, to_stdout, summary)


def _flagged(message: str) -> str:
    """``epsilon: ...`` -> ``--epsilon: ...``: the flag the user typed (the split's
    ``exponent`` comes from ``--p``)."""
    for name, flag in (("epsilon", "--epsilon"), ("rho", "--rho"), ("p", "--p")):
        if message.startswith(f"{name}: "):
            return f"{flag}: " + message[len(name) + 2 :]
    if message.startswith("exponent: "):
        return "--p: " + message[len("exponent: ") :] + " (the split's exponent p/(p+1) or p/(p+2))"
    return message
