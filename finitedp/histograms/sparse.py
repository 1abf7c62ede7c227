"""SparseHistogram and PureSparseHistogram: pure DP in time polylogarithmic in ``|X|``.

Paper: BV Section 6.2-6.3: Thm 6.8 and Alg 6.21 (SparseHistogram, proved with
Prop 6.19), Alg 6.9 and Thm 6.10 (PureSparseHistogram), Thm 6.11 and Fig 5
(its instantiations with GeoSample and FastSample).

* :func:`sparse_histogram` is ``SparseHistogram_{M,delta}``: BV's KH' (Alg 6.4,
  :func:`finitedp.histograms.keepheavy.kh_prime`) with the exact order statistics replaced
  by ``ApproxOrdSample_{F_M}(m, s)``, ``s = (n^2 + 2n)|X|/delta`` (Alg 6.20 /
  6.21).  It is within statistical distance ``delta`` of KH' (Thm 6.8 i), hence
  ``(eps, (e^eps + 1) delta)``-DP (Thm 6.8 ii).
* :func:`pure_sparse_histogram` is ``PureSparseHistogram_{M,eps,beta1}``
  (Alg 6.9): the mixture (BV Alg 3.1, :class:`finitedp.counting.mixing.Mixture`) of
  SparseHistogram with ``delta = (eps/3) beta1 (1/(3|X|))^n`` and, with
  probability ``beta1``, the data-independent histogram of
  :func:`pure_sparse_fallback`; it is ``(eps, 0)``-DP (Thm 6.10 i, Lemma 3.2).
* :class:`PureSparseHistogram` is the user-level mechanism of Thm 6.11 / Fig 5:
  ``beta1 = beta/4``, ``M`` = GeoSample or FastSample with ``gamma = beta/(8|X|)``.

What the oracle calls reveal.  With ``pad=True`` (the user-level default) every
dataset with ``n`` rows makes exactly ``5n + 2`` oracle calls.  Their domains
are public (``1/beta1``, ``d``, ``s``, ``|X|``, ``n + 1``) except the ``n + 1``
draws of DistinctSample, whose ``i``-th domain is ``|X| - |A| - i``: it depends
on the number ``|A|`` of distinct rows (BV Alg 6.21 step 3 needs a uniform
sequence from ``X \\ A``, which is what those domains give).  Without padding
the number of draws also depends on ``|A|`` (step 2 makes ``|A|``) and on the
random outcomes (ApproxOrdSample makes one draw per level ``v`` until ``n + 1``
order statistics are assigned: between 1 and ``n``).  Padding tops both steps
up to ``n`` draws, of domain ``d`` and ``s`` respectively.

>>> from finitedp import SeededSource
>>> mech = PureSparseHistogram(4, 2**64, "1/2", "1/8", counter="geo")
>>> mech.privacy
Privacy(epsilon=Fraction(1, 2), delta=Fraction(0, 1))
>>> h = mech.release([7, 7, 7, 2**64], rng=SeededSource(b"doc"))
>>> len(h) <= 4 and list(h) == sorted(h)
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from fractions import Fraction

from ..counting.base import CountingSampler
from ..counting.fastsample import FastSample
from ..counting.geosample import GeoSample
from ..counting.mixing import Mixture
from ..errors import ParameterError
from ..guarantees import Accuracy, Privacy
from ..oracle import CountingSource, RandomSource, default_source, draw_compared, uniform_value
from ..params import (
    check_positive_int,
    exact_fraction,
    inverse_natural,
    positive_fraction,
    short_fraction,
    short_int,
)
from ..ratio import check_epsilon
from ..resources import require_bits
from .approx import approx_ord_sample
from .bounds import pure_sparse_accuracy
from .dataset import check_universe, dataset_counts
from .keepheavy import check_sparse_universe, kh_prime, require_pure_sparse_time
from .mechanisms import HistogramMechanism, check_noise, sample_accuracy
from .release import PartialHistogram

__all__ = [
    "ApproxOrderStatistics",
    "PureSparseHistogram",
    "fallback_min_probability",
    "pure_sparse_delta",
    "pure_sparse_fallback",
    "pure_sparse_histogram",
    "sparse_histogram",
    "sparse_precision",
]


def sparse_precision(n: int, universe_size: int, delta: Fraction) -> int:
    """``s = (n^2 + 2n) |X| / delta``: ApproxOrdSample's precision in Alg 6.21 step 4.

    Paper: BV Alg 6.21 step 4 and the proof of Thm 6.8 i.  With ``m <= |X|`` empty
    bins Prop 6.19 bounds the statistical distance to OrdSample by
    ``m (n^2 + 2n) / s <= delta``.  For ``delta = 1/k`` this is the integer
    ``(n^2 + 2n) |X| k``.
    """
    n, universe_size = check_positive_int(n, "n"), check_universe(universe_size)
    delta = positive_fraction(delta, "delta")
    return (n * n + 2 * n) * universe_size * delta.denominator // delta.numerator


def pure_sparse_delta(epsilon: Fraction, beta1: Fraction, n: int, universe_size: int) -> Fraction:
    """``delta = (min(eps, 1)/3) beta1 (1/(3|X|))^n``: Alg 6.9 step 1.

    Paper: BV Alg 6.9 step 1, proof of Thm 6.10 i (BV's ``eps <= 1``; the cap keeps
    Lemma 3.2's condition (1) above it: ``proofs_notes/sparse_histogram.md``).

    >>> pure_sparse_delta(1, Fraction(1, 4), 2, 10)
    Fraction(1, 10800)
    """
    epsilon, beta1 = positive_fraction(epsilon, "epsilon"), positive_fraction(beta1, "beta1")
    return min(epsilon, Fraction(1)) / 3 * beta1 * fallback_min_probability(n, universe_size)


def fallback_min_probability(n: int, universe_size: int) -> Fraction:
    """``(1/(3|X|))^n``: BV's lower bound on every probability of the fallback.

    Paper: BV proof of Thm 6.10 i.  The exact minimum over ``H_{n,n}(X)`` is at
    least ``n! / ((n+1)^n |X|^n)``, which is at least this (see
    ``proofs_notes/sparse_histogram.md``).
    """
    n, universe_size = check_positive_int(n, "n"), check_universe(universe_size)
    require_bits(
        n * (3 * universe_size).bit_length(),
        "the fallback's probability bound (1/(3|X|))^n",
        f"n = {n}, universe_size = {short_int(universe_size)}",
    )
    return Fraction(1, (3 * universe_size) ** n)


class ApproxOrderStatistics:
    """Step 4 of Alg 6.21: ``ApproxOrdSample_F(m, s)``, as KH''s order-statistics step.

    Paper: BV Alg 6.20, Prop 6.19.  Calls
    :func:`finitedp.histograms.approx.approx_ord_sample` ``(cdf, n, m, s, rng)``.

    Oracle calls: those of ``approx_ord_sample``, each a draw in ``[1, s]`` (one per
    level ``v = n, ..., 1`` while fewer than ``n + 1`` values are assigned: their
    number depends on the outcomes); with ``pad``, then as many more draws in
    ``[1, s]`` as make ``n`` in all.

    Args:
        s: the precision, at least ``m`` (:func:`sparse_precision` gives BV's choice).
        pad: top the draws up to exactly ``n``.
    """

    __slots__ = ("_pad", "_s")

    def __init__(self, s: int, *, pad: bool = False) -> None:
        self._s = check_positive_int(s, "s")
        self._pad = pad

    @property
    def s(self) -> int:
        """The precision ``s``: every draw of this step is in ``[1, s]``."""
        return self._s

    def __call__(
        self, cdf: Callable[[int], int], n: int, m: int, rng: RandomSource
    ) -> tuple[int, ...]:
        """Sample the approximate top ``n + 1`` order statistics of ``m`` draws of ``F``."""
        if m > self._s:
            raise ParameterError(f"m: got {m}; ApproxOrdSample needs s >= m (s = {self._s})")
        if not self._pad:
            return approx_ord_sample(cdf, n, m, self._s, rng)
        counter = CountingSource(rng)
        levels = approx_ord_sample(cdf, n, m, self._s, counter)
        for _ in range(n - counter.calls):
            draw_compared(rng, self._s)  # discarded: never converted to an integer
        return levels


def sparse_histogram(
    sampler: CountingSampler,
    delta: object,
    data: Iterable[int],
    universe_size: int,
    rng: RandomSource | None = None,
    *,
    pad: bool = False,
) -> PartialHistogram:
    """BV's ``SparseHistogram_{M,delta}``: KH' with ApproxOrdSample.

    Paper: BV Alg 6.21, Thm 6.8 (i: within statistical distance ``delta`` of
    ``KH'_M(D)`` for every ``D``; ii: ``(eps, (e^eps + 1) delta)``-DP when ``M`` is
    ``eps/2``-DP for counting queries; iii: time
    ``O~(n log|X| (log|X| + log(1/delta)))`` plus ``O(n)`` samples and CDF values of ``M``).

    This is :func:`finitedp.histograms.keepheavy.kh_prime` with ``order_statistics =
    ApproxOrderStatistics(s)``, ``s = (n^2 + 2n)|X|/delta``.

    Oracle calls, in order (``A`` = the occupied bins, ``d = sampler.d``):

    1. ``|A|`` draws in ``[1, d]``: noisy counts of ``A`` in increasing ``x``;
    2. with ``pad``, ``n - |A|`` draws in ``[1, d]``, discarded;
    3. ``n + 1`` draws, the ``i``-th (from 0) in ``[1, |X| - |A| - i]`` (DistinctSample);
    4. ApproxOrdSample: one draw in ``[1, s]`` per level ``v = n, ..., 1`` until
       ``n + 1`` values are assigned; with ``pad``, topped up to ``n`` draws in ``[1, s]``.

    Args:
        sampler: the counting-query sampler ``M`` (deterministic given its draw);
            its ``n`` is the number of rows.
        delta: ``1/k``, the statistical distance allowed from KH'.
        data: the dataset, ``n`` ints in ``[1, universe_size]``.
        universe_size: ``|X|``, at least ``2n + 1`` (BV footnote 6).
        rng: the randomness source (the OS CSPRNG by default).
        pad: make exactly ``3n + 1`` oracle calls whatever the data and outcomes.

    Returns:
        At most ``n`` bins with counts in ``[1, n]``, increasing in ``x``.

    Raises:
        ParameterError: ``delta`` not in ``N^-1``, ``|X| < 2n + 1`` (use
            BasicHistogram), or bad data (the message names the row); nothing is released.
        FloatParameterError: a float ``delta``.
    """
    dlt = inverse_natural(delta, "delta")
    n = sampler.n
    m = check_sparse_universe(universe_size, n, "SparseHistogram")
    step = ApproxOrderStatistics(sparse_precision(n, m, dlt), pad=pad)
    return kh_prime(sampler, data, m, rng, order_statistics=step, pad=pad)


def pure_sparse_fallback(
    n: int, universe_size: int, rng: RandomSource | None = None
) -> PartialHistogram:
    """The data-independent histogram of Alg 6.9 step 2 (the distribution ``D`` of Thm 6.10 i).

    Paper: BV Alg 6.9 step 2: ``(x_1, ..., x_n)`` uniform in ``X^n``, ``Q`` its set
    of distinct elements, an independent uniform count in ``[0, n]`` for each
    ``q`` in ``Q``, and the bins of ``Q`` with a positive count released.

    To keep the number of oracle calls fixed, a count is drawn for every
    ``i`` and ``q`` gets the count drawn at its first occurrence in
    ``(x_1, ..., x_n)``: the counts of distinct elements are still independent
    and uniform, so the distribution is BV's.

    Oracle calls: ``n`` draws in ``[1, |X|]`` (``x_1, ..., x_n``), then ``n`` draws
    in ``[1, n + 1]`` (the counts).  Draws are only compared.

    Args:
        n: the number of rows.
        universe_size: ``|X|``.
        rng: the randomness source (the OS CSPRNG by default).

    Returns:
        At most ``n`` bins with counts in ``[1, n]``, increasing in ``x``.
    """
    n = check_positive_int(n, "n")
    m = check_positive_int(universe_size, "universe_size")
    source = rng or default_source()
    xs = [uniform_value(source, 1, m) for _ in range(n)]
    counts = [uniform_value(source, 0, n) for _ in range(n)]
    first: dict[int, int] = {}
    for x, c in zip(xs, counts, strict=True):
        first.setdefault(x, c)
    return PartialHistogram.from_counts(m, first)


def _check_sampler_budget(sampler: CountingSampler, epsilon: Fraction) -> None:
    if sampler.epsilon > epsilon:
        raise ParameterError(
            f"sampler: its epsilon is {sampler.epsilon} > epsilon = {epsilon}; Thm 6.10 needs "
            f"M to be (epsilon/2)-DP for counting queries"
        )


def _mixture(
    sampler: CountingSampler, epsilon: Fraction, beta1: Fraction, universe_size: int, pad: bool
) -> Mixture[dict[int, int], PartialHistogram]:
    """Alg 6.9 as BV's Alg 3.1: SparseHistogram w.p. ``1 - beta1``, the fallback w.p. ``beta1``."""
    n, m = sampler.n, universe_size
    delta = pure_sparse_delta(epsilon, beta1, n, m)
    step = ApproxOrderStatistics(sparse_precision(n, m, delta), pad=pad)

    def sparse(counts: dict[int, int], rng: RandomSource) -> PartialHistogram:
        return kh_prime(sampler, counts, m, rng, order_statistics=step, pad=pad)

    def fallback(rng: RandomSource) -> PartialHistogram:
        return pure_sparse_fallback(n, m, rng)

    return Mixture(sparse, fallback, beta1)


def pure_sparse_histogram(
    sampler: CountingSampler,
    epsilon: object,
    beta1: object,
    data: Iterable[int],
    universe_size: int,
    rng: RandomSource | None = None,
    *,
    pad: bool = False,
) -> PartialHistogram:
    """BV's ``PureSparseHistogram_{M,eps,beta1}``: ``(eps, 0)``-DP, at most ``n`` bins.

    Paper: BV Alg 6.9, Thm 6.10 (i: ``(eps, 0)``-DP; ii: ``(a1, 2 beta1 + 2 beta2)``
    per-query accuracy on counts above ``2 a2``; iii: ``(2 a2, 2 beta1 + beta2)``
    simultaneous, where ``BasicHistogram_{M,X}`` has ``(a1, beta2)`` per-query and
    ``(a2, beta2)`` simultaneous accuracy; iv: time ``O~(n^2 log^2|X| + ...)``).

    With probability ``1 - beta1`` the release is
    ``SparseHistogram_{M,delta}(D)`` with ``delta = (eps/3) beta1 (1/(3|X|))^n``,
    otherwise :func:`pure_sparse_fallback`.  Both run on every call
    (:class:`finitedp.counting.mixing.Mixture`), so the oracle calls do not reveal the branch.

    Oracle calls, in order: one draw in ``[1, 1/beta1]`` (the branch: 1 releases the
    fallback); those of :func:`sparse_histogram` with this ``delta``; those of
    :func:`pure_sparse_fallback` (``n`` in ``[1, |X|]``, then ``n`` in ``[1, n + 1]``).

    Args:
        sampler: ``M``, ``eps/2``-DP for counting queries (its ``epsilon`` at most ``epsilon``).
        epsilon: ``eps = 1/k``.
        beta1: the fallback's weight, ``1/g`` with ``g >= 2``.
        data: the dataset, ``n`` ints in ``[1, universe_size]``.
        universe_size: ``|X|``, at least ``2n + 1``.
        rng: the randomness source (the OS CSPRNG by default).
        pad: make exactly ``5n + 2`` oracle calls whatever the data and outcomes.

    Returns:
        At most ``n`` bins with counts in ``[1, n]``, increasing in ``x``.

    Raises:
        ParameterError: a parameter out of range, ``|X| < 2n + 1`` (use
            BasicHistogram), or bad data (the message names the row); nothing is
            released and no oracle call is made.
        FloatParameterError: a float parameter.
    """
    eps = positive_fraction(epsilon, "epsilon")
    b1 = inverse_natural(beta1, "beta1", below_one=True)
    _check_sampler_budget(sampler, eps)
    m = check_sparse_universe(universe_size, sampler.n, "PureSparseHistogram")
    counts = dataset_counts(data, sampler.n, m)
    mixture = _mixture(sampler, eps, b1, m, pad)
    _require_condition_1(mixture, eps, b1, sampler.n, m)
    return mixture(counts, rng or default_source())


def _require_condition_1(
    mixture: Mixture[dict[int, int], PartialHistogram],
    epsilon: Fraction,
    beta1: Fraction,
    n: int,
    universe_size: int,
) -> None:
    """Lemma 3.2's condition (1) for Alg 6.9's delta, decided exactly (proof of Thm 6.10 i)."""
    mixture.require_pure_dp(
        delta=pure_sparse_delta(epsilon, beta1, n, universe_size),
        min_fallback_probability=fallback_min_probability(n, universe_size),
        epsilon=epsilon,
    )


def _counter(counter: str) -> str:
    if counter not in ("fast", "geo"):
        raise ParameterError(f'counter: got {counter!r}; use "fast" (FastSample) or "geo"')
    return counter


class PureSparseHistogram(HistogramMechanism):
    """Pure ``(eps, 0)``-DP histogram of at most ``n`` bins, for universes of any size.

    Paper: BV Thm 6.11 / Fig 5: ``PureSparseHistogram_{M,eps,beta/4}`` (Alg 6.9)
    with ``M`` = GeoSample or FastSample with ``gamma = beta/(8|X|)``.

    Args:
        n: the number of rows.
        universe_size: ``|X| >= 2n + 1`` (any size: the work is polylogarithmic in it).
        epsilon: the budget, ``1/k``.
        beta: ``1/g``, the smallest failure probability ``accuracy`` will be asked
            for (BV's ``beta0``): sets ``beta1 = beta/4`` and FastSample's ``gamma``.
        counter: ``"fast"`` (FastSample, the default) or ``"geo"`` (GeoSample).
        pad: make exactly ``5n + 2`` oracle calls for every dataset (the default);
            see the module notes for what the draw domains still reveal.
        noise: ``"paper"`` (the default) or ``"tight"`` (the sampler's tight ratio;
            accuracy from Thm 6.10 ii-iii with the exact ratio).

    Oracle calls of ``release``, in order (``A`` = the occupied bins, ``d = sampler.d``,
    ``s = precision``): one draw in ``[1, 4/beta]`` (1 releases the fallback); ``|A|``
    in ``[1, d]`` (noisy counts, increasing ``x``), then with ``pad`` ``n - |A|`` more in
    ``[1, d]``; ``n + 1`` in ``[1, |X| - |A| - i]`` for ``i = 0..n`` (DistinctSample);
    up to ``n`` in ``[1, s]`` (ApproxOrdSample), topped up to ``n`` with ``pad``; ``n`` in
    ``[1, |X|]`` and ``n`` in ``[1, n + 1]`` (the fallback).  No call is made when the
    data are refused.

    Raises:
        ParameterError: parameters out of range (``|X| < 2n + 1``: use
            BasicHistogram); FloatParameterError: a float.
    """

    __slots__ = (
        "_beta",
        "_beta1",
        "_counter",
        "_delta",
        "_epsilon",
        "_mix",
        "_noise",
        "_pad",
        "_sampler",
    )

    def __init__(
        self,
        n: object,
        universe_size: object,
        epsilon: object,
        beta: object,
        *,
        counter: str = "fast",
        pad: bool = True,
        noise: str = "paper",
    ) -> None:
        super().__init__(n, universe_size)
        self._noise = check_noise(noise)
        check_sparse_universe(self._universe_size, self._n, "PureSparseHistogram")
        require_pure_sparse_time(self._n, self._universe_size)
        self._epsilon = check_epsilon(epsilon, noise)
        self._beta = inverse_natural(beta, "beta")
        self._counter = _counter(counter)
        self._beta1 = self._beta / 4
        self._pad = pad
        self._sampler: CountingSampler
        if counter == "fast":
            gamma = self._beta / (8 * self._universe_size)
            self._sampler = FastSample(self._n, self._epsilon, gamma, noise=noise, samples=self._n)
        else:
            self._sampler = GeoSample(self._n, self._epsilon, noise=noise, samples=self._n)
        self._delta = pure_sparse_delta(self._epsilon, self._beta1, self._n, self._universe_size)
        self._mix = _mixture(self._sampler, self._epsilon, self._beta1, self._universe_size, pad)
        # Lemma 3.2's condition (1), decided exactly for these parameters (BV Thm 6.10 i).
        _require_condition_1(self._mix, self._epsilon, self._beta1, self._n, self._universe_size)

    @property
    def sampler(self) -> CountingSampler:
        """The counting-query sampler ``M`` (FastSample or GeoSample)."""
        return self._sampler

    @property
    def noise(self) -> str:
        """``"paper"`` or ``"tight"``: the sampler's ratio."""
        return self._noise

    @property
    def beta1(self) -> Fraction:
        """``beta1 = beta/4``: the probability of releasing the fallback."""
        return self._beta1

    @property
    def delta(self) -> Fraction:
        """``(eps/3) beta1 (1/(3|X|))^n``: SparseHistogram's distance from KH'."""
        return self._delta

    @property
    def precision(self) -> int:
        """``s = (n^2 + 2n)|X|/delta``: ApproxOrdSample's draws are in ``[1, s]``."""
        return sparse_precision(self._n, self._universe_size, self._delta)

    @property
    def privacy(self) -> Privacy:
        """``(eps, 0)``: Thm 6.10 i / Thm 6.11 i."""
        return Privacy(self._epsilon)

    def accuracy(self, beta: object) -> Accuracy:
        """Fig 5 / Thm 6.11 ii-iii for ``beta >= self.beta`` (``None`` entries below it).

        Per query ``a = ceil(9/(2 eps) ln(4k/beta))`` on counts above
        ``t = 2 ceil(9/(2 eps) ln(4k|X|/beta))``, simultaneously
        ``2 ceil(9/(2 eps) ln(2k|X|/beta))``, with ``k = 1`` for GeoSample and ``2`` for
        FastSample.

        Raises:
            ParameterError: ``beta`` outside ``(0, 1)``.
        """
        b = exact_fraction(beta, "beta")
        if not 0 < b < 1:
            raise ParameterError(f"beta: got {short_fraction(b)}; it must lie in (0, 1)")
        if b < self._beta:
            return Accuracy(b, None, None, None, "BV Fig 5")
        if self._noise == "tight":
            # Thm 6.10 ii-iii, beta1 <= b/4: (a1, b) per query on counts above 2 a2 with
            # beta2 = b/4, and (2 a2', b) simultaneously with beta2 = b/2 (union bounds).
            m, sampler = self._universe_size, self._sampler
            a1 = sample_accuracy(sampler, b / 4)
            a2 = sample_accuracy(sampler, b / (4 * m))
            a_all = sample_accuracy(sampler, b / (2 * m))
            return Accuracy(
                b,
                a1,
                None if a2 is None else 2 * a2,
                None if a_all is None else 2 * a_all,
                "BV Thm 6.10 ii-iii with the sampler's exact ratio",
            )
        return pure_sparse_accuracy(self._counter, self._epsilon, b, self._universe_size)

    @property
    def max_oracle_calls(self) -> int:
        """``5n + 2``: 1 (branch) + ``n`` (noisy counts, padded) + ``n + 1`` (DistinctSample)
        + ``n`` (ApproxOrdSample, padded) + ``2n`` (fallback); exact with ``pad``."""
        return 5 * self._n + 2

    def _release(self, counts: dict[int, int], rng: RandomSource) -> PartialHistogram:
        return self._mix(counts, rng)

    def __repr__(self) -> str:
        return (
            f"PureSparseHistogram(n={self._n}, universe_size={self._universe_size}, "
            f"epsilon={self._epsilon}, beta={self._beta}, counter={self._counter!r}"
            + (")" if self._noise == "paper" else ', noise="tight")')
        )
