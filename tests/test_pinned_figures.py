"""Every stated figure pinned to its exact value (issue: mutants that survived).

An independent mutation run found statements no test read: PMG's accuracy, ALP's
accuracy and flip ratio, explicit zeros in the checker's measures, the stability
threshold's range, ALP's memory estimate, ALP's default alpha.  Each is pinned
here by equality with a value computed again from the lemma, and each range
check at its edges.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from finitedp.alp import ALP
from finitedp.alp.bounds import collision_flip, tail_radius
from finitedp.checker import (
    hockey_stick,
    max_ratio,
    privacy_ratio,
    renyi_moment,
    statistical_distance,
)
from finitedp.counting.geosample import GeoSample
from finitedp.errors import ParameterError, ResourceLimitError
from finitedp.histograms.stability import stability_histogram
from finitedp.sketches import PrivateMisraGries

# -- Private Misra-Gries: Lemma 3.5 / Theorem 3.1 ------------------------------------------------


def _least_radius(alpha: Fraction, beta: Fraction) -> int:
    """Least r >= 0 with Pr[|Z| > r] = 2 alpha^(r+1)/(1 + alpha) <= beta, by stepping."""
    r = 0
    while 2 * alpha ** (r + 1) / (1 + alpha) > beta:
        r += 1
    return r


@pytest.mark.parametrize(
    ("k", "eps", "delta", "beta"),
    [(2, "1", "1/10", "1/10"), (4, "1/2", "1/1000000", "1/100"), (10, "2", "1/100", "1/2")],
)
def test_pmg_accuracy_is_two_r_plus_tau_minus_one(k: int, eps: str, delta: str, beta: str) -> None:
    mech = PrivateMisraGries(k, 1000, eps, delta)
    b = Fraction(beta)
    r = min(mech.noise.r, _least_radius(mech.alpha, b / (k + 1)))
    acc = mech.accuracy(b)
    assert acc.per_query == acc.simultaneous == 2 * r + mech.tau - 1
    assert mech.accuracy(b, n=100).per_query == 2 * r + mech.tau - 1 + 100 // (k + 1)


# -- ALP: Lemma 2.18 / 2.13 and the flip ratio ---------------------------------------------------


def test_alp_accuracy_is_one_plus_tau_times_the_scale() -> None:
    alp = ALP(2**32, "1/2", k=3, psi=10**6)
    f, base = alp.flip
    tau = tail_radius(collision_flip(Fraction(f, base), Fraction(alp.k, alp.s)), Fraction(1, 10))
    expected = (1 + tau) * alp.scale
    assert expected < max(alp.m * alp.scale, alp.psi)  # not the cap
    assert alp.accuracy("1/10").per_query == -(-expected.numerator // expected.denominator) > 0


def test_alp_flip_ratio_and_default_alpha() -> None:
    alp = ALP(2**32, "1/2", k=3, psi=60)
    assert alp.alpha == 3 and alp.flip_ratio == 4  # (1 - p)/p = alpha + 1 with p = 1/(alpha + 2)
    assert ALP(2**32, "1/2", k=3, psi=60, alpha=5).flip_ratio == 6
    hist = ALP(2**32, "1/2", k=3, psi=60, variant="histogram")
    f, base = hist.flip
    assert hist.flip_ratio == Fraction(base - f, f) > 1


def test_alp_memory_estimate_is_two_packed_copies_and_a_16_mib_block(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    alp = ALP(2**32, "1/2", k=1000, psi=60)
    estimate = 2 * -(-alp.s * alp.m // 8) + (16 << 20)
    monkeypatch.setenv("FINITEDP_MAX_MEMORY", str(estimate))
    ALP(2**32, "1/2", k=1000, psi=60)
    monkeypatch.setenv("FINITEDP_MAX_MEMORY", str(estimate - 1))
    with pytest.raises(ResourceLimitError, match="ALP embedding"):
        ALP(2**32, "1/2", k=1000, psi=60)


# -- the checker's measures take explicit zeros ---------------------------------------------------


def test_measures_accept_explicit_zero_probabilities() -> None:
    p = {"a": Fraction(1), "b": Fraction(0)}
    q = {"a": Fraction(1, 2), "b": Fraction(1, 2)}
    assert max_ratio(p, q) == 2
    assert privacy_ratio(p, {"a": Fraction(1)}) == 1
    assert statistical_distance(p, q) == Fraction(1, 2)
    assert hockey_stick(p, q, Fraction(1)) == Fraction(1, 2)
    assert renyi_moment(p, q, 2) == 2
    with pytest.raises(ParameterError):
        max_ratio({"a": Fraction(-1)}, q)


# -- the stability threshold's range ---------------------------------------------------------------


def test_stability_threshold_edges() -> None:
    sampler = GeoSample(4, 1)
    for ok in (0, 4):
        stability_histogram(sampler, ok, [1, 1, 2, 3], 5)
    for bad in (-1, 5):
        with pytest.raises(
            ParameterError, match=r"threshold: got -?\d; b must be an int in \[0, 4\]"
        ):
            stability_histogram(sampler, bad, [1, 1, 2, 3], 5)
