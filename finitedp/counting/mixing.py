"""Mixing with a fixed distribution to turn approximate into pure privacy.

Paper: BV Alg 3.1, Lemma 3.2.

``Mixture(mechanism, fallback, gamma)`` releases ``mechanism(data)`` with
probability ``1 - gamma`` and a draw from ``fallback`` otherwise.  If
``mechanism`` is within statistical distance ``delta`` of an ``eps``-DP
algorithm on every input, the mixture is ``eps``-DP provided condition (1)::

    delta <= (e^eps - 1)/(e^eps + 1) * gamma/(1 - gamma) * min_r Pr[fallback = r]

:func:`satisfies_condition_1` decides (1) exactly, for a rational ``eps`` or a
rational ``e^eps``.

Both branches always run, and the choice is made afterwards: otherwise the
time and the oracle calls would reveal which branch was released, and the
mechanism's branch alone is only ``(eps, (1 + e^eps) delta)``-DP.

>>> satisfies_condition_1(delta=Fraction(1, 1000), gamma=Fraction(1, 2),
...                       min_probability=Fraction(1, 4), exp_epsilon=Fraction(2))
True
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Generic, TypeVar

from ..errors import ParameterError
from ..exactmath import compare_exp
from ..oracle import RandomSource, default_source, draw
from ..params import exact_fraction, inverse_natural, probability, short_fraction

__all__ = ["Mixture", "satisfies_condition_1"]

Data = TypeVar("Data")
Release = TypeVar("Release")


def satisfies_condition_1(
    *,
    delta: object,
    gamma: object,
    min_probability: object,
    epsilon: object = None,
    exp_epsilon: object = None,
) -> bool:
    """Decide condition (1) of BV Lemma 3.2 exactly.

    Args:
        delta: the statistical distance of the mechanism from an ``eps``-DP one.
        gamma: the mixing weight in ``(0, 1)``.
        min_probability: the least probability the fallback gives any output.
        epsilon: ``eps`` as a rational (then ``e^eps`` is bracketed rigorously), or
        exp_epsilon: ``e^eps`` as a rational; give exactly one of the two.

    Returns:
        Whether ``delta (1 - gamma)(e^eps + 1) <= (e^eps - 1) gamma p`` holds.

    Raises:
        ParameterError: a value out of range, or not exactly one of ``epsilon``, ``exp_epsilon``.
    """
    dlt = probability(delta, "delta", allow_zero=True)
    gam = probability(gamma, "gamma")
    p = probability(min_probability, "min_probability", allow_one=True)
    if (epsilon is None) == (exp_epsilon is None):
        raise ParameterError("give exactly one of epsilon and exp_epsilon")
    # Rearranged: e^eps * (gamma p - delta (1 - gamma)) >= gamma p + delta (1 - gamma).
    gain, loss = gam * p, dlt * (1 - gam)
    if gain <= loss:
        return False
    needed = (gain + loss) / (gain - loss)
    if exp_epsilon is not None:
        return exact_fraction(exp_epsilon, "exp_epsilon") >= needed
    return compare_exp(needed, exact_fraction(epsilon, "epsilon")) <= 0


class Mixture(Generic[Data, Release]):
    """BV's ``M*_{M', D, gamma}``: ``M'(data)`` w.p. ``1 - gamma``, else a draw from ``D``.

    Paper: BV Alg 3.1, Lemma 3.2.

    Args:
        mechanism: ``M'``, called as ``mechanism(data, rng)``.
        fallback: a sampler of ``D``, called as ``fallback(rng)``.
        gamma: the fallback's weight, ``1/g`` with ``g >= 2`` (one oracle call decides).

    Raises:
        ParameterError: ``gamma`` not of the form ``1/g``.
    """

    __slots__ = ("_fallback", "_gamma", "_mechanism")

    def __init__(
        self,
        mechanism: Callable[[Data, RandomSource], Release],
        fallback: Callable[[RandomSource], Release],
        gamma: object,
    ) -> None:
        self._mechanism = mechanism
        self._fallback = fallback
        self._gamma = inverse_natural(gamma, "gamma", below_one=True)

    @property
    def gamma(self) -> Fraction:
        """The probability of releasing the fallback's draw."""
        return self._gamma

    def __call__(self, data: Data, rng: RandomSource | None = None) -> Release:
        """Release from the mixture: one draw in ``[1, 1/gamma]`` picks the branch.

        Both branches run whatever the pick, so the oracle calls made do not
        depend on it.
        """
        rng = rng or default_source()
        pick = draw(rng, self._gamma.denominator)
        released = self._mechanism(data, rng)
        substitute = self._fallback(rng)
        return substitute if pick == 1 else released

    def require_pure_dp(
        self,
        *,
        delta: object,
        min_fallback_probability: object,
        epsilon: object = None,
        exp_epsilon: object = None,
    ) -> None:
        """Check condition (1) exactly for this mixture; raise if it fails.

        Raises:
            ParameterError: condition (1) does not hold, so Lemma 3.2 gives no pure guarantee.
        """
        if not satisfies_condition_1(
            delta=delta,
            gamma=self._gamma,
            min_probability=min_fallback_probability,
            epsilon=epsilon,
            exp_epsilon=exp_epsilon,
        ):
            target = (
                f"epsilon = {short_fraction(exact_fraction(epsilon, 'epsilon'))}"
                if epsilon is not None
                else f"e^epsilon = {short_fraction(exact_fraction(exp_epsilon, 'exp_epsilon'))}"
            )
            raise ParameterError(
                f"condition (1) of BV Lemma 3.2 fails for {target}, "
                f"delta = {short_fraction(exact_fraction(delta, 'delta'))}, gamma = "
                f"{short_fraction(self._gamma)}, min fallback probability = "
                f"{short_fraction(exact_fraction(min_fallback_probability, 'p'))}; "
                f"raise gamma or lower delta"
            )
