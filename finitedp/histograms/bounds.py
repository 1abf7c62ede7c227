"""Exact accuracy tables (BV Figs 3-5) and lower bounds (BV Thms 7.1-7.2).

Paper: BV Fig 3 (BasicHistogram), Fig 4 (StabilityHistogram), Fig 5
(PureSparseHistogram), Thm 7.1 (per-query and simultaneous lower bounds),
Thm 7.2 (per-query lower bound for sparse outputs).

Every entry is a ceiling of a multiple of a natural logarithm, evaluated
exactly by :func:`finitedp.exactmath.ceil_ln` (no floats).  ``counter`` names
the counting-query sampler: ``"geo"`` (GeoSample), ``"fast"`` (FastSample) or
``"geometric"`` (the ideal GeometricMechanism row of the figures).

>>> from fractions import Fraction
>>> table = basic_accuracy("fast", Fraction(1, 2), Fraction(1, 10), 1000)
>>> table.per_query, table.simultaneous  # ceil(9 ln 20), ceil(9 ln 20000)
(27, 90)
"""

from __future__ import annotations

from fractions import Fraction

from ..errors import ParameterError
from ..exactmath import ceil_ln
from ..guarantees import Accuracy
from ..params import check_positive_int, exact_fraction, positive_fraction
from .dataset import check_universe

__all__ = [
    "basic_accuracy",
    "per_query_lower_bound",
    "pure_sparse_accuracy",
    "simultaneous_lower_bound",
    "sparse_per_query_lower_bound",
    "stability_accuracy",
    "stability_threshold",
]

_COUNTERS = ("geo", "fast", "geometric")


def _scale(counter: str, epsilon: Fraction) -> Fraction:
    """The figures' ``9/(2 eps)`` for the samplers (since eps~ > 4 eps/9), ``2/eps`` ideally."""
    if counter not in _COUNTERS:
        raise ParameterError(f"counter: got {counter!r}; use one of {', '.join(_COUNTERS)}")
    return 2 / epsilon if counter == "geometric" else Fraction(9, 2) / epsilon


def basic_accuracy(counter: str, epsilon: Fraction, beta: Fraction, universe_size: int) -> Accuracy:
    """Fig 3 / Thm 5.3: accuracy of ``BasicHistogram_{M,X}``.

    For FastSample the per-query bound needs ``beta >= 2 gamma`` and the
    simultaneous one ``beta >= beta0``; the caller checks those ranges.
    """
    epsilon, beta = positive_fraction(epsilon, "epsilon"), positive_fraction(beta, "beta")
    universe_size = check_universe(universe_size)
    c, m = _scale(counter, epsilon), universe_size
    if counter == "fast":
        per_query, simultaneous = ceil_ln(c, 2 / beta), ceil_ln(c, 2 * m / beta)
    else:
        per_query, simultaneous = ceil_ln(c, 1 / beta), ceil_ln(c, m / beta)
    return Accuracy(beta, per_query, None, simultaneous, "BV Fig 3")


def stability_threshold(counter: str, epsilon: Fraction, delta: Fraction) -> int:
    """Fig 4 / Thm 5.6: the threshold ``b = 1 + ceil(c ln(k/delta))`` (``k = 4`` for FastSample)."""
    epsilon, delta = positive_fraction(epsilon, "epsilon"), positive_fraction(delta, "delta")
    c = _scale(counter, epsilon)
    return 1 + ceil_ln(c, (4 if counter == "fast" else 2) / delta)


def stability_accuracy(
    counter: str, n: int, epsilon: Fraction, delta: Fraction, beta: Fraction
) -> Accuracy:
    """Fig 4 / Thm 5.6: per-query ``(a, beta)`` on counts above ``t``, and simultaneous."""
    epsilon, delta = positive_fraction(epsilon, "epsilon"), positive_fraction(delta, "delta")
    beta, n = positive_fraction(beta, "beta"), check_positive_int(n, "n")
    c = _scale(counter, epsilon)
    if counter == "fast":
        a = ceil_ln(c, 2 / beta)
        t = 2 + ceil_ln(c, 8 / (beta * delta))
        simultaneous = 2 + ceil_ln(c, 8 * n / (beta * delta))
    else:
        a = ceil_ln(c, 1 / beta)
        t = 2 + ceil_ln(c, 2 / (beta * delta))
        simultaneous = 2 + ceil_ln(c, 2 * n / (beta * delta))
    return Accuracy(beta, a, t, simultaneous, "BV Fig 4")


