"""Prefix draws: the system mapping's value, decided from a prefix of its bytes.

Paper: BV Section 2.4 (the oracle); ``SPEC.md`` "System source" (the mapping).  Laws:
a prefix draw accepts exactly the rounds ``uniform(d)`` accepts, brackets the value
``uniform(d)`` returns, reads the same bytes, and no release changes when it is used.
"""

from __future__ import annotations

import hashlib
from typing import Any

import gmpy2
import pytest
from hypothesis import given
from hypothesis import strategies as st

import finitedp.histograms.approx as approx_module
from finitedp import (
    BoundedGeometricHistogram,
    FastSample,
    GeoSample,
    ReplaySource,
    SystemRandomSource,
)
from finitedp.counting.base import CountingSampler
from finitedp.errors import OracleError
from finitedp.histograms.approx import approx_bin_sample, approx_ord_sample
from finitedp.histograms.sparse import PureSparseHistogram
from finitedp.oracle import CountingSource, draw_compared, draws_shifted
from finitedp.prefixdraw import PREFIX_BITS, PrefixBatch, PrefixDraw, PrefixPlan


class ShakeSystemSource(SystemRandomSource):
    """The system mapping on a reproducible byte stream (SHAKE-256 of a seed)."""

    __slots__ = ("_read", "_stream")

    def __init__(self, seed: bytes) -> None:
        super().__init__()
        self._stream = hashlib.shake_256(seed)
        self._read = 0

    def _bytes(self, count: int) -> bytes:
        # shake_256.digest(n) restarts from the beginning: take the next count bytes.
        out = self._stream.digest(self._read + count)[self._read :]
        self._read += count
        return out


class Plain:
    """Forwards ``uniform`` and ``uniform_many``: every draw an int, as before prefix draws."""

    def __init__(self, inner: SystemRandomSource) -> None:
        self.inner = inner

    def uniform(self, d: int) -> int:
        return self.inner.uniform(d)

    def uniform_many(self, d: int, count: int) -> list[int]:
        return self.inner.uniform_many(d, count)


