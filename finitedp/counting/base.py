"""What every counting-query sampler of BV Section 4 shares: inverse-CDF sampling.

Paper: BV Defs 4.1-4.3, Lemma 2.13 (inverse transform sampling with a
common denominator ``d``).

A sampler ``M: [n] x [d]_+ -> [n]`` is a deterministic function of the true
count ``c`` and one oracle draw ``u``: it returns the smallest ``z`` in
``[0, n]`` with ``F(z) >= u``, where ``F(z)/d`` is the CDF of the output for
count ``c``.  Subclasses supply the integer CDF ``F`` and a search; this base
turns them into ``sampler(c, u)``, ``sample(c, rng)``, ``pmf(c)`` and the
scaled CDF at zero of Def 4.3.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from bisect import bisect_left
from collections.abc import Callable, Sequence
from fractions import Fraction

from ..errors import ParameterError
from ..oracle import RandomSource, default_source, draw
from ..params import check_count, check_draw, short_int
from ..prefixdraw import PrefixBatch
from ..ratio import GeometricRatio
from ..resources import gmp_seconds, require_time

__all__ = ["CountingSampler", "bisect_cdf", "ceil_log2_int", "check_work", "require_sampling_time"]


class CountingSampler(ABC):
    """An exact inverse-CDF sampler for one counting query (BV Def 4.1)."""

    __slots__ = ("_d", "_epsilon", "_n", "_ratio", "_zero_table", "_zero_tops")

    #: How many values of ``F(0, z)`` :meth:`invert_many` keeps for empty bins...
    ZERO_TABLE_SIZE = 1024
    #: ...and how many bytes they may take (fewer entries when ``d`` is large).
    ZERO_TABLE_BYTES = 16 << 20

    def __init__(self, n: int, epsilon: Fraction, ratio: GeometricRatio, d: int) -> None:
        self._n = n
        self._epsilon = epsilon
        self._ratio = ratio
        self._d = d
        self._zero_table: list[int] | None = None
        self._zero_tops: tuple[int, list[int]] | None = None  # (shift, table >> shift)

    @property
    def n(self) -> int:
        """The number of rows; counts and outputs lie in ``[0, n]``."""
        return self._n

    @property
    def epsilon(self) -> Fraction:
        """The budget ``eps``: the sampler is ``eps/2``-DP for counting queries."""
        return self._epsilon

    @property
    def k(self) -> int | None:
        """BV's ``k = ceil(log2(2/eps))`` in paper mode; ``None`` in tight mode."""
        return self._ratio.k

    @property
    def noise(self) -> GeometricRatio:
        """The geometric ratio ``alpha = a/b`` of the noise."""
        return self._ratio

    @property
    def mode(self) -> str:
        """``"paper"`` (BV's ratio ``2^k/(2^k+1)``) or ``"tight"``."""
        return self._ratio.mode

    @property
    def d(self) -> int:
        """The oracle domain: each sample draws one ``u`` uniform in ``[1, d]``."""
        return self._d

    @property
    def max_oracle_calls(self) -> int:
        """Oracle calls per sample, from public parameters alone: always one."""
        return 1

    @property
    @abstractmethod
    def max_comparisons(self) -> int:
        """The most comparisons of the draw ``u`` one sample can make."""

    @abstractmethod
    def cdf(self, c: int, z: int) -> int:
        """The integer ``F(z)``: ``d`` times ``Pr[output <= z]`` for true count ``c``."""

    @abstractmethod
    def _search(self, c: int, u: int) -> int:
        """Smallest ``z`` in ``[0, n]`` with ``F(z) >= u``; ``c`` and ``u`` already valid."""

    def __call__(self, c: int, u: int) -> int:
        """The sampler as a deterministic function of the count and the draw.

        Args:
            c: the true count, in ``[0, n]``.
            u: the oracle draw, in ``[1, d]``.

        Returns:
            The smallest ``z`` in ``[0, n]`` with ``F(z) >= u``.

        Raises:
            ParameterError: ``c`` or ``u`` out of range.
        """
        return self._search(check_count(c, self._n), check_draw(u, self._d))

    def sample(self, c: int, rng: RandomSource | None = None) -> int:
        """Release a noisy count: one oracle call ``u = uniform(d)``, then ``sampler(c, u)``.

        Args:
            c: the true count, in ``[0, n]``.
            rng: the randomness source; the OS CSPRNG by default.
        """
        if type(c) is not int or not 0 <= c <= self._n:
            c = check_count(c, self._n)
        return self._search(c, draw(rng or default_source(), self._d))

    #: :attr:`prefix_shift` keeps this many bits of a draw (and of the CDF values).
    PREFIX_KEPT_BITS = 96
    #: Below this many bits of ``d``, converting whole draws is as cheap as prefixes.
    PREFIX_MIN_BITS = 1024

    @property
    def prefix_shift(self) -> int:
        """The shift at which :meth:`invert_many` compares a batch of prefix draws (0: none)."""
        bits = self._d.bit_length()
        return bits - self.PREFIX_KEPT_BITS if bits >= self.PREFIX_MIN_BITS else 0

    def invert_many(self, counts: Sequence[int], draws: Sequence[int] | PrefixBatch) -> list[int]:
        """``sampler(c, u)`` for many pairs at once, for histograms over many bins.

        Most bins of a large universe are empty, so ``F(0, z)`` for the first
        ``ZERO_TABLE_SIZE`` values of ``z`` is kept once and searched with one C
        bisection; any other pair takes the ordinary search.  Same function, same
        results as calling the sampler pair by pair.

        ``draws`` may be a :class:`~finitedp.prefixdraw.PrefixBatch` taken at
        :attr:`prefix_shift` (``oracle.draws_shifted``): an empty bin's draw is then
        searched by its top bits ``w = (u - 1) >> shift`` among the table's
        ``T >> shift``.  If no entry equals ``w``, every ``T[j]`` is decided
        (``T[j] >> shift < w`` gives ``T[j] <= u - 1``, ``> w`` gives ``T[j] >= u``),
        so the index is ``bisect_left(T, u)``; otherwise the draw's value decides.
        """
        table = self._zero_table
        if table is None:
            fits = self.ZERO_TABLE_BYTES // (self._d.bit_length() // 8 + 1)
            size = max(1, min(self._n, self.ZERO_TABLE_SIZE, fits))
            table = self._zero_table = [int(self.cdf(0, z)) for z in range(size)]
        last, search = table[-1], self._search
        if isinstance(draws, PrefixBatch):
            return self._invert_batch(counts, draws, table)
        return [
            bisect_left(table, u) if c == 0 and u <= last else search(c, u)
            for c, u in zip(counts, draws, strict=True)
        ]

    def _invert_batch(
        self, counts: Sequence[int], batch: PrefixBatch, table: list[int]
    ) -> list[int]:
        shift, kept = batch.shift, self._zero_tops
        if kept is None or kept[0] != shift:
            kept = self._zero_tops = (shift, [x >> shift for x in table])
        tops = kept[1]
        size, last, search, value = len(table), table[-1], self._search, batch.value
        out = []
        for i, (c, w) in enumerate(zip(counts, batch.shifted, strict=True)):
            if c == 0 and w >= 0:
                j = bisect_left(tops, w)
                if j < size and tops[j] != w:
                    out.append(j)
                    continue
            u = value(i)
            out.append(bisect_left(table, u) if c == 0 and u <= last else search(c, u))
        return out

    def tail_value(self, floor: int, u: int) -> int:
        """``M(0, U)`` conditioned on ``M(0, U) > b``, from one draw (Lemma 2.13 on the tail).

        ``floor = F(0, b)`` and ``u`` is uniform in ``[1, d - floor]``: the result is the
        least ``z`` with ``F(0, z) >= floor + u``, each ``z > b`` with probability
        ``Pr[M(0, U) = z] / Pr[M(0, U) > b]``.  Neither argument is validated (the
        caller draws ``u`` from exactly that domain); a symbolic draw is only compared.
        """
        return self._search(0, floor + u)

    def gap_bracket(self, v: int, w: int, bits: int) -> tuple[int, int, int]:
        """``(lo, hi, t)`` with ``lo 2^t <= F(0, v) - F(0, w) <= hi 2^t`` (``-1 <= w <= v``):
        here exactly (``t = 0``); a sampler whose ``F`` is long brackets its leading bits."""
        gap = self.cdf(0, v) - self.cdf(0, w)
        return gap, gap, 0

    def scaled_cdf_at_zero(self, z: int) -> int:
        """``F_M(z)`` of BV Def 4.3: ``d * Pr[M(0, U) <= z]``, for ``z`` in ``[0, n]``."""
        return self.cdf(0, check_count(z, self._n, "z"))

    def pmf(self, c: int) -> dict[int, Fraction]:
        """The exact output distribution ``{z: Pr[M(c, U) = z]}`` (zero entries omitted)."""
        d, previous, pmf = self._d, 0, {}
        for z in range(self._n + 1):
            current = self.cdf(c, z)
            if current > previous:
                pmf[z] = Fraction(current - previous, d)
            previous = current
        return pmf

    def bisect_reference(self, c: int, u: int) -> int:
        """BV's literal binary search over ``[0, n]`` (Alg 4.8 step 3); a reference for tests."""
        c, u = check_count(c, self._n), check_draw(u, self._d)
        return bisect_cdf(lambda z: self.cdf(c, z), self._n, u)