def pure_sparse_accuracy(
    counter: str, epsilon: Fraction, beta: Fraction, universe_size: int
) -> Accuracy:
    """Fig 5 / Thm 6.11: per-query ``(a, beta)`` on counts above ``t``, and simultaneous."""
    epsilon, beta = positive_fraction(epsilon, "epsilon"), positive_fraction(beta, "beta")
    universe_size = check_universe(universe_size)
    if counter == "geometric":
        raise ParameterError("counter: Fig 5 has rows for 'geo' and 'fast' only")
    c, m = _scale(counter, epsilon), universe_size
    k = 2 if counter == "fast" else 1
    a = ceil_ln(c, 4 * k / beta)
    t = 2 * ceil_ln(c, 4 * k * m / beta)
    simultaneous = 2 * ceil_ln(c, 2 * k * m / beta)
    return Accuracy(beta, a, t, simultaneous, "BV Fig 5")


def _half_ceiling(coefficient: Fraction, ratio: Fraction) -> int:
    """The least integer ``a`` with ``a >= (coefficient ln(ratio) - 1) / 2``."""
    if ratio <= 0:
        raise ParameterError("lower bound: the logarithm's argument must be positive")
    k = ceil_ln(coefficient, ratio)  # least integer >= coefficient * ln(ratio)
    return -((1 - k) // 2)  # ceil((k - 1) / 2), as 2a + 1 >= k


def _lower_bound(terms: list[int], n: int) -> int:
    return max(0, min([*terms, -(-n // 2)]))


def _check(epsilon: object, delta: object, beta: object) -> tuple[Fraction, Fraction, Fraction]:
    epsilon, delta = exact_fraction(epsilon, "epsilon"), exact_fraction(delta, "delta")
    beta = exact_fraction(beta, "beta")
    if epsilon <= 0 or delta < 0 or not 0 < beta <= Fraction(1, 2):
        raise ParameterError(
            f"need epsilon > 0, delta >= 0 and beta in (0, 1/2]; got {epsilon}, {delta}, {beta}"
        )
    return epsilon, delta, beta


def _delta_term(epsilon: Fraction, delta: Fraction) -> list[int]:
    return [] if delta == 0 else [_half_ceiling(1 / epsilon, epsilon / (4 * delta))]


def per_query_lower_bound(epsilon: Fraction, delta: Fraction, beta: Fraction, n: int) -> int:
    """Thm 7.1 i: the least integer ``a`` any ``(eps, delta)``-DP ``(a, beta)``-per-query
    accurate histogram algorithm can have: ``a >= 1/2 min{ln(1/(4 beta))/eps - 1,
    ln(eps/(4 delta))/eps - 1, n}``."""
    epsilon, delta, beta = _check(epsilon, delta, beta)
    terms = [_half_ceiling(1 / epsilon, 1 / (4 * beta)), *_delta_term(epsilon, delta)]
    return _lower_bound(terms, n)


def simultaneous_lower_bound(
    epsilon: Fraction, delta: Fraction, beta: Fraction, n: int, universe_size: int
) -> int:
    """Thm 7.1 ii: as above for simultaneous accuracy, with ``ln((|X| - 1)/(4 beta))``."""
    epsilon, delta, beta = _check(epsilon, delta, beta)
    universe_size = check_universe(universe_size)
    if universe_size < 2:
        raise ParameterError("universe_size: Thm 7.1 ii needs |X| >= 2")
    first = _half_ceiling(1 / epsilon, (universe_size - 1) / (4 * beta))
    return _lower_bound([first, *_delta_term(epsilon, delta)], n)


def sparse_per_query_lower_bound(
    epsilon: Fraction, delta: Fraction, beta: Fraction, n: int, universe_size: int, n_prime: int
) -> int:
    """Thm 7.2: per-query lower bound for outputs with at most ``n'`` nonzero bins:
    ``a >= 1/2 min{ln(|X|/(16 beta n'))/(2 eps) - 1, ln(eps/(4 delta))/eps - 1, n}``."""
    epsilon, delta, beta = _check(epsilon, delta, beta)
    universe_size, n_prime = check_universe(universe_size), check_positive_int(n_prime, "n_prime")
    if n_prime < 1:
        raise ParameterError(f"n_prime: got {n_prime}; it must be a positive int")
    first = _half_ceiling(1 / (2 * epsilon), Fraction(universe_size) / (16 * beta * n_prime))
    return _lower_bound([first, *_delta_term(epsilon, delta)], n)
