"""A discrete Gaussian for every sigma: small exact tables, convolved on a lattice.

Paper: Canonne, Kamath & Steinke 2020 (CKS20) Def 1 and Thm 14 (the discrete
Gaussian and its zCDP); Bun & Steinke 2016 Def 8.1 (approximate zCDP);
Peikert 2010 Thm 3.1 and Micciancio & Walter 2017 (a wide discrete Gaussian
as ``J + L Y`` from narrow ones); Walker/Vose (alias tables).  Proof:
proofs_notes/convolved_gaussian.md.

:class:`ConvolvedGaussian` samples ``Z = J_0 + L J_1 + ... + L^(n-1) J_(n-1) + L^n B``,
independent draws from two tables whose weights sum to powers of two
(:func:`~.convolvedtables.normal_table`): ``sigma_J = 3L`` and ``sigma_B`` with
``sigma^2 = sigma_J^2 (L^(2n) - 1)/(L^2 - 1) + L^(2n) sigma_B^2`` exactly, ``n`` the
most levels that keep ``sigma_B >= 12`` (``n = 0`` below ``sigma = 12``).

* **Set-up**: two tables of at most 8,192 columns whatever ``sigma`` (up to
  ``2^64``), in milliseconds; one table over ``[-R, R]`` would need ``R ~ 13 sigma``.
* **One oracle call** ``uniform(2^K)``, read as one bit field per level: a
  column and an offset of an exact alias table (:mod:`.alias`), one column read
  and one addition per level, whatever the value (:class:`~.convolvedtables.Level`).
* **Privacy of this law**: a certified relative sandwich of
  ``exp(-z^2/(2 sigma^2))`` on a window (:mod:`.smoothing`) gives
  ``delta0``-approximate ``rho'``-zCDP at integer orders, ``rho'`` within a
  millionth of ``Delta^2/(2 sigma^2)`` and, at sensitivity 1, ``delta0 <= 2^-64``
  for every ``sigma`` below the seventh level's start (3,320,746,166) and
  ``delta0 <= 2^-60`` from there to ``2^32`` (the worst of a sweep,
  ``benchmarks/proof_convolved_delta0.py``, is ``2^-60.95`` near ``3.336 * 10^9``; the
  proof note's table).

>>> from finitedp.oracle import SeededSource
>>> g = ConvolvedGaussian(1000)
>>> g.levels, g.top_sigma2, g.max_oracle_calls
(1, Fraction(15589, 4), 1)
>>> g.sample_many(3, SeededSource(b"doc"))
[-1011, -122, 1615]
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from math import isqrt

from ..accounting import Guarantee
from ..errors import ParameterError, ResourceLimitError
from ..oracle import RandomSource, default_source, draw, draws
from ..params import (
    check_draw,
    check_int,
    check_positive_int,
    positive_fraction,
    probability,
    short_fraction,
    short_int,
)
from ..resources import require_memory
from .convolvedbatch import LevelArrays, batch_values, draw_fields, level_arrays
from .convolvedprivacy import Certifier
from .convolvedtables import (
    COLUMN_BITS,
    DEFAULT_DESIGN,
    OFFSET,
    GaussianDesign,
    Level,
    alias_table,
    convolve,
    convolved_moments,
    field_words,
    least_tail,
    normal_table,
    plan_levels,
    tail_mass,
)
from .smoothing import LevelShape, root_up, round_up

__all__ = ["ConvolvedGaussian", "GaussianDesign"]


#: The largest ``sigma^2``: ``2^128`` (levels grow as ``log_L sigma``).
MAX_SIGMA2 = Fraction(1 << 128)

#: The column key's lead bit (:class:`~.convolvedtables.Level`).
COLUMN_KEY = 1 << COLUMN_BITS

#: Batches from this size on are inverted in numpy (:mod:`.convolvedbatch`; the same values).
VECTOR_MIN = 64

#: Supports up to this many points have an exact ``pmf`` / hockey-stick ``delta``.
EXACT_SUPPORT = 1 << 14


class ConvolvedGaussian:
    """A discrete Gaussian for any rational ``sigma^2``, from one oracle call (strict work).

    Paper: CKS20 Def 1, Thm 14 (the ideal law and its zCDP); Peikert 2010 Thm 3.1
    (convolution on a lattice); proofs_notes/convolved_gaussian.md (the law sampled
    here and its privacy).  The neighbour relation is the caller's: the statement is
    for adding the noise to integers (or integer vectors) that differ by at most
    ``Delta`` (in l2 for vectors).

    Args:
        sigma: the ideal law's ``sigma``, a positive rational up to ``2^64``.
        design: the construction's constants (tests use small ones).

    Raises:
        ParameterError: ``sigma`` out of range; FloatParameterError: a float.
    """

    __slots__ = (
        "_base_radius",
        "_base_table",
        "_base_weights",
        "_certifier",
        "_d",
        "_design",
        "_layout",
        "_n",
        "_offset",
        "_sigma2",
        "_top",
        "_top_radius",
        "_top_table",
        "_top_weights",
        "_vector",
    )

    def __init__(self, sigma: object, *, design: GaussianDesign = DEFAULT_DESIGN) -> None:
        s = positive_fraction(sigma, "sigma")
        self._build(s * s, design)

    @classmethod
    def from_variance(
        cls, sigma2: object, *, design: GaussianDesign = DEFAULT_DESIGN
    ) -> ConvolvedGaussian:
        """The law from a rational ``sigma^2`` (``sigma`` may be irrational).

        >>> ConvolvedGaussian.from_variance("1/2").levels
        0
        """
        self = cls.__new__(cls)
        self._build(positive_fraction(sigma2, "sigma2"), design)
        return self

    def _build(self, sigma2: Fraction, design: GaussianDesign) -> None:
        if sigma2 > MAX_SIGMA2:  # a size limit, as the one-table law's: levels and integers grow
            raise ResourceLimitError(
                f"sigma^2: got {short_fraction(sigma2)}; at most 2^128 (sigma up to 2^64)"
            )
        n, top = plan_levels(sigma2, design)
        big_l = design.lattice
        self._sigma2, self._design, self._n, self._top = sigma2, design, n, top
        # Both tables have O(sigma_B + sigma_J) entries: estimated before either is built.
        entries = 60 * (isqrt(int(top) + 1) + isqrt(int(design.base_sigma2) + 1) + 2)
        require_memory(
            entries * 400, "the discrete Gaussian's alias tables", f"about {entries} columns"
        )
        self._top_table = normal_table(top, design.top_bits)
        self._base_table = normal_table(design.base_sigma2, design.base_bits) if n else None
        self._top_radius, self._top_weights = self._top_table.radius, self._top_table.weights
        self._base_radius, self._base_weights = (
            (self._base_table.radius, self._base_table.weights) if self._base_table else (0, (1,))
        )
        # The draw's fields (B's lowest, then J_(n-1) .. J_0) have public widths; the alias
        # tables behind them are built at the first draw (a statement needs none).
        fields = 64 * (field_words(design.top_bits) + n * field_words(design.base_bits))
        self._offset = (n + 1) * OFFSET
        self._d = 1 << fields
        self._layout: list[Level] | None = None
        self._vector: list[LevelArrays] | None = None
        shapes, inner = [], top
        for _ in range(n):
            assert self._base_table is not None
            shape = LevelShape(
                big_l,
                design.base_sigma2,
                self._base_table.scale,
                self._base_table.above,
                self._base_radius,
                inner,
            )
            shapes.append(shape)
            inner = shape.sigma2
        assert inner == sigma2  # the variances add up exactly
        self._certifier = Certifier(
            sigma2, design, self._top_table, self._base_table, shapes, self.radius
        )

    @property
    def _levels(self) -> list[Level]:
        """The sampling layout: each level's alias table as a :class:`Level`, B's first."""
        if self._layout is not None:
            return self._layout
        design, n, big_l = self._design, self._n, self._design.lattice
        levels = [
            Level(
                alias_table(self._top, design.top_bits), design.top_bits, self._top_radius, big_l**n
            )
        ]
        for k in range(n - 1, -1, -1):
            table = alias_table(design.base_sigma2, design.base_bits)
            levels.append(Level(table, design.base_bits, self._base_radius, int(big_l**k)))
        assert self._d == 1 << sum(level.field for level in levels)
        self._layout = levels
        return levels

    # -- the law ---------------------------------------------------------------------------------

    @property
    def sigma2(self) -> Fraction:
        """The ideal ``sigma^2`` (exactly the one asked for)."""
        return self._sigma2

    @property
    def levels(self) -> int:
        """``n``: how many ``J`` tables are added below ``B``."""
        return self._n

    @property
    def lattice(self) -> int:
        """``L``."""
        return self._design.lattice

    @property
    def top_sigma2(self) -> Fraction:
        """``sigma_B^2`` of the top table."""
        return self._top

    @property
    def radius(self) -> int:
        """``R``: the support is within ``[-R, R]``, ``R = L^n R_B + R_J (L^n - 1)/(L - 1)``."""
        scale = int(self._design.lattice**self._n)
        return scale * self._top_radius + self._base_radius * (scale - 1) // (self.lattice - 1)

    @property
    def d(self) -> int:
        """The domain of the one oracle call ``uniform(d)`` each sample makes."""
        return self._d

    @property
    def max_oracle_calls(self) -> int:
        """One draw per sample, whatever it is."""
        return 1

    @property
    def table_columns(self) -> int:
        """Columns of all alias tables: what the set-up builds (a draw reads one per level)."""
        return sum(len(level.entries) for level in self._levels)

    def weights(self) -> dict[int, int]:
        """The exact law as integer weights over ``[-R, R]`` summing to :attr:`weight_total`.

        Raises:
            ResourceLimitError: the support has more than ``EXACT_SUPPORT`` points.
        """
        if 2 * self.radius + 1 > EXACT_SUPPORT:
            raise ResourceLimitError(
                f"the exact law has {short_int(2 * self.radius + 1)} points, above "
                f"{EXACT_SUPPORT}; use the certified statements (zcdp, delta, accuracy)"
            )
        return convolve(self._top_weights, self._base_weights, self._design.lattice, self._n)

    @property
    def weight_total(self) -> int:
        """``W_B W_J^n``: the denominator of :meth:`pmf`."""
        wb = 2 * sum(self._top_weights) - self._top_weights[0]
        wj = 2 * sum(self._base_weights) - self._base_weights[0]
        return int(wb * wj**self._n)

    def pmf(self) -> dict[int, Fraction]:
        """The exact law ``{z: Pr[Z = z]}`` (small supports only, see :meth:`weights`)."""
        total = self.weight_total
        return {z: Fraction(w, total) for z, w in sorted(self.weights().items())}

    # -- sampling --------------------------------------------------------------------------------

    def __call__(self, u: int) -> int:
        """The sample as a function of the draw ``u`` in ``[1, d]``, ``d = 2^K``.

        ``u - 1`` is read as bit fields, level by level from the lowest bits (B
        first, then ``J_(n-1)``, ..., ``J_0``): each field's first ``ceil(Q/64)``
        words are the offset, the low ``a`` bits of its last word the column
        (:class:`~.convolvedtables.Level`).

        Raises:
            ParameterError: ``u`` outside ``[1, d]``.
        """
        return self._value(check_draw(u, self._d))

    def _value(self, u: int) -> int:
        x, s = u - 1, 0
        for level in self._levels:
            f = x & level.field_mask
            h = f >> level.offset_bits
            entry = level.entries[(h | COLUMN_KEY) & level.key_mask]
            carry = ((f + entry[2]) >> level.offset_bits) - h  # 0: own value, 1: alias
            s += entry[0] + entry[1]  # both values read, whichever is taken
            s -= entry[1 - carry]
            x >>= level.field
        return s - self._offset

    def sample(self, rng: RandomSource | None = None) -> int:
        """One sample: one oracle call ``uniform(d)``."""
        return self._value(draw(rng or default_source(), self._d))

    def sample_many(self, count: int, rng: RandomSource | None = None) -> list[int]:
        """``count`` samples from ``count`` draws taken in one batch (same values as one by one)."""
        count = check_positive_int(count, "count") if count else 0
        require_memory(
            count * (64 + self._d.bit_length() // 8),
            "the discrete Gaussian's samples",
            f"count = {short_int(count)}",
        )
        rng = rng or default_source()
        if count < VECTOR_MIN or self.radius >= 1 << 62:
            value = self._value
            return [value(u) for u in draws(rng, self._d, count)]
        if self._vector is None:
            self._vector = [level_arrays(level) for level in self._levels]
        return batch_values(self._vector, draw_fields(rng, self._d, count))

    def add(self, values: Sequence[int], rng: RandomSource | None = None) -> list[int]:
        """``x + Z`` for each integer ``x``, with independent samples in order."""
        xs = [check_int(x, f"values[{i}]") for i, x in enumerate(values)]
        noise = self.sample_many(len(xs), rng) if xs else []
        return [x + z for x, z in zip(xs, noise, strict=True)]

    # -- privacy of what is sampled --------------------------------------------------------------

    def certificate(self, window: int) -> tuple[Fraction, Fraction] | None:
        """``(eps, eta)`` of the sandwich on ``|z| <= window`` (:mod:`.convolvedprivacy`)."""
        return self._certifier.certificate(window)

    def tail_bound(self, t: int) -> Fraction:
        """A certified upper bound of ``Pr[|Z| > t]`` (exact when ``n = 0``)."""
        return self._certifier.tail_bound(t)

    def ideal_rho(self, sensitivity: object = 1) -> Fraction:
        """``Delta^2/(2 sigma^2)`` of the ideal law."""
        shift = check_positive_int(sensitivity, "sensitivity")
        return Fraction(shift * shift) / (2 * self._sigma2)

    def zcdp(self, sensitivity: object = 1, label: str = "discrete Gaussian") -> Guarantee:
        """``delta0``-approximate ``rho'``-zCDP at integer orders for shifts up to ``Delta``.

        See :meth:`zcdp_vector` with one coordinate.
        """
        return self.zcdp_vector(sensitivity, 1, label)

    def zcdp_vector(
        self, sensitivity: object, dimension: object, label: str = "discrete Gaussian vector"
    ) -> Guarantee:
        """Independent copies on ``d`` integer coordinates whose shift has l2 norm ``<= Delta``.

        ``rho' = Delta^2/(2 sigma^2) + d u`` with ``u = (eps + eta)/(1 - eta)`` the
        sandwich's cost on the window ``T``, and ``delta0 = d Pr[|Z| > T - Delta]``
        (certified).  ``T`` is the largest window with ``d u <= rho / 2^ZCDP_GUARD``,
        or the largest certified window if none meets it.  Proof:
        proofs_notes/convolved_gaussian.md; CKS20 Thm 14 for the ideal shape.

        Raises:
            ParameterError: ``Delta`` not below the largest certified window, or ``d < 1``.
        """
        shift = check_positive_int(sensitivity, "sensitivity")
        d = check_positive_int(dimension, "dimension")
        window, extra = self._statement(shift, d)
        rho = self.ideal_rho(shift)
        delta0 = min(Fraction(1), round_up(d * self.tail_bound(window - shift)))
        return Guarantee.zcdp(rho + round_up(extra, rho), label, delta=delta0, integer_orders=True)

    def zcdp_window(self, sensitivity: object = 1, dimension: object = 1) -> int:
        """The window ``T`` of :meth:`zcdp_vector`: its events are ``[x - T + Delta, x + T]``."""
        shift = check_positive_int(sensitivity, "sensitivity")
        return self._statement(shift, check_positive_int(dimension, "dimension"))[0]

    def _statement(self, shift: int, d: int) -> tuple[int, Fraction]:
        return self._certifier.statement(shift, d, self.ideal_rho(shift))

    def hockey_stick(self, exp_epsilon: object, sensitivity: object = 1) -> Fraction:
        """The exact least ``delta`` at ``e^eps = exp_epsilon`` for shifts up to ``Delta``.

        Small supports only (:meth:`weights`); above them use :meth:`delta`.
        """
        e = positive_fraction(exp_epsilon, "exp_epsilon")
        if e < 1:
            raise ParameterError(f"exp_epsilon: got {short_fraction(e)}; e^eps is at least 1")
        shift = check_positive_int(sensitivity, "sensitivity")
        law = self.weights()
        num, den = e.numerator, e.denominator
        r = self.radius
        excess = 0
        for o in range(-r, r + shift + 1):
            gap = den * law.get(o, 0) - num * law.get(o - shift, 0)
            if gap > 0:
                excess += gap
        return Fraction(excess, den * self.weight_total)

    def accuracy(self, beta: object) -> int:
        """A certified ``a`` with ``Pr[|Z| > a] <= beta`` (the least one when ``n = 0``).

        Above one table, the least ``a`` whose :meth:`tail_bound` is at most ``beta``
        (the sandwich's Gaussian tail: within a hair of the exact least).
        """
        b = probability(beta, "beta")
        if self._n == 0:
            return least_tail(self._top_weights, b)
        low, high = -1, self.radius  # tail_within(high); low is below every answer
        while high - low > 1:
            mid = (low + high) // 2
            if self.tail_within(mid, b):
                high = mid
            else:
                low = mid
        return high

    def tail_within(self, a: int, beta: Fraction) -> bool:
        """Whether ``accuracy(beta) <= a``, from one bound instead of a bisection.

        :meth:`accuracy` is the least ``a`` whose certified tail (:meth:`tail_bound`, or
        the exact table tail when ``n = 0``) is at most ``beta``; both fall in ``a``, so
        ``accuracy(beta) <= a`` iff the tail at ``a`` is at most ``beta`` (tested against
        :meth:`accuracy`).
        """
        if a < 0:
            return False
        if self._n == 0:
            return tail_mass(self._top_weights, a) <= beta
        return a >= self.radius or self.tail_bound(a) <= beta

    def moment(self, p: object) -> Fraction:
        """``E |Z|^p`` (``p >= 1``): exact for even ``p`` and for ``n = 0``; for odd ``p``
        above that, Lyapunov's ``(E Z^(p+1))^(p/(p+1))`` rounded up (25 % high at p = 1)."""
        q = check_positive_int(p, "p")
        if self._n == 0:
            w = self._top_weights
            return Fraction(
                2 * sum(x * z**q for z, x in enumerate(w) if z), 1 << self._top_table.bits
            )
        big_l = self._design.lattice
        if q % 2 == 0:
            return convolved_moments(self._top_weights, self._base_weights, big_l, self._n, q)[q]
        even = convolved_moments(self._top_weights, self._base_weights, big_l, self._n, q + 1)[
            q + 1
        ]
        return root_up(even**q, q + 1)

    def __repr__(self) -> str:
        return f"ConvolvedGaussian(sigma^2={short_fraction(self._sigma2)}, levels={self._n})"
