"""KeepHeavy's top ``k`` over a universe too large to touch, for values in ``[0, U]``.

Paper: BV Alg 6.1 (KeepHeavy), Alg 6.4 and Prop 6.5 (KH'), Alg 6.20 and
Prop 6.19 (ApproxOrdSample), Alg 3.1 and Lemma 3.2 (mixing), Alg 6.9 (the
mixture that makes SparseHistogram pure) -- generalised from counts in
``[0, n]`` with ``n`` bins kept to values in ``[0, U]`` with ``k`` kept.  Lebeda
thesis Sections 3.6-3.7 need it: "add noise to every element of the universe
and release the top ``k``" ([CLSX12]), over universes of any size.

The dense release (:func:`dense_keep_heavy`) adds ``M(v_x)`` to every element
and keeps those strictly above the ``(k+1)``-th largest noisy value (and
positive): BV's KeepHeavy rule, so ties need no randomness.  Only ``|A| <= k``
elements have ``v_x > 0``; the other ``m = d - |A|`` noisy values are i.i.d.
``M(0)``, and only their top ``k + 1`` can matter.  :func:`sparse_keep_heavy`
draws noise for ``A``, ``k + 1`` distinct uniform elements outside ``A``, and
their values as the top ``k + 1`` order statistics of ``m`` draws of ``M(0)``:
identically distributed to the dense release (BV Prop 6.5, same argument)
when those order statistics are exact.

The order statistics (:func:`approx_top_sample`).  BV's ApproxOrdSample walks
every level ``U, U - 1, ..., 1`` with one draw each: fine for counts (``U = n``),
not for Section 3.6's ``U = k N``.  Here each step takes one draw ``u`` and
finds, by binary search over ``v``, the largest remaining value and how many of
the remaining variables take it, from the joint CDF ``Pr[all <= v and #{= v} <=
c]`` ordered by ``(v, c)``: ApproxConvExp of ``(s F(v-1)/F(hi), s (F(v) -
F(v-1))/F(hi))``.  At most ``k + 1`` steps; the statistical distance from the exact
order statistics is at most ``r^2 (r + 2)(U + 1) m / s`` with ``r = k + 1``
(``proofs_notes/pmg.md``), so ``s`` has ``O(k log(dU) + log(1/beta1))`` bits.

Purity.  Within statistical distance ``delta`` of a pure ``eps``-DP release, so
mixing with the data-independent :func:`top_fallback` (probability ``beta1``) is
pure ``eps``-DP when BV's condition (1) holds, which is decided exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from math import comb

import gmpy2

from ..counting.base import CountingSampler
from ..errors import ParameterError
from ..histograms.approx import RoundCdf
from ..histograms.distinct import distinct_sample
from ..histograms.keepheavy import heavy_threshold
from ..oracle import CountingSource, RandomSource, discard, draw, uniform_value
from ..params import check_positive_int, short_int
from ..resources import require_bits

__all__ = [
    "approx_top_sample",
    "dense_keep_heavy",
    "fallback_min_probability",
    "kept",
    "sparse_keep_heavy",
    "top_delta",
    "top_fallback",
    "top_precision",
]

Heavy = tuple[tuple[int, int], ...]


def kept(candidates: list[tuple[int, int]], k: int) -> Heavy:
    """KeepHeavy's rule: the pairs strictly above the ``(k+1)``-th largest value, and positive.

    Paper: BV Alg 6.1 step 3 (``n`` there is ``k`` here); the value does not depend on
    how ties are ordered (BV footnote 5), so no tie-breaking randomness is used.
    """
    threshold = heavy_threshold((c for _, c in candidates), k)
    return tuple(sorted((x, c) for x, c in candidates if c > threshold and c > 0))


def dense_keep_heavy(
    values: Mapping[int, int],
    sampler: CountingSampler,
    universe_size: int,
    k: int,
    rng: RandomSource,
) -> Heavy:
    """``M(v_x)`` for every element ``x = 1..d`` (one call each, in order), then :func:`kept`.

    Paper: BV Alg 6.1 with values in ``[0, U]`` (``U = sampler.n``) and ``k`` kept, as
    Lebeda thesis Sections 3.6-3.7 use it; choosing is post-processing of the noisy
    vector.  Needs ``d >= k + 1``.
    """
    noisy = [(x, sampler.sample(values.get(x, 0), rng)) for x in range(1, universe_size + 1)]
    return kept(noisy, k)


# -- the order statistics ------------------------------------------------------------


def top_precision(top: int, r: int, m: int, delta: Fraction) -> int:
    """``s = ceil(r^2 (r + 2)(U + 1) m / delta)``: :func:`approx_top_sample` within ``delta``.

    Paper: BV Prop 6.19's argument with levels replaced by the ``(U + 1) r`` points
    ``(v, c)`` of one step (``proofs_notes/pmg.md``).
    """
    bound = r * r * (r + 2) * (top + 1) * m
    return -(-bound * delta.denominator // delta.numerator)


def _count_at(
    scaled: Callable[[int, int, int], int],
    v: int,
    hi: int,
    big_s: gmpy2.mpz,
    remaining: int,
    need: int,
    u: object,
) -> int:
    """How many of the top ``need`` sit at ``v``, given that the largest is ``v`` (one step)."""
    if need == 1:
        return 1
    low, here = scaled(v - 1, -1, hi), scaled(v, v - 1, hi)
    t_prime = 2
    while True:  # Alg 6.18's doubling: the first terms do not depend on t' (Prop 6.15 ii)
        cdf = RoundCdf([low, here] + [0] * (t_prime - 2), remaining, int(big_s), t_prime)
        for ell in range(max(1, t_prime // 2), min(t_prime, need)):
            if cdf.at_least(ell, u):  # type: ignore[arg-type]
                return ell
        if t_prime >= need:
            return need
        t_prime *= 2


def _ratio(
    s: gmpy2.mpz, num: tuple[int, int, int], den: tuple[int, int, int], ceiling: bool
) -> int | None:
    """``floor`` (or ``ceil``) of ``s N / D`` for ``N``, ``D`` given as brackets
    ``(lo, hi, t)``, when both ends of the bracket of ``s N / D`` give the same; else
    ``None`` (the caller computes it exactly)."""
    (n_lo, n_hi, n_at), (d_lo, d_hi, d_at) = num, den
    if d_lo <= 0:
        return None
    shift = n_at - d_at
    # s N / D below 1: its floor is 0, and its ceiling 1 where N > 0, without a division
    if (s * n_hi).bit_length() + shift < d_lo.bit_length() - 1:
        if not ceiling:
            return 0
        return 1 if n_lo > 0 else None
    low, high = s * n_lo, s * n_hi
    below, above = d_hi, d_lo
    if shift >= 0:
        low, high = low << shift, high << shift
    else:
        below, above = below << -shift, above << -shift
    if ceiling:
        first, last = -(-low // below), -(-high // above)
    else:
        first, last = low // below, high // above
    return int(first) if first == last else None


def approx_top_sample(
    cdf: Callable[[int], int],
    top: int,
    r: int,
    m: int,
    s: int,
    rng: RandomSource,
    gaps: Callable[[int, int], tuple[int, int, int]] | None = None,
) -> tuple[int, ...]:
    """ApproxTopSample: about the top ``r`` order statistics of ``m`` i.i.d. draws from ``F``.

    Paper: BV Alg 6.20 / Prop 6.19 generalised (levels found by binary search);
    proof in ``proofs_notes/pmg.md``.

    ``F: [0, U] -> [1, F(U)]`` is non-decreasing (``Pr[Z <= v] = F(v)/F(U)``).  Each
    step draws ``u`` in ``[1, s]``; with ``hi`` the largest value still possible and
    ``M`` variables left, it returns the least ``(v, c)`` (ordered by ``v``, then ``c``)
    whose approximate CDF reaches ``u``: ``v`` is the least with
    ``ApproxConvExp_{s,1}(floor(s F(v)/F(hi)), M) >= u``, and ``c`` the least in
    ``[1, need - 1]`` whose prefix sum of ``ApproxConvExp_{s,t}((floor(s F(v-1)/F(hi)),
    floor(s (F(v) - F(v-1))/F(hi))), M)`` reaches ``u``, else ``need``.  Then ``c``
    copies of ``v`` are placed and ``hi = v - 1``.  Within statistical distance
    ``r^2 (r + 2)(U + 1) m / s`` of the exact order statistics.

    Oracle calls: between 1 and ``r`` draws in ``[1, s]`` (one per distinct value
    found), each only compared with integers.  ``F`` is evaluated at the points the
    searches visit (about ``log2(U)`` per step), never at all ``U + 1``.

    Args:
        cdf: ``F``, e.g. ``sampler.scaled_cdf_at_zero``.
        top: ``U``, the largest value.
        r: how many order statistics, ``r >= 1``.
        m: the number of variables, ``m >= r``.
        s: the precision, ``s >= m``.
        rng: the randomness source.
        gaps: ``(lo, hi, t)`` with ``lo 2^t <= F(v) - F(w) <= hi 2^t`` (``F(-1) = 0``),
            e.g. ``GeoSample.gap_bracket`` at a precision: each floor above is decided
            from them where they leave no doubt, and from ``F`` exactly only where they
            do (the same values; ``F`` of ``n log b`` bits is then computed a handful of
            times at most, not ``r log2 U`` times).  ``floor(s F(v)/F(hi))`` is read as
            ``s - ceil(s (F(hi) - F(v))/F(hi))``, so that a value near ``s`` is decided
            from the small difference's own leading bits.

    Returns:
        ``r`` values in ``[0, U]``, non-increasing.

    Raises:
        ParameterError: a parameter out of range, or ``F`` not an int in ``[1, F(U)]``.
    """
    if top < 0:
        raise ParameterError(f"top: got {top}; it must be >= 0")
    r = check_positive_int(r, "r")
    if m < r:
        raise ParameterError(f"m: got {m}; it must be at least r = {r}")
    if s < m:
        raise ParameterError(f"s: got {short_int(s)}; it must be at least m = {short_int(m)}")
    cache: dict[int, int] = {-1: 0}

    def f(v: int) -> int:
        if v not in cache:
            value = cdf(v)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ParameterError(f"cdf: F({v}) = {value!r}; F maps [0, U] to ints >= 1")
            cache[v] = value
        return cache[v]

    big_s = gmpy2.mpz(s)

    def scaled(v: int, w: int, hi: int) -> int:
        """``floor(s (F(v) - F(w)) / F(hi))`` (``w = -1``: ``F(w) = 0``), exactly."""
        if gaps is not None:
            total = gaps(hi, -1)
            if w == -1 and v < hi:  # s - ceil(s (F(hi) - F(v)) / F(hi))
                rest = _ratio(big_s, gaps(hi, v), total, ceiling=True)
                if rest is not None:
                    return int(big_s - rest)
            else:
                decided = _ratio(big_s, gaps(v, w), total, ceiling=False)
                if decided is not None:
                    return int(decided)
        return int(big_s * (f(v) - f(w)) // f(hi))

    out: list[int] = []
    hi, remaining, need = top, m, r
    while need:
        u = draw(rng, s)
        if type(u) is int:  # the checker's symbolic draws are only ever compared
            u = gmpy2.mpz(u)
        low, high = 0, hi
        while low < high:  # G(v) = approx (F(v)/F(hi))^M is non-decreasing, G(hi) = s
            mid = (low + high) // 2
            if RoundCdf([scaled(mid, -1, hi)], remaining, s, 1).at_least(0, u):
                high = mid
            else:
                low = mid + 1
        count = _count_at(scaled, low, hi, big_s, remaining, need, u)
        out.extend([low] * count)
        need, remaining, hi = need - count, remaining - count, low - 1
    return tuple(out)


# -- the mechanism over a large universe ----------------------------------------------


def sparse_keep_heavy(
    values: Mapping[int, int],
    sampler: CountingSampler,
    universe_size: int,
    k: int,
    s: int,
    rng: RandomSource,
) -> Heavy:
    """:func:`dense_keep_heavy` simulated from ``|A| <= k`` noisy values and ``k + 1`` empty ones.

    Paper: BV Alg 6.4 (KH') with ``k`` kept and values in ``[0, U]``, and
    :func:`approx_top_sample` for the order statistics (as BV Alg 6.21 uses
    ApproxOrdSample): within statistical distance ``r^2 (r+2)(U+1) d / s`` of the
    dense release for every input (``r = k + 1``).

    Oracle calls, in order (``A`` = the keys with ``v_x > 0``, increasing;
    ``D = sampler.d``): ``|A|`` draws in ``[1, D]`` (their noise), then ``k - |A|`` more
    in ``[1, D]``, discarded; ``k + 1`` draws in ``[1, d - |A| - i]``, ``i = 0..k``
    (DistinctSample: the domains reveal ``|A|``, as in BV Alg 6.21); between 1 and
    ``k + 1`` draws in ``[1, s]``, topped up to ``k + 1``.  Always ``3k + 2`` calls.

    Raises:
        ParameterError: more than ``k`` positive values, or ``d < 2k + 1``.
    """
    occupied = sorted(x for x, v in values.items() if v > 0)
    if len(occupied) > k or universe_size < 2 * k + 1:
        raise ParameterError(
            f"values: {len(occupied)} positive in a universe of {short_int(universe_size)}; "
            f"this release needs at most k = {k} and d >= 2k + 1 = {2 * k + 1}"
        )
    candidates = [(x, sampler.sample(values[x], rng)) for x in occupied]
    discard(rng, sampler.d, k - len(occupied))  # the same calls, values never made
    empty = distinct_sample(occupied, universe_size, k + 1, rng)
    calls = CountingSource(rng)
    precision = s.bit_length() + 128  # F's brackets decide each floor but w.p. ~2^-120
    levels = approx_top_sample(
        sampler.scaled_cdf_at_zero,
        sampler.n,
        k + 1,
        universe_size - len(occupied),
        s,
        calls,
        lambda v, w: sampler.gap_bracket(v, w, precision),
    )
    for _ in range(k + 1 - calls.calls):
        draw(rng, s)
    candidates.extend(zip(empty, levels, strict=True))
    return kept(candidates, k)


def top_fallback(k: int, universe_size: int, top: int, rng: RandomSource) -> Heavy:
    """The data-independent release mixed in: ``j`` uniform keys with uniform values in ``[1, U]``.

    Paper: the role of BV Alg 6.9 step 2 (the distribution ``D`` of Thm 6.10 i) for
    this output space.  ``j`` is uniform in ``[0, k]``; the keys are the first ``j`` of
    ``DistinctSample(empty, k)`` and each gets a uniform value in ``[1, U]``.

    Oracle calls: one in ``[1, k + 1]``, ``k`` in ``[1, d - i]`` (``i = 0..k-1``), ``k``
    in ``[1, U]``: ``2k + 1``, with public domains.
    """
    j = uniform_value(rng, 0, k)
    keys = distinct_sample((), universe_size, k, rng)
    values = [uniform_value(rng, 1, top) for _ in range(k)]
    return tuple(sorted(zip(keys[:j], values[:j], strict=True)))


def fallback_min_probability(k: int, universe_size: int, top: int) -> Fraction:
    """``1/((k + 1) C(d, k) U^k)``: the least probability :func:`top_fallback` gives an output.

    A release of ``j`` pairs has probability ``1/((k + 1) C(d, j) U^j)``, which decreases
    with ``j`` when ``d >= 2k`` (``C(d, j+1)/C(d, j) = (d - j)/(j + 1) >= 1``).
    """
    require_bits(
        k * (universe_size.bit_length() + top.bit_length()),
        "the fallback's least probability 1/((k+1) C(d, k) U^k)",
        f"k = {k}, universe_size = {short_int(universe_size)}, U = {short_int(top)}",
    )
    return Fraction(1, (k + 1) * comb(universe_size, k) * top**k)


def top_delta(epsilon: Fraction, beta1: Fraction, k: int, universe_size: int, top: int) -> Fraction:
    """``min(eps, 1)/3 * beta1 * min_r Pr[fallback = r]``: the distance allowed from dense.

    Paper: BV Alg 6.9 step 1's choice (``eps/3 beta1 (1/(3|X|))^n``) for this fallback;
    condition (1) of Lemma 3.2 holds because ``(e^eps - 1)/(e^eps + 1) >= min(eps, 1)/3``
    and ``beta1/(1 - beta1) >= beta1`` (and is decided exactly all the same).
    """
    return min(epsilon, Fraction(1)) / 3 * beta1 * fallback_min_probability(k, universe_size, top)
