"""Tests of the randomness oracle and its sources (finitedp.oracle).

The seeded source is checked against known answers published in SPEC.md and
against an independent reimplementation written here from the specification
(hashlib only).  The system source's byte mapping is checked exactly by
feeding it controlled bytes in place of ``os.urandom``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
from collections.abc import Callable, Sequence
from fractions import Fraction
from pathlib import Path
from types import SimpleNamespace

import gmpy2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import finitedp.systemsource as systemsource
from finitedp import FastSample
from finitedp.errors import FiniteDPError, OracleError, ParameterError, TapeError
from finitedp.oracle import (
    RandomSource,
    RecordingSource,
    ReplaySource,
    SeededSource,
    SystemRandomSource,
    default_source,
    draw,
)
from finitedp.systemsource import _forget_buffers_after_fork

SPEC = Path(__file__).resolve().parents[1] / "SPEC.md"

#: Domains that exercise every branch of the byte mappings.
DOMAINS = [
    1,
    2,
    3,
    5,
    6,
    7,
    8,
    9,
    255,
    256,
    257,
    1000,
    2**32 - 1,
    2**32,
    2**32 + 1,
    2**64,
    10**30,
    2**200 + 1,
    2**521 - 1,
    3**400,
]


# -- an independent reimplementation of SPEC.md ------------------------------


def reference_seeded(seed: bytes, domains: Sequence[int]) -> tuple[list[int], int]:
    """SPEC.md "Seeded source", written from the text: the draws and the bytes read."""
    needed = 64
    while True:
        stream = hashlib.shake_256(seed).digest(needed)
        cursor = 0
        draws: list[int] = []
        try:
            for d in domains:
                if d == 1:
                    draws.append(1)
                    continue
                k = len(bin(d - 1)) - 2
                width = -(-k // 8)
                while True:
                    if cursor + width > len(stream):
                        raise IndexError
                    chunk = stream[cursor : cursor + width]
                    cursor += width
                    value = 0
                    for byte in chunk:
                        value = value * 256 + byte
                    value %= 2**k
                    if value < d:
                        draws.append(value + 1)
                        break
        except IndexError:
            needed *= 4
            continue
        return draws, cursor


def reference_system(stream: bytes, domains: Sequence[int]) -> list[int]:
    """SPEC.md "System source" over a given byte stream (no 64 KiB blocks)."""
    cursor = 0
    draws: list[int] = []
    for d in domains:
        k = len(bin(d - 1)) - 2 if d > 1 else 0
        width = -(-(k + 64) // 8)
        span = 256**width
        top = (span // d) * d
        while True:
            x = int.from_bytes(stream[cursor : cursor + width], "big")
            assert cursor + width <= len(stream), "reference stream too short"
            cursor += width
            if x < top:
                draws.append(x % d + 1)
                break
    return draws


def seeded_draws(source: SeededSource, domains: Sequence[int]) -> list[int]:
    return [source.uniform(d) for d in domains]


# -- known answers -----------------------------------------------------------

FINITEDP = b"finitedp"
SHAKE_PREFIX = (
    "f6bfad0bb6f6ead56e8742a73187d81340efa62b9219eb2bf2b096f7ce6c9d3b"
    "4f35d58a279527ba7b387e8f63c04ca2"
)

#: (seed, domains, draws, bytes read): the same vectors as SPEC.md.
KNOWN_ANSWERS: list[tuple[bytes, list[int], list[int], int]] = [
    (FINITEDP, [1] * 5, [1, 1, 1, 1, 1], 0),
    (FINITEDP, [2] * 5, [1, 2, 2, 2, 1], 5),
    (FINITEDP, [6] * 5, [6, 4, 3, 6, 3], 11),
    (
        FINITEDP,
        [2**64] * 5,
        [
            17780120119707888342,
            7964407751885969428,
            4679141243926211372,
            17487643344143949116,
            5707702892108261307,
        ],
        40,
    ),
    (
        FINITEDP,
        [10**30] * 5,
        [
            534689811449387265464729773874,
            621469175964034137901868249777,
            552061324146291534403016824104,
            830416578859816312004661456948,
            893384615253536257866464448335,
        ],
        78,
    ),
    (
        FINITEDP,
        [2**200 + 1] * 5,
        [
            1203169501161811504383470923256839152690763027123242609144497,
            1555505637115459578112875468688051534676982576062362200551476,
            612699665997430640849965747508786295142329619491444646694735,
            1283586592767088986954184247770063150235206502497968650110009,
            861033192105258860266601429296425015386352119625219140068632,
        ],
        182,
    ),
    (
        FINITEDP,
        [6, 2**64, 1, 10**30, 2, 2**200 + 1, 3],
        [
            6,
            844133468642117443,
            1,
            569926128453071824948681108268,
            1,
            947641454202984378552371833280712663722685279857348779280305,
            3,
        ],
        53,
    ),
    (b"", [6] * 5, [2, 6, 4, 4, 1], 6),
    (bytes([0, 1, 2]), [1000] * 5, [326, 279, 686, 591, 127], 10),
]


def spec_vectors() -> list[tuple[bytes, list[int], list[int], int]]:
    """The known-answer vectors of SPEC.md's ```jsonl block."""
    text = SPEC.read_text(encoding="utf-8")
    section = text.split("## Seeded source (SeededSource)", 1)[1]
    block = re.search(r"```jsonl\n(.*?)```", section, re.DOTALL)
    assert block is not None, "SPEC.md has no ```jsonl block of known answers"
    vectors = []
    for line in block[1].splitlines():
        record = json.loads(line)
        draws = [int(u) for u in record["u"]]
        raw_d = record["d"]
        domains = [int(raw_d)] * len(draws) if isinstance(raw_d, str) else [int(d) for d in raw_d]
        assert len(domains) == len(draws)
        vectors.append((bytes.fromhex(record["seed"]), domains, draws, int(record["bytes_read"])))
    return vectors


