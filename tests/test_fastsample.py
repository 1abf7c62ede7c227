"""FastSample (BV Alg 4.11, Thm 4.10, Lemma 4.12), proven exactly by the checker."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from finitedp import FastSample, GeoSample, Mixture, ParameterError, satisfies_condition_1
from finitedp.checker import exact_distribution, statistical_distance
from finitedp.checker.counting import audit_counting, is_inverse_cdf, sampler_paths
from finitedp.checker.draws import DrawRecord
from finitedp.counting.base import bisect_cdf
from finitedp.counting.leading import LeadingWords
from finitedp.exactmath import compare_exp
from finitedp.oracle import RandomSource, draw

CASES = [
    (n, eps, gamma, noise)
    for n in (1, 3, 6)
    for eps in ("1", "1/3")
    for gamma in ("1/2", "1/16")
    for noise in ("paper", "tight")
]


def truncated_geometric_pmf(sampler: FastSample, c: int) -> dict[int, Fraction]:
    """Lemma 4.12 i from its definition: Z' = c + J, J two-sided geometric cut at |J| <= t."""
    alpha, t, n = sampler.noise.alpha, sampler.t, sampler.n
    weight = (1 - alpha) / (1 + alpha)
    tails = 2 * alpha ** (t + 1) / (1 + alpha)  # Pr[|J| > t], moved onto c
    pmf: dict[int, Fraction] = {}
    for j in range(-t, t + 1):
        mass = weight * alpha ** abs(j) + (tails if j == 0 else 0)
        z = min(max(c + j, 0), n)
        pmf[z] = pmf.get(z, Fraction(0)) + mass
    return pmf


def lemma_4_12_pmf(sampler: FastSample, c: int) -> dict[int, Fraction]:
    gamma, n = sampler.gamma, sampler.n
    truncated = truncated_geometric_pmf(sampler, c)
    return {z: (1 - gamma) * truncated.get(z, Fraction(0)) + gamma / (n + 1) for z in range(n + 1)}


@pytest.mark.parametrize(("n", "eps", "gamma", "noise"), CASES)
def test_lemma_4_12_and_thm_4_10_i(n: int, eps: str, gamma: str, noise: str) -> None:
    sampler = FastSample(n, eps, gamma, noise=noise)
    audit = audit_counting(sampler)
    for c, dist in enumerate(audit.distributions):
        assert dist == lemma_4_12_pmf(sampler, c)
    assert audit.inverse_cdf_exact  # Thm 4.10 v and the exact CDF F(z)/d
    # Thm 4.10 i: (eps/2, 0)-DP for counting queries, decided without floats.
    assert compare_exp(Fraction(audit.privacy_ratio), sampler.epsilon / 2) <= 0  # type: ignore[arg-type]
    if noise == "tight":  # t is chosen for e^eps = b/a itself
        assert audit.privacy_ratio <= sampler.noise.exp_epsilon
    assert audit.max_comparisons == sampler.max_comparisons  # the stated maximum is attained


@pytest.mark.parametrize(("n", "eps"), [(1, 4), (4, 8), (6, 3)])
def test_short_truncations_down_to_none_are_lemma_4_12(n: int, eps: int) -> None:
    # Tight mode at a large eps makes t = 0 (no table: every draw is a stretch's) or
    # t = 1, and n > 2t (both stretches): the region tests and the search still agree.
    sampler = FastSample(n, eps, "1/2", noise="tight")
    assert sampler.t <= 1 and n > 2 * sampler.t - 1
    audit = audit_counting(sampler)
    for c, dist in enumerate(audit.distributions):
        assert dist == lemma_4_12_pmf(sampler, c)
    assert audit.inverse_cdf_exact
    assert audit.max_comparisons == sampler.max_comparisons


@pytest.mark.parametrize(
    ("n", "eps", "gamma"), [(4, "1", "1/2"), (5, "1/2", "1/3"), (3, "1/3", "1/8")]
)
def test_thm_4_10_ii_accuracy(n: int, eps: str, gamma: str) -> None:
    sampler = FastSample(n, eps, gamma)
    audit = audit_counting(sampler)
    for beta in (Fraction(gamma) * 2, (1 + Fraction(gamma)) / 2):
        if beta < 1:
            assert audit.worst_accuracy(sampler.accuracy(beta)) >= 1 - beta


