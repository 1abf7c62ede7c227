"""Threshold (Alg 6, pure), Threshold ALP with it (Algs 7/8), and Threshold2 on a grid.

Laws are computed exactly over every oracle outcome (``exact_distribution``);
properties on larger parameters pin the call pattern and the composition.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import pytest

from finitedp.alp.combined import ThresholdALP, ThresholdALPRelease
from finitedp.alp.purethreshold import (
    PureThresholdALP,
    noise_radius,
    sparsity_threshold,
    threshold,
)
from finitedp.checker.measures import max_ratio
from finitedp.checker.symbolic import exact_distribution
from finitedp.counting.geosample import GeoSample
from finitedp.errors import ParameterError, ParameterTypeError
from finitedp.exactmath import compare_exp
from finitedp.oracle import RecordingSource, SeededSource

F = Fraction


# --- Alg 6 (Threshold, pure), exact -------------------------------------------------------------


@pytest.mark.parametrize("epsilon", [F(1), F(1, 2)])
def test_lemma_2_19_alg_6_ratio_is_exactly_b_over_a(epsilon: Fraction) -> None:
    """Integer vectors on {0..3}^2, l1 neighbours: the worst ratio of Alg 6 is ``b/a <= e^eps``."""
    sampler = GeoSample(3, 2 * epsilon, noise="tight")
    ratio = sampler.noise.exp_epsilon
    assert compare_exp(ratio, epsilon) <= 0
    t = 2

    def run(x: tuple[int, int], rng):  # type: ignore[no-untyped-def]
        counts = {i + 1: v for i, v in enumerate(x) if v}
        return tuple(sorted(threshold(counts, sampler, t, 2, rng).items()))

    laws = {x: exact_distribution(run, x) for x in product(range(4), repeat=2)}
    worst = F(0)
    for (x, lx), (y, ly) in product(laws.items(), repeat=2):
        if abs(x[0] - y[0]) + abs(x[1] - y[1]) == 1:
            worst = max(worst, max_ratio(lx, ly))
    assert worst == ratio


def test_lemma_2_20_a_zero_entry_reaches_t_with_the_exact_tail() -> None:
    for epsilon, d in ((F(1), 2), (F(1), 10), (F(1, 2), 3)):
        sampler = GeoSample(40, 2 * epsilon, noise="tight")
        alpha = sampler.noise.alpha
        t = sparsity_threshold(alpha, d)
        law = exact_distribution(lambda rng, t=t, m=sampler: tuple(threshold({}, m, t, 1, rng)))
        released = 1 - law.get((), F(0))
        assert released == alpha**t / (1 + alpha) <= F(1, 2 * d * d)
        assert alpha ** (t - 1) / (1 + alpha) > F(1, 2 * d * d)  # the least such t


def test_noise_radius_is_the_least_with_its_tail() -> None:
    alpha = F(7, 19)
    for beta in (F(1, 2), F(1, 10), F(1, 1000)):
        r = noise_radius(alpha, beta)
        assert 2 * alpha ** (r + 1) / (1 + alpha) <= beta
        assert r == 0 or 2 * alpha**r / (1 + alpha) > beta
    law = GeoSample(60, 2, noise="tight").pmf(30)  # the two-sided geometric far from the clamps
    for beta in (F(1, 2), F(1, 10)):
        r = noise_radius(GeoSample(60, 2, noise="tight").noise.alpha, beta)
        assert sum((p for z, p in law.items() if abs(z - 30) > r), F(0)) <= beta


# --- PureThresholdALP (Alg 7 with Alg 6) ------------------------------------------------------


def test_pure_threshold_alp_dense_is_pure_and_strict() -> None:
    mech = PureThresholdALP(50, 1, k=3, u=100)
    assert mech.privacy.delta == 0 and mech.alp.psi == mech.t
    assert mech.epsilon1 + mech.epsilon2 == 1
    assert mech.sampler.epsilon == 2 * mech.epsilon1  # GeoSample's budget is eps~/2 per count
    assert compare_exp(mech.sampler.noise.exp_epsilon, mech.epsilon1) <= 0
    traces = set()
    for x in ({}, {1: 1}, {5: 90, 6: 2, 50: 40}):
        recorder = RecordingSource(SeededSource(b"pure"))
        release = mech.project(x, recorder)
        traces.add(tuple(d for d, _ in recorder.tape))
        assert all(mech.t <= v <= 100 for _, v in release.heavy)
    assert len(traces) == 1  # d noise calls, then ALP's: the same for every input
    back = ThresholdALPRelease.from_json(release.to_json())
    assert back == release and back.privacy.delta == 0


def test_pure_threshold_alp_histogram_mode_truncates_keep_heavy() -> None:
    """With rows = n the heavy part is PureSparseHistogram's release, bins below t dropped."""
    mech = PureThresholdALP(2**64, 1, k=4, rows=1000)
    assert mech.sparse is not None and mech.contribution == 2
    rows = [5] * 980 + [9] * 15 + [2**64] * 5
    release = mech.release(rows, SeededSource(b"hist"))
    alone = mech.sparse.release(rows, SeededSource(b"hist"))  # the same first draws
    assert release.heavy == tuple((x, v) for x, v in alone.items() if v >= mech.t)
    assert release.privacy.delta == 0 and 5 in release.heavy_keys
    assert mech.accuracy(F(1, 10)).beta > F(1, 10)  # the fallback and Lemma 2.20 are added


