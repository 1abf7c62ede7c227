"""Work estimated before it starts (issue 27 item 2, issue 25 item 1), and numbers shown
for people (issue 25 items 6 and 9): laws of the time budget and of the display.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import mpmath
import pytest
from cli_run import run
from hypothesis import given
from hypothesis import strategies as st
from work import calls_made

from finitedp.alp.mechanism import ALP
from finitedp.counting.fastsample import FastSample, fastsample_plan
from finitedp.counting.geosample import GeoSample
from finitedp.counting.twosided import EXACT_TAIL_BITS, clamp_tail
from finitedp.errors import ParameterError, ParameterTypeError, ResourceLimitError
from finitedp.guarantees import Privacy
from finitedp.histograms.keepheavy import require_pure_sparse_time, round_up_cube_root
from finitedp.histograms.mechanisms import BoundedGeometricHistogram, StabilityHistogram
from finitedp.params import decimal_above, readable_fraction
from finitedp.registry import default_mechanisms
from finitedp.resources import (
    DEFAULT_MAX_SECONDS,
    describe_seconds,
    fraction_seconds,
    gmp_seconds,
    max_seconds,
    python_seconds,
    require_time,
)
from finitedp.sketches.merge import merge_all
from finitedp.sketches.private import PrivateMisraGries

# ---- the budget ---------------------------------------------------------------------


def test_the_budget_is_ten_minutes_unless_configured(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FINITEDP_MAX_SECONDS", raising=False)
    assert max_seconds() == DEFAULT_MAX_SECONDS == 600
    monkeypatch.setenv("FINITEDP_MAX_SECONDS", "3600")
    assert max_seconds() == 3600
    for bad in ("0", "-5", "1.5", "lots", "1e3"):
        monkeypatch.setenv("FINITEDP_MAX_SECONDS", bad)
        with pytest.raises(ParameterError, match="FINITEDP_MAX_SECONDS: got"):
            max_seconds()


def test_require_time_refuses_exactly_above_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FINITEDP_MAX_SECONDS", "60")
    require_time(Fraction(60), "the work", "x = 1")  # at the budget: allowed
    with pytest.raises(ResourceLimitError, match=r"^x = 1: the work would take about 61 s, "):
        require_time(Fraction(60) + Fraction(1, 10**9), "the work", "x = 1")


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        *[(0, "0 s"), (Fraction(1, 3), "1 s"), (119, "119 s"), (120, "2 min"), (121, "3 min")],
        *[(7199, "120 min"), (7200, "2 h"), (172_799, "48 h"), (172_800, "2 days")],
        (10**30, "more than 10^12 days"),
    ],
)
def test_durations_are_rounded_up(seconds: int | Fraction, text: str) -> None:
    assert describe_seconds(seconds) == text


def test_cost_models_follow_their_measured_rates() -> None:
    assert gmp_seconds(10**9, 1) == 6  # 6 ns per bit and pass
    assert gmp_seconds(10**9, 0) == 0
    assert fraction_seconds(64 * 1000) == Fraction(6 * 10**6, 10**9)  # 6 ns per word^2
    # Karatsuba: 2^floor(1.585 * bit_length(words)) * 16 ns; within [1/2, 3] of words^1.585.
    for bits in (10**5, 10**6, 1.4e7, 1.6e8):
        words = int(bits) // 64
        estimate = python_seconds(int(bits)) * 10**9 / 16
        assert words**1.585 / 2 <= estimate <= 3 * words**1.585


@given(st.integers(min_value=0, max_value=10**40))
def test_cube_roots_round_up(n: int) -> None:
    root = round_up_cube_root(n)
    assert root**3 >= n and (root == 0 or (root - 1) ** 3 < n)


# ---- the samplers and mechanisms estimate before they build --------------------------


def test_fastsample_refuses_before_its_integers_exist(monkeypatch: pytest.MonkeyPatch) -> None:
    bits = fastsample_plan(3, "1/1000000", "1/4")[-1]
    assert bits > 10**9  # d would have over 10^9 bits: an hour of work at 257 samples
    # The memory of its integers (14 copies of bits(d)) or the time: refused either way.
    refused = r"FastSample( \(t = \d+\) over \d+-bit|'s integers .* would need about)"
    with pytest.raises(ResourceLimitError, match=refused):
        FastSample(3, "1/1000000", "1/4", samples=3, empty=254)
    monkeypatch.setenv("FINITEDP_MAX_SECONDS", "1")
    FastSample(3, "1/100", "1/4", samples=3, empty=254)  # a few milliseconds: built
    with pytest.raises(ResourceLimitError, match="and 100000001 samples"):
        FastSample(3, "1/100", "1/4", samples=1, empty=10**8)


def test_geosample_counts_its_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    """n/8 searches compute F; after them the tables leave only the draws."""
    monkeypatch.setenv("FINITEDP_MAX_SECONDS", "2")
    GeoSample(1000, 1, samples=10**5)  # tables: about 1.2 s (7 s if every search computed F)
    with pytest.raises(ResourceLimitError, match=r"GeoSample over 2000001-bit integers"):
        GeoSample(10**6, 1, samples=10**6)  # no table fits: 10^6 computed searches


def test_histograms_estimate_every_sample(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FINITEDP_MAX_SECONDS", raising=False)
    with pytest.raises(ResourceLimitError, match="and 1000000 samples would take about"):
        StabilityHistogram(10**6, 10, 1, "1/1000", counter="geo")
    with pytest.raises(ResourceLimitError, match="and 257 samples"):
        BoundedGeometricHistogram(3, 257, "1/1000000", "1/10", noise="tight")
    BoundedGeometricHistogram(3, 257, "1/1000", "1/10", noise="tight")


def test_pure_sparse_estimate_grows_like_n_to_the_four_thirds_plus_its_randomness(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """15 us n^(4/3) for the interval pass, and n draws of n log2(3|X|) bits at half a
    nanosecond a byte: 25 + 69 minutes at n = 10^6 over 2^64 (the second term was
    missing: a raised budget would have run three times longer than said)."""
    monkeypatch.delenv("FINITEDP_MAX_SECONDS", raising=False)
    require_pure_sparse_time(10**5, 2**64)  # 70 s + 41 s
    with pytest.raises(ResourceLimitError, match="would take about 94 min"):
        require_pure_sparse_time(10**6, 2**64)
    monkeypatch.setenv("FINITEDP_MAX_SECONDS", "100")
    require_pure_sparse_time(10**5, 3)  # the first term alone: 70 s
    with pytest.raises(ResourceLimitError):
        require_pure_sparse_time(10**5, 2**64)


def test_geometric_tails_are_exact_when_small_and_certified_when_large() -> None:
    alpha = Fraction(999_999, 1_000_000)
    assert clamp_tail(alpha, 3) == alpha**3 / (1 + alpha)
    # 20-bit terms: exact up to EXACT_TAIL_BITS, a rounded-up bound one step beyond.
    last = EXACT_TAIL_BITS // 20
    assert clamp_tail(alpha, last) == alpha**last / (1 + alpha)
    exact = alpha ** (last + 1) / (1 + alpha)
    above = clamp_tail(alpha, last + 1)
    assert exact < above <= exact * (1 + Fraction(1, 2**100))
    assert above.denominator.bit_count() == 1  # a dyadic bound, not a huge fraction
    # j = 10^7 (20-million-bit exact terms): bounded work, and right by mpmath.
    raised, calls = calls_made(lambda: clamp_tail(alpha, 10**7))
    assert raised is None and calls < 2_000
    mpmath.mp.dps = 60
    ideal = mpmath.power(mpmath.mpf(999_999) / 10**6, 10**7) / (1 + mpmath.mpf(999_999) / 10**6)
    value = clamp_tail(alpha, 10**7)
    ratio = mpmath.mpf(value.numerator) / value.denominator / ideal
    assert 1 - mpmath.mpf(10) ** -40 < ratio < 1 + mpmath.mpf(2) ** -90


def test_default_candidates_in_order() -> None:
    every = ("bounded-geometric", "compact", "blanket", "pure-sparse")
    assert default_mechanisms(200, 10_000) == every
    assert default_mechanisms(20_000, 40_000) == every
    assert default_mechanisms(20_000, 40_001) == every[1:]


def test_the_default_moves_on_when_compact_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A refused candidate costs nothing; stderr says which ran and why."""
    data = tmp_path / "d.csv"
    data.write_text("c\n" + "".join(f"k{i % 7}\n" for i in range(50)), encoding="utf-8")
    argv = ["release", str(data), "--column", "c", "--universe", "utf8:4", "--epsilon", "1"]
    monkeypatch.setenv("FINITEDP_MAX_MEMORY", "64K")  # compact's field tables do not fit
    code, _, err = run([*argv, "--out", str(tmp_path / "r.json")], capsys)
    assert code == 0, err
    assert "default mechanism blanket (|X| > max(10,000, 2n): a sparse universe; " in err
    assert "compact: n = 50" in err and "above the limit of 64.0 KiB" in err
    assert '"mechanism": "blanket"' in (tmp_path / "r.json").read_text(encoding="utf-8")
    code, _, err = run([*argv, "--quiet", "--out", str(tmp_path / "q.json")], capsys)
    assert code == 0 and err == ""
    # 40 rows are below the blanket's threshold (49 here): valid, not applicable; next.
    data.write_text("c\n" + "".join(f"k{i % 7}\n" for i in range(40)), encoding="utf-8")
    monkeypatch.setenv("FINITEDP_MAX_MEMORY", "16K")
    code, _, err = run([*argv, "--out", str(tmp_path / "s.json")], capsys)
    assert code == 0, err
    assert "default mechanism pure-sparse (" in err
    assert "blanket: n: got 40; no threshold b < n" in err