@pytest.mark.parametrize(("seed", "domains", "draws", "bytes_read"), KNOWN_ANSWERS)
def test_seeded_known_answers(
    seed: bytes, domains: list[int], draws: list[int], bytes_read: int
) -> None:
    source = SeededSource(seed)
    assert seeded_draws(source, domains) == draws
    assert reference_seeded(seed, domains) == (draws, bytes_read)


def test_spec_vectors_match_the_tests_and_both_implementations() -> None:
    vectors = spec_vectors()
    assert vectors == KNOWN_ANSWERS
    for seed, domains, draws, bytes_read in vectors:
        assert seeded_draws(SeededSource(seed), domains) == draws
        assert reference_seeded(seed, domains) == (draws, bytes_read)


def test_spec_stream_prefix_and_worked_example() -> None:
    assert hashlib.shake_256(FINITEDP).hexdigest(48) == SHAKE_PREFIX
    text = SPEC.read_text(encoding="utf-8")
    assert SHAKE_PREFIX in text
    # The worked example: the first eleven bytes and their low three bits.
    stream = bytes.fromhex(SHAKE_PREFIX)[:11]
    assert " ".join(f"{b:02x}" for b in stream) in text
    assert " ".join(str(b & 7) for b in stream) in text


def test_spec_warns_against_production_use() -> None:
    text = SPEC.read_text(encoding="utf-8")
    assert "Not for production" in text
    assert "anyone who knows" in text


@given(
    st.binary(max_size=40),
    st.lists(
        st.one_of(
            st.integers(min_value=1, max_value=300),
            st.integers(min_value=1, max_value=2**300),
            st.integers(min_value=1, max_value=260).map(lambda e: 2**e),
            st.integers(min_value=1, max_value=260).map(lambda e: 2**e + 1),
        ),
        max_size=25,
    ),
)
def test_seeded_agrees_with_reference(seed: bytes, domains: list[int]) -> None:
    draws, _ = reference_seeded(seed, domains)
    assert seeded_draws(SeededSource(seed), domains) == draws
    assert all(1 <= u <= d for u, d in zip(draws, domains, strict=True))


def test_seeded_long_stream_agrees_with_reference() -> None:
    # Thousands of bytes: exercises the source's regrowing of its SHAKE buffer.
    domains = [d for _ in range(40) for d in DOMAINS]
    draws, bytes_read = reference_seeded(b"long", domains)
    assert bytes_read > 4096
    assert seeded_draws(SeededSource(b"long"), domains) == draws


# -- SeededSource behaviour --------------------------------------------------


def test_seeded_is_deterministic() -> None:
    first = seeded_draws(SeededSource(b"again"), DOMAINS * 3)
    second = seeded_draws(SeededSource(b"again"), DOMAINS * 3)
    assert first == second
    other = seeded_draws(SeededSource(b"again!"), DOMAINS * 3)
    assert other != first


@given(st.binary(max_size=32))
def test_hex_string_seed_equals_bytes_seed(seed: bytes) -> None:
    from_hex = SeededSource(seed.hex())
    from_upper_hex = SeededSource(seed.hex().upper())
    from_bytes = SeededSource(seed)
    assert from_hex.seed == from_bytes.seed == seed
    expected = seeded_draws(from_bytes, DOMAINS)
    assert seeded_draws(from_hex, DOMAINS) == expected
    assert seeded_draws(from_upper_hex, DOMAINS) == expected


def test_seeded_repr_round_trips() -> None:
    source = SeededSource(b"finitedp")
    assert repr(source) == "SeededSource('66696e6974656470')"
    assert SeededSource(source.seed.hex()).uniform(10**30) == source.uniform(10**30)


@pytest.mark.parametrize(
    ("seed", "why"),
    [("xyz", "hexadecimal"), ("abc", "3 hex digits; write whole bytes"), ("0g", "hexadecimal")],
)
def test_non_hex_string_seed_is_refused(seed: str, why: str) -> None:
    with pytest.raises(OracleError, match=why):
        SeededSource(seed)


@pytest.mark.parametrize("seed", [bytearray(b"ab"), 42, None, ["a"]])
def test_non_bytes_seed_is_refused(seed: object) -> None:
    with pytest.raises(OracleError, match=r"^seed: "):
        SeededSource(seed)  # type: ignore[arg-type]


def test_seeded_d_one_consumes_nothing() -> None:
    plain = SeededSource(b"ones")
    interleaved = SeededSource(b"ones")
    expected = [plain.uniform(1000) for _ in range(10)]
    got = []
    for _ in range(10):
        assert interleaved.uniform(1) == 1
        assert interleaved.uniform(1) == 1
        got.append(interleaved.uniform(1000))
    assert got == expected


