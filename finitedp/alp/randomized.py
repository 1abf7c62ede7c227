"""Random rounding and randomized response, exact, from the oracle ``uniform(d)``.

Paper: Lebeda thesis Section 2.2 (``RandRound``, Lemma 2.3; ``RandResponse``
[War65]), used by Algs 2, 4, 9 and 10.

* :func:`rand_round` of a rational ``r`` whose denominator divides a public
  ``q`` is one call ``u = uniform(q)``: it returns ``ceil(r)`` when
  ``u <= (r - floor(r)) q`` and ``floor(r)`` otherwise, which happens with
  probability exactly ``r - floor(r)``.  Integers also cost one call (with the
  same ``q``), so the number of calls never depends on the data.
* :func:`flip_mask` decides ``count`` independent flips of probability
  ``f/B`` (integers ``0 <= f <= B``): the positions are cut into chunks of
  ``r = max{r : B^r <= 2^64}`` (the last chunk may be shorter), each chunk of
  length ``c`` is one call ``u = uniform(B^c)``, and digit ``t`` (least
  significant first) of ``u - 1`` in base ``B`` decides position ``t`` of the
  chunk: flip when the digit is below ``f``.  ``u - 1`` is uniform on
  ``[0, B^c)``, so its ``c`` digits are independent and uniform on ``[0, B)``.
  The number of calls is ``ceil(count / r)``: a function of public parameters.

>>> from finitedp.oracle import ReplaySource
>>> rand_round(Fraction(7, 4), 4, ReplaySource([(4, 3)]))   # 3 <= 3: round up
2
>>> rand_round(Fraction(7, 4), 4, ReplaySource([(4, 4)]))
1
>>> # B = 5, f = 1: u - 1 = 1 + 0*5 + 3*25 has digits 1, 0, 3: only position 1 flips
>>> flip_mask(3, 1, 5, ReplaySource([(125, 77)])).tolist()
[False, True, False]
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from ..errors import ParameterError
from ..oracle import RandomSource, draw, draw_offsets, draws
from ..params import short_int

__all__ = ["digits_per_draw", "flip_draws", "flip_mask", "rand_round", "rand_round_padded"]

_WORD = 1 << 64


def rand_round(r: Fraction, q: int, rng: RandomSource) -> int:
    """``RandRound(r)``: ``ceil(r)`` with probability ``r - floor(r)``, else ``floor(r)``.

    Paper: Lebeda thesis Section 2.2 (random rounding), Lemma 2.3.

    Args:
        r: a non-negative rational whose denominator divides ``q``.
        q: the public denominator; the one oracle call is ``uniform(q)``.
        rng: the randomness source.

    Returns:
        ``floor(r)`` or ``floor(r) + 1``; one oracle call whatever ``r`` is.

    Raises:
        ParameterError: ``r * q`` is not an integer.
    """
    whole, part = _split(r, q)
    u = draw(rng, q)
    return whole + 1 if u <= part else whole


def _split(r: Fraction, q: int) -> tuple[int, int]:
    """``(floor(r), (r - floor(r)) q)``: ``r`` rounds up when its draw is at most the second.

    Raises:
        ParameterError: ``r * q`` is not an integer.
    """
    scaled = r * q
    if scaled.denominator != 1:
        raise ParameterError(
            f"r: got {r}; its denominator must divide the public q = {short_int(q)}"
        )
    return divmod(scaled.numerator, q)


#: Rounding draws of :func:`rand_round_padded` made at a time.
_ROUND_BLOCK = 1 << 14


def rand_round_padded(
    values: Sequence[Fraction], q: int, calls: int, rng: RandomSource
) -> list[int]:
    """:func:`rand_round` of each value in order, then ``calls - len(values)`` padding
    calls ``uniform(q)``: exactly ``calls`` draws (made in blocks), the values checked
    before the first.

    Paper: Lebeda thesis Section 2.2 (``RandRound``, Lemma 2.3), padded as Algs 2 and 9
    ask (the number of calls must not say how many entries are non-zero).

    Raises:
        ParameterError: a value times ``q`` is not an integer, or more values than calls.
    """
    if len(values) > calls:
        raise ParameterError(f"values: got {len(values)}; at most calls = {short_int(calls)}")
    parts = [_split(r, q) for r in values]
    out: list[int] = []
    for start in range(0, calls, _ROUND_BLOCK):
        us = draws(rng, q, min(_ROUND_BLOCK, calls - start))
        block = parts[start : start + len(us)]  # padding draws have no value to round
        out.extend(
            whole + 1 if u <= part else whole for (whole, part), u in zip(block, us, strict=False)
        )
    return out


def digits_per_draw(base: int) -> int:
    """``r = max{r >= 1 : base^r <= 2^64}`` (1 when ``base`` itself exceeds ``2^64``)."""
    if base < 2:
        raise ParameterError(f"base: got {base}; randomized response needs base >= 2")
    r, power = 1, base
    while power * base <= _WORD:
        r, power = r + 1, power * base
    return r


def flip_draws(count: int, base: int) -> int:
    """How many oracle calls :func:`flip_mask` makes: ``ceil(count / digits_per_draw(base))``."""
    r = digits_per_draw(base)
    return -(-count // r)


def flip_mask(count: int, flips: int, base: int, rng: RandomSource) -> npt.NDArray[np.bool_]:
    """``count`` independent Bernoulli(``flips/base``) decisions, drawn in base-``base`` digits.

    Paper: Lebeda thesis Section 2.2 (``RandResponse(b, p)`` flips ``b`` with
    probability ``p``); here ``p = flips/base`` exactly.

    Args:
        count: how many positions.
        flips: the numerator ``f`` of ``p = f/B``, ``0 <= f <= B``.
        base: ``B >= 2``.
        rng: the randomness source (see the module notes for the call order).

    Returns:
        A boolean array: ``True`` where the bit is flipped.
    """
    packed = flip_packed(count, flips, base, rng)
    return np.unpackbits(packed, count=count, bitorder="little").astype(np.bool_)


#: Flip draws handled at once by :func:`flip_packed` (a multiple of 8, so that
#: every block starts on a byte): about 32,768 draws (a few MiB), whatever ``count`` is.
_BLOCK_DRAWS = 1 << 15


def flip_packed(
    count: int,
    flips: int,
    base: int,
    rng: RandomSource,
    into: npt.NDArray[np.uint8] | None = None,
) -> npt.NDArray[np.uint8]:
    """:func:`flip_mask`'s decisions packed eight to a byte, least significant bit first.

    The same calls in the same order; memory is that of the packed result plus
    one block of :data:`_BLOCK_DRAWS` draws, not a byte (or a digit) per position.
    With ``into`` (packed bits of ``count`` positions), the flips are XORed into
    it in place (randomized response without a second bit array) and it is returned.
    """
    if not 0 <= flips <= base:
        raise ParameterError(f"flips: got {flips}; need 0 <= flips <= base = {base}")
    r = digits_per_draw(base)
    full, rest = divmod(count, r)
    out = np.zeros(-(-count // 8), dtype=np.uint8) if into is None else into
    done = 0  # draws handled
    while done < full:
        block = min(_BLOCK_DRAWS, full - done)
        start, d = done * r, base**r
        # u - 1 as uint64 straight from the bytes, where the source makes them so
        offsets = draw_offsets(rng, d, block) if d <= _WORD else None
        if offsets is not None:
            bits = _table_flips(offsets, r, flips, base)
        else:
            values = draws(rng, d, block)
            if d < _WORD and type(values[0]) is int:
                bits = _table_flips(
                    np.array(values, dtype=np.uint64) - np.uint64(1), r, flips, base
                )
            else:  # symbolic draws (the checker), or d = 2^64 (B a power of two), or B > 2^64
                bits = np.zeros(block * r, dtype=np.bool_)
                for c, u in enumerate(values):
                    _digits_into(bits, c * r, int(u) - 1, r, flips, base)
        _xor_into(out, start, bits)
        done += block
    if rest:
        bits = np.zeros(rest, dtype=np.bool_)
        _digits_into(bits, 0, int(draw(rng, base**rest)) - 1, rest, flips, base)
        _xor_into(out, full * r, bits)
    return out


def _xor_into(out: npt.NDArray[np.uint8], start: int, bits: npt.NDArray[np.bool_]) -> None:
    """XOR a run of bits into the packed array at bit position ``start``."""
    shift = start % 8
    padded = np.concatenate([np.zeros(shift, dtype=np.bool_), bits]) if shift else bits
    packed = np.packbits(padded, bitorder="little")
    first = start // 8
    out[first : first + len(packed)] ^= packed


def _table_flips(
    values: npt.NDArray[np.uint64], r: int, flips: int, base: int
) -> npt.NDArray[np.bool_]:
    """The flips of each value's ``r`` base-``base`` digits, a few digits per table lookup."""
    k = 1
    while k < r and base ** (k + 1) <= 1 << 16:
        k += 1
    if base**k > 1 << 16:  # a base above 2^16: one digit at a time
        k = 1
    table = np.zeros((base**k, k), dtype=np.bool_) if base**k <= 1 << 16 else None
    if table is not None:
        v = np.arange(base**k, dtype=np.int64)
        for t in range(k):
            table[:, t] = v % base < flips
            v //= base
    out = np.empty((len(values), r), dtype=np.bool_)
    b = np.uint64(base)
    for first in range(0, r, k):
        width = min(k, r - first)
        if table is None:
            out[:, first] = values % b < np.uint64(flips)
            values = values // b
            continue
        chunk = np.uint64(base**width)
        out[:, first : first + width] = table[(values % chunk).astype(np.int64), :width]
        values = values // chunk
    return out.reshape(-1)


def _digits_into(
    out: npt.NDArray[np.bool_], start: int, value: int, length: int, flips: int, base: int
) -> None:
    for t in range(length):
        value, digit = divmod(value, base)
        out[start + t] = digit < flips
