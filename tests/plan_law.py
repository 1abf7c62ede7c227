"""The exact law of PLAN on tiny instances, and its exact hockey-stick divergence.

Used by ``tests/test_plan.py`` (a few neighbouring pairs) and by
``benchmarks/proof_plan.py`` (every pair).  PLAN releases four things in turn:
the centre ``m``, the spreads ``tau``, the clipping level ``l`` and the noisy
sum ``S + eta``; the joint law of ``(m, tau, l, S + eta)`` is the product of each
step's exact law given the earlier outputs (the estimate is a function of it,
so its divergence is at most the joint's).  Each step's law comes from the
real code under the checker's symbolic draws; only the noise, a product of
``d`` tables, is read from the table.

For two datasets the hockey-stick divergence at a rational ``E`` is
``sum_c sum_o max(0, P(c) p(o - S_c) - E P'(c) p(o - S'_c))`` over the steps'
outcomes ``c``; the inner sum depends only on ``P(c)/(E P'(c))`` and the shift
``S_c - S'_c``, so it is computed once per shift (sorted likelihood ratios and
prefix sums) and looked up by bisection.
"""

from __future__ import annotations

import itertools
from bisect import bisect_right
from collections.abc import Iterator
from fractions import Fraction
from functools import cache

import numpy as np

from finitedp.checker import exact_distribution
from finitedp.mean.plan import LISTING_SHARES, PLAN
from finitedp.mean.rounds import nearest_indices
from finitedp.mean.scaling import clipped_sum, integer_scales, level_of, norm_bounds

Outcome = tuple[tuple[int, ...], tuple[Fraction, ...], int]


def tiny_plan() -> PLAN:
    """The instance checked whole: d = 2, n = 2, grid {-1, 0, 1}, rho = 1/2, K = 2, three
    levels, a noise radius of 30, and Listing's split (every step runs; the default
    split skips the spreads at n = 2)."""
    return PLAN(
        -1,
        1,
        d=2,
        n=2,
        rho="1/2",
        units=2,
        clip_ratio=2,
        clip_count=3,
        noise_radius=30,
        shares=LISTING_SHARES,
    )


def _product(laws: list[dict[object, Fraction]]) -> dict[tuple[object, ...], Fraction]:
    out: dict[tuple[object, ...], Fraction] = {(): Fraction(1)}
    for law in laws:
        out = {(*k, v): p * q for k, p in out.items() for v, q in law.items()}
    return out


def steps_law(plan: PLAN, rows: np.ndarray) -> dict[Outcome, tuple[Fraction, tuple[int, ...]]]:
    """``(m, tau, l) -> (probability, S)``: the law of the private steps and the sum they fix."""
    d = plan.d
    centres = _product(
        [
            exact_distribution(
                lambda rng, c=rows[:, i]: plan.grid.index(plan.centre.release_indices(c, rng))
            )
            for i in range(d)
        ]
    )
    half = plan.n // 2
    gaps = np.abs(rows[0 : 2 * half : 2] - rows[1 : 2 * half : 2])
    levels = np.searchsorted(np.array(plan.gap_levels), gaps)  # each gap's level
    spreads = _product(
        [
            exact_distribution(
                lambda rng, c=levels[:, i]: Fraction(
                    plan.gap_levels[int(plan.spread.release_indices(c, rng))]  # type: ignore[union-attr]
                )
            )
            for i in range(d)
        ]
    )
    out: dict[Outcome, tuple[Fraction, tuple[int, ...]]] = {}
    for (centre, pc), (spread, ps) in itertools.product(centres.items(), spreads.items()):
        mean = sum(spread, Fraction(0)) / d  # type: ignore[arg-type]
        tau = [t + mean for t in spread]  # type: ignore[operator]
        scales = integer_scales(tau, plan.p, plan.span)
        w = plan.scaled(rows, list(centre), scales)  # type: ignore[arg-type]
        bounds = norm_bounds(w)
        levels = plan.levels(scales)
        ranks = level_of(bounds, levels)
        chosen = exact_distribution(
            lambda rng, ranks=ranks: int(plan.radius.release_indices(ranks, rng))
        )
        for level, pl in chosen.items():
            sums = tuple(clipped_sum(w, bounds, levels[level], plan.units).tolist())
            key = (tuple(centre), tuple(tau), level)  # type: ignore[arg-type]
            out[key] = (pc * ps * pl, sums)
    return out


