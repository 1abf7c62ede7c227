"""The blanket's two samplers: its size, within a certified factor, and its keys.

Paper: none (finitedp's; ``proofs_notes/blanket_histogram.md``); Lemma 2.13 of BV
(inverse-CDF sampling) for each step.

:class:`BlanketChain` samples ``|B| ~ Bin(N, A/d)`` through the conditional
probabilities ``r_j = Pr[|B| > j | |B| >= j]``, each replaced by a dyadic rational
within a factor ``1 + 2^-h`` (certified in integers); :func:`uniform_keys` gives
``B`` itself given its size, by a sparse Fisher-Yates shuffle of ``[1, N]``;
:func:`slack_bits` chooses ``h`` from the budget a sampler's ratio leaves unused.
Used by :mod:`finitedp.histograms.blanket`.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from math import factorial

import gmpy2

from ..errors import CertificationError, NotApplicableError, ParameterError
from ..exactmath import compare_exp
from ..oracle import RandomSource, discard, discard_descending, draw, draws
from ..params import short_int

__all__ = [
    "BLOCK",
    "MAX_SLACK_BITS",
    "BlanketChain",
    "CertificationError",
    "late_block_bound",
    "slack_bits",
    "uniform_keys",
]


#: The finest factor ``1 + 2^-h`` the chain is asked for; beyond it the sampler's
#: ratio leaves too little of ``e^eps`` unused (a tight ratio within ``2^-4096``).
MAX_SLACK_BITS = 4096

#: Steps of the chain certified per block (the memory of one release's thresholds).
BLOCK = 1 << 14


def slack_bits(ratio: Fraction, epsilon: Fraction, steps: int) -> int:
    """The least ``h`` (a ladder) with ``ratio^2 (1 + 2^-h)^(2 steps) <= e^eps``, decided exactly.

    ``(1 + g)^m <= e^(m g) <= 1/(1 - m g)`` for ``m g < 1``, so it is enough that
    ``ratio^2 / (1 - 2 steps 2^-h) <= e^eps`` (:func:`~finitedp.exactmath.compare_exp`).

    Args:
        ratio: the sampler's proven per-count ratio ``b/a`` (``<= e^(eps/2)``).
        epsilon: the budget ``eps``.
        steps: ``L + 1``, the number of chain steps.

    Raises:
        NotApplicableError: no ``h <= MAX_SLACK_BITS`` fits (the ratio uses all of ``eps``).
    """
    m = 2 * steps
    h = m.bit_length() + 16
    while h <= MAX_SLACK_BITS:
        scale = 1 << h
        if compare_exp(ratio * ratio * Fraction(scale, scale - m), epsilon) <= 0:
            return h
        h += 16
    raise NotApplicableError(
        f"epsilon: the noise ratio b/a = {ratio} leaves less than 2^-{MAX_SLACK_BITS} of "
        f"e^(eps/2) = e^({epsilon}/2) unused, too little for the blanket's approximation; "
        f'use counter "geo" or a slightly larger epsilon'
    )


class BlanketChain:
    """``|B| ~ Bin(N, A/d)`` within a factor ``(1 + 2^-h)^(k + 1)`` per outcome, by ``L + 1`` draws.

    Paper: none (finitedp's; ``proofs_notes/blanket_histogram.md``, "the chain").

    Step ``j`` (given ``|B| >= j``) draws ``u`` in ``[1, 2^G]`` and continues iff
    ``u <= a_j``, with ``a_j/2^G`` within ``1 + 2^-h`` of ``r_j = Pr[|B| > j | |B| >= j]``
    from below and ``1 - a_j/2^G`` within ``1 + 2^-h`` of ``1 - r_j`` from above.
    ``r_j = 1 - 1/S_j`` with ``S_j = T_j/P_j = 1 + rho_j S_(j+1)`` (``P_j`` the
    probability of ``j``, ``T_j`` of ``>= j``, ``rho_j = P_(j+1)/P_j =
    (N - j)A/((j + 1)(d - A))``); ``S`` is bracketed backwards in ``W``-bit fixed
    point from ``S_J`` in ``[1, 1/(1 - rho_J)]`` (``rho`` decreases in ``j``), block
    by block so that memory stays ``O(BLOCK)``; every bracket is certified in
    integers, so the guarantee does not rest on a rounding analysis.

    Complexity: a sample makes ``L + 1`` draws and compares them with block 0's kept
    thresholds (``O(BLOCK)`` operations on integers of ``O(W + bits(N))`` bits, once);
    ``O(L)`` such operations only if ``|B|`` reaches ``2^14`` (:meth:`sample`).

    Args:
        universe_size: ``N = |X|``.
        tail: ``A = d - F(0, b)``, with ``0 < A < d`` and ``N A < d - A``.
        d: the sampler's domain.
        last: ``L``: outcomes above ``L`` are reported as ``None``.
        h: the factor ``1 + 2^-h`` per step.
    """

    __slots__ = (
        "_c_hi",
        "_c_lo",
        "_first",
        "_last",
        "_n_bits",
        "_universe",
        "g",
        "h",
        "w",
    )

    def __init__(self, universe_size: int, tail: int, d: int, last: int, h: int) -> None:
        if not (0 < tail < d and universe_size * tail < d - tail):
            raise ParameterError(
                f"tail: got A = {short_int(tail)} for d = {short_int(d)}, "
                f"N = {short_int(universe_size)}; the chain needs "
                f"0 < A and N A < d - A (an expected blanket below 1)"
            )
        self._universe, self._last, self.h = universe_size, last, h
        # rho_last is the smallest rho, so r_j >= rho_last (1 - rho_0) >= rho_last / 2.
        num, den = (universe_size - last) * tail, (last + 1) * (d - tail)
        low_bits = max(0, den.bit_length() - num.bit_length()) + 2  # 2^-low_bits < rho_last / 2
        self.g = h + low_bits + 4
        self.w = self.g + 32
        self._n_bits = universe_size.bit_length()
        shift = self.w + self._n_bits
        c_lo, rem = divmod(gmpy2.mpz(tail) << shift, gmpy2.mpz(d - tail))
        self._c_lo, self._c_hi = c_lo, c_lo + (1 if rem else 0)
        # Block 0's thresholds are public and small: kept, computed once.
        self._first = self.thresholds(0, min(BLOCK, last + 1))

    @property
    def steps(self) -> int:
        """``L + 1``: draws per sample, every one in ``[1, 2^G]``."""
        return self._last + 1

    @property
    def domain(self) -> int:
        """``2^G``: the domain of every draw of the chain."""
        return 1 << self.g

    def _rho(self, j: int) -> tuple[gmpy2.mpz, gmpy2.mpz]:
        """``rho_j`` bracketed in ``W``-bit fixed point."""
        if j >= self._universe:
            return gmpy2.mpz(0), gmpy2.mpz(0)
        m, den = self._universe - j, (j + 1) << self._n_bits
        return (m * self._c_lo) // den, -((-m * self._c_hi) // den)

    def start_bracket(self, top: int) -> tuple[gmpy2.mpz, gmpy2.mpz]:
        """``2^W S_top`` bracketed without the steps above: ``S_top`` lies in
        ``[1, 1/(1 - rho_top)]`` since ``rho_j`` decreases in ``j``."""
        one = gmpy2.mpz(1) << self.w
        return one, -((-one * one) // (one - self._rho(top)[1]))

    def thresholds(self, start: int, stop: int) -> list[int]:
        """``a_j`` for ``j`` in ``[start, stop)``, each certified.

        Raises:
            CertificationError: a bracket too wide for ``1 + 2^-h`` (never, by the choice of ``W``).
        """
        w, g, h = self.w, self.g, self.h
        one = gmpy2.mpz(1) << w
        top = stop + w  # S_j exists beyond L; its bracket shrinks by rho < 1/2 a step
        s_lo, s_hi = self.start_bracket(top)
        for j in range(top - 1, stop - 1, -1):
            rl, rh = self._rho(j)
            s_lo, s_hi = one + ((rl * s_lo) >> w), one - ((-rh * s_hi) >> w)
        # The loop below is _rho and the step inlined (it runs 2n + 1 times a release).
        universe, nb, c_lo, c_hi = self._universe, self._n_bits, self._c_lo, self._c_hi
        top_g, certify_ii, down, gh = gmpy2.mpz(1) << g, ((1 << h) + 1) << (w + g), w - g, g + h
        h_plus = (1 << h) + 1
        out: list[int] = []
        for j in range(stop - 1, start - 1, -1):
            if j < universe:
                m, den = universe - j, (j + 1) << nb
                rl, rh = (m * c_lo) // den, -((-m * c_hi) // den)
            else:
                rl, rh = gmpy2.mpz(0), gmpy2.mpz(0)
            x_lo, x_hi = rl * s_lo, rh * s_hi  # rho_j times S_(j+1)'s bracket
            s_lo, s_hi = one + (x_lo >> w), one - ((-x_hi) >> w)
            a = x_lo // (s_hi << down)
            # r_j <= (1 + 2^-h) a/2^G and 1 - a/2^G <= (1 + 2^-h)/S_j, from the brackets:
            # rh_j hi_(j+1) 2^(G+h) <= (2^h + 1) a lo_j 2^W; (2^G - a) hi_j 2^h <= (2^h+1) 2^(W+G)
            if (x_hi << gh) > ((h_plus * a * s_lo) << w) or (
                ((top_g - a) * s_hi) << h
            ) > certify_ii:
                raise CertificationError(f"blanket chain: step {j} not certified at h = {h}")
            out.append(int(a))
        out.reverse()
        return out

    def blocks(self) -> Iterator[tuple[int, list[int]]]:
        """``(start, thresholds)`` for consecutive blocks of at most :data:`BLOCK` steps."""
        for start in range(0, self._last + 1, BLOCK):
            yield start, self._block(start)

    def _block(self, start: int) -> list[int]:
        if start == 0:
            return self._first
        return self.thresholds(start, min(start + BLOCK, self._last + 1))

    def sample(self, rng: RandomSource) -> int | None:
        """``|B|``, or ``None`` above ``L``: exactly ``L + 1`` draws in ``[1, 2^G]``.

        Draws after the stop are consumed, not compared.  Block 0's thresholds (the
        first :data:`BLOCK` steps, kept) are compared on every call; a later block's
        are computed only if the chain is still going at its start, that is if
        ``|B| >= 2^14``: each ``a_j / 2^G <= r_j``, so under the sampled law that
        chance is at most the binomial's ``Pr[|B| >= 2^14] <= 2/(2^14)! < 2^-205000``
        (:func:`late_block_bound`).  So the work is block 0's and the draws',
        whatever ``|B|`` is, except in that event, and at most every block's.
        """
        size, alive, domain = 0, True, self.domain
        for start in range(0, self._last + 1, BLOCK):
            count = min(BLOCK, self._last + 1 - start)
            if not alive:
                discard(rng, domain, count)
                continue
            block = self._block(start)
            us = draws(rng, domain, count)
            for u, a in zip(us, block, strict=True):
                if u > a:
                    alive = False
                    break
                size += 1
        return None if alive else size


def late_block_bound() -> int:
    """``e`` with ``2/(2^14)! < 2^-e``: the chance, under any chain's sampled law, that
    :meth:`BlanketChain.sample` computes a block after the first.

    ``Pr[|B| >= K] = sum_(k >= K) C(N, k) p^k (1 - p)^(N - k) <= sum_(k >= K)
    lambda^k / k! <= (1/K!) sum_i (K + 1)^-i <= 2/K!`` for ``lambda = N p < 1`` (the
    chain refuses ``N A >= d - A``), and the sampled chain goes on at step ``j`` with
    probability ``a_j / 2^G <= r_j``, the binomial's own.
    """
    return factorial(BLOCK).bit_length() - 2


def uniform_keys(rng: RandomSource, universe_size: int, count: int, calls: int) -> list[int]:
    """The first ``count`` keys of a uniform random ordering of ``[1, N]``: ``calls`` draws.

    A sparse Fisher-Yates shuffle: draw ``i`` (from 0) is ``u`` in ``[1, N - i]`` and
    swaps positions ``i`` and ``i + u - 1`` of a virtual array that starts as the
    identity (only moved positions are stored).  Draws ``count`` to ``calls - 1``
    are made with the same domains and not used, so the calls do not depend on ``count``.

    Complexity: ``O(count)`` dictionary operations and ``calls`` draws.
    """
    moved: dict[int, int] = {}
    keys: list[int] = []
    for i in range(count):
        j = i + int(draw(rng, universe_size - i)) - 1  # an index: the checker enumerates it
        keys.append(moved.get(j, j) + 1)
        moved[j] = moved.get(i, i)  # position i is never read again
    discard_descending(rng, universe_size - count, calls - count)
    return keys
