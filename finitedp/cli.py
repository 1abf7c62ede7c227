"""The ``finitedp`` command line: ``finitedp audit`` (more commands grow with the library).

Errors in the user's input (a float, a parameter out of range) are reported
on stderr in one line and exit with status 2; a failed claim exits with 1.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .audit import audit_counting_sampler
from .counting import CountingSampler
from .errors import FiniteDPError
from .fastsample import FastSample
from .geosample import GeoSample

__all__ = ["main"]

#: Above this n the exact tables get long; the audit still runs.
_LARGE_AUDIT = 64


def _build_sampler(args: argparse.Namespace) -> CountingSampler:
    options = {"noise": args.noise}
    if args.slack is not None:
        options["slack"] = args.slack
    if args.sampler == "geo":
        if args.gamma is not None:
            raise SystemExit("finitedp audit: --gamma applies to the fast sampler only")
        return GeoSample(args.n, args.epsilon, **options)
    if args.gamma is None:
        raise SystemExit("finitedp audit: the fast sampler needs --gamma, e.g. --gamma 1/8")
    return FastSample(args.n, args.epsilon, args.gamma, **options)


def _audit(args: argparse.Namespace) -> int:
    sampler = _build_sampler(args)
    if sampler.n > _LARGE_AUDIT and not args.quiet:
        print(f"finitedp audit: exploring {sampler.n + 1} counts exactly...", file=sys.stderr)
    report = audit_counting_sampler(sampler, args.beta)
    print(report.render(distributions=not args.no_distributions))
    return 0 if report.ok else 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="finitedp",
        description="Differential privacy on finite computers, in exact arithmetic.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    audit = commands.add_parser(
        "audit",
        help="exact distribution and privacy loss of a counting-query sampler",
        description="Explore a sampler exactly for every count and check its theorem's claims "
        "(BV Thm 4.7 for geo, Thm 4.10 for fast). Numbers are exact: write 1/2, not 0.5.",
    )
    audit.add_argument("sampler", choices=["geo", "fast"], help="GeoSample or FastSample")
    audit.add_argument("--n", type=int, required=True, help="number of rows (counts in [0, n])")
    audit.add_argument("--epsilon", required=True, help="privacy budget, e.g. 1/2")
    audit.add_argument("--gamma", help="FastSample's mixing weight 1/g, e.g. 1/8")
    audit.add_argument("--beta", default="1/10", help="failure probability for the accuracy claim")
    audit.add_argument("--noise", choices=["paper", "tight"], default="paper")
    audit.add_argument("--slack", help="tight mode: share of eps/2 left unused (default 1/100)")
    audit.add_argument("--no-distributions", action="store_true", help="omit the exact tables")
    audit.add_argument("--quiet", action="store_true", help="no progress messages on stderr")
    audit.set_defaults(run=_audit)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        return int(args.run(args))
    except FiniteDPError as error:
        print(f"finitedp {args.command}: {error}", file=sys.stderr)
        return 2
