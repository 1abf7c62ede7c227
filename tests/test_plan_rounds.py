"""PLAN's repair rounds (issue 28): each round accounted, drawn, recorded, combined, private.

Paper: Lebeda thesis Alg 17 Lines 5-8, run ``R`` times around the estimate so far
(finitedp.mean.rounds; proofs_notes/plan.md, "Repair rounds").
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from plan_law import NoiseDivergence, hockey_stick, neighbours, two_rounds_law

from finitedp import RecordingSource, ReplaySource, SeededSource
from finitedp.errors import FloatParameterError, ParameterError
from finitedp.exactmath import exp_bounds
from finitedp.mean import PLAN
from finitedp.mean.plan import LISTING_SHARES
from finitedp.mean.rounds import Round, combine, nearest_indices
from finitedp.selection.quantile import Grid


def small(rounds: int) -> PLAN:
    return PLAN(
        -20, 20, d=8, n=1000, rho="1/2", step="1/16", rounds=rounds, selection="exponential"
    )


def test_each_round_has_its_share_and_is_accounted() -> None:
    one, three = small(1), small(3)
    assert one.shares[:2] == three.shares[:2]  # the centre is placed here: no repair
    # one round gives the radius' spare share to the noise; rounds keep 1/16 between them
    assert (one.shares[2], three.shares[2]) == (Fraction(1, 64), Fraction(1, 16))
    same = PLAN(-20, 20, d=8, n=1000, rho="1/2", step="1/16", shares=three.shares)
    assert same.shares == three.shares and same.rounds == 1
    assert three.noise.sigma2 == 3 * same.noise.sigma2  # a third of the noise share each
    labels = [g.label for g in three.accountant.steps]
    assert labels[-2:] == [
        "clipping radius (quantile of norms) (x3)",
        "noise (l2 2K) (x3)",
    ]
    total = three.guarantee.rho
    assert total is not None and Fraction(99, 100) / 2 < total <= Fraction(1, 2)
    # each round's radius and noise counted R times, the centre and spreads once
    parts = [
        three.centre.guarantee("c").rho * 8,  # type: ignore[union-attr]
        three.spread.guarantee("s").rho * 8,  # type: ignore[union-attr]
        three.radius.guarantee("r").rho * 3,
        three.noise.zcdp_vector(2 * three.units, 8, "z").rho * 3,
    ]
    assert None not in parts and total == sum(parts)  # type: ignore[arg-type]
    # exponential quantiles draw once: d centres, d spreads, then per round 1 + d
    assert (one.max_oracle_calls, three.max_oracle_calls) == (8 + 8 + 9, 8 + 8 + 3 * 9)


def test_rounds_are_refused_out_of_range() -> None:
    for bad, message in ((0, "rounds: got 0"), (17, "rounds: got 17; PLAN takes 1 to 16")):
        with pytest.raises(ParameterError, match=message):
            small(bad)
    with pytest.raises(FloatParameterError, match="rounds"):
        PLAN(-20, 20, d=8, n=1000, rho="1/2", rounds=2.0)


def test_rounds_draw_what_they_state_and_replay() -> None:
    plan = small(3)
    rows = np.random.default_rng(7).integers(0, plan.span + 1, size=(1000, 8))
    tape = RecordingSource(SeededSource(b"rounds"))
    release = plan.release_indices(rows, tape)
    assert len(tape.tape) == plan.max_oracle_calls
    assert plan.release_indices(rows, ReplaySource(tape.tape)) == release


def test_each_round_is_recorded_and_the_estimate_is_their_combination() -> None:
    plan = small(3)
    rows = np.random.default_rng(3).integers(300, 340, size=(1000, 8))
    release = plan.release_indices(rows, SeededSource(b"combine"))
    rounds = release.rounds
    assert len(rounds) == 3 and release.centre == rounds[0].centre
    assert release.radius == rounds[-1].radius and release.estimates == combine(rounds)
    for t in (1, 2):  # each round is centred on the grid point nearest the mean so far
        nearest = nearest_indices(plan.grid, combine(rounds[:t]))
        assert rounds[t].centre == tuple(plan.grid.value(i) for i in nearest)
    doc = release.to_json_dict()
    assert [r["clip_radius"] for r in doc["rounds"]] == [r.radius for r in rounds]
    assert doc["rounds"][1]["estimates"] == [
        f"{e.numerator}/{e.denominator}" if e.denominator > 1 else str(e.numerator)
        for e in rounds[1].estimates
    ]
    single = small(1).release_indices(rows, SeededSource(b"combine"))
    assert single.rounds == () and "rounds" not in single.to_json_dict()


def test_combine_weighs_by_inverse_squared_radius() -> None:
    zero = (Fraction(0),) * 2
    a = Round(zero, 3, (Fraction(1), Fraction(-2)))
    b = Round(zero, 1, (Fraction(2), Fraction(5)))
    assert combine([a, b]) == (Fraction(1 + 9 * 2, 10), Fraction(-2 + 9 * 5, 10))
    assert combine([a]) == a.estimates


@given(st.lists(st.fractions(-10, 10), min_size=1, max_size=8))
def test_nearest_indices_round_to_the_grid_and_clamp(values: list[Fraction]) -> None:
    grid = Grid(-4, 4, "1/3")
    for value, index in zip(values, nearest_indices(grid, values), strict=True):
        assert 0 <= index <= grid.size - 1
        if -4 <= value <= 4:  # within half a step, halves up: offset in [-s/2, s/2)
            offset = value - grid.value(index)
            assert -Fraction(1, 6) <= offset < Fraction(1, 6)
        else:
            assert index == (0 if value < -4 else grid.size - 1)


def test_rounds_repair_a_centre_lost_in_high_dimension() -> None:
    """At d = 256, n = 600, rho = 1/8 over [-200, 200] no centre share up to 1/4 places every
    median: repair rounds by default.  A single round (the centre at 1/2) loses some
    coordinates' medians by tens and its error follows; the rounds bring it to the noise."""
    d, n = 256, 600
    gen = np.random.default_rng(11)
    rows = np.clip(np.round(gen.normal(0, 1, size=(n, d)) * 4) + 800, 0, 1600).astype(np.int64)
    repaired = PLAN(-200, 200, d=d, n=n, rho="1/8", step="1/4")
    assert repaired.rounds == 8 and repaired.shares[0] == Fraction(1, 16)
    alone = PLAN(-200, 200, d=d, n=n, rho="1/8", step="1/4", rounds=1)
    truth = rows.mean(axis=0) / 4 - 200
    one = alone.release_indices(rows, SeededSource(b"lost"))
    assert max(abs(float(c) - t) for c, t in zip(one.centre, truth, strict=True)) > 20
    errors = [
        float(np.linalg.norm([float(e) for e in r.estimates] - truth))
        for r in (one, repaired.release_indices(rows, SeededSource(b"lost")))
    ]
    assert errors[1] * 5 < errors[0]
    # 16 rounds would clip 376 of the 600 rows at rho_r/16 each: the rule keeps 8
    many = PLAN(-200, 200, d=d, n=n, rho="1/8", step="1/4", rounds=16)
    assert many.clipped == 376 and repaired.clipped == 273
    far = many.release_indices(rows, SeededSource(b"lost"))
    assert float(np.linalg.norm([float(e) for e in far.estimates] - truth)) > 20 * errors[1]


