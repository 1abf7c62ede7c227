"""Exact measures on finite output distributions: statistical distance and privacy ratios.

Paper: BV Section 2 (the definition of (epsilon, delta)-differential privacy:
``P[M(x) in S] <= e^epsilon P[M(x') in S] + delta`` for neighbours ``x, x'``).

A distribution is a mapping from outputs to exact probabilities; an output
that is absent has probability 0.  Everything here is exact: the ratio
``e^epsilon`` of a pair is a ``Fraction``, or :data:`INFINITY` when one
distribution gives positive probability to an output the other never emits.

>>> p = {"a": Fraction(1, 2), "b": Fraction(1, 2)}
>>> q = {"a": Fraction(1, 4), "b": Fraction(3, 4)}
>>> statistical_distance(p, q), privacy_ratio(p, q), hockey_stick(p, q, Fraction(3, 2))
(Fraction(1, 4), Fraction(2, 1), Fraction(1, 8))
>>> max_ratio(p, {"a": Fraction(1)})
INFINITY
"""

from __future__ import annotations

import numbers
import reprlib
from collections.abc import Hashable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any, TypeAlias, TypeVar, overload

from ..errors import ParameterError, ParameterTypeError
from ..params import exact_fraction

__all__ = [
    "INFINITY",
    "Distribution",
    "Infinity",
    "Ratio",
    "hockey_stick",
    "is_distribution",
    "max_privacy_ratio",
    "max_ratio",
    "privacy_ratio",
    "renyi_moment",
    "statistical_distance",
]

#: Outputs mapped to exact probabilities; absent outputs have probability 0.
#: (Keys are ``Any`` rather than ``Hashable`` because ``Mapping`` is invariant
#: in its key type, so ``dict[str, Fraction]`` would not be accepted.)
Distribution: TypeAlias = Mapping[Any, Fraction]

_K = TypeVar("_K", bound=Hashable)


class Infinity:
    """The value of a ratio with a zero denominator: above every rational, equal only to itself.

    There is one instance, :data:`INFINITY`.

    >>> INFINITY > 10**100, Fraction(7) < INFINITY, INFINITY == INFINITY
    (True, True, True)
    """

    __slots__ = ()
    _instance: Infinity | None = None

    def __new__(cls) -> Infinity:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "INFINITY"

    def __reduce__(self) -> str:
        # Pickling by name keeps the singleton unique across a round trip.
        return "INFINITY"

    def __eq__(self, other: object) -> bool:
        return other is self

    def __hash__(self) -> int:
        return hash("finitedp.INFINITY")

    def __lt__(self, other: object) -> bool:
        return False if _orderable(other) else NotImplemented

    def __le__(self, other: object) -> bool:
        return other is self if _orderable(other) else NotImplemented

    def __gt__(self, other: object) -> bool:
        return other is not self if _orderable(other) else NotImplemented

    def __ge__(self, other: object) -> bool:
        return True if _orderable(other) else NotImplemented


def _orderable(other: object) -> bool:
    return isinstance(other, Infinity | numbers.Rational)


#: The unique :class:`Infinity`.
INFINITY = Infinity()

#: A likelihood ratio: exact, or infinite.
Ratio: TypeAlias = Fraction | Infinity


def _exceeds(a: Ratio, b: Ratio) -> bool:
    """Whether ``a > b`` (typed so that mypy accepts mixing Fraction and Infinity)."""
    if isinstance(a, Infinity):
        return not isinstance(b, Infinity)
    return not isinstance(b, Infinity) and a > b


def _probability(value: object, where: str) -> Fraction:
    if isinstance(value, str):
        raise ParameterTypeError(f"{where}: got the string {value!r}; use a Fraction")
    p = exact_fraction(value, where)
    if not 0 <= p <= 1:
        raise ParameterError(f"{where}: got {p}; a probability must lie in [0, 1]")
    return p


