"""Exact parameters: parsing and validating the numbers users pass in.

Paper: BV Section 2 (notation: ``[n] = {0..n}``, ``N^{-1} = {1/m : m >= 1}``).

Parameters are accepted as ``int``, :class:`fractions.Fraction`, ``gmpy2``
numbers (``mpz``, ``mpq``) or strings such as ``"1/2"`` or ``"0.25"`` (a
decimal string is exact).  Floats, numpy floats and ``gmpy2.mpfr`` are
refused with :class:`~finitedp.errors.FloatParameterError`, because a float
is an approximation and the guarantees of this library are exact.

>>> exact_fraction("1/2", "epsilon")
Fraction(1, 2)
>>> exact_fraction(0.5, "epsilon")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
finitedp.errors.FloatParameterError: epsilon: got 0.5 (a float); ... use Fraction(1, 2) or "1/2"
"""

from __future__ import annotations

import contextlib
import numbers
import re
from fractions import Fraction
from math import isqrt

import gmpy2

from .errors import FloatParameterError, ParameterError, ParameterTypeError

__all__ = [
    "ExactNumber",
    "check_count",
    "check_draw",
    "check_positive_int",
    "decimal_above",
    "exact_fraction",
    "inverse_natural",
    "is_short",
    "positive_fraction",
    "probability",
    "readable_fraction",
    "short_fraction",
    "short_int",
    "sqrt_display",
]

#: What the public API accepts wherever an exact rational is expected.
ExactNumber = int | Fraction | str | numbers.Rational


def article(word: str) -> str:
    """``"an"`` before a word that starts with a vowel letter, else ``"a"`` (``an alp release``).

    >>> article("alp"), article("compact")
    ('an', 'a')
    """
    return "an" if word[:1].lower() in "aeiou" else "a"


def short_int(value: int) -> str:
    """Render an integer for a message: in full if short, else by its size."""
    if abs(value) < 10**30:
        return str(value)
    sign = "negative " if value < 0 else ""
    return f"<a {sign}{abs(value).bit_length()}-bit integer>"


def short_fraction(value: Fraction) -> str:
    """Render a rational for a message: ``"1/2"`` if short, else by its size."""
    if value.denominator == 1:
        return short_int(value.numerator)
    return f"{short_int(value.numerator)}/{short_int(value.denominator)}"


