"""PLAN (Lebeda thesis Alg 17, Listing 5.1), checked exactly on a tiny instance and by laws."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from fractions import Fraction
from math import isqrt

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from plan_law import NoiseDivergence, hockey_stick, neighbours, steps_law, tiny_plan

from finitedp import RecordingSource, ReplaySource, SeededSource
from finitedp.errors import FloatParameterError, ParameterError
from finitedp.exactmath import exp_bounds
from finitedp.mean import PLAN, MeanRelease
from finitedp.mean import shares as shares_module
from finitedp.mean.plan import LISTING_SHARES, NEIGHBOURS
from finitedp.mean.rounds import REPAIR_ROUNDS
from finitedp.mean.scaling import (
    SCALE_BITS,
    budget_epsilon,
    ceil_sqrt,
    clip_levels,
    clipped_sum,
    integer_scales,
    level_of,
    norm_bounds,
    sqrt_floor,
)
from finitedp.mean.shares import (
    LIGHT_RADIUS_SHARE,
    RADIUS_SHARE,
    SPREAD_CAP,
    least_share,
    lighter_radius,
)
from finitedp.selection.quantile import ExponentialQuantile, Grid

# -- the tiny instance: every step exact ----------------------------------------------------------

ROWS = list(itertools.product(range(3), repeat=2))  # d = 2, grid {-1, 0, 1}
DATASETS = list(itertools.product(ROWS, repeat=2))  # n = 2


def tiny() -> PLAN:
    return tiny_plan()


def test_tiny_instance_is_private_at_the_accountants_epsilon() -> None:
    """Every neighbour pair with one fixed row (1, 1) kept: the exact hockey-stick delta of
    the joint release (centre, spreads, level, noisy sum) at the accountant's eps for
    delta = 10^-3 is at most 10^-3; at a quarter of that eps it is above (so the check can
    fail).  benchmarks/proof_plan.py checks all 1,296 pairs (worst 2.8e-8)."""
    plan = tiny()
    delta = Fraction(1, 1000)
    eps = plan.epsilon_for(delta)
    exp_eps = exp_bounds(eps, 64)[0]
    keep = [i for i, ds in enumerate(DATASETS) if ds[1] == (1, 1)]
    laws = {i: steps_law(plan, np.array(DATASETS[i])) for i in keep}
    noise = NoiseDivergence(plan)
    pairs = [(i, j) for i, j in neighbours([DATASETS[k] for k in keep])]
    worst = max(hockey_stick(laws[keep[i]], laws[keep[j]], exp_eps, noise) for i, j in pairs)
    assert 0 < worst <= delta
    first, second = DATASETS.index(((0, 0), (1, 1))), DATASETS.index(((2, 2), (1, 1)))
    quarter = exp_bounds(eps / 4, 64)[1]
    assert hockey_stick(laws[first], laws[second], quarter, noise) > delta


def test_tiny_instance_shifts_are_within_the_stated_sensitivity() -> None:
    """For every step outcome both neighbours reach, ``||S - S'||_2 <= 2K`` exactly."""
    plan = tiny()
    laws = [steps_law(plan, np.array(ds)) for ds in DATASETS[:27]]
    for i, j in neighbours(DATASETS[:27]):
        for key, (_, sums) in laws[i].items():
            if key in laws[j]:
                other = laws[j][key][1]
                assert sum((a - b) ** 2 for a, b in zip(sums, other, strict=True)) <= 16


# -- the public arithmetic, as laws ---------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 9),
    st.lists(st.integers(-(2**39), 2**39), min_size=9 * 4, max_size=9 * 4),
    st.integers(1, 2**46),
    st.integers(1, 300),
)
def test_every_row_is_summed_with_norm_at_most_k(
    d: int, flat: list[int], radius: int, extra: int
) -> None:
    w = np.array(flat[: 4 * d], dtype=np.int64).reshape(4, d)
    root = isqrt(d - 1) + 1 if d > 1 else 1
    units = root + extra
    bounds = norm_bounds(w)
    for j in range(4):
        v = clipped_sum(w[j : j + 1], bounds[j : j + 1], radius, units)
        assert sum(int(x) ** 2 for x in v) <= units**2
        if 2 * bounds[j] * units <= radius * (2 * units - root):  # not clipped: w K / C rounded
            assert all(
                abs(Fraction(int(x)) - Fraction(int(y) * units, radius)) <= Fraction(1, 2)
                for x, y in zip(v, w[j], strict=True)
            )