@pytest.mark.parametrize("noise", ["paper", "tight"])
def test_lemma_3_2_condition_1_holds_for_the_truncation(noise: str) -> None:
    # The proof of Thm 4.10 i: Delta(Z' clamped, GeoSample) <= Pr[|Z - c| > t] meets (1).
    for n, eps, gamma in [
        (5, Fraction(1), Fraction(1, 2)),
        (40, Fraction(1, 4), Fraction(1, 1000)),
    ]:
        sampler = FastSample(n, eps, gamma, noise=noise)
        alpha, t = sampler.noise.alpha, sampler.t
        delta = 2 * alpha ** (t + 1) / (1 + alpha)
        geo = GeoSample(n, eps, noise=noise)
        c = n // 2
        assert statistical_distance(truncated_geometric_pmf(sampler, c), geo.pmf(c)) <= delta
        target = {"epsilon": eps / 2} if noise == "paper" else {"exp_epsilon": alpha**-1}
        assert satisfies_condition_1(
            delta=delta, gamma=gamma, min_probability=Fraction(1, n + 1), **target
        )
        if noise == "tight" and t > 0:  # and t is the smallest such threshold
            smaller = 2 * alpha**t / (1 + alpha)
            assert not satisfies_condition_1(
                delta=smaller, gamma=gamma, min_probability=Fraction(1, n + 1), **target
            )


def test_fastsample_is_the_mixture_of_alg_3_1() -> None:
    """Lemma 4.12 ii through the reusable combinator: M* of truncated geometric and uniform."""
    sampler = FastSample(4, "1/2", "1/4")

    def truncated(c: int, rng: RandomSource) -> int:
        u = draw(rng, sampler.d_prime)
        return bisect_cdf(lambda z: sampler.truncated_cdf(c, z), sampler.n, u)

    def uniform(rng: RandomSource) -> int:
        return draw(rng, sampler.n + 1) - 1

    mixture = Mixture(truncated, uniform, sampler.gamma)
    for c in range(sampler.n + 1):
        assert exact_distribution(mixture, c) == sampler.pmf(c)


def test_checker_target_n_200_gamma_2_to_minus_40() -> None:
    sampler = FastSample(200, "1/8", Fraction(1, 2**40))
    assert sampler.d.bit_length() > 2000
    paths = sampler_paths(sampler, 100)
    assert is_inverse_cdf(sampler, 100, paths)
    assert max(p.comparisons[0] for p in paths) == sampler.max_comparisons
    assert len(paths) == sampler.n + 1  # one path per output: the work is linear in n


def test_paper_t_matches_alg_4_11() -> None:
    # t = ceil(9/(2 eps) * ceil(log2(8 (n+1)(1 - gamma)/(eps gamma)))) - 1, by hand:
    # n = 10, eps = 1/2, gamma = 1/4: 8 * 11 * (3/4) * 2 * 4 = 528 -> ceil(log2) = 10 -> 9*10 - 1.
    assert FastSample(10, "1/2", "1/4").t == 89
    # n = 1, eps = 1, gamma = 1/2: 8 * 2 * (1/2) * 1 * 2 = 16 -> 4 -> ceil(18) - 1 = 17.
    assert FastSample(1, 1, "1/2").t == 17
    # 9/(2 eps) * log-term odd: ceil(45/2) - 1 = 22, not 21.
    assert FastSample(3, 1, "1/2").t == 22
    s = FastSample(3, "1/2", "1/8")
    assert s.d_prime == (2 ** (s.k + 1) + 1) * (2**s.k + 1) ** s.t  # type: ignore[operator]
    assert s.d == 4 * s.d_prime * 8