def test_repair_rounds_are_the_most_whose_radius_clips_at_most_an_eighth() -> None:
    """rounds.repair_rounds: the largest R in [REPAIR_ROUNDS, MAX_ROUNDS] with
    clipped(R) <= n/8, else REPAIR_ROUNDS (edges: exactly n/8 passes, one more fails)."""
    from finitedp.mean.rounds import MAX_ROUNDS, REPAIR_CLIPPED, REPAIR_ROUNDS, repair_rounds

    assert (8, 16, Fraction(1, 8)) == (REPAIR_ROUNDS, MAX_ROUNDS, REPAIR_CLIPPED)
    assert repair_rounds(800, lambda r: 100) == 16
    assert repair_rounds(800, lambda r: 101) == 8
    assert repair_rounds(800, lambda r: 10 * r - 20) == 12  # 100 at R = 12, 110 at 13
    asked: list[int] = []
    repair_rounds(800, lambda r: asked.append(r) or 1000)
    assert asked == list(range(16, 8, -1))  # 8 itself is never asked: it is the floor


def tiny_rounds(split: list[str] | None = None) -> PLAN:
    return PLAN(
        -1,
        1,
        d=1,
        n=2,
        rho=2,
        units=1,
        clip_ratio=2,
        clip_count=3,
        noise_radius=12,
        shares=LISTING_SHARES,
        rounds=2,
        noise_split=split,
    )