def test_square_roots_and_budgets_are_pinned() -> None:
    """Survivors of a mutation run on mean/scaling.py: the default 64 bits of
    ``sqrt_floor`` (public variances' spreads), its zero for ``x <= 0``, and
    ``budget_epsilon``'s ``64 + bitlength(q)`` bits below ``sqrt(x)``."""
    assert sqrt_floor(Fraction(2)) == Fraction(isqrt(2 << 128), 1 << 64)
    assert sqrt_floor(Fraction(0)) == sqrt_floor(Fraction(-3)) == 0
    x = 2 * Fraction(1, 1000)  # rho = 1/1000, the binary search's sqrt(2 rho)
    bits = 64 + x.denominator.bit_length()
    root = Fraction(isqrt((x.numerator << 2 * bits) // x.denominator), 1 << bits)
    assert budget_epsilon(Fraction(1, 1000), False) == root * (1 - Fraction(1, 1 << 20))
    assert budget_epsilon(Fraction(1, 8), True) == 1 - Fraction(1, 1 << 20)


def test_a_far_row_is_clipped_to_the_radius_not_below() -> None:
    """``(2K - c)/(2N)``: the clipped row's norm is ``K - c/2`` up to rounding, not less."""
    w = np.array([[3 * 2**30, 4 * 2**30]], dtype=np.int64)  # norm 5 * 2^30
    v = clipped_sum(w, norm_bounds(w), 2**20, 100)
    assert [int(x) for x in v] == [59, 79]  # (2*100 - 2)/2 = 99 along (3, 4)/5: 59.4, 79.2


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-(2**39), 2**39), min_size=1, max_size=40))
def test_norm_bounds_are_the_exact_ceiling_of_the_norm(values: list[int]) -> None:
    w = np.array([values], dtype=np.int64)
    (bound,) = norm_bounds(w)
    exact = sum(v * v for v in values)
    assert bound * bound >= exact and (bound == 0 or (bound - 1) ** 2 < exact)


def test_integer_scales_are_exact_floors_of_the_root() -> None:
    tau = [Fraction(1), Fraction(4), Fraction(9, 2), Fraction(0)]
    for p in (1, 2, 3):
        scales = integer_scales(tau, p, 255)
        q, k = SCALE_BITS - 8, p + 2
        for t, s in zip(tau[:3], scales[:3], strict=True):
            x = (1 / t) ** 2 * 2 ** (q * k)
            assert s**k <= x < (s + 1) ** k
        assert scales[3] == 2**q  # no spread: the largest scale
    assert integer_scales([Fraction(0)] * 3, 2, 255) == [2 ** (SCALE_BITS - 8)] * 3


def test_clip_levels_are_geometric_and_level_of_is_the_least_cover() -> None:
    levels = clip_levels(1000, Fraction(2), 5)
    assert levels == [63, 125, 250, 500, 1000]
    assert level_of([1, 63, 64, 1000, 5000], levels).tolist() == [0, 0, 1, 4, 4]


def test_budget_epsilon_is_below_the_share() -> None:
    for rho in (Fraction(1, 100), Fraction(1, 2), Fraction(3)):
        for bounded, factor in ((True, 8), (False, 2)):
            eps = budget_epsilon(rho, bounded)
            assert eps * eps / factor <= rho * (1 - Fraction(1, 2**20))
            assert eps * eps / factor >= rho * (1 - Fraction(1, 2**18))


# -- the mechanism --------------------------------------------------------------------------------


