"""The seeded source: SHAKE-256 of a seed, read as a stream.  Not for production.

Paper: BV Section 2.4 (the oracle ``uniform(d)``); ``SPEC.md``, "Seeded source" (the
byte stream and its mapping to ``[1, d]``, byte for byte).

The stream is squeezed from one running SHAKE-256 state (``cryptography``'s
``XOFHash``, OpenSSL's), a chunk at a time, and the bytes a draw has used are
dropped: a seeded release holds a few MiB of the stream whatever its length.  (It
used to keep the whole stream and hash it again from the start each time its buffer
doubled: 1.3 KB a row and 6.5 GB at ``10^7`` rows.)

Besides ``uniform(d)`` the source answers the batched calls of the system sources
(``uniform_many``, ``discard_many``, ``discard_descending``, ``uniform_many_words``)
with **the same bytes and values as the calls one by one**: each call reads
``B = ceil(k / 8)`` bytes per round, ``k = bitlength(d - 1)``, keeps the low ``k``
bits ``x`` and accepts ``x < d``.  A batch decides a block of rounds at once in
numpy, from each round's leading 64 bits ``h`` (all of ``x`` when ``B <= 8``):
``h`` below the leading bits of the smallest domain accepts, above those of the
largest rejects, and only the rounds in between (``x`` within the run of domains,
which is ``d`` itself for one domain) are decided on the whole integer, in order.
Bytes past the last accepted round a batch needs stay in the buffer for the next
call, so every call starts where the one before it stopped (SPEC.md's cursor).
"""

from __future__ import annotations

import hashlib
import sys
from typing import Any

from .errors import OracleError, ParameterError
from .systemsource import check_domain

__all__ = ["SeededSource"]

#: Bytes squeezed from the XOF at a time (a larger read is squeezed whole).
_CHUNK = 1 << 16
#: The most bytes, and the most rounds, one batched step looks at (its numpy arrays
#: take about 30 bytes a round).
_BLOCK = 1 << 22
_BLOCK_ROUNDS = 1 << 17


def _xof(seed: bytes) -> Any:
    """A running SHAKE-256 state of ``seed``, or ``None`` where OpenSSL has no XOF squeeze."""
    try:
        from cryptography.exceptions import UnsupportedAlgorithm
        from cryptography.hazmat.primitives import hashes

        state = hashes.XOFHash(hashes.SHAKE256(digest_size=sys.maxsize))
    except (ImportError, AttributeError, UnsupportedAlgorithm):
        return None
    state.update(seed)
    return state