def assert_private_at_the_accountants_epsilon(plan: PLAN) -> None:
    """Every neighbour pair of n = 2 rows over {-1, 0, 1} (d = 1): the exact hockey-stick
    delta at the accountant's eps for delta = 10^-3 is at most 10^-3, and above it at a
    quarter of eps."""
    delta = Fraction(1, 1000)
    eps = plan.epsilon_for(delta)
    datasets = list(itertools.product(range(3), repeat=2))
    laws = [two_rounds_law(plan, np.array(ds).reshape(2, 1)) for ds in datasets]
    noise = NoiseDivergence(plan)
    exp_eps, quarter = exp_bounds(eps, 64)[0], exp_bounds(eps / 4, 64)[1]
    pairs = list(neighbours([tuple((x,) for x in ds) for ds in datasets]))
    worst = max(hockey_stick(laws[i], laws[j], exp_eps, noise) for i, j in pairs)
    assert 0 < worst <= delta
    assert max(hockey_stick(laws[i], laws[j], quarter, noise) for i, j in pairs) > delta


def test_two_rounds_are_private_at_the_accountants_epsilon() -> None:
    """Every neighbour pair of n = 2 rows over {-1, 0, 1} (d = 1): the exact hockey-stick
    delta of (centre, spread, level 1, noisy sums 1, level 2, noisy sums 2) at the
    accountant's eps for delta = 10^-3 is at most 10^-3, and above it at a quarter of eps."""
    assert_private_at_the_accountants_epsilon(tiny_rounds())


def test_auto_selection_keeps_the_exponential_where_it_places_every_median() -> None:
    """``selection="auto"``: the thesis' exponential quantiles where their bound places every
    centre and spread within a quarter of rho each; else the Gaussian search (issue 28)."""
    near = PLAN(-200, 200, d=64, n=4000, rho="1/4", step="1/16")
    assert (near.selection, near.rounds) == ("exponential", 1)
    far = PLAN(-1132, 1132, d=2048, n=4000, rho="1/16", step="1/16")
    assert (far.selection, far.rounds, far.shares[:2]) == (
        "gaussian",
        12,
        (Fraction(1, 16), Fraction(1, 8)),
    )
    forced = PLAN(-1132, 1132, d=2048, n=4000, rho="1/16", step="1/16", selection="exponential")
    assert (forced.selection, forced.rounds) == ("exponential", 12)
    with pytest.raises(ParameterError, match="selection: got 'fast'; use 'auto'"):
        PLAN(-1, 1, d=2, n=4, rho=1, selection="fast")  # type: ignore[arg-type]