def decimal_above(value: Fraction, digits: int = 3) -> str:
    """The least decimal of ``digits`` significant digits at or above ``value >= 0``.

    For display: a stated ``delta`` or ``epsilon`` rounded up stays a true bound.
    Values beyond ``10^(+-900)`` are shown as a power of two that bounds them.

    >>> decimal_above(Fraction(1, 3)), decimal_above(Fraction(2, 3), 2), decimal_above(Fraction(5))
    ('3.34e-1', '6.7e-1', '5.00e0')
    >>> decimal_above(Fraction(1, 10**5000))
    '< 2^-16608'
    """
    if value <= 0:
        return "0"
    num, den = value.numerator, value.denominator
    size = num.bit_length() - den.bit_length()  # 2^(size-1) < value < 2^(size+1)
    if abs(size) > 3000:
        return f"< 2^{size + 1}"
    exponent = size * 30103 // 100000  # about log10(value), then made exact
    while Fraction(10) ** exponent > value:
        exponent -= 1
    while Fraction(10) ** (exponent + 1) <= value:
        exponent += 1
    scaled = value * Fraction(10) ** (digits - 1 - exponent)
    mantissa = -(-scaled.numerator // scaled.denominator)
    if mantissa == 10**digits:
        mantissa, exponent = 10 ** (digits - 1), exponent + 1
    text = str(mantissa)
    return f"{text[0]}.{text[1:]}e{exponent}" if digits > 1 else f"{text}e{exponent}"


def is_short(value: Fraction) -> bool:
    """Whether :func:`readable_fraction` shows ``value`` exactly (both terms below 10^12)."""
    return abs(value.numerator) < 10**12 and value.denominator < 10**12


def sqrt_display(value: Fraction | int, digits: int = 3) -> str:
    """``sqrt(value)`` to about ``digits`` significant digits, for people (a standard
    deviation beside an exact variance): from an integer square root, no float.

    >>> sqrt_display(Fraction(1, 4)), sqrt_display(2), sqrt_display(Fraction(35387538))
    ('0.5', '1.41', '5950')
    """
    value = Fraction(value)
    if value < 0:
        raise ParameterError(f"value: got {short_fraction(value)}; a square root needs >= 0")
    # 10^k sqrt(v) to at least digits + 2 digits, then rounded as any estimate
    size = value.numerator.bit_length() - value.denominator.bit_length()
    k = max(0, digits + 2 - size * 30103 // 200000)
    root = isqrt(value.numerator * 100**k // value.denominator)
    return decimal_nearest(Fraction(root, 10**k), digits)


def decimal_nearest(value: Fraction | int, digits: int = 6, *, up: bool = False) -> str:
    """``value`` to ``digits`` significant digits, rounded to nearest (ties to even): an
    estimate for people (``query``), not a bound; with ``up``, rounded up (a stated
    ``epsilon`` or ``delta`` stays a bound; ``value >= 0``).  Integers of at most 15
    digits are shown whole; positional notation from ``10^-4`` to ``10^15``, else
    ``1.23457e+20``.

    >>> decimal_nearest(Fraction(-5886653224082749, 2942392201600000))
    '-2.00064'
    >>> decimal_nearest(Fraction(57589, 2)), decimal_nearest(7)
    ('28794.5', '7')
    >>> decimal_nearest(Fraction(1, 3 * 10**7)), decimal_nearest(Fraction(10**20, 3))
    ('3.33333e-08', '3.33333e+19')
    >>> decimal_nearest(Fraction(2, 3), 3, up=True), decimal_nearest(Fraction(1, 10**7), 3, up=True)
    ('0.667', '1e-07')
    """
    value = Fraction(value)
    if value.denominator == 1 and abs(value) < 10**15:
        return str(value.numerator)
    if value == 0:
        return "0"
    sign, magnitude = ("-" if value < 0 else ""), abs(value)
    size = magnitude.numerator.bit_length() - magnitude.denominator.bit_length()
    if abs(size) > 3000:
        return f"{sign}{decimal_above(magnitude)}"  # a power of two that bounds it
    exponent = size * 30103 // 100000
    while Fraction(10) ** exponent > magnitude:
        exponent -= 1
    while Fraction(10) ** (exponent + 1) <= magnitude:
        exponent += 1
    scaled = magnitude * Fraction(10) ** (digits - 1 - exponent)
    mantissa = -(-scaled.numerator // scaled.denominator) if up else round(scaled)
    if mantissa == 10**digits:
        mantissa, exponent = 10 ** (digits - 1), exponent + 1
    text = str(mantissa)
    if -4 <= exponent < 15:
        point = exponent + 1  # digits before the decimal point
        if point <= 0:
            body = "0." + "0" * -point + text
        elif point >= len(text):
            body = text + "0" * (point - len(text))
        else:
            body = text[:point] + "." + text[point:]
        if "." in body:
            body = body.rstrip("0").rstrip(".")
        return sign + body
    body = text[0] + ("." + text[1:].rstrip("0") if text[1:].rstrip("0") else "")
    return f"{sign}{body}e{exponent:+03d}"


def readable_fraction(value: Fraction) -> str:
    """A rational for people: exact if short (``"1/1000"``), else rounded up (``"<= 9.03e-7"``).

    >>> readable_fraction(Fraction(1, 1000)), readable_fraction(Fraction(10**40 + 1, 10**47))
    ('1/1000', '<= 1.01e-7')
    """
    if is_short(value):
        return str(value)
    if value < 0:
        return f"-({readable_fraction(-value)})"
    text = decimal_above(value)
    return text if text.startswith("<") else f"<= {text}"


def _describe(value: object) -> str:
    kind = type(value).__name__
    if _is_floatlike(value) and not kind.startswith("float"):
        kind = f"float of type {kind}"
    return f"{value!r} (a {kind})"


def _is_floatlike(value: object) -> bool:
    # numpy floats and gmpy2.mpfr register as numbers.Real but not Rational.
    return isinstance(value, float) or (
        isinstance(value, numbers.Real) and not isinstance(value, numbers.Rational)
    )


def _double_repr(value: object) -> str:
    return repr(float(value))  # type: ignore[arg-type]


def _exact_spelling(value: object) -> str:
    # The shortest decimal that round-trips is the number the user most likely
    # meant: str() finds it in the value's own precision (numpy.float32(0.1) ->
    # 0.1), repr(float()) in double precision (mpfr's str() prints 17 digits).
    candidates = []
    for spell in (str, _double_repr):
        with contextlib.suppress(ValueError, TypeError, OverflowError):
            candidates.append(Fraction(spell(value)))
    if not candidates:
        return 'an int, a Fraction or a string such as "1/2"'
    intended = min(candidates, key=lambda q: q.denominator)
    return f'Fraction({intended.numerator}, {intended.denominator}) or "{intended}"'


def exact_fraction(value: object, name: str) -> Fraction:
    """Convert an exact number to a :class:`~fractions.Fraction`, refusing floats.

    Args:
        value: an ``int``, ``Fraction``, ``gmpy2`` integer or rational, or a
            string that :class:`~fractions.Fraction` parses exactly.
        name: the parameter's name, used in error messages.

    Returns:
        The value as a ``Fraction``.

    Raises:
        FloatParameterError: ``value`` is a float (including numpy floats).
        ParameterTypeError: ``value`` is of another unsupported type (or a bool).
        ParameterError: ``value`` is a string that is not an exact number.
    """
    if isinstance(value, bool):
        raise ParameterTypeError(f"{name}: got {value!r} (a bool); use an int or a Fraction")
    if _is_floatlike(value):
        raise FloatParameterError(
            f"{name}: got {_describe(value)}; floats break the exactness guarantee, "
            f"use {_exact_spelling(value)}"
        )
    if isinstance(value, Fraction):
        return value
    if isinstance(value, numbers.Rational):
        return Fraction(int(value.numerator), int(value.denominator))
    if isinstance(value, str):
        return _parse_exact(value, name)
    raise ParameterTypeError(
        f'{name}: got {_describe(value)}; use an int, a Fraction or a string such as "1/2"'
    )


# ASCII only: Fraction() itself also takes "1_0" and digits of other scripts ("\uff11").
_RATIO = re.compile(r"([+-]?)([0-9]+)/([0-9]+)")
_DECIMAL = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]{1,4}))?")


def _parse_exact(text: str, name: str) -> Fraction:
    """``"a/b"``, ``"-3"``, ``"0.25"`` or ``"1e-3"`` (ASCII; exponents up to 4 digits) exactly."""
    stripped = text.strip()
    ratio = _RATIO.fullmatch(stripped)
    decimal = None if ratio else _DECIMAL.fullmatch(stripped)
    if ratio and ratio.group(3).strip("0"):  # a zero denominator is no number
        sign = -1 if ratio.group(1) == "-" else 1
        return Fraction(sign * _big_int(ratio.group(2)), _big_int(ratio.group(3)))
    if decimal and (decimal.group(2) or decimal.group(3)):
        sign = -1 if decimal.group(1) == "-" else 1
        whole, part = decimal.group(2) or "0", decimal.group(3) or ""
        value = Fraction(sign * _big_int(whole + part), 10 ** len(part))
        exponent = int(decimal.group(4) or 0)
        scale: int = 10 ** abs(exponent)
        return value * scale if exponent >= 0 else value / scale
    shown = repr(text) if len(text) <= 60 else f"{text[:60]!r}... ({len(text):,} characters)"
    raise ParameterError(
        f'{name}: got {shown}, which is not an exact number; write it as "a/b" '
        f'(ASCII digits) or a decimal such as "0.25"'
    )


def _big_int(digits: str) -> int:
    # int() refuses more than 4,300 digits (sys.set_int_max_str_digits); GMP does not.
    return int(digits) if len(digits) <= 4000 else int(gmpy2.mpz(digits, 10))


def positive_fraction(value: object, name: str) -> Fraction:
    """An exact rational that must be strictly positive.

    Raises:
        ParameterError: the value is zero or negative.
    """
    q = exact_fraction(value, name)
    if q <= 0:
        raise ParameterError(f"{name}: got {short_fraction(q)}; it must be a positive rational")
    return q


def inverse_natural(value: object, name: str, *, below_one: bool = False) -> Fraction:
    """A parameter of the form ``1/m`` with ``m`` a positive integer (BV's ``N^{-1}``).

    Args:
        value: the parameter.
        name: its name for error messages.
        below_one: also require ``value < 1`` (that is ``m >= 2``), as for gamma.

    Raises:
        ParameterError: the value is not ``1/m`` (or equals 1 when ``below_one``).
    """
    q = exact_fraction(value, name)
    if q <= 0 or q.numerator != 1:
        raise ParameterError(
            f"{name}: got {short_fraction(q)}; it must be 1/m for a positive integer m "
            f"(BV's N^-1), such as 1, 1/2 or 1/10"
        )
    if below_one and q == 1:
        raise ParameterError(f"{name}: got 1; it must be 1/m with m >= 2")
    return q


def probability(
    value: object, name: str, *, allow_zero: bool = False, allow_one: bool = False
) -> Fraction:
    """An exact probability in ``(0, 1)``, with ``0`` and ``1`` allowed on request.

    Raises:
        ParameterError: the value is outside the interval.
    """
    q = exact_fraction(value, name)
    low_ok = q >= 0 if allow_zero else q > 0
    high_ok = q <= 1 if allow_one else q < 1
    if not (low_ok and high_ok):
        interval = ("[0, " if allow_zero else "(0, ") + ("1]" if allow_one else "1)")
        raise ParameterError(f"{name}: got {short_fraction(q)}; it must lie in {interval}")
    return q


def _exact_int(value: object, name: str) -> int:
    if type(value) is int:  # the common case, without the ABC check's cost
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if _is_floatlike(value):
            raise FloatParameterError(
                f"{name}: got {_describe(value)}; floats break the exactness guarantee, use an int"
            )
        raise ParameterTypeError(f"{name}: got {_describe(value)}; it must be an int")
    return int(value)


def check_int(value: object, name: str) -> int:
    """An exact integer of any sign (``int``, numpy or ``gmpy2`` integers); not a bool.

    Raises:
        FloatParameterError: a float; ParameterTypeError: anything else not an integer.
    """
    return int(_exact_int(value, name))


def check_positive_int(value: object, name: str) -> int:
    """A positive integer such as the number of rows ``n``.

    Raises:
        ParameterTypeError: not an integer.
        ParameterError: not positive.
    """
    v = _exact_int(value, name)
    if v < 1:
        raise ParameterError(f"{name}: got {short_int(v)}; it must be a positive int (>= 1)")
    return v


def check_count(value: object, n: int, name: str = "c") -> int:
    """A true count ``c`` in ``[n] = {0, ..., n}``.

    Raises:
        ParameterTypeError: not an integer.
        ParameterError: outside ``[0, n]``.
    """
    v = _exact_int(value, name)
    if not 0 <= v <= n:
        raise ParameterError(
            f"{name}: got {short_int(v)}; it must be an int in [0, {short_int(n)}]"
        )
    return v


def check_draw(value: object, d: int, name: str = "u") -> int:
    """An oracle draw ``u`` in ``[d]_+ = {1, ..., d}``.

    Raises:
        ParameterTypeError: not an integer.
        ParameterError: outside ``[1, d]``.
    """
    v = _exact_int(value, name)
    if not 1 <= v <= d:
        raise ParameterError(
            f"{name}: got {short_int(v)}; it must be an int in [1, d] with d = {short_int(d)}"
        )
    return v
