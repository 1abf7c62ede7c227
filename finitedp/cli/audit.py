"""``finitedp audit``: exact audits of samplers and mechanisms, and foreign samplers.

The targets come from the registry: the counting samplers of
:data:`finitedp.registry.COUNTERS` and every mechanism of
:data:`finitedp.registry.MECHANISMS` with an ``audit`` entry, each with its own
options and known sizes.
"""

from __future__ import annotations

import argparse
import os
import sys
import textwrap
from fractions import Fraction
from typing import Any

from ..audit import (
    DEFAULT_MAX_COUNTING_PATHS,
    DEFAULT_MAX_PATHS,
    audit_counting_sampler,
    audit_histogram_mechanism,
    compare,
    load_callable,
)
from ..counting.base import CountingSampler
from ..counting.geometric import GeometricMechanism
from ..entries import AuditTarget
from ..errors import FiniteDPError, ParameterError
from ..io.arguments import count, natural
from ..io.files import say, show
from ..io.progress import DELAY_SECONDS, Progress
from ..params import exact_fraction
from ..registry import COUNTERS, MECHANISMS

__all__ = ["add_audit"]

#: Above this n the exact tables get long; the audit still runs.
_LARGE_AUDIT = 64


def _build_sampler(args: argparse.Namespace) -> CountingSampler:
    """The sampler of ``finitedp audit geo|fast``.

    Raises:
        ParameterError: ``--gamma`` missing for ``fast`` or given for ``geo``, or a
            parameter out of range (an input error: exit status 2).
    """
    entry = COUNTERS[args.sampler]
    if entry.takes_gamma and args.gamma is None:
        raise ParameterError(f"--gamma: the {entry.name} sampler needs it, e.g. --gamma 1/8")
    if not entry.takes_gamma and args.gamma is not None:
        raise ParameterError(f"--gamma: does not apply to the {entry.name} sampler")
    if args.slack is not None and args.noise != "tight":
        raise ParameterError(
            f"--slack: got {args.slack}; only tight noise has a slack (add --noise tight)"
        )
    return entry.build(args.n, args.epsilon, args.gamma, args.noise, args.slack)


def _audit(args: argparse.Namespace) -> int:
    sampler = _build_sampler(args)
    if sampler.n > _LARGE_AUDIT and not args.quiet:
        say(f"finitedp audit: exploring {sampler.n + 1} counts exactly...")
    report = audit_counting_sampler(sampler, args.beta, max_paths=args.max_paths)
    show(report.render(distributions=not args.no_distributions))
    return 0 if report.ok else 1


def _audit_histogram(args: argparse.Namespace) -> int:
    """``finitedp audit bounded-geometric|stability|pure-sparse|compact``.

    Returns:
        0 if every claim holds, 1 otherwise.

    Raises:
        FiniteDPError: a parameter error, or an instance too large to enumerate
            (the message gives the estimate and the sizes known to work).
    """
    for option in args.audit_target.options:  # before any work, as release does
        if option.required and getattr(args, option.name) is None:
            raise ParameterError(f"{option.flag}: the {args.target} audit needs it ({option.help})")
    with Progress(not args.quiet, DELAY_SECONDS) as progress:
        report = audit_histogram_mechanism(
            args.target,
            args.n,
            args.universe_size,
            args.epsilon,
            beta=args.beta,
            counter=args.counter,
            ordered=args.ordered,
            max_paths=args.max_paths,
            progress=progress,
            **{option.name: getattr(args, option.name) for option in args.audit_target.options},
        )
    show(report.render(distributions=args.distributions))
    return 0 if report.ok else 1


def _reference(args: argparse.Namespace) -> tuple[dict[int, Fraction], str]:
    """The exact reference PMF of ``finitedp audit compare`` and its description.

    Raises:
        ParameterError: a missing or inapplicable option, or a parameter out of range.
    """
    kind = args.reference
    needs = (
        ("ratio",)
        if kind == "geometric"
        else ("epsilon", "gamma")
        if COUNTERS[kind].takes_gamma
        else ("epsilon",)
    )
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
    sampler = COUNTERS[kind].build(args.n, args.epsilon, args.gamma, "paper", None)
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
    with Progress(not args.quiet, DELAY_SECONDS) as progress:
        try:
            report = compare(
                sampler,
                reference,
                args.samples,
                confidence=exact_fraction(args.confidence, "confidence"),
                description=f"{args.sampler} against {described}",
                progress=progress,
            )
        except FiniteDPError as error:
            text = str(error)
            for name in ("samples", "confidence"):  # the flag the user typed
                if text.startswith(f"{name}: "):
                    raise type(error)(f"--{text}") from None
            raise
        except Exception as error:  # the foreign sampler's own failure
            raise ParameterError(
                f"sampler: {args.sampler} raised {type(error).__name__}: {error}"
            ) from error
    show(report.render())
    return 0 if report.consistent else 1


_AUDIT_DESCRIPTION = """\
Exact audits: enumerate every outcome of a mechanism's oracle calls on tiny
parameters and decide its theorem's claims with exact arithmetic; or compare a
foreign sampler's draws with one of finitedp's exact distributions.

targets:
{targets}
  compare              draws of IMPORT.PATH:CALLABLE against an exact PMF

Run finitedp audit TARGET --help for each target's options and feasible sizes.
Numbers are exact: write 1/2 (or 0.5, read as exactly 1/2). Exit status: 0 if
every claim holds, 1 if one fails, 2 on an input error (such as --gamma missing
for fast) or an instance too large to enumerate.
"""


