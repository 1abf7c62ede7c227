"""Argument types for the command line: numbers as a person types them, ASCII only.

``argparse``'s ``type=int`` uses Python's ``int()``, which also accepts
``"1_000"``, ``" 7 "`` and digits of other scripts (full-width, Arabic-Indic); a number
typed by mistake should be an error, not a guess.  These types accept plain
ASCII decimals only and refuse anything longer than :data:`MAX_DIGITS`
without echoing it.  A refusal is an ``argparse`` error (exit status 2).

>>> natural("12")
12
"""

from __future__ import annotations

import argparse
import re

__all__ = ["MAX_DIGITS", "count", "natural", "shown"]

#: The longest number the command line reads (sizes above 10^100 are not useful here).
MAX_DIGITS = 100

_DECIMAL = re.compile(r"0|[1-9][0-9]*")


def shown(text: str, limit: int = 60) -> str:
    """``repr(text)``, cut to ``limit`` characters with its length said if longer."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text):,} characters)"


def count(text: str) -> int:
    """A non-negative integer in plain ASCII decimal (no sign, underscore or space)."""
    if len(text) > MAX_DIGITS or not _DECIMAL.fullmatch(text):
        raise argparse.ArgumentTypeError(
            f"got {shown(text)}; write a whole number in ASCII digits, such as 10"
        )
    return int(text)


def natural(text: str) -> int:
    """A positive integer in plain ASCII decimal."""
    value = count(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"got {text}; it must be at least 1")
    return value
