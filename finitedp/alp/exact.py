"""Exact laws of the ALP projections and estimators on tiny parameters (for the checker).

Paper: Lebeda thesis Lemma 2.4 / 2.15 (privacy of Algs 2 and 4), Lemma 2.30
(Alg 10), Lemma 2.10 and Lemmas 2.12-2.13, 2.31-2.32 (accuracy).

The projection's law is composed from its parts, each of which the tests also
explore draw by draw (:func:`finitedp.checker.symbolic.exact_distribution`):
the entries are rounded independently (``Pr[y_i = ceil(r_i)] = r_i - floor(r_i)``),
the embedding ``z`` is a function of ``y``, and randomized response flips every
bit independently with probability ``f/B``.  Hence

    Pr[z~ = Z] = sum_y  prod_i Pr[y_i]  prod_bits Pr[z~_bit = Z_bit | z(y)_bit].

The tests check that this equals the explored law of the real
implementation on small instances, then use it on the whole grid.

>>> from finitedp.alp.hashing import HashTable
>>> law = projection_law({1: Fraction(1, 2)}, HashTable(2, ((0,),)), Fraction(1), 1, 3)
>>> law[(1, 0)], sum(law.values())             # bit (0, 1) set: z = 1 w.p. 1/2
(Fraction(1, 3), Fraction(1, 1))
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from itertools import product

from .embedding import peak_average, unary_embedding
from .hashing import Hashes

__all__ = ["Bits", "estimate_law", "projection_law"]

Bits = tuple[int, ...]


def _rounding_law(r: Fraction) -> list[tuple[int, Fraction]]:
    low = r.numerator // r.denominator
    part = r - low
    return [(low, 1 - part), (low + 1, part)] if part else [(low, Fraction(1))]


def projection_law(
    x: Mapping[int, Fraction], hashes: Hashes, alpha: Fraction, flips: int, base: int
) -> dict[Bits, Fraction]:
    """The exact law of the noisy embedding (bits in storage order) for fixed hashes.

    Args:
        x: the (already scaled) entries; each is rounded as ``RandRound(x_i / alpha)``
            (pass ``alpha = 1`` and integers for Alg 10).
        hashes: the fixed hash functions (a :class:`~finitedp.alp.hashing.HashTable`).
        alpha: the scale of Alg 2.
        flips, base: randomized response flips with probability ``flips/base``.

    Returns:
        Every embedding with positive probability, mapped to its probability.
    """
    keys = sorted(i for i, v in x.items() if v)
    laws = [_rounding_law(x[i] / alpha) for i in keys]
    p = Fraction(flips, base)
    size = hashes.s * hashes.m
    out: dict[Bits, Fraction] = {}
    for choice in product(*laws):
        weight = Fraction(1)
        for _, w in choice:
            weight *= w
        z = unary_embedding({i: y for i, (y, _) in zip(keys, choice, strict=True)}, hashes)
        clean = tuple(int(v) for v in z.reshape(-1))
        for noisy in product((0, 1), repeat=size):
            prob = weight
            for c, n in zip(clean, noisy, strict=True):
                prob *= p if c != n else 1 - p
            if prob:
                out[noisy] = out.get(noisy, Fraction(0)) + prob
    return out


def estimate_law(y: int, m: int, p_down: Fraction, p_up: Fraction) -> dict[Fraction, Fraction]:
    """The exact law of Alg 3's ``y~`` on one path whose bits are independent.

    Bits ``1..y`` read 1 with probability ``1 - p_down`` (randomized response);
    bits ``y+1..m`` read 1 with probability ``p_up`` (``p``, or the
    collision-raised ``(1 - c) p + c (1 - p)`` of Lemma 2.10).  Enumerates ``2^m`` paths.
    """
    out: dict[Fraction, Fraction] = {}
    ones = [1 - p_down] * min(y, m) + [p_up] * (m - min(y, m))
    for bits in product((0, 1), repeat=m):
        prob = Fraction(1)
        for bit, q in zip(bits, ones, strict=True):
            prob *= q if bit else 1 - q
        if prob:
            value = peak_average(bits)
            out[value] = out.get(value, Fraction(0)) + prob
    return out
