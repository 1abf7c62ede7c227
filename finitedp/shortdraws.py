"""The system mapping of ``uniform(d)`` for ``d <= 2^64``, a block of words at a time, in numpy.

Paper: BV Section 2.4 (the oracle); ``SPEC.md``, "System source" (the mapping):
a word ``x`` of ``W = ceil((bitlength(d - 1) + 64)/8)`` bytes is accepted below
``limit = 256^W - (256^W mod d)`` and gives ``u = x mod d + 1``.

For ``d <= 2^64`` a word has at most 16 bytes, ``x = h 2^64 + l`` with ``h, l`` below
``2^64``, and :func:`short_offsets` gives every accepted word's ``u - 1 = x mod d`` as
``uint64``, exactly, without a Python integer per word:

* a word is rejected only if its top 8 bytes are all ``0xff`` (``limit``'s are:
  ``256^W mod d < d <= 2^(8W - 64)``), so only those few are compared in full;
* ``d <= 2^32``: ``x mod d = ((h mod d)(2^64 mod d) + l mod d) mod d``, each product
  below ``2^64``;
* ``2^32 < d < 2^64``: ``(h mod d) 2^64 + l`` divided by ``d`` with Knuth's
  Algorithm D on 32-bit digits, as Hacker's Delight's ``divlu`` writes it
  (:func:`wide_mod`); ``d = 2^64``: ``l``.

Used by :class:`finitedp.systemsource.SystemRandomSource`; tested word by word against
Python's integers (``tests/test_oracle.py``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["all_ones_heads", "short_offsets", "wide_mod"]

_B = np.uint64(1 << 32)
_LOW32 = np.uint64((1 << 32) - 1)


def all_ones_heads(words: Any) -> Any:
    """The rows of a ``uint8`` matrix of words whose first 8 bytes are all ``0xff`` (the
    only words a domain's ``limit`` can reject): the first byte sifts, then the rest."""
    rows = np.flatnonzero(words[:, 0] == 255)
    return rows[(words[rows, :8] == 255).all(axis=1)]


def _corrected(q: Any, rhat: Any, vn1: Any, vn0: Any, digit: Any) -> Any:
    """Algorithm D's test, at most twice: while ``q >= b`` or ``q vn0 > b rhat + digit``
    (and ``rhat < b``), take one from ``q`` and add ``vn1`` to ``rhat``.  Where ``q >= b``
    the product wraps, but the test is already true there."""
    for _ in range(2):
        live = rhat < _B
        over = live & ((q >= _B) | (q * vn0 > (rhat << np.uint64(32)) + digit))
        q = q - over.astype(np.uint64)
        rhat = rhat + np.where(over, vn1, np.uint64(0))
    return q


def wide_mod(high: Any, low: Any, d: int) -> Any:
    """``(high 2^64 + low) mod d`` for ``uint64`` arrays with ``high < d`` and
    ``2^32 < d < 2^64``: the remainder of a 128-by-64-bit division (Hacker's Delight,
    ``divlu``: ``d`` shifted until its top bit is set, two 32-bit quotient digits, each
    estimated from the top digits and corrected at most twice).  The two lines that
    wrap modulo ``2^64`` have true values below ``d``, so the wrap is harmless."""
    s = 64 - d.bit_length()  # 1..31: d has 33 to 63 bits
    v = d << s
    vv, vn1, vn0 = np.uint64(v), np.uint64(v >> 32), np.uint64(v & 0xFFFFFFFF)
    un32 = (high << np.uint64(s)) | (low >> np.uint64(64 - s))
    un10 = low << np.uint64(s)
    un1, un0 = un10 >> np.uint64(32), un10 & _LOW32
    q1 = _corrected(un32 // vn1, un32 % vn1, vn1, vn0, un1)
    un21 = un32 * _B + un1 - q1 * vv  # below v: the wrap is exact
    q0 = _corrected(un21 // vn1, un21 % vn1, vn1, vn0, un0)
    return (un21 * _B + un0 - q0 * vv) >> np.uint64(s)


def short_offsets(block: bytes, d: int, width: int, limit: int) -> Any:
    """``x mod d`` (``u - 1``) of each accepted word ``x < limit`` of ``block`` (words of
    ``width`` bytes, ``8 <= width <= 16``, ``d <= 2^64``), in order, as ``uint64``."""
    words = np.frombuffer(block, dtype=np.uint8).reshape(-1, width)
    keep = np.ones(len(words), dtype=np.bool_)
    for i in all_ones_heads(words).tolist():
        keep[i] = int.from_bytes(block[i * width : (i + 1) * width], "big") < limit
    low = np.ascontiguousarray(words[:, width - 8 :]).view(">u8").ravel().astype(np.uint64)
    if d == 1 << 64:
        return low[keep]
    wide = np.zeros((len(words), 8), dtype=np.uint8)
    wide[:, 16 - width :] = words[:, : width - 8]
    high = wide.view(">u8").ravel().astype(np.uint64)
    m = np.uint64(d)
    if d <= 1 << 32:
        values = ((high % m) * np.uint64((1 << 64) % d) % m + low % m) % m
    else:
        values = wide_mod(high % m, low, d)
    return values[keep]
