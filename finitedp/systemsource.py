"""The system sources: the OS CSPRNG and a ChaCha20 keystream keyed from it.

Paper: BV Section 2.4 (the oracle ``uniform(d)``); ``SPEC.md``, "System source"
(the mapping from bytes to ``[1, d]``) and its ChaCha20 paragraph.

:class:`SystemRandomSource` reads ``os.urandom``; :class:`ChaChaSource`, the
default source of every mechanism (:func:`finitedp.oracle.default_source`), maps
the bytes of a ChaCha20 keystream the same way.  Both answer ``uniform(d)``,
``uniform_many(d, count)`` (batched, the same law), and for callers that only
compare draws with integers ``uniform_compared(d)`` and ``uniform_many_shifted(d,
count, shift)`` (the same bytes and values, decided from a prefix of each draw
where it can be: :mod:`finitedp.prefixdraw`).  Re-exported by :mod:`finitedp.oracle`, which
describes the rejection loop and the other sources.
"""

from __future__ import annotations

import os
import weakref
from typing import Any

from .errors import OracleError, ParameterError
from .prefixdraw import PrefixBatch, PrefixDraw, PrefixPlan
from .shortdraws import all_ones_heads, short_offsets

__all__ = ["RESEED_BYTES", "ChaChaSource", "SystemRandomSource", "check_domain"]


def check_domain(d: object) -> int:
    """``d`` if it is an int ``>= 1`` (a valid oracle domain); an OracleError otherwise."""
    if isinstance(d, bool) or not isinstance(d, int) or d < 1:
        raise OracleError(f"d: got {d!r}; the oracle draws from [1, d] for an int d >= 1")
    return d


_BUFFER_BYTES = 1 << 16
#: Above ``2^(this + 128)``, :meth:`SystemRandomSource.uniform_many` reduces by a quotient
#: estimate instead of ``%`` (faster from a few thousand bits on, the same values).
_LONG_DRAW_SHIFT = 1920
#: The largest single read of :meth:`SystemRandomSource.uniform_many`.
_CHUNK_BYTES = 1 << 22
#: Zero bytes to encrypt: a read of up to :data:`_CHUNK_BYTES` takes a view of them.
_ZEROS = bytes(_CHUNK_BYTES)
_LIVE_SYSTEM_SOURCES: weakref.WeakSet[SystemRandomSource] = weakref.WeakSet()


def _forget_buffers_after_fork() -> None:
    # A forked child must not replay the parent's unread random bytes.
    for source in list(_LIVE_SYSTEM_SOURCES):
        source._discard()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_buffers_after_fork)