def check_work(samples: object, empty: object) -> None:
    """Check the ``samples`` and ``empty`` a sampler's constructor is told about.

    Raises:
        ParameterError: either is not an int ``>= 0``.
    """
    for name, value in (("samples", samples), ("empty", empty)):
        if type(value) is not int or value < 0:
            raise ParameterError(f"{name}: got {value!r:.30}; a number of samples, an int >= 0")


def require_sampling_time(
    bits: int,
    setup_passes: int,
    search_passes: int,
    samples: int,
    empty: int,
    what: str,
    cause: str,
) -> None:
    """Refuse a sampler whose set-up and samples are estimated above the time budget.

    Called by the constructors before any large integer is made.  Each sample
    draws ``bits`` random bits (one pass) and searches (``search_passes`` more when
    the CDF values are computed: a power of a small base, about half a pass per
    comparison, measured from 3 * 10^4 to 2.5 * 10^8 bits; none with a table);
    an empty bin's sample through :meth:`CountingSampler.invert_many` is mostly
    decided by the kept ``F(0, z)`` (one pass, the draw).

    Args:
        bits: ``bits(d)``.
        setup_passes: passes over ``bits``-bit integers the constructor makes.
        search_passes: passes one search makes beyond the draw.
        samples: searches the caller means to make (occupied bins, say).
        empty: further samples of empty bins through ``invert_many``.
        what: the sampler, for the message.
        cause: the parameters responsible, for the message.

    Raises:
        ParameterError: ``samples`` or ``empty`` not an int ``>= 0``.
        ResourceLimitError: above ``FINITEDP_MAX_SECONDS`` (10 minutes by default).
    """
    check_work(samples, empty)
    passes = setup_passes + samples * (1 + search_passes) + empty
    count = samples + empty
    require_time(
        gmp_seconds(bits, passes),
        f"{what} over {short_int(bits)}-bit integers"
        + (f" and {short_int(count)} samples" if count > 1 else ""),
        cause,
    )


def bisect_cdf(cdf: Callable[[int], int], n: int, u: int) -> int:
    """The smallest ``z`` in ``[0, n]`` with ``cdf(z) >= u``, knowing ``cdf(n) >= u``.

    Makes at most ``ceil(log2(n + 1))`` comparisons of ``u``, and only compares.
    """
    low, high = 0, n
    while low < high:
        mid = (low + high) // 2
        if cdf(mid) >= u:
            high = mid
        else:
            low = mid + 1
    return low


def ceil_log2_int(m: int) -> int:
    """``ceil(log2(m))`` for a positive integer ``m``."""
    return (m - 1).bit_length()
