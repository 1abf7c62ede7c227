"""Fields of a release document read back for a plot, each checked against its invariant.

A document is input: it may have been edited.  A plot draws it only when every
figure it uses is of the type and in the range the writer guarantees (a positive
scale, ``n >= 1``, ordered bounds, a finite magnitude, a list of bounded length),
and refuses it otherwise with one line naming the document and the field.  Every
reader returns exact values; floats are made by the drawing code alone.

>>> count({"n": 5}, "n", "doc.json")
5
>>> rational({"sigma2": "-3/2"}, "sigma2", "doc.json", positive=True)
Traceback (most recent call last):
  ...
finitedp.errors.ParameterError: doc.json: sigma2: got '-3/2'; it must be positive
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ..errors import ParameterError
from ..jsonvalues import parse_count, parse_signed_rational
from ..params import short_int

__all__ = ["MAX_MAGNITUDE", "count", "drawable", "items", "rational"]

#: The largest magnitude a drawn figure or count may have: a float holds up to about 2^1024.
MAX_MAGNITUDE = 1 << 1000


def _get(mapping: Any, key: str, name: str) -> Any:
    if not isinstance(mapping, dict) or key not in mapping:
        raise ParameterError(f"{name}: {key}: missing; the document is not a finitedp release")
    return mapping[key]


def count(mapping: Any, key: str, name: str, *, minimum: int = 1) -> int:
    """``mapping[key]``, an integer of at least ``minimum`` and below ``2^1000``.

    Raises:
        ParameterError: missing, not an integer, or out of range; naming ``key``.
    """
    value = _get(mapping, key, name)
    try:
        number = parse_count(value, key)
    except ValueError as error:
        raise ParameterError(f"{name}: {error}") from None
    if number < minimum or number >= MAX_MAGNITUDE:
        raise ParameterError(
            f"{name}: {key}: got {short_int(number)}; it must be at least {minimum} "
            "(and below 2^1000)"
        )
    return number


def rational(
    mapping: Any, key: str, name: str, *, positive: bool = False, default: object = None
) -> Fraction:
    """``mapping[key]``: a rational written ``"p/q"`` or ``"-p/q"`` (or an integer), of
    magnitude below ``2^1000``; with ``positive``, above 0.

    Raises:
        ParameterError: missing (without ``default``), malformed or out of range.
    """
    value = (
        default
        if default is not None and isinstance(mapping, dict) and key not in mapping
        else (_get(mapping, key, name))
    )
    try:
        number = parse_signed_rational(value, key)
    except ValueError as error:
        raise ParameterError(f"{name}: {error}") from None
    drawable(number, key, name)
    if positive and number <= 0:
        raise ParameterError(f"{name}: {key}: got {value!r:.30}; it must be positive")
    return number


def drawable(number: Fraction, key: str, name: str) -> Fraction:
    """``number`` if 0 or of magnitude within about ``2^-1000 .. 2^1000``: a float holds it.

    Decided on bit lengths (``bits`` is ``log2 |number|`` within 1), not by comparing
    fractions: a plot may read a million figures.

    Raises:
        ParameterError: too large or too small to draw, naming ``key``.
    """
    if number:
        bits = abs(number.numerator).bit_length() - number.denominator.bit_length()
        if not -999 < bits < 999:
            raise ParameterError(
                f"{name}: {key}: got a number of about 2^{bits}; too far from 1 to draw"
            )
    return number


def items(mapping: Any, key: str, name: str, *, most: int) -> list[Any]:
    """``mapping[key]``, a non-empty list of at most ``most`` entries.

    Raises:
        ParameterError: missing, not a list, empty or too long.
    """
    value = _get(mapping, key, name)
    if not isinstance(value, list) or not value:
        raise ParameterError(f"{name}: {key}: expected a non-empty list")
    if len(value) > most:
        raise ParameterError(
            f"{name}: {key}: {len(value):,} entries; a plot draws at most {most:,}"
        )
    return value
