"""The batch path of :class:`~.convolved.ConvolvedGaussian`: the same fields, read in numpy.

Paper: none beyond :mod:`.convolved`; this is :meth:`ConvolvedGaussian._value
<finitedp.counting.convolved.ConvolvedGaussian>` for many draws at once.  Each
draw ``u - 1`` is written as little-endian 64-bit words; a level's offset is its
first ``ceil(Q/64)`` words (against the threshold scaled to them), its column the low
``a`` bits of the next word; ``offset < threshold`` is decided limb by limb from
the most significant, for every draw alike (no search), and the values are
``int64`` (callers keep to ``|Z| < 2^62``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import OracleError
from ..oracle import RandomSource, draws
from .convolvedtables import Level

__all__ = ["LevelArrays", "batch_values", "draw_fields", "level_arrays"]


@dataclass(frozen=True)
class LevelArrays:
    """One level as numpy arrays: offset limbs, column mask, values, threshold limbs."""

    limbs: int
    column_mask: int
    own: Any  # int64 per column
    alias: Any  # int64 per column
    thresholds: list[Any]  # uint64 limbs per column, least significant first, one extra at the top


def level_arrays(level: Level) -> LevelArrays:
    """:class:`LevelArrays` of a :class:`~.convolvedtables.Level`."""
    limbs = level.offset_bits // 64
    low = (1 << 64) - 1
    thr = [
        np.array([(t >> (64 * j)) & low for t in level.thr], dtype=np.uint64) for j in range(limbs)
    ]
    thr.append(np.array([t >> (64 * limbs) for t in level.thr], dtype=np.uint64))
    return LevelArrays(
        limbs,
        level.key_mask & ((1 << 40) - 1),
        np.array(level.own, dtype=np.int64),
        np.array(level.alias, dtype=np.int64),
        thr,
    )


def draw_fields(rng: RandomSource, d: int, count: int) -> Any:
    """``count`` oracle calls ``uniform(d)``, ``d = 2^(64 w)``, each ``u - 1`` as ``w``
    64-bit words, least significant first (a ``count x w`` ``uint64`` array).

    A source with ``uniform_many_words`` (the system and seeded sources) gives the words without a
    Python int per draw; any other source is called through :func:`~finitedp.oracle.draws`
    (a tape records every call) and its values are packed here.

    Raises:
        OracleError: a source's ``uniform_many_words`` broke the contract (shape or type).
    """
    words = (d.bit_length() - 1) // 64
    bulk = getattr(rng, "uniform_many_words", None)
    if bulk is None:
        drawn = draws(rng, d, count)
        data = b"".join((u - 1).to_bytes(8 * words, "little") for u in drawn)
        return np.frombuffer(data, dtype="<u8").reshape(count, words)
    fields = bulk(d, count)
    if (
        not isinstance(fields, np.ndarray)
        or fields.shape != (count, words)
        or fields.dtype != np.dtype("<u8")
    ):
        raise OracleError(f"{type(rng).__name__}.uniform_many_words broke the uniform(d) contract")
    return fields


def batch_values(levels: list[LevelArrays], fields: Any) -> list[int]:
    """The sample of each draw (a row of :func:`draw_fields`), as one by one."""
    count = len(fields)
    total = np.zeros(count, dtype=np.int64)
    start = 0
    for level in levels:
        limbs = level.limbs
        column = fields[:, start + limbs] & np.uint64(level.column_mask)
        less = np.zeros(count, dtype=bool)
        equal = np.ones(count, dtype=bool)
        for j in range(limbs - 1, -1, -1):  # most significant limb first
            limb = fields[:, start + j]
            bound = level.thresholds[j][column]
            less |= equal & (limb < bound)
            equal &= limb == bound
        less |= equal & level.thresholds[limbs][column].astype(bool)  # t_c = 2^(64m): all below
        total += np.where(less, level.own[column], level.alias[column])
        start += limbs + 1
    out: list[int] = total.tolist()
    return out
