"""CompactHistogram: a pure-DP histogram released as a polynomial over ``GF(2^L)``.

Paper: BV Section 8: Lemma 8.1 (the family ``G_{M0}(X)``), Alg 8.2 / Thm 8.3
(CompactHistogram), Lemma 8.4 / Alg 8.5 (the empty-bin sampler ``M0``),
Thm 8.6 and Fig 6 (the instantiation with FastSample or GeoSample).

The release is a polynomial ``p`` of degree at most ``n`` over ``F = GF(2^L)``,
``L = 2 * 3^l``, ``d0 = 2^L``.  The count of bin ``x`` is
``h_x = M0(T(p(phi(x))))``: ``phi`` puts the universe into ``F``, ``T`` reads a
field element as an integer in ``[1, d0]`` and ``M0`` is the empty-bin sampler.
Occupied bins get the counting sampler's noisy count exactly; the other bins'
counts are ``(n+1)``-wise independent draws of ``M0(U0)``, which is within a
factor ``e^(d/d0)`` of ``M(0, U)``.

The universe map ``phi`` (a deviation the issue allows: any injective public
map keeps the family ``(n+1)``-wise independent).  ``x`` in ``[1, m]`` goes to an
element of the subfield ``K = GF(2^(2*3^j))`` of ``F`` (``j`` the least level with
``2^(2*3^j) >= max(m, n + 1)``), namely the ``(x-1)``-th element of ``K`` in the
order "fewer bits set first, then colexicographic" (:class:`UniverseMap`).
Points in ``K`` make interpolation cheap (:mod:`finitedp.compact.family`: each
coordinate of the field over ``K`` is interpolated over ``K``, in quasi-linear
time, and by default only the coordinates that the noisy counts constrain);
points with few bits set make evaluation cheap (one shift per bit).

>>> mech = CompactHistogram(n=3, universe_size=1000, epsilon=1, beta0="1/10")
>>> release = mech.release([7, 7, 500])
>>> all(0 <= release[x] <= 3 for x in (1, 7, 500, 1000))
True
>>> CompactRelease.from_json(release.to_json()) == release
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

from ..counting.base import CountingSampler
from ..counting.fastsample import FastSample
from ..counting.geosample import GeoSample
from ..errors import ParameterError, ResourceLimitError
from ..exactmath import ceil_ln, ceil_log
from ..guarantees import Accuracy, Privacy
from ..histograms.dataset import check_universe, dataset_counts
from ..histograms.mechanisms import check_noise, sample_accuracy
from ..oracle import RandomSource, default_source, draw
from ..params import check_positive_int, exact_fraction, inverse_natural, short_fraction, short_int
from ..ratio import check_epsilon
from ..resources import integer_bytes, require_memory, require_time
from .emptybin import EmptyBinSampler
from .family import (
    UniverseMap,
    field_level_for,
    field_of,
    sample_consistent,
)
from .gf2 import MAX_LEVEL
from .release import COMPACT_SCHEMA_VERSION, CompactRelease

__all__ = [
    "COMPACT_SCHEMA_VERSION",
    "CompactHistogram",
    "CompactRelease",
    "EmptyBinSampler",
    "UniverseMap",
    "compact_histogram",
    "field_level_for",
    "sample_consistent",
]

#: Milliseconds per row of a CompactHistogram release from the command line, rounded up
#: from 2.5-2.7 ms measured at n = 10^4 to 10^5 over GF(2^4374) (eps = 1/2, 2 cores).
COMPACT_MS_PER_ROW = 3


def compact_histogram(
    sampler: CountingSampler,
    empty: EmptyBinSampler,
    data: Iterable[object],
    universe_size: int,
    rng: RandomSource | None = None,
    *,
    workers: int | None = None,
    pad: bool = False,
    method: str = "blocks",
) -> CompactRelease:
    """BV's ``CompactHistogram_{M,M0}(D)``.

    Paper: BV Alg 8.2, Thm 8.3.  Oracle calls, in order (``A`` the occupied bins,
    increasing): one ``uniform(d)`` per ``x`` in ``A`` (step 2, BasicHistogram's
    noisy count ``M(c_x, u)``); with ``pad``, ``n - |A|`` more ``uniform(d)`` whose
    results are discarded; one ``uniform(|supp S_v|)`` per ``x`` in ``A`` with
    ``v`` its noisy count; one ``uniform(d0)`` per filler point, ``n + 1 - |A|`` of
    them.  That is ``n + 1 + |A| <= 2n + 1`` calls, exactly ``2n + 1`` with ``pad``
    (the domains of the ``S_v`` draws still depend on the noisy counts ``v``).

    Args:
        sampler: ``M``, the counting sampler; its ``n`` is the number of rows.
        empty: ``M0`` for ``M``; its ``d0 = 2^(2*3^l)`` must be at least ``|X|`` and ``n + 1``.
        data: ``n`` rows in ``[1, universe_size]``.
        universe_size: ``|X|``.
        rng: the randomness source (the OS CSPRNG by default).
        workers: processes for the interpolation; ``None`` uses two forked processes
            for large instances on a machine with two or more CPUs, ``1`` never forks.
            The release does not depend on it.
        pad: make the number of oracle calls ``2n + 1`` for every dataset.
        method: how the polynomial is sampled, ``"blocks"`` (default) or ``"points"``
            (:func:`finitedp.compact.family.sample_consistent`; same distribution, same calls).

    Returns:
        The release: the polynomial and what is needed to evaluate it.

    Raises:
        ParameterError: bad data, a field too small, or ``empty`` built for another sampler.
    """
    if empty.sampler is not sampler:
        raise ParameterError("empty: the empty-bin sampler must be built for the same sampler M")
    m = check_universe(universe_size)
    counts = dataset_counts(data, sampler.n, m)
    field = field_of(empty)
    if field.order < m:
        raise ParameterError(f"d0: got 2^{field.degree}; it must be at least |X| = {short_int(m)}")
    source = rng or default_source()
    sample = sampler.sample
    noisy = {x: sample(c, source) for x, c in counts.items()}
    if pad:
        for _ in range(sampler.n - len(counts)):
            draw(source, sampler.d)
    coefficients = sample_consistent(empty, m, noisy, source, method=method, workers=workers)
    return CompactRelease(field.level, m, coefficients, empty)


# -- the user-level mechanism (Thm 8.6, Fig 6) ---------------------------------------


class CompactHistogram:
    """Pure-DP histogram over a huge universe with Laplace-like per-query accuracy.

    Paper: BV Thm 8.6 (``M`` = FastSample with ``eps' = 1/ceil(10/(9 eps))``,
    ``gamma = beta0/(2|X|)``, ``d0 = 2^(2*3^l)`` with
    ``l = ceil(log3(ceil(log2 max(|X|, 30 d/eps))/2))``), Fig 6 (the GeoSample row),
    Alg 8.2, Alg 8.5.

    Oracle calls of one release (see :func:`compact_histogram`): ``uniform(d)`` once
    per occupied bin in increasing order, then ``uniform(|supp S_v|)`` once per
    occupied bin in the same order, then ``uniform(d0)`` once per filler point in
    increasing order: ``n + 1 + |A| <= 2n + 1`` calls.

    Args:
        n: the number of rows.
        universe_size: ``|X|``.
        epsilon: the budget, ``1/m``.
        beta0: ``1/k``: the smallest failure probability of the simultaneous bound;
            sets FastSample's ``gamma``.  Optional with ``counter="geo"``.
        counter: ``"fast"`` (Thm 8.6, the default) or ``"geo"`` (Fig 6's GeoSample row).
        noise: ``"paper"`` (the default) or ``"tight"`` (the sampler's ratio within 1% of
            ``e^(-eps'/2)``; accuracy from Thm 8.3 ii-iii with its exact tail).

    Raises:
        ParameterError: a parameter out of range (or a field beyond ``l = 12``);
        FloatParameterError: a float.
    """

    __slots__ = (
        "_beta0",
        "_empty",
        "_epsilon",
        "_level",
        "_n",
        "_noise",
        "_sampler",
        "_universe",
    )

    def __init__(
        self,
        n: object,
        universe_size: object,
        epsilon: object,
        beta0: object = None,
        *,
        counter: str = "fast",
        noise: str = "paper",
    ) -> None:
        self._n = check_positive_int(n, "n")
        self._noise = check_noise(noise)
        self._universe = check_universe(universe_size)
        eps = check_epsilon(epsilon, noise)
        self._epsilon = eps
        # eps' <= 9 eps / 10: 1/ceil(10/(9 eps)), in N^-1 as BV's sampler needs (the
        # paper's, and every release made before issue 51); from eps = 10/9 on, where
        # that is 1 (tight noise only), 9 eps / 10 itself.
        eps_prime = eps * Fraction(9, 10)
        if eps_prime < 1:
            eps_prime = Fraction(1, -(-10 * eps.denominator // (9 * eps.numerator)))
        self._sampler: CountingSampler
        if counter == "fast":
            if beta0 is None:
                raise ParameterError("beta0: FastSample needs beta0 = 1/k to set gamma")
            self._beta0: Fraction | None = inverse_natural(beta0, "beta0")
            gamma = self._beta0 / (2 * self._universe)
            self._sampler = FastSample(self._n, eps_prime, gamma, noise=noise)
        elif counter == "geo":
            self._beta0 = None if beta0 is None else inverse_natural(beta0, "beta0")
            self._sampler = GeoSample(self._n, eps_prime, noise=noise)
        else:
            raise ParameterError(f'counter: got {counter!r}; use "fast" (FastSample) or "geo"')
        # l = ceil(log3(ceil(log2 max(|X|, 30 d/eps)) / 2)), 30 d / eps rounded up.
        scaled = -(-30 * self._sampler.d * eps.denominator // eps.numerator)
        bits = ceil_log(max(self._universe, scaled), 2)
        self._level = max(0, ceil_log(Fraction(bits, 2), 3))
        if self._level > MAX_LEVEL:
            # A size limit, not a wrong parameter: the default moves on to blanket.
            raise ResourceLimitError(
                f"epsilon = {eps}, n = {self._n}, universe_size = {short_int(self._universe)}: "
                f"CompactHistogram (Thm 8.6) would need the field GF(2^(2*3^{self._level})), "
                f"elements of {short_int(2 * 3**self._level)} bits; finitedp's fields stop at "
                f"GF(2^(2*3^{MAX_LEVEL})) ({2 * 3**MAX_LEVEL:,} bits); choose a larger epsilon, "
                "fewer rows or a smaller universe, or --mechanism blanket or pure-sparse"
            )
        degree = 2 * 3**self._level
        # The interpolation's subproduct tree holds about log2(n + 1) levels of n + 1
        # field elements of L bits each, plus the release's n + 1 coefficients.
        levels = (self._n + 1).bit_length() + 2
        require_memory(
            (self._n + 1) * levels * integer_bytes(degree),
            f"CompactHistogram's interpolation over GF(2^{degree})",
            f"n = {self._n}, universe_size = {short_int(self._universe)}, epsilon = {eps}",
        )
        require_time(
            Fraction(COMPACT_MS_PER_ROW * (self._n + 1), 1000),
            "CompactHistogram's release (a polynomial through n + 1 points)",
            f"n = {self._n}",
            "use fewer rows, or approximate DP (--mechanism stability --delta 1/1000000)",
        )
        self._empty = EmptyBinSampler(self._sampler, 1 << degree)

    @property
    def n(self) -> int:
        """The number of rows every dataset must have."""
        return self._n

    @property
    def universe_size(self) -> int:
        """``|X| = m``."""
        return self._universe

    @property
    def sampler(self) -> CountingSampler:
        """The counting sampler ``M``."""
        return self._sampler

    @property
    def empty_bin(self) -> EmptyBinSampler:
        """The empty-bin sampler ``M0`` (Alg 8.5)."""
        return self._empty

    @property
    def level(self) -> int:
        """``l``: the field is ``GF(2^L)``, ``L = 2 * 3^l``."""
        return self._level

    @property
    def d0(self) -> int:
        """``d0 = 2^(2*3^l)``."""
        return self._empty.d0

    @property
    def privacy(self) -> Privacy:
        """``(eps, 0)``: Thm 8.6 i (Thm 8.3 i with ``eps1 = eps'``, ``eps2 + eps3 = 3 d/d0``)."""
        return Privacy(self._epsilon)

    def accuracy(self, beta: object) -> Accuracy:
        """Fig 6 / Thm 8.6 ii-iii, exactly.

        FastSample: ``ceil((5/eps) ln(2/beta))`` per query (``beta >= 2 gamma``) and
        ``ceil((5/eps) ln(2|X|/beta))`` simultaneously (``beta >= beta0``).
        GeoSample: ``ceil((5/eps) ln(1/beta))`` and ``ceil((5/eps) ln(|X|/beta))``.
        An entry outside its range of ``beta`` is ``None``.

        Raises:
            ParameterError: ``beta`` outside ``(0, 1)``.
        """
        b = exact_fraction(beta, "beta")
        if not 0 < b < 1:
            raise ParameterError(f"beta: got {short_fraction(b)}; it must lie in (0, 1)")
        scale, m = 5 / self._epsilon, self._universe
        if self._noise == "tight":  # Thm 8.3 ii-iii with the sampler's exact tail
            fast = isinstance(self._sampler, FastSample)
            ok_all = not fast or (self._beta0 is not None and b >= self._beta0)
            return Accuracy(
                b,
                sample_accuracy(self._sampler, b),
                None,
                sample_accuracy(self._sampler, b / m) if ok_all else None,
                "BV Thm 8.3 ii-iii with the sampler's exact ratio",
            )
        if isinstance(self._sampler, FastSample):
            per_query = ceil_ln(scale, 2 / b) if b >= 2 * self._sampler.gamma else None
            ok_all = self._beta0 is not None and b >= self._beta0
            simultaneous = ceil_ln(scale, 2 * m / b) if ok_all else None
        else:
            per_query, simultaneous = ceil_ln(scale, 1 / b), ceil_ln(scale, m / b)
        return Accuracy(b, per_query, None, simultaneous, "BV Thm 8.6 / Fig 6")

    @property
    def max_oracle_calls(self) -> int:
        """``2n + 1``: every release is padded to exactly this many calls."""
        return 2 * self._n + 1

    def release(
        self,
        data: Iterable[object] | Mapping[Any, Any],
        rng: RandomSource | None = None,
        *,
        workers: int | None = None,
    ) -> CompactRelease:
        """Release a compact histogram of ``data`` (BV Alg 8.2).

        Args:
            data: exactly ``n`` ints in ``[1, universe_size]``, or their histogram
                ``{value: count}`` (the same release and oracle calls).
            rng: the randomness source (the OS CSPRNG by default).
            workers: processes for the interpolation (``None``: two forked processes
                from 512 points on two or more CPUs; ``1``: never fork).  The release
                does not depend on it.

        Raises:
            ParameterError: wrong number of rows or a row outside the universe.
        """
        return compact_histogram(
            self._sampler, self._empty, data, self._universe, rng, workers=workers, pad=True
        )

    def __repr__(self) -> str:
        kind = "fast" if isinstance(self._sampler, FastSample) else "geo"
        return (
            f"CompactHistogram(n={self._n}, universe_size={self._universe}, "
            f"epsilon={self._epsilon}, beta0={self._beta0}, counter={kind!r}"
            + (")" if self._noise == "paper" else ', noise="tight")')
        )