def test_pure_threshold_alp_refuses_bad_input() -> None:
    with pytest.raises(ParameterError, match="u: required"):
        PureThresholdALP(10, 1, k=2)
    with pytest.raises(ParameterError, match="u: got 3"):
        PureThresholdALP(10, 1, k=2, u=3)
    with pytest.raises(ParameterError, match="at most u"):
        PureThresholdALP(10, 1, k=2, u=60).project({3: 61})
    with pytest.raises(ParameterError, match="universe_size"):
        PureThresholdALP(10**8, 1, k=2, u=60)
    with pytest.raises(ParameterError, match="use release"):
        PureThresholdALP(2**20, 1, k=2, rows=10).project({3: 1})
    with pytest.raises(ParameterError, match="distinct keys"):
        PureThresholdALP(2**20, 1, k=1, rows=2).release([1, 2])
    with pytest.raises(ParameterTypeError, match="epsilon"):
        PureThresholdALP(10, 0.5, k=2, u=60)


# --- Threshold2 and Threshold ALP on a grid ---------------------------------------------------


def test_threshold_alp_on_a_grid_states_its_delta_and_is_strict() -> None:
    from finitedp.alp.threshold import grid_delta, group_delta, one_plus_epsilon

    mech = ThresholdALP(1000, 1, "1/1000", k=3, step="1/4")
    unit = mech.epsilon1
    assert mech.noise.ratio == one_plus_epsilon(unit).alpha == F(2, 3)
    assert mech.privacy.delta == grid_delta(unit, mech.t, 1, 4) <= F(1, 1000)
    assert grid_delta(unit, mech.t - 1, 1, 4) > F(1, 1000)  # the least t
    # q = 1 is group privacy at ratio 1 + eps
    assert grid_delta(unit, 7, 3, 1) == group_delta(F(2, 3), 7, 3)
    traces = set()
    for x in ({}, {1: F(1, 4)}, {5: F(900), 6: F(7, 4), 999: 40}):
        recorder = RecordingSource(SeededSource(b"grid"))
        mech.project(x, recorder)
        traces.add(tuple(d for d, _ in recorder.tape))
    assert len(traces) == 1
    release = mech.project({5: F(900), 6: F(7, 4)}, SeededSource(b"g"))
    assert 5 in release.heavy_keys and abs(release.estimate(5) - 900) <= mech.noise.r + 1
    with pytest.raises(ParameterError, match="step"):
        ThresholdALP(1000, 1, "1/1000", k=3, step="3/4")


# --- Threshold2 (Alg 9) in blocks: the same function of the same draws -------------------------


