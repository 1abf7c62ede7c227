"""Max-Projection: the largest entry per hash bucket, plus exact clamped geometric noise (Alg 11).

Paper: Lebeda thesis Alg 11 (Max-Projection), Lemma 2.33 (privacy), Lemma 2.34
(expected error ``O(1/eps)`` with ``s = Omega(eps ||x||_1)``), Section 2.8.

Neighbours: integer vectors at l1 distance at most 1 (one entry moves by one;
for a histogram, one row added or removed).

The thesis adds ``Laplace(1/eps)`` to every bucket.  finitedp takes integer
entries clamped to a public bound ``u`` (``min(x, u)`` keeps l1 distances from
growing), so every bucket's maximum ``y_a`` lies in ``[0, u]``, and releases
``clamp(y_a + Z, 0, u)`` for a two-sided geometric ``Z`` of ratio ``a/b >=
e^-eps``: BV's clamped geometric mechanism, sampled exactly by
``GeoSample(u, 2 eps, noise="tight")`` (one oracle call per bucket; its budget
``eps~`` is ``eps~/2`` per count).  Clamping the *output* is post-processing of
the unclamped geometric, so the release is pure ``eps``-DP (Lemma 2.33's
argument: one entry moving by one moves one bucket maximum by at most one).

>>> from finitedp.oracle import SeededSource
>>> mp = MaxProjection(universe_size=10**6, epsilon=1, s=64, u=100)
>>> r = mp.project({5: 40, 77: 3}, rng=SeededSource(b"max"))
>>> len(r.noisy), 0 <= r.estimate(5) <= 100
(64, True)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from ..counting.geosample import GeoSample
from ..errors import ParameterError
from ..guarantees import Privacy
from ..oracle import RandomSource, default_source
from ..params import check_positive_int, positive_fraction
from ..ratio import GeometricRatio
from .hashing import Hashes, HashSequence, check_buckets
from .mechanism import l1_neighbours
from .projection import check_sparse
from .randomized import rand_round

__all__ = ["MaxProjection", "MaxProjectionRelease", "bucket_maxima", "max_projection"]


def bucket_maxima(
    x: Mapping[int, Fraction], rows: dict[int, int], s: int, u: int
) -> list[Fraction]:
    """Alg 11 steps 1-2: ``y_a = max{min(x_j, u) : h(j) = a}`` (0 for an empty bucket)."""
    y = [Fraction(0)] * s
    for j, v in x.items():
        a = rows[j]
        y[a] = max(y[a], min(Fraction(v), Fraction(u)))
    return y


def max_projection(
    x: Mapping[int, Fraction],
    hashes: Hashes,
    u: int,
    sampler: GeoSample,
    rng: RandomSource,
    q: int = 1,
) -> tuple[int, ...]:
    """Alg 11 steps 1-4 for a fixed ``h`` (the first function of ``hashes``).

    Paper: Lebeda thesis Alg 11, Lemma 2.33 (module notes).

    For each bucket in order: when ``q > 1`` (rational entries on the grid of
    ``1/q``) one call ``uniform(q)`` rounds ``y_a`` at random, then one call of
    ``sampler`` at the rounded count: ``s`` or ``2s`` calls.
    """
    rows = {j: int(hashes.rows(j)[0]) for j in x}
    out = []
    for v in bucket_maxima(x, rows, hashes.s, u):
        count = rand_round(v, q, rng) if q > 1 else int(v)
        out.append(sampler.sample(count, rng))
    return tuple(out)


@dataclass(frozen=True)
class MaxProjectionRelease:
    """The hash function and the ``s`` noisy bucket maxima; ``estimate(i) = y~_{h(i)}``.

    Attributes:
        hashes: one multiply-add-shift function (``m = 1``).
        noisy: ``y~_0, ..., y~_(s-1)``, each in ``[0, u]``.
        privacy: the exact guarantee.
        neighbours: its neighbour relation.
    """

    hashes: HashSequence
    noisy: tuple[int, ...]
    privacy: Privacy
    neighbours: str

    @property
    def universe_size(self) -> int:
        """``d``."""
        return self.hashes.universe_size

    def estimate(self, i: int) -> Fraction:
        """Section 2.8: ``x~_i = y~_{h(i)}``, O(1) time."""
        return Fraction(self.noisy[self.hashes.rows(i)[0]])

    def __getitem__(self, i: int) -> Fraction:
        return self.estimate(i)


class MaxProjection:
    """Max-Projection with exact clamped geometric noise: pure ``eps``-DP.

    Paper: Lebeda thesis Alg 11, Lemmas 2.33-2.34.

    Neighbours: vectors at l1 distance at most 1 (integer or on the ``step`` grid).

    Integer entries (``step = 1``) get BV's clamped geometric with the tight
    ratio ``a/b >= e^-eps``.  Entries on a finer grid are first rounded at random
    (one call each) and then get the ratio ``1/(1 + eps)`` exactly: the output
    law of a bucket is then the linear interpolation of the laws at the two
    integers around ``y_a``, and moving ``y_a`` by ``D`` changes any output's
    probability by a factor of at most ``1 + eps |D| <= e^(eps |D|)``
    (``proofs_notes/alp_maxproj.md``).

    Args:
        universe_size: ``d``.
        epsilon: the budget (per unit of l1 change).
        s: buckets, a power of two (Lemma 2.34: ``s = Omega(eps ||x||_1)``).
        u: the public bound on entries (an int); larger ones count as ``u``.
        step: the public grid of the values (default 1: integers).
    """

    def __init__(
        self, universe_size: int, epsilon: object, s: int, u: int, step: object = 1
    ) -> None:
        self.universe_size = check_positive_int(universe_size, "universe_size")
        self.epsilon = positive_fraction(epsilon, "epsilon")
        self.s = check_buckets(s)
        self.u = check_positive_int(u, "u")
        self.step = positive_fraction(step, "step")
        self.q = self.step.denominator if self.step.denominator != 1 else 1
        if self.step.numerator != 1:
            raise ParameterError(f"step: got {self.step}; use a grid 1/q (e.g. 1/4)")
        if self.q == 1:
            self.sampler = GeoSample(self.u, 2 * self.epsilon, noise="tight")
        else:
            e = self.epsilon
            ratio = GeometricRatio(e.denominator, e.denominator + e.numerator)  # 1/(1 + eps)
            self.sampler = GeoSample(self.u, 2 * self.epsilon, ratio=ratio)

    @property
    def privacy(self) -> Privacy:
        """``(eps, 0)`` for vectors at l1 distance 1 (Lemma 2.33)."""
        return Privacy(self.epsilon)

    def project(
        self, x: Mapping[int, object], rng: RandomSource | None = None
    ) -> MaxProjectionRelease:
        """Draw ``h`` (2 calls), then per bucket a rounding call (finer grids) and a noise call.

        Raises:
            ParameterError: a key outside ``[1, d]``, or a negative value off the grid.
        """
        rng = default_source() if rng is None else rng
        entries = check_sparse(x, self.universe_size, len(x), self.step)
        hashes = HashSequence.draw(self.universe_size, self.s, 1, rng)
        noisy = max_projection(entries, hashes, self.u, self.sampler, rng, self.q)
        return MaxProjectionRelease(hashes, noisy, self.privacy, l1_neighbours(1))
