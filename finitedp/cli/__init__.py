"""The ``finitedp`` command line: ``release``, ``query`` and ``audit``.

* ``finitedp release`` reads one column of categorical values (CSV or one value
  per line), numbers them into a declared universe (:mod:`finitedp.io.universe`),
  runs a user-level histogram mechanism and writes the release with its exact
  privacy and accuracy statements as JSON.
* ``finitedp query`` reads counts back from such a release, without the data.
* ``finitedp audit`` explores a counting-query sampler (``geo``, ``fast``) or a
  histogram mechanism (``bounded-geometric``, ``stability``, ``pure-sparse``,
  ``compact``) exactly on tiny parameters and decides its theorem's claims, or
  compares a foreign sampler's draws with an exact reference (``compare``).

Errors in the user's input (a float, a parameter out of range, a value outside
the universe, an unreadable file) are reported on stderr in one line and exit
with status 2, and nothing is written; a failed audit claim (or a foreign
sampler found inconsistent with its reference) exits with 1.

Mechanisms are found through :data:`MECHANISMS`, imported only when used, so a
mechanism whose module is missing is reported as unavailable instead of
breaking the whole command.

One module per command (:mod:`.release`, :mod:`.query`, :mod:`.audit`,
:mod:`.vectors`; ``plot`` lives in :mod:`finitedp.plot.command`); input and
output shared with ``plot`` are in :mod:`finitedp.io`.  Mechanisms are found in
:mod:`finitedp.registry`: no command names one.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import re
import sys
from collections.abc import Sequence

from .. import __version__
from ..errors import FiniteDPError
from ..io.files import say
from ..resources import check_limits

__all__ = ["main"]

#: Each command -> the module and function that add its parser, in ``--help``'s order.
#: A command line names one command: only its module is imported (``query`` does not
#: load the release machinery, DuckDB or matplotlib).
COMMANDS = {
    "release": ("finitedp.cli.release", "add_release"),
    "query": ("finitedp.cli.query", "add_query"),
    "audit": ("finitedp.cli.audit", "add_audit"),
    "vectors": ("finitedp.cli.vectors", "add_vectors"),
    "plot": ("finitedp.plot.command", "add_plot_parser"),
}


def _silence_stdout() -> None:
    # Python flushes stdout at exit and would report the broken pipe again.
    import os

    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def _parser(argv: Sequence[str]) -> argparse.ArgumentParser:
    """The parser of the command ``argv`` names, or of every command (``--help``, a typo)."""
    parser = argparse.ArgumentParser(
        prog="finitedp",
        description="Differential privacy on finite computers, in exact arithmetic.",
    )
    parser.add_argument("--version", action="version", version=f"finitedp {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    named = [argv[0]] if argv and argv[0] in COMMANDS else list(COMMANDS)
    for name in named:
        module, function = COMMANDS[name]
        getattr(importlib.import_module(module), function)(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line.

    Args:
        argv: the arguments after the program name (default: ``sys.argv[1:]``).

    Returns:
        The exit status: 0 on success, 1 when an audited claim fails, 2 on an input
        error, 130 when interrupted (Ctrl-C), 141 when the output pipe closed.

    Raises:
        SystemExit: from argparse, for ``--help`` and malformed command lines.
    """
    for stream in (sys.stdout, sys.stderr):  # a narrow encoding must not fail a message
        with contextlib.suppress(AttributeError, ValueError):
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
    command: str | None = None
    try:
        given = list(sys.argv[1:] if argv is None else argv)
        args = _parser(given).parse_args(given)
        command = args.command
        check_limits()  # a malformed FINITEDP_MAX_SECONDS or _MEMORY is refused by every command
        return int(args.run(args))
    except FiniteDPError as error:
        say(f"finitedp {command}: {error}" if command else f"finitedp: {error}")
        return 2
    except KeyboardInterrupt:
        # Ctrl-C: one line, no traceback. Every file is written atomically, so nothing
        # partial is left behind.
        say(f"finitedp{f' {command}' if command else ''}: interrupted; nothing was written")
        return 130
    except BrokenPipeError:
        # The reader went away (``finitedp query ... | head``): nothing more to say.
        _silence_stdout()
        return 141
    except OSError as error:  # a stream or file failing under us (stdout full, say)
        _silence_stdout()
        name = f" {error.filename}" if getattr(error, "filename", None) else ""
        say(f"finitedp {command}: input/output error{name}: {error.strerror or error}")
        return 2
    except Exception as error:
        # Spark's errors (a bad CSV row, a corrupt file) surface wherever its job ran.
        from ..engines.spark.session import spark_refusal  # no pyspark import

        refusal = spark_refusal(error)
        if refusal is None:
            raise
        name = str(getattr(args, "input", "") or "") if command else ""
        # Spark names the plain-named link a file may be read through (io/inputs.py).
        said = re.sub(r"(file:)?/\S*/finitedp-input-[^/\s]+/input\.\w+", name, str(refusal))
        say(f"finitedp {command}: {name + ': ' if name else ''}{said}")
        return 2