@given(st.binary(max_size=8), st.integers(min_value=1, max_value=64))
def test_seeded_powers_of_two_never_reject(seed: bytes, exponent: int) -> None:
    d = 2**exponent
    source = SeededSource(seed)
    draws = [source.uniform(d) for _ in range(5)]
    assert reference_seeded(seed, [d] * 5) == (draws, 5 * (-(-exponent // 8)))


@given(st.binary(max_size=8), st.integers(min_value=2, max_value=2**80))
def test_seeded_reads_whole_rounds(seed: bytes, d: int) -> None:
    _, bytes_read = reference_seeded(seed, [d])
    width = -(-(d - 1).bit_length() // 8)
    assert bytes_read % width == 0
    assert bytes_read >= width


BAD_DOMAINS: list[object] = [0, -1, -(2**70), True, False, 2.0, 6.0, "6", None, Fraction(6)]


def used_system_source() -> SystemRandomSource:
    source = SystemRandomSource()
    source.uniform(6)
    return source


@pytest.mark.parametrize("d", BAD_DOMAINS)
@pytest.mark.parametrize(
    "make",
    [
        lambda: SeededSource(b"x"),
        used_system_source,
        lambda: ReplaySource([(6, 1)]),
    ],
    ids=["seeded", "system", "replay"],
)
def test_bad_domains_are_refused(make: Callable[[], RandomSource], d: object) -> None:
    source = make()
    with pytest.raises(OracleError, match=r"^d: got .*int d >= 1"):
        source.uniform(d)  # type: ignore[arg-type]


@pytest.mark.parametrize("d", [d for d in BAD_DOMAINS if d != 0])
def test_fresh_system_source_refuses_bad_domains(d: object) -> None:
    with pytest.raises(OracleError, match=r"^d: got .*int d >= 1"):
        SystemRandomSource().uniform(d)  # type: ignore[arg-type]


class _TimedOut(Exception):
    pass


def _raise_timed_out(signum: int, frame: object) -> None:
    raise _TimedOut


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs signal.setitimer")
def test_fresh_system_source_refuses_zero() -> None:
    previous = signal.signal(signal.SIGALRM, _raise_timed_out)
    signal.setitimer(signal.ITIMER_REAL, 2.0)
    try:
        with pytest.raises(OracleError, match=r"^d: got 0; "):
            SystemRandomSource().uniform(0)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_bad_domain_consumes_nothing_from_seeded_source() -> None:
    source = SeededSource(b"x")
    for d in BAD_DOMAINS:
        with pytest.raises(OracleError):
            source.uniform(d)  # type: ignore[arg-type]
    assert source.uniform(10**30) == SeededSource(b"x").uniform(10**30)


def test_system_source_refuses_float_equal_to_cached_domain() -> None:
    # uniform caches its plan for the last d; 6.0 == 6 must not reuse it.
    source = SystemRandomSource()
    assert 1 <= source.uniform(6) <= 6
    with pytest.raises(OracleError):
        source.uniform(6.0)  # type: ignore[arg-type]
    with pytest.raises(OracleError):
        source.uniform(True)
    assert 1 <= source.uniform(1) <= 1
    with pytest.raises(OracleError):
        source.uniform(True)


def test_sources_satisfy_the_protocol() -> None:
    sources = [
        SeededSource(b""),
        SystemRandomSource(),
        RecordingSource(SeededSource(b"")),
        ReplaySource([]),
    ]
    for source in sources:
        assert isinstance(source, RandomSource)
    assert isinstance(default_source(), SystemRandomSource)
    assert repr(SystemRandomSource()) == "SystemRandomSource()"


def test_error_classes() -> None:
    assert issubclass(TapeError, OracleError)
    assert issubclass(OracleError, ValueError)
    assert issubclass(OracleError, FiniteDPError)


# -- SystemRandomSource: values in range ----------------------------------------


@pytest.mark.parametrize("d", DOMAINS + [2**k for k in range(1, 70, 7)] + [2**4096 + 3])
def test_system_values_in_range(d: int) -> None:
    source = SystemRandomSource()
    for _ in range(200):
        u = source.uniform(d)
        assert type(u) is int
        assert 1 <= u <= d


@given(st.lists(st.integers(min_value=1, max_value=2**600), min_size=1, max_size=30))
def test_system_values_in_range_for_any_domains(domains: list[int]) -> None:
    source = SystemRandomSource()
    for d in domains:
        assert 1 <= source.uniform(d) <= d


def test_system_small_domain_hits_every_value() -> None:
    source = SystemRandomSource()
    seen = {source.uniform(6) for _ in range(3000)}
    assert seen == set(range(1, 7))  # misses a value with probability < 6 * (5/6)**3000


def test_system_draws_are_not_repeated() -> None:
    source = SystemRandomSource()
    draws = [source.uniform(2**128) for _ in range(5000)]  # crosses several 64 KiB blocks
    assert len(set(draws)) == len(draws)


# -- SystemRandomSource: the exact byte mapping --------------------------------


class FakeUrandom:
    """Stands in for os.urandom: hands out a fixed stream in order, then zeros."""

    def __init__(self, stream: bytes) -> None:
        self.stream = stream
        self.position = 0
        self.calls: list[int] = []

    def __call__(self, n: int) -> bytes:
        self.calls.append(n)
        chunk = self.stream[self.position : self.position + n]
        self.position += n
        return chunk + bytes(n - len(chunk))


@pytest.fixture
def fake_urandom(monkeypatch: pytest.MonkeyPatch) -> Callable[[bytes], FakeUrandom]:
    """Replace os.urandom inside finitedp.systemsource only (not for the whole process)."""

    def install(stream: bytes) -> FakeUrandom:
        fake = FakeUrandom(stream)
        monkeypatch.setattr(systemsource, "os", SimpleNamespace(urandom=fake))
        return fake

    return install


def width_of(d: int) -> int:
    return -(-((d - 1).bit_length() + 64) // 8)


def block(x: int, d: int) -> bytes:
    return x.to_bytes(width_of(d), "big")


def test_system_mapping_for_six(fake_urandom: Callable[[bytes], FakeUrandom]) -> None:
    # d = 6: k = 3, W = 9 bytes, span = 2^72, span mod 6 = 4, limit = 2^72 - 4.
    assert width_of(6) == 9
    ff = b"\xff" * 8
    stream = b"".join(
        [
            ff + b"\xff",  # 2^72 - 1: rejected
            ff + b"\xfc",  # 2^72 - 4 = limit: rejected
            ff + b"\xfb",  # 2^72 - 5: accepted, (2^72 - 5) mod 6 = 5 -> 6
            bytes(8) + b"\x05",  # 5 -> 6
            bytes(9),  # 0 -> 1
            bytes(8) + b"\x06",  # 6 -> 1
            bytes(8) + b"\x0b",  # 11 -> 6
            bytes(8) + b"\x0d",  # 13 -> 2
            ff + b"\xfe",  # rejected
            bytes(8) + b"\x03",  # 3 -> 4
        ]
    )
    fake = fake_urandom(stream)
    source = SystemRandomSource()
    assert [source.uniform(6) for _ in range(7)] == [6, 6, 1, 1, 6, 2, 4]
    assert fake.calls == [65536]


def test_system_mapping_power_of_two_never_rejects(
    fake_urandom: Callable[[bytes], FakeUrandom],
) -> None:
    d = 2**64  # k = 64, W = 16 bytes, limit = span
    fake_urandom(b"\xff" * 16 + bytes(15) + b"\x01")
    source = SystemRandomSource()
    assert source.uniform(d) == (2**128 - 1) % d + 1 == d
    assert source.uniform(d) == 2


def test_system_mapping_d_one_reads_eight_bytes(
    fake_urandom: Callable[[bytes], FakeUrandom],
) -> None:
    fake_urandom(b"\xff" * 8 + bytes(8) + bytes(8) + b"\x05" + bytes(8))
    source = SystemRandomSource()
    assert source.uniform(1) == 1
    assert source.uniform(1) == 1
    # 16 bytes used; the next 9-byte block for d = 6 is 00 x8, 05 -> 6.
    assert source.uniform(6) == 6


@given(st.data(), st.integers(min_value=2, max_value=2**300))
def test_system_mapping_accepts_and_rejects_exactly(data: st.DataObject, d: int) -> None:
    width = width_of(d)
    span = 256**width
    top = (span // d) * d  # the largest multiple of d not above span
    x = data.draw(
        st.one_of(
            st.integers(min_value=0, max_value=span - 1),
            st.integers(min_value=max(0, top - 3), max_value=span - 1),
        )
    )
    # x, then 0 (maps to 1), then 1 (maps to 2): the second draw tells whether x was used.
    stream = x.to_bytes(width, "big") + bytes(width) + (1).to_bytes(width, "big")
    fake = FakeUrandom(stream)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(systemsource, "os", SimpleNamespace(urandom=fake))
        source = SystemRandomSource()
        got = (source.uniform(d), source.uniform(d))
    assert got == ((x % d + 1, 1) if x < top else (1, 2))


@given(
    st.binary(min_size=0, max_size=600),
    st.lists(
        st.one_of(
            st.integers(min_value=1, max_value=300),
            st.integers(min_value=1, max_value=2**200),
            st.integers(min_value=0, max_value=200).map(lambda e: 2**e),
        ),
        min_size=1,
        max_size=20,
    ),
)
def test_system_agrees_with_reference_mapping(stream: bytes, domains: list[int]) -> None:
    stream = stream + bytes(2000)
    fake = FakeUrandom(stream)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(systemsource, "os", SimpleNamespace(urandom=fake))
        source = SystemRandomSource()
        got = [source.uniform(d) for d in domains]
    assert got == reference_system(stream, domains)
    assert fake.calls == [65536]


def test_system_refill_drops_the_leftover_bytes(
    fake_urandom: Callable[[bytes], FakeUrandom],
) -> None:
    # 65536 = 9 * 7281 + 7: after 7281 draws for d = 6, seven bytes are left over.
    first = bytes(65536 - 7) + b"\xff" * 7
    second = bytes(8) + b"\x05" + bytes(8) + b"\x01"
    fake = fake_urandom(first + second)
    source = SystemRandomSource()
    assert all(source.uniform(6) == 1 for _ in range(7281))
    assert fake.calls == [65536]
    assert source.uniform(6) == 6  # from the new block, not from ff x7 + 00 00
    assert source.uniform(6) == 2
    assert fake.calls == [65536, 65536]


def test_system_huge_domain_reads_a_larger_block(
    fake_urandom: Callable[[bytes], FakeUrandom],
) -> None:
    d = 2 ** (8 * 70000)  # W = 70008 bytes > the 64 KiB block
    fake = fake_urandom(bytes(69999) + b"\x01" + bytes(8))  # x = 256^8 = 2^64
    source = SystemRandomSource()
    assert source.uniform(d) == 2**64 + 1
    assert fake.calls == [width_of(d)]


def test_system_domain_change_replans(fake_urandom: Callable[[bytes], FakeUrandom]) -> None:
    domains = [6, 7, 6, 2**64, 1, 6, 2**64 + 1, 6]
    stream = bytes((17 * i + 5) % 256 for i in range(400))
    fake_urandom(stream)
    source = SystemRandomSource()
    assert [source.uniform(d) for d in domains] == reference_system(stream, domains)


# -- fork safety -----------------------------------------------------------------


def test_forget_buffers_after_fork_drops_unread_bytes(
    fake_urandom: Callable[[bytes], FakeUrandom],
) -> None:
    d = 6
    stream = bytes(65536) + bytes(8) + b"\x05"
    fake = fake_urandom(stream)
    source = SystemRandomSource()
    assert source.uniform(d) == 1
    assert fake.calls == [65536]
    _forget_buffers_after_fork()
    # Without the discard this would be the next zero block of the first buffer (-> 1).
    assert source.uniform(d) == 6
    assert fake.calls == [65536, 65536]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_forked_child_does_not_repeat_the_parent() -> None:
    d = 2**128
    source = SystemRandomSource()
    source.uniform(d)  # fill the 64 KiB buffer before forking
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        status = 1
        try:
            os.close(read_end)
            os.write(write_end, str(source.uniform(d)).encode())
            os.close(write_end)
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        child_value = int(pipe.read())
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    parent_value = source.uniform(d)
    assert child_value != parent_value  # equal with probability 2^-128 if correct


# -- RecordingSource -----------------------------------------------------------


def test_recording_source_tape() -> None:
    domains = [6, 1, 2**64, 10**30, 6]
    recorder = RecordingSource(SeededSource(b"tape"))
    assert recorder.tape == ()
    got = [recorder.uniform(d) for d in domains]
    expected = seeded_draws(SeededSource(b"tape"), domains)
    assert got == expected
    assert recorder.tape == tuple(zip(domains, expected, strict=True))
    snapshot = recorder.tape
    recorder.uniform(3)
    assert len(snapshot) == len(domains)
    assert len(recorder.tape) == len(domains) + 1


def test_recording_source_defaults_to_system_source() -> None:
    recorder = RecordingSource()
    u = recorder.uniform(10**30)
    assert recorder.tape == ((10**30, u),)
    assert 1 <= u <= 10**30


class ConstantSource:
    """A source that returns a fixed answer, whatever it is."""

    def __init__(self, answer: object) -> None:
        self.answer = answer

    def uniform(self, d: int) -> int:
        return self.answer  # type: ignore[return-value]


def test_recording_source_does_not_record_a_broken_answer() -> None:
    recorder = RecordingSource(ConstantSource(0))
    with pytest.raises(OracleError, match=r"^ConstantSource\.uniform\(6\) returned 0"):
        recorder.uniform(6)
    assert recorder.tape == ()


# -- ReplaySource ----------------------------------------------------------------


SAMPLER = FastSample(5, 1, "1/4")


def record_runs(source: RandomSource) -> tuple[list[int], tuple[tuple[int, int], ...]]:
    recorder = RecordingSource(source)
    outputs = [SAMPLER.sample(c, rng=recorder) for c in (0, 1, 2, 3, 4, 5, 5, 0)]
    return outputs, recorder.tape


@pytest.mark.parametrize(
    "make", [lambda: SeededSource(b"replay"), SystemRandomSource], ids=["seeded", "system"]
)
def test_replay_reproduces_a_recorded_run(make: Callable[[], RandomSource]) -> None:
    outputs, tape = record_runs(make())
    assert len(tape) == 8
    assert all(d == SAMPLER.d for d, _ in tape)
    replay = ReplaySource(tape)
    assert replay.remaining == 8
    replayed = [SAMPLER.sample(c, rng=replay) for c in (0, 1, 2, 3, 4, 5, 5, 0)]
    assert replayed == outputs
    assert replay.remaining == 0
    replay.assert_exhausted()
    for c, (_, u), z in zip((0, 1, 2, 3, 4, 5, 5, 0), tape, outputs, strict=True):
        assert SAMPLER(c, u) == z


def test_replay_chosen_draws_give_the_extreme_outputs() -> None:
    d = SAMPLER.d
    replay = ReplaySource(iter([(d, 1), (d, d)]))  # any iterable of pairs
    assert SAMPLER.sample(3, rng=replay) == SAMPLER(3, 1)
    assert SAMPLER.sample(3, rng=replay) == SAMPLER(3, d)
    assert SAMPLER(3, 1) <= SAMPLER(3, d)


def test_replay_exhausted_tape() -> None:
    d = SAMPLER.d
    with pytest.raises(TapeError, match=r"tape exhausted: draw 0 .* 0 draws"):
        SAMPLER.sample(2, rng=ReplaySource([]))
    replay = ReplaySource([(d, 7)])
    SAMPLER.sample(2, rng=replay)
    with pytest.raises(TapeError, match=r"tape exhausted: draw 1 .* 1 draws"):
        SAMPLER.sample(2, rng=replay)


def test_replay_mismatched_domain() -> None:
    d = SAMPLER.d
    replay = ReplaySource([(d + 1, 1)])
    with pytest.raises(TapeError) as info:
        SAMPLER.sample(2, rng=replay)
    message = str(info.value)
    assert message.startswith("draw 0: ")
    assert f"d = {d + 1}" in message
    assert f"d = {d}" in message
    assert replay.remaining == 1  # the failed call did not consume the entry


@pytest.mark.parametrize("offset", ["zero", "negative", "above"])
def test_replay_out_of_range_recorded_u(offset: str) -> None:
    d = SAMPLER.d
    u = {"zero": 0, "negative": -3, "above": d + 1}[offset]
    with pytest.raises(TapeError, match=r"^draw 0: recorded u = .* is outside \[1, "):
        SAMPLER.sample(2, rng=ReplaySource([(d, u)]))


def test_replay_huge_values_in_messages_are_summarised() -> None:
    d = 2**200 + 1
    with pytest.raises(TapeError) as info:
        ReplaySource([(d, d + 1)]).uniform(d)
    assert "<a 201-bit integer>" in str(info.value)
    assert str(d) not in str(info.value)


def test_assert_exhausted() -> None:
    d = SAMPLER.d
    replay = ReplaySource([(d, 1), (d, 2)])
    with pytest.raises(TapeError, match=r"^2 recorded draws were not used"):
        replay.assert_exhausted()
    SAMPLER.sample(0, rng=replay)
    with pytest.raises(TapeError, match=r"^1 recorded draws were not used"):
        replay.assert_exhausted()
    SAMPLER.sample(0, rng=replay)
    replay.assert_exhausted()
    ReplaySource([]).assert_exhausted()


@pytest.mark.parametrize("entry", [(6, 2.5), (6.5, 3)])
def test_replay_refuses_non_integer_tape_entries(entry: tuple[float, float]) -> None:
    with pytest.raises(OracleError):
        ReplaySource([entry]).uniform(6)  # type: ignore[list-item]


# -- draw: the contract check --------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [0, 7, -1, 2**70, 3.0, 1.0, True, False, None, "3", Fraction(3), np.float64(3)],
    ids=repr,
)
def test_draw_refuses_broken_answers(answer: object) -> None:
    with pytest.raises(OracleError) as info:
        draw(ConstantSource(answer), 6)
    message = str(info.value)
    assert message.startswith(f"ConstantSource.uniform(6) returned {answer!r}; ")
    assert "an int in [1, d]" in message


def test_draw_names_the_source_class_and_summarises_huge_d() -> None:
    class BrokenSource:
        def uniform(self, d: int) -> int:
            return d + 1

    d = 2**200 + 1
    with pytest.raises(OracleError, match=r"^BrokenSource\.uniform\(<a 201-bit integer>\)"):
        draw(BrokenSource(), d)


@pytest.mark.parametrize("answer", [1, 6, 3, np.int64(4), gmpy2.mpz(5), np.uint8(6)], ids=repr)
def test_draw_accepts_integers_in_range(answer: object) -> None:
    u = draw(ConstantSource(answer), 6)
    assert u == answer
    assert type(u) is int


def test_draw_passes_symbolic_draws_of_the_right_domain() -> None:
    symbolic = SimpleNamespace(finitedp_symbolic_domain=6)
    result: object = draw(ConstantSource(symbolic), 6)
    assert result is symbolic
    with pytest.raises(OracleError):
        draw(ConstantSource(symbolic), 7)


def test_mechanism_refuses_a_broken_source() -> None:
    with pytest.raises(OracleError, match=r"^ConstantSource\.uniform"):
        SAMPLER.sample(2, rng=ConstantSource(SAMPLER.d + 1))


# -- draws: batched oracle calls -------------------------------------------------


def test_draws_without_a_bulk_method_is_sequential_calls() -> None:
    from finitedp.oracle import draws

    source = SeededSource(b"x")
    expected = [source.uniform(1000) for _ in range(7)]
    assert draws(SeededSource(b"x"), 1000, 7) == expected


def test_system_uniform_many_maps_bytes_like_uniform(monkeypatch: pytest.MonkeyPatch) -> None:
    from finitedp.oracle import draws

    d = 6
    width = ((d - 1).bit_length() + 64 + 7) // 8  # bitlength(d - 1) + 64 bits, in whole bytes
    limit = (1 << (8 * width)) - (1 << (8 * width)) % d
    blocks = [(limit - 1).to_bytes(width, "big"), limit.to_bytes(width, "big"), bytes(width)]
    feed = iter([b"".join(blocks), (2).to_bytes(width, "big")])
    monkeypatch.setattr(systemsource.os, "urandom", lambda k: next(feed)[:k])
    # limit - 1 is accepted, limit is rejected, 0 maps to 1; the rejected slot is
    # redrawn from a block mapping to 3, so accepting `limit` (it maps to 1) would show.
    assert draws(SystemRandomSource(), d, 3) == [(limit - 1) % d + 1, 1, 3]


def test_system_uniform_rejects_at_the_boundary(monkeypatch: pytest.MonkeyPatch) -> None:
    d = 6
    width = ((d - 1).bit_length() + 64 + 7) // 8
    limit = (1 << (8 * width)) - (1 << (8 * width)) % d
    stream = limit.to_bytes(width, "big") + (2).to_bytes(width, "big")
    monkeypatch.setattr(systemsource.os, "urandom", lambda k: stream.ljust(k, b"\0"))
    assert SystemRandomSource().uniform(d) == 3  # `limit` itself (mapping to 1) is rejected


def test_system_uniform_many_reads_in_bounded_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    # Same bytes, same draws, whatever the chunk size; no read above the chunk.
    import hashlib

    stream = hashlib.shake_256(b"chunks").digest(1 << 16)
    reads: list[int] = []

    def urandom(k: int) -> bytes:
        start = sum(reads)
        reads.append(k)
        return stream[start : start + k]

    monkeypatch.setattr(systemsource.os, "urandom", urandom)
    whole = SystemRandomSource().uniform_many(10**6, 500)
    reads.clear()
    monkeypatch.setattr(systemsource, "_CHUNK_BYTES", 100)
    chunked = SystemRandomSource().uniform_many(10**6, 500)
    assert chunked == whole and max(reads) <= 100 and len(reads) >= 500 * 11 // 100


def test_default_source_is_kept_per_thread_and_forgotten_by_a_forked_child() -> None:
    import os
    import threading

    from finitedp.oracle import ChaChaSource, default_source

    mine = default_source()
    assert isinstance(mine, ChaChaSource) and default_source() is mine
    seen: list[object] = []
    worker = threading.Thread(target=lambda: seen.append(default_source()))
    worker.start()
    worker.join()
    assert seen and seen[0] is not mine  # threads never share a buffer
    if not hasattr(os, "fork"):
        return
    mine.uniform(2**64)  # the buffer now holds unread bytes
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its inherited buffer must be gone
        try:
            child = default_source()
            ok = child is mine and mine._buffer == b"" and mine._encryptor is None
            os.write(writer, b"1" if ok else b"0")
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    assert os.read(reader, 1) == b"1"
    os.close(reader)
    os.close(writer)


def test_chacha_source_is_the_system_mapping_on_the_rfc_8439_keystream(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With an all-zero key and nonce the keystream is RFC 8439's test vector A.1 #1."""
    from finitedp import oracle

    monkeypatch.setattr(systemsource.os, "urandom", lambda n: bytes(n))
    source = oracle.ChaChaSource()
    # uniform(2^64): W = 16 bytes, no rejection; x mod 2^64 is the low 8 of the first 16.
    assert source.uniform(2**64) - 1 == 0x405D6AE55386BD28  # bytes 76b8e0ad...5386bd28


def test_chacha_source_rekeys_from_the_os(monkeypatch: pytest.MonkeyPatch) -> None:
    from finitedp import oracle

    reads: list[int] = []

    def urandom(n: int) -> bytes:
        reads.append(n)
        return bytes(n)

    monkeypatch.setattr(systemsource.os, "urandom", urandom)
    monkeypatch.setattr(systemsource, "RESEED_BYTES", 1 << 17)
    source = oracle.ChaChaSource()
    for _ in range(3):
        source.uniform(2**64)  # one 64 KiB block each time the buffer runs out
        source._buffer, source._position = b"", 0
    assert reads == [32, 12, 32, 12]  # keyed, then re-keyed once 2^17 bytes were used


def test_chacha_source_block_counter_starts_at_zero(monkeypatch: pytest.MonkeyPatch) -> None:
    """A random 32-bit counter could overflow before the next key (1 in 256 keys did)."""
    from finitedp import oracle

    monkeypatch.setattr(systemsource.os, "urandom", lambda n: b"\xff" * n)
    source = oracle.ChaChaSource()
    big = 2 ** (8 * 100_000)  # 100 KB a draw: well past a counter started at 2^32 - 1
    for _ in range(3):
        assert 1 <= source.uniform(big) <= big
    assert source._left == systemsource.RESEED_BYTES - 3 * 100_008


class Fixed(SystemRandomSource):
    """The system source's mapping on given bytes; ``at`` counts the bytes read."""

    def __init__(self, data: bytes) -> None:
        super().__init__()
        self.data, self.at = data, 0

    def _bytes(self, count: int) -> bytes:
        self.at += count
        return self.data[self.at - count : self.at]


@pytest.mark.parametrize("d", [(1 << 8594) + 12345, (1 << 5000) - 1, 3**4000, (1 << 2049) + 7])
def test_uniform_many_long_domains_reduce_exactly_as_mod(
    d: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The quotient-estimate reduction of long draws returns exactly x mod d + 1."""
    import random as stdlib_random

    data = stdlib_random.Random(d).randbytes(600 * ((d.bit_length() + 72) // 8))
    fast = Fixed(data).uniform_many(d, 500)
    monkeypatch.setattr(systemsource, "_LONG_DRAW_SHIFT", 10**9)  # force the plain %
    assert fast == Fixed(data).uniform_many(d, 500)


@given(
    st.integers(min_value=-(10**30), max_value=10**30),
    st.integers(min_value=1, max_value=10**30),
)
def test_uniform_value_is_the_inverse_cdf_search(low: int, width: int) -> None:
    """``low + u - 1`` for a plain draw equals the comparison-only search the checker uses."""
    from finitedp.oracle import uniform_value

    class Fixed:
        def __init__(self, u: int) -> None:
            self.u = u

        def uniform(self, d: int) -> int:
            return self.u

    for u in (1, width, (width + 1) // 2):
        got = uniform_value(Fixed(u), low, low + width - 1)  # type: ignore[arg-type]
        lo, hi = 0, width - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if mid + 1 >= u:
                hi = mid
            else:
                lo = mid + 1
        assert got == low + lo


@pytest.mark.parametrize("d", [6, 2**64 - 59, (1 << 866) + 12345, 3**500])
@pytest.mark.parametrize("chunk", [1, 40, 1 << 22])
def test_discard_many_consumes_what_uniform_many_consumes(
    d: int, chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``discard_many`` reads the bytes ``uniform_many`` reads and rejects the same
    rounds: words with their top 8 bytes all 0xff on both sides of ``limit`` (the only
    ones compared in full), then random words; the next draw after either is the same."""
    import random as stdlib_random

    monkeypatch.setattr(systemsource, "_CHUNK_BYTES", chunk)
    width = ((d - 1).bit_length() + 64 + 7) // 8
    limit = (1 << (8 * width)) - (1 << (8 * width)) % d
    edges = [
        limit - 1,
        limit,
        limit + 1,
        (1 << (8 * width)) - 1,
        (1 << (8 * width)) - (1 << (8 * width - 64)),
    ]
    special = b"".join(x.to_bytes(width, "big") for x in edges if x < 1 << (8 * width))
    data = special * 3 + stdlib_random.Random(d).randbytes(300 * width)
    for count in (1, 5, 17, 200):
        kept, dropped = Fixed(data), Fixed(data)
        values = kept.uniform_many(d, count)
        dropped.discard_many(d, count)
        assert len(values) == count and dropped.at == kept.at
        assert dropped.uniform(d) == kept.uniform(d)


def test_discard_calls_a_plain_source_once_per_draw() -> None:
    from finitedp.oracle import discard

    recorder = RecordingSource(SeededSource(b"pad"))
    discard(recorder, 7, 5)
    discard(recorder, 7, 0)
    assert [d for d, _ in recorder.tape] == [7] * 5


@pytest.mark.parametrize(
    ("top", "count"),
    [(20, 19), (2**64 - 3, 300), ((1 << 80) + 40, 90), (2**64 + 1, 5), (3**200, 17)],
)
@pytest.mark.parametrize("chunk", [1, 40, 1 << 22])
def test_discard_descending_consumes_what_single_calls_consume(
    top: int, count: int, chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``discard_descending(top, count)`` reads the words that ``uniform_many(top - i, 1)``
    for ``i = 0..count-1`` read, rejecting the same rounds (words with their top 8 bytes
    all 0xff just below and at each domain's limit, then random words), across a change of
    byte width (``2^64 + 1`` down to ``2^64 - 3``)."""
    import random as stdlib_random

    monkeypatch.setattr(systemsource, "_CHUNK_BYTES", chunk)
    words = []
    for d in (top, top - 1, max(2, top - count + 1)):
        width = ((d - 1).bit_length() + 64 + 7) // 8
        limit = (1 << (8 * width)) - (1 << (8 * width)) % d
        edges = (limit - 1, limit, (1 << (8 * width)) - 1)
        words += [x.to_bytes(width, "big") for x in edges if x < 1 << (8 * width)]
    data = b"".join(words) * 2 + stdlib_random.Random(top).randbytes(40 * count + 4000)
    kept, dropped = Fixed(data), Fixed(data)
    for i in range(count):
        kept.uniform_many(top - i, 1)
    dropped.discard_descending(top, count)
    assert dropped.at == kept.at
    assert dropped.uniform(7) == kept.uniform(7)


def test_discard_descending_calls_a_plain_source_once_per_draw() -> None:
    from finitedp.oracle import discard_descending

    recorder = RecordingSource(SeededSource(b"pad"))
    discard_descending(recorder, 9, 4)
    assert [d for d, _ in recorder.tape] == [9, 8, 7, 6]


@pytest.mark.parametrize(
    "d", [1, 2, 6, 255, 1 << 32, (1 << 32) + 1, 3**20, 5**27, (1 << 64) - 1, 1 << 64, 10**19]
)
def test_short_domains_in_bulk_are_the_mapping_word_by_word(d: int) -> None:
    """``uniform_many`` for ``d <= 2^64`` maps each word in numpy: the values of
    ``x mod d + 1`` for the accepted words in order, with words at ``limit - 1``,
    ``limit`` and ``2^(8W) - 1`` placed among random ones (the last two rejected)."""
    import random as stdlib_random

    width = ((d - 1).bit_length() + 64 + 7) // 8
    span = 1 << (8 * width)
    limit = span - span % d
    picks = stdlib_random.Random(d)
    words = [picks.getrandbits(8 * width) for _ in range(700)]
    for at, x in ((3, limit - 1), (10, limit), (11, span - 1), (400, limit), (401, 0)):
        words[at] = min(x, span - 1)
    data = b"".join(x.to_bytes(width, "big") for x in words)
    expected = [x % d + 1 for x in words if x < limit][:600]
    source = Fixed(data)
    assert source.uniform_many(d, 600) == expected
    offsets = Fixed(data)
    assert offsets.uniform_many_offsets(d, 600).tolist() == [u - 1 for u in expected]
    assert offsets.at == source.at
    last = [i for i, x in enumerate(words) if x < limit][599]
    assert source.at == (last + 1) * width  # one more word read per rejected one


@settings(max_examples=300, deadline=None)
@given(
    st.integers(min_value=(1 << 32) + 1, max_value=(1 << 64) - 1),
    st.lists(st.tuples(st.integers(0, (1 << 64) - 1), st.integers(0, (1 << 64) - 1)), min_size=1),
)
def test_wide_mod_is_the_remainder_of_128_by_64_bits(d: int, pairs: list[tuple[int, int]]) -> None:
    """Algorithm D on 32-bit digits in ``uint64`` arrays: Python's remainder, also at the
    corrections' edges (``high = d - 1``, all-ones words, divisors next to a power of 2)."""
    import numpy as np

    from finitedp.shortdraws import wide_mod

    edges = [(d - 1, (1 << 64) - 1), (d - 1, 0), (0, d - 1), (0, (1 << 64) - 1)]
    rows = [(h % d, low) for h, low in pairs] + edges
    high = np.array([h for h, _ in rows], dtype=np.uint64)
    low = np.array([x for _, x in rows], dtype=np.uint64)
    assert wide_mod(high, low, d).tolist() == [((h << 64) | x) % d for h, x in rows]


@pytest.mark.parametrize("d", [(1 << 32) + 1, (1 << 33) - 1, (1 << 63) - 25, (1 << 63) + 1, 3**40])
def test_wide_mod_at_many_random_words(d: int) -> None:
    import numpy as np

    from finitedp.shortdraws import wide_mod

    rng = np.random.default_rng(d % 1000)
    high = rng.integers(0, 1 << 63, size=20_000, dtype=np.uint64) % np.uint64(d)
    low = rng.integers(0, 1 << 63, size=20_000, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    want = [((h << 64) | x) % d for h, x in zip(high.tolist(), low.tolist(), strict=True)]
    assert wide_mod(high, low, d).tolist() == want


def test_seeded_offsets_are_the_draws_less_one_and_2_to_64_does_not_wrap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``uniform_many_offsets`` of the seeded stream is ``uniform_many`` less one, byte for
    byte; at ``d = 2^64`` an all-ones word is ``u = 2^64``, not 0 (numpy would wrap)."""
    for d in (1, 6, 1000, (1 << 32) + 7, 5**27, 1 << 64):
        assert SeededSource(b"o").uniform_many_offsets(d, 300).tolist() == [
            u - 1 for u in SeededSource(b"o").uniform_many(d, 300)
        ]
    monkeypatch.setattr(SeededSource, "_squeeze", lambda self, count: b"\xff" * count)
    assert SeededSource(b"o").uniform_many(1 << 64, 40) == [1 << 64] * 40
    assert SeededSource(b"o").uniform_many_offsets(1 << 64, 40).tolist() == [(1 << 64) - 1] * 40
    monkeypatch.undo()
    with pytest.raises(ParameterError, match="at most 2\\^64"):
        SeededSource(b"o").uniform_many_offsets((1 << 64) + 1, 1)
