"""Misra-Gries sketches (thesis chapter 3): laws of the sketch, stated as properties.

Alg 12 is compared with a literal transcription (every branch as printed), the
standard sketch with the textbook algorithm, and Fact 3.1, Lemma 3.1, Lemma 3.6
/ Corollary 3.2 and Section 3.6's sensitivity are checked on every small stream.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from finitedp.checker.histogram import all_streams, stream_pairs
from finitedp.entries import RankedKeys
from finitedp.errors import ParameterError, ParameterTypeError
from finitedp.oracle import RecordingSource, SeededSource
from finitedp.sketches import (
    MGSketch,
    MisraGries,
    PrivateMisraGries,
    SketchRelease,
    misra_gries,
    standard_misra_gries,
)
from finitedp.sketches.merge import PrivateMergedMG, merge, merge_all
from finitedp.sketches.private import clamp_tail, least_tail

F = Fraction


def literal_alg_12(k: int, d: int, stream: list[int]) -> tuple[dict[int, int], int]:
    """Alg 12 exactly as printed: O(k) per element."""
    c = {d + i: 0 for i in range(1, k + 1)}
    gamma = 0
    for x in stream:
        if x in c:
            c[x] += 1
        elif all(v >= 1 for v in c.values()):
            c = {i: v - 1 for i, v in c.items()}
            gamma += 1
        else:
            y = min(i for i, v in c.items() if v == 0)
            del c[y]
            c[x] = 1
    return c, gamma


streams = st.integers(1, 6).flatmap(
    lambda d: st.tuples(st.just(d), st.lists(st.integers(1, d), max_size=60))
)


@settings(max_examples=300, deadline=None)
@given(streams, st.integers(1, 5))
def test_streaming_alg_12_is_the_printed_algorithm(data: tuple[int, list[int]], k: int) -> None:
    d, stream = data
    sketch = misra_gries(k, d, stream)
    counters, gamma = literal_alg_12(k, d, stream)
    assert dict(sketch.counters) == counters and sketch.gamma == gamma
    assert sketch.n == len(stream) and len(sketch.counters) == k


@settings(max_examples=300, deadline=None)
@given(streams, st.integers(1, 5))
def test_standard_sketch_and_fact_3_1(data: tuple[int, list[int]], k: int) -> None:
    d, stream = data
    sketch = misra_gries(k, d, stream)
    assert sketch.to_standard() == standard_misra_gries(k, d, stream)  # Section 3.5.1
    n = len(stream)
    for x in range(1, d + 1):
        f = stream.count(x)
        assert f - F(n, k + 1) <= sketch.estimate(x) <= f  # Fact 3.1
    assert sketch.gamma <= n // (k + 1)  # each decrement removes k + 1 stream elements


def _ranked(keys: list[int], stream: list[int], cuts: list[int]) -> RankedKeys:
    """``stream`` (of keys) as ranks into ``keys``, cut into chunks at ``cuts``."""
    rank = {key: r for r, key in enumerate(keys, 1)}
    ranks = [rank[x] for x in stream]
    bounds = [0, *sorted(c % (len(ranks) + 1) for c in cuts), len(ranks)]
    return RankedKeys(
        tuple(keys), len(ranks), lambda: iter([ranks[a:b] for a, b in itertools.pairwise(bounds)])
    )


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 10**20).flatmap(
        lambda d: st.tuples(
            st.just(d),
            st.lists(st.integers(1, d), min_size=1, max_size=6, unique=True).flatmap(
                lambda keys: st.tuples(
                    st.just(sorted(keys)), st.lists(st.sampled_from(keys), max_size=80)
                )
            ),
        )
    ),
    st.integers(1, 5),
    st.lists(st.integers(0, 100), max_size=4),
)
def test_sketching_the_ranks_is_sketching_the_keys(
    data: tuple[int, tuple[list[int], list[int]]], k: int, cuts: list[int]
) -> None:
    """Law: Alg 12 on a RankedKeys stream (the command line's DuckDB path) is Alg 12 on
    the keys it stands for, however it is chunked: the same counters, gamma and n."""
    d, (keys, stream) = data
    ranked = _ranked(keys, stream, cuts)
    assert misra_gries(k, d, ranked) == misra_gries(k, d, stream)
    assert list(ranked) == stream


def test_ranked_sketch_refuses_bad_ranks_and_keys() -> None:
    with pytest.raises(ParameterError, match=r"ranks: got one outside \[1, 2\]"):
        misra_gries(2, 10, RankedKeys((3, 5), 2, lambda: iter([[1, 3]])))
    with pytest.raises(ParameterError, match=r"ranks: got one outside"):
        misra_gries(2, 10, RankedKeys((3, 5), 1, lambda: iter([[0]])))
    with pytest.raises(ParameterError, match="keys: the stream's keys must be distinct"):
        misra_gries(2, 10, RankedKeys((5, 3), 0, lambda: iter([])))
    with pytest.raises(ParameterError, match=r"keys: stream elements are ints in \[1, 10\]"):
        misra_gries(2, 10, RankedKeys((3, 11), 0, lambda: iter([])))
    with pytest.raises(ParameterError, match="n: the stream said 3 elements and gave 2"):
        misra_gries(2, 10, RankedKeys((3,), 3, lambda: iter([[1, 1]])))
    assert misra_gries(2, 10, RankedKeys((10,), 1, lambda: iter([[1]]))).counters == (
        (10, 1),
        (12, 0),
    )


def test_branch_3_skips_a_counter_that_left_zero() -> None:
    # 5 decrements all four counters to 0; 6 replaces 1 (the smallest zero); 2 leaves
    # zero (Branch 1) while it still sits in the heap; 7 must replace 3, the smallest
    # key that is still zero, not 2 and not the largest, 4.
    stream = [1, 2, 3, 4, 5, 6, 2, 7]
    sketch = misra_gries(4, 10, stream)
    assert sketch.counters == ((2, 1), (4, 0), (6, 1), (7, 1))
    assert dict(sketch.counters) == literal_alg_12(4, 10, stream)[0]


def test_update_refuses_bad_elements_and_keeps_the_sketch() -> None:
    mg = MisraGries(2, 5)
    mg.extend([1, 2])
    before = mg.sketch()
    for bad in (0, 6, 1.0, True, "3"):
        with pytest.raises(ParameterError, match=r"\[1, 5\]"):
            mg.update(bad)  # type: ignore[arg-type]
    assert mg.sketch() == before and mg.n == 2
    with pytest.raises(ParameterError, match="k"):
        MisraGries(0, 5)


def _neighbours(d: int, length: int) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every stream up to ``length`` with every stream obtained by removing one element."""
    return stream_pairs(all_streams(length, d))


@pytest.mark.parametrize(("k", "d", "length"), [(1, 3, 6), (2, 4, 6), (3, 5, 5)])
def test_lemma_3_1_on_every_small_stream(k: int, d: int, length: int) -> None:
    for s, s2 in _neighbours(d, length):
        a, b = dict(misra_gries(k, d, s).counters), dict(misra_gries(k, d, s2).counters)
        common = a.keys() & b.keys()
        assert len(common) >= k - 2
        assert all(a[x] <= 1 for x in a.keys() - common)
        assert all(b[x] <= 1 for x in b.keys() - common)
        keys = a.keys() | b.keys()
        case1 = all(a.get(i, 0) == b[i] - 1 for i in b) and all(
            a[j] == 0 for j in a.keys() - b.keys()
        )
        up = [i for i in keys if a.get(i, 0) == b.get(i, 0) + 1]
        case2 = len(up) == 1 and all(a.get(j, 0) == b.get(j, 0) for j in keys - set(up))
        assert case1 or case2, (s, s2)


def _shifted(sketch: MGSketch, exact: bool) -> dict[int, Fraction]:
    """Section 3.6: ``c_x + gamma - n/(k+1)`` (or with the floor), negatives dropped."""
    share = F(sketch.n, sketch.k + 1) if exact else F(sketch.n // (sketch.k + 1))
    out = {}
    for x, c in sketch.counters:
        v = c + sketch.gamma - share
        if x <= sketch.universe_size and v > 0:
            out[x] = v
    return out


@pytest.mark.parametrize(("k", "d", "length"), [(1, 3, 6), (2, 4, 6), (3, 5, 5)])
def test_section_3_6_sensitivity_below_two(k: int, d: int, length: int) -> None:
    worst = F(0)
    for s, s2 in _neighbours(d, length):
        a = _shifted(misra_gries(k, d, s), exact=True)
        b = _shifted(misra_gries(k, d, s2), exact=True)
        worst = max(worst, sum((abs(a.get(x, 0) - b.get(x, 0)) for x in a.keys() | b.keys()), F(0)))
    assert worst <= 1 + F(k, k + 1) < 2


def test_section_3_6_floor_breaks_the_sensitivity() -> None:
    """The issue's counterexample: with floor(n/(k+1)) the l1 distance grows to k."""
    k, d = 3, 4
    a = _shifted(misra_gries(k, d, (1, 2, 3, 4)), exact=False)
    b = _shifted(misra_gries(k, d, (2, 3, 4)), exact=False)
    assert sum(abs(a.get(x, 0) - b.get(x, 0)) for x in range(1, d + 1)) == 3
    a = _shifted(misra_gries(k, d, (1, 2, 3, 4)), exact=True)
    b = _shifted(misra_gries(k, d, (2, 3, 4)), exact=True)
    assert sum(abs(a.get(x, 0) - b.get(x, 0)) for x in range(1, d + 1)) < 2


@pytest.mark.parametrize("k", [1, 2])
def test_corollary_3_2_merged_neighbours_differ_by_one_in_k_counters(k: int) -> None:
    d = 3
    others = [(), (1, 1), (2, 3, 3), (3, 3, 3, 1)]
    for s, s2 in _neighbours(d, 4):
        for other in others:
            for order in ((s, other), (other, s), (other, s, other)):
                changed = tuple(s2 if part is s else part for part in order)
                a = merge_all([misra_gries(k, d, part) for part in order])
                b = merge_all([misra_gries(k, d, part) for part in changed])
                diff = {
                    x: a.estimate(x) - b.estimate(x)
                    for x in range(1, d + 1)
                    if a.estimate(x) != b.estimate(x)
                }
                assert len(diff) <= k and all(abs(v) == 1 for v in diff.values())
                assert len(set(diff.values())) <= 1  # Lemma 3.6: all one way


def test_merge_keeps_the_misra_gries_error() -> None:
    parts = [[1, 1, 2, 3, 1], [2, 2, 4, 4, 4, 1], [5, 1, 1]]
    merged = merge_all([misra_gries(2, 5, p) for p in parts])
    whole = [x for p in parts for x in p]
    for x in range(1, 6):
        assert whole.count(x) - F(len(whole), 3) <= merged.estimate(x) <= whole.count(x)
    with pytest.raises(ParameterError, match="same k"):
        merge(misra_gries(2, 5, []), misra_gries(3, 5, []))
    with pytest.raises(ParameterError, match="at least one"):
        merge_all([])


# --- PMG (Alg 13) ---------------------------------------------------------------------------


def test_pmg_thresholds_are_the_least_exact_integers() -> None:
    paper = PrivateMisraGries(4, 100, 1, "1/1000")
    alpha = paper.alpha
    t = paper.noise.r
    assert paper.tau == 1 + 2 * t and paper.stated_delta == 7 * clamp_tail(alpha, t)
    assert paper.stated_delta <= F(1, 1000) < 7 * clamp_tail(alpha, t - 1)
    std = PrivateMisraGries(4, 100, 1, "1/1000", standard=True)
    assert std.stated_delta == (4 + 2) * clamp_tail(alpha, std.noise.r)
    clamp = PrivateMisraGries(4, 100, 1, "1/1000", threshold="clamp")
    r = clamp.noise.r
    assert clamp.tau == 2 * r + 2 and clamp.stated_delta == clamp_tail(alpha, r)
    assert clamp_tail(alpha, r - 1) > F(1, 1000) and clamp.tau < paper.tau
    assert least_tail(alpha, F(1, 1000), 7) == t


def test_pmg_makes_k_plus_one_calls_and_releases_sorted_stored_keys() -> None:
    for standard in (False, True):
        mech = PrivateMisraGries(3, 50, "1/2", "1/10000", standard=standard)
        traces = set()
        for stream in ([], [5], [9] * 300 + [4] * 120 + list(range(1, 50)), [50] * 80):
            recorder = RecordingSource(SeededSource(b"pmg"))
            release = mech.release(stream, recorder)
            traces.add(tuple(d for d, _ in recorder.tape))
            keys = [x for x, _ in release.heavy]
            assert keys == sorted(keys) and set(keys) <= set(mech.sketch(stream).positive())
            assert all(v >= mech.tau for _, v in release.heavy)
        assert traces == {tuple([mech.noise.sampler.d] * 4)}  # k + 1 calls, same domains


def test_pmg_release_round_trips_and_states_its_relation() -> None:
    mech = PrivateMisraGries(2, 2**64, 1, "1/1000000", threshold="clamp")
    release = mech.release([2**64] * 100 + [7] * 3, SeededSource(b"rt"))
    assert release[2**64] > 50 and release[7] == 0
    back = SketchRelease.from_json(release.to_json())
    assert back == release and hash(back) == hash(release)
    assert "adding or removing one element" in release.neighbours
    assert release.to_json_dict()["universe_size"] == str(2**64)  # above 2^53: a string


def test_pmg_accuracy_follows_lemma_3_5_and_theorem_3_1() -> None:
    mech = PrivateMisraGries(4, 100, 1, "1/1000")
    lemma = mech.accuracy("1/10")
    theorem = mech.accuracy("1/10", n=1000)
    assert theorem.simultaneous == lemma.simultaneous + 1000 // 5  # plus Fact 3.1
    assert lemma.simultaneous is not None and lemma.simultaneous <= 2 * mech.noise.r + mech.tau - 1


def test_pmg_refuses_bad_parameters() -> None:
    with pytest.raises(ParameterTypeError, match="epsilon"):
        PrivateMisraGries(2, 10, 0.5, "1/100")
    with pytest.raises(ParameterError, match="delta"):
        PrivateMisraGries(2, 10, 1, 0)
    with pytest.raises(ParameterError, match="threshold"):
        PrivateMisraGries(2, 10, 1, "1/100", threshold="laplace")
    with pytest.raises(ParameterError, match=r"\[1, 10\]"):
        PrivateMisraGries(2, 10, 1, "1/100").release([3, 11])
    with pytest.raises(ParameterError, match="standard"):
        PrivateMisraGries(2, 10, 1, "1/100").release_sketch(misra_gries(2, 10, [1]).to_standard())


def test_merged_release_is_strict_and_thresholded() -> None:
    mech = PrivateMergedMG(3, 20, 1, "1/1000")
    assert mech.privacy.delta <= F(1, 1000) and mech.tau == mech.noise.r + 2
    traces = set()
    for parts in ([[1] * 40, [2] * 3], [[], []], [[5, 6, 7, 8] * 10, [5] * 30]):
        sketch = merge_all([misra_gries(3, 20, p) for p in parts])
        recorder = RecordingSource(SeededSource(b"merged"))
        mech.release_sketch(sketch, recorder)
        traces.add(tuple(d for d, _ in recorder.tape))
    assert len(traces) == 1 and len(next(iter(traces))) == 3


# --- the tools ---------------------------------------------------------------------------


def test_cli_pmg_release_does_not_publish_the_stream_length(tmp_path: Path) -> None:
    data = tmp_path / "s.txt"
    data.write_text("a\n" * 60 + "b\n" * 3 + "c\n", encoding="utf-8")
    out = tmp_path / "r.json"
    base = [sys.executable, "-m", "finitedp", "release", str(data), "--universe", "utf8:2"]
    base += ["--mechanism", "pmg", "--epsilon", "1", "--quiet"]
    done = subprocess.run(
        [*base, "--delta", "1/1000000", "--k", "2", "--clamp-threshold", "--out", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    document = json.loads(out.read_text())
    assert "n" not in document["parameters"] and "64" not in json.dumps(document["parameters"])
    assert document["release"]["type"] == "pmg" and document["parameters"]["clamp_threshold"]
    assert "adding or removing one element" in document["neighbours"]
    query = subprocess.run(
        [sys.executable, "-m", "finitedp", "query", str(out), "a", "b"],
        capture_output=True,
        text=True,
        check=False,
    )
    unlisted = query.stdout.splitlines()[1]
    assert query.returncode == 0 and unlisted.startswith("b\tnot listed: "), query.stdout
    assert "at most" in unlisted and "n/" in unlisted
    for flags, message in [
        (["--k", "2"], "--delta: pmg needs it"),
        (["--delta", "1/100"], "--k: pmg needs it"),
        (["--delta", "1/100", "--k", "2", "--psi", "3"], "--psi: got 3; only alp takes it"),
        (["--delta", "1/100", "--k", "1/2"], "k"),
    ]:
        bad = subprocess.run([*base, *flags], capture_output=True, text=True, check=False)
        assert bad.returncode == 2 and message in bad.stderr, bad.stderr


def test_audit_pmg_decides_every_claim_over_streams() -> None:
    from finitedp.audit.histograms import audit_histogram_mechanism

    report = audit_histogram_mechanism("pmg", 4, 2, 1, k="1", delta="1/2")
    assert report.ok and len(report.datasets) == 31  # 1 + 2 + 4 + 8 + 16 streams
    # a removal from a run of equal elements gives one pair: sum over streams of their runs
    assert report.pairs == 64 and "0 to 4 elements" in report.render()
    clamp = audit_histogram_mechanism("pmg", 4, 2, 1, k="1", delta="1/2", clamp_threshold=True)
    assert clamp.ok


def test_pmg_noise_variance_is_the_geometric_one_and_bounds_the_clamped() -> None:
    mech = PrivateMisraGries(3, 50, 1, "1/1000000")
    law = mech.noise.pmf()
    assert sum((z * p for z, p in law.items()), F(0)) == 0
    second = sum((z * z * p for z, p in law.items()), F(0))
    alpha = mech.alpha
    assert mech.noise_variance() == 2 * alpha / (1 - alpha) ** 2
    assert F(99, 100) * mech.noise_variance() < second <= mech.noise_variance()
    bound = mech.mean_squared_error_bound(400)
    assert bound == 3 * (2 * mech.noise_variance() + (mech.tau - 1) ** 2 + F(400, 4) ** 2)


def test_plot_series_of_a_pmg_release_draws_its_keys(tmp_path: Path) -> None:
    from finitedp.plot.series import release_series

    data = tmp_path / "s.txt"
    data.write_text("7\n" * 80 + "3\n" * 40 + "9\n", encoding="utf-8")
    out = tmp_path / "r.json"
    done = subprocess.run(
        [
            *(sys.executable, "-m", "finitedp", "release", str(data), "--universe", "int:10"),
            *("--mechanism", "pmg", "--epsilon", "1", "--delta", "1/1000", "--k", "3"),
            *("--quiet", "--seed", "ab", "--out", str(out)),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    series = release_series(out)
    # largest count first (issue 52: a chart read from its left end)
    assert series.bins == (7, 3) and series.labels == ("7", "3") and series.n is None
    assert series.counts[0] > series.counts[1] > 0


def test_sketch_release_reading_is_strict_and_stable() -> None:
    # Version 1 is the layout written; parameters are strings (a number refused); the text
    # is the sorted JSON; a corrected count adds half of a positive number of decrements
    # only (noise may take it below 0, where nothing is added).
    from fractions import Fraction

    from finitedp.guarantees import Privacy
    from finitedp.sketches.release import SKETCH_RELEASE_VERSION, SketchRelease

    assert SKETCH_RELEASE_VERSION == 1
    base = {
        "type": "pmg",
        "version": 1,
        "universe_size": 10,
        "heavy": [[3, 40]],
        "privacy": {"epsilon": "1", "delta": "0"},
        "neighbours": "n",
        "parameters": {"k": "2"},
        "denominator": 1,
    }
    assert SketchRelease.from_json(base)[3] == 40
    with pytest.raises(ParameterError, match="object of strings"):
        SketchRelease.from_json({**base, "parameters": {"k": 2}})
    with pytest.raises(ParameterError, match="version"):
        SketchRelease.from_json({**base, "version": 0})
    release = SketchRelease(((3, 40),), 10, Privacy(Fraction(1), Fraction(0)), "n", (("k", "2"),))
    assert release.to_json() == json.dumps(release.to_json_dict(), sort_keys=True)
    for decrements, corrected in ((-3, 40), (0, 40), (5, Fraction(85, 2))):
        noisy = SketchRelease(
            ((3, 40),), 10, Privacy(Fraction(1), Fraction(0)), "n", (), decrements=decrements
        )
        assert noisy.corrected(3) == corrected and noisy.corrected(4) is None
