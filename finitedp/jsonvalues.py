"""Exact numbers in JSON: integers as decimal strings, rationals as ``"p/q"``.

Many JSON readers hold numbers as doubles, exact only up to ``2^53``, so every
integer that is a value of the mathematics is written as a decimal string and
every rational as ``"p/q"`` in lowest terms.  Python's ``int``/``str``
conversion refuses more than 4,300 digits by default
(``sys.set_int_max_str_digits``); these functions convert any size without
changing that process-wide limit.

>>> decimal(2**64), parse_uint("18446744073709551616", "d")
('18446744073709551616', 18446744073709551616)
>>> parse_rational("1/2", "epsilon")
Fraction(1, 2)
"""

from __future__ import annotations

import re
from fractions import Fraction

import gmpy2

__all__ = ["decimal", "parse_rational", "parse_uint", "parse_uints", "rational"]

_UINT = re.compile(r"(0|[1-9][0-9]*)")
_RATIONAL = re.compile(r"(0|[1-9][0-9]*)(/[1-9][0-9]*)?")

#: Below this size Python's own conversion is fast and within its digit limit.
_SHORT = 10**300


def decimal(value: int) -> str:
    """An integer as a decimal string, of any size (GMP's conversion has no digit limit)."""
    return str(int(value)) if -_SHORT < value < _SHORT else gmpy2.mpz(value).digits(10)


def _to_int(text: str) -> int:
    return int(text) if len(text) <= 300 else int(gmpy2.mpz(text, 10))


def rational(value: Fraction) -> str:
    """``"p/q"`` in lowest terms (``"p"`` for an integer), of any size."""
    if value.denominator == 1:
        return decimal(value.numerator)
    return f"{decimal(value.numerator)}/{decimal(value.denominator)}"


def parse_uint(value: object, name: str) -> int:
    """Parse a decimal string written by :func:`decimal` (no sign, no leading zeros).

    Raises:
        ValueError: not such a string; the message names ``name``.
    """
    if not isinstance(value, str) or not _UINT.fullmatch(value):
        raise ValueError(f"{name}: got {value!r:.80}; expected a decimal string")
    return _to_int(value)


def parse_rational(value: object, name: str) -> Fraction:
    """Parse ``"p/q"`` (or ``"p"``) in lowest terms.

    Raises:
        ValueError: not such a string, or not in lowest terms.
    """
    if not isinstance(value, str) or not _RATIONAL.fullmatch(value):
        raise ValueError(f"{name}: got {value!r:.80}; expected a rational string p/q")
    top, _, bottom = value.partition("/")
    q = Fraction(_to_int(top), _to_int(bottom) if bottom else 1)
    if rational(q) != value:
        raise ValueError(f"{name}: got {value!r:.80}; write the rational in lowest terms")
    return q


def parse_uints(values: object, name: str) -> list[int]:
    """Parse a list of decimal strings.

    Raises:
        ValueError: not a list, or an element is not a decimal string.
    """
    if not isinstance(values, list):
        raise ValueError(f"{name}: expected a list of decimal strings")
    return [parse_uint(v, f"{name}[{i}]") for i, v in enumerate(values)]
