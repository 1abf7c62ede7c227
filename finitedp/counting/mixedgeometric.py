"""Geometric noise for sums with a large public range: a two-level table mixed with the uniform.

Paper: BV Lemma 3.2 (mixing with the uniform distribution restores pure
privacy after truncation) and Alg 4.11 / Thm 4.10 (FastSample, the same
design for counts); Lebeda thesis Alg 16 (Laplace noise per coordinate, here
its two-sided geometric analogue on a grid).

A sum ``S`` in a public range ``[L, H]`` whose neighbours differ by at most
``Delta`` gets the noise of :class:`MixedGeometric`.  BV's GeoSample and
FastSample need integers of ``n log b`` or ``t log b`` bits; a fine grid
makes ``b`` about ``Delta/eps`` and ``n`` the whole range, far too large.
Here the law is defined by integer recursions of a few hundred bits instead,
and its privacy is computed from the integers themselves:

* ``v(0) = 2^P``, ``v(r + 1) = floor(v(r) a / b)`` for ``r < m`` (one block);
  ``u(0) = 2^P``, ``u(q + 1) = floor(u(q) v(m - 1) a / (2^P b))`` (the blocks);
  ``w(j) = u(j // m) v(j % m)`` for ``|z| = j <= t``: a two-sided geometric of
  ratio about ``a/b`` truncated at ``t``, kept in ``O(sqrt t)`` integers.
* The output ``o`` ranges over the public ``[L - t, H + t]`` (``M`` points) with
  ``Pr[o] = (1 - gamma) w(o - S)/W + gamma/M``, ``gamma = 2^-g`` (BV's mixing):
  integer weights ``(2^g - 1) M w(o - S) + W`` out of ``2^g M W``.

Privacy for ``|S - S'| <= Delta`` (stated exactly, then certified ``<= e^eps``):
where both noise weights are positive the ratio is at most ``s^Delta``, ``s``
the largest one-step ratio ``w(j)/w(j + 1)``; where only one is, at most
``1 + (2^g - 1) M w(t - Delta + 1)/W``.  One sample is one oracle call
``uniform(2^g M W)`` and at most ``ceil(log2(2t + 1)) + 2`` comparisons.
Proof: proofs_notes/mixed_geometric.md.

>>> g = MixedGeometric(1, 2, 0, 4)
>>> g.t, g.block, g.max_oracle_calls
(101, 11, 1)
>>> g.privacy_holds()
True
"""

from __future__ import annotations

from fractions import Fraction
from math import comb, isqrt
from typing import Any

from ..errors import ParameterError
from ..exactmath import ceil_log_ratio, exp_bounds, ln_bounds, simplest_between
from ..oracle import RandomSource, default_source, draw
from ..params import (
    check_draw,
    check_positive_int,
    exact_fraction,
    positive_fraction,
    probability,
    short_fraction,
    short_int,
)
from ..resources import integer_bytes, require_memory
from .mixedsearch import BlockSearch

__all__ = ["MAX_MOMENT", "MAX_UNIT_EPSILON", "MixedGeometric", "power_sum"]

#: The unit ratio ``b/a`` spends at most ``(1 - 2^-SLACK_BITS)`` of ``eps`` on ``Delta`` units.
SLACK_BITS = 16

#: ``gamma = 2^-GAMMA_BITS``: the uniform's share of the mixture.
GAMMA_BITS = 64

#: The largest ``gamma_bits``.
MAX_GAMMA_BITS = 4096

#: The largest budget per unit of the grid (``eps/Delta``): beyond, the noise is below one
#: unit with probability ``1 - 2e^-64`` (and ``e^(eps/Delta)`` grows without need).
MAX_UNIT_EPSILON = 64

#: The largest moment ``p`` computed (``O(p^2)`` work in :func:`power_sum`).
MAX_MOMENT = 64