def _validated(dist: object, name: str) -> dict[Any, Fraction]:
    """Check that every value of ``dist`` is an exact probability; return them as Fractions.

    Raises:
        ParameterTypeError: ``dist`` is not a mapping, or a value is not an exact number.
        ParameterError: a value lies outside ``[0, 1]``.
    """
    if not isinstance(dist, Mapping):
        raise ParameterTypeError(
            f"{name}: got a {type(dist).__name__}; a distribution maps outputs to Fractions"
        )
    return {o: _probability(v, f"{name}[{reprlib.repr(o)}]") for o, v in dist.items()}


def statistical_distance(p: Distribution, q: Distribution) -> Fraction:
    """Half the L1 distance between two distributions.

    Args:
        p: a distribution.
        q: another.

    Returns:
        ``(1/2) * sum over o of |p(o) - q(o)|``.

    Raises:
        ParameterError: a probability outside ``[0, 1]``.
        ParameterTypeError: a value that is not an exact number.
    """
    pv, qv = _validated(p, "p"), _validated(q, "q")
    total = sum((abs(v - qv.get(o, 0)) for o, v in pv.items()), Fraction(0))
    total += sum((v for o, v in qv.items() if o not in pv), Fraction(0))
    return total / 2


def max_ratio(p: Distribution, q: Distribution) -> Ratio:
    """The largest ``p(o) / q(o)`` over outputs with ``p(o) > 0``.

    Args:
        p: the numerator distribution.
        q: the denominator distribution.

    Returns:
        The ratio, :data:`INFINITY` if some ``p(o) > 0 = q(o)``, and 0 if
        ``p`` gives no output positive probability.

    Raises:
        ParameterError: a probability outside ``[0, 1]``.
        ParameterTypeError: a value that is not an exact number.
    """
    pairs = _on_support(_validated(p, "p"), _validated(q, "q"))
    if pairs is None:
        return INFINITY
    return max((v / w for v, w in pairs), default=Fraction(0))


def _on_support(
    pv: dict[Any, Fraction], qv: dict[Any, Fraction]
) -> list[tuple[Fraction, Fraction]] | None:
    """``(p(o), q(o))`` for every ``o`` with ``p(o) > 0``; ``None`` if some such ``q(o) = 0``."""
    pairs = []
    for o, v in pv.items():
        if v:
            w = qv.get(o, Fraction(0))
            if w == 0:
                return None
            pairs.append((v, w))
    return pairs


def privacy_ratio(p: Distribution, q: Distribution) -> Ratio:
    """The ``e^epsilon`` of a pair: the larger of ``max_ratio(p, q)`` and ``max_ratio(q, p)``.

    Args:
        p: a distribution.
        q: another.

    Returns:
        The smallest ``r`` with ``p <= r q`` and ``q <= r p`` output by output.

    Raises:
        ParameterError: a probability outside ``[0, 1]``.
        ParameterTypeError: a value that is not an exact number.
    """
    forward, backward = max_ratio(p, q), max_ratio(q, p)
    return backward if _exceeds(backward, forward) else forward


def hockey_stick(p: Distribution, q: Distribution, exp_epsilon: Fraction) -> Fraction:
    """The hockey-stick divergence: the least delta with ``p(S) <= e^eps q(S) + delta`` for all S.

    Args:
        p: a distribution.
        q: another.
        exp_epsilon: ``e^epsilon``, an exact rational ``>= 0``.

    Returns:
        ``sum over o of max(0, p(o) - exp_epsilon * q(o))``.

    Raises:
        ParameterError: a probability outside ``[0, 1]``, or ``exp_epsilon < 0``.
        ParameterTypeError: a value that is not an exact number.
    """
    c = exact_fraction(exp_epsilon, "exp_epsilon")
    if c < 0:
        raise ParameterError(f"exp_epsilon: got {c}; e^epsilon must be >= 0")
    pv, qv = _validated(p, "p"), _validated(q, "q")
    excess = (v - c * qv.get(o, 0) for o, v in pv.items())
    return sum((e for e in excess if e > 0), Fraction(0))


