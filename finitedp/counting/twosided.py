"""The two-sided geometric clamped to ``[-R, R]``: noise that is ``eps``-DP per unit change.

Paper: BV Alg 4.8 (GeoSample, Thm 4.7) at count ``R`` of ``[0, 2R]``; Lebeda
thesis Alg 9 (Threshold2) and Section 3.5.2 (Private Misra-Gries), which ask for
geometric noise in place of Laplace.

Unlike the counting samplers (budget ``eps`` is ``eps/2`` per count, BV's
relation moves two counts), :class:`ClampedGeometric` spends its whole ``eps``
on a change of one unit: its ratio ``alpha = a/b`` satisfies ``b/a <= e^eps``.
Clamping the noise (not the output) costs ``delta``: a value shifted by one
puts mass ``alpha^R/(1 + alpha)`` on each end where the other has none; the
mechanisms that use it account for that exactly.

>>> noise = ClampedGeometric(1, 4)
>>> noise.ratio, noise.r, sum(noise.pmf().values())
(Fraction(7, 19), 4, Fraction(1, 1))
>>> one_plus_epsilon(Fraction(1, 2)).alpha
Fraction(2, 3)
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from ..errors import ParameterError, ResourceLimitError
from ..exactmath import ceil_log_ratio
from ..oracle import RandomSource
from ..params import (
    check_positive_int,
    exact_fraction,
    positive_fraction,
    short_fraction,
    short_int,
)
from ..ratio import GeometricRatio
from .geosample import GeoSample

__all__ = [
    "EXACT_TAIL_BITS",
    "ClampedGeometric",
    "clamp_tail",
    "least_tail",
    "noise_radius",
    "one_plus_epsilon",
]


class ClampedGeometric:
    """A two-sided geometric of ratio ``a/b >= e^-eps``, clamped to ``[-R, R]``: one oracle call.

    Paper: BV Alg 4.8 (GeoSample) at count ``R`` of ``[0, 2R]``; Lebeda thesis
    Section 3.5.2 / Alg 9 (geometric noise in place of Laplace).

    Args:
        epsilon: the budget per unit change (``b/a <= e^eps``).
        r: the clamp ``R >= 1``.
        ratio: an explicit ratio ``a/b`` (``b/a <= e^eps`` is checked exactly), for
            instance :func:`one_plus_epsilon` for values on a grid; default the tight one.
        samples: how many samples the caller means to draw (the time estimate covers them).

    Raises:
        ResourceLimitError: memory or time estimated above the limits.
    """

    def __init__(
        self, epsilon: object, r: int, *, ratio: GeometricRatio | None = None, samples: int = 1
    ) -> None:
        self.epsilon = positive_fraction(epsilon, "epsilon")
        self.r = check_positive_int(r, "R")
        chosen = {"noise": "tight"} if ratio is None else {"ratio": ratio}
        try:
            self.sampler = GeoSample(2 * self.r, 2 * self.epsilon, samples=samples, **chosen)
        except ResourceLimitError as error:  # GeoSample's n is 2R: name R and epsilon
            detail = str(error).partition(": ")[2] or str(error)
            raise ResourceLimitError(
                f"epsilon: got {short_fraction(self.epsilon)}, with the noise clamped to "
                f"[-R, R], R = {short_int(self.r)}: {detail}"
            ) from None

    @property
    def ratio(self) -> Fraction:
        """``alpha = a/b``, the geometric ratio (``b/a`` is the privacy ratio per unit)."""
        return self.sampler.noise.alpha

    def sample(self, rng: RandomSource) -> int:
        """One sample of ``clamp(Z, -R, R)``: one call ``uniform(d)``."""
        return self.sampler.sample(self.r, rng) - self.r

    @property
    def d(self) -> int:
        """The domain of the one draw ``uniform(d)`` a sample makes."""
        return self.sampler.d

    def values(self, draws: Sequence[int]) -> list[int]:
        """The samples that these draws make (:meth:`sample` as a function of its draw)."""
        return [z - self.r for z in self.sampler.invert_many([self.r] * len(draws), draws)]

    def below(self, j: int) -> int:
        """The integer ``F`` with ``clamp(Z, -R, R) >= j`` exactly when the draw is above it.

        The sample is the least ``z`` with ``F(R, z) >= u``, minus ``R`` (BV Alg 4.8), so
        it is below ``j`` exactly when ``F(R, j + R - 1) >= u``: ``0`` for ``j <= -R``
        (always at least ``j``), ``d`` for ``j > R`` (never).
        """
        return self.sampler.cdf(self.r, j + self.r - 1)

    def pmf(self) -> dict[int, Fraction]:
        """The exact law of the clamped noise."""
        return {z - self.r: p for z, p in self.sampler.pmf(self.r).items()}


def one_plus_epsilon(epsilon: Fraction) -> GeometricRatio:
    """The ratio ``a/b = 1/(1 + eps)`` exactly (``b/a = 1 + eps <= e^eps``)."""
    e = positive_fraction(epsilon, "epsilon")
    return GeometricRatio(e.denominator, e.denominator + e.numerator)


#: Above this many bits in ``alpha^j``'s terms a tail is stated by a certified upper
#: bound instead of exactly: the exact fraction would cost a quadratic gcd and
#: fill a release with megabytes of digits (``alpha = 10^6/(10^6 + 1)`` and
#: ``j = 1.6 * 10^6`` make 32-million-bit terms).  The vectors stay far below.
EXACT_TAIL_BITS = 4096

#: Significant bits of a certified tail bound: its relative excess is below
#: ``2^-(TAIL_BOUND_BITS - 2 log2 j)``.
TAIL_BOUND_BITS = 128


def clamp_tail(alpha: Fraction, j: int) -> Fraction:
    """``Pr[Z >= j] = alpha^j/(1 + alpha)`` for the two-sided geometric (``j >= 1``; for
    the clamped one when ``j <= R``): exact, or a certified upper bound when large.

    The value is exact when ``j`` times the bits of ``alpha`` is at most
    :data:`EXACT_TAIL_BITS`; otherwise it is at least the exact tail and within a
    relative ``2^-100`` of it (:func:`_power_above`: every rounding is upward), so a
    ``delta`` stated from it still holds.

    >>> clamp_tail(Fraction(1, 2), 3)
    Fraction(1, 12)
    >>> exact = Fraction(10**6, 10**6 + 1) ** 5000 / (1 + Fraction(10**6, 10**6 + 1))
    >>> 0 <= clamp_tail(Fraction(10**6, 10**6 + 1), 5000) - exact < exact / 2**100
    True
    """
    a, b = alpha.numerator, alpha.denominator
    if not 0 < a < b or not isinstance(j, int) or j < 1:
        raise ParameterError(f"clamp_tail: got alpha = {short_fraction(alpha)}, j = {j!r}")
    if j * max(a.bit_length(), b.bit_length()) <= EXACT_TAIL_BITS:
        return alpha**j / (1 + alpha)
    mantissa, shift = _power_above(a, b, j)
    # alpha^j b/(a + b), rounded up once more: still above the exact tail.
    top = mantissa * b
    return Fraction(-(-top // (a + b)), 1 << shift)


def _power_above(a: int, b: int, j: int) -> tuple[int, int]:
    """``(m, e)`` with ``m/2^e >= (a/b)^j`` and ``m`` of about :data:`TAIL_BOUND_BITS` bits.

    Square and multiply on ``TAIL_BOUND_BITS``-bit mantissas, each product rounded
    up: at most ``2 bits(j) + 1`` roundings, each a relative ``2^-(TAIL_BOUND_BITS - 1)``.
    """
    bits = TAIL_BOUND_BITS

    def rounded(m: int, e: int) -> tuple[int, int]:
        extra = m.bit_length() - bits
        if extra <= 0:
            return m, e
        return -(-m >> extra), e - extra  # ceil(m / 2^extra)

    shift = bits + b.bit_length() - a.bit_length()
    base = (-(-(a << shift) // b), shift)  # ceil(a 2^shift / b) >= (a/b) 2^shift
    result = (1, 0)
    for bit in bin(j)[2:]:
        result = rounded(result[0] * result[0], 2 * result[1])
        if bit == "1":
            result = rounded(result[0] * base[0], result[1] + base[1])
    return result


def least_tail(alpha: Fraction, bound: Fraction, factor: Fraction | int = 1) -> int:
    """The least ``j >= 1`` with ``factor * alpha^j/(1 + alpha) <= bound``, decided exactly.

    >>> least_tail(Fraction(1, 2), Fraction(1, 100))     # (1/2)^7 / (3/2) = 1/192 <= 1/100
    7
    """
    alpha = exact_fraction(alpha, "alpha")
    if not 0 < alpha < 1:
        raise ParameterError(f"alpha: got {alpha}; a geometric ratio lies in (0, 1)")
    # alpha^j <= bound (1 + alpha)/factor  <=>  (1/alpha)^j >= factor/(bound (1 + alpha))
    return max(1, ceil_log_ratio(1 / alpha, Fraction(factor) / (bound * (1 + alpha))))


def noise_radius(alpha: Fraction, beta: Fraction) -> int:
    """The least ``r >= 0`` with ``Pr[|Z| > r] = 2 alpha^(r+1)/(1 + alpha) <= beta``."""
    return max(0, least_tail(alpha, beta, 2) - 1)