class SeededSource:
    """A deterministic, reproducible source: SHAKE-256 of a seed.  Not for production.

    The byte stream is the SHAKE-256 extendable output of ``seed``, read from
    the start.  ``uniform(d)`` returns 1 without reading when ``d == 1``;
    otherwise with ``k = bitlength(d - 1)`` and ``B = ceil(k / 8)`` it reads
    the next ``B`` bytes, takes them as a big-endian integer modulo ``2^k``,
    and returns that value plus one if it is below ``d``; if not, it reads the
    next ``B`` bytes and tries again.  Memory: a bounded window of the stream.

    Anyone who knows the seed can reproduce every draw, so a release made
    with this source is not private against them.

    >>> a, b = SeededSource(b"seed"), SeededSource("73656564")  # the same seed
    >>> [a.uniform(100) for _ in range(4)] == [b.uniform(100) for _ in range(4)]
    True
    >>> a.uniform_many(100, 3) == [b.uniform(100) for _ in range(3)]
    True
    """

    __slots__ = ("_buffer", "_last", "_position", "_seed", "_squeezed", "_state")

    def __init__(self, seed: bytes | str) -> None:
        """Args:
        seed: the seed, as bytes or as a hexadecimal string.

        Raises:
            OracleError: a string seed that is not hexadecimal.
        """
        if isinstance(seed, str):
            try:
                seed = bytes.fromhex(seed)
            except ValueError:
                shown = repr(seed) if len(seed) <= 40 else f"{seed[:40]!r}..."
                digits = set("0123456789abcdefABCDEF")
                if all(c in digits for c in seed) and len(seed) % 2:
                    why = f"it has {len(seed)} hex digits; write whole bytes (an even number)"
                else:
                    why = "a string seed must be hexadecimal (two digits per byte)"
                message = f"seed: got {shown}; {why}"
                raise OracleError(message) from None
        if not isinstance(seed, bytes):
            raise OracleError(f"seed: got {type(seed).__name__}; use bytes or a hex string")
        self._seed = seed
        self._state: Any = _xof(seed)
        self._squeezed = 0  # bytes of the stream taken so far (the buffer's end)
        self._buffer = b""
        self._position = 0
        self._last: tuple[int, int, int] = (1, 0, 0)  # (d, k, B) of the last uniform(d)

    @property
    def seed(self) -> bytes:
        """The seed this source was made from."""
        return self._seed

    def _squeeze(self, count: int) -> bytes:
        start, self._squeezed = self._squeezed, self._squeezed + count
        if self._state is not None:
            out: bytes = self._state.squeeze(count)
            return out
        # No streaming XOF (an OpenSSL before 3.3): SHAKE's output of a length is a
        # prefix of any longer one, so the next bytes are a suffix of a longer digest.
        return hashlib.shake_256(self._seed).digest(self._squeezed)[start:]

    def _window(self, count: int) -> tuple[bytes, int]:
        """The buffer and the cursor's offset in it, with ``count`` unread bytes there."""
        left = len(self._buffer) - self._position
        if left < count:
            self._buffer = self._buffer[self._position :] + self._squeeze(max(count - left, _CHUNK))
            self._position = 0
        return self._buffer, self._position

    def _read(self, count: int) -> bytes:
        buffer, start = self._window(count)
        self._position = start + count
        return buffer[start : start + count]

    def _plan(self, d: int) -> tuple[int, int, int]:
        d = check_domain(d)
        k = (d - 1).bit_length()
        self._last = (d, k, (k + 7) // 8)
        return self._last

    def uniform(self, d: int) -> int:
        """Return the next value of the seeded stream mapped to ``[1, d]``."""
        last, k, width = self._last
        if d != last or type(d) is not int:
            d, k, width = self._plan(d)
        if d == 1:
            return 1
        mask = (1 << k) - 1
        while True:
            x = int.from_bytes(self._read(width), "big") & mask
            if x < d:
                return x + 1

    def uniform_many(self, d: int, count: int) -> list[int]:
        """``count`` calls ``uniform(d)``: the same bytes and values, decided in blocks."""
        out: list[int] = []
        self._rounds(d, d, count, out)
        return out

    def discard_many(self, d: int, count: int) -> None:
        """``count`` calls ``uniform(d)`` whose values nobody reads: the same bytes consumed."""
        self._rounds(d, d, count, None)

    def discard_descending(self, top: int, count: int) -> None:
        """The calls ``uniform(top)``, ``uniform(top - 1)``, ..., ``uniform(top - count + 1)``,
        values unread: the bytes those calls read one by one.
        """
        top = check_domain(top)
        if count > top:
            raise ParameterError(f"count: got {count}; at most top = {top} descending domains")
        done = 0
        while done < count:  # one run per bit length k of the domains
            high = top - done
            k = (high - 1).bit_length()
            low = max(top - count + 1, (1 << (k - 1)) + 1 if k else 1)
            self._rounds(high, low, high - low + 1, None)
            done += high - low + 1

    def _rounds(
        self, high: int, low: int, count: int, out: list[int] | None, parts: list[Any] | None = None
    ) -> None:
        """``count`` accepted rounds, the ``c``-th (from 0) answering ``uniform(high - c)``
        (``high == low`` for one domain; ``high - count + 1 >= low``, one bit length);
        each value appended to ``out`` when it is given, or with ``parts`` (``high <=
        2^64``) each ``u - 1`` as ``uint64`` arrays appended to it."""
        high, low = check_domain(high), check_domain(low)
        if count <= 0 or high == 1:
            if out is not None:
                out.extend([1] * max(count, 0))
            if parts is not None:
                import numpy

                parts.append(numpy.zeros(max(count, 0), dtype=numpy.uint64))
            return
        k = (high - 1).bit_length()
        width = (k + 7) // 8
        step = int(high > low)  # 0: one domain; 1: the c-th call's domain is high - c
        if count < 16 or (high > low and (high - low) << 6 > high):
            # Few calls, or domains far apart for their size: one round at a time.
            found = [self.uniform(high - step * c) for c in range(count)]
            if out is not None:
                out.extend(found)
            if parts is not None:
                import numpy

                parts.append(numpy.array([u - 1 for u in found], dtype=numpy.uint64))
            return
        import numpy

        mask = (1 << k) - 1
        shift = 8 * max(0, width - 8)  # bits below each round's leading word
        low_head, high_head = low >> shift, high >> shift
        top_bits = (1 << (k - shift)) - 1
        done = 0
        while done < count:
            need = count - done
            # Rounds read ahead: about twice the expected, within one block; the
            # unused ones stay in the buffer.
            rounds = min(_BLOCK_ROUNDS, max(1, _BLOCK // width), need * (1 << k) // low + 64)
            buffer, start = self._window(rounds * width)
            block = numpy.frombuffer(buffer, dtype=numpy.uint8, count=rounds * width, offset=start)
            rows = block.reshape(rounds, width)
            lead = numpy.zeros((rounds, 8), dtype=numpy.uint8)
            lead[:, 8 - min(width, 8) :] = rows[:, : min(width, 8)]
            heads = lead.view(">u8").ravel() & numpy.uint64(top_bits)
            # A head is at most top_bits: a bound above it (d = 2^64) holds for all.
            sure = heads < numpy.uint64(min(low_head, top_bits)) | (low_head > top_bits)
            open_ = ~sure & (heads <= numpy.uint64(min(high_head, top_bits)))
            if open_.any():
                # Rounds near the domains: the whole x against the domain of the call
                # each answers, which counts the rounds accepted before it.
                before: Any = numpy.cumsum(sure) - sure
                extra = 0
                for slot in numpy.flatnonzero(open_).tolist():
                    at = start + slot * width
                    x = int.from_bytes(buffer[at : at + width], "big") & mask
                    call = done + int(before[slot]) + extra
                    if x < high - step * call:
                        sure[slot] = True
                        extra += 1
            accepted = numpy.flatnonzero(sure)
            if len(accepted) >= need:
                accepted = accepted[:need]
                used = int(accepted[-1]) + 1
            else:
                used = rounds
            self._position = start + used * width
            done += len(accepted)
            if parts is not None:  # high <= 2^64: width <= 8, each x is its head
                parts.append(heads[accepted])
            if out is None:
                continue
            if width <= 8 and k < 64:
                out.extend((heads[accepted] + numpy.uint64(1)).tolist())
            elif width <= 8:  # u = 2^64 (d = 2^64) is no uint64: one is added here
                out.extend([x + 1 for x in heads[accepted].tolist()])
            else:
                out.extend(
                    (int.from_bytes(buffer[at : at + width], "big") & mask) + 1
                    for at in (start + width * accepted).tolist()
                )

    def uniform_many_offsets(self, d: int, count: int) -> Any:
        """``count`` calls ``uniform(d)`` for ``d <= 2^64``, each ``u - 1`` in a ``uint64``
        array: the same bytes and values as the calls one by one.

        Raises:
            ParameterError: ``d`` above ``2^64``.
        """
        import numpy

        if check_domain(d) > 1 << 64:
            raise ParameterError(f"d: got a {d.bit_length()}-bit number; at most 2^64")
        parts: list[Any] = []
        self._rounds(d, d, count, None, parts)
        return numpy.concatenate(parts) if parts else numpy.zeros(0, dtype=numpy.uint64)

    def uniform_many_words(self, d: int, count: int) -> Any:
        """``count`` calls ``uniform(d)`` for ``d = 2^(64 w)``, each ``u - 1`` as ``w``
        64-bit words, least significant first (a ``count x w`` ``uint64`` array).

        The same bytes and values as the calls one by one: each reads ``8 w`` bytes,
        never rejected, whose big-endian value is ``u - 1``; numpy reverses them.

        Raises:
            ParameterError: ``d`` is not a power of ``2^64``.
        """
        import numpy

        words = (d.bit_length() - 1) // 64
        if words < 1 or d != 1 << (64 * words):
            raise ParameterError(f"d: got a {d.bit_length()}-bit number; a power of 2^64 is needed")
        data = numpy.frombuffer(self._read(8 * words * count), dtype=numpy.uint8)
        rows = data.reshape(count, 8 * words)[:, ::-1]  # big-endian u - 1, little-endian now
        return numpy.ascontiguousarray(rows).view("<u8").reshape(count, words)

    def __repr__(self) -> str:
        return f"SeededSource({self._seed.hex()!r})"
