"""Integer weights of the two discrete Gaussian laws finitedp samples, on ``[-R, R]``.

Paper: Canonne, Kamath & Steinke, *The Discrete Gaussian for Differential
Privacy* (NeurIPS 2020), Def 1 (``Pr[z] ∝ exp(-z^2/(2 sigma^2))`` on the
integers); Lebeda thesis chapters 4-5 add it to sums; BV Lemma 2.13 (one draw
over an integer CDF) is how it is sampled.

Both laws are symmetric, so only the half table ``w(0), ..., w(R)`` is kept:

* :func:`rational_base_weights`: the exact discrete Gaussian with a rational
  base ``alpha = a/b < 1``, ``Pr[z] ∝ alpha^(z^2)``, as the integers
  ``w(z) = a^(z^2) b^(R^2 - z^2)``.  Its ``sigma^2 = 1/(2 ln(1/alpha))`` exactly,
  but ``w(0)`` has ``R^2 log2 b`` bits: small ``sigma``, and the checker.
* :func:`fixed_precision_weights`: ``w(z) = floor(2^P exp(-z^2/(2 sigma^2)))``
  for a rational ``sigma^2``, each floor decided exactly (below), every
  ``w(z) >= 1`` on ``[0, R]``.  ``2^P g(z) / w(z)`` lies in ``[1, 1 + 1/w(z))``:
  that is the whole distance from the ideal weights, and the privacy statements
  of :mod:`.gaussian` are made for these integers, not for the ideal law.

Cost of the fixed-precision table: the recurrence ``g(z + 1) = g(z) c(z)``,
``c(z + 1) = c(z) r^2`` with ``r = exp(-1/(2 sigma^2))``, run twice in fixed
point (rounded down for a lower chain, up for an upper one), about 1 us per
entry; an entry whose two chains straddle an integer is decided by
:func:`~finitedp.exactmath.compare_exp`.

>>> rational_base_weights(1, 2, 2)     # alpha = 1/2: 2^4, 2^3, 2^0
[16, 8, 1]
>>> list(fixed_precision_weights(Fraction(1), 3, 10))   # floor(1024 e^(-z^2/2))
[1024, 621, 138, 11]
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from fractions import Fraction
from math import isqrt

from ..errors import ParameterError
from ..exactmath import compare_exp, exp_bounds, ln_bounds
from ..params import short_fraction
from ..resources import describe_bytes, require_memory

__all__ = [
    "MAX_PRECISION",
    "fixed_precision_weights",
    "largest_radius",
    "largest_scaled_radius",
    "rational_base_weights",
    "scaled_floor_weights",
    "table_bytes",
]

#: The largest precision ``P`` (bits of ``w(0)``) the fixed-precision law takes.
MAX_PRECISION = 256


def table_bytes(entries: int, bits: int) -> int:
    """Memory of a table of ``entries`` integers of about ``bits`` bits (and a prefix-sum copy)."""
    per = 8 if bits < 63 else 40 + bits // 8  # numpy uint64, or a Python int and its pointer
    return 2 * entries * per


def rational_base_weights(a: int, b: int, radius: int) -> list[int]:
    """``w(z) = a^(z^2) b^(R^2 - z^2)`` for ``z = 0..R``: ``Pr[z] ∝ (a/b)^(z^2)`` exactly.

    Raises:
        ParameterError: ``a/b`` not in ``(0, 1)``; ResourceLimitError: the table is too large.
    """
    if not 0 < a < b:
        raise ParameterError(
            f"base: got {short_fraction(Fraction(a, b))}; it must be a rational in (0, 1)"
        )
    bits = radius * radius * b.bit_length()
    require_memory(
        (radius + 1) * (bits // 8 + 64) * 3,
        "the exact discrete Gaussian's table",
        f"base = {short_fraction(Fraction(a, b))} with radius R = {radius} "
        f"(w(0) has R^2 log2 b = {bits} bits)",
    )
    rr = radius * radius
    return [a ** (z * z) * b ** (rr - z * z) for z in range(radius + 1)]


def largest_radius(sigma2: Fraction, precision: int) -> int:
    """The largest ``R`` with ``floor(2^P exp(-R^2/(2 sigma^2))) >= 1``.

    That is ``R^2 <= 2 sigma^2 P ln 2``.

    >>> largest_radius(Fraction(1), 10)
    3
    """
    # R^2 <= 2 sigma^2 P ln 2 exactly when e^(-R^2/(2 sigma^2)) >= 2^-P; ln 2 is irrational,
    # so R^2 / (2 sigma^2 P) is never equal to it and a fine enough bracket decides.
    scale = 2 * sigma2 * precision
    bits = 64 + (scale.numerator // scale.denominator + 1).bit_length()
    while True:
        low, high = ln_bounds(Fraction(2), bits)
        r_low, r_high = _floor_sqrt(scale * low), _floor_sqrt(scale * high)
        if r_low == r_high:
            return r_low  # r^2 <= scale * low < scale * ln 2, and (r + 1)^2 > scale * high
        bits *= 2


def _floor_sqrt(x: Fraction) -> int:
    """``floor(sqrt(x))`` for a rational ``x >= 0``."""
    return isqrt(x.numerator // x.denominator)


def fixed_precision_weights(
    sigma2: Fraction, radius: int, precision: int
) -> list[int] | array[int]:
    """``w(z) = floor(2^P exp(-z^2 / (2 sigma^2)))`` for ``z = 0..R``, every floor exact.

    Args:
        sigma2: the ideal law's ``sigma^2``, a positive rational.
        radius: ``R``; ``w(R)`` must be at least 1.
        precision: ``P``, the bits of ``w(0) = 2^P``.

    Returns:
        The weights: an ``array('Q')`` (8 bytes each) when ``P`` is below 63,
        else a list of Python ints.

    Raises:
        ParameterError: ``w(R) = 0`` (the message gives the largest valid ``R``);
        ResourceLimitError: the table is too large.
    """
    require_memory(
        table_bytes(radius + 1, precision + radius.bit_length()),
        "the discrete Gaussian's table",
        f"sigma^2 = {short_fraction(sigma2)}, radius R = {radius} "
        f"({describe_bytes(table_bytes(radius + 1, precision))} for R + 1 weights)",
    )
    out: list[int] | array[int] = array("Q") if precision < 63 else []
    out.append(1 << precision)
    for z, w in enumerate(_floor_chain(sigma2, radius, 1 << precision), start=1):
        if w == 0:
            raise ParameterError(
                f"radius: got R = {radius}; at precision P = {precision} the weight "
                f"floor(2^P exp(-z^2/(2 sigma^2))) is 0 from z = {z} on, so R can be at most "
                f"{z - 1}; raise the precision or lower R"
            )
        out.append(w)
    return out


def scaled_floor_weights(sigma2: Fraction, radius: int, scale: int) -> list[int]:
    """``floor(X exp(-z^2/(2 sigma^2)))`` for ``z = 1..R`` and an integer scale ``X``, each exact.

    :func:`fixed_precision_weights` is the case ``X = 2^P`` (with ``w(0)``).

    >>> scaled_floor_weights(Fraction(1), 3, 1000)   # floor(1000 e^(-z^2/2))
    [606, 135, 11]
    """
    return list(_floor_chain(sigma2, radius, scale))


def largest_scaled_radius(sigma2: Fraction, scale: int) -> int:
    """The largest ``R`` with ``floor(X exp(-R^2/(2 sigma^2))) >= 1``: ``R^2 <= 2 sigma^2 ln X``.

    >>> largest_scaled_radius(Fraction(1), 1000)   # 2 ln 1000 = 13.8
    3
    """
    if scale < 2:
        return 0
    bits = 64 + (2 * sigma2 * scale.bit_length()).__ceil__().bit_length()
    while True:  # ln X is irrational for X >= 2: a fine enough bracket decides
        low, high = ln_bounds(Fraction(scale), bits)
        r_low, r_high = _floor_sqrt(2 * sigma2 * low), _floor_sqrt(2 * sigma2 * high)
        if r_low == r_high:
            return r_low
        bits *= 2


def _floor_chain(sigma2: Fraction, radius: int, scale: int) -> Iterator[int]:
    """``floor(X g(z))`` for ``z = 1..R``: two fixed-point chains, exact where they disagree."""
    shift = 64 + radius.bit_length() + 8  # guard bits: each step loses at most one ulp per chain
    frac = scale.bit_length() + shift
    c_low, c_high = _fixed_exp_bounds(-1 / (2 * sigma2), frac)  # c(0) = r = e^(-1/(2 s^2))
    q_low, q_high = _fixed_exp_bounds(-1 / sigma2, frac)  # r^2
    g_low = g_high = 1 << frac
    for z in range(1, radius + 1):
        g_low = g_low * c_low >> frac
        g_high = -(-g_high * c_high >> frac)
        c_low = c_low * q_low >> frac
        c_high = -(-c_high * q_high >> frac)
        low, high = scale * g_low >> frac, scale * g_high >> frac
        if low > high:  # pragma: no cover - the chains bracket the weight by construction
            raise AssertionError(f"the fixed-point chains crossed at z = {z}")
        yield low if low == high else _exact_floor(z, sigma2, scale, low, high)


def _fixed_exp_bounds(x: Fraction, frac: int) -> tuple[int, int]:
    """Integers ``lo <= 2^frac e^x <= hi`` (``x <= 0``)."""
    low, high = exp_bounds(x, frac + 8)
    return (low.numerator << frac) // low.denominator, -(
        -(high.numerator << frac) // high.denominator
    )


def _exact_floor(z: int, sigma2: Fraction, scale: int, low: int, high: int) -> int:
    """The largest ``k`` in ``[low, high]`` with ``k <= X e^(-z^2/(2 sigma^2))``, exactly."""
    x = -Fraction(z * z) / (2 * sigma2)
    for k in range(high, low, -1):
        if compare_exp(Fraction(k, scale), x) <= 0:
            return k
    return low
