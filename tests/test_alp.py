"""ALP's API as laws: validated inputs, strict work, exact estimates, releases that round-trip.

Paper: Lebeda thesis Algs 2-5 and 10 (the mechanism), Section 2.2 (primitives).
The exact privacy and accuracy checks are in ``tests/test_alp_checker.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from finitedp.alp.embedding import BitMatrix, peak_average
from finitedp.alp.hashing import HashSequence
from finitedp.alp.mechanism import ALP
from finitedp.alp.randomized import digits_per_draw, flip_draws
from finitedp.alp.release import ALPRelease
from finitedp.errors import ParameterError, ParameterTypeError
from finitedp.oracle import RecordingSource, SeededSource

F = Fraction


def test_float_parameters_are_refused_with_the_exact_spelling() -> None:
    with pytest.raises(ParameterTypeError, match=r'epsilon: got 0.5.*"1/2"'):
        ALP(100, 0.5, k=2, psi=10)
    with pytest.raises(ParameterTypeError, match="alpha"):
        ALP(100, "1", k=2, psi=10, alpha=3.0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"s": 6}, "power of two"),
        ({"s": 4}, "exceed 2k = 4"),
        ({"k": 0}, "k: got 0"),
        ({"psi": 0}, "psi"),
        ({"variant": "x"}, "variant"),
        ({"variant": "histogram", "psi": "5/2"}, "integer vectors"),
    ],
)
def test_bad_parameters_name_themselves(kwargs: dict[str, object], message: str) -> None:
    params: dict[str, object] = {"k": 2, "psi": 10, **kwargs}
    with pytest.raises(ParameterError, match=message):
        ALP(100, "1", **params)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("x", "message"),
    [
        ({0: 1}, "keys are ints in \\[1, 100\\]"),
        ({101: 1}, "keys are ints"),
        ({1: -1}, "must be >= 0"),
        ({1: F(1, 3)}, "multiples of step"),
        ({1: 1, 2: 1, 3: 1}, "3 non-zero entries; the declared sparsity is k = 2"),
    ],
)
def test_bad_vectors_are_refused_before_any_draw(x: dict[int, object], message: str) -> None:
    recorder = RecordingSource(SeededSource(b"bad"))
    with pytest.raises(ParameterError, match=message):
        ALP(100, "1", k=2, psi=10).project(x, recorder)
    # SPEC.md section 4: a refused input makes no oracle call, not even the hashes
    assert len(recorder.tape) == 0
    for variant in ("alp", "histogram"):  # a valid input draws the hashes first
        valid = RecordingSource(SeededSource(b"bad"))
        ALP(100, "1", k=2, psi=10, variant=variant).project({1: 1}, valid)
        assert valid.tape[0][0] == 2**64


def test_memory_is_estimated_before_any_work(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FINITEDP_MAX_MEMORY", "1M")
    with pytest.raises(ParameterError, match="ALP embedding would need"):
        ALP(10**9, "1", k=10**5, psi=100)


@pytest.mark.parametrize("variant", ["alp", "histogram"])
def test_the_domains_of_the_calls_depend_on_public_parameters_only(variant: str) -> None:
    mech = ALP(2**64, "1", k=3, psi=12, variant=variant)
    traces = set()
    for x in ({}, {7: 12}, {1: 3, 2**64: 1, 99: 200}, {5: 1}):
        recorder = RecordingSource(SeededSource(b"strict"))
        mech.project(x, recorder)
        traces.add(tuple(d for d, _ in recorder.tape))
    assert len(traces) == 1
    (trace,) = traces
    rounding = 3 if variant == "alp" else 0
    assert len(trace) == 2 * mech.m + rounding + flip_draws(mech.s * mech.m, mech.flip[1])


def test_digits_per_draw_is_the_largest_power_within_64_bits() -> None:
    for base in (2, 3, 5, 26, 37, 1000, 2**32, 2**64, 2**64 + 1):
        r = digits_per_draw(base)
        assert base**r <= 2**64 or r == 1
        assert base ** (r + 1) > 2**64


@settings(max_examples=40, deadline=None)
@given(st.lists(st.booleans(), max_size=40))
def test_peak_average_is_the_mean_of_the_argmax_of_the_prefix_sum(bits: list[bool]) -> None:
    f = [0]
    for b in bits:
        f.append(f[-1] + (1 if b else -1))
    top = max(f)
    peaks = [n for n, v in enumerate(f) if v == top]
    assert peak_average(int(b) for b in bits) == F(sum(peaks), len(peaks))


@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from([10, 1000, 2**64, 2**64 + 5, 2**130]),
    st.binary(min_size=1, max_size=8),
    st.sampled_from(["alp", "histogram"]),
)
def test_batch_estimates_equal_single_ones(universe: int, seed: bytes, variant: str) -> None:
    mech = ALP(universe, "1/2", k=3, psi=12, variant=variant)
    rng = SeededSource(b"batch" + seed)
    keys = sorted({1 + rng.uniform(universe) - 1 for _ in range(3)})
    release = mech.project({x: 5 for x in keys}, rng)
    probes = [*keys, 1, universe]
    assert release.estimates(probes) == [release.estimate(x) for x in probes]
    for v in release.estimates(probes):
        assert 0 <= v <= release.m * release.scale


def test_numpy_and_python_hashing_agree() -> None:
    rng = SeededSource(b"hash")
    h = HashSequence.draw(1000, 16, 5, rng)
    wide = HashSequence(1000, 16, h.a, h.b, word=128)  # the Python-int path
    keys = list(range(1, 1001))
    assert (h.rows_of(keys) == wide.rows_of(keys)).all() is not None
    assert [h.rows(x) for x in (1, 500, 1000)] == [
        tuple(((a * x + b) % 2**64) >> 60 for a, b in zip(h.a, h.b, strict=True))
        for x in (1, 500, 1000)
    ]
    assert wide.rows_of(keys).tolist() == [
        [((a * x + b) % 2**128) >> 124 for x in keys] for a, b in zip(h.a, h.b, strict=True)
    ]


def test_releases_round_trip_through_json_and_refuse_tampering() -> None:
    mech = ALP(2**64, "1", k=2, psi=20)
    release = mech.project({3: 7, 2**64: 20}, SeededSource(b"json"))
    text = release.to_json()
    back = ALPRelease.from_json(text)
    assert back == release and hash(back) == hash(release)
    assert back.estimates([3, 2**64, 77]) == release.estimates([3, 2**64, 77])
    data = json.loads(text)
    assert isinstance(data["hashes"]["a"][0], str)  # above 2^53: a decimal string
    for field, value, message in [
        ("bits", data["bits"][:-4], "packs into"),
        ("version", 99, "version"),
        ("scale", 3.5, "rational"),
    ]:
        tampered = dict(data, **{field: value})
        with pytest.raises(ParameterError, match=message):
            ALPRelease.from_json(json.dumps(tampered))


def test_bit_matrix_refuses_dirty_padding() -> None:
    with pytest.raises(ParameterError, match="padding"):
        BitMatrix(3, 1, bytes([0b1000]))


def test_an_exact_embedding_estimates_exactly_without_noise() -> None:
    # At eps = 32 the flip probability of Alg 10 is below e^-31, and with 2^12 buckets
    # the four paths do not collide: this seeded run encodes the counts exactly.
    mech = ALP(50, 32, k=3, psi=9, variant="histogram", s=2**12)
    release = mech.project({4: 9, 17: 3, 30: 1}, SeededSource(b"clean"))
    assert release.estimates([4, 17, 30, 2]) == [9, 3, 1, 0]


def test_cli_release_and_query(tmp_path: Path) -> None:
    data = tmp_path / "v.csv"
    data.write_text("city\nParis\nOslo\nParis\n", encoding="utf-8")
    out = tmp_path / "r.json"
    run = [sys.executable, "-m", "finitedp", "release", str(data), "--column", "city"]
    done = subprocess.run(
        [
            *run,
            "--universe",
            "utf8:8",
            "--epsilon",
            "1",
            "--mechanism",
            "alp",
            "--out",
            str(out),
            "--psi",
            "6",
            "--seed",
            "0a0b",
            "--quiet",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    document = json.loads(out.read_text())
    assert document["release"]["type"] == "alp"
    assert "l1 distance at most 2" in document["neighbours"]
    query = subprocess.run(
        [sys.executable, "-m", "finitedp", "query", str(out), "Paris", "Rome"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert query.returncode == 0
    values = [line.split("\t")[1] for line in query.stdout.splitlines()]
    assert all(F(v) >= 0 for v in values)
    bad = subprocess.run(
        [*run, "--universe", "utf8:8", "--epsilon", "1", "--mechanism", "alp", "--buckets", "6"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2 and "--buckets: got 6" in bad.stderr


def test_threshold_alp_estimates_and_round_trips() -> None:
    from finitedp.alp.combined import ThresholdALP, ThresholdALPRelease

    mech = ThresholdALP(2**64, 1, "1/1000000", k=4)
    assert mech.privacy.epsilon == 1 and 0 < mech.privacy.delta <= F(1, 10**6)
    assert mech.alp.psi == mech.t and mech.epsilon1 + mech.epsilon2 == 1
    release = mech.project({7: 5000, 9: 3, 2**64: 40}, SeededSource(b"tALP"))
    assert 7 in release.heavy_keys and 9 not in release.heavy_keys
    assert release.estimates([7, 9, 2**64, 5]) == [release.estimate(x) for x in (7, 9, 2**64, 5)]
    back = ThresholdALPRelease.from_json(release.to_json())
    assert back == release and hash(back) == hash(release)


def test_threshold_alp_makes_the_same_calls_for_every_input() -> None:
    from finitedp.alp.combined import ThresholdALP

    mech = ThresholdALP(1000, "1/2", "1/1000", k=3)
    traces = set()
    for x in ({}, {1: 1}, {5: 900, 6: 2, 999: 40}):
        recorder = RecordingSource(SeededSource(b"strict"))
        mech.project(x, recorder)
        traces.add(tuple(d for d, _ in recorder.tape))
    assert len(traces) == 1


def test_threshold_alp_refuses_bad_input() -> None:
    from finitedp.alp.combined import ThresholdALP

    with pytest.raises(ParameterError, match="delta"):
        ThresholdALP(100, 1, 0, k=2)
    with pytest.raises(ParameterTypeError, match="delta"):
        ThresholdALP(100, 1, 1e-6, k=2)
    with pytest.raises(ParameterError, match="multiples of step"):
        ThresholdALP(100, 1, "1/100", k=2).project({3: F(1, 2)})


def test_max_projection_makes_public_calls_and_estimates_in_range() -> None:
    from finitedp.alp.maxproj import MaxProjection

    mech = MaxProjection(2**64, "1/2", s=32, u=50)
    traces = set()
    for x in ({}, {3: 70}, {1: 1, 2**64: 50, 9: 9}):
        recorder = RecordingSource(SeededSource(b"max"))
        release = mech.project(x, recorder)
        traces.add(tuple(d for d, _ in recorder.tape))
        assert all(0 <= release.estimate(k) <= 50 for k in (1, 3, 9, 2**64))
    assert len(traces) == 1 and len(next(iter(traces))) == 2 + 32
    with pytest.raises(ParameterError, match="power of two"):
        MaxProjection(10, 1, s=3, u=5)


def test_multiplicative_alp_estimates_within_its_range() -> None:
    from finitedp.alp.multiplicative import MultiplicativeALP

    mech = MultiplicativeALP(2**64, 1, k=3, psi=10**6)
    assert mech.privacy.epsilon == 1 and mech.alp.step.denominator == mech.log_map.finest
    release = mech.project({5: 1000, 9: 40, 11: 10**6}, SeededSource(b"mul"))
    for key in (5, 9, 11, 12):
        assert mech.log_map.breakpoints[0] <= release.estimate(key) <= mech.log_map.breakpoints[-1]
    with pytest.raises(ParameterError, match="B: got 1"):
        MultiplicativeALP(10, 1, k=1, psi=100, base=1)


@pytest.mark.parametrize("variant", ["alp", "histogram"])
def test_unknown_sparsity_calls_depend_only_on_the_released_k(variant: str) -> None:
    from finitedp.alp.unknown import UnknownSparsityALP
    from finitedp.oracle import ReplaySource

    mech = UnknownSparsityALP(1000, 1, psi=9, max_k=20, variant=variant)

    class FirstThen:
        """Answers the first call (the noisy k) from a tape, the rest from a recorder."""

        def __init__(self) -> None:
            self.first = ReplaySource([(mech.counter.d, 7)])
            self.recorder = RecordingSource(SeededSource(b"k-hat"))

        def uniform(self, d: int) -> int:
            if self.first.remaining:
                return self.first.uniform(d)
            return self.recorder.uniform(d)

    traces = set()
    for x in ({}, {4: 2}, {1: 9, 2: 1, 999: 30}):
        source = FirstThen()
        release = mech.project(x, source)
        traces.add((release.k_noisy, tuple(d for d, _ in source.recorder.tape)))
    assert len(traces) == 1


def test_an_alp_release_plots_with_estimates_clamped_to_the_counts_range(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from finitedp.plot.series import release_series

    data = tmp_path / "v.csv"
    data.write_text("city\nParis\nOslo\nParis\nRome\nParis\n", encoding="utf-8")
    out = tmp_path / "r.json"
    argv = [str(data), "--column", "city", "--universe", "utf8:8", "--epsilon", "1"]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "finitedp",
            "release",
            *argv,
            "--mechanism",
            "alp",
            "--psi",
            "6",
            "--seed",
            "00ff",
            "--quiet",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    series = release_series(out, values=["Paris", "Oslo", "Rome"])
    assert all(0 <= h <= 5 for h in series.counts)  # n = 5, whatever the estimates were
    picture = tmp_path / "alp.png"
    plot = subprocess.run(
        [
            sys.executable,
            "-m",
            "finitedp",
            "plot",
            "release",
            str(out),
            "--out",
            str(picture),
            "--values",
            "Paris",
            "Oslo",
            "Rome",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert plot.returncode == 0, plot.stderr
    assert picture.stat().st_size > 1000


def test_max_projection_on_a_grid_rounds_then_adds_noise() -> None:
    from finitedp.alp.maxproj import MaxProjection

    mech = MaxProjection(100, "1/2", s=8, u=10, step="1/4")
    assert mech.sampler.noise.exp_epsilon == F(3, 2)  # 1 + eps
    recorder = RecordingSource(SeededSource(b"grid"))
    release = mech.project({3: F(9, 4), 50: 10}, recorder)
    assert len(recorder.tape) == 2 + 2 * 8  # hash, then a rounding and a noise call per bucket
    assert all(0 <= v <= 10 for v in release.noisy)
    with pytest.raises(ParameterError, match="multiples of step"):
        mech.project({3: F(1, 3)})
    with pytest.raises(ParameterError, match="grid 1/q"):
        MaxProjection(100, 1, s=8, u=10, step="3/4")


def test_cli_threshold_alp_with_delta(tmp_path: Path) -> None:
    data = tmp_path / "v.csv"
    data.write_text("city\n" + "Paris\n" * 30 + "Oslo\n", encoding="utf-8")
    out = tmp_path / "r.json"
    base = [sys.executable, "-m", "finitedp", "release", str(data), "--column", "city"]
    base += ["--universe", "utf8:8", "--epsilon", "1", "--quiet"]
    done = subprocess.run(
        [*base, "--mechanism", "alp", "--delta", "1/1000000", "--out", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    document = json.loads(out.read_text())
    assert document["release"]["type"] == "threshold_alp"
    assert F(document["privacy"]["delta"]) <= F(1, 10**6)
    query = subprocess.run(
        [sys.executable, "-m", "finitedp", "query", str(out), "Paris", "Rome"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert query.returncode == 0, query.stderr
    for flags, message in [
        (["--mechanism", "stability"], "--delta: stability needs it"),
        (["--mechanism", "alp", "--delta", "1/100", "--psi", "5"], "--psi: with --delta"),
        (["--delta", "1/100"], "only stability, alp, pmg take it"),
    ]:
        bad = subprocess.run([*base, *flags], capture_output=True, text=True, check=False)
        assert bad.returncode == 2 and message in bad.stderr, bad.stderr


def test_bound_helpers_stay_exact_for_int_arguments_and_refuse_floats() -> None:
    from finitedp.alp.bounds import entry_error_bound, gamma, y_error_bound
    from finitedp.alp.threshold import group_delta, threshold_delta, threshold_for

    values = [gamma(3, 0), y_error_bound(3, 0), entry_error_bound(3, 0)]
    assert all(type(v) is Fraction for v in values) and values[0] == 3
    assert type(threshold_delta(F(1, 2), 3)) is Fraction and threshold_for(F(1, 2), F(1, 2)) == 2
    assert group_delta(F(1, 2), 3, 2) == 3 * threshold_delta(F(1, 2), 3)
    with pytest.raises(ParameterTypeError, match="alpha"):
        gamma(3.0, 0)
    with pytest.raises(ParameterTypeError, match="alpha"):
        threshold_delta(0.5, 3)  # type: ignore[arg-type]


def test_bit_matrix_keeps_a_projections_array_without_a_copy() -> None:
    import numpy as np

    array = np.array([0b10110001, 0b00000011], dtype=np.uint8)
    kept = BitMatrix.from_packed(5, 2, array)
    assert isinstance(kept.packed, memoryview) and not array.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        array[0] = 0  # the release's bits can no longer change under it
    copied = BitMatrix(5, 2, bytes([0b10110001, 0b00000011]))
    assert kept == copied and hash(kept) == hash(copied)
    assert kept.to_text() == copied.to_text()
    with pytest.raises(ParameterError, match="read-only"):
        BitMatrix(5, 2, memoryview(bytearray(2)))