# ---- numbers for people ----------------------------------------------------------------


@given(
    st.fractions(min_value=Fraction(1, 10**40), max_value=10**40),
    st.integers(min_value=1, max_value=6),
)
def test_decimals_shown_are_bounds_from_above(value: Fraction, digits: int) -> None:
    text = decimal_above(value, digits)
    mantissa, exponent = text.split("e")
    shown = Fraction(mantissa) * Fraction(10) ** int(exponent)
    step = Fraction(10) ** (int(exponent) - digits + 1)
    assert shown >= value > shown - step  # the least such decimal
    assert len(mantissa.replace(".", "")) == digits and mantissa[0] != "0"


def test_huge_guarantees_display_without_the_digit_limit() -> None:
    tiny = Fraction(1, 10**5000)
    privacy = Privacy(Fraction(1, 2), tiny)
    assert str(privacy) == "(1/2, < 2^-16608)-DP" and not privacy.exact_text
    assert repr(privacy) == "Privacy(epsilon=Fraction(1, 2), delta='1/<a 16610-bit integer>')"
    assert str(Privacy(Fraction(1, 2), Fraction(1, 1000))) == "(1/2, 1/1000)-DP"
    assert readable_fraction(Fraction(10**40 + 1, 10**47)) == "<= 1.01e-7"
    assert readable_fraction(-Fraction(10**40 + 1, 10**47)) == "-(<= 1.01e-7)"
    pmg = PrivateMisraGries(4, 10, 1, tiny)
    release = pmg.release([1, 2, 3, 3])
    # The exact tail would have 32378/48988-bit terms: stated by a 128-bit bound.
    assert "delta = <a 128-bit integer>/<a 16739-bit integer>" in repr(pmg)
    assert "delta='<a 128-bit integer>" in repr(release)
    assert pmg.stated_delta <= tiny


