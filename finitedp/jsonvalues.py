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

import json
import re
from fractions import Fraction
from typing import Any

import gmpy2

from .errors import ParameterError

__all__ = [
    "JSON_SAFE_INT",
    "JsonFloat",
    "decimal",
    "decimal_int",
    "json_int",
    "load_json",
    "parse_count",
    "parse_rational",
    "parse_signed_rational",
    "parse_uint",
    "parse_uints",
    "rational",
]

#: The largest integer every JSON reader holds exactly (doubles: 2^53).
JSON_SAFE_INT = 2**53

_UINT = re.compile(r"(0|[1-9][0-9]*)")
_RATIONAL = re.compile(r"(0|[1-9][0-9]*)(/[1-9][0-9]*)?")

#: Below this size Python's own conversion is fast and within its digit limit.
_SHORT = 10**300


def decimal(value: int) -> str:
    """An integer as a decimal string, of any size (GMP's conversion has no digit limit)."""
    return str(int(value)) if -_SHORT < value < _SHORT else gmpy2.mpz(value).digits(10)


def decimal_int(text: str) -> int:
    """The integer of an ASCII decimal string of any size (GMP's conversion past 300
    digits: Python's stops at 4,300)."""
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
        raise ValueError(f"{name}: got {value!r:.30}; expected a decimal string")
    return decimal_int(value)


def parse_rational(value: object, name: str) -> Fraction:
    """Parse ``"p/q"`` (or ``"p"``) in lowest terms.

    Raises:
        ValueError: not such a string, or not in lowest terms.
    """
    if not isinstance(value, str) or not _RATIONAL.fullmatch(value):
        raise ValueError(f"{name}: got {value!r:.30}; expected a rational string p/q")
    top, _, bottom = value.partition("/")
    q = Fraction(decimal_int(top), decimal_int(bottom) if bottom else 1)
    if rational(q) != value:
        raise ValueError(f"{name}: got {value!r:.30}; write the rational in lowest terms")
    return q


def parse_signed_rational(value: object, name: str) -> Fraction:
    """An int, or ``"p/q"`` / ``"-p/q"`` in lowest terms (a signed figure of a document).

    Raises:
        ValueError: anything else; the message names ``name``.
    """
    if type(value) is int:
        return Fraction(value)
    if not isinstance(value, str):
        raise ValueError(f"{name}: got {value!r:.30}; expected a rational string p/q")
    magnitude = parse_rational(value.removeprefix("-"), name)
    return -magnitude if value.startswith("-") else magnitude


def parse_uints(values: object, name: str) -> list[int]:
    """Parse a list of decimal strings.

    Raises:
        ValueError: not a list, or an element is not a decimal string.
    """
    if not isinstance(values, list):
        raise ValueError(f"{name}: expected a list of decimal strings")
    return [parse_uint(v, f"{name}[{i}]") for i, v in enumerate(values)]


def json_int(value: int) -> int | str:
    """``value`` as a JSON number if every reader holds it exactly, else as a decimal string.

    >>> json_int(7), json_int(2**64)
    (7, '18446744073709551616')
    """
    return int(value) if abs(value) <= JSON_SAFE_INT else decimal(value)


def parse_count(value: object, name: str) -> int:
    """A non-negative integer written by :func:`json_int` (or, in old files, a bare number).

    Floats, bools and signs are refused: ``2.7`` is not read as 2.

    Raises:
        ValueError: anything else; the message names ``name``.
    """
    if type(value) is int and value >= 0:
        return value
    if type(value) is str:
        return parse_uint(value, name)
    shown = str(value) if isinstance(value, JsonFloat) else repr(value)
    raise ValueError(f"{name}: got {shown:.30}; expected a non-negative integer")


class JsonFloat(str):
    """A JSON number with a fraction or exponent, kept as its text by :func:`load_json`.

    No exact quantity in finitedp's documents is written that way, so validators
    refuse it by type instead of reading ``2.7`` as 2 or ``1e400`` as infinity.
    """

    __slots__ = ()


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def load_json(text: str, name: str, *, floats: bool = False) -> Any:
    """``json.loads`` for documents from users: any integer size, no floats, no depth crash.

    Integers of any length are read exactly (Python's own conversion stops at
    4,300 digits); numbers with a fraction or exponent become :class:`JsonFloat`;
    ``NaN`` and ``Infinity`` (which ``json`` accepts by default) are refused.
    With ``floats=True`` such numbers are Python floats instead, for a schema
    validator that must see them as numbers to refuse them.

    Raises:
        ParameterError: not JSON, or nested too deeply; the message names ``name``.
    """
    try:
        return json.loads(
            text,
            parse_int=decimal_int,
            parse_float=float if floats else JsonFloat,
            parse_constant=_constant,
        )
    except json.JSONDecodeError as error:
        raise ParameterError(f"{name}, line {error.lineno}: not JSON: {error.msg}") from None
    except ValueError as error:
        raise ParameterError(f"{name}: not JSON: {error}") from None
    except RecursionError:
        raise ParameterError(f"{name}: not a finitedp document: nested too deeply") from None
