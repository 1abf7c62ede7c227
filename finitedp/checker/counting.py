"""Exact checks of counting-query samplers (BV Section 4), path by path.

Paper: BV Def 4.1 (privacy for counting queries), Def 4.2 (accuracy),
Thm 4.7 i/iv, Thm 4.10 i/ii/v.

Everything here runs the sampler's real ``sample`` method against the
enumerating oracle of :mod:`finitedp.checker.symbolic`, so what is checked is
the code that releases counts, not a model of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from ..counting.base import CountingSampler
from .measures import Ratio, max_privacy_ratio
from .symbolic import Path, explore

__all__ = [
    "CountingAudit",
    "accuracy_probability",
    "audit_counting",
    "inverse_cdf_intervals",
    "is_inverse_cdf",
    "sampler_paths",
]


def sampler_paths(sampler: CountingSampler, c: int) -> list[Path[int]]:
    """Every path of ``sampler.sample(c, rng)``, one per interval of draws."""
    return explore(sampler.sample, c)


def inverse_cdf_intervals(paths: Sequence[Path[int]]) -> list[tuple[int, int, int]]:
    """The map ``u -> z`` as sorted ``(low, high, z)``: draws in ``[low, high]`` give ``z``.

    Adjacent paths with the same output are merged.
    """
    pieces = sorted((p.draws[0].lo, p.draws[0].hi, p.output) for p in paths)
    merged: list[tuple[int, int, int]] = []
    for low, high, z in pieces:
        if merged and merged[-1][2] == z and merged[-1][1] + 1 == low:
            merged[-1] = (merged[-1][0], high, z)
        else:
            merged.append((low, high, z))
    return merged


def is_inverse_cdf(sampler: CountingSampler, c: int, paths: Sequence[Path[int]]) -> bool:
    """Whether the paths realise exactly ``u -> min{z : F(z) >= u}`` on ``[1, d]``.

    That is: each output ``z`` is produced by exactly the draws in
    ``(F(z - 1), F(z)]``, and outputs of zero probability by none.  This implies
    the exact distribution ``F(z)/d`` and monotonicity in ``u`` (Thm 4.7 iv, 4.10 v).
    """
    expected = []
    for z in range(sampler.n + 1):
        low, high = sampler.cdf(c, z - 1) + 1, sampler.cdf(c, z)
        if low <= high:
            expected.append((low, high, z))
    return inverse_cdf_intervals(paths) == expected


def accuracy_probability(distribution: dict[int, Fraction], c: int, a: int) -> Fraction:
    """``Pr[|M(c, U) - c| <= a]`` from an exact distribution (BV Def 4.2)."""
    return sum((p for z, p in distribution.items() if abs(z - c) <= a), Fraction(0))


@dataclass(frozen=True)
class CountingAudit:
    """The exact behaviour of one sampler over every true count ``c`` in ``[0, n]``.

    Attributes:
        distributions: ``distributions[c]`` is ``{z: Pr[M(c, U) = z]}``.
        privacy_ratio: the largest ``Pr[M(c, U) = z] / Pr[M(c', U) = z]`` over
            neighbouring counts ``|c - c'| = 1`` and outputs ``z`` (Def 4.1).
        worst_pair: the ``(c, c')`` attaining it.
        max_comparisons: the most comparisons of the draw on any path.
        inverse_cdf_exact: whether every path matches ``min{z : F(z) >= u}``.
    """

    distributions: tuple[dict[int, Fraction], ...]
    privacy_ratio: Ratio
    worst_pair: tuple[int, int]
    max_comparisons: int
    inverse_cdf_exact: bool

    def worst_accuracy(self, a: int) -> Fraction:
        """``min_c Pr[|M(c, U) - c| <= a]``: the ``1 - beta`` achieved at error ``a``."""
        return min(accuracy_probability(dist, c, a) for c, dist in enumerate(self.distributions))


def audit_counting(sampler: CountingSampler) -> CountingAudit:
    """Explore ``sampler`` exactly for every ``c`` in ``[0, n]`` (``n + 1`` explorations)."""
    distributions, comparisons, exact = [], 0, True
    for c in range(sampler.n + 1):
        paths = sampler_paths(sampler, c)
        dist: dict[int, Fraction] = {}
        for path in paths:
            dist[path.output] = dist.get(path.output, Fraction(0)) + path.probability
            comparisons = max(comparisons, path.comparisons[0])
        distributions.append(dist)
        exact = exact and is_inverse_cdf(sampler, c, paths)
    pairs = [(c, c + 1) for c in range(sampler.n)]
    ratio, worst = max_privacy_ratio(distributions, pairs)
    return CountingAudit(tuple(distributions), ratio, worst, comparisons, exact)
