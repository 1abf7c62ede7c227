"""The blanket: which empty bins a thresholded BasicHistogram releases, in linear time.

Paper: BV Alg 5.1, Thm 5.2 (BasicHistogram) and Lemma 2.13 (inverse-CDF sampling);
the construction is finitedp's (``proofs_notes/blanket_histogram.md``), after the
"private item blanket" of Kerschbaum, Lee & Wu 2025 (arXiv 2507.17017), whose text
was not available.

Give every bin of ``X = [1, N]`` a noisy count ``M(c_x, U)`` and release the bins
whose noisy count exceeds ``b``: that is post-processing of BasicHistogram, so it is
``eps``-DP when ``M`` is ``eps/2``-DP for counting queries (replace one row).  The
empty bins are the problem: each is released independently with probability
``p = Pr[M(0, U) > b] = A/d``, so the released empty bins are the empty members of a
random set ``B`` holding each bin of ``X`` independently with probability ``p`` --
a set whose law does not depend on the data.  ``|B|`` is ``Bin(N, p)``; given
``|B| = k``, ``B`` is a uniform ``k``-subset (the first ``k`` keys of a sparse
Fisher-Yates shuffle of ``X``).

``Bin(N, p)`` with ``N`` near ``2^64`` has no exact sampler of bounded work (its
probabilities have ``N``-digit denominators).  :class:`BlanketChain` samples ``|B|``
through the conditional probabilities ``r_j = Pr[|B| > j | |B| >= j]``, one draw in
``[1, 2^G]`` per step, each ``r_j`` and ``1 - r_j`` replaced by a dyadic rational
within a factor ``1 + 2^-h`` (certified step by step in integers).  Every output's
probability is then within ``(1 + 2^-h)^(L + 1)`` of the thresholded BasicHistogram's,
so the ratio between neighbours grows by at most ``(1 + 2^-h)^(2(L + 1))``; ``h`` is
chosen so that this stays inside the budget ``e^eps`` left over by the sampler's
rational ratio (decided exactly).  The chain stops at ``L = 2n``: a blanket larger
than ``2n`` holds more than ``n`` empty bins, and every release with more than ``n``
bins is replaced by the empty release (post-processing), so the cut changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from ..counting.base import CountingSampler, bisect_cdf
from ..counting.fastsample import FastSample
from ..counting.geosample import GeoSample
from ..errors import NotApplicableError, ParameterError
from ..guarantees import Accuracy, Privacy
from ..oracle import RandomSource, discard, draw
from ..params import exact_fraction, inverse_natural, short_fraction, short_int
from ..resources import gmp_seconds, require_time
from .basic import noisy_counts
from .blanketchain import BlanketChain, slack_bits, uniform_keys
from .keepheavy import check_sparse_universe
from .mechanisms import HistogramMechanism, check_noise, sample_accuracy
from .release import PartialHistogram

__all__ = [
    "BLANKET_US",
    "BlanketHistogram",
    "blanket_histogram",
    "blanket_threshold",
    "require_blanket_time",
]

#: Microseconds per row of a release over ``2^64``, rounded up from a 2-core machine
#: for the worst case, every row distinct (2026-11-29: 9.9 us at 10^6, seeded or not,
#: the occupied bins' noisy counts and their output); 0.24 us (0.83 seeded: SHAKE-256's
#: bytes) with 10^4 distinct keys at 10^7 rows, now that the chain computes block 0
#: only (:meth:`~.blanketchain.BlanketChain.sample`), not ``2n + 1`` certified steps.
BLANKET_US = 16

#: FastSample's uniform share is 2^-PHANTOM_BITS / N: any absent key is listed far off
#: (the uniform component's count) with probability at most 2^-40 per release.
PHANTOM_BITS = 40


def require_blanket_time(n: int, universe_size: int) -> None:
    """Refuse a blanket release of ``n`` rows estimated above the time budget.

    ``BLANKET_US`` per row, plus the shuffle's ``2n`` draws in ``[1, N - i]``: a few
    passes over ``bits(N)``-bit integers each (a long key universe, ``utf8:L``).

    Raises:
        ResourceLimitError: above ``FINITEDP_MAX_SECONDS`` (10 minutes by default).
    """
    require_time(
        Fraction(BLANKET_US * n, 10**6) + gmp_seconds(universe_size.bit_length(), 8 * n),
        "the blanket histogram (6n + 1 draws, 2n of them keys of the universe)",
        f"n = {short_int(n)}, |X| of {short_int(universe_size.bit_length())} bits",
        "use fewer rows or a shorter key universe",
    )


def blanket_threshold(sampler: CountingSampler, universe_size: int, budget: Fraction) -> int:
    """The least ``b`` in ``[0, n - 1]`` with ``N Pr[M(0, U) > b] <= budget``, from ``M``'s CDF.

    ``N Pr[M(0, U) > b]`` is the expected size of the blanket, which bounds the
    probability that any empty bin is released.

    Raises:
        NotApplicableError: no such ``b`` (every release would be empty or the blanket too large).
    """
    d, n, num, den = sampler.d, sampler.n, budget.numerator, budget.denominator

    # N (d - F(0, b)) <= (num/den) d  iff  N den F(0, b) >= d (N den - num): a CDF search.
    def scaled(b: int) -> int:
        return universe_size * den * sampler.cdf(0, b)

    target = d * (universe_size * den - num)
    if scaled(n - 1) < target:
        raise NotApplicableError(
            f"n: got {n}; no threshold b < n keeps the expected blanket N Pr[M(0, U) > b] at "
            f"most {short_fraction(budget)} for N = {short_int(universe_size)}: use more rows, a "
            f"larger "
            f"epsilon or a larger beta"
        )
    return bisect_cdf(scaled, n - 1, target)


def blanket_histogram(
    sampler: CountingSampler,
    threshold: int,
    chain: BlanketChain,
    counts: Mapping[int, int],
    universe_size: int,
    rng: RandomSource,
) -> PartialHistogram:
    """The thresholded BasicHistogram of ``counts``, its empty bins from the blanket.

    Paper: BV Alg 5.1 and Thm 5.2 (then keep noisy counts above ``b``), with
    :class:`BlanketChain` and :func:`uniform_keys` for the empty bins
    (``proofs_notes/blanket_histogram.md``).

    Oracle calls, ``6n + 1`` for every dataset (``L = 2n``): ``n`` in ``[1, d]``
    (the occupied bins' noisy counts in increasing order of ``x``, then padding),
    ``L + 1`` in ``[1, 2^G]`` (the chain), ``L`` in ``[1, N - i]`` for ``i = 0..L-1``
    (the shuffle), ``n`` in ``[1, d - F(0, b)]`` (the released empty bins' values in
    increasing order of ``x``, then padding).  A release of more than ``n`` bins is
    replaced by the empty release.

    Args:
        sampler: ``M``, ``eps/2``-DP for counting queries, with ``n`` rows.
        threshold: ``b``: noisy counts above it are released.
        chain: the blanket's size, for this sampler's ``A = d - F(0, b)`` and ``L = 2n``.
        counts: ``{x: c_x}`` of the occupied bins, validated, increasing in ``x``.
        universe_size: ``N = |X|``.
        rng: the randomness source.
    """
    n, d = sampler.n, sampler.d
    noisy = noisy_counts(sampler, counts, counts, rng)
    discard(rng, d, n - len(counts))
    released = [(x, c) for x, c in noisy if c > threshold]
    size = chain.sample(rng)
    last = chain.steps - 1
    keys = uniform_keys(rng, universe_size, last if size is None else size, last)
    empty = sorted(x for x in keys if x not in counts)
    floor = sampler.cdf(0, threshold)
    if size is None or len(released) + len(empty) > n:
        discard(rng, d - floor, n)
        return PartialHistogram.from_pairs(universe_size, [])
    values = [sampler.tail_value(floor, draw(rng, d - floor)) for _ in empty]
    discard(rng, d - floor, n - len(empty))
    return PartialHistogram.from_pairs(
        universe_size, sorted([*released, *zip(empty, values, strict=True)])
    )


class BlanketHistogram(HistogramMechanism):
    """Noisy counts above a threshold, empty bins included through the blanket: ``(eps, 0)``-DP.

    Paper: BV Alg 5.1, Thm 5.2 (BasicHistogram, then keep the noisy counts above
    ``b``); the blanket is finitedp's (``proofs_notes/blanket_histogram.md``), after
    Kerschbaum, Lee & Wu 2025.  Neighbours replace one row (BV Def 2.1).

    The release is the BasicHistogram of every bin of ``X`` with ``M`` = FastSample
    (``gamma = beta/(4|X|)``) or GeoSample, keeping noisy counts above the least ``b``
    whose expected number of released empty bins is at most ``beta/2``, and replaced by
    the empty release if it has more than ``n`` bins: exactly, except that the number
    of empty bins released is sampled within a factor ``(1 + 2^-h)^(2n + 1)``, which
    the budget left by ``M``'s rational ratio absorbs (decided exactly at construction).
    Work: ``6n + 1`` oracle calls and ``O(n)`` other steps for every dataset, any ``|X|``.

    >>> mech = BlanketHistogram(n=400, universe_size=2**64, epsilon=1, beta="1/100")
    >>> mech.privacy, mech.threshold, mech.max_oracle_calls
    (Privacy(epsilon=Fraction(1, 1), delta=Fraction(0, 1)), 99, 2401)
    >>> from finitedp.oracle import SeededSource
    >>> release = mech.release({7: 250, 2**40: 150}, rng=SeededSource(b"blanket"))
    >>> sorted(release) == [7, 2**40], abs(release[7] - 250) <= mech.accuracy("1/100").per_query
    (True, True)

    Args:
        n: the number of rows.
        universe_size: ``|X| >= 2n + 1``.
        epsilon: the budget.
        beta: the smallest failure probability asked of :meth:`accuracy`, ``1/k``.
        counter: ``"fast"`` (FastSample, the default) or ``"geo"`` (GeoSample: integers
            of ``n log2(b)`` bits, for small ``n``).
        noise: ``"tight"`` (the default) or ``"paper"`` (GeoSample only: FastSample's
            paper ratio is proved only against the irrational ``e^(eps/2)``).
        absent: the bound on the expected number of keys absent from the data that a
            release lists (``N Pr[M(0, U) > b]``), in ``(0, beta/2]``; ``beta/2`` by
            default.  ``2^-40`` lists none in practice, at a higher threshold ``b``.
            FastSample's uniform share is ``2^-40/N`` either way, so an absent key is
            listed with an arbitrary count with probability at most ``2^-40``.

    Raises:
        ParameterError: parameters out of range; NotApplicableError (a ParameterError):
            ``n`` too small for the threshold, or a ratio that leaves no budget for the
            chain; ResourceLimitError: the time estimated above the budget.
    """

    __slots__ = ("_beta", "_chain", "_noise", "_sampler", "_threshold")

    def __init__(
        self,
        n: object,
        universe_size: object,
        epsilon: object,
        beta: object,
        *,
        counter: str = "fast",
        noise: str = "tight",
        absent: object = None,
    ) -> None:
        super().__init__(n, universe_size)
        self._noise = check_noise(noise)
        m = check_sparse_universe(self._universe_size, self._n, "BlanketHistogram")
        require_blanket_time(self._n, m)
        self._beta = inverse_natural(beta, "beta", below_one=True)
        steps = 2 * self._n + 1
        self._sampler: CountingSampler
        if counter == "fast":
            if noise == "paper":
                raise ParameterError(
                    'noise: "paper" with counter "fast": FastSample\'s paper ratio is proved '
                    'only against the irrational e^(eps/2); use noise "tight" or counter "geo"'
                )
            gamma = Fraction(1, m << PHANTOM_BITS)
            self._sampler = FastSample(self._n, epsilon, gamma, noise=noise, samples=2 * self._n)
        elif counter == "geo":
            self._sampler = GeoSample(self._n, epsilon, noise=noise, samples=2 * self._n)
        else:
            raise ParameterError(f'counter: got {counter!r}; use "fast" (FastSample) or "geo"')
        ratio = self._sampler.privacy_ratio
        if ratio is None:  # pragma: no cover - refused above (FastSample's paper ratio)
            raise ParameterError("noise: the sampler has no proven rational ratio")
        h = slack_bits(ratio, self._sampler.epsilon, steps)
        self._threshold = blanket_threshold(self._sampler, m, self._absent_budget(absent))
        tail = self._sampler.d - self._sampler.cdf(0, self._threshold)
        self._chain = BlanketChain(m, tail, self._sampler.d, steps - 1, h)

    def _absent_budget(self, absent: object) -> Fraction:
        """The bound on the expected blanket: ``beta/2``, or a smaller ``absent`` asked for."""
        if absent is None:
            return self._beta / 2
        budget = exact_fraction(absent, "absent")
        if not 0 < budget <= self._beta / 2:
            raise ParameterError(
                f"absent: got {short_fraction(budget)}; the expected number of absent keys "
                f"listed must lie in (0, beta/2 = {short_fraction(self._beta / 2)}] (the "
                "accuracy statement gives the blanket half of beta)"
            )
        return budget

    @property
    def sampler(self) -> CountingSampler:
        """The counting-query sampler ``M``."""
        return self._sampler

    @property
    def chain(self) -> BlanketChain:
        """The blanket's size sampler (its ``h``, ``G`` and steps)."""
        return self._chain

    @property
    def threshold(self) -> int:
        """``b``: noisy counts at most ``b`` are not released."""
        return self._threshold

    @property
    def noise(self) -> str:
        """``"tight"`` or ``"paper"``: the sampler's ratio."""
        return self._noise

    @property
    def privacy(self) -> Privacy:
        """``(eps, 0)``: BV Thm 5.2 i (thresholded BasicHistogram) with the chain's factor."""
        return Privacy(self._sampler.epsilon)

    def accuracy(self, beta: object) -> Accuracy:
        """Per query ``a`` on counts above ``b + a``; ``a' + b`` for all; ``beta >= self.beta``.

        ``a`` and ``a'`` are the sampler's exact accuracies at ``beta/2`` and
        ``beta/(2n)``; the other ``beta/2`` covers the blanket (an empty bin released,
        or the empty release), whose probability is at most ``N Pr[M(0, U) > b] <=
        self.beta/2``.  Entries are ``None`` below ``self.beta``.

        Raises:
            ParameterError: ``beta`` outside ``(0, 1)``.
        """
        b = exact_fraction(beta, "beta")
        if not 0 < b < 1:
            raise ParameterError(f"beta: got {short_fraction(b)}; it must lie in (0, 1)")
        source = "BV Thm 5.2 ii-iii with the sampler's exact ratio, the threshold and the blanket"
        if b < self._beta:
            return Accuracy(b, None, None, None, source)
        a = sample_accuracy(self._sampler, b / 2)
        a_all = sample_accuracy(self._sampler, b / (2 * self._n))
        t = self._threshold
        every = None if a_all is None else a_all + t
        return Accuracy(
            b,
            a,
            None if a is None else a + t,
            every,
            source,
            absent_listed=self.absent_tail(t),
            absent_beyond=None if every is None else min(Fraction(1), self.absent_tail(every)),
        )

    def absent_tail(self, count: int) -> Fraction:
        """``N Pr[M(0, U) > count]``, exact: for ``count = b`` the expected number of absent
        keys listed; above it, a union bound on some absent key listed with a larger count
        (a listed empty bin's count follows ``M(0, U)`` above ``b``).  FastSample's uniform
        share adds at most ``N gamma = 2^-PHANTOM_BITS`` to it."""
        s = self._sampler
        if count >= self._n:
            return Fraction(0)
        return Fraction(self._universe_size * (s.d - s.cdf(0, count)), s.d)

    @property
    def max_oracle_calls(self) -> int:
        """``6n + 1``: ``n`` noisy counts, ``2n + 1`` chain steps, ``2n`` shuffle draws,
        ``n`` values of released empty bins; exactly that many for every dataset."""
        return 6 * self._n + 1

    def _release(self, counts: dict[int, int], rng: RandomSource) -> PartialHistogram:
        return blanket_histogram(
            self._sampler, self._threshold, self._chain, counts, self._universe_size, rng
        )

    def __repr__(self) -> str:
        return (
            f"BlanketHistogram(n={self._n}, universe_size={self._universe_size}, "
            f"epsilon={self._sampler.epsilon}, beta={self._beta}"
            + (")" if self._noise == "tight" else ', noise="paper")')
        )
