"""SeededSource as a stream: batched calls read the bytes of the calls one by one,
and the memory of a seeded release does not grow with the number of draws (issue 53)."""

from __future__ import annotations

import hashlib
import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from finitedp import StabilityHistogram, seededsource
from finitedp.errors import OracleError, ParameterError
from finitedp.oracle import SeededSource, discard, discard_descending, draws


class SpecStream:
    """SPEC.md's seeded mapping, one call at a time, over one long digest."""

    def __init__(self, seed: bytes) -> None:
        self.stream = hashlib.shake_256(seed).digest(1 << 21)
        self.cursor = 0

    def uniform(self, d: int) -> int:
        if d == 1:
            return 1
        k = (d - 1).bit_length()
        width = (k + 7) // 8
        while True:
            x = int.from_bytes(self.stream[self.cursor : self.cursor + width], "big") % (1 << k)
            self.cursor += width
            if x < d:
                return x + 1


# Domains at every width edge: one byte, eight bytes (the whole round in a numpy
# word), nine bytes (a leading word and a tail), 2^64 itself, and rejection-heavy
# domains just above a power of two.
EDGES = [2, 3, 255, 256, 257, 2**63 + 1, 2**64 - 1, 2**64, 2**64 + 1, 2**72 + 3, 2**200 - 5]

call = st.tuples(
    st.sampled_from(["uniform", "many", "discard", "descending"]),
    st.one_of(st.sampled_from(EDGES), st.integers(1, 2**80)),
    st.sampled_from([0, 1, 15, 16, 17, 300, 2000]),
)


@settings(max_examples=150, deadline=None)
@given(seed=st.binary(max_size=4), calls=st.lists(call, min_size=1, max_size=6))
def test_batched_calls_read_the_bytes_of_the_calls_one_by_one(
    seed: bytes, calls: list[tuple[str, int, int]]
) -> None:
    source, spec = SeededSource(seed), SpecStream(seed)
    for kind, d, count in calls:
        if kind == "uniform":
            assert source.uniform(d) == spec.uniform(d)
        elif kind == "many":
            assert draws(source, d, count) == [spec.uniform(d) for _ in range(count)]
        elif kind == "discard":
            discard(source, d, count)
            [spec.uniform(d) for _ in range(count)]
        else:
            top = max(d, count)
            discard_descending(source, top, count)
            [spec.uniform(top - i) for i in range(count)]
        # The cursor is where the calls one by one leave it.
        assert source.uniform(1000) == spec.uniform(1000)


@pytest.mark.parametrize("top", [2**64 + 7, 2**64, 2**40 + 100, 2**200 + 3, 5000])
def test_descending_runs_across_a_power_of_two(top: int) -> None:
    # 3000 descending domains from just above a power of two cross a width (or a
    # bit length) where the rounds of two runs meet; near the top every round is
    # decided on the whole integer against its own call's domain.
    source, spec = SeededSource(b"descend"), SpecStream(b"descend")
    source.discard_descending(top, 3000)
    for i in range(3000):
        spec.uniform(top - i)
    assert source.uniform_many(2**64 + 1, 50) == [spec.uniform(2**64 + 1) for _ in range(50)]


def test_descending_refuses_more_calls_than_domains() -> None:
    with pytest.raises(ParameterError, match="count"):
        SeededSource(b"x").discard_descending(10, 11)
    with pytest.raises(OracleError):
        SeededSource(b"x").uniform_many(0, 3)


def test_without_a_streaming_xof_the_bytes_are_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(seededsource, "_xof", lambda seed: None)
    source, spec = SeededSource(b"fallback"), SpecStream(b"fallback")
    assert source.uniform_many(10**30, 3000) == [spec.uniform(10**30) for _ in range(3000)]
    assert source.uniform(7) == spec.uniform(7)


def _peak_of(action: object) -> int:
    tracemalloc.start()
    try:
        action()  # type: ignore[operator]
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_stream_held_does_not_grow_with_the_draws() -> None:
    # 10^5 against 10^6 padding draws of a 300-bit domain (38 and 380 MB of stream):
    # the source holds a bounded window, so the peak is the same at both sizes.
    def padding(count: int) -> object:
        return lambda: SeededSource(b"memory").discard_many(2**300 + 1, count)

    small, large = _peak_of(padding(10**5)), _peak_of(padding(10**6))
    assert large < 16 * 2**20
    assert large < small + 2**20


def test_a_seeded_release_does_not_grow_with_n() -> None:
    # The stability histogram pads with n - |counts| draws: its memory at n = 2 10^5
    # and 2 10^6 (the rows given as counts, 3 keys) is the same.
    def release(n: int) -> object:
        mech = StabilityHistogram(n, 2**64, 1, "1/1000000", "1/10")
        counts = {1: n - 2, 2: 1, 3: 1}
        return lambda: mech.release(counts, rng=SeededSource(b"n"))

    small, large = _peak_of(release(2 * 10**5)), _peak_of(release(2 * 10**6))
    assert large < small + 2**20
