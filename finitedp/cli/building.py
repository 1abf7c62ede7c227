"""Building the mechanism of ``finitedp release``: the one named, or the default.

Without ``--mechanism`` the default is the first of
:func:`finitedp.registry.default_mechanisms` whose memory and time estimates
(:mod:`finitedp.resources`) fit the limits: each candidate's constructor
estimates before any large work, so a refused candidate costs nothing.  Which
one was chosen, and why, is said on stderr; when none fits, the message gives
every candidate's estimate and what would work instead.
"""

from __future__ import annotations

import argparse
import re
from fractions import Fraction
from typing import Any

from ..entries import MechanismEntry, Option, ReleaseParameters
from ..errors import FiniteDPError, NotApplicableError, ResourceLimitError
from ..io.files import say
from ..io.progress import Progress
from ..io.values import ValueColumn
from ..params import short_int
from ..registry import MECHANISMS, READERS, default_mechanisms, default_reason
from ..resources import describe_seconds, recorded_estimates, require_memory, require_time

__all__ = ["build_mechanism", "name_the_flag"]

# Parameter names in the library's messages, and the flag the user typed for each.
_FLAG_OF = {
    "beta0": "--beta",
    "beta": "--beta",
    "universe_size": "--universe",
    "epsilon": "--epsilon",
    "delta": "--delta",
    "counter": "--counter",
    "value_bound": "--value-bound",
    "value_step": "--value-step",
}
_NAMED_MESSAGE = re.compile(r"(\w+): ")

#: What works when no pure-DP default fits: approximate DP over the distinct values.
_APPROXIMATE = (
    "with approximate DP, --mechanism stability --delta 1/1000000 (noise on the distinct "
    "values only) or --mechanism pmg --k 1000 --delta 1/1000000 (a sketch of k counters)"
)


def name_the_flag(error: FiniteDPError) -> FiniteDPError:
    """Name the flag a mechanism's error came from, in place of the parameter's name.

    ``beta0: got 2; ...`` becomes ``--beta: got 2; ... (the mechanism's beta0)``:
    one name per message, the one the user typed.
    """
    message = str(error)
    match = _NAMED_MESSAGE.match(message)
    flags = {
        **{o.name: o.flag for entry in MECHANISMS.values() for o in entry.release_options},
        **_FLAG_OF,
    }
    if not match or match.group(1) not in flags:
        return error
    name, flag = match.group(1), flags[match.group(1)]
    rest = message[match.end() :]
    note = "" if flag == f"--{name.replace('_', '-')}" else f" (the mechanism's {name})"
    return type(error)(f"{flag}: {rest}{note}")


#: Peak bytes per listed bin of a release and its document: the input's counts and
#: the release's bins (the document itself is streamed, :mod:`finitedp.io.document`).
#: Measured with bounded-geometric, the interpreter included: 376 MB at 10^6 bins,
#: 1,051 MB at 3 x 10^6 (337 bytes a bin); it was 700 while the text was held whole.
RELEASE_BYTES_PER_BIN = 400

#: Nanoseconds per listed bin: its noise sample (a Python call, whatever the integers'
#: size) and its line of the document.  7.9 us measured with bounded-geometric at 10^7
#: bins (79 s, a 378 MB document); the samplers' own estimates cover large integers.
RELEASE_NS_PER_BIN = 8_000


def _require_document(entry: MechanismEntry, n: int, size: int) -> None:
    """Refuse, before the work, a release whose document would not fit in memory."""
    if READERS[entry.release_type].lists_bins:
        bins = size if entry.dense else min(n, size)
        shown = f"{bins:,}" if bins < 10**30 else short_int(bins)  # never 40 digits
        cause = f"{entry.name} over |X| = {shown}" if entry.dense else f"{entry.name}, n = {n:,}"
        require_memory(bins * RELEASE_BYTES_PER_BIN, f"the release of {shown} bins", cause)
        require_time(
            Fraction(bins * RELEASE_NS_PER_BIN, 10**9),
            f"the release of {shown} bins (a noisy count and a line each)",
            cause,
            "use a smaller universe, or a sparse mechanism (--mechanism blanket or pure-sparse)",
        )


def _chosen(option: Option, value: str | None) -> str | None:
    """A choice left out is its first (``--noise``: tight), as the document records it."""
    return option.choices[0] if value is None and option.kind == "choice" else value


def parameters_for(
    args: argparse.Namespace, entry: MechanismEntry, values: ValueColumn | None
) -> ReleaseParameters:
    """The command line's parameters as ``entry`` takes them."""
    options = {o.name: _chosen(o, getattr(args, o.name)) for o in entry.release_options}
    return ReleaseParameters(
        args.epsilon,
        args.beta,
        args.counter,
        options,
        value_bound=None if values is None else values.bound,
        value_step=Fraction(1) if values is None else values.step,
    )


#: A build whose noise is estimated at least this long says so first (seconds).
ANNOUNCE_SECONDS = 10


def build_mechanism(
    args: argparse.Namespace,
    entry: MechanismEntry | None,
    n: int,
    size: int,
    values: ValueColumn | None,
    progress: Progress,
) -> tuple[MechanismEntry, Any]:
    """The entry used and the built mechanism: ``entry``, or the first default that fits.

    Raises:
        FiniteDPError: the named mechanism's refusal (naming the flag), or, for the
            default, a :class:`ResourceLimitError` with every candidate's refusal.
    """
    names = (entry.name,) if entry is not None else default_mechanisms(n, size)
    refused: list[str] = []
    for name in names:
        candidate = MECHANISMS[name]
        progress.phase(f"building {name} for n = {n}")
        try:
            _require_document(candidate, n, size)
            with recorded_estimates() as estimates:
                built = candidate.build(n, size, parameters_for(args, candidate, values))
        except (ResourceLimitError, NotApplicableError) as error:
            if entry is not None:
                raise name_the_flag(error) from None
            refused.append(f"{name}: {error}")
            continue
        except FiniteDPError as error:
            raise name_the_flag(error) from None
        if entry is None and not args.quiet:
            first = f"; {'; '.join(refused)}" if refused else ""
            say(f"finitedp release: default mechanism {name} ({default_reason(n, size)}{first})")
        seconds = sum(estimates, Fraction(0))
        if seconds >= ANNOUNCE_SECONDS and not args.quiet:
            say(
                f"finitedp release: {name}'s noise takes about {describe_seconds(seconds)} "
                "(estimated from public parameters; a guess, not a promise)"
            )
        return candidate, built
    raise ResourceLimitError(
        f"no pure-DP default fits the limits for n = {n:,}: {'; '.join(refused)}. "
        f"What works: {_APPROXIMATE}"
    )
