"""Certified bounds for a discrete Gaussian built as a convolution of small tables.

Paper: the lattice-sum (Poisson summation) identity behind Peikert 2010, Thm 3.1
and Micciancio & Walter 2017 (a wide Gaussian from narrow ones); proved for
this law in proofs_notes/convolved_gaussian.md, whose symbols this module uses.

:class:`~.convolved.ConvolvedGaussian` samples ``Z = J + L Y`` level by level.
Writing ``g_s(x) = exp(-x^2/(2 s^2))``, every level's law ``p`` is held in a
*sandwich* around the ideal shape on a window ``|z| <= T``::

    p(z) <= K (1 + eps) g(z)           for every z,
    p(z) >= K (1 - eta) g(z)           for |z| <= T,

for some constant ``K``; :func:`level_bounds` carries ``(eps, eta)`` from ``Y``
to ``J + L Y`` and :func:`statement` turns the last level's pair into the
``rho'`` of the zCDP statement.  Every figure is a rational bound, rounded the
safe way: ``pi`` enters only through ``PI_LOW < pi``, exponentials through
:func:`~finitedp.exactmath.exp_bounds`, square roots through integer square
roots.

>>> lattice_excess(Fraction(9)) < Fraction(1, 2**180)   # e^(-18 pi^2) is about 2^-256
True
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from math import isqrt

from ..accounting.convert import sqrt_upper
from ..exactmath import exp_bounds

__all__ = [
    "PI_HIGH",
    "PI_LOW",
    "LevelShape",
    "gaussian_tail",
    "lattice_excess",
    "level_bounds",
    "margin",
    "pi_bounds",
    "root_up",
    "round_up",
    "sqrt_lower",
    "statement",
    "theta_bounds",
]

#: Rationals around pi (pi - 333/106 = 8.3e-5, 355/113 - pi = 2.7e-7): each bound uses
#: the one that can only make it larger.
PI_LOW = Fraction(333, 106)
PI_HIGH = Fraction(355, 113)

#: Bits of absolute precision of every exponential bracket.
BITS = 192

#: Exponents are rounded up to a multiple of ``2^-GRID`` first (short rationals are fast).
GRID = 32

#: ``tau``, the lattice sum's tail outside a window, is aimed at ``e^-TAIL_EXPONENT``.
TAIL_EXPONENT = 72


def _exp_upper(x: Fraction) -> Fraction:
    """A rational ``>= e^x``: ``x`` rounded up to the grid, then the bracket's top."""
    scaled = x * (1 << GRID)
    return exp_bounds(Fraction(-(-scaled.numerator // scaled.denominator), 1 << GRID), BITS)[1]


@functools.lru_cache(maxsize=8)
def pi_bounds(bits: int) -> tuple[Fraction, Fraction]:
    """Rationals ``lo < pi < hi`` with ``hi - lo < 2^-bits`` (Machin's formula).

    ``pi = 16 atan(1/5) - 4 atan(1/239)``; each arctangent's series alternates
    with falling terms, so consecutive partial sums bracket it.

    >>> lo, hi = pi_bounds(64)
    >>> float(lo), float(hi), lo < hi < lo + Fraction(1, 2**64)
    (3.141592653589793, 3.141592653589793, True)
    """

    def atan_bracket(k: int) -> tuple[Fraction, Fraction]:
        total, term, i = Fraction(0), Fraction(1, k), 0
        while term * 32 >= Fraction(1, 1 << bits):
            total += term if i % 2 == 0 else -term
            i += 1
            term = Fraction(1, (2 * i + 1) * k ** (2 * i + 1))
        after = total + (term if i % 2 == 0 else -term)
        return min(total, after), max(total, after)

    a_lo, a_hi = atan_bracket(5)
    b_lo, b_hi = atan_bracket(239)
    return 16 * a_lo - 4 * b_hi, 16 * a_hi - 4 * b_lo


def sqrt_lower(x: Fraction, bits: int = 64) -> Fraction:
    """A rational ``<= sqrt(x)`` within ``2^-bits`` of it (``x >= 0``).

    >>> sqrt_lower(Fraction(9, 4))
    Fraction(3, 2)
    """
    scaled = x * (1 << (2 * bits))
    return Fraction(isqrt(scaled.numerator // scaled.denominator), 1 << bits)


def lattice_excess(v: Fraction) -> Fraction:
    """``eps_v >= 2 sum_{k >= 1} e^(-2 pi^2 k^2 v)``: how far ``sum_y e^(-(y-c)^2/(2v))``
    can be from ``sqrt(2 pi v)``, relatively, at any centre ``c`` (Poisson summation).

    ``k^2 >= 1 + 3 (k - 1)`` makes the sum at most ``2 q / (1 - q^3)`` with
    ``q = e^(-2 pi^2 v)``, and ``PI_LOW < pi`` rounds ``q`` up.
    """
    q = _exp_upper(-2 * PI_LOW * PI_LOW * v)
    return 2 * q / (1 - q * q * q)


def gaussian_tail(distance: Fraction, v: Fraction) -> Fraction:
    """An upper bound of ``sum`` over integers ``y`` with ``|y - c| > D`` of ``e^(-(y-c)^2/(2v))``.

    On each side the ``k``-th such ``y`` is at least ``D + k`` from ``c``, and
    ``(D + k)^2 >= D^2 + 2 D k``: at most ``2 e^(-D^2/(2v)) / (1 - e^(-D/v))``.
    """
    if distance <= 0:
        raise ValueError("the window leaves no margin")  # callers check first
    y = distance / v
    # 1 - e^-y >= y (1 - y/2) for 0 < y <= 1 (the series alternates): no rounding of a
    # tiny exponent to 0 can make the denominator vanish
    below = y * (1 - y / 2) if y <= 1 else 1 - _exp_upper(-y)
    return 2 * _exp_upper(-distance * distance / (2 * v)) / below


def margin(v: Fraction) -> int:
    """The lattice distance ``D`` that puts :func:`gaussian_tail` near ``e^-TAIL_EXPONENT``."""
    need = 2 * TAIL_EXPONENT * v  # D^2 / (2 v) >= TAIL_EXPONENT
    return isqrt(need.numerator // need.denominator) + 2


@dataclass(frozen=True)
class LevelShape:
    """The public numbers of one level ``Z = J + L Y`` (proof note, "One level")."""

    lattice: int  # L
    base_sigma2: Fraction  # sigma_J^2
    base_scale: int  # X_J: w_J(j) = floor(X_J g_J(j)) for j != 0
    base_above: Fraction  # w_J(0)/X_J - 1 >= 0
    base_radius: int  # R_J: w_J(j) >= 1 exactly for |j| <= R_J
    inner_sigma2: Fraction  # sigma_Y^2

    @property
    def sigma2(self) -> Fraction:
        """``sigma^2 = sigma_J^2 + L^2 sigma_Y^2`` of the level's ideal shape."""
        return self.base_sigma2 + self.lattice**2 * self.inner_sigma2

    @property
    def v(self) -> Fraction:
        """``v = sigma_J^2 sigma_Y^2 / sigma^2``: the spread of the lattice sum."""
        return self.base_sigma2 * self.inner_sigma2 / self.sigma2

    @cached_property
    def excess(self) -> Fraction:
        """``eps_v`` (:func:`lattice_excess`)."""
        return lattice_excess(self.v)

    @cached_property
    def root_low(self) -> Fraction:
        """A rational ``<= sqrt(2 pi v)``."""
        return sqrt_lower(2 * PI_LOW * self.v)

    @cached_property
    def root_high(self) -> Fraction:
        """A rational ``>= sqrt(2 pi v)``."""
        return sqrt_upper(2 * PI_HIGH * self.v)

    def distance(self, window: int, inner_window: int) -> Fraction:
        """``D``: every ``y`` left out at ``|z| <= window`` is farther than ``D`` from ``c``.

        Left out are ``|y| > inner_window`` (``|c| <= window L sigma_Y^2/sigma^2``) and
        ``|z - L y| > R_J`` (``|z/L - c| <= window sigma_J^2/(L sigma^2)``).
        """
        reach = window * self.lattice * self.inner_sigma2 / self.sigma2
        lean = window * self.base_sigma2 / (self.lattice * self.sigma2)
        return min(inner_window - reach, Fraction(self.base_radius, self.lattice) - lean)

    def reaches(self, window: int, inner_window: int) -> bool:
        """Whether the lemma applies: ``window <= z*`` and a positive margin ``D``."""
        return window <= self.largest_window() and self.distance(window, inner_window) > 0

    def inner_window(self, window: int, cap: int) -> int:
        """The window of ``Y`` leaving :func:`margin` steps around ``c`` (at most ``cap``)."""
        centre = window * self.lattice * self.inner_sigma2 / self.sigma2
        return min(cap, -(-centre.numerator // centre.denominator) + margin(self.v))

    def largest_window(self) -> Fraction:
        """``z* = R_J sigma^2 / sigma_J^2``: the bound on the absolute term needs ``T <= z*``."""
        return self.base_radius * self.sigma2 / self.base_sigma2


def level_bounds(
    shape: LevelShape, window: int, inner_window: int, inner_eps: Fraction, inner_eta: Fraction
) -> tuple[Fraction, Fraction] | None:
    """``(eps, eta)`` of ``J + L Y`` on ``|z| <= window`` from ``Y``'s on ``|y| <= inner_window``.

    ``1 + eps = (1 + eps_Y)(1 + eps_v)(1 + a_J)`` and
    ``1 - eta = (1 - eta_Y)(1 - eps_v - tau - A)``: ``a_J`` is how far ``J``'s centre
    sits above ``X_J``, ``tau`` the lattice sum outside the margin ``D`` and ``A`` the
    floors of ``J``'s other weights (each below ``X_J g_J`` by less than 1).  ``None``
    when the window is out of the lemma's reach (:meth:`LevelShape.reaches`) or
    ``eta >= 1``.
    """
    if not shape.reaches(window, inner_window):
        return None
    big_l, sigma2, v = shape.lattice, shape.sigma2, shape.v
    tau = gaussian_tail(shape.distance(window, inner_window), v) / shape.root_low
    over = max(0, window - shape.base_radius)
    exponent = Fraction(window * window) / (2 * sigma2) - Fraction(over * over) / (
        2 * big_l * big_l * shape.inner_sigma2
    )
    terms = 2 * shape.base_radius // big_l + 1  # y with |z - L y| <= R_J
    absolute = terms * _exp_upper(exponent) / (shape.root_low * shape.base_scale)
    keep = (1 - inner_eta) * (1 - shape.excess - tau - absolute)
    if keep <= 0:
        return None
    return (1 + inner_eps) * (1 + shape.excess) * (1 + shape.base_above) - 1, 1 - keep


def statement(eps: Fraction, eta: Fraction) -> Fraction:
    """``u >= ln((1 + eps)/(1 - eta))``, the ``rho`` a sandwich adds (``ln x <= x - 1``)."""
    return (eps + eta) / (1 - eta)


def round_up(x: Fraction, scale: Fraction | None = None) -> Fraction:
    """``x`` rounded up to 64 bits below ``scale`` (default ``x``): a short certified figure."""
    unit = scale if scale else x
    if x <= 0 or unit <= 0:
        return x
    bits = 64 + unit.denominator.bit_length() - unit.numerator.bit_length()
    scaled = x * (1 << bits) if bits >= 0 else x / (1 << -bits)
    top = -(-scaled.numerator // scaled.denominator)
    return Fraction(top, 1 << bits) if bits >= 0 else Fraction(top * (1 << -bits))


def root_up(x: Fraction, k: int, bits: int = 64) -> Fraction:
    """A rational ``>= x^(1/k)`` within about ``2^-bits`` relative (``x > 0``).

    >>> root_up(Fraction(8), 3)
    Fraction(2, 1)
    """
    shift = bits + max(0, (x.denominator.bit_length() - x.numerator.bit_length()) // k + 1)
    scaled = x * (1 << (k * shift))
    top = -(-scaled.numerator // scaled.denominator)
    r = _iroot(top, k)
    if r**k < top:
        r += 1
    return Fraction(r, 1 << shift)


def _iroot(n: int, k: int) -> int:
    """The largest ``r`` with ``r^k <= n``."""
    if n < 2:
        return n
    r = 1 << -(-n.bit_length() // k)  # above the root
    while True:
        s = ((k - 1) * r + n // r ** (k - 1)) // k
        if s >= r:
            return r
        r = s


def theta_bounds(v: Fraction, bits: int) -> tuple[Fraction, Fraction]:
    """Rationals around ``G = sum_z exp(-z^2/(2v))``, within about ``2^-bits`` relative.

    For ``v < 1`` the sum itself; else Poisson summation,
    ``G = sqrt(2 pi v) (1 + 2 sum_{k >= 1} exp(-2 pi^2 k^2 v))``.  Either is summed while
    the terms may exceed ``2^-(bits + 8)``; the rest is at most twice the first term
    left out (each later one is below half the one before).  ``pi`` and the exponents
    are rounded to ``2^-(bits + 16)`` the safe way first.

    >>> low, high = theta_bounds(Fraction(1), 64)
    >>> float(low), high - low < Fraction(1, 2**60)
    (2.5066282880429056, True)
    """
    grid = bits + 16
    small = Fraction(1, 1 << (bits + 8))
    if v < 1:  # the terms themselves fall fast: sum them (ratio below 1/2 from z = 1 on)
        total_low = total_high = Fraction(1)
        z = 1
        while True:
            x = Fraction(z * z) / (2 * v)
            if x * 10 >= 7 * (bits + 8):  # e^-x <= 2^-(bits + 8): ln 2 < 7/10
                return total_low, total_high + 4 * small
            low, high = exp_bounds(-x, grid)
            total_low, total_high = total_low + 2 * low, total_high + 2 * high
            z += 1
    lo, hi = pi_bounds(grid)
    pi_low, pi_high = _dyadic(lo, grid, up=False), _dyadic(hi, grid, up=True)
    series_low, series_high, k = Fraction(1), Fraction(1), 1
    while True:
        fast = 2 * pi_low * pi_low * k * k * v  # the exponent, rounded towards 0
        if fast * 10 >= 7 * (bits + 8):
            series_high += 4 * small
            break
        top = exp_bounds(-_dyadic(fast, grid, up=False), grid)[1]
        slow = 2 * pi_high * pi_high * k * k * v
        series_low += 2 * exp_bounds(-_dyadic(slow, grid, up=True), grid)[0]
        series_high += 2 * top
        k += 1
    root_low = sqrt_lower(2 * pi_low * v, grid)
    root_high = sqrt_upper(2 * pi_high * v, grid)
    return root_low * series_low, root_high * series_high


def _dyadic(x: Fraction, bits: int, *, up: bool) -> Fraction:
    """``x`` rounded to a multiple of ``2^-bits``, up or down."""
    scaled = x * (1 << bits)
    whole = (
        -(-scaled.numerator // scaled.denominator) if up else scaled.numerator // scaled.denominator
    )
    return Fraction(whole, 1 << bits)
