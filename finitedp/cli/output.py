"""What every ``finitedp release`` does last: the seed warning, the summary, standard output."""

from __future__ import annotations

import argparse
from typing import IO

from ..io.files import say, write_stdout

__all__ = ["finish_release"]


def finish_release(
    args: argparse.Namespace, payload: IO[bytes] | None, to_stdout: bool, summary: str
) -> int:
    """Warn about ``--seed``, print ``summary`` (unless ``--quiet``) and write to stdout.

    The document itself was written to ``--out`` (atomically) before, or for standard
    output to ``payload`` (a temporary file), copied only once everything else has
    succeeded.
    """
    if args.seed is not None:
        say(
            "finitedp release: WARNING: --seed makes the noise deterministic (SeededSource, "
            "SPEC.md); this output is NOT private against anyone who knows or can guess the "
            "seed. Use it for tests and reproducible examples only."
        )
    if not args.quiet:
        where = "on stdout" if to_stdout else f"written to {args.out}"
        say(f"finitedp release: {summary}; release {where}")
    if to_stdout and payload is not None:
        with payload:
            write_stdout(payload)
    return 0