class SystemRandomSource:
    """The operating system's CSPRNG (``os.urandom``), with exact rejection sampling.

    :class:`ChaChaSource`, the default, maps the bytes of a keystream the same
    way.  Bytes are read from the OS 64 KiB at a time (one system call per draw
    would dominate a FastSample draw); the buffer is dropped in a forked child,
    and bytes are never reused.

    >>> 1 <= SystemRandomSource().uniform(6) <= 6
    True
    """

    __slots__ = ("__weakref__", "_buffer", "_last", "_position", "_prefix")

    def __init__(self) -> None:
        self._buffer = b""
        self._position = 0
        # A valid plan (d = 1) so that no domain can match it without being checked.
        self._last: tuple[int, int, int] = (1, 8, 1 << 64)
        self._prefix = PrefixPlan(1, 8, 1 << 64)
        _LIVE_SYSTEM_SOURCES.add(self)

    def _discard(self) -> None:
        self._buffer = b""
        self._position = 0

    def _bytes(self, count: int) -> bytes:
        """``count`` fresh random bytes: from the OS (a subclass may draw them elsewhere)."""
        return os.urandom(count)

    def _plan(self, d: int) -> tuple[int, int, int]:
        # Draw 64 spare bits and keep the largest multiple of d below 2^bits: a
        # round is then rejected with probability below 2^-64, not up to 1/2.
        d = check_domain(d)
        width = ((d - 1).bit_length() + 64 + 7) // 8
        span = 1 << (8 * width)
        self._last = (d, width, span - span % d)
        return self._last

    def uniform(self, d: int) -> int:
        """Return a uniform integer in ``[1, d]`` (rejection sampling, see the module notes)."""
        last_d, width, limit = self._last
        if d != last_d or type(d) is not int:
            _, width, limit = self._plan(d)
        while True:
            end = self._position + width
            if end > len(self._buffer):
                self._buffer = self._bytes(max(width, _BUFFER_BYTES))
                self._position, end = 0, width
            x = int.from_bytes(self._buffer[self._position : end], "big")
            self._position = end
            if x < limit:
                return x % d + 1

    def uniform_compared(self, d: int) -> int | PrefixDraw:
        """``uniform(d)`` for a caller that only compares the draw with integers.

        It reads the bytes ``uniform(d)`` reads and accepts the same rounds; for a long
        ``d`` the value is computed only if a comparison needs it
        (:mod:`finitedp.prefixdraw`), so it is the value ``uniform(d)`` returns.
        """
        plan = self._prefix
        if d != plan.d or type(d) is not int:
            _, width, limit = self._plan(d)
            plan = self._prefix = PrefixPlan(d, width, limit)
        if not plan.lazy:
            return self.uniform(d)
        width = plan.width
        while True:
            end = self._position + width
            if end > len(self._buffer):
                self._buffer = self._bytes(max(width, _BUFFER_BYTES))
                self._position, end = 0, width
            data = memoryview(self._buffer)[self._position : end]
            self._position = end
            if plan.accepts(data):
                return PrefixDraw(data, plan)

    def uniform_many_shifted(self, d: int, count: int, shift: int) -> list[int] | PrefixBatch:
        """``uniform_many(d, count)`` for a caller that only compares the draws with integers.

        The same reads, the same accepted rounds, the same values; for ``shift >= 128``
        each draw comes as ``(u - 1) >> shift`` from its first bytes where they decide it
        (:class:`~finitedp.prefixdraw.PrefixBatch`), and ``x mod d`` is not computed.
        """
        if shift < 128:
            return self.uniform_many(d, count)
        _, width, limit = self._plan(d)
        batch = PrefixBatch(PrefixPlan(d, width, limit), shift)
        while len(batch) < count:
            batch.add_block(self._read_words(width, count - len(batch)))
        return batch

    def _read_words(self, width: int, wanted: int) -> bytes:
        """The next read of the batched forms: ``wanted`` words of ``width`` bytes, at
        most :data:`_CHUNK_BYTES` (or one word) at a time, outside the 64 KiB buffer.
        One rule for both batched forms, so that they consume the same bytes."""
        return self._bytes(width * min(max(1, _CHUNK_BYTES // width), wanted))

    def uniform_many(self, d: int, count: int) -> list[int]:
        """``count`` independent draws ``uniform(d)``, read from the OS in bounded chunks.

        Each read is at most :data:`_CHUNK_BYTES` (or one draw, if larger), so the
        memory is that of the draws returned, not ``width * count`` bytes at once.
        """
        _, width, limit = self._plan(d)
        # For long domains x mod d is the costliest step; x < 2^(k+72) has a quotient
        # below 2^73, estimated from the top 128 bits of d (never above the true one)
        # and corrected by a subtraction or two: the same value, about 2x faster.
        shift = max(0, (d - 1).bit_length() - 128)
        top = (d >> shift) + 1
        out: list[int] = []
        while len(out) < count:
            block = self._read_words(width, count - len(out))
            if width <= 16:  # d <= 2^64: the words in numpy, no Python loop per draw
                found = short_offsets(block, d, width, limit)
                out.extend(
                    [v + 1 for v in found.tolist()] if d == 1 << 64 else (found + 1).tolist()
                )
                continue
            for start in range(0, len(block), width):
                x = int.from_bytes(block[start : start + width], "big")
                if x >= limit:
                    continue
                if shift < _LONG_DRAW_SHIFT:
                    out.append(x % d + 1)
                    continue
                r = x - ((x >> shift) // top) * d
                while r >= d:
                    r -= d
                out.append(r + 1)
        return out

    def uniform_many_offsets(self, d: int, count: int) -> Any:
        """``uniform_many(d, count)`` for ``d <= 2^64``, each draw as ``u - 1`` in a
        ``uint64`` array: the same reads, the same rounds, the same values.

        Raises:
            ParameterError: ``d`` above ``2^64``.
        """
        import numpy

        if check_domain(d) > 1 << 64:
            raise ParameterError(f"d: got a {d.bit_length()}-bit number; at most 2^64")
        _, width, limit = self._plan(d)
        parts, got = [], 0
        while got < count:
            found = short_offsets(self._read_words(width, count - got), d, width, limit)
            parts.append(found)
            got += len(found)
        return numpy.concatenate(parts) if parts else numpy.zeros(0, dtype=numpy.uint64)

    def uniform_many_words(self, d: int, count: int) -> Any:
        """``uniform_many(d, count)`` for ``d = 2^(64 w)``: each draw's ``u - 1`` as ``w``
        64-bit words, least significant first (a ``count x w`` ``uint64`` array).

        The same reads and values: a word of ``8 w + 8`` bytes is never rejected (``d``
        divides ``256^(8 w + 8)``) and ``x mod d`` is its last ``8 w`` bytes, so numpy
        reverses those bytes instead of making a Python int per draw.

        Raises:
            ParameterError: ``d`` is not a power of ``2^64``.
        """
        import numpy

        words = (d.bit_length() - 1) // 64
        if words < 1 or d != 1 << (64 * words):
            raise ParameterError(f"d: got a {d.bit_length()}-bit number; a power of 2^64 is needed")
        _, width, _ = self._plan(d)
        parts, got = [], 0
        while got < count:
            block = self._read_words(width, count - got)
            rows = numpy.frombuffer(block, dtype=numpy.uint8).reshape(-1, width)
            parts.append(rows[:, width - 8 * words :][:, ::-1])  # x mod d, little-endian
            got += len(rows)
        if not parts:
            return numpy.zeros((0, words), dtype="<u8")
        data = numpy.ascontiguousarray(numpy.concatenate(parts))
        return data.view("<u8").reshape(count, words)

    def discard_many(self, d: int, count: int) -> None:
        """Make ``count`` calls ``uniform(d)`` whose values nobody reads (padding).

        It reads exactly the bytes ``uniform_many(d, count)`` reads and rejects the
        same rounds, so the randomness consumed is the same; only the values are not
        made.  A word of ``W`` bytes is accepted iff it is below ``limit = 256^W - r``
        with ``r = 256^W mod d < d < 256^(W - 8)``: the top 8 bytes of ``limit`` are
        all ``0xff``, so a word whose top 8 bytes are not all ``0xff`` is accepted,
        and only the others (probability ``2^-64`` each) are compared in full.
        """
        import numpy

        _, width, limit = self._plan(d)
        accepted = 0
        while accepted < count:
            block = self._read_words(width, count - accepted)
            words = numpy.frombuffer(block, dtype=numpy.uint8).reshape(-1, width)
            rows = len(words)
            for i in all_ones_heads(words).tolist():
                if int.from_bytes(block[i * width : (i + 1) * width], "big") >= limit:
                    rows -= 1
            accepted += rows

    def discard_descending(self, top: int, count: int) -> None:
        """The calls ``uniform(top)``, ``uniform(top - 1)``, ..., ``uniform(top - count + 1)``
        (a shuffle's padding), values unread: the bytes and rounds of those calls made one
        by one with :meth:`uniform_many`, as :meth:`discard_many` does for one domain.

        Each call's word is accepted below its own ``limit``; as in
        :meth:`discard_many`, only words whose top 8 bytes are all ``0xff`` can be
        rejected, so only those are compared, each against the domain of the call it
        answers (a rejection moves the later words to the next call).
        """
        import numpy

        done = 0
        while done < count:  # one pass per byte width of the domains
            d = top - done
            _, width, _ = self._plan(d)
            # Domains of this width are those above 2^(8 width - 72) (bits(d - 1) >= 8 width - 71).
            same = min(count - done, d - ((1 << (8 * width - 72)) if width >= 9 else 0))
            accepted = 0
            while accepted < same:
                block = self._read_words(width, same - accepted)
                words = numpy.frombuffer(block, dtype=numpy.uint8).reshape(-1, width)
                rejected = 0
                for row in all_ones_heads(words).tolist():
                    span, domain = 1 << (8 * width), d - accepted - row + rejected
                    word = int.from_bytes(block[row * width : (row + 1) * width], "big")
                    if word >= span - span % domain:
                        rejected += 1
                accepted += len(words) - rejected
            done += same

    def __repr__(self) -> str:
        return "SystemRandomSource()"


#: A :class:`ChaChaSource` draws a new key from the OS after this many bytes.
RESEED_BYTES = 1 << 30


class ChaChaSource(SystemRandomSource):
    """The system source's mapping on a ChaCha20 keystream keyed from the OS: the default.

    A deterministic random bit generator: 32 key bytes and a 12-byte nonce from
    ``os.urandom`` (the block counter starting at 0) key a ChaCha20 keystream
    (``cryptography``'s, which is OpenSSL's), and bytes are read from it exactly
    as :class:`SystemRandomSource` reads the OS (``SPEC.md``, "System source":
    same bytes-to-integer mapping, same rejection).  A new key is drawn from the
    OS every :data:`RESEED_BYTES` bytes, and a forked child drops its key with its
    buffer, so parent and child never share a keystream.  Reading the OS costs
    about 2.6 ns a byte on a 2-core machine, the keystream under 1 ns: at
    eps = 1/10 a draw has 8,658 bits, and the randomness, not the search, was
    the bottleneck.

    >>> 1 <= ChaChaSource().uniform(6) <= 6
    True
    """

    __slots__ = ("_encryptor", "_left")

    def __init__(self) -> None:
        super().__init__()
        self._encryptor: Any = None
        self._left = 0

    def _discard(self) -> None:
        super()._discard()
        self._encryptor = None  # a forked child must not continue the parent's keystream

    def _bytes(self, count: int) -> bytes:
        if self._encryptor is None or self._left < count:
            self._rekey()
        self._left -= count
        # The keystream is ChaCha20 of zeros; the zeros are made once, not per read.
        zeros = _ZEROS if count <= len(_ZEROS) else bytes(count)
        out: bytes = self._encryptor.update(memoryview(zeros)[:count])
        return out

    def _rekey(self) -> None:
        # Imported on first use: the commands that draw nothing do not load OpenSSL.
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms

        # The 16-byte initial block is a 32-bit block counter (little-endian) and a
        # 96-bit nonce.  The counter starts at 0: a random one would overflow within
        # RESEED_BYTES with probability 2^30 / 2^38 = 1/256 per key, and OpenSSL refuses.
        key, nonce = os.urandom(32), bytes(4) + os.urandom(12)
        self._encryptor = Cipher(algorithms.ChaCha20(key, nonce), mode=None).encryptor()
        self._left = RESEED_BYTES

    def __repr__(self) -> str:
        return "ChaChaSource()"