def _targets() -> str:
    lines = [f"  {name:<20} {entry.summary}" for name, entry in COUNTERS.items()]
    lines += [
        f"  {name:<20} {entry.audit.summary}"
        for name, entry in MECHANISMS.items()
        if entry.audit is not None
    ]
    return "\n".join(lines)


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
        description=f"Explore {COUNTERS[name].cls_name} exactly for every count and check its "
        f"theorem's claims ({COUNTERS[name].paper}). Numbers are exact: write 1/2 (or 0.5, "
        "read as exactly 1/2). Exit status: 0 if every claim holds, 1 if one fails, 2 on an "
        "input error.",
    )
    audit.add_argument("--n", type=count, required=True, help="number of rows (counts in [0, n])")
    audit.add_argument("--epsilon", required=True, help="privacy budget, e.g. 1/2")
    audit.add_argument(
        "--gamma", help="fast only (required): FastSample's mixing weight 1/g, e.g. 1/8"
    )
    audit.add_argument("--beta", default="1/10", help="failure probability for the accuracy claim")
    audit.add_argument("--noise", choices=["paper", "tight"], default="paper")
    audit.add_argument("--slack", help="tight mode: share of eps/2 left unused (default 1/100)")
    audit.add_argument("--no-distributions", action="store_true", help="omit the exact tables")
    audit.add_argument(
        "--max-paths",
        type=natural,
        default=DEFAULT_MAX_COUNTING_PATHS,
        help=f"refuse audits of more than (n + 1)^2 = this many paths "
        f"(default {DEFAULT_MAX_COUNTING_PATHS:,}, about 20 s)",
    )
    audit.add_argument("--quiet", action="store_true", help="no progress messages on stderr")
    audit.set_defaults(run=_audit, sampler=name)


def _add_histogram_audit(targets: Any, name: str, target: AuditTarget) -> None:
    audit = targets.add_parser(
        name,
        help=target.summary,
        description=f"Audit {name} exactly: every dataset of n rows over X = [1, M], every "
        f"outcome of the oracle. Numbers are exact: write 1/2 (or 0.5, read as exactly 1/2).",
        epilog=_HISTOGRAM_AUDIT_EPILOG.format(
            limit=DEFAULT_MAX_PATHS,
            sizes=textwrap.fill(
                target.known_sizes, 80, initial_indent="  ", subsequent_indent="  "
            ),
            extra=target.help_extra,
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    audit.add_argument("--n", type=count, required=True, help="rows per dataset")
    audit.add_argument(
        "--universe-size", type=count, required=True, metavar="M", help="|X| = M (at least 2)"
    )
    audit.add_argument("--epsilon", required=True, help="privacy budget 1/k, e.g. 1")
    audit.add_argument(
        "--beta", default="1/10", help="failure probability 1/k of the accuracy claims (beta0)"
    )
    audit.add_argument(
        "--counter",
        choices=list(COUNTERS),
        default="fast",
        help=" or ".join(e.cls_name for e in COUNTERS.values()),
    )
    for option in target.options:
        if option.kind == "flag":
            audit.add_argument(option.flag, action="store_true", help=option.help)
        elif option.kind == "choice":
            audit.add_argument(option.flag, choices=option.choices, help=option.help)
        else:
            # one parser for every integer option: ASCII digits (int() reads Arabic digits, 0_1)
            kind = count if option.kind == "int" else str
            audit.add_argument(option.flag, type=kind, metavar=option.metavar, help=option.help)
    audit.add_argument("--ordered", action="store_true", help="enumerate every dataset of X^n")
    audit.add_argument(
        "--max-paths",
        type=natural,
        default=DEFAULT_MAX_PATHS,
        metavar="K",
        help=f"refuse above this many paths (default {DEFAULT_MAX_PATHS:,})",
    )
    audit.add_argument(
        "--distributions", action="store_true", help="print the exact law of the counts"
    )
    audit.add_argument("--quiet", action="store_true", help="no progress display on stderr")
    audit.set_defaults(run=_audit_histogram, target=name, audit_target=target)


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
        choices=["geometric", *COUNTERS],
        default="geometric",
        help="the exact distribution it claims (default geometric)",
    )
    audit.add_argument("--n", type=count, required=True, help="outputs lie in [0, n]")
    audit.add_argument("--count", type=count, required=True, help="the true count c in [0, n]")
    audit.add_argument("--ratio", help="geometric: e^(eps/2) > 1, e.g. 2")
    audit.add_argument("--epsilon", help="geo, fast: the sampler's epsilon 1/k")
    audit.add_argument("--gamma", help="fast: FastSample's gamma 1/g")
    audit.add_argument(
        "--samples", type=natural, default=10_000, help="number of draws (default 10,000)"
    )
    audit.add_argument(
        "--confidence",
        default="99/100",
        help="confidence of the TV interval; 1 - it is the test's level (default 99/100)",
    )
    audit.add_argument("--quiet", action="store_true", help="no progress display on stderr")
    audit.set_defaults(run=_audit_compare, target="compare")


def add_audit(commands: Any) -> None:
    audit = commands.add_parser(
        "audit",
        help="exact audits of samplers and histogram mechanisms; foreign samplers",
        description=_AUDIT_DESCRIPTION.format(targets=_targets()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    targets = audit.add_subparsers(dest="target", required=True, metavar="TARGET")
    for name, counter in COUNTERS.items():
        _add_counting_audit(targets, name, counter.summary)
    for name, entry in MECHANISMS.items():
        if entry.audit is not None:
            _add_histogram_audit(targets, name, entry.audit)
    _add_compare(targets)
