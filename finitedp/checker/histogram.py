"""Exact checks of histogram mechanisms over every dataset of a tiny universe.

Paper: BV Def 2.1 (neighbouring datasets differ in one row), Defs 2.5-2.7.

A histogram mechanism is given as ``fn(data, rng)``; its exact output
distribution is computed for each dataset by :func:`exact_distribution`, and
privacy is measured over every pair of neighbouring datasets.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from fractions import Fraction
from itertools import combinations_with_replacement, product
from typing import Any

from ..exactmath import exp_bounds
from ..oracle import RandomSource
from .measures import Ratio, hockey_stick, max_privacy_ratio
from .symbolic import exact_distribution, explore

__all__ = [
    "Dataset",
    "all_datasets",
    "all_multisets",
    "all_streams",
    "hockey_stick_upper_bound",
    "max_hockey_stick",
    "neighbouring_pairs",
    "oracle_domains",
    "release_distributions",
    "stream_pairs",
    "worst_privacy_ratio",
]

Dataset = tuple[int, ...]
Mechanism = Callable[[Dataset, RandomSource], Hashable]


def all_datasets(n: int, universe_size: int) -> list[Dataset]:
    """Every dataset in ``X^n`` for ``X = [1, universe_size]`` (ordered rows)."""
    return list(product(range(1, universe_size + 1), repeat=n))


def all_multisets(n: int, universe_size: int) -> list[Dataset]:
    """One sorted representative per multiset of ``n`` rows.

    Enough for mechanisms that first reduce the data to its true counts; a test
    of such a mechanism should also check that reordering rows changes nothing.
    """
    return list(combinations_with_replacement(range(1, universe_size + 1), n))


def all_streams(n: int, universe_size: int) -> list[Dataset]:
    """Every stream of at most ``n`` elements of ``[1, universe_size]``, shortest first."""
    return [s for length in range(n + 1) for s in all_datasets(length, universe_size)]


def stream_pairs(datasets: Iterable[Dataset]) -> list[tuple[Dataset, Dataset]]:
    """Pairs where the second is the first with one element removed (Lebeda thesis Def 3.1).

    Only pairs whose both streams are among ``datasets`` are listed; each unordered
    pair once, however many positions give it.
    """
    pool = set(datasets)
    pairs: list[tuple[Dataset, Dataset]] = []
    for stream in sorted(pool, key=lambda s: (len(s), s)):
        shorter = {stream[:i] + stream[i + 1 :] for i in range(len(stream))}
        pairs.extend((stream, other) for other in sorted(shorter) if other in pool)
    return pairs


def neighbouring_pairs(datasets: Iterable[Dataset]) -> list[tuple[Dataset, Dataset]]:
    """Pairs of the given datasets that are neighbours (BV Def 2.1).

    Ordered datasets are neighbours when they differ in exactly one row; sorted
    multiset representatives are neighbours when one row can be swapped for
    another value, i.e. the multisets differ by exactly one element.
    """
    pool = list(datasets)
    pairs = []
    for i, first in enumerate(pool):
        for second in pool[i + 1 :]:
            if _one_row_apart(first, second):
                pairs.append((first, second))
    return pairs


def _one_row_apart(first: Dataset, second: Dataset) -> bool:
    if sum(a != b for a, b in zip(first, second, strict=True)) == 1:
        return True
    if list(first) != sorted(first) or list(second) != sorted(second):
        return False
    remaining = list(second)
    unmatched = 0
    for row in first:
        if row in remaining:
            remaining.remove(row)
        else:
            unmatched += 1
    return unmatched == 1


def release_distributions(
    mechanism: Callable[..., Any], datasets: Iterable[Dataset]
) -> dict[Dataset, dict[Any, Fraction]]:
    """``{D: {release: probability}}``, each computed exactly by enumerating the oracle."""
    return {data: exact_distribution(mechanism, data) for data in datasets}


def worst_privacy_ratio(
    distributions: Mapping[Dataset, Mapping[Any, Fraction]],
    pairs: Sequence[tuple[Dataset, Dataset]],
) -> tuple[Ratio, tuple[Dataset, Dataset]]:
    """The largest ``Pr[M(D) = r] / Pr[M(D') = r]`` over the pairs, both directions."""
    ratio, worst = max_privacy_ratio(distributions, pairs)
    return ratio, worst


def max_hockey_stick(
    distributions: Mapping[Dataset, Mapping[Any, Fraction]],
    pairs: Sequence[tuple[Dataset, Dataset]],
    exp_epsilon: Fraction,
) -> tuple[Fraction, tuple[Dataset, Dataset]]:
    """The smallest ``delta`` with ``(eps, delta)``-DP at a rational ``e^eps``, and its pair."""
    best: tuple[Fraction, tuple[Dataset, Dataset]] = (Fraction(-1), pairs[0])
    for first, second in pairs:
        p, q = distributions[first], distributions[second]
        delta = max(hockey_stick(p, q, exp_epsilon), hockey_stick(q, p, exp_epsilon))
        if delta > best[0]:
            best = (delta, (first, second))
    return best


def hockey_stick_upper_bound(
    distributions: Mapping[Dataset, Mapping[Any, Fraction]],
    pairs: Sequence[tuple[Dataset, Dataset]],
    epsilon: Fraction,
) -> Fraction:
    """An upper bound on the ``delta`` at an irrational ``e^eps`` (``eps`` rational).

    The hockey-stick divergence decreases in ``e^eps``, so evaluating it at a
    rational lower bound of ``e^eps`` bounds the true value from above.
    """
    low, _ = exp_bounds(epsilon, 128)
    return max_hockey_stick(distributions, pairs, low)[0]


def oracle_domains(mechanism: Callable[..., Any], data: Dataset) -> set[tuple[int, ...]]:
    """The sequences of oracle domains ``(d_1, d_2, ...)`` over every path for ``data``."""
    return {tuple(record.d for record in path.draws) for path in explore(mechanism, data)}