@given(
    st.integers(1, 10**6),
    st.integers(1, 8),
    st.integers(2, 2**40),
    st.sampled_from(["paper", "tight"]),
    st.data(),
)
def test_search_equals_bv_binary_search(
    n: int, m: int, g: int, noise: str, data: st.DataObject
) -> None:
    sampler = FastSample(n, Fraction(1, m), Fraction(1, g), noise=noise)
    c = data.draw(st.sampled_from([0, n, n // 2, data.draw(st.integers(0, n))]))
    z_star = data.draw(st.integers(0, n))
    # Probe the boundaries of the step z* as well as random draws.
    edges = [sampler.cdf(c, z_star - 1) + 1, sampler.cdf(c, z_star)]
    u = data.draw(st.sampled_from([*edges, 1, sampler.d, data.draw(st.integers(1, sampler.d))]))
    z = sampler(c, u)
    assert z == sampler.bisect_reference(c, u)
    assert sampler.cdf(c, z - 1) < u <= sampler.cdf(c, z)
    assert sampler(c, data.draw(st.integers(u, sampler.d))) >= z


def test_bad_inputs_are_refused() -> None:
    with pytest.raises(ParameterError, match="gamma: got 1; it must be 1/m with m >= 2"):
        FastSample(3, 1, 1)
    with pytest.raises(ParameterError, match="gamma"):
        FastSample(3, 1, "2/5")
    with pytest.raises(ParameterError, match=r"beta: got 1/8; it must lie in \(gamma, 1\)"):
        FastSample(3, 1, "1/4").accuracy("1/8")


def test_lazy_table_gives_the_same_sampler(monkeypatch: pytest.MonkeyPatch) -> None:
    # Small-eps paper mode would need a table of O(t^2) bits; above MAX_TABLE_BYTES the
    # entries are computed when searched.  Both must be the same function of (c, u).
    import finitedp.counting.fastsample as module

    kept = FastSample(40, "1/4", "1/64")
    monkeypatch.setattr(module, "MAX_TABLE_BYTES", 0)
    lazy = FastSample(40, "1/4", "1/64")
    assert not isinstance(lazy._table, LeadingWords) and isinstance(kept._table, LeadingWords)
    assert list(lazy._table) == kept._table.values
    for c in (0, 17, 40):
        # The same intervals of the draw; the kept table's search makes its fixed steps.
        def intervals(sampler: FastSample, c: int = c) -> list[tuple[int, DrawRecord]]:
            return [(p.output, p.draws[0]) for p in sampler_paths(sampler, c)]

        assert intervals(lazy) == intervals(kept)
        # Two region tests; then a table draw's steps, or a right one's test of F(high).
        found = {p.comparisons for p in sampler_paths(kept, c)}
        assert found <= {(2,), (3,), (2 + kept._steps,)}


def test_cases_above_include_n_below_t() -> None:
    # Alg 4.11's t does not depend on how small n is: at n < t the truncation is
    # wider than [0, n] and the exact distribution is still Lemma 4.12's (checked
    # above); capping t at n (as PSI-Library's dpfc does) would change it.
    assert all(FastSample(n, eps, gamma, noise=noise).t > n for n, eps, gamma, noise in CASES)


def test_capping_t_at_n_would_break_thm_4_10() -> None:
    # Why t may exceed n: with t = min(n, t_paper) the tails moved onto c are so
    # heavy that neighbouring counts differ by a factor far above e^(eps/2).
    sampler = FastSample(1, "1/10", Fraction(1, 2**40))
    assert sampler.t > sampler.n
    ours = [lemma_4_12_pmf(sampler, c) for c in (0, 1)]
    assert compare_exp(max(ours[0][z] / ours[1][z] for z in (0, 1)), Fraction(1, 20)) <= 0

    capped = FastSample(1, "1/10", Fraction(1, 2**40))
    object.__setattr__(capped, "_t", capped.n)  # the cap, for the formula only
    theirs = [lemma_4_12_pmf(capped, c) for c in (0, 1)]
    worst = max(theirs[0][z] / theirs[1][z] for z in (0, 1))
    assert worst > 66  # against e^(1/20) = 1.0513: PSI-Library's t breaks the privacy claim


@pytest.mark.parametrize("lazy", [False, True])
def test_stretches_outside_the_table_at_n_above_t(
    lazy: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # For c > t the search answers draws left of c - t by one division, and right
    # of min(c + t, n) by another: their boundaries are pinned against BV's search,
    # with the table kept (fixed steps) and computed entry by entry (bisection).
    import finitedp.counting.fastsample as module

    if lazy:
        monkeypatch.setattr(module, "MAX_TABLE_BYTES", 0)
    sampler = FastSample(300, 1, "1/2")
    assert isinstance(sampler._table, LeadingWords) is not lazy
    t, dp = sampler.t, sampler.d_prime
    k_dp = (sampler.gamma.denominator - 1) * 301 * dp
    assert sampler.n > 2 * t
    for c in (t + 1, 150, 300 - t - 1, 300):
        low, high = c - t, min(c + t, 300)
        edges = [low * dp - 1, low * dp, low * dp + 1]
        edges += [k_dp + (high + 1) * dp + e for e in (-1, 0, 1)]
        for u in edges:
            if 1 <= u <= sampler.d:
                assert sampler(c, u) == sampler.bisect_reference(c, u), (c, u)


def test_memory_follows_min_t_n_not_t() -> None:
    # The reproducer: t = 103,499 at n = 2 used to build t + 1 running powers
    # (about 8 GB) and abort inside GMP; the table has 2 min(t, n) entries.
    sampler = FastSample(2, "1/1000", "1/200")
    assert sampler.t == 103_499 and len(sampler._table) == 4
    for c in range(3):
        for u in (1, sampler.d // 3, sampler.d):
            assert sampler(c, u) == sampler.bisect_reference(c, u)


def test_sizes_above_the_memory_limit_are_refused_before_work(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from finitedp import ResourceLimitError

    with pytest.raises(ResourceLimitError, match=r"FastSample's integers .* above the limit"):
        FastSample(3, Fraction(1, 10**50), "1/2")  # t near 2^176: no pow is attempted
    monkeypatch.setenv("FINITEDP_MAX_MEMORY", "256K")
    with pytest.raises(ResourceLimitError, match=r"epsilon = 1/1000.*FINITEDP_MAX_MEMORY"):
        FastSample(2, "1/1000", "1/200")
    monkeypatch.setenv("FINITEDP_MAX_MEMORY", "lots")
    with pytest.raises(ParameterError, match="FINITEDP_MAX_MEMORY: got 'lots'"):
        FastSample(2, "1/1000", "1/200")