def renyi_moment(p: Distribution, q: Distribution, order: int) -> Ratio:
    """``sum_o p(o)^order q(o)^(1 - order)``; the Renyi divergence is its log over ``order - 1``.

    For an integer ``order >= 2`` the sum is rational, so a claim
    ``D_order(p || q) <= tau`` is decided exactly as ``moment <= e^((order - 1) tau)``
    (:func:`~finitedp.exactmath.compare_exp`).

    >>> half, quarter = Fraction(1, 2), Fraction(1, 4)
    >>> renyi_moment({0: half, 1: half}, {0: quarter, 1: 1 - quarter}, 2)
    Fraction(4, 3)

    Returns:
        The moment, or :data:`INFINITY` if some ``p(o) > 0 = q(o)``.

    Raises:
        ParameterError: ``order`` is not an integer ``>= 2``, or a probability outside ``[0, 1]``.
    """
    if isinstance(order, bool) or not isinstance(order, int) or order < 2:
        raise ParameterError(f"order: got {order!r}; it must be an int >= 2")
    pairs = _on_support(_validated(p, "p"), _validated(q, "q"))
    if pairs is None:
        return INFINITY
    return sum((v**order / w ** (order - 1) for v, w in pairs), Fraction(0))


@overload
def max_privacy_ratio(
    dists: Sequence[Distribution], pairs: Iterable[tuple[int, int]]
) -> tuple[Ratio, tuple[int, int]]: ...


@overload
def max_privacy_ratio(
    dists: Mapping[_K, Distribution], pairs: Iterable[tuple[_K, _K]]
) -> tuple[Ratio, tuple[_K, _K]]: ...


def max_privacy_ratio(
    dists: Any, pairs: Iterable[tuple[Any, Any]]
) -> tuple[Ratio, tuple[Any, Any]]:
    """The worst privacy ratio over neighbouring pairs, in both directions.

    Args:
        dists: the output distributions, indexed by input (a sequence or a mapping).
        pairs: the neighbouring ``(i, j)`` index pairs.

    Returns:
        ``(ratio, (i, j))`` with ``ratio = max_ratio(dists[i], dists[j])`` the
        largest over every pair and its reverse (the first such pair on ties).

    Raises:
        ParameterError: no pairs, an index that ``dists`` lacks, or a bad probability.
        ParameterTypeError: a value that is not an exact number.
    """
    checked: dict[Any, dict[Any, Fraction]] = {}
    best: tuple[Ratio, tuple[Any, Any]] | None = None
    for i, j in pairs:
        for a, b in ((i, j), (j, i)):
            ratio = max_ratio(_lookup(dists, a, checked), _lookup(dists, b, checked))
            if best is None or _exceeds(ratio, best[0]):
                best = (ratio, (a, b))
            if ratio is INFINITY:
                return best
    if best is None:
        raise ParameterError("pairs: got no pairs; give at least one neighbouring (i, j)")
    return best


def _lookup(dists: Any, index: Any, checked: dict[Any, dict[Any, Fraction]]) -> dict[Any, Fraction]:
    """``dists[index]``, validated once."""
    if index not in checked:
        try:
            dist = dists[index]
        except (KeyError, IndexError, TypeError):
            raise ParameterError(f"pairs: index {index!r} is not in dists") from None
        checked[index] = _validated(dist, f"dists[{index!r}]")
    return checked[index]


def is_distribution(p: object) -> bool:
    """Whether ``p`` maps outputs to exact probabilities in ``(0, 1]`` summing to exactly 1.

    Args:
        p: anything.

    Returns:
        True for a mapping whose values are exact rationals (not floats or
        bools), each in ``(0, 1]``, with sum exactly 1; False otherwise.
    """
    if not isinstance(p, Mapping):
        return False
    values = list(p.values())
    if not all(isinstance(v, numbers.Rational) and not isinstance(v, bool) for v in values):
        return False
    fractions = [Fraction(int(v.numerator), int(v.denominator)) for v in values]
    return all(0 < f <= 1 for f in fractions) and sum(fractions, Fraction(0)) == 1
