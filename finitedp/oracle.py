"""The randomness oracle ``uniform(d)`` and the sources that implement it.

Paper: BV Section 2.4 (the model of computation: an oracle that, given
``d``, returns a uniformly random integer in ``[d]_+ = {1, ..., d}``).

Every mechanism in finitedp takes its randomness from one explicit ``rng``
argument implementing :class:`RandomSource`; nothing reads global random
state.  Sources provided here:

* :class:`ChaChaSource` -- the default: SPEC.md's system mapping on a ChaCha20
  keystream keyed from the OS; :class:`SystemRandomSource` -- the same mapping
  on ``os.urandom`` (both in :mod:`finitedp.systemsource`, re-exported here).
* :class:`SeededSource` -- a deterministic stream (SHAKE-256 of a seed),
  specified exactly in ``SPEC.md`` so other languages can reproduce it
  (in :mod:`finitedp.seededsource`, re-exported here).
  **Not for production**: anyone who knows the seed knows every draw.
* :class:`RecordingSource` -- wraps another source and keeps the tape of
  ``(d, u)`` pairs.
* :class:`ReplaySource` -- answers from a tape and fails loudly when the tape
  does not fit the calls made.

Exact uniform sampling and time.  A uniform integer in ``[1, d]`` cannot be
produced from a bounded number of fair coin flips unless ``d`` is a power of
two (every outcome of ``r`` flips has probability ``2^-r``, and ``1/d`` is not
a sum of such terms otherwise).  The sources here use rejection.
:class:`SeededSource` draws ``k = bitlength(d - 1)`` bits and accepts a value
below ``d``: a round succeeds with probability ``d / 2^k > 1/2``, so more than
``r`` rounds happen with probability below ``2^-r``.
:class:`SystemRandomSource` draws ``k + 64`` (rounded up to whole bytes) bits
``x`` and accepts ``x`` below the largest multiple of ``d`` that fits,
returning ``x mod d + 1``: a round fails with probability below ``2^-64``.
Neither has a worst-case bound.  This is the one loop in finitedp
whose length depends on random outcomes; BV treat the oracle as a primitive
of the machine for the same reason.  Its running time depends only on ``d``
(public) and on the rejected values, which are independent of the accepted
draw, so it reveals nothing about the data or the output.
"""

from __future__ import annotations

import numbers
import threading
from collections.abc import Iterable, Sequence
from typing import Any, Protocol, runtime_checkable

from .errors import OracleError, TapeError
from .params import short_int
from .prefixdraw import PrefixBatch, PrefixDraw
from .seededsource import SeededSource
from .systemsource import RESEED_BYTES, ChaChaSource, SystemRandomSource, check_domain

__all__ = [
    "RESEED_BYTES",
    "ChaChaSource",
    "CountingSource",
    "RandomSource",
    "RecordingSource",
    "ReplaySource",
    "SeededSource",
    "SystemRandomSource",
    "default_source",
    "discard",
    "discard_descending",
    "draw",
    "draw_compared",
    "draw_offsets",
    "draws",
    "draws_shifted",
    "uniform_value",
]


@runtime_checkable
class RandomSource(Protocol):
    """The oracle of BV Section 2.4.

    ``uniform(d)`` must return a uniformly random ``int`` in ``[1, d]`` for
    every positive ``int`` ``d``, independently of all previous calls.
    """

    def uniform(self, d: int) -> int:
        """Return a uniform integer in ``[1, d]``."""
        ...


class RecordingSource:
    """Wraps a source and records every ``(d, u)`` pair it hands out."""

    __slots__ = ("_inner", "_tape")

    def __init__(self, inner: RandomSource | None = None) -> None:
        self._inner = default_source() if inner is None else inner
        self._tape: list[tuple[int, int]] = []

    @property
    def tape(self) -> tuple[tuple[int, int], ...]:
        """The draws so far, in order, as ``(d, u)`` pairs."""
        return tuple(self._tape)

    def uniform(self, d: int) -> int:
        """Draw from the wrapped source and record the pair."""
        u = draw(self._inner, d)
        self._tape.append((d, u))
        return u


