"""Merging Misra-Gries sketches ([ACH+13]) and releasing a merged sketch privately.

Paper: Lebeda thesis Section 3.7: the merge of Agarwal et al. [ACH+13] (sum the
counters, subtract the ``(k+1)``-th largest, drop the non-positive ones),
Lemma 3.6 and Corollary 3.2 (sketches merged from neighbouring datasets differ
by 1 in at most ``k`` counters, whatever the number of merges), and the release
at l1 sensitivity ``k`` with a threshold.

Neighbours: datasets of several streams, one element added to or removed from
one stream (Section 3.7).

The release (:class:`PrivateMergedMG`): each counter gets an independent
two-sided geometric of ratio ``a/b``, ``b/a <= e^(eps/k)``, clamped to
``[-R, R]``, and is kept when it reaches ``tau = R + 2``.  A counter of 1 whose
key the other sketch lacks can reach at most ``1 + R < tau``: it is never
released, so keys present on one side cost nothing.  A counter present on both
sides moves by one: ``(eps/k, alpha^R/(1 + alpha))`` per key, and at most ``k``
keys move, so the release is ``(eps, delta_k(R))``-DP with
``delta_k(R) = alpha^R/(1 + alpha) (1 + b/a + ... + (b/a)^(k-1))`` (group privacy).

>>> from finitedp.sketches.misragries import misra_gries
>>> a = misra_gries(2, 10, [1, 1, 1, 2, 2]).to_standard()
>>> b = misra_gries(2, 10, [3, 3, 4, 4, 4]).to_standard()
>>> a.counters, b.counters           # sums 3, 2, 2, 3: the third largest, 2, is subtracted
(((1, 3), (2, 2)), ((3, 2), (4, 3)))
>>> merge(a, b).counters
((1, 1), (4, 1))
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from fractions import Fraction

from ..counting.twosided import ClampedGeometric, clamp_tail, least_tail
from ..errors import ParameterError, ParameterTypeError
from ..guarantees import Privacy
from ..oracle import RandomSource, default_source
from ..params import check_positive_int, positive_fraction, probability
from .misragries import MGSketch
from .release import SketchRelease

__all__ = ["MERGED_NEIGHBOURS", "PrivateMergedMG", "merge", "merge_all", "merged_delta"]

#: The neighbour relation of a merged release (Section 3.7).
MERGED_NEIGHBOURS = (
    "datasets of several streams that differ by one element added to or removed from "
    "one stream (Lebeda thesis Section 3.7)"
)


def merge(first: MGSketch, second: MGSketch) -> MGSketch:
    """The [ACH+13] merge of two sketches of ``k`` counters.

    Paper: Lebeda thesis Section 3.7, Lemma 3.6.

    Sum the counters (positive counts of real keys), subtract the ``(k+1)``-th
    largest sum from all when there are more than ``k``, and drop what is not
    positive: at most ``k`` counters, each at most ``N/(k+1)`` below the true
    frequency (``N`` the total length).  The result is a standard sketch whose
    ``gamma`` adds up what was subtracted.

    Raises:
        ParameterError: sketches of different ``k`` or ``d``.
    """
    if (first.k, first.universe_size) != (second.k, second.universe_size):
        raise ParameterError(
            f"sketches: k = {first.k}, d = {first.universe_size} against k = {second.k}, "
            f"d = {second.universe_size}; merge needs the same k and d"
        )
    k = first.k
    total: Counter[int] = Counter(first.positive())
    total.update(second.positive())
    cut = 0
    if len(total) > k:
        cut = sorted(total.values(), reverse=True)[k]  # the (k+1)-th largest
    kept = tuple(sorted((x, c - cut) for x, c in total.items() if c > cut))
    gamma = first.gamma + second.gamma + cut
    return MGSketch(k, first.universe_size, first.n + second.n, gamma, kept, standard=True)


def merge_all(sketches: Sequence[MGSketch]) -> MGSketch:
    """Merge in a fixed order: a balanced tree over the sequence, left to right.

    Paper: Lebeda thesis Corollary 3.2 (any fixed order keeps the sensitivity at ``k``).

    Raises:
        ParameterError: no sketch, or sketches of different ``k`` or ``d``.
        ParameterTypeError: an element that is not an :class:`MGSketch`.
    """
    level = list(sketches)
    if not level:
        raise ParameterError("sketches: need at least one sketch to merge")
    for i, sketch in enumerate(level):
        if not isinstance(sketch, MGSketch):
            raise ParameterTypeError(
                f"sketches[{i}]: got a {type(sketch).__name__}; merge_all merges MGSketch "
                "objects (misra_gries(stream, k, d))"
            )
    if len(level) == 1:
        return level[0].to_standard()
    while len(level) > 1:
        paired = [merge(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            paired.append(level[-1].to_standard())
        level = paired
    return level[0]


def merged_delta(alpha: Fraction, r: int, k: int) -> Fraction:
    """``alpha^R/(1 + alpha) (1 + b/a + ... + (b/a)^(k-1))``: the ``delta`` at ``k`` moved keys."""
    return clamp_tail(alpha, r) * _group_factor(alpha, k)


def _group_factor(alpha: Fraction, k: int) -> Fraction:
    """``1 + b/a + ... + (b/a)^(k-1)``, ``b/a = 1/alpha``: at least 1."""
    ratio = 1 / alpha
    return (ratio**k - 1) / (ratio - 1)


class PrivateMergedMG:
    """The release of a merged sketch: per-counter clamped geometric noise and a threshold.

    Paper: Lebeda thesis Section 3.7 (Corollary 3.2: sensitivity ``k``; "add noise
    to non-zero counts and hide with a threshold that up to ``k`` keys change").

    Neighbours: datasets of several streams, one element added or removed in one
    stream (Section 3.7), with the merge order fixed.

    Args:
        k: counters of every sketch.
        universe_size: ``d``.
        epsilon: the budget (each sample spends ``eps/k`` per unit).
        delta: the total ``delta`` (stated exactly, at most this).

    Raises:
        ParameterError: a parameter out of range.
    """

    def __init__(self, k: int, universe_size: int, epsilon: object, delta: object) -> None:
        self.k = check_positive_int(k, "k")
        self.universe_size = check_positive_int(universe_size, "universe_size")
        self.epsilon = positive_fraction(epsilon, "epsilon")
        self.delta = probability(delta, "delta")
        alpha = ClampedGeometric(self.epsilon / self.k, 1).ratio
        # merged_delta(r) = clamp_tail(r) * factor: the least r is one exact logarithm.
        r = least_tail(alpha, self.delta / _group_factor(alpha, self.k))
        self.noise = ClampedGeometric(self.epsilon / self.k, r)
        self.tau = r + 2

    @property
    def privacy(self) -> Privacy:
        """``(eps, delta_k(R))`` (module notes)."""
        return Privacy(self.epsilon, merged_delta(self.noise.ratio, self.noise.r, self.k))

    def release_sketch(self, sketch: MGSketch, rng: RandomSource | None = None) -> SketchRelease:
        """Noise for every counter (padded to ``k`` calls), keep those reaching ``tau``.

        Raises:
            ParameterError: a sketch of another ``k`` or ``d``.
        """
        if (sketch.k, sketch.universe_size) != (self.k, self.universe_size):
            raise ParameterError(
                f"sketch: made with k = {sketch.k}, d = {sketch.universe_size}; this release "
                f"has k = {self.k}, d = {self.universe_size}"
            )
        rng = default_source() if rng is None else rng
        counters = sketch.positive()
        heavy = []
        for x in sorted(counters):
            v = counters[x] + self.noise.sample(rng)
            if v >= self.tau:
                heavy.append((x, v))
        for _ in range(self.k - len(counters)):
            self.noise.sample(rng)  # padding: k calls for every sketch
        parameters = (
            ("algorithm", "Lebeda thesis Section 3.7 (merged sketch, threshold)"),
            ("epsilon", str(self.epsilon)),
            ("k", str(self.k)),
            ("tau", str(self.tau)),
            ("R", str(self.noise.r)),
            ("alpha", str(self.noise.ratio)),
        )
        return SketchRelease(
            tuple(heavy), self.universe_size, self.privacy, MERGED_NEIGHBOURS, parameters
        )
