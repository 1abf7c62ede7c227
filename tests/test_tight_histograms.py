"""Tight noise (``noise="tight"``) in the user-level histogram mechanisms, proven exactly.

Laws: every privacy claim holds on every dataset of a tiny instance (the audit
engine, exact laws), and the worst ratio is above the paper mode's (the tight
ratio spends at least 97% of the budget: it can fail if the mode is not wired
through); the stability threshold is the least ``b`` with ``2 Pr[M(1, U) > b] <=
delta`` (Thm 5.5 i), and the accuracy statements are the sampler's exact tails,
never looser than the paper's figures.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from finitedp.audit import HistogramReport, audit_histogram_mechanism
from finitedp.counting import GeoSample
from finitedp.errors import ParameterError
from finitedp.exactmath import compare_exp
from finitedp.histograms import BoundedGeometricHistogram, PureSparseHistogram, StabilityHistogram
from finitedp.histograms.mechanisms import sample_accuracy, tight_stability_threshold

F = Fraction


def _failing(report: HistogramReport) -> list[str]:
    return [claim.statement for claim in report.claims if not claim.holds]


@pytest.mark.parametrize("counter", ["geo", "fast"])
def test_bounded_geometric_tight_is_private_and_spends_the_budget(counter: str) -> None:
    tight = audit_histogram_mechanism(
        "bounded-geometric", 2, 3, 1, beta="1/4", counter=counter, noise="tight"
    )
    paper = audit_histogram_mechanism("bounded-geometric", 2, 3, 1, beta="1/4", counter=counter)
    assert tight.ok and paper.ok, _failing(tight)
    assert isinstance(tight.worst_ratio, Fraction) and isinstance(paper.worst_ratio, Fraction)
    assert paper.worst_ratio < tight.worst_ratio and compare_exp(tight.worst_ratio, 1) <= 0
    if counter == "geo":  # two bins move by one: (b/a)^2 with the tight b/a = 23/14
        assert tight.worst_ratio == F(23, 14) ** 2


def test_stability_tight_threshold_and_exact_delta() -> None:
    report = audit_histogram_mechanism(
        "stability", 4, 2, 1, delta="1/2", beta="1/2", counter="geo", noise="tight"
    )
    assert report.ok, _failing(report)
    mech = StabilityHistogram(4, 2, 1, F(1, 2), F(1, 2), counter="geo", noise="tight")
    sampler, b = mech.sampler, mech.threshold
    tail = sum((p for z, p in sampler.pmf(1).items() if z > b), F(0))
    below = sum((p for z, p in sampler.pmf(1).items() if z > b - 1), F(0))
    assert 2 * tail <= F(1, 2) < 2 * below  # the least such b (Thm 5.5 i)
    assert report.delta_bounds is not None and 0 < report.delta_bounds[1] <= 2 * tail
    # The paper's b = 8 needs n >= 8; the tight b fits n = 4.
    with pytest.raises(ParameterError, match="below the threshold"):
        StabilityHistogram(4, 2, 1, F(1, 2), F(1, 2), counter="geo")


def test_pure_sparse_tight_is_pure() -> None:
    report = audit_histogram_mechanism(
        "pure-sparse", 1, 3, 1, beta="1/2", counter="geo", noise="tight"
    )
    assert report.ok, _failing(report)
    assert isinstance(report.worst_ratio, Fraction) and compare_exp(report.worst_ratio, 1) <= 0


@pytest.mark.parametrize("counter", ["geo", "fast"])
@pytest.mark.parametrize("eps", [F(1), F(1, 2), F(1, 10)])
def test_tight_accuracy_is_the_exact_tail_and_never_looser(counter: str, eps: Fraction) -> None:
    beta = F(1, 10)
    for cls, args in (
        (BoundedGeometricHistogram, (1000, 1000, eps, beta)),
        (StabilityHistogram, (10**4, 10**6, eps, F(1, 10**6), beta)),
        (PureSparseHistogram, (100, 2**64, eps, beta)),
    ):
        paper = cls(*args, counter=counter)  # type: ignore[operator]
        tight = cls(*args, counter=counter, noise="tight")  # type: ignore[operator]
        a_p, a_t = paper.accuracy(beta), tight.accuracy(beta)
        for field in ("per_query", "simultaneous"):
            p, t = getattr(a_p, field), getattr(a_t, field)
            assert t is not None and p is not None and t <= p, (cls.__name__, field)
    sampler = GeoSample(400, eps, noise="tight")
    a = sample_accuracy(sampler, beta)
    assert a is not None
    law = sampler.pmf(200)
    assert sum((p for z, p in law.items() if abs(z - 200) > a), F(0)) <= beta
    assert sum((p for z, p in law.items() if abs(z - 200) > a - 2), F(0)) > beta / 4


def test_tight_threshold_is_below_the_papers() -> None:
    for eps in (F(1), F(1, 10)):
        sampler = GeoSample(10**4, eps, noise="tight")
        paper = StabilityHistogram(10**4, 10, eps, F(1, 10**6), counter="geo")
        assert tight_stability_threshold(sampler, F(1, 10**6)) < paper.threshold


def test_noise_option_is_validated_and_reaches_the_cli(
    tmp_path: object, capsys: pytest.CaptureFixture[str]
) -> None:
    from finitedp.cli import main

    with pytest.raises(ParameterError, match="noise: got 'loose'"):
        BoundedGeometricHistogram(3, 5, 1, F(1, 10), noise="loose")
    argv = ["release", "examples/data/visits.csv", "--column", "weekday", "--universe", "int:7"]
    opts = ["--epsilon", "1", "--mechanism", "bounded-geometric", "--noise", "tight"]
    code = main([*argv, *opts, "--quiet", "--seed", "01"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert '"noise": "tight"' in out and "exact ratio" in out
    code = main(
        [
            *argv,
            "--epsilon",
            "1",
            "--mechanism",
            "pmg",
            "--k",
            "2",
            "--delta",
            "1/9",
            "--noise",
            "tight",
            "--quiet",
        ]
    )
    out, err = capsys.readouterr()
    assert code == 2 and "--noise" in err
