"""``finitedp vectors``: generate or verify the reference test vectors."""

from __future__ import annotations

import argparse
import contextlib
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import ParameterError
from ..io.files import STDOUT, atomic_path, check_out, say, show, write_stdout

__all__ = ["add_vectors"]


def add_vectors(commands: Any) -> None:
    vectors = commands.add_parser(
        "vectors",
        help="generate or verify reference test vectors (JSON Lines, SPEC.md)",
        description="Reference test vectors for other implementations: every sampler and "
        "mechanism with its parameters, dataset, tape of (d, u) oracle answers and output.",
    )
    actions = vectors.add_subparsers(dest="action", required=True)
    generate = actions.add_parser(
        "generate", help="write the deterministic vector file (atomically; exit 2 if it cannot)"
    )
    generate.add_argument(
        "--out", required=True, help="the JSON Lines file to write (- for stdout)"
    )
    generate.add_argument(
        "--negative",
        action="store_true",
        help="write the negative vectors (inputs that must be refused) instead",
    )
    generate.set_defaults(run=_vectors_generate)
    verify = actions.add_parser(
        "verify",
        help="replay every vector; exit 1 at the first failure, 2 if the file cannot be read",
    )
    verify.add_argument("file", help="a JSON Lines vector file")
    verify.set_defaults(run=_vectors_verify)


def _vectors_generate(args: argparse.Namespace) -> int:
    """``finitedp vectors generate --out FILE``, written atomically.

    Returns:
        0 (errors are raised).

    Raises:
        ParameterError: ``--out`` cannot be written (nothing is written).
    """
    from .. import vectors

    check_out(args.out, "-")
    with atomic_path(args.out) if args.out != STDOUT else _stdout_file() as temporary:
        write = vectors.generate_negative_to if args.negative else vectors.generate_to
        count = write(temporary)
    (say if args.out == STDOUT else show)(f"wrote {count} vectors to {args.out}")
    return 0


@contextlib.contextmanager
def _stdout_file() -> Iterator[str]:
    """A temporary file copied to standard output once complete (``--out -``)."""
    with tempfile.TemporaryDirectory(prefix="finitedp-vectors-") as directory:
        path = Path(directory) / "vectors.jsonl"
        yield str(path)
        write_stdout(path.read_bytes())


def _vectors_verify(args: argparse.Namespace) -> int:
    """``finitedp vectors verify FILE``.

    Returns:
        0 if every vector verifies, 1 at the first failure (the message names the line).

    Raises:
        ParameterError: the file cannot be read (an input error, not a failure).
    """
    from ..vectors import verify_file

    try:
        with open(args.file, "rb") as probe:
            probe.read().decode("utf-8")  # the file is read whole by the verifier anyway
    except OSError as error:
        raise ParameterError(f"{args.file}: cannot read it: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise ParameterError(
            f"{args.file}: not UTF-8 text (byte {error.start}); a vector file is JSON Lines"
        ) from None
    ok, message = verify_file(args.file)
    (show if ok else say)(message)
    return 0 if ok else 1