class NoiseDivergence:
    """``g(t, shift) = sum_o max(0, t p(o) - p(o - shift))`` for the noise's product law
    (the last round's: ``plan.noise``)."""

    def __init__(self, plan: PLAN) -> None:
        pmf = plan.noise.pmf()
        self.d = plan.d
        self.radius = plan.noise.radius
        self.pmf = pmf

    def _p(self, o: tuple[int, ...]) -> Fraction:
        out = Fraction(1)
        for z in o:
            if abs(z) > self.radius:
                return Fraction(0)
            out *= self.pmf[z]
        return out

    @cache  # noqa: B019 - one instance per check
    def _table(
        self, shift: tuple[int, ...]
    ) -> tuple[list[Fraction], list[Fraction], list[Fraction]]:
        """Points with ``p(o) > 0`` sorted by ``r = p(o - shift)/p(o)``; prefix sums of both."""
        r = self.radius
        ratios = []
        for o in itertools.product(range(-r, r + 1), repeat=self.d):
            p = self._p(o)
            q = self._p(tuple(a - b for a, b in zip(o, shift, strict=True)))
            ratios.append((q / p, p, q))
        ratios.sort()
        keys, ps, qs = [], [Fraction(0)], [Fraction(0)]
        for ratio, p, q in ratios:
            keys.append(ratio)
            ps.append(ps[-1] + p)
            qs.append(qs[-1] + q)
        return keys, ps, qs

    def g(self, t: Fraction, shift: tuple[int, ...]) -> Fraction:
        """The points with ``t p(o) > p(o - shift)`` are those with ratio below ``t``."""
        keys, ps, qs = self._table(shift)
        k = bisect_right(keys, t)
        while k and keys[k - 1] == t:  # equality contributes 0 either way
            k -= 1
        return t * ps[k] - qs[k]


def hockey_stick(
    first: dict[Outcome, tuple[Fraction, tuple[int, ...]]],
    second: dict[Outcome, tuple[Fraction, tuple[int, ...]]],
    exp_epsilon: Fraction,
    noise: NoiseDivergence,
) -> Fraction:
    """The exact least ``delta`` with ``P(A) <= E P'(A) + delta`` for the joint release."""
    total = Fraction(0)
    for key, (p, sums) in first.items():
        if key not in second:
            total += p  # the whole mass where the other cannot go
            continue
        q, other = second[key]
        shift = tuple(a - b for a, b in zip(sums, other, strict=True))
        scale = exp_epsilon * q
        total += scale * noise.g(p / scale, shift)
    return total


def neighbours(datasets: list[tuple[tuple[int, ...], ...]]) -> Iterator[tuple[int, int]]:
    """Ordered pairs of datasets that differ in exactly one row."""
    for i, a in enumerate(datasets):
        for j, b in enumerate(datasets):
            if i != j and sum(x != y for x, y in zip(a, b, strict=True)) == 1:
                yield i, j


def two_rounds_law(
    plan: PLAN, rows: np.ndarray
) -> dict[tuple[object, ...], tuple[Fraction, tuple[int, ...]]]:
    """With ``rounds = 2``: ``(m, tau, l_1, o_1, l_2) -> (probability, S_2)``.

    The first round's noisy sums ``o_1 = S_1 + eta_1`` are released (its estimate is a
    function of them) and fix the second round's centre, so they are part of the
    outcome; the second round's noise is the one :func:`hockey_stick` sums out.
    """
    assert plan.rounds == 2
    pmf, radius = plan.noises[0].pmf(), plan.noises[0].radius  # the first round's noise
    step, units, n = plan.grid.step, plan.units, plan.n
    out: dict[tuple[object, ...], tuple[Fraction, tuple[int, ...]]] = {}
    laws: dict[tuple[int, ...], dict[object, Fraction]] = {}
    for (centre, tau, l1), (p, sums) in steps_law(plan, rows).items():
        scales = integer_scales(list(tau), plan.p, plan.span)
        levels = plan.levels(scales)
        for eta in itertools.product(range(-radius, radius + 1), repeat=plan.d):
            pz = p
            for z in eta:
                pz *= pmf[z]
            noisy = tuple(s + z for s, z in zip(sums, eta, strict=True))
            estimates = [
                plan.grid.value(m) + Fraction(o * levels[l1], units * n * scale) * step
                for m, o, scale in zip(centre, noisy, scales, strict=True)
            ]
            second = nearest_indices(plan.grid, estimates)
            w = plan.scaled(rows, second, scales)
            bounds = norm_bounds(w)
            ranks = level_of(bounds, levels)
            key = tuple(int(r) for r in ranks)
            if key not in laws:
                laws[key] = exact_distribution(
                    lambda rng, ranks=ranks: int(plan.radius.release_indices(ranks, rng))
                )
            for l2, pl in laws[key].items():
                total = clipped_sum(w, bounds, levels[int(l2)], units)  # type: ignore[call-overload]
                out[(centre, tau, l1, noisy, l2)] = (pz * pl, tuple(total.tolist()))
    return out