def count_forced_values(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A list that grows by one each time a prefix draw computes its value."""
    forced: list[int] = []
    original = PrefixDraw.value

    def spy(self: PrefixDraw) -> int:
        forced.append(1)
        return original(self)

    monkeypatch.setattr(PrefixDraw, "value", spy)
    return forced


def mapping(d: int) -> tuple[int, int]:
    """``W`` and ``limit`` of SPEC.md's system mapping."""
    width = ((d - 1).bit_length() + 64 + 7) // 8
    span = 1 << (8 * width)
    return width, span - span % d


LONG = st.integers(PREFIX_BITS + 8, 3000).flatmap(
    lambda k: st.integers(2 ** (k - 1) + 1, 2**k)  # every bit length above the prefix
)


@st.composite
def long_draw(draw: st.DrawFn) -> tuple[int, int]:
    """A long domain ``d`` and a word ``x``: uniform, at the limit, or at a multiple of ``d``."""
    d = draw(LONG)
    width, limit = mapping(d)
    span = 1 << (8 * width)
    q = draw(st.integers(0, limit // d - 1))
    k = draw(st.integers(0, d.bit_length()))  # a scale: the prefix decides above some k
    x = draw(
        st.one_of(
            st.integers(0, span - 1),
            st.integers(max(0, limit - 2**k), min(span - 1, limit + 2**k)),  # acceptance
            st.integers(q * d, q * d + 2**k),  # y near 0: the quotient is in doubt
            st.integers(max(0, (q + 1) * d - 2**k), (q + 1) * d - 1),  # y near d
        )
    )
    return d, x


@given(long_draw(), st.integers(0, 3200))
def test_prefix_draw_brackets_the_mapping(case: tuple[int, int], r: int) -> None:
    d, x = case
    width, limit = mapping(d)
    plan = PrefixPlan(d, width, limit)
    assert plan.lazy and plan.shift % 8 == 0 and plan.prefix_bytes < width
    data = memoryview(x.to_bytes(width, "big"))
    assert plan.accepts(data) == (x < limit)
    if x >= limit:
        return
    drawn = PrefixDraw(data, plan)
    lo, hi = drawn.shifted_bounds(r)
    assert lo <= (x % d) >> r <= hi
    assert drawn.value() == x % d + 1
    assert drawn.shifted_bounds(r) == ((x % d) >> r,) * 2


@given(st.integers(PREFIX_BITS + 64, 4000), st.binary(min_size=32, max_size=32))
def test_prefix_draw_usually_decides_without_the_value(bits: int, seed: bytes) -> None:
    # The bracket is about 2^(R + 73) wide and R >= bits - PREFIX_BITS - 7: at r = R + 80
    # the lower and upper ends agree unless a multiple of 2^r falls inside (about 2^-7).
    d = 2 ** (bits - 1) + int.from_bytes(hashlib.sha256(seed).digest(), "big")
    width, limit = mapping(d)
    plan = PrefixPlan(d, width, limit)
    stream = hashlib.shake_256(seed).digest(width * 40)
    agreed = 0
    for i in range(40):
        data = memoryview(stream[i * width : (i + 1) * width])
        if plan.accepts(data):
            drawn = PrefixDraw(data, plan)
            lo, hi = drawn.shifted_bounds(plan.shift + 80)
            agreed += lo == hi and drawn._value is None  # decided, and not by the value
    assert agreed >= 30


def test_short_domains_are_not_lazy() -> None:
    width, limit = mapping(2**PREFIX_BITS - 1)
    assert not PrefixPlan(2**PREFIX_BITS - 1, width, limit).lazy
    source = ShakeSystemSource(b"short")
    assert type(source.uniform_compared(1000)) is int


DOMAINS = [6, 2**700 + 1, 3 * 2**1999 + 7, 2**64, 2**700 + 1, 5, 2**4000 - 1, 2**4000 - 1]


def test_source_reads_the_same_bytes_as_uniform() -> None:
    compared, plain = ShakeSystemSource(b"twins"), ShakeSystemSource(b"twins")
    got = []
    for d in DOMAINS * 3:
        u = compared.uniform_compared(d)
        got.append(u.value() if isinstance(u, PrefixDraw) else u)
    assert got == [plain.uniform(d) for d in DOMAINS * 3]
    # Unforced draws too: the next short draws still agree.
    for d in DOMAINS:
        compared.uniform_compared(d)
        plain.uniform(d)
    assert [compared.uniform(6) for _ in range(20)] == [plain.uniform(6) for _ in range(20)]


def test_rejected_rounds_are_skipped_as_uniform_skips_them() -> None:
    d = 2**600 + 1  # limit = span - (span mod d): a word above it is rejected
    width, limit = mapping(d)
    words = [limit + 5, limit, 12345, (1 << (8 * width)) - 1, 7 * d + 3]
    stream = b"".join(w.to_bytes(width, "big") for w in words)

    class Fixed(SystemRandomSource):
        def _bytes(self, count: int) -> bytes:
            return (stream + bytes(count))[:count]

    compared, plain = Fixed(), Fixed()
    first = compared.uniform_compared(d)
    assert isinstance(first, PrefixDraw) and first.value() == 12346 == plain.uniform(d)
    # Both go on after the third word: the fourth is rejected, the fifth maps to 3 + 1.
    assert compared.uniform(d) == 4 == plain.uniform(d)


def test_counting_source_counts_and_falls_back() -> None:
    counter = CountingSource(ShakeSystemSource(b"count"))
    assert isinstance(counter.uniform_compared(2**900 + 3), PrefixDraw)
    assert counter.calls == 1
    replay = CountingSource(ReplaySource([(2**900 + 3, 42)]))
    assert draw_compared(replay, 2**900 + 3) == 42 and replay.calls == 1


@pytest.mark.parametrize("seed", [b"a", b"b", b"c"])
def test_pure_sparse_release_is_unchanged_by_prefix_draws(
    seed: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    # n = 40 over 2^64: ApproxOrdSample draws in [1, s] with s of about 2,700 bits.
    mech = PureSparseHistogram(40, 2**64, "1/2", "1/16")
    assert mech.precision.bit_length() > PREFIX_BITS + 64
    rows = [7] * 20 + [9] * 5 + list(range(100, 115))
    forced = count_forced_values(monkeypatch)
    with_prefix = mech.release(rows, ShakeSystemSource(seed))
    assert mech.release(rows, Plain(ShakeSystemSource(seed))) == with_prefix
    assert not forced  # decided from the prefixes alone


def test_bin_sample_forces_the_value_when_the_bounds_cannot_decide(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Keep only 6 bits in the interval pass: draws often land between the bounds,
    # and the prefix draw must then give its exact value (Alg 6.18's output).
    s = 3 * 2**2000 + 1

    def shift(i: int, s: int, t: int) -> int:
        return s.bit_length() - 6

    monkeypatch.setattr(approx_module, "_precision_shift", shift)
    approx_module._round_cdf.cache_clear()
    forced = count_forced_values(monkeypatch)
    try:
        for i in range(30):
            seed = bytes([i])
            args: tuple[Any, ...] = (40, 3, 7, s, 20)
            got = approx_bin_sample(*args, ShakeSystemSource(seed))
            assert got == approx_bin_sample(*args, Plain(ShakeSystemSource(seed)))
    finally:
        approx_module._round_cdf.cache_clear()
    assert forced


def test_ord_sample_with_prefix_draws_matches_plain_draws() -> None:
    f = [1, 5, 9, 10]
    s = gmpy2.mpz(2**1500 + 12345)
    for i in range(5):
        seed = bytes([i])
        got = approx_ord_sample(f.__getitem__, 3, 2**40, int(s), ShakeSystemSource(seed))
        plain = approx_ord_sample(f.__getitem__, 3, 2**40, int(s), Plain(ShakeSystemSource(seed)))
        assert got == plain


# -- batches: BoundedGeometricHistogram's draws, one per bin -----------------------


@given(
    st.data(),
    st.integers(PREFIX_BITS + 8, 2500).flatmap(lambda k: st.integers(2 ** (k - 1) + 1, 2**k)),
)
def test_prefix_batch_agrees_with_uniform_many(data: st.DataObject, d: int) -> None:
    width, limit = mapping(d)
    span = 1 << (8 * width)
    q = data.draw(st.integers(0, limit // d - 1))
    words = data.draw(
        st.lists(
            st.integers(0, d.bit_length()).flatmap(
                lambda k: st.one_of(
                    st.integers(0, span - 1),
                    st.integers(max(0, limit - 2**k), min(span - 1, limit + 2**k)),
                    st.integers(q * d, q * d + 2**k),
                    st.integers(max(0, (q + 1) * d - 2**k), (q + 1) * d - 1),
                )
            ),
            min_size=1,
            max_size=12,
        )
    )
    shift = data.draw(st.integers(128, d.bit_length() + 8))
    plan = PrefixPlan(d, width, limit)
    batch = PrefixBatch(plan, shift)
    half = data.draw(st.integers(0, len(words)))  # two blocks: indices run across them
    for part in (words[:half], words[half:]):
        batch.add_block(b"".join(w.to_bytes(width, "big") for w in part))
    accepted = [x for x in words if x < limit]
    assert len(batch) == len(accepted)
    for i, x in enumerate(accepted):
        assert batch.value(i) == x % d + 1
        assert batch.shifted[i] in (-1, (x % d) >> shift)


def test_prefix_batch_usually_decides() -> None:
    d = 3**5000 + 17
    width, limit = mapping(d)
    batch = PrefixBatch(PrefixPlan(d, width, limit), d.bit_length() - 96)
    batch.add_block(hashlib.shake_256(b"batch").digest(width * 200))
    assert len(batch) == 200 and -1 not in batch.shifted


def test_uniform_many_shifted_reads_like_uniform_many() -> None:
    d = 5**3000 + 3
    compared, plain = ShakeSystemSource(b"many"), ShakeSystemSource(b"many")
    batch = compared.uniform_many_shifted(d, 300, d.bit_length() - 96)
    assert isinstance(batch, PrefixBatch)
    assert [batch.value(i) for i in range(300)] == plain.uniform_many(d, 300)
    assert compared.uniform(10**9) == plain.uniform(10**9)
    short = compared.uniform_many_shifted(d, 5, 100)  # below 128 bits: plain values
    assert short == plain.uniform_many(d, 5)


def test_draws_shifted_falls_back_and_checks_the_count() -> None:
    replay = ReplaySource([(10**700, 5), (10**700, 6)])
    assert draws_shifted(replay, 10**700, 2, 2000) == [5, 6]

    class Short:
        def uniform(self, d: int) -> int:
            return 1

        def uniform_many_shifted(self, d: int, count: int, shift: int) -> list[int]:
            return [1] * (count - 1)

    with pytest.raises(OracleError, match="uniform_many_shifted"):
        draws_shifted(Short(), 10**700, 3, 2000)


@pytest.mark.parametrize(
    "sampler", [FastSample(200, "1/10", "1/1000"), GeoSample(250, "1/10")], ids=["fast", "geo"]
)
@pytest.mark.parametrize("kept", [96, 6])  # 6 bits: table entries tie with draws
def test_invert_many_on_a_batch_is_invert_many_on_its_values(
    sampler: CountingSampler, kept: int
) -> None:
    d = sampler.d
    assert d.bit_length() >= CountingSampler.PREFIX_MIN_BITS
    source = ShakeSystemSource(bytes([kept]))
    batch = source.uniform_many_shifted(d, 3000, d.bit_length() - kept)
    assert isinstance(batch, PrefixBatch)
    values = [batch.value(i) for i in range(3000)]
    counts = [0] * 2500 + [i % (sampler.n + 1) for i in range(500)]
    fresh = type(sampler)(*sampler_args(sampler))  # no tables kept from another shift
    assert fresh.invert_many(counts, batch) == sampler.invert_many(counts, values)
    assert sampler.invert_many(counts, values) == [
        sampler(c, u) for c, u in zip(counts, values, strict=True)
    ]


def sampler_args(sampler: CountingSampler) -> tuple[Any, ...]:
    if isinstance(sampler, FastSample):
        return (sampler.n, sampler.epsilon, sampler.gamma)
    return (sampler.n, sampler.epsilon)


def test_bounded_geometric_release_is_unchanged_by_prefix_batches() -> None:
    mech = BoundedGeometricHistogram(100, 3000, "1/10", "1/10")
    assert mech.sampler.prefix_shift > 0
    rows = [1 + i % 7 for i in range(100)]
    for seed in (b"x", b"y"):
        plain = mech.release(rows, Plain(ShakeSystemSource(seed)))
        assert mech.release(rows, ShakeSystemSource(seed)) == plain


@pytest.mark.parametrize("kept", [96, 2000])
def test_brackets_at_a_multiple_of_the_shift(kept: int) -> None:
    # Q = 1 and X - Q D exactly K 2^rel: the draw's low bytes (zero) are below d's, so
    # u - 1 = x - d sits just under K 2^shift.  Only the lower end's "- Q" (the units
    # of d cut off, once per quotient) says so: without it the bracket claims K.
    d = 3**2000 + 12345
    width, limit = mapping(d)
    plan = PrefixPlan(d, width, limit)
    shift = d.bit_length() - kept
    batch = PrefixBatch(plan, shift)
    cut = batch._cut
    assert d % 2**cut and (d >> cut) * 2**cut < d
    k = 5
    x = ((d >> cut) + (k << (shift - cut))) << cut
    assert x // d == 1 and (x % d) >> shift == k - 1
    batch.add_block(x.to_bytes(width, "big"))
    assert batch.shifted == [-1] and batch.value(0) == x % d + 1
    # The single draw's bracket, at r = R + 100: the same edge.
    r = plan.shift + 100
    x = ((d >> plan.shift) + (k << 100)) << plan.shift
    lo, hi = PrefixDraw(memoryview(x.to_bytes(width, "big")), plan).shifted_bounds(r)
    assert lo <= (x % d) >> r == k - 1 <= hi
