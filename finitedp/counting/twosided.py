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

from fractions import Fraction

from ..errors import ParameterError
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
from ..resources import python_seconds, require_time
from .geosample import GeoSample

__all__ = ["ClampedGeometric", "clamp_tail", "least_tail", "noise_radius", "one_plus_epsilon"]


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
        if ratio is None:
            self.sampler = GeoSample(2 * self.r, 2 * self.epsilon, noise="tight", samples=samples)
        else:
            self.sampler = GeoSample(2 * self.r, 2 * self.epsilon, ratio=ratio, samples=samples)

    @property
    def ratio(self) -> Fraction:
        """``alpha = a/b``, the geometric ratio (``b/a`` is the privacy ratio per unit)."""
        return self.sampler.noise.alpha

    def sample(self, rng: RandomSource) -> int:
        """One sample of ``clamp(Z, -R, R)``: one call ``uniform(d)``."""
        return self.sampler.sample(self.r, rng) - self.r

    def pmf(self) -> dict[int, Fraction]:
        """The exact law of the clamped noise."""
        return {z - self.r: p for z, p in self.sampler.pmf(self.r).items()}


def one_plus_epsilon(epsilon: Fraction) -> GeometricRatio:
    """The ratio ``a/b = 1/(1 + eps)`` exactly (``b/a = 1 + eps <= e^eps``)."""
    e = positive_fraction(epsilon, "epsilon")
    return GeometricRatio(e.denominator, e.denominator + e.numerator)


def clamp_tail(alpha: Fraction, j: int) -> Fraction:
    """``Pr[Z >= j] = alpha^j/(1 + alpha)`` for the two-sided geometric (``j >= 1``; for
    the clamped one when ``j <= R``).

    Raises:
        ResourceLimitError: the exact power (CPython's integers, ``j`` times the
            bits of ``alpha``) is estimated above the time budget.
    """
    bits = j * max(alpha.numerator.bit_length(), alpha.denominator.bit_length())
    require_time(
        python_seconds(bits, 2),
        f"the exact tail alpha^j/(1 + alpha), a fraction of {short_int(bits)}-bit integers",
        f"alpha = {short_fraction(alpha)}, j = {short_int(j)}",
        "choose a larger epsilon or delta",
    )
    return alpha**j / (1 + alpha)


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