class ReplaySource:
    """Answers ``uniform(d)`` from a tape of ``(d, u)`` pairs, in order.

    A call whose ``d`` differs from the tape's, a call past the end of the tape,
    or a recorded ``u`` outside ``[1, d]`` raises :class:`~finitedp.errors.TapeError`.
    """

    __slots__ = ("_position", "_tape")

    def __init__(self, tape: Iterable[tuple[int, int]]) -> None:
        self._tape: Sequence[tuple[int, int]] = tuple(_tape_entry(i, e) for i, e in enumerate(tape))
        self._position = 0

    @property
    def remaining(self) -> int:
        """How many recorded draws have not been used yet."""
        return len(self._tape) - self._position

    def uniform(self, d: int) -> int:
        """Return the next recorded draw after checking that its domain matches."""
        d = check_domain(d)
        i = self._position
        if i >= len(self._tape):
            raise TapeError(
                f"tape exhausted: draw {i} asked for [1, {short_int(d)}] but the tape "
                f"holds only {len(self._tape)} draws"
            )
        recorded_d, u = self._tape[i]
        if recorded_d != d:
            raise TapeError(
                f"draw {i}: the tape was recorded with d = {short_int(recorded_d)} "
                f"but the mechanism asked for d = {short_int(d)}"
            )
        if not 1 <= u <= d:
            raise TapeError(f"draw {i}: recorded u = {short_int(u)} is outside [1, {short_int(d)}]")
        self._position = i + 1
        return u

    def assert_exhausted(self) -> None:
        """Raise :class:`~finitedp.errors.TapeError` unless every draw was used."""
        if self.remaining:
            raise TapeError(f"{self.remaining} recorded draws were not used")


def _tape_entry(i: int, entry: object) -> tuple[int, int]:
    """A tape entry ``(d, u)`` of two ints; anything else is a corrupt tape."""
    pair = tuple(entry) if isinstance(entry, tuple | list) else ()
    if len(pair) != 2:
        raise TapeError(f"tape entry {i}: got {entry!r}; expected a pair (d, u)")
    for value in pair:
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise TapeError(f"tape entry {i}: got {entry!r}; d and u must be ints")
    return int(pair[0]), int(pair[1])


_DEFAULT = threading.local()


def default_source() -> RandomSource:
    """The source used when a mechanism is given ``rng=None``: a :class:`ChaChaSource`.

    One per thread, made on first use and kept, so a call does not pay for a
    fresh 64 KiB read (it used to cost 100 times an explicit source).  Per
    thread, because a buffer shared between threads could hand the same bytes
    to two draws; a forked child drops the inherited buffer and key (see
    :class:`ChaChaSource`), so parent and child never share bytes.

    >>> default_source() is default_source()
    True
    """
    source: ChaChaSource | None = getattr(_DEFAULT, "source", None)
    if source is None:
        source = _DEFAULT.source = ChaChaSource()
    return source


def draws(rng: RandomSource, d: int, count: int) -> list[int]:
    """``count`` oracle calls ``uniform(d)`` in a row, as a list in call order.

    A source may batch them through a ``uniform_many(d, count)`` method, which
    must be distributed exactly like ``count`` separate calls; the other sources
    (seeded, recording, replaying, the checker's) are called one draw at a time.
    (The seeded and system sources also give draws of ``d = 2^(64 w)`` as numpy words,
    ``uniform_many_words``, for :func:`finitedp.counting.convolvedbatch.draw_fields`.)
    """
    bulk = getattr(rng, "uniform_many", None)
    if bulk is None:
        return [draw(rng, d) for _ in range(count)]
    out = list(bulk(d, count))
    if len(out) != count or (out and not (min(out) >= 1 and max(out) <= d)):
        raise OracleError(f"{type(rng).__name__}.uniform_many broke the uniform(d) contract")
    return out


def draw_offsets(rng: RandomSource, d: int, count: int) -> Any:
    """``u - 1`` of ``count`` calls ``uniform(d)`` (``d <= 2^64``) as a ``uint64`` array,
    from a source that makes them so (``uniform_many_offsets``: the system and seeded
    sources, the same bytes and values as the calls one by one); ``None`` from any other
    source, which is not called (the caller makes the calls through :func:`draws`, so a
    tape records each)."""
    bulk = getattr(rng, "uniform_many_offsets", None)
    if bulk is None:
        return None
    out = bulk(d, count)
    if len(out) != count or (count and int(out.max()) >= d):
        raise OracleError(
            f"{type(rng).__name__}.uniform_many_offsets broke the uniform(d) contract"
        )
    return out


