"""Rational budget splits ``b`` for vector sums, with certified distance to the optimum.

Paper: Lebeda thesis Lemma 4.8 / Thm 4.1 (Gaussian: ``||b||_2 = 1``, optimum at
``b_i ∝ Delta_i^(p/(p+2))``, objective ``||Delta||_{2p/(p+2)}^p``) and Lemma 4.11
/ Thm 4.2 (Laplace: ``||b||_1 = 1``, optimum at ``b_i ∝ Delta_i^(p/(p+1))``,
objective ``||Delta||_{p/(p+1)}^p``); Section 4.3 for the other splits (the
standard mechanisms, Mark's proportional noise, the "sweet spot").

The expected error is a constant times the objective ``F(b) = sum (Delta_i/b_i)^p``
(Lemmas 4.7 and 4.10).  The optimal ``b`` is irrational in general.
:func:`budget_split` rounds ``Delta_i^e`` down to ``x_i / 2^K`` (an integer root,
exact) and normalises exactly: ``b_i = x_i / sum x`` for ``l1``, ``b_i = x_i / s``
with ``s = ceil(sqrt(sum x^2))`` for ``l2``, so ``||b|| <= 1`` holds as rationals.
It states ``F(b)`` exactly and ``factor``, a rational upper bound of
``F(b) / optimum`` from a certified lower bound of the optimum (the same roots
at the optimal exponent, rounded down).

>>> s = budget_split([4, 1], "l1", p=1)       # Laplace, E ||eta||_1: b ∝ Delta^(1/2)
>>> s.b, s.objective, s.factor
((Fraction(2, 3), Fraction(1, 3)), Fraction(9, 1), Fraction(1, 1))
>>> budget_split([4, 1], "l1", p=1, exponent=1).objective   # standard Laplace: d ||Delta||_1
Fraction(10, 1)
>>> budget_split([4, 1], "l2", p=2).factor < 1 + Fraction(1, 10**12)
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import isqrt

import gmpy2

from ..errors import ParameterError
from ..params import (
    check_positive_int,
    exact_fraction,
    positive_fraction,
    short_fraction,
    short_int,
)

__all__ = [
    "EXACT_TERMS",
    "MAX_EXPONENT_TERMS",
    "SPLIT_BITS",
    "BudgetSplit",
    "budget_split",
    "exact_sum",
    "optimal_exponent",
]

#: ``Delta_i^e`` is rounded down to a multiple of ``2^-SPLIT_BITS`` (relative to the least).
SPLIT_BITS = 40

#: Up to this many distinct ``(Delta_i, b_i)`` the objective is exact; beyond, each term is
#: rounded up to ``2^-64`` of the least (an exact rational would have millions of digits).
EXACT_TERMS = 2048

#: The exponent ``u/v`` is taken as a ``v``-th root of a ``u``-th power: both are bounded.
MAX_EXPONENT_TERMS = 64


@dataclass(frozen=True)
class BudgetSplit:
    """A rational split ``b`` and what it costs against the optimum.

    Attributes:
        norm: ``"l1"`` (Laplace: ``sum b_i <= 1``) or ``"l2"`` (Gaussian: ``sum b_i^2 <= 1``).
        p: the error moment ``E ||eta||_p^p`` the split is for.
        exponent: ``e`` in ``b_i ∝ Delta_i^e`` (rounded as the module says).
        b: the split, exact rationals.
        objective: ``F(b) = sum (Delta_i/b_i)^p``: exact for at most ``EXACT_TERMS``
            distinct ``(Delta_i, b_i)``, else a rational upper bound within ``1 + 2^-64``.
        optimum_lower: a certified lower bound of ``min F`` (Lemma 4.8 / 4.11).
        factor: ``objective / optimum_lower >= F(b) / min F``.
        groups: coordinate ``i``'s index among the distinct sensitivities (equal
            ``Delta_i`` share one ``b_i``), in order of first appearance.
    """

    norm: str
    p: int
    exponent: Fraction
    b: tuple[Fraction, ...]
    objective: Fraction
    optimum_lower: Fraction
    factor: Fraction
    groups: tuple[int, ...] = ()

    def __repr__(self) -> str:
        # Long exact figures by their size: Python refuses str() past 4,300 digits.
        shown = ", ".join(short_fraction(x) for x in self.b[:8])
        more = f", ... ({len(self.b)} in all)" if len(self.b) > 8 else ""
        return (
            f"BudgetSplit(norm={self.norm!r}, p={self.p}, exponent="
            f"{short_fraction(self.exponent)}, b=({shown}{more}), factor="
            f"{short_fraction(self.factor)})"
        )


def optimal_exponent(norm: str, p: int) -> Fraction:
    """``p/(p+2)`` for ``l2`` (Lemma 4.8) and ``p/(p+1)`` for ``l1`` (Lemma 4.11)."""
    return Fraction(p, p + 2) if norm == "l2" else Fraction(p, p + 1)


def budget_split(
    sensitivities: Sequence[object], norm: str, *, p: object = 2, exponent: object = None
) -> BudgetSplit:
    """The rational split ``b_i ∝ Delta_i^e`` with ``||b|| <= 1``, and its certified cost.

    Paper: Lebeda thesis Lemmas 4.8 and 4.11 (the optimum), Section 4.3 (the
    others: ``e = 1`` is the standard mechanism, ``e = 0`` Mark's proportional
    noise, ``e = 1/2`` the sweet spot for ``l2``).

    Args:
        sensitivities: ``Delta_i > 0``, one per coordinate (rationals).
        norm: ``"l1"`` or ``"l2"``.
        p: a positive integer, the moment of the error.
        exponent: ``e >= 0`` rational; default the optimal one for ``norm`` and ``p``.

    Raises:
        ParameterError: an empty or non-positive sensitivity, an unknown norm, ``e < 0``,
            or, without ``exponent``, a ``p`` whose optimal exponent has terms above 64.
    """
    if norm not in ("l1", "l2"):
        raise ParameterError(f"norm: got {norm!r}; use 'l1' (Laplace) or 'l2' (Gaussian)")
    p = check_positive_int(p, "p")
    if not sensitivities:
        raise ParameterError("sensitivities: got none; give one per coordinate")
    deltas = [positive_fraction(s, f"sensitivities[{i}]") for i, s in enumerate(sensitivities)]
    best = optimal_exponent(norm, p)
    if exponent is None and best.denominator > MAX_EXPONENT_TERMS:
        # Name the caller's p: the exponent is ours, derived from it.
        raise ParameterError(
            f"p: got {short_int(p)}; the optimal split's exponent {short_fraction(best)} has "
            f"terms above {MAX_EXPONENT_TERMS} (it is taken by integer roots): choose p <= "
            f"{MAX_EXPONENT_TERMS - 2}, or give an exponent"
        )
    e = best if exponent is None else exact_fraction(exponent, "exponent")
    if e < 0 or e.numerator > MAX_EXPONENT_TERMS or e.denominator > MAX_EXPONENT_TERMS:
        raise ParameterError(
            f"exponent: got {short_fraction(e)}; use a rational >= 0 whose numerator and "
            f"denominator are at most {MAX_EXPONENT_TERMS} (it is taken by integer roots)"
        )
    index: dict[Fraction, int] = {}
    groups = tuple(index.setdefault(d, len(index)) for d in deltas)
    distinct = list(index)
    counts = [0] * len(distinct)
    for g in groups:
        counts[g] += 1
    least = min(distinct)
    x = _scaled_powers(distinct, least, e)
    if norm == "l1":
        scale = sum(k * xi for k, xi in zip(counts, x, strict=True))
    else:  # ceil(sqrt(sum x^2))
        scale = isqrt(sum(k * xi * xi for k, xi in zip(counts, x, strict=True)) - 1) + 1
    shares = [Fraction(xi, scale) for xi in x]
    terms = [k * (d / b) ** p for d, b, k in zip(distinct, shares, counts, strict=True)]
    objective = exact_sum(terms) if len(terms) <= EXACT_TERMS else _sum_rounded_up(terms)
    lower = _optimum_lower(distinct, counts, least, norm, p)
    b = tuple(shares[g] for g in groups)
    return BudgetSplit(norm, p, e, b, objective, lower, objective / lower, groups)


def _scaled_powers(deltas: list[Fraction], least: Fraction, e: Fraction) -> list[int]:
    """``floor(2^K (Delta_i/least)^e)`` exactly, by integer roots."""
    u, v = e.numerator, e.denominator
    out = []
    for d in deltas:
        ratio = (d / least) ** u * (1 << (SPLIT_BITS * v))
        out.append(int(gmpy2.iroot(gmpy2.mpz(ratio.numerator // ratio.denominator), v)[0]))
    return out


def _optimum_lower(
    deltas: list[Fraction], counts: list[int], least: Fraction, norm: str, p: int
) -> Fraction:
    """A rational ``<= min_b F(b)``: Thm 4.2's ``(sum Delta^(p/(p+1)))^(p+1)`` or Thm 4.1's
    ``(sum Delta^(2p/(p+2)))^((p+2)/2)``, every power rounded down."""
    scale = Fraction(1 << SPLIT_BITS)
    e = Fraction(p, p + 1) if norm == "l1" else Fraction(2 * p, p + 2)
    y = sum(k * v for k, v in zip(counts, _scaled_powers(deltas, least, e), strict=True))
    if norm == "l1":
        return (Fraction(y) / scale) ** (p + 1) * least**p
    base = Fraction(y) / scale  # sum (Delta_i/least)^(2p/(p+2)), rounded down
    if p % 2 == 0:
        power = base ** ((p + 2) // 2)
    else:  # base^((p+1)/2) * sqrt(base), the root rounded down
        root = Fraction(isqrt(y << SPLIT_BITS), 1 << SPLIT_BITS)
        power = base ** ((p + 1) // 2) * root
    return power * least**p


def exact_sum(terms: Sequence[Fraction]) -> Fraction:
    """``sum(terms)`` exactly, by a balanced tree of unreduced sums and one final reduction.

    Adding ``d`` fractions with unrelated denominators one by one costs ``O(d^2)``
    digit operations (each partial sum's denominator grows); pairing them costs
    ``O(M(D) log d)`` for a final denominator of ``D`` digits.

    >>> exact_sum([Fraction(1, 2), Fraction(1, 3), Fraction(1, 6)])
    Fraction(1, 1)
    """
    pairs = [(gmpy2.mpz(t.numerator), gmpy2.mpz(t.denominator)) for t in terms]
    if not pairs:
        return Fraction(0)
    while len(pairs) > 1:
        merged = [
            (a * d + c * b, b * d) for (a, b), (c, d) in zip(pairs[::2], pairs[1::2], strict=False)
        ]
        if len(pairs) % 2:
            merged.append(pairs[-1])
        pairs = merged
    num, den = pairs[0]
    return Fraction(int(num), int(den))


def _sum_rounded_up(terms: Sequence[Fraction]) -> Fraction:
    """A rational ``>= sum(terms)`` within ``2^-64`` of the least term per term (positive terms)."""
    least = min(terms)
    k = 64 + max(0, (least.denominator // least.numerator).bit_length())
    total = sum(-((-t.numerator << k) // t.denominator) for t in terms)
    return Fraction(total, 1 << k)