def gaussian_rows(n: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Skewed Gaussian data on the grid of 1/16 in [-20, 20] (indices), and its values."""
    gen = np.random.default_rng(seed)
    sigma = np.array([(d / (d - i)) for i in range(d)])  # alpha = 2
    x = gen.normal(gen.uniform(-3, 3, d), sigma, size=(n, d))
    idx = np.clip(np.round((x + 20) * 16), 0, 640).astype(np.int64)
    return idx, idx / 16 - 20


def test_guarantee_uses_the_whole_budget_and_no_more() -> None:
    """Exponential quantiles lose 2^-15 of eps to the simplest base; GeoSample's tight
    ratio in the binary search loses about 0.3 %."""
    for selection, slack in (("exponential", Fraction(1, 2**13)), ("binary", Fraction(1, 100))):
        plan = PLAN(-20, 20, d=8, n=1000, rho="1/2", step="1/16", selection=selection)  # type: ignore[arg-type]
        rho = plan.guarantee.rho
        assert rho is not None and Fraction(1, 2) * (1 - slack) <= rho <= Fraction(1, 2)
        assert plan.guarantee.rho_delta < Fraction(1, 10**20)
        centre, spread, radius, _ = plan.shares
        assert centre >= Fraction(1, 16) and radius == LIGHT_RADIUS_SHARE == Fraction(1, 64)
        assert Fraction(1, 32) <= spread <= Fraction(1, 4) and sum(plan.shares) == 1
        labels = [s.label for s in plan.accountant.steps]
        assert labels[0].startswith("centre") and labels[-1].startswith("noise")
    listing = PLAN(-20, 20, d=8, n=1000, rho="1/2", step="1/16", shares=LISTING_SHARES)
    assert listing.shares == LISTING_SHARES
    public = PLAN(-20, 20, d=8, n=1000, rho="1/2", step="1/16", variance=[1] * 8)
    assert public.shares == (Fraction(1, 16), 0, Fraction(1, 64), Fraction(59, 64))
    assert public.centre_bound is not None and public.centre_bound < 499
    assert len(public.accountant.steps) == 3


def test_release_is_accurate_on_skewed_gaussian_data() -> None:
    idx, values = gaussian_rows(2000, 8, 7)
    plan = PLAN(-20, 20, d=8, n=2000, rho=1, step="1/16")
    release = plan.release_indices(idx, SeededSource(b"plan"))
    estimates = np.array([float(e) for e in release.estimates])
    error = float(np.linalg.norm(estimates - values.mean(axis=0)))
    # a broken centre, scale or clip gives errors of several units
    assert error < 0.3
    assert release.scales[0] > release.scales[-1]  # the smallest spread is stretched most


def test_strict_work_and_replay() -> None:
    idx, _ = gaussian_rows(200, 4, 3)
    for variance, selection in itertools.product(
        ("gaussian", "binary"), ("exponential", "gaussian")
    ):
        lower = 0 if variance == "binary" else -20
        upper = 1 if variance == "binary" else 20
        rows = (idx > 320).astype(np.int64) if variance == "binary" else idx
        plan = PLAN(
            lower,
            upper,
            d=4,
            n=200,
            rho=1,
            step=1 if variance == "binary" else "1/16",
            variance=variance,
            p=1 if variance == "binary" else 2,
            selection=selection,
        )  # type: ignore[arg-type]
        recorder = RecordingSource(SeededSource(b"tape"))
        release = plan.release_indices(rows, recorder)
        # a Gaussian search draws T = bitlength(N - 1) times: 10 on the grid of 641 points,
        # 6 on the 37 gap levels (exponential: once); binary data: no centre, d spreads
        one, spread = (1, 1) if selection == "exponential" else (10, 6)
        centres = 0 if variance == "binary" else 4 * one
        spreads = 4 if variance == "binary" else 4 * spread
        assert len(plan.gap_levels) == 37 or variance == "binary"
        assert len(recorder.tape) == plan.max_oracle_calls == centres + spreads + 1 + 4
        again = plan.release_indices(rows, ReplaySource(recorder.tape))
        assert again == release


def test_release_of_values_matches_release_of_indices() -> None:
    plan = PLAN(-1, 1, d=2, n=3, rho=4, step="1/2")
    rows = [[Fraction(-1), Fraction(1, 2)], ["1/2", 0], [1, "-1/2"]]
    indices = np.array([[0, 3], [3, 2], [4, 1]])
    assert plan.release(rows, SeededSource(b"v")) == plan.release_indices(
        indices, SeededSource(b"v")
    )


def test_release_is_an_immutable_json_document() -> None:
    plan = PLAN(-1, 1, d=2, n=3, rho=4, step="1/2")
    release = plan.release_indices(np.array([[0, 3], [3, 2], [4, 1]]), SeededSource(b"j"))
    assert isinstance(release, MeanRelease) and hash(release) == hash(release)
    doc = release.to_json_dict()
    assert doc["type"] == "plan-mean" and doc["version"] == 2 and doc["neighbours"] == NEIGHBOURS
    assert [Fraction(e) for e in doc["estimates"]] == list(release.estimates)
    with pytest.raises(AttributeError):
        release.n = 4  # type: ignore[misc]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n": 1}, "n: got 1; PLAN needs at least 2 rows"),
        ({"d": 0}, "d"),
        ({"rho": 0}, "rho"),
        ({"units": 1, "d": 4}, r"units: got 1; K must lie in \[ceil\(sqrt\(d\)\), 2\^13\)"),
        ({"units": 8192}, "units: got 8192"),
        ({"shares": (1, 1, 1, 1)}, "shares"),
        ({"shares": (0, "1/4", "1/4", "1/2")}, "positive share"),
        ({"variance": [1, 2]}, "need d = 3 variances"),
        ({"variance": [1, -1, 2]}, "each >= 0"),
        ({"variance": "laplace"}, "variance: got 'laplace'"),
        ({"selection": "median"}, "selection: got 'median'"),
        ({"clip_ratio": 1}, "clip_ratio"),
        ({"step": Fraction(1, 2**33)}, "PLAN takes fewer than 2\\^32"),
    ],
)
def test_bad_parameters_are_refused_by_name(kwargs: dict[str, object], message: str) -> None:
    args: dict[str, object] = {"d": 3, "n": 10, "rho": 1, "step": "1/2"}
    args.update(kwargs)
    with pytest.raises(ParameterError, match=message):
        PLAN(-1, 1, **args)  # type: ignore[arg-type]


def test_a_float_budget_is_refused() -> None:
    with pytest.raises(FloatParameterError, match=r"rho: got 0\.5"):
        PLAN(-1, 1, d=2, n=4, rho=0.5)


def test_bad_rows_are_refused_by_name() -> None:
    plan = PLAN(-1, 1, d=2, n=3, rho=4, step="1/2")
    with pytest.raises(ParameterError, match="shape"):
        plan.release_indices(np.zeros((2, 2), dtype=np.int64))
    with pytest.raises(ParameterError, match=r"\[0, 4\]"):
        plan.release_indices(np.array([[0, 5], [0, 0], [0, 0]]))
    with pytest.raises(ParameterError, match="integers"):
        plan.release_indices(np.zeros((3, 2)))
    with pytest.raises(ParameterError, match=r"rows\[1\]\[0\].*not on the grid"):
        plan.release([[0, 0], ["1/3", 0], [0, 0]])
    with pytest.raises(ParameterError, match="need d = 2"):
        plan.release([[0, 0], [0], [0, 0]])


def test_the_centre_share_is_the_least_that_keeps_every_centre_inside_the_data() -> None:
    """Issue 28: Listing's rho/16 loses the centre at d = 512, n = 4000, rho = 1/16."""
    exp = "exponential"
    plan = PLAN(-566, 566, d=512, n=4000, rho="1/8", step="1/16", selection=exp)
    share = plan.shares[0]
    assert share == Fraction(25, 128) and plan.rounds == 1
    inside = 1999  # rank error below min(m, n - 1 - m): strictly between min and max
    assert plan.centre_bound is not None and plan.centre_bound < inside
    below = plan._rank_error("centre", share - Fraction(1, 256))
    assert below is None or below >= inside
    # the spreads would need more than 1/4 here: they get 1/8 all the same
    assert (plan._rank_error("spread", Fraction(1, 4)) or 10**9) >= 999  # min(m', n' - 1 - m')
    # with Gaussian searches they need 31/128 (placed) and get the cap, 1/8
    searched = PLAN(-566, 566, d=512, n=4000, rho="1/8", step="1/16")
    assert searched.selection == "gaussian" and searched.shares[1] == SPREAD_CAP
    assert searched.shares[0] == Fraction(21, 128)
    needed = Fraction(31, 128)
    assert (searched._rank_error("spread", needed) or 10**9) < 999
    assert (searched._rank_error("spread", needed - Fraction(1, 256)) or 10**9) >= 999
    assert plan.variance_kind == "gaussian" and plan.shares[1:] == (
        Fraction(1, 8),
        LIGHT_RADIUS_SHARE,
        1 - Fraction(25, 128) - Fraction(1, 8) - Fraction(1, 64),
    )
    assert len(plan.accountant.steps) == 4
    # the Gaussian searches' bounds are tighter: the same rule gives 21/128
    assert PLAN(-566, 566, d=512, n=4000, rho="1/8", step="1/16").shares[0] == Fraction(21, 128)
    # at rho = 1/16 placing every centre needs 25/64 > 1/4: the centre gets 1/16 and
    # REPAIR_ROUNDS rounds repair it; a single round asked for buys it at 25/64
    costly = PLAN(-566, 566, d=512, n=4000, rho="1/16", step="1/16", selection=exp)
    # REPAIR_ROUNDS = 8 at least; 12 here, the most whose radius quantiles clip <= n/8
    assert (costly.shares[0], costly.rounds, REPAIR_ROUNDS) == (Fraction(1, 16), 12, 8)
    # the rounds keep 1/16 for their radius quantiles (1/64 would buy only 8 rounds)
    assert costly.shares[2] == RADIUS_SHARE == Fraction(1, 16)
    assert costly.clipped == 495 <= 4000 // 8
    assert costly.centre_bound is not None and costly.centre_bound >= inside
    bought = PLAN(-566, 566, d=512, n=4000, rho="1/16", step="1/16", rounds=1, selection=exp)
    assert (bought.shares[0], bought.rounds) == (Fraction(25, 64), 1)
    assert bought.centre_bound is not None and bought.centre_bound < inside
    assert (bought._rank_error("centre", Fraction(25, 64) - Fraction(1, 256)) or inside) >= inside
    assert (bought._rank_error("centre", Fraction(1, 4)) or inside) >= inside
    # where even half the budget cannot place it, one round takes 1/2 and says so
    alone = PLAN(-1132, 1132, d=2048, n=4000, rho="1/16", step="1/16", rounds=1, selection=exp)
    assert (alone.shares[0], alone.rounds) == (Fraction(1, 2), 1)
    assert alone.centre_bound is not None and alone.centre_bound >= inside


def test_one_round_gives_the_radius_spare_share_to_the_noise_where_it_clips_n_over_8() -> None:
    """``lighter_radius``: the radius at 1/64 if that quantile clips at most n/8 rows."""
    split = (Fraction(1, 8), Fraction(1, 8), RADIUS_SHARE, Fraction(11, 16))
    light = (Fraction(1, 8), Fraction(1, 8), LIGHT_RADIUS_SHARE, Fraction(11, 16) + Fraction(3, 64))
    asked: list[Fraction] = []

    def clips(rows: int) -> Callable[[Fraction], int]:
        return lambda share: asked.append(share) or rows

    assert lighter_radius(split, 800, clips(100)) == light and sum(light) == 1
    assert asked == [LIGHT_RADIUS_SHARE]
    assert lighter_radius(split, 800, clips(101)) == split  # n/8 = 100
    assert lighter_radius(light, 800, clips(0)) == light  # already light: kept
    # the constructor: n = 100 keeps 1/16 (1/64 would clip 71 of 100 rows)
    small = PLAN(0, 4, d=2, n=100, rho=1, step=1)
    assert small.shares[2] == RADIUS_SHARE and small.rounds == 1
    assert small._clipped(Grid(0, small.clip_count - 1), LIGHT_RADIUS_SHARE) > 100 // 8
    given = PLAN(0, 4, d=2, n=100, rho=1, step=1, shares=LISTING_SHARES)
    assert given.shares == LISTING_SHARES


def test_the_spread_share_is_the_least_that_keeps_every_spread_inside_its_gaps() -> None:
    plan = PLAN(-20, 20, d=8, n=1000, rho="1/2", step="1/16")
    share = plan.shares[1]
    assert share < SPREAD_CAP  # placed below the cap: the least share
    inside = min(250, 499 - 250)  # n' = 500 pairs, m' = 250
    error = plan._rank_error("spread", share)
    assert error is not None and error < inside
    if share > Fraction(1, 32):
        below = plan._rank_error("spread", share - Fraction(1, 256))
        assert below is None or below >= inside
    assert plan.gap_levels[:6] == [1, 2, 2, 2, 3, 3]  # ceil((6/5)^k)
    assert plan.gap_levels[-2] < plan.span <= plan.gap_levels[-1]


# -- pins: each stated figure equals its formula (issue 29) ----------------------------------------


def test_pinned_figures_of_the_construction() -> None:
    plan = PLAN(-20, 20, d=8, n=1000, rho="1/2", step="1/16", selection="exponential")
    k = plan.units
    assert k == max(16 * 3, 1000 // 2)  # max(16 ceil(sqrt(8)), ceil(n/2))
    assert PLAN(-20, 20, d=8, n=30, rho="1/2", step="1/16").units == 16 * 3
    # K grows towards n/2 as far as the noise's sigma^2 <= 2^28 (a table exact at 128
    # bits): at n = 10^6 the bound decides, and the guarantee stays meaningful
    large = PLAN(-20, 20, d=8, n=10**6, rho="1/2", step="1/16")
    guarded = large.shares[3] * Fraction(1, 2) * (1 - Fraction(1, 2**20))
    assert large.units == isqrt(int(guarded * 2**27)) < 8191
    assert large.noise.sigma2 is not None and large.noise.sigma2 <= 2**28
    wide = PLAN(-20, 20, d=4096, n=10**5, rho="1/16", step="1/16")
    assert wide.noise.sigma2 is not None and wide.noise.sigma2 <= 2**28
    assert wide.guarantee.rho_delta < Fraction(1, 10**20) and wide.epsilon_for("1/1000000") < 2
    noise_rho = plan.shares[3] * Fraction(1, 2)
    assert plan.noise.sigma2 == Fraction((2 * k) ** 2) / (2 * noise_rho * (1 - Fraction(1, 2**20)))
    assert plan.clipped == isqrt(999) + 1 + plan.radius.rank_error(Fraction(1, 30))
    # the spread rule's selector: n' = 500 pairs on the gaps' levels, rho_v/d each
    share = plan.shares[1]
    eps = budget_epsilon(share * Fraction(1, 2) / 8, True)
    levels = len(plan.gap_levels) - 1
    independent = ExponentialQuantile.from_epsilon(
        0, levels, quantile="1/2", n=500, epsilon=eps, weights="fixed"
    )
    assert plan._rank_error("spread", share) == independent.rank_error(Fraction(1, 240))
    binary = PLAN(0, 1, d=4, n=100, rho=1, variance="binary", p=1)
    assert binary.shares[1:3] == (Fraction(1, 8), Fraction(1, 16))  # 1/64 clips > n/8


def test_spreads_are_regularised_by_their_mean() -> None:
    plan = PLAN(-20, 20, d=3, n=10, rho=1, step="1/16", variance=[1, 4, 9])
    rows = np.zeros((10, 3), dtype=np.int64)
    assert plan.spread_of(rows, SeededSource(b"r")) == [3, 4, 5]  # sqrt + mean(sqrt) = 2


def test_binary_selection_makes_exactly_its_stated_draws() -> None:
    idx, _ = gaussian_rows(200, 4, 5)
    plan = PLAN(-20, 20, d=4, n=200, rho=4, step="1/16", selection="binary", shares=LISTING_SHARES)
    recorder = RecordingSource(SeededSource(b"bin"))
    plan.release_indices(idx, recorder)
    steps = plan.centre.max_oracle_calls  # type: ignore[union-attr]
    assert (
        len(recorder.tape)
        == plan.max_oracle_calls
        == 4 * steps + 4 * plan.spread.max_oracle_calls + 1 + 4
    )  # type: ignore[union-attr]


def test_norm_bound_shift_and_clip_margin_are_pinned() -> None:
    assert norm_bounds(np.array([[2**39 + 1, 0], [3, -4]], dtype=np.int64)) == [2**39 + 1, 5]
    assert norm_bounds(np.array([[2**39 - 1, 2**39 - 1]], dtype=np.int64)) == [
        ceil_sqrt(2 * (2**39 - 1) ** 2)
    ]
    # c = ceil(sqrt(3)) = 2: a far row of (1, 1, 1) 2^30 clipped with K = 4 rounds to 2 each
    w = np.array([[2**30] * 3], dtype=np.int64)
    assert clipped_sum(w, norm_bounds(w), 1, 4).tolist() == [2, 2, 2]


def test_binary_means_are_clamped_at_d_to_the_minus_two_fifths() -> None:
    """An empty column's mean is clamped to 1/floor(32^(2/5)) = 1/4 of the range."""
    plan = PLAN(0, 1, d=32, n=10**6, rho=4, variance="binary", p=1)
    rows = np.zeros((10**6, 32), dtype=np.int8)
    tau = plan.spread_of(rows, SeededSource(b"empty"))
    root = sqrt_floor(Fraction(3, 16))  # (1/4)(3/4)
    assert tau == [2 * root] * 32


# -- sparse rows ----------------------------------------------------------------------------------


@settings(max_examples=15, deadline=None)
@given(
    st.integers(2, 60),
    st.integers(1, 12),
    st.integers(0, 2**32),
    st.sampled_from(["binary", "gaussian"]),
    st.integers(1, 3),
)
def test_sets_give_the_dense_release_draw_for_draw(
    n: int, d: int, seed: int, variance: str, rounds: int
) -> None:
    gen = np.random.default_rng(seed)
    dense = (gen.uniform(size=(n, d)) < gen.uniform(0, 1, d)).astype(np.int64)
    sets = [np.nonzero(row)[0].tolist() for row in dense]
    plan = PLAN(0, 1, d=d, n=n, rho=2, variance=variance, p=1, rounds=rounds)  # type: ignore[arg-type]
    source = seed.to_bytes(8, "big")
    dense_tape, sparse_tape = (
        RecordingSource(SeededSource(source)),
        RecordingSource(SeededSource(source)),
    )
    assert plan.release_indices(dense, dense_tape) == plan.release_sets(sets, sparse_tape)
    assert dense_tape.tape == sparse_tape.tape


@pytest.mark.parametrize("rounds", [1, 2])
def test_sets_clip_exactly_the_rows_the_dense_path_clips(rounds: int) -> None:
    """Rows of 0 to 32 ones (norms spread over the radius's band, a tenth beyond it):
    the sparse path's clip test ``2 N K <= C (2K - c)`` is the dense one, row by row
    (a mutation run on mean/sparse.py found both factors of 2 unpinned)."""
    n, d = 400, 32
    dense = np.array([[1 if i < j % (d + 1) else 0 for i in range(d)] for j in range(n)])
    sets = [np.nonzero(row)[0].tolist() for row in dense]
    plan = PLAN(0, 1, d=d, n=n, rho=1, variance="binary", p=1, rounds=rounds)
    for seed in (b"band", b"edge", b"tail"):
        assert plan.release_indices(dense, SeededSource(seed)) == plan.release_sets(
            sets, SeededSource(seed)
        )


def test_the_stated_limits_are_their_edges() -> None:
    """Survivors of a mutation run on mean/plan.py: d below 2^20, fewer than 2^32 grid
    steps, at most 2^16 clipping levels, K = 16 ceil(sqrt(d)) (16 at d = 1)."""
    with pytest.raises(ParameterError, match="d: got 1048576; PLAN takes fewer than 2"):
        PLAN(0, 1, d=2**20, n=4, rho=1)
    assert PLAN(0, 2**32 - 1, d=1, n=4, rho=1).span == 2**32 - 1
    with pytest.raises(ParameterError, match="4294967296 steps; PLAN takes fewer than 2"):
        PLAN(0, 2**32, d=1, n=4, rho=1)
    assert PLAN(0, 1, d=2, n=4, rho=1, clip_count=2**16).clip_count == 2**16
    with pytest.raises(ParameterError, match="clip_count: got 65537; at most 65536"):
        PLAN(0, 1, d=2, n=4, rho=1, clip_count=2**16 + 1)
    assert [PLAN(0, 1, d=d, n=4, rho=1).units for d in (1, 2, 5)] == [16, 32, 48]


def test_k_reaches_8191_where_16_sqrt_d_passes_it_and_a_two_point_grid_has_two_levels() -> None:
    """Survivors of a mutation run: at d > 2^18 the default K starts at 8191 (not 8190),
    which shows where n/2 is small and the lightest round's table allows 8191; and a
    grid of two points keeps two gap levels (T_0 = 1, T_1 = 2), the spread selector's
    grid, so a drawn level 1 has a spread."""
    wide = PLAN(-1, 1, d=300_000, n=100, rho=24, step=1)
    assert (wide.units, wide.rounds, min(wide.noise_split)) == (8191, 8, Fraction(1, 32))
    two = PLAN(0, 1, d=16, n=20, rho="1/100", variance="gaussian")
    assert two.gap_levels == [1, 2]
    rows = np.array([[j % 2] * 16 for j in range(20)])
    tau = two.spread_of(rows, SeededSource(b"\x00"))
    mean = sum(tau, Fraction(0)) / 32  # each spread is T_k plus the mean of the T_k
    assert {t - mean for t in tau} == {1, 2}


def test_a_clip_ratio_near_1_or_too_wide_is_refused_fast() -> None:
    """The default level count reaches from the largest norm to 1 unit without a loop of
    that many divisions: a ratio of 1 + 10^-8 (before, a loop of about 3 * 10^9 steps)
    is refused in milliseconds, naming ``clip_ratio``; numerator and denominator must be
    below 2^64; the count's edges agree with the definition."""
    from work import refused_within

    from finitedp.mean.scaling import SCALE_BITS, level_count

    raised = refused_within(
        lambda: PLAN(0, 1, d=4, n=100, rho=1, clip_ratio="100000001/100000000"), ParameterError
    )
    assert re.search(r"clip_ratio: got 100000001/100000000; .* more ", str(raised)), raised
    for bad in ("1", "1/2", f"{2**64}/{2**64 - 1}"):
        raised = refused_within(
            lambda bad=bad: PLAN(0, 1, d=4, n=100, rho=1, clip_ratio=bad), ParameterError
        )
        assert re.search(r"clip_ratio: got .*above 1, with numerator", str(raised)), raised
    ratio = Fraction(65, 64)
    top = 2 << SCALE_BITS  # d = 4: root 2
    count = PLAN(0, 1, d=4, n=100, rho=1).clip_count
    k = count - 1  # the least k with ratio^k >= top
    assert ratio**k >= top > ratio ** (k - 1)
    assert level_count(top, ratio, k + 1) == count == level_count(top, ratio, k)
    assert level_count(top, ratio, k - 1) == k  # more than allowed: most + 1
    assert [level_count(t, Fraction(2), 64) for t in (1, 2, 3, 4, 5)] == [1, 2, 3, 3, 4]


def test_clipped_rows_are_ceil_sqrt_n_plus_the_radius_rank_error() -> None:
    """``clipped = ceil(sqrt(n)) + a`` (``a`` the radius quantile's rank error at
    ``beta/3``), at and around a perfect square, where ``ceil`` and ``floor + 1`` part."""
    for n, root in ((99, 10), (100, 10), (101, 11)):
        plan = PLAN(0, 4, d=2, n=n, rho=1, step=1)
        assert plan.clipped == root + plan.radius.rank_error(plan.beta / 3) == root + 30


def test_sets_are_checked() -> None:
    plan = PLAN(0, 1, d=3, n=2, rho=1, variance="binary", p=1)
    with pytest.raises(ParameterError, match=r"sets\[1\]: every item must lie in \[0, 2\]"):
        plan.release_sets([[0], [3]])
    with pytest.raises(ParameterError, match="got 1 rows; n = 2"):
        plan.release_sets([[0]])
    with pytest.raises(ParameterError, match="grid"):
        PLAN(-1, 1, d=3, n=2, rho=1).release_sets([[0], [1]])


# -- the centring bound (issue 28 item 1; proofs_notes/plan.md, "The centring bound") --


def _window(column: tuple[int, ...], m: int, a: int) -> tuple[int, int]:
    """``[x_(m-a-1), x_(m+a)]`` (0-based order statistics) of a sorted column."""
    return column[m - a - 1], column[m + a]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(0, 6), min_size=2, max_size=12).map(sorted),
    st.integers(0, 6),
    st.data(),
)
def test_centring_lemma_a_small_rank_error_places_the_centre(
    column: list[int], y: int, data: st.DataObject
) -> None:
    """Law (the lemma): if ``y``'s rank error at rank ``m`` is at most ``a`` and
    ``a < min(m, n - 1 - m)``, then ``x_(m-a-1) <= y <= x_(m+a)``; so ``y`` lies
    between the data's least and largest values, and within the window's width
    of the median."""
    n = len(column)
    m = data.draw(st.integers(1, n - 2)) if n >= 3 else 1
    below = sum(1 for x in column if x < y)
    upto = sum(1 for x in column if x <= y)
    error = max(0, below - m, m - upto)
    for a in range(error, min(m, n - 1 - m)):
        low, high = _window(tuple(column), m, a)
        assert column[0] <= low <= y <= high <= column[-1]