def test_the_split_rule_asks_for_the_stated_ranges_and_targets(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 29: shares_by_need searches the centre in [16, 64]/256 (then [65, 128]/256 for
    one round) and the spread in [8, 64]/256, with targets min(m, n - 1 - m) and
    min(m', n' - 1 - m'); pinned through the calls it makes (nothing is placed here)."""
    from finitedp.mean import shares

    calls: list[tuple[str, int, int, int]] = []

    def none(plan: PLAN, step: str, low: int, high: int, target: int) -> None:
        calls.append((step, low, high, target))

    monkeypatch.setattr(shares, "least_share", none)
    plan = PLAN(-20, 20, d=4, n=1000, rho=1, step="1/16", selection="exponential", rounds=1)
    assert calls == [("centre", 16, 64, 499), ("centre", 65, 128, 499), ("spread", 8, 64, 249)]
    assert plan.shares[:2] == (Fraction(1, 2), Fraction(1, 8)) and plan.rounds == 1
    calls.clear()
    repaired = PLAN(-20, 20, d=4, n=1001, rho=1, step="1/16", selection="exponential")
    assert calls == [("centre", 16, 64, 500), ("spread", 8, 64, 249)]
    assert (repaired.shares[0], repaired.rounds) == (Fraction(1, 16), 9)  # repair_rounds


def test_light_split_gives_the_first_quarter_of_the_rounds_a_quarter_share() -> None:
    """rounds.light_split: ``R // 4`` rounds at ``1/(4R)`` of the noise share, the rest even;
    fewer than 4 rounds are even.  Exact values, so a changed constant fails."""
    from finitedp.mean.rounds import LIGHT_ROUNDS, LIGHT_SHARE, light_split

    assert (4, Fraction(1, 4)) == (LIGHT_ROUNDS, LIGHT_SHARE)
    assert light_split(12) == (Fraction(1, 48),) * 3 + (Fraction(5, 48),) * 9
    assert light_split(16) == (Fraction(1, 64),) * 4 + (Fraction(5, 64),) * 12
    assert light_split(9) == (Fraction(1, 36),) * 2 + (Fraction(34, 252),) * 7
    assert light_split(3) == (Fraction(1, 3),) * 3 and light_split(1) == (Fraction(1),)
    for rounds in range(1, 17):
        split = light_split(rounds)
        assert len(split) == rounds and sum(split) == 1 and split == tuple(sorted(split))


def test_repair_rounds_split_the_noise_and_account_each_table() -> None:
    """Default repair rounds (d = 2048, n = 4000, rho = 1/16: 12 rounds): the light split,
    one table per share with sigma^2 = (2K)^2/(2 rho_t (1 - 2^-20)), K grown only as far
    as the lightest round's sigma^2 <= 2^28, and the accountant's total is the sum of
    the steps; rounds asked for (or shares given) stay even."""
    from finitedp.mean.rounds import light_split

    plan = PLAN(-1132, 1132, d=2048, n=4000, rho="1/16", step="1/16")
    assert plan.rounds == 12 and plan.noise_split == light_split(12)
    noise_total = plan.shares[3] * plan.rho
    guard = 1 - Fraction(1, 2**20)
    k2 = Fraction((2 * plan.units) ** 2)
    for fraction, table in zip(plan.noise_split, plan.noises, strict=True):
        assert table.sigma2 == k2 / (2 * noise_total * fraction * guard)
    assert plan.noises[0] is plan.noises[2] and plan.noise is plan.noises[-1]
    # K = 362 < 16 ceil(sqrt(d)) = 736: the lightest table stays exact (sigma^2 <= 2^28) ...
    light = plan.noises[0].sigma2
    assert plan.units == 362 and light is not None and light <= 2**28
    # ... which K + 1 would not with the one-table law: its 48-bit table's tail makes
    # delta0 = 1 (before, the default K = 736 stated it); the convolved law states it
    wide = PLAN(-1132, 1132, d=2048, n=4000, rho="1/16", step="1/16", units=plan.units + 1)
    old = PLAN(
        -1132,
        1132,
        d=2048,
        n=4000,
        rho="1/16",
        step="1/16",
        units=plan.units + 1,
        noise_law="table",
    )
    assert old.noises[0].sigma2 is not None and old.noises[0].sigma2 > 2**28
    assert old.guarantee.rho_delta == 1
    assert (wide.guarantee.rho_delta or 0) < Fraction(1, 2**60)
    assert (plan.guarantee.rho_delta or 0) < Fraction(1, 2**70)
    labels = [g.label for g in plan.accountant.steps][-2:]
    assert labels == [
        "noise (l2 2K), rounds with 1/48 of its share (x3)",
        "noise (l2 2K), rounds with 5/48 of its share (x9)",
    ]
    parts = [plan.noises[i].zcdp_vector(2 * plan.units, 2048, "z").rho for i in (0, 3)]
    assert parts[0] is not None and parts[1] is not None
    steps = plan.accountant.steps
    assert [s.rho for s in steps[-2:]] == [3 * parts[0], 9 * parts[1]]
    total = plan.guarantee.rho
    assert total is not None and total <= Fraction(1, 16)
    asked = PLAN(-1132, 1132, d=2048, n=4000, rho="1/16", step="1/16", rounds=12)
    assert asked.noise_split == (Fraction(1, 12),) * 12 and len(set(asked.noises)) == 1


def test_a_table_the_user_sized_is_named_in_its_error() -> None:
    """An impossible noise_radius or noise_precision is the user's parameter, not rho's."""
    base = {"d": 4, "n": 100, "rho": 1}
    with pytest.raises(ParameterError, match=r"^noise_radius: no noise table with it \(radius"):
        PLAN(-1, 1, **base, noise_radius=10**12)  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match=r"^noise_precision: no noise table .*at most 256"):
        PLAN(-1, 1, **base, noise_precision=10**9)  # type: ignore[arg-type]


def test_noise_split_is_checked() -> None:
    base = {"d": 2, "n": 40, "rho": 4, "step": "1/2", "rounds": 2}
    ok = PLAN(-2, 2, **base, noise_split=["1/4", Fraction(3, 4)])  # type: ignore[arg-type]
    assert ok.noise_split == (Fraction(1, 4), Fraction(3, 4))
    for bad in (["1/2"], ["1/2", "1/4"], ["0", "1"], ["-1/2", "3/2"], "1/2,1/2", 5):
        with pytest.raises(ParameterError, match=r"noise_split: got .*need 2 fractions"):
            PLAN(-2, 2, **base, noise_split=bad)  # type: ignore[arg-type]
    with pytest.raises(FloatParameterError, match=r"noise_split\[0\]: got 0.5"):
        PLAN(-2, 2, **base, noise_split=[0.5, "1/2"])  # type: ignore[arg-type]


def test_rounds_weigh_by_their_noise_share_and_state_it() -> None:
    """With an uneven split each round records its share, the estimate is
    ``combine`` with weights ``share/C_t^2``, the document lists ``noise_share``,
    and the draws are what ``max_oracle_calls`` says (tape replay)."""
    plan = PLAN(-20, 20, d=8, n=1000, rho="1/2", step="1/16", rounds=3,
                noise_split=["1/8", "1/8", "3/4"], selection="exponential")  # fmt: skip
    rows = np.random.default_rng(3).integers(300, 340, size=(1000, 8))
    tape = RecordingSource(SeededSource(b"split"))
    release = plan.release_indices(rows, tape)
    assert len(tape.tape) == plan.max_oracle_calls
    assert [r.share for r in release.rounds] == [Fraction(1, 8), Fraction(1, 8), Fraction(3, 4)]
    weights = [r.share / r.radius**2 for r in release.rounds]
    expected = tuple(
        sum((w * e for w, e in zip(weights, col, strict=True)), Fraction(0)) / sum(weights)
        for col in zip(*(r.estimates for r in release.rounds), strict=True)
    )
    assert release.estimates == expected == combine(release.rounds)
    even = combine([Round(r.centre, r.radius, r.estimates) for r in release.rounds])
    assert even != expected  # the shares matter
    doc = release.to_json_dict()
    assert [r["noise_share"] for r in doc["rounds"]] == ["1/8", "1/8", "3/4"]
    assert plan.release_indices(rows, ReplaySource(tape.tape)) == release


def test_two_rounds_with_an_uneven_split_are_private_at_the_accountants_epsilon() -> None:
    """As the even check above, with the first round at 1/4 of the noise share and the
    second at 3/4: each round's own table, the accountant's sum of both."""
    base, plan = tiny_rounds(), tiny_rounds(["1/4", "3/4"])
    assert plan.noises[0].sigma2 == 2 * base.noise.sigma2  # type: ignore[operator]
    assert plan.noise.sigma2 == base.noise.sigma2 * Fraction(2, 3)  # type: ignore[operator]
    assert_private_at_the_accountants_epsilon(plan)


def test_no_repair_where_eight_rounds_radii_would_clip_most_rows() -> None:
    """rounds.REPAIR_VIABLE: at n = 600, d = 128, rho = 1/32 no centre share up to 1/4
    places every median, but eight rounds' radius quantiles (rho_r/8 each) would clip
    521 of the 600 rows: their radii are nearly uniform over the levels and the estimate
    stays at the lost centre.  One round buys the centre instead (1/2 of rho), and its
    error is several times smaller; at d = 256, rho = 1/8 eight rounds clip 273 <= 300
    and repair (test_rounds_repair_a_centre_lost_in_high_dimension)."""
    from finitedp.mean.rounds import REPAIR_VIABLE

    assert Fraction(1, 2) == REPAIR_VIABLE
    d, n = 128, 600
    gen = np.random.default_rng(1)
    rows = np.round(gen.normal(0, 1, (n, d)) * 4).astype(np.int64) + 200  # grid 1/4 on [-50, 50]
    plan = PLAN(-50, 50, d=d, n=n, rho="1/32", step="1/4")
    assert (plan.rounds, plan.shares[0], plan.noise_split) == (1, Fraction(1, 2), (Fraction(1),))
    forced = PLAN(-50, 50, d=d, n=n, rho="1/32", step="1/4", rounds=8)
    assert forced.clipped == 521 > REPAIR_VIABLE * n and plan.clipped == 200
    truth = rows.mean(axis=0) / 4 - 50

    def error(p: PLAN) -> float:
        estimates = p.release_indices(rows, SeededSource(b"v")).estimates
        return float(np.linalg.norm([float(e) for e in estimates] - truth))

    one, eight = error(plan), error(forced)
    assert one * 3 < eight
