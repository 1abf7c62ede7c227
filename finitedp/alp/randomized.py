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

from fractions import Fraction

import numpy as np
import numpy.typing as npt

from ..errors import ParameterError
from ..oracle import RandomSource, draw, draws
from ..params import short_int

__all__ = ["digits_per_draw", "flip_draws", "flip_mask", "rand_round"]

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
    scaled = r * q
    if scaled.denominator != 1:
        raise ParameterError(
            f"r: got {r}; its denominator must divide the public q = {short_int(q)}"
        )
    whole, part = divmod(scaled.numerator, q)
    u = draw(rng, q)
    return whole + 1 if u <= part else whole


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
    if not 0 <= flips <= base:
        raise ParameterError(f"flips: got {flips}; need 0 <= flips <= base = {base}")
    r = digits_per_draw(base)
    full, rest = divmod(count, r)
    out = np.zeros(count, dtype=np.bool_)
    values = draws(rng, base**r, full) if full else []
    if full and base**r <= _WORD and all(type(u) is int for u in values):
        chunk = np.array([u - 1 for u in values], dtype=np.uint64)
        digits = np.empty((full, r), dtype=np.uint64)
        b = np.uint64(base)
        for t in range(r):
            digits[:, t] = chunk % b
            chunk //= b
        out[: full * r] = (digits < np.uint64(flips)).reshape(-1)
    else:
        for c, u in enumerate(values):
            _digits_into(out, c * r, int(u) - 1, r, flips, base)
    if rest:
        u = draw(rng, base**rest)
        _digits_into(out, full * r, int(u) - 1, rest, flips, base)
    return out


def _digits_into(
    out: npt.NDArray[np.bool_], start: int, value: int, length: int, flips: int, base: int
) -> None:
    for t in range(length):
        value, digit = divmod(value, base)
        out[start + t] = digit < flips
