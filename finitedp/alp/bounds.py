"""The ALP error bounds of thesis Section 2.4, evaluated exactly (rationals, or rational brackets).

Paper: Lebeda thesis Lemma 2.9 (last non-negative step of a simple random walk),
Lemma 2.10 and Fig 2.3a (expected error), Lemmas 2.12-2.14 and 2.18 (tails),
Lemmas 2.31-2.32 (Alg 10).

Where a bound involves ``pi`` or a logarithm, the functions here return a
rational that is provably on the safe side: ``tail_radius`` is an upper bound
of Lemma 2.13's radius, and ``tail_holds`` decides ``P <= Lemma 2.12's bound``
using ``pi <= 355/113``.

>>> walk_expectation(Fraction(1, 5))       # 4(p - p^2)/(1 - 2p)^2 at alpha = 3 (p = 1/5)
Fraction(16, 9)
>>> gamma(Fraction(3), Fraction(0))        # no collisions: gamma = alpha
Fraction(3, 1)
>>> entry_error_bound(Fraction(3), Fraction(1, 10))   # Fig 2.3a at alpha = 3, k/s = 0.1
Fraction(809, 48)
"""

from __future__ import annotations

from fractions import Fraction

from ..errors import ParameterError
from ..exactmath import ln_bounds
from ..params import exact_fraction, probability

__all__ = [
    "collision_flip",
    "entry_error_bound",
    "gamma",
    "histogram_error_bound",
    "tail_holds",
    "tail_radius",
    "walk_expectation",
    "y_error_bound",
]

#: ``pi <= 355/113`` (Zu Chongzhi; 355/113 - pi = 2.7e-7 > 0).
PI_UPPER = Fraction(355, 113)
#: ``sqrt(pi) >= 17724/10000`` (``1.7724^2 = 3.14140... < pi``).
SQRT_PI_LOWER = Fraction(17724, 10000)


def _probability_below_half(p: Fraction) -> Fraction:
    p = exact_fraction(p, "p")
    if not 0 <= p < Fraction(1, 2):
        raise ParameterError(f"p: got {p}; the random walks need 0 <= p < 1/2")
    return p


def walk_expectation(p: Fraction) -> Fraction:
    """Lemma 2.9: ``E[last n with S_n >= 0] = 4(p - p^2)/(1 - 2p)^2`` (up-probability ``p``)."""
    p = _probability_below_half(p)
    return 4 * (p - p * p) / (1 - 2 * p) ** 2


def gamma(alpha: Fraction, collision: Fraction) -> Fraction:
    """Lemma 2.10: ``gamma = (alpha + 2)/(1 + alpha k/s) - 2`` with ``collision = k/s``."""
    alpha, collision = exact_fraction(alpha, "alpha"), exact_fraction(collision, "collision")
    return (alpha + 2) / (1 + alpha * collision) - 2


def collision_flip(p: Fraction, collision: Fraction) -> Fraction:
    """The largest chance a bit past ``y_i`` reads 1: ``(1 - c) p + c (1 - p)`` with ``c = k/s``.

    Paper: Lebeda thesis proof of Lemma 2.10 (``1/(gamma + 2)``), Lemma 2.32.
    """
    p, collision = exact_fraction(p, "p"), exact_fraction(collision, "collision")
    return (1 - collision) * p + collision * (1 - p)


def y_error_bound(alpha: Fraction, collision: Fraction) -> Fraction:
    """Lemma 2.10: ``E|y_i - y~_i| <= (4 alpha + 4)/alpha^2 + (4 gamma + 4)/gamma^2``.

    Raises:
        ParameterError: ``collision >= 1/2`` (then ``gamma <= 0``; Alg 2 needs ``s > 2k``).
    """
    alpha = exact_fraction(alpha, "alpha")
    g = gamma(alpha, collision)
    if g <= 0:
        raise ParameterError(f"collision: got {collision}; Lemma 2.10 needs k/s < 1/2")
    return (4 * alpha + 4) / alpha**2 + (4 * g + 4) / g**2


def entry_error_bound(alpha: Fraction, collision: Fraction) -> Fraction:
    """Fig 2.3a / Lemma 2.11: ``E|x_i - x~_i| <= (1/2 + Lemma 2.10) alpha`` at ``eps = 1``."""
    return (Fraction(1, 2) + y_error_bound(alpha, collision)) * exact_fraction(alpha, "alpha")


def histogram_error_bound(exp_epsilon: Fraction, collision: Fraction) -> Fraction:
    """Lemma 2.32 with ``b/a`` for ``e^eps``: the bound on ``E|x_i - x~_i|`` for Alg 10 + Alg 3.

    With ``r = b/a`` and ``p = 1/(r + 1)``: the negative side is Lemma 2.9 at ``p``
    (``4r/(r - 1)^2``), the positive side Lemma 2.9 at the collision-raised
    ``p' = 1/(gamma + 2)`` (``(4 gamma + 4)/gamma^2``).
    """
    r = exact_fraction(exp_epsilon, "exp_epsilon")
    if r <= 1:
        raise ParameterError(f"exp_epsilon: got {r}; need b/a > 1")
    p = 1 / (r + 1)
    return walk_expectation(p) + walk_expectation(collision_flip(p, collision))


def tail_holds(chance: Fraction, p: Fraction, tau: int) -> bool:
    """Whether ``chance <= 2 (4(p - p^2))^(tau/2) / (sqrt(pi) (1 - 2p))`` (Lemma 2.12).

    Decided exactly by squaring and ``pi <= 355/113`` (a ``True`` is a proof; a
    ``False`` could only be wrong within ``3e-7`` relative, and none is expected).
    """
    p = _probability_below_half(p)
    c = 4 * (p - p * p)
    return exact_fraction(chance, "chance") ** 2 * PI_UPPER * (1 - 2 * p) ** 2 <= 4 * c**tau


def tail_radius(p: Fraction, beta: Fraction) -> Fraction:
    """An upper bound of Lemma 2.13's radius.

    ``tau = 2 log(2/(beta sqrt(pi)(1 - 2p))) / log(1/(4p - 4p^2))``.

    Pr[|y_i - y~_i| > tau] <= beta for the walk parameter ``p`` (the collision-raised one).
    The ratio of logarithms does not depend on their base.
    """
    p = _probability_below_half(p)
    beta = probability(beta, "beta")
    if p == 0:
        return Fraction(0)
    top = 2 / (beta * SQRT_PI_LOWER * (1 - 2 * p))
    top_high = ln_bounds(top)[1] if top > 1 else Fraction(0)
    bottom_low = ln_bounds(1 / (4 * p - 4 * p * p))[0]
    return 2 * top_high / bottom_low


def ceil_fraction(x: Fraction) -> int:
    """``ceil(x)`` for a rational."""
    return -(-x.numerator // x.denominator)  # integer division only
