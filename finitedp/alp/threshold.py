"""Threshold2 on integer vectors with exact geometric noise, and Threshold ALP (Algs 7-9).

Paper: Lebeda thesis Alg 9 (Threshold2, following [KKMN09]; Lemma 2.24) and
Algs 7/8 with Alg 9 in step 2 (Lemma 2.26, Thm 2.4).

Neighbours: integer vectors at l1 distance at most 1 (one entry moves by one;
for a histogram, one row added or removed).

The thesis adds Laplace noise; finitedp adds a two-sided geometric ``Z`` with
a rational ratio ``alpha = a/b >= e^-eps`` (chosen as the counting samplers'
tight ratio), clamped to a public ``[-R, R]`` so that a sample is one oracle
call and a bounded search: ``R + clamp(Z, -R, R)`` is BV's GeoSample law
``GeometricMechanism(2R, b/a)`` at count ``R``, sampled by
``GeoSample(2R, 2 eps, noise="tight")`` (GeoSample's budget ``eps~`` is
``eps~/2`` per count).  For integer entries the random rounding of Alg 9 step 1
does nothing (``0 < x_i < 1`` never happens).

**Privacy (exact).**  ``Pr[Z >= j] = alpha^j / (1 + alpha)`` for ``1 <= j <= R``.
Two neighbours differ in one entry by one.  If it moves ``0 <-> 1``, the only
difference is whether that key can appear: ``Pr[1 + Z >= t] = alpha^(t-1)/(1+alpha)``.
If it moves ``x <-> x + 1`` with ``x >= 1``, the noisy values are shifted
clamped geometrics: ratio ``b/a`` everywhere but at the two ends, each of
mass ``alpha^R / (1 + alpha)``; thresholding is post-processing.  With
``R = t - 1`` both are ``delta(t) = alpha^(t-1)/(1 + alpha)``, and finitedp
takes the least ``t`` with ``delta(t) <= delta``: the release is
``(ln(b/a), delta(t))``-DP, hence ``(eps, delta)``-DP
(``tests/test_alp_checker.py`` computes the hockey-stick divergence exactly).

>>> from finitedp.oracle import SeededSource
>>> noise = ClampedGeometric(1, 4)
>>> noise.ratio, noise.r
(Fraction(7, 19), 4)
>>> threshold_for(noise.ratio, Fraction(1, 100))     # least t with (7/19)^(t-1)/(26/19) <= 1/100
6
>>> threshold2({3: 40, 8: 1}, noise, 5, 2, SeededSource(b"t2")).keys() <= {3, 8}
True
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from ..counting.twosided import ClampedGeometric, one_plus_epsilon
from ..errors import ParameterError
from ..exactmath import ceil_log_ratio
from ..oracle import RandomSource, draws
from ..params import exact_fraction, positive_fraction, probability
from .randomized import rand_round

__all__ = [
    "THRESHOLD2_BLOCK",
    "ClampedGeometric",
    "grid_delta",
    "grid_factor",
    "group_delta",
    "least_grid_threshold",
    "least_threshold",
    "one_plus_epsilon",
    "threshold2",
    "threshold2_on_grid",
    "threshold_delta",
    "threshold_for",
]


def threshold_delta(alpha: Fraction, t: int) -> Fraction:
    """``delta(t) = alpha^(t-1) / (1 + alpha)``: the chance a count of 1 reaches ``t``."""
    alpha = exact_fraction(alpha, "alpha")
    return alpha ** (t - 1) / (1 + alpha)


def threshold_for(alpha: Fraction, delta: object) -> int:
    """The least ``t >= 2`` with ``alpha^(t-1)/(1 + alpha) <= delta`` (exact).

    Paper: Lebeda thesis Alg 9 step 3 (``t = ln(1/delta)/eps + 2`` for Laplace
    noise after random rounding; for integer inputs and geometric noise the
    tail is exact).
    """
    d = probability(delta, "delta")
    alpha = exact_fraction(alpha, "alpha")
    if not 0 < alpha < 1:
        raise ParameterError(f"alpha: got {alpha}; a geometric ratio lies in (0, 1)")
    # alpha^(t-1) <= delta (1 + alpha)  <=>  (1/alpha)^(t-1) >= 1/(delta (1 + alpha))
    return max(2, 1 + ceil_log_ratio(1 / alpha, 1 / (d * (1 + alpha))))


def group_delta(alpha: Fraction, t: int, c: int) -> Fraction:
    """``delta(t) (1 + r + ... + r^(c-1))``, ``r = 1/alpha``: the ``delta`` at l1 distance ``c``.

    Group privacy: each unit step is ``(ln r, delta(t))``-DP, so ``c`` steps are
    ``(c ln r, delta(t) sum_{j < c} r^j)``-DP (``P <= r P' + d`` applied ``c`` times).
    """
    r = 1 / exact_fraction(alpha, "alpha")
    return threshold_delta(alpha, t) * sum((r**j for j in range(c)), Fraction(0))


def least_threshold(alpha: Fraction, delta: Fraction, c: int) -> int:
    """The least ``t >= 2`` with ``group_delta(alpha, t, c) <= delta``.

    ``group_delta`` is ``delta(t)`` times ``sum_{j < c} (b/a)^j >= 1``, so this is
    :func:`threshold_for` at ``delta`` divided by that sum.
    """
    ratio = 1 / exact_fraction(alpha, "alpha")
    return threshold_for(alpha, delta / sum((ratio**j for j in range(c)), Fraction(0)))


def grid_factor(epsilon: Fraction, c: object, q: int) -> Fraction:
    """``(P - 1)/eps``, ``P = (1 + eps/q)^(q c)``: :func:`grid_delta` is ``delta(t)`` times it."""
    e = positive_fraction(epsilon, "epsilon")
    units = exact_fraction(c, "c") * q
    if units.denominator != 1 or units < 1:
        raise ParameterError(f"c: got {c}; it must be a positive multiple of the grid 1/{q}")
    return ((1 + e / q) ** int(units) - 1) / e


def grid_delta(epsilon: Fraction, t: int, c: object, q: int) -> Fraction:
    """Threshold2's ``delta`` on the grid ``1/q`` at l1 distance ``c`` (noise ratio ``1/(1+eps)``).

    ``delta(t) (P - 1)/eps`` with ``P = (1 + eps/q)^(q c)``: moving one entry by
    ``D`` inside a unit interval is ``(ln(1 + eps D), D delta(t))``-DP (the output
    law interpolates linearly between the integers around it), and chaining
    such moves multiplies the ratios and telescopes the deltas
    (``proofs_notes/alp_threshold.md``).  ``P <= e^(eps c)``.  With ``q = 1`` this is
    :func:`group_delta` for the ratio ``1/(1 + eps)``.
    """
    alpha = 1 / (1 + positive_fraction(epsilon, "epsilon"))
    return threshold_delta(alpha, t) * grid_factor(epsilon, c, q)


def least_grid_threshold(epsilon: Fraction, delta: object, c: object, q: int) -> int:
    """The least ``t >= 2`` with ``grid_delta(eps, t, c, q) <= delta`` (exact).

    The factor ``(P - 1)/eps`` is at least ``c >= 1``, so this is
    :func:`threshold_for` at ``delta`` divided by it.
    """
    alpha = 1 / (1 + positive_fraction(epsilon, "epsilon"))
    return threshold_for(alpha, probability(delta, "delta") / grid_factor(epsilon, c, q))


def threshold2_on_grid(
    x: Mapping[int, Fraction], noise: ClampedGeometric, t: int, k: int, q: int, rng: RandomSource
) -> dict[int, int]:
    """Threshold2 on a vector on the grid ``1/q``: round every entry at random, then Threshold2.

    Paper: Lebeda thesis Alg 9, Lemma 2.24.  Deviation: step 1 rounds *every*
    entry (``y_i = RandRound(x_i)``, one call ``uniform(q)``), not only those in
    ``(0, 1)``, so that integer geometric noise of ratio exactly ``1/(1 + eps)``
    can follow; an entry rounded to 0 is never released (step 4's ``y_i != 0``).

    Neighbours: vectors on the grid at l1 distance at most 1 (the stated
    ``delta`` is :func:`grid_delta`; the ratio is at most ``e^eps``).

    Oracle calls: per non-zero entry in increasing key order, ``uniform(q)``
    (rounding) then one noise call; then ``k - nnz`` padding pairs.
    """
    if len(x) > k:
        raise ParameterError(f"x: has {len(x)} non-zero entries; k = {k}")
    out: dict[int, int] = {}
    for i in sorted(x):
        y = rand_round(x[i], q, rng)
        v = y + noise.sample(rng)
        if y and v >= t:
            out[i] = v
    for _ in range(k - len(x)):
        rand_round(Fraction(0), q, rng)  # padding: one rounding and one noise call
        noise.sample(rng)
    return out


#: Draws of :func:`threshold2` made and compared at a time (the memory of one block).
THRESHOLD2_BLOCK = 1 << 14


def threshold2(
    x: Mapping[int, int], noise: ClampedGeometric, t: int, k: int, rng: RandomSource
) -> dict[int, int]:
    """Threshold2 on an integer vector: noisy non-zero entries that reach ``t``.

    Paper: Lebeda thesis Alg 9 (steps 2-5; step 1 is the identity on integers),
    Lemma 2.24, with clamped geometric noise (module notes).

    Neighbours: integer vectors at l1 distance at most 1.

    Work: exactly ``k`` oracle calls ``uniform(d)`` (the entries in increasing key
    order, then ``k - nnz`` for padding), made in blocks of :data:`THRESHOLD2_BLOCK`.
    ``x_i + Z >= t`` is decided by one comparison of the entry's draw with
    ``F(R, t - x_i + R - 1)`` (:meth:`ClampedGeometric.below`, one per distinct
    value); a padding draw is compared with ``d``, which it never passes, so the
    work per call is the same for an entry and for padding (it does not say ``nnz``).
    Only the released entries' noise is searched: the output's size, which is public.
    The same draws give the same release as one search per call.

    Args:
        x: the non-zero entries (at most ``k``), keys in increasing order.
        noise: the clamped geometric (``R = t - 1`` for the module's ``delta``).
        t: the threshold.
        k: the public sparsity bound: exactly ``k`` noise draws (the rest are padding).
        rng: the randomness source.

    Returns:
        ``{key: noisy value}`` for the entries whose noisy value is at least ``t``.
    """
    if len(x) > k:
        raise ParameterError(f"x: has {len(x)} non-zero entries; k = {k}")
    keys, d = sorted(x), noise.d
    edges = {v: noise.below(t - v) for v in set(x.values())}  # x_i -> F(R, t - x_i + R - 1)
    out: dict[int, int] = {}
    for start in range(0, k, THRESHOLD2_BLOCK):
        size = min(THRESHOLD2_BLOCK, k - start)
        block = keys[start : start + size]
        bounds = [edges[x[i]] for i in block] + [d] * (size - len(block))
        us = draws(rng, d, size)
        passed = [j for j, (u, e) in enumerate(zip(us, bounds, strict=True)) if u > e]
        noisy = noise.values([us[j] for j in passed])
        out.update((block[j], x[block[j]] + z) for j, z in zip(passed, noisy, strict=True))
    return out