def power_sum(m: int, p: int) -> int:
    """``1^p + 2^p + ... + m^p`` exactly (0 for ``m <= 0``), in ``O(p^2)`` operations.

    From ``(k + 1)^(p+1) - k^(p+1) = sum_i C(p+1, i) k^i`` summed over ``k = 1..m``.

    >>> power_sum(10, 1), power_sum(10, 2), power_sum(0, 3)
    (55, 385, 0)
    """
    if m <= 0:
        return 0
    sums = [m]  # sums[e] = sum_{k=1}^m k^e
    for e in range(1, p + 1):
        total = (m + 1) ** (e + 1) - 1 - sum(comb(e + 1, i) * sums[i] for i in range(e))
        sums.append(total // (e + 1))
    return sums[p]


class MixedGeometric:
    """Two-sided geometric noise, truncated at ``t``, mixed with the uniform on ``[L - t, H + t]``.

    Paper: BV Lemma 3.2 and Alg 4.11 (truncate, then mix with the uniform);
    Lebeda thesis Alg 16 (its per-coordinate Laplace noise).  Pure
    ``eps``-DP for a true value in the public ``[low, high]`` whose neighbours
    differ by at most ``sensitivity`` (certified by :meth:`privacy_holds`).

    Args:
        epsilon: the budget for a change of up to ``sensitivity`` units.
        sensitivity: ``Delta >= 1``, the largest change of the true value.
        low, high: the public range of the true value.
        gamma_bits: ``g``; the uniform's share is ``2^-g``.

    Raises:
        ParameterError: a parameter out of range; ResourceLimitError: tables
            above the memory limit.
    """

    __slots__ = (
        "_a",
        "_b",
        "_block",
        "_blocks",
        "_blocks_sum",
        "_cells",
        "_cells_sum",
        "_epsilon",
        "_gamma_bits",
        "_half",
        "_high",
        "_k",
        "_low",
        "_m_out",
        "_search",
        "_sensitivity",
        "_t",
        "_total",
    )

    def __init__(
        self,
        epsilon: object,
        sensitivity: object,
        low: int,
        high: int,
        *,
        gamma_bits: int = GAMMA_BITS,
    ) -> None:
        eps = positive_fraction(epsilon, "epsilon")
        shift = check_positive_int(sensitivity, "sensitivity")
        for name, end in (("low", low), ("high", high)):
            if type(end) is not int:
                exact_fraction(end, name)  # a float is refused as such
                raise ParameterError(f"{name}: got {end!r}; it must be an int")
        if low > high:
            raise ParameterError(f"low, high: got {low}, {high}; need low <= high")
        g = check_positive_int(gamma_bits, "gamma_bits")
        if g > MAX_GAMMA_BITS:  # the draw's domain 2^g M W would have g bits more
            raise ParameterError(
                f"gamma_bits: got {short_int(g)}; at most {MAX_GAMMA_BITS} (the uniform's share "
                f"2^-g is then below any probability a release can show)"
            )
        self._epsilon, self._sensitivity, self._low, self._high = eps, shift, low, high
        self._gamma_bits = g
        _check_scale(eps, shift)
        ratio = _unit_ratio(eps, shift)
        self._a, self._b = ratio.denominator, ratio.numerator
        self._t = t = _truncation(ratio, eps, shift, high - low, g)
        m = self._block = isqrt(t) + 1
        blocks = t // m + 1
        precision = _precision(ratio, eps, shift, t, m)
        require_memory(  # weights and prefix sums of about 2P bits, twice each
            4 * (m + blocks) * integer_bytes(2 * precision + 64),
            "MixedGeometric's two-level table",
            f"epsilon = {short_fraction(eps)}, sensitivity = {short_int(shift)}",
        )
        self._build(precision, m, blocks)
        self._m_out = (high - low) + 2 * t + 1
        self._k = ((1 << g) - 1) * self._m_out
        self._search: BlockSearch | None = None  # built by the first search: O(sqrt t) values
        if not self.privacy_holds():  # pragma: no cover - the construction makes it hold
            raise ParameterError(f"epsilon: {short_fraction(eps)} is not certified for this noise")

    def _build(self, p: int, m: int, blocks: int) -> None:
        a, b, top = self._a, self._b, 1 << p
        cells = [top]
        for _ in range(m - 1):
            cells.append(cells[-1] * a // b)
        factor_num, factor_den = cells[-1] * a, top * b
        rows = [top]
        for _ in range(blocks - 1):
            rows.append(rows[-1] * factor_num // factor_den)
        if cells[-1] < 1 or rows[-1] < 1:  # pragma: no cover - _precision keeps them large
            raise ParameterError("MixedGeometric: a weight fell to 0; raise the precision")
        self._cells, self._blocks = cells, rows
        # Prefix sums: cells_sum[r] = v(0) + ... + v(r - 1); blocks_sum likewise.
        self._cells_sum = _prefix(cells)
        self._blocks_sum = _prefix(rows)
        self._half = self._up_to(self._t)
        self._total = 2 * self._half - self.weight(0)

    # -- the law ---------------------------------------------------------------------------------

    def weight(self, z: int) -> int:
        """The integer noise weight ``w(|z|)`` (0 beyond ``t``)."""
        j = abs(z)
        if j > self._t:
            return 0
        q, r = divmod(j, self._block)
        return self._blocks[q] * self._cells[r]

    def _up_to(self, j: int) -> int:
        """``w(0) + ... + w(j)`` for ``0 <= j <= t``, from the two prefix tables."""
        q, r = divmod(j, self._block)
        return self._blocks_sum[q] * self._cells_sum[-1] + self._blocks[q] * self._cells_sum[r + 1]

    def noise_cdf(self, z: int) -> int:
        """``C(z) = sum_{y <= z} w(|y|)``: ``W Pr[noise <= z]`` before mixing."""
        if z < -self._t:
            return 0
        if z >= self._t:
            return self._total
        if z >= 0:
            return self._total - self._half + self._up_to(z)
        return self._half - self._up_to(-z - 1)

    def accuracy(self, beta: object) -> int | None:
        """The least ``a`` with ``Pr[|output - value| > a] <= beta`` for every value: the
        noise's two tails plus the uniform's whole share ``2^-g`` (``None`` when ``beta``
        is not above that share)."""
        b = probability(beta, "beta") - Fraction(1, 1 << self._gamma_bits)
        if b <= 0:
            return None
        total = self._total

        def within(a: int) -> bool:  # Pr[|noise| > a] <= b, exactly
            return (total - self.noise_cdf(a)) + self.noise_cdf(-a - 1) <= b * total

        low, high = 0, self._t  # within(t): the noise lies in [-t, t]
        while low < high:
            mid = (low + high) // 2
            if within(mid):
                high = mid
            else:
                low = mid + 1
        return low

    @property
    def t(self) -> int:
        """The truncation: the noise before mixing lies in ``[-t, t]``."""
        return self._t

    @property
    def block(self) -> int:
        """``m``, the block length of the two-level table (about ``sqrt t``)."""
        return self._block

    @property
    def ratio(self) -> Fraction:
        """``a/b``, the unit ratio of the recursions (``(b/a)^Delta <= e^(eps (1 - 2^-16))``)."""
        return Fraction(self._a, self._b)

    @property
    def noise_total(self) -> int:
        """``W``, the total noise weight."""
        return self._total

    @property
    def outputs(self) -> tuple[int, int]:
        """The public output range ``[L - t, H + t]``."""
        return self._low - self._t, self._high + self._t

    @property
    def d(self) -> int:
        """``2^g M W``: each sample is one draw uniform in ``[1, d]``."""
        return (1 << self._gamma_bits) * self._m_out * self._total

    @property
    def max_oracle_calls(self) -> int:
        """One draw per sample."""
        return 1

    @property
    def max_comparisons(self) -> int:
        """Two region tests, then fixed steps: among the block ends, then in one block.

        Every draw makes the same steps (:mod:`.leading`); the checker's symbolic
        draw is compared in those of its own region only.
        """
        return self._searcher().max_comparisons

    def _check_value(self, value: object) -> int:
        if type(value) is not int or not self._low <= value <= self._high:
            raise ParameterError(
                f"value: got {value!r}; it must be an integer in [{self._low}, {self._high}]"
            )
        return value

    def cdf(self, value: int, o: int) -> int:
        """``2^g M W Pr[output <= o]`` for the true ``value`` (any integer ``o``)."""
        s = self._check_value(value)
        first, last = self.outputs
        if o < first:
            return 0
        o = min(o, last)
        return (o - first + 1) * self._total + self._k * self.noise_cdf(o - s)

    def pmf(self, value: int) -> dict[int, Fraction]:
        """The exact law of the output for the true ``value``."""
        first, last = self.outputs
        d = self.d
        return {
            o: Fraction(self.cdf(value, o) - self.cdf(value, o - 1), d)
            for o in range(first, last + 1)
        }

    # -- sampling --------------------------------------------------------------------------------

    def __call__(self, value: int, u: int) -> int:
        """The output as a function of the draw: the least ``o`` with ``cdf(value, o) >= u``."""
        return self._invert(self._check_value(value), check_draw(u, self.d))

    def _invert(self, value: int, u: Any) -> int:
        return self._low - self._t + self._searcher().invert(value - self._low, u)

    def _searcher(self) -> BlockSearch:
        if self._search is None:
            self._search = BlockSearch(
                t=self._t,
                block=self._block,
                rows=self._blocks,
                rows_sum=self._blocks_sum,
                cells_sum=self._cells_sum,
                total=self._total,
                half=self._half,
                k=self._k,
                d=self.d,
            )
        return self._search

    def sample(self, value: int, rng: RandomSource | None = None) -> int:
        """One noisy value: one oracle call ``uniform(d)``."""
        s = self._check_value(value)
        return self._invert(s, draw(rng or default_source(), self.d))

    # -- privacy ---------------------------------------------------------------------------------

    def step_ratio(self) -> Fraction:
        """The largest ``w(j)/w(j + 1)`` over ``0 <= j < t``, exactly (``O(sqrt t)``)."""
        cells, rows = self._cells, self._blocks
        pairs = [(cells[r], cells[r + 1]) for r in range(len(cells) - 1)]
        # across a block: u(q) v(m-1) -> u(q+1) v(0)
        pairs += [(rows[q] * cells[-1], rows[q + 1] * cells[0]) for q in range(len(rows) - 1)]
        best_num, best_den = 1, 1
        for num, den in pairs:
            if num * best_den > best_num * den:
                best_num, best_den = num, den
        return Fraction(best_num, best_den)

    def boundary_ratio(self) -> Fraction:
        """``1 + (2^g - 1) M w(t - Delta + 1)/W``: the ratio where one side has no noise mass."""
        return 1 + Fraction(self._k * self.weight(self._t - self._sensitivity + 1), self._total)

    def privacy_holds(self) -> bool:
        """Whether ``Delta ln(step_ratio) <= eps`` and ``ln(boundary_ratio) <= eps``, decided
        with certified logarithms: then the output is ``eps``-DP for ``|S - S'| <= Delta``."""
        eps = self._epsilon
        step_high = ln_bounds(self.step_ratio(), 128)[1]
        boundary_high = ln_bounds(self.boundary_ratio(), 128)[1]
        return self._sensitivity * step_high <= eps and boundary_high <= eps

    # -- accuracy --------------------------------------------------------------------------------

    def noise_moment(self, p: int) -> Fraction:
        """``E|Z|^p`` of the noise before mixing, exactly (``O(p sqrt t)`` operations)."""
        p = _check_moment(p)
        m, t, cells, rows = self._block, self._t, self._cells, self._blocks
        # sum_j w(j) j^p over j = qm + r, expanded binomially in q m and r.
        full = [sum(c * r**e for r, c in enumerate(cells)) for e in range(p + 1)]
        total = 0
        last_q = t // m
        for q, u in enumerate(rows):
            if q < last_q:
                sums = full
            else:
                part = cells[: t - q * m + 1]
                sums = [sum(c * r**e for r, c in enumerate(part)) for e in range(p + 1)]
            total += u * sum(comb(p, i) * (q * m) ** i * sums[p - i] for i in range(p + 1))
        return Fraction(2 * total, self._total)

    def moment(self, p: int) -> Fraction:
        """The largest ``E|output - S|^p`` over true values, exactly (at an end of the range)."""
        p = _check_moment(p)
        t, m_out, g = self._t, self._m_out, self._gamma_bits
        uniform = Fraction(power_sum(t, p) + power_sum(m_out - 1 - t, p), m_out)
        gamma = Fraction(1, 1 << g)
        return (1 - gamma) * self.noise_moment(p) + gamma * uniform

    def __repr__(self) -> str:
        return (
            f"MixedGeometric(epsilon={short_fraction(self._epsilon)}, "
            f"sensitivity={self._sensitivity}, low={self._low}, high={self._high})"
        )


def _check_scale(eps: Fraction, shift: int) -> None:
    """Refuse, before any exponential is computed, a noise too narrow or too wide to tabulate.

    ``t >= 44 Delta/eps`` (the truncation needs ``(b/a)^t >= 2^64``), and the table
    keeps at least ``2 sqrt(t)`` integers of at least 64 bits.
    """
    if eps > MAX_UNIT_EPSILON * shift:
        raise ParameterError(
            f"epsilon: got {short_fraction(eps)} for sensitivity {short_int(shift)}; at most "
            f"{MAX_UNIT_EPSILON} per unit of the grid (the noise would be 0 with probability "
            f"above 1 - 2e^-{MAX_UNIT_EPSILON}); use a finer grid"
        )
    t_least = (44 * shift / eps).__ceil__()
    require_memory(
        16 * (isqrt(t_least) + 1),
        "MixedGeometric's two-level table",
        f"epsilon = {short_fraction(eps)}, sensitivity = {short_int(shift)}",
    )


def _check_moment(p: object) -> int:
    q = check_positive_int(p, "p")
    if q > MAX_MOMENT:
        raise ParameterError(f"p: got {short_int(q)}; moments up to p = {MAX_MOMENT} are computed")
    return q


def _prefix(values: list[int]) -> list[int]:
    out, running = [0], 0
    for v in values:
        running += v
        out.append(running)
    return out


def _unit_ratio(eps: Fraction, shift: int) -> Fraction:
    """The simplest rational (least denominator) in the real interval
    ``[e^(eps (1 - 2^-15)/Delta), e^(eps (1 - 2^-16)/Delta)]``.

    Found between rational brackets of the two ends: the simplest rational of the
    inner bracket lies in the interval, and when it is also the simplest of the
    outer bracket (a superset) it is the interval's own; else more bits.
    """
    low = eps * (1 - Fraction(2, 1 << SLACK_BITS)) / shift
    high = eps * (1 - Fraction(1, 1 << SLACK_BITS)) / shift
    bits = 64 + shift.bit_length() + (1 / eps).__ceil__().bit_length() + 2 * SLACK_BITS
    while True:
        (low_down, low_up), (high_down, high_up) = exp_bounds(low, bits), exp_bounds(high, bits)
        if low_up <= high_down:
            inner = simplest_between(low_up, high_down)
            if inner == simplest_between(low_down, high_up):
                return inner
        bits *= 2


def _truncation(ratio: Fraction, eps: Fraction, shift: int, span: int, g: int) -> int:
    """The least ``t`` found by iteration with ``ratio^(t - Delta + 1) >= 2^g M(t)/eps``.

    ``w(j) <= 2^(2P) ratio^-j`` and ``W >= 2^(2P)``, so then the boundary ratio
    is at most ``1 + eps <= e^eps``.
    """
    t = shift
    while True:
        needed = shift - 1 + ceil_log_ratio(ratio, Fraction((1 << g) * (span + 2 * t + 1)) / eps)
        if needed <= t:
            return t
        t = needed


def _precision(ratio: Fraction, eps: Fraction, shift: int, t: int, m: int) -> int:
    """``P``: every weight's one-step ratio is within ``1 + eps 2^-18/Delta`` of ``b/a``.

    A floor ``floor(x a/b)`` of ``x >= 2^G`` changes the step ratio by a factor
    at most ``1/(1 - (b/a) 2^-G)``; ``G = bits(ceil(2^19 Delta (b/a)/eps)) + 1``
    keeps that below ``eps 2^-18/Delta``.  The weights at ``t + m`` (the deepest
    the recursions reach) stay above ``2^G`` when ``P >= G + (t + m) log2(b/a) +
    bits(t) + 4``; ``log2(b/a)`` is at most both ``3 (b - a)/(2 a)`` (as
    ``ln x <= x - 1`` and ``1/ln 2 < 3/2``) and ``bitlength(ceil(b/a))``, so the rule
    is exact rational arithmetic (SPEC.md section 2e).
    """
    guard = (ratio * shift * (1 << (SLACK_BITS + 3)) / eps).__ceil__().bit_length() + 1
    per_step = min(3 * (ratio - 1) / 2, Fraction(ratio.__ceil__().bit_length()))
    spread = ((t + m) * per_step).__ceil__()
    return guard + spread + t.bit_length() + 4