def _threshold2_call_by_call(
    x: dict[int, int], noise: object, t: int, k: int, rng: object
) -> dict[int, int]:
    """Alg 9 steps 2-5 as written: one noise sample per entry in key order, then padding."""
    out = {}
    for i in sorted(x):
        v = x[i] + noise.sample(rng)  # type: ignore[attr-defined]
        if v >= t:
            out[i] = v
    for _ in range(k - len(x)):
        noise.sample(rng)  # type: ignore[attr-defined]
    return out


@pytest.mark.parametrize("seed", range(6))
def test_threshold2_in_blocks_is_alg_9_call_by_call(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Random vectors with values around ``t +- R`` and blocks of 5 draws (entries and
    padding both cross a block's edge): the same release and the same tape as one
    search per call."""
    import random

    from finitedp.alp import threshold as module
    from finitedp.counting.twosided import ClampedGeometric

    monkeypatch.setattr(module, "THRESHOLD2_BLOCK", 5)
    picks = random.Random(seed)
    t = picks.choice([2, 3, 6])
    noise = ClampedGeometric(F(1, picks.choice([1, 2, 3])), t - 1)
    x = {key: picks.randint(1, 2 * t + 1) for key in picks.sample(range(1, 60), 14)}
    k = len(x) + picks.choice([0, 1, 7])
    ours, theirs = (
        RecordingSource(SeededSource(bytes([seed]))),
        RecordingSource(SeededSource(bytes([seed]))),
    )
    assert module.threshold2(x, noise, t, k, ours) == _threshold2_call_by_call(
        x, noise, t, k, theirs
    )
    assert ours.tape == theirs.tape and len(ours.tape) == k


def test_threshold2_releases_an_entry_whose_draw_is_just_above_its_edge() -> None:
    """``x + Z >= t`` exactly when ``u > F(R, t - x + R - 1)``: the draws at the edge and
    one above it, fed by a tape, fall on either side (and padding at ``d`` is not read)."""
    from finitedp.alp.threshold import threshold2
    from finitedp.counting.twosided import ClampedGeometric
    from finitedp.oracle import ReplaySource

    noise, t = ClampedGeometric(1, 3), 4
    d = noise.d
    for x in (1, 2, 4, 6):
        edge = noise.below(t - x)
        for u, released in ((edge, False), (edge + 1, True)):
            if not 1 <= u <= d:
                continue
            tape = [(d, u), (d, d)]
            got = threshold2({7: x}, noise, t, 2, ReplaySource(tape))
            assert (7 in got) is released, (x, u)
            if released:
                assert got[7] == x + noise.values([u])[0] >= t
    assert noise.below(-3) == 0 and noise.below(4) == d  # j <= -R: always; j > R: never


def test_threshold2_on_a_grid_releases_a_value_equal_to_t() -> None:
    """Alg 9 step 4 keeps ``v >= t``: an entry ``t`` on the grid rounds to itself, a noise
    draw of 0 (the least ``u`` above ``F(R, R - 1)``) gives ``v = t``, which is released;
    the draw below gives ``t - 1``, which is not."""
    from finitedp.alp.threshold import threshold2_on_grid
    from finitedp.counting.twosided import ClampedGeometric
    from finitedp.oracle import ReplaySource

    noise, t, q = ClampedGeometric(1, 3), 4, 4
    d, u = noise.d, noise.below(0) + 1
    assert noise.values([u, u - 1]) == [0, -1]
    for draw, released in ((u, True), (u - 1, False)):
        got = threshold2_on_grid({5: F(t)}, noise, t, 1, q, ReplaySource([(q, 1), (d, draw)]))
        assert got == ({5: t} if released else {})


def test_grid_factor_refuses_a_contribution_off_the_grid_or_below_one_step() -> None:
    from finitedp.alp.threshold import grid_factor

    assert grid_factor(F(1), 2, 4) == ((1 + F(1, 4)) ** 8 - 1)
    for c in (F(1, 3), F(5, 8), 0, F(-1, 4)):  # 4c not an integer, or below 1
        with pytest.raises(ParameterError, match="multiple of the grid 1/4"):
            grid_factor(F(1), c, 4)