def _columns(size: int, n: int) -> list[tuple[int, ...]]:
    return list(itertools.combinations_with_replacement(range(size), n))


@pytest.mark.parametrize("rho", ["8", "32"])
def test_every_centre_lands_in_its_window_on_the_exact_law(rho: str) -> None:
    """Issue 28: PLAN's own centre selector (the exponential median, rho share and all)
    on every column of 9 values over a grid of 5 points: the centre leaves the window
    ``[x_(m-a-1), x_(m+a)]`` with probability at most ``beta/(3d)``, ``a`` the stated
    ``centre_bound``; so all ``d`` centres are inside with probability at least
    ``1 - beta/3`` (the coordinates' draws are independent: the exact product)."""
    from finitedp.checker import exact_distribution

    plan = PLAN(0, 4, d=2, n=9, rho=rho, step=1, selection="exponential", beta="1/2")
    a, share = plan.centre_bound, plan.shares[0]
    assert a is not None and plan.rounds == 1
    chooser = plan._selector(plan.grid, plan.n, Fraction(1, 2), share * plan.rho / plan.d)
    m, per_coordinate = chooser.rank, plan.beta / (3 * plan.d)
    assert a < min(m, plan.n - 1 - m)
    worst, one_less = Fraction(0), Fraction(0)
    for column in _columns(5, 9):
        law = exact_distribution(lambda rng, c=column: chooser.release(list(c), rng))
        for bound, seen in ((a, worst), (a - 1, one_less)):
            low, high = _window(column, m, bound)
            outside = sum((p for y, p in law.items() if not low <= y <= high), Fraction(0))
            if bound == a:
                worst = max(seen, outside)
            else:
                one_less = max(seen, outside)
    assert 0 < worst <= per_coordinate  # 0.061 and 0.054 against 1/12
    assert 1 - (1 - worst) ** plan.d <= plan.beta / 3
    # tight here: with a - 1 some column leaves its window too often (0.154, 0.191)
    assert one_less > per_coordinate