def discard(rng: RandomSource, d: int, count: int) -> None:
    """``count`` oracle calls ``uniform(d)`` whose values are discarded (padding).

    A source with a ``discard_many(d, count)`` method (the system sources) consumes
    what ``uniform_many(d, count)`` would without making the values; any other source
    is called ``count`` times, one draw at a time, so a tape records every call.
    """
    bulk = getattr(rng, "discard_many", None)
    if bulk is not None:
        bulk(d, count)
        return
    for _ in range(count):
        draw(rng, d)


def discard_descending(rng: RandomSource, top: int, count: int) -> None:
    """The calls ``uniform(top)``, ``uniform(top - 1)``, ..., ``uniform(top - count + 1)``,
    values discarded (a shuffle's padding).

    A source with a ``discard_descending(top, count)`` method (the system sources)
    consumes what those calls would without making the values; any other source is
    called once per draw, so a tape records every call.
    """
    bulk = getattr(rng, "discard_descending", None)
    if bulk is not None:
        bulk(top, count)
        return
    for i in range(count):
        draw(rng, top - i)


def draws_shifted(rng: RandomSource, d: int, count: int, shift: int) -> list[int] | PrefixBatch:
    """:func:`draws` for a caller that only compares the draws with integers.

    A source with a ``uniform_many_shifted(d, count, shift)`` method (the system
    sources) may answer with a :class:`~finitedp.prefixdraw.PrefixBatch`: the same
    bytes and values, each draw known as ``(u - 1) >> shift`` where its first bytes
    decide it.  Any other source answers through :func:`draws`.
    """
    shifted = getattr(rng, "uniform_many_shifted", None)
    if shifted is None:
        return draws(rng, d, count)
    batch: list[int] | PrefixBatch = shifted(d, count, shift)
    if len(batch) != count:
        raise OracleError(
            f"{type(rng).__name__}.uniform_many_shifted broke the uniform(d) contract"
        )
    return batch


def draw(rng: RandomSource, d: int) -> int:
    """Call the oracle and check that the answer keeps the ``uniform(d)`` contract.

    Symbolic draws made by :mod:`finitedp.checker` pass through unchanged.

    Raises:
        OracleError: the source returned something other than an int in ``[1, d]``.
    """
    u = rng.uniform(d)
    if type(u) is int:
        if 1 <= u <= d:
            return u
    elif getattr(u, "finitedp_symbolic_domain", None) == d:
        return u
    elif isinstance(u, numbers.Integral) and not isinstance(u, bool) and 1 <= u <= d:
        return int(u)
    raise OracleError(
        f"{type(rng).__name__}.uniform({short_int(d)}) returned {u!r}; "
        f"a source must return an int in [1, d]"
    )


def draw_compared(rng: RandomSource, d: int) -> int | PrefixDraw:
    """A draw ``uniform(d)`` that the caller only compares with integers.

    A source with a ``uniform_compared(d)`` method (the system sources) may answer
    with a :class:`~finitedp.prefixdraw.PrefixDraw`, whose value is computed only
    if a comparison needs it; any other source is called through :func:`draw`.
    """
    compared = getattr(rng, "uniform_compared", None)
    return draw(rng, d) if compared is None else compared(d)


def uniform_value(rng: RandomSource, low: int, high: int) -> int:
    """A uniform integer in ``[low, high]`` from one draw ``u`` in ``[1, high - low + 1]``.

    The result is ``low`` plus the least ``z`` with ``z + 1 >= u`` (inverse-CDF
    sampling, BV Lemma 2.13), that is ``low + u - 1``; a symbolic draw of
    :mod:`finitedp.checker` is only compared, by a binary search for that ``z``.
    """
    u = draw(rng, high - low + 1)
    if type(u) is int:  # the search's answer, without log2(high - low) big comparisons
        return low + u - 1
    lo, hi = 0, high - low
    while lo < hi:
        mid = (lo + hi) // 2
        if mid + 1 >= u:
            hi = mid
        else:
            lo = mid + 1
    return low + lo


class CountingSource:
    """Forwards ``uniform(d)`` to another source and counts the calls.

    Mechanisms whose number of draws depends on outcomes use it to top the
    calls up to a public number.
    """

    __slots__ = ("calls", "inner")

    def __init__(self, inner: RandomSource) -> None:
        self.inner = inner
        self.calls = 0

    def uniform(self, d: int) -> int:
        self.calls += 1
        return draw(self.inner, d)

    def uniform_compared(self, d: int) -> int | PrefixDraw:
        """As :func:`draw_compared` on the wrapped source, counted."""
        self.calls += 1
        return draw_compared(self.inner, d)