def test_the_summary_line_rounds_long_fractions_up(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "d.csv"
    data.write_text("c\nA\nB\nA\n", encoding="utf-8")
    argv = ["release", str(data), "--column", "c", "--universe", "utf8:1", "--epsilon", "1/2"]
    argv += ["--mechanism", "pmg", "--k", "2", "--delta", "1/1000000", "--out", "-"]
    code, out, err = run(argv, capsys)
    assert code == 0
    shown = err.split("pmg, (0.5, ")[1].split(")-DP")[0]  # decimals, rounded up
    document = __import__("json").loads(out)
    exact = Fraction(document["privacy"]["delta"])
    assert exact <= Fraction(shown) <= exact * (1 + Fraction(1, 10**5))
    assert document["privacy"]["delta_display"] == shown  # the JSON's display agrees


def test_wrong_types_are_named_at_once() -> None:
    alp = ALP(10, 1, 3, 3)
    for wrong in ([1, 2], None):
        with pytest.raises(ParameterTypeError, match=r"^x: got a (list|NoneType); ALP projects"):
            alp.project(wrong)  # type: ignore[arg-type]
    with pytest.raises(ParameterTypeError, match=r"^sketches\[0\]: got a int; merge_all"):
        merge_all([1, 2])  # type: ignore[list-item]


def test_the_stated_rates_and_limits_are_pinned() -> None:
    """Each constant a refusal quotes, at values where a neighbouring constant differs."""
    from finitedp.resources import DEFAULT_MAX_MEMORY, describe_bytes, parse_memory

    assert DEFAULT_MAX_MEMORY == 4 * 2**30 and parse_memory("1G") == 2**30
    assert parse_memory("3K") == 3 * 1024 and parse_memory("2T") == 2 * 2**40
    assert describe_bytes(2**60) == "2^60 bytes or more"
    assert describe_bytes(2**60 - 1) == "1,048,575 TiB"
    # 2^floor(1.585 * bit_length(words)) * 16 ns: 511 words (9 bits) -> 2^14, 1 word -> 2^1.
    assert python_seconds(64 * 511) == Fraction(2**14 * 16, 10**9)
    assert python_seconds(0) == python_seconds(64) == Fraction(2 * 16, 10**9)
    assert fraction_seconds(64 * 511, 2) == Fraction(511 * 511 * 6 * 2, 10**9)


def test_a_dense_document_is_estimated_before_the_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 27 item 2: bounded-geometric over |X| = 2 x 10^7 lists 2 x 10^7 bins (400
    bytes each at the peak); refused at once, not a MemoryError after minutes."""
    data = tmp_path / "i.csv"
    data.write_text("c\n1\n2\n3\n", encoding="utf-8")
    argv = ["release", str(data), "--column", "c", "--epsilon", "1", "--out", "-"]
    argv += ["--mechanism", "bounded-geometric", "--universe"]
    code, out, err = run([*argv, "int:20000000"], capsys)
    assert code == 2 and out == ""
    assert (
        "bounded-geometric over |X| = 20,000,000: the release of 20,000,000 bins "
        "would need about 7.4 GiB, above the limit of 4.0 GiB" in err
    )
    code, out, err = run([*argv, "int:100"], capsys)  # 40 KB: released
    assert code == 0 and __import__("json").loads(out)["universe_size"] == 100


def test_a_refusal_names_the_flag_the_user_typed() -> None:
    from finitedp.cli.building import name_the_flag

    message = str(name_the_flag(ParameterError("beta0: got 2; it must be 1/k")))
    assert message == "--beta: got 2; it must be 1/k (the mechanism's beta0)"
    assert str(name_the_flag(ParameterError("delta: got 2"))) == "--delta: got 2"
    assert str(name_the_flag(ParameterError("nothing: here"))) == "nothing: here"


@pytest.mark.parametrize("bad", [-1, "3", 2.0, None])
def test_sample_counts_are_checked(bad: object) -> None:
    with pytest.raises(ParameterError, match=r"^samples: got .*an int >= 0"):
        GeoSample(3, 1, samples=bad)  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match=r"^empty: got .*an int >= 0"):
        FastSample(3, 1, "1/4", empty=bad)  # type: ignore[arg-type]
    GeoSample(3, 1, samples=0, empty=0)
