"""Audits of histogram mechanisms and of foreign samplers (``finitedp.audit``, ``finitedp audit``).

Every histogram audit here runs on an instance of a few thousand paths at most,
so the whole file stays within a few tens of seconds.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from finitedp import (
    FastSample,
    GeometricMechanism,
    GeoSample,
    ParameterError,
    ParameterTypeError,
    PartialHistogram,
    Privacy,
    SeededSource,
)
from finitedp.audit import (
    KNOWN_SIZES,
    AccuracyClaim,
    AuditTooLargeError,
    ComparisonReport,
    HistogramReport,
    audit_histogram,
    audit_histogram_mechanism,
    chi_square_survival,
    compare,
    load_callable,
)
from finitedp.checker import statistical_distance
from finitedp.cli import main
from finitedp.histograms.basic import basic_histogram
from finitedp.histograms.dataset import true_counts
from finitedp.histograms.stability import stability_histogram
from finitedp.oracle import RandomSource

F = Fraction


def _failing(report: HistogramReport) -> list[str]:
    return [claim.statement for claim in report.claims if not claim.holds]


# -- histogram audits: every claim holds on tiny instances ----------------------------------


@pytest.mark.parametrize("counter", ["geo", "fast"])
def test_bounded_geometric_every_claim_holds(counter: str) -> None:
    report = audit_histogram_mechanism("bounded-geometric", 2, 3, 1, beta="1/4", counter=counter)
    assert report.ok, _failing(report)
    assert len(report.datasets) == 6 and report.pairs == 9
    assert isinstance(report.worst_ratio, Fraction)
    if counter == "geo":  # two bins change by one count each: (b/a)^2 with b/a = 3/2
        assert report.worst_ratio == F(9, 4)
    # Every dataset makes |X| calls of domain d on every path.
    assert len(report.traces) == 1 and len(next(iter(report.traces))) == 3
    statements = " ".join(claim.statement for claim in report.claims)
    assert "per-query accuracy" in statements and "simultaneous accuracy" in statements
    assert "depends on the counts only" in statements
    text = report.render(distributions=True)
    assert "Exact law of the counts" in text and "D = (1, 2):" in text
    assert "[holds] (1, 0)-DP [BV Thm 5.3 i]" in text


def test_ordered_enumeration_agrees_with_multisets() -> None:
    ordered = audit_histogram_mechanism("bounded-geometric", 2, 2, 1, counter="geo", ordered=True)
    multisets = audit_histogram_mechanism("bounded-geometric", 2, 2, 1, counter="geo")
    assert ordered.ok and multisets.ok
    assert len(ordered.datasets) == 4 and len(multisets.datasets) == 3
    assert ordered.worst_ratio == multisets.worst_ratio
    assert ordered.distributions[(2, 1)] == multisets.distributions[(1, 2)]


def test_stability_user_level_delta_is_bracketed_exactly() -> None:
    # b = 8 for geo at eps = 1, delta = 1/2; n = 10 > b so that releases are not all empty.
    report = audit_histogram_mechanism(
        "stability", 10, 2, 1, delta="1/2", beta="1/2", counter="geo"
    )
    assert report.ok, _failing(report)
    assert report.delta_bounds is not None
    low, high = report.delta_bounds
    assert 0 < low <= high <= F(1, 2)
    assert "DEGENERATE" not in report.render()


def test_stability_user_level_at_n_equal_b_is_flagged_degenerate() -> None:
    report = audit_histogram_mechanism("stability", 8, 2, 1, delta="1/2", beta="1/2", counter="geo")
    assert report.ok
    assert report.delta_bounds == (F(0), F(0))
    assert any(note.startswith("DEGENERATE") for note in report.notes)


def test_stability_paper_layer() -> None:
    report = audit_histogram_mechanism("stability", 3, 3, 1, threshold=1, counter="geo")
    assert report.ok, _failing(report)
    sampler = GeoSample(3, 1)
    tail = sum((p for z, p in sampler.pmf(1).items() if z > 1), F(0))
    assert report.privacy == Privacy(F(1), 2 * tail)  # Thm 5.5 i's delta
    assert report.delta_bounds is not None and report.delta_bounds[1] <= 2 * tail
    fast = audit_histogram_mechanism(
        "stability", 2, 2, 1, threshold=1, counter="fast", gamma="1/20"
    )
    assert fast.ok, _failing(fast)


def test_pure_sparse_end_to_end_and_split_mixture_agree() -> None:
    whole = audit_histogram_mechanism("pure-sparse", 1, 3, 1, beta="1/2", counter="geo")
    split = audit_histogram_mechanism(
        "pure-sparse", 1, 3, 1, beta="1/2", counter="geo", split_mixture=True
    )
    assert whole.ok, _failing(whole)
    assert split.ok, _failing(split)
    # The mixture's law is (1 - beta1) SparseHistogram + beta1 fallback, exactly.
    assert whole.distributions == split.distributions
    assert whole.traces == split.traces
    assert whole.worst_ratio == split.worst_ratio
    assert split.paths < whole.paths
    assert any("split-mixture" in note for note in split.notes)


def test_pure_sparse_n2_x5_with_the_mixture_composed_exactly() -> None:
    """BV Thm 6.11 i on all 15 datasets of n = 2 rows over |X| = 5 (eps = 1, beta = 1/4).

    The whole mixture has about 2.7 * 10^5 paths per dataset (the fallback's 225 leaves
    under every path of SparseHistogram); composing BV Alg 3.1's law from the two
    branches, whose equality with the whole exploration the test above checks at
    n = 1, takes about a second.
    """
    report = audit_histogram_mechanism(
        "pure-sparse", 2, 5, 1, beta="1/4", counter="geo", split_mixture=True
    )
    assert report.ok, _failing(report)
    assert len(report.datasets) == 15 and report.pairs == 50
    assert report.worst_ratio == F(54016, 24515)  # 2.203 < e


def test_compact_paper_layer() -> None:
    report = audit_histogram_mechanism("compact", 1, 2, 1, counter="geo", level=1)
    assert report.ok, _failing(report)
    assert isinstance(report.worst_ratio, Fraction)
    # Thm 8.3 i with Lemma 8.4: eps + 3 d / d0 with d = 5, d0 = 64.
    assert report.privacy.epsilon == 1 + F(15, 64)
    assert {len(trace) for trace in report.traces} == {3}  # 2n + 1


def test_progress_is_reported() -> None:
    class Recorder:
        def __init__(self) -> None:
            self.phases: list[str] = []
            self.done = 0

        def phase(self, description: str, total: int | None = None) -> None:
            self.phases.append(description)

        def advance(self, amount: int) -> None:
            self.done += amount

    recorder = Recorder()
    audit_histogram_mechanism("bounded-geometric", 1, 2, 1, counter="geo", progress=recorder)
    assert recorder.done == 2
    assert any(p.startswith("exploring") for p in recorder.phases)


# -- histogram audits: broken mechanisms are reported as failing ----------------------------


def _no_noise(data: tuple[int, ...], rng: RandomSource) -> PartialHistogram:
    """BasicHistogram with the noise removed: the true counts, released as they are."""
    return PartialHistogram.from_counts(3, true_counts(data))


def test_basic_histogram_without_noise_fails_privacy() -> None:
    report = audit_histogram(_no_noise, n=2, universe_size=3, privacy=Privacy(F(1)))
    assert not report.ok
    assert report.worst_ratio is not None and not isinstance(report.worst_ratio, Fraction)
    assert "[FAILS] (1, 0)-DP" in report.render()
    assert "worst privacy ratio = infinity" in report.render()


def _basic(sampler: GeoSample, data: tuple[int, ...], rng: RandomSource) -> PartialHistogram:
    return basic_histogram(sampler, data, 3, rng=rng)


def test_sampler_whose_ratio_exceeds_the_claim_fails() -> None:
    sampler = GeoSample(2, 1)  # eps~ with e^(eps~/2) = 3/2: the histogram's ratio is 9/4
    claims = [AccuracyClaim("per-query", 1, F(1, 10), None, "made up")]

    def mechanism(data: tuple[int, ...], rng: RandomSource) -> PartialHistogram:
        return _basic(sampler, data, rng)

    honest = audit_histogram(
        mechanism, n=2, universe_size=3, privacy=Privacy(F(1)), max_oracle_calls=3
    )
    assert honest.ok and honest.worst_ratio == F(9, 4)
    claimed = audit_histogram(
        mechanism,
        n=2,
        universe_size=3,
        privacy=Privacy(F(1, 2)),  # 9/4 > e^(1/2)
        accuracy=claims,  # Pr[|h_x - c_x| <= 1] is well below 9/10
        max_oracle_calls=2,  # it makes 3
    )
    assert len(_failing(claimed)) == 3
    finding = claimed.accuracy[0]
    assert finding.achieved is not None and finding.achieved < F(9, 10)
    assert finding.tightest == 2


def test_too_small_delta_fails_and_a_reordering_dependence_is_caught() -> None:
    sampler = GeoSample(2, 1)
    tail = sum((p for z, p in sampler.pmf(1).items() if z > 0), F(0))

    def stability(data: tuple[int, ...], rng: RandomSource) -> PartialHistogram:
        return stability_histogram(sampler, 0, data, 3, rng)

    fine = audit_histogram(stability, n=2, universe_size=3, privacy=Privacy(F(1), 2 * tail))
    assert fine.ok, _failing(fine)
    tight = audit_histogram(stability, n=2, universe_size=3, privacy=Privacy(F(1), tail / 4))
    assert not tight.ok and tight.delta_bounds is not None
    assert tight.delta_bounds[0] > tail / 4

    def first_row_counts_twice(data: tuple[int, ...], rng: RandomSource) -> PartialHistogram:
        return stability_histogram(sampler, 0, (data[0], data[0]), 3, rng)

    reordered = audit_histogram(
        first_row_counts_twice, n=2, universe_size=3, privacy=Privacy(F(1), F(1))
    )
    assert ["the release depends on the counts only" in s for s in _failing(reordered)] == [True]


def test_generic_audit_stops_at_the_path_limit() -> None:
    with pytest.raises(AuditTooLargeError, match="passed the limit of 100 paths"):
        audit_histogram(
            lambda data, rng: _basic(GeoSample(2, 1), data, rng),
            n=2,
            universe_size=3,
            privacy=Privacy(F(1)),
            max_paths=100,
        )


# -- histogram audits: refusals -------------------------------------------------------------


def test_too_large_instances_are_refused_with_the_estimate() -> None:
    with pytest.raises(AuditTooLargeError) as caught:
        audit_histogram_mechanism("bounded-geometric", 3, 7, 1)
    message = str(caught.value)
    assert "about 1,376,256 paths over 84 datasets" in message  # 84 multisets x 4^7
    assert "Sizes known to work" in message and KNOWN_SIZES["bounded-geometric"] in message
    with pytest.raises(AuditTooLargeError, match="--split-mixture"):
        audit_histogram_mechanism("pure-sparse", 2, 5, 1, beta="1/2")
    with pytest.raises(AuditTooLargeError, match="multisets of n = 3 rows over"):
        audit_histogram_mechanism("bounded-geometric", 3, 10**6, 1)


def test_user_level_compact_is_refused_with_the_paper_layer_suggested() -> None:
    with pytest.raises(AuditTooLargeError, match=r"d0 = 2\^18.*--level 1"):
        audit_histogram_mechanism("compact", 1, 2, 1, counter="geo")
    with pytest.raises(ParameterError, match="use --counter geo"):
        audit_histogram_mechanism("compact", 1, 2, 1, level=1)


def test_stability_below_its_threshold_suggests_the_paper_layer() -> None:
    with pytest.raises(ParameterError, match=r"needs n >= b = 8.*--threshold B"):
        audit_histogram_mechanism("stability", 3, 2, 1, delta="1/2", counter="geo")


@pytest.mark.parametrize(
    ("target", "options", "message"),
    [
        ("bounded-geometric", {"delta": "1/2"}, "delta: does not apply to bounded-geometric"),
        ("stability", {"threshold": 1, "delta": "1/2"}, "paper layer"),
        ("stability", {}, "needs delta"),
        ("stability", {"threshold": 5, "counter": "geo"}, r"threshold: got 5"),
        ("stability", {"threshold": 1}, "needs FastSample's gamma"),
        ("compact", {"threshold": 1}, r"threshold: does not apply to compact \(its audit takes"),
        ("pure-sparse", {"level": 1}, "level: does not apply to pure-sparse .*split_mixture"),
        ("bounded-geometric", {"split_mixture": True}, "split_mixture: does not apply"),
        ("bounded-geometric", {"gamma": "1/8"}, "gamma: does not apply to bounded-geometric"),
        ("histogram", {}, "choose one of"),
    ],
)
def test_options_that_do_not_apply_are_refused(
    target: str, options: dict[str, Any], message: str
) -> None:
    with pytest.raises(ParameterError, match=message):
        audit_histogram_mechanism(target, 2, 3, 1, **options)


def test_a_one_value_universe_is_refused() -> None:
    with pytest.raises(ParameterError, match="no neighbouring pair"):
        audit_histogram_mechanism("bounded-geometric", 2, 1, 1)


# -- compare: foreign samplers --------------------------------------------------------------


def _seeded(sampler: GeoSample | FastSample, c: int, seed: bytes) -> Callable[[], int]:
    rng = SeededSource(seed)
    return lambda: sampler.sample(c, rng)


def test_compare_a_correct_sampler() -> None:
    sampler = GeoSample(4, 1)
    report = compare(_seeded(sampler, 2, b"right"), sampler.pmf(2), 4000)
    assert report.consistent and not report.outside
    assert sum(report.counts.values()) == 4000
    assert report.tv_estimate < F(3, 100)
    assert report.tv_lower == 0 <= report.tv_upper  # the interval covers the truth, 0
    assert report.p_value is not None and report.p_value > 0.01
    text = report.render()
    assert "Draws outside the reference support: none" in text
    assert "Verdict (statistical): consistent" in text


def test_compare_a_shifted_sampler_is_flagged() -> None:
    sampler = GeoSample(4, 1)
    draw = _seeded(sampler, 2, b"shifted")
    report = compare(lambda: draw() + 1, sampler.pmf(2), 2000)
    assert not report.consistent
    assert set(report.outside) == {5}
    assert report.rejected
    assert "RED FLAG" in report.render() and "NOT the reference" in report.render()


def test_compare_interval_covers_a_known_distance() -> None:
    # A sampler of another geometric law, inside the support: its true TV is exact.
    reference = GeometricMechanism(4, F(3, 2)).pmf(2)
    other = GeoSample(4, "1/2")  # ratio 5/4
    truth = statistical_distance(other.pmf(2), reference)
    report = compare(_seeded(other, 2, b"other"), reference, 3000, confidence=F(999, 1000))
    assert report.tv_lower <= truth <= report.tv_upper
    assert report.rejected and not report.outside
    # The radius is a rational upper bound of sqrt((k ln 2 + ln(1/alpha)) / (2N)).
    radius = math.sqrt((report.cells * math.log(2) + math.log(1000)) / (2 * 3000))
    assert report.tv_upper - report.tv_estimate >= radius


def test_compare_input_errors() -> None:
    pmf = GeoSample(2, 1).pmf(1)
    with pytest.raises(ParameterTypeError, match=r"draw 0 returned 1\.0"):
        compare(lambda: 1.0, pmf, 5)  # type: ignore[arg-type, return-value]
    with pytest.raises(ParameterError, match="sum to 1/2"):
        compare(lambda: 1, {0: F(1, 2)}, 5)
    with pytest.raises(ParameterError, match="samples: got 0"):
        compare(lambda: 1, pmf, 0)
    with pytest.raises(ParameterError, match="confidence: got 1"):
        compare(lambda: 1, pmf, 5, confidence=F(1))
    # Too few draws for the chi-square test: reported, not an error.
    report = compare(lambda: 1, pmf, 3)
    assert report.p_value is None and report.degrees_of_freedom == 0
    assert "not run" in report.render()


def test_chi_square_survival_known_values() -> None:
    assert chi_square_survival(0, 3) == 1
    assert abs(chi_square_survival(3.841458820694124, 1) - 0.05) < 1e-12
    assert abs(chi_square_survival(6.634896601021214, 1) - 0.01) < 1e-12
    assert abs(chi_square_survival(2.0, 2) - math.exp(-1)) < 1e-14  # df 2: e^(-x/2)
    assert abs(chi_square_survival(124.34211340400407, 100) - 0.05) < 1e-10
    assert chi_square_survival(2000.0, 4) == 0.0
    with pytest.raises(ParameterError):
        chi_square_survival(1.0, 0)


def test_load_callable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "foreign_audit_one.py").write_text(
        "class K:\n    def m():\n        return 3\nX = 4\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert load_callable("foreign_audit_one:K.m")() == 3
    with pytest.raises(ParameterError, match=r"IMPORT\.PATH:CALLABLE"):
        load_callable("foreign_audit_one")
    with pytest.raises(ParameterError, match="not a callable"):
        load_callable("foreign_audit_one:X")
    with pytest.raises(ParameterError, match="importing 'no_such_module_here' failed: Module"):
        load_callable("no_such_module_here:f")


# -- the command line -----------------------------------------------------------------------


def test_cli_bounded_geometric(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["audit", "bounded-geometric", "--n", "2", "--universe-size", "3", "--epsilon", "1"]
    assert main([*argv, "--counter", "geo", "--distributions"]) == 0
    out = capsys.readouterr().out
    assert "BoundedGeometricHistogram(n=2, universe_size=3" in out
    assert "Exact law of the counts" in out and "FAILS" not in out


def test_cli_paper_layers(capsys: pytest.CaptureFixture[str]) -> None:
    stability = ["audit", "stability", "--n", "3", "--universe-size", "2", "--epsilon", "1"]
    assert main([*stability, "--threshold", "1", "--counter", "geo", "--quiet"]) == 0
    assert "StabilityHistogram_{M,b} (paper layer)" in capsys.readouterr().out
    compact = ["audit", "compact", "--n", "1", "--universe-size", "2", "--epsilon", "1"]
    assert main([*compact, "--level", "1", "--counter", "geo", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "CompactHistogram_{M,M0} (paper layer)" in out and "FAILS" not in out
    sparse = ["audit", "pure-sparse", "--n", "1", "--universe-size", "3", "--epsilon", "1"]
    assert main([*sparse, "--beta", "1/2", "--split-mixture", "--quiet"]) == 0
    assert "PureSparseHistogram(n=1" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["bounded-geometric", "--n", "3", "--universe-size", "7"], "Sizes known to work"),
        (["bounded-geometric", "--n", "2", "--universe-size", "3", "--max-paths", "10"], "10"),
        (["stability", "--n", "3", "--universe-size", "2", "--delta", "1/2"], "--threshold B"),
        (["compact", "--n", "1", "--universe-size", "2", "--counter", "geo"], "--level 1"),
        (["compact", "--n", "1", "--universe-size", "2", "--level", "1"], "--counter geo"),
        (["pure-sparse", "--n", "2", "--universe-size", "3"], "|X| >= 2n + 1"),
        (["bounded-geometric", "--n", "2", "--universe-size", "3", "--beta", "one"], "exact"),
    ],
)
def test_cli_histogram_errors_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["audit", *argv, "--epsilon", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("finitedp audit: ") and message in err


def test_cli_rejects_options_of_another_target() -> None:
    with pytest.raises(SystemExit) as caught:
        main(["audit", "bounded-geometric", "--n", "2", "--universe-size", "3"])
    assert caught.value.code == 2  # --epsilon missing
    with pytest.raises(SystemExit):
        main(["audit", "bounded-geometric", "--n", "2", "--universe-size", "3", "--threshold", "1"])


def test_cli_help_documents_the_forms(capsys: pytest.CaptureFixture[str]) -> None:
    for target in ("compare", "compact"):
        with pytest.raises(SystemExit):
            main(["audit", target, "--help"])
    out = capsys.readouterr().out
    assert "IMPORT.PATH:CALLABLE" in out and "Bretagnolle" in out
    assert "Known to work" in out and "--level L" in out


@pytest.fixture
def foreign(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """An importable module of foreign samplers; returns its name."""
    name = "foreign_audit_samplers"
    (tmp_path / f"{name}.py").write_text(
        "from finitedp import GeoSample, SeededSource\n"
        "_g, _rng = GeoSample(4, 1), SeededSource(b'cli')\n"
        "def right():\n    return _g.sample(2, _rng)\n"
        "def shifted():\n    return _g.sample(2, _rng) + 1\n"
        "def broken():\n    raise RuntimeError('no entropy')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    return name


def test_cli_compare(foreign: str, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["audit", "compare", "--reference", "geo", "--n", "4", "--epsilon", "1", "--count", "2"]
    assert main([*base[:2], f"{foreign}:right", *base[2:], "--samples", "2000"]) == 0
    assert "Verdict (statistical): consistent" in capsys.readouterr().out
    assert main([*base[:2], f"{foreign}:shifted", *base[2:], "--samples", "500"]) == 1
    assert "RED FLAG" in capsys.readouterr().out
    geometric = ["--reference", "geometric", "--n", "4", "--ratio", "3/2", "--count", "2"]
    assert main(["audit", "compare", f"{foreign}:right", *geometric, "--samples", "500"]) == 0
    assert "GeometricMechanism(n=4, ratio=3/2).pmf(2)" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["{m}:broken", "--n", "4", "--ratio", "2", "--count", "1"], "raised RuntimeError"),
        (["{m}:missing", "--n", "4", "--ratio", "2", "--count", "1"], "no attribute"),
        (["{m}:right", "--n", "4", "--count", "1"], "--ratio: --reference geometric needs it"),
        (["{m}:right", "--n", "4", "--ratio", "2", "--epsilon", "1", "--count", "1"], "--epsilon"),
        (
            ["{m}:right", "--reference", "fast", "--n", "4", "--epsilon", "1", "--count", "1"],
            "--gamma",
        ),
        (["{m}:right", "--n", "4", "--ratio", "1", "--count", "1"], "ratio: got 1"),
        (["{m}:right", "--n", "4", "--ratio", "2", "--count", "9"], "c: got 9"),
    ],
)
def test_cli_compare_errors_exit_2(
    foreign: str, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["audit", "compare", *(a.format(m=foreign) for a in argv)]) == 2
    assert message in capsys.readouterr().err


def test_comparison_report_is_exported() -> None:
    assert ComparisonReport.__name__ == "ComparisonReport"
