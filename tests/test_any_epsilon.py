"""Any positive rational epsilon on every histogram mechanism (issue 51), proven exactly.

Laws: under tight noise (the command line's default) a histogram mechanism takes any
positive rational epsilon up to 64, above 1 included; every privacy claim holds on
every dataset of a tiny instance (the audit engine's exact laws, worst ratio at most
``e^eps`` decided exactly), and the budget is spent (the worst ratio is above
``e^(9 eps / 10)``: a mechanism that quietly used a smaller epsilon fails).  Paper
noise keeps BV's ``1/m``.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from finitedp.audit import audit_histogram_mechanism
from finitedp.compact import CompactHistogram
from finitedp.errors import ParameterError
from finitedp.exactmath import compare_exp
from finitedp.histograms import BoundedGeometricHistogram, PureSparseHistogram, StabilityHistogram
from finitedp.histograms.sparse import pure_sparse_delta

F = Fraction
EPSILONS = [F(2), F(3, 10), F(5, 2)]


@pytest.mark.parametrize("eps", EPSILONS, ids=str)
@pytest.mark.parametrize(
    ("name", "n", "size", "options"),
    [
        ("bounded-geometric", 2, 3, {"beta": "1/4", "counter": "geo"}),
        ("stability", 3, 2, {"delta": "1/2", "beta": "1/2", "counter": "geo"}),
        ("pure-sparse", 1, 3, {"beta": "1/2", "counter": "geo"}),
    ],
)
def test_a_histogram_takes_any_epsilon_and_spends_it(
    name: str, n: int, size: int, options: dict[str, str], eps: Fraction
) -> None:
    try:
        report = audit_histogram_mechanism(name, n, size, eps, noise="tight", **options)
    except ParameterError as error:  # a threshold above n at a small epsilon: said so
        assert name == "stability" and "below the threshold" in str(error)
        return
    assert report.ok, [c.statement for c in report.claims if not c.holds]
    if name == "stability":  # approximate DP: the audit's exact delta is within delta
        return
    ratio = report.worst_ratio
    assert isinstance(ratio, Fraction) and compare_exp(ratio, eps) <= 0
    if name == "bounded-geometric":  # two bins move: the whole budget, within the 1 % slack
        assert compare_exp(ratio, eps * F(9, 10)) > 0


def test_paper_noise_keeps_bvs_inverse_naturals() -> None:
    with pytest.raises(ParameterError, match="1/m"):
        StabilityHistogram(100, 2**20, 2, "1/1000", "1/10", noise="paper")
    with pytest.raises(ParameterError, match="1/m"):
        BoundedGeometricHistogram(10, 10, "3/10", "1/10")
    with pytest.raises(ParameterError, match="up to 64"):
        PureSparseHistogram(10, 2**20, 65, "1/10", noise="tight")


@pytest.mark.parametrize("eps", [F(2), F(3, 10), F(64)], ids=str)
def test_every_histogram_class_takes_the_epsilon_it_states(eps: Fraction) -> None:
    made = [
        BoundedGeometricHistogram(50, 100, eps, "1/10", noise="tight"),
        StabilityHistogram(10**4, 2**40, eps, "1/1000000", "1/10", noise="tight"),
        PureSparseHistogram(20, 2**20, eps, "1/10", noise="tight"),
        CompactHistogram(20, 2**20, eps, "1/10", noise="tight"),
    ]
    for mech in made:
        assert mech.privacy.epsilon == eps
        assert mech.sampler.epsilon <= eps


def test_compacts_counter_takes_nine_tenths_of_any_epsilon() -> None:
    # Thm 8.6 gives M eps' <= 9 eps / 10 and the empty bins' precision the rest:
    # 1/ceil(10/(9 eps)) below eps = 10/9, 9 eps / 10 from there on.
    assert CompactHistogram(20, 2**20, 2, "1/10", noise="tight").sampler.epsilon <= F(9, 5)
    assert CompactHistogram(20, 2**20, "3/10", "1/10", noise="tight").sampler.epsilon <= F(1, 4)
    assert CompactHistogram(20, 2**20, "1/2", "1/10").sampler.epsilon == F(1, 3)  # 1/ceil(20/9)


def test_pure_sparse_caps_algorithm_6_9s_delta_above_epsilon_one() -> None:
    # eps / 3 would break condition (1) of Lemma 3.2 from eps = 3/(1 - beta1) on.
    assert pure_sparse_delta(8, F(1, 4), 2, 10) == pure_sparse_delta(1, F(1, 4), 2, 10)
    assert pure_sparse_delta(F(1, 2), F(1, 4), 2, 10) < pure_sparse_delta(1, F(1, 4), 2, 10)
    PureSparseHistogram(5, 2**20, 8, "1/10", noise="tight")  # condition (1) holds