def test_gaussian_centre_lands_in_its_window_on_the_exact_law() -> None:
    """The same for the Gaussian binary search (the `auto` choice at large ``d``), on
    the columns whose window is narrowest (all values equal: the window is one point)
    and on a spread one; every column is checked by ``benchmarks/proof_plan.py``."""
    from finitedp.checker import exact_distribution

    # the noise is not checked here: its table is given (at rho = 64 the default refuses)
    plan = PLAN(
        0,
        4,
        d=2,
        n=9,
        rho="64",
        step=1,
        selection="gaussian",
        beta="1/2",
        units=2,
        noise_law="table",  # the checker enumerates the one-table law's draws
    )
    a = plan.centre_bound
    assert a is not None
    chooser = plan._selector(plan.grid, plan.n, Fraction(1, 2), plan.shares[0] * plan.rho / 2)
    for column in ((0,) * 9, (2,) * 9, (0, 1, 1, 2, 2, 2, 3, 4, 4)):
        law = exact_distribution(lambda rng, c=column: chooser.release(list(c), rng))
        low, high = _window(column, chooser.rank, a)
        outside = sum((p for y, p in law.items() if not low <= y <= high), Fraction(0))
        assert outside <= plan.beta / 6


def test_least_share_tries_k_over_256_from_low_to_high_inclusive(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The search's ends and step (a mutation run's survivors in mean/shares.py)."""
    asked: list[Fraction] = []

    def below(plan: object, step: str, share: Fraction, target: int) -> bool:
        asked.append(share)
        k = share * 256
        error = None if k == 20 else 300 - int(k)  # a share the selector cannot state
        return error is not None and error < target

    plan = PLAN(-20, 20, d=2, n=100, rho=1, step=1)
    monkeypatch.setattr(shares_module, "rank_error_below", below)
    assert least_share(plan, "centre", 16, 64, 237) == Fraction(64, 256)  # 236 < 237 at k = 64
    assert asked == [Fraction(k, 256) for k in range(16, 65)]
    assert least_share(plan, "centre", 16, 64, 236) is None  # even 1/4 is not enough
    assert least_share(plan, "centre", 20, 64, 281) == Fraction(21, 256)  # None is skipped


def test_the_centre_and_spreads_are_medians_and_the_grid_of_k_stops_below_2_to_13() -> None:
    """Pins of a mutation run's survivors in mean/plan.py: the quantiles of steps 1-2
    are the medians (a centre at the top of the data clips it all), and ``K`` stays
    below ``2^13`` where ``16 ceil(sqrt(d))`` or ``n/2`` would pass it."""
    plan = PLAN(-20, 20, d=4, n=1000, rho=1, step="1/16", selection="exponential")
    assert isinstance(plan.centre, ExponentialQuantile) and plan.centre.quantile == Fraction(1, 2)
    assert isinstance(plan.spread, ExponentialQuantile) and plan.spread.quantile == Fraction(1, 2)
    rows = np.zeros((1000, 4), dtype=np.int64) + 320  # the value 0 on the grid of 1/16
    rows[:100] = 640  # a tenth at the top: the median stays 0
    release = plan.release_indices(rows, SeededSource(b"median"))
    assert all(abs(c) <= 1 for c in release.centre)
    many = PLAN(-20, 20, d=8, n=20_000, rho=1, step="1/16")
    assert many.units == (1 << 13) - 1 < many.n // 2  # n/2 and the table's bound exceed it
    # 16 ceil(sqrt(d)) > 8191, but K stops where the lightest round's table stays exact
    # (sigma^2 <= 2^28): here 8 rounds asked for, each with 1/8 of the noise share
    wide = PLAN(-1, 1, d=300_000, n=100, rho=1, step=1, rounds=8)
    least = min(wide.noise_split) * wide.shares[3] * (1 - Fraction(1, 2**20))
    assert (wide.rounds, min(wide.noise_split)) == (8, Fraction(1, 8))
    assert wide.units == isqrt(int(least * 2**27)) == 3547 < (1 << 13) - 1
    assert all(t.sigma2 is not None and t.sigma2 <= 2**28 for t in wide.noises)
