"""Pure differential privacy for Misra-Gries sketches (Sections 3.6 and 3.7).

Paper: Lebeda thesis Section 3.6: post-process the sketch to
``c_x + gamma - n/(k+1)`` (negatives dropped), whose l1 sensitivity is below 2,
then add noise to every element of the universe and release the top ``k``;
Section 3.7: the same at l1 sensitivity ``k`` for a merged sketch.

Neighbours: streams that differ by adding or removing one element (Def 3.1);
for merged sketches, one element added to or removed from one stream.

Exactness.  The shift uses the *exact* rational ``n/(k+1)`` (with
``floor(n/(k+1))`` the sensitivity grows to ``k``: ``tests/test_sketches.py``
has the counterexample); scaled by ``k + 1`` the shifted counters are the
integers ``v_x = (k+1)(c_x + gamma) - n``, at most ``k n``, with l1 sensitivity
at most ``(k+1)(1 + k/(k+1)) = 2k + 1``.  Each ``v_x`` (0 for the other elements)
gets BV's clamped geometric on ``[0, k N]`` (``N`` a public bound on the stream
length) with per-unit ratio ``b/a <= e^(eps/(2k+1))``: GeoSample at budget
``2 eps/(2k+1)``.  An estimate is ``noisy/(k+1)``, an exact ``Fraction``.

"Top ``k``" is BV's KeepHeavy rule: the elements strictly above the
``(k+1)``-th largest noisy value (and positive), so ties need no randomness and
at most ``k`` are released.  The dense classes add noise to all ``d`` elements
(``d <= MAX_DENSE_UNIVERSE``) and are pure ``eps``-DP by post-processing.  The
``Sparse`` classes touch ``3k + 2`` elements' worth of randomness whatever ``d``
is (:mod:`.sparsetop`): within a tiny statistical distance of the dense release,
mixed with a data-independent release of probability ``beta`` (BV Lemma 3.2),
and pure ``eps``-DP by condition (1), decided exactly.

>>> from finitedp.oracle import SeededSource
>>> stream = [3] * 60 + [4] * 25 + [5] * 10
>>> mech = PureMisraGries(k=2, universe_size=20, epsilon=1, max_length=100)
>>> r = mech.release(stream, rng=SeededSource(b"pure"))
>>> r.privacy.delta, [x for x, _ in r.heavy]
(Fraction(0, 1), [3, 4])
>>> big = PureSparseMisraGries(2, 2**64, 1, max_length=10**4, beta="1/100")
>>> heavy = dict(big.release([3] * 6000 + [4] * 2500, rng=SeededSource(b"pure")).heavy)
>>> 3 in heavy, len(heavy) <= 2
(True, True)
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import ClassVar

from ..counting.geosample import GeoSample
from ..counting.mixing import Mixture
from ..counting.twosided import noise_radius
from ..errors import ParameterError
from ..guarantees import Accuracy, Privacy
from ..histograms.mechanisms import MAX_DENSE_UNIVERSE
from ..oracle import RandomSource, default_source
from ..params import (
    check_positive_int,
    inverse_natural,
    positive_fraction,
    probability,
    short_int,
)
from ..resources import require_bits
from .merge import MERGED_NEIGHBOURS
from .misragries import MGSketch, misra_gries
from .private import STREAM_NEIGHBOURS
from .release import SketchRelease
from .sparsetop import (
    Heavy,
    dense_keep_heavy,
    fallback_min_probability,
    sparse_keep_heavy,
    top_delta,
    top_fallback,
    top_precision,
)

__all__ = [
    "PureMergedMG",
    "PureMisraGries",
    "PureSparseMergedMG",
    "PureSparseMisraGries",
    "shifted_counts",
]


def shifted_counts(sketch: MGSketch) -> dict[int, int]:
    """Section 3.6 scaled by ``k + 1``: ``(k+1)(c_x + gamma) - n`` for real keys, positive only.

    Paper: Lebeda thesis Section 3.6 (``c_x + gamma - n/(k+1)``, negatives removed).
    """
    k, n = sketch.k, sketch.n
    out = {}
    for x, c in sketch.counters:
        v = (k + 1) * (c + sketch.gamma) - n
        if x <= sketch.universe_size and v > 0:
            out[x] = v
    return out


class _PureTopK:
    """The sketch's values in ``[0, U]``, GeoSample noise on ``[0, U]``, KeepHeavy's top ``k``.

    Subclasses say which values (Section 3.6's shifted counters or a merged sketch's)
    and whether the release is dense or sparse (``beta`` given).
    """

    _merged: ClassVar[bool] = False
    _section: ClassVar[str] = ""

    def __init__(
        self, k: int, universe_size: int, epsilon: object, max_length: int, beta: object
    ) -> None:
        self.k = check_positive_int(k, "k")
        self.universe_size = check_positive_int(universe_size, "universe_size")
        self.epsilon = positive_fraction(epsilon, "epsilon")
        self.max_length = check_positive_int(max_length, "max_length")
        if self._merged:  # Corollary 3.2: k counters move by one; merged counts <= N
            self.bound, units = self.max_length, self.k
        else:  # 2k + 1 units of 1/(k+1); v_x <= k n <= k N
            self.bound, units = self.k * self.max_length, 2 * self.k + 1
        try:
            # k draws in [1, d] (the kept keys' noise, then discards), each a pass
            self.sampler = GeoSample(
                self.bound, 2 * self.epsilon / units, noise="tight", samples=self.k
            )
        except ParameterError as error:  # GeoSample's n is our bound k N: name k and N
            detail = str(error).partition(": ")[2] or str(error)
            raise type(error)(
                f"k: got {short_int(self.k)}, max_length: got {short_int(self.max_length)}; "
                f"the noise over counts up to {short_int(self.bound)} is too large: {detail}"
            ) from None
        self.beta: Fraction | None = None
        if beta is None:
            if self.universe_size > MAX_DENSE_UNIVERSE:
                raise ParameterError(
                    f"universe_size: got {short_int(self.universe_size)}; this release adds "
                    f"noise to every element, so it is limited to {MAX_DENSE_UNIVERSE}; the "
                    f"Sparse variant takes any universe"
                )
            if self.universe_size < self.k + 1:
                raise ParameterError(
                    f"universe_size: got {self.universe_size}; KeepHeavy's top k needs "
                    f"d >= k + 1 = {self.k + 1}"
                )
            return
        self.beta = inverse_natural(beta, "beta", below_one=True)
        if self.universe_size < 2 * self.k + 1:
            raise ParameterError(
                f"universe_size: got {self.universe_size}; the sparse release needs "
                f"d >= 2k + 1 = {2 * self.k + 1} (k + 1 empty elements; BV footnote 6)"
            )
        self.delta = top_delta(self.epsilon, self.beta, self.k, self.universe_size, self.bound)
        self.precision = top_precision(self.bound, self.k + 1, self.universe_size, self.delta)
        require_bits(
            self.precision.bit_length(),
            "the order statistics' precision s",
            f"k = {self.k}, universe_size = {short_int(self.universe_size)}",
        )
        self._mixture: Mixture[dict[int, int], Heavy] = Mixture(
            self._sparse, self._fallback, self.beta
        )
        # BV Lemma 3.2's condition (1), decided exactly for these parameters.
        self._mixture.require_pure_dp(
            delta=self.delta,
            min_fallback_probability=fallback_min_probability(
                self.k, self.universe_size, self.bound
            ),
            epsilon=self.epsilon,
        )

    def _sparse(self, values: dict[int, int], rng: RandomSource) -> Heavy:
        return sparse_keep_heavy(
            values, self.sampler, self.universe_size, self.k, self.precision, rng
        )

    def _fallback(self, rng: RandomSource) -> Heavy:
        return top_fallback(self.k, self.universe_size, self.bound, rng)

    @property
    def privacy(self) -> Privacy:
        """``(eps, 0)``: Section 3.6 (``2k + 1`` units of ``1/(k+1)``) or 3.7 (``k`` units)."""
        return Privacy(self.epsilon)

    @property
    def neighbours(self) -> str:
        """The neighbour relation of :attr:`privacy`."""
        return MERGED_NEIGHBOURS if self._merged else STREAM_NEIGHBOURS

    def accuracy(self, beta: object, n: int | None = None) -> Accuracy:
        """A simultaneous bound on every estimate, against the sketch (or the stream, given ``n``).

        KeepHeavy's argument (BV Thm 6.2 iii): if every one of the ``d`` noise values is
        within ``a`` (``Pr[|Z| > a] <= beta'/d``, exact tail), the ``(k+1)``-th largest
        noisy value is at most ``a`` (at most ``k`` values are positive), so a released
        value is within ``a`` and an unreleased one is at most ``2a``: ``2a`` in the
        noise's units (``1/(k+1)`` for Section 3.6).  The sparse release adds its
        failure ``beta1 + delta`` (fallback, distance): ``beta' = beta - beta1 - delta``,
        and no statement (``None``) when that is not positive.  With ``n`` (Section
        3.6 only) the shift's error ``n/(k+1)`` is added (Fact 3.1: the shifted value
        lies in ``[f(x) - n/(k+1), f(x)]``); ``n`` is not public: never publish it.
        The statement's ``noise_floor``, ``ceil(a/scale)``, bounds an absent key's
        estimate: listed keys at most that may be noise (the junk of a top ``k`` over a
        large universe when fewer than ``k`` keys stand out).
        """
        b = probability(beta, "beta")
        slack = b if self.beta is None else b - self.beta - self.delta
        scale = 1 if self._merged else self.k + 1
        source = "BV Thm 6.2 iii (KeepHeavy) with the exact geometric tail"
        if slack <= 0:
            return Accuracy(b, None, None, None, source)
        alpha = 1 / self.sampler.noise.exp_epsilon
        a = min(self.bound, noise_radius(alpha, slack / self.universe_size))
        error = Fraction(2 * a, scale)
        relative = (
            "the sketch's (shifted) counters, not the true counts: each estimate also lies "
            f"up to n/(k + 1) = n/{self.k + 1} below the true count (Fact 3.1; n, the "
            "stream length, is not released)"
            if not self._merged
            else "the merged sketch's counters"
        )
        if n is not None and not self._merged:
            error += Fraction(check_positive_int(n, "n"), scale)
            source += " + Lebeda thesis Fact 3.1"
            relative = "the true counts (the sketch's shift n/(k + 1) included)"
        bound = -(-error.numerator // error.denominator)  # the exact ceiling
        # Every noise is within a: an absent key's estimate is at most a/scale; the top k
        # over the d keys lists such keys when fewer than k stand out above it.
        floor = -(-a // scale)
        return Accuracy(b, bound, None, bound, source, relative, noise_floor=floor)

    @property
    def max_oracle_calls(self) -> int:
        """``d`` (dense: one per element) or ``5k + 4`` (sparse, always exactly that many)."""
        return self.universe_size if self.beta is None else 5 * self.k + 4

    def _values(self, sketch: MGSketch) -> dict[int, int]:
        if (sketch.k, sketch.universe_size) != (self.k, self.universe_size) or (
            sketch.standard and not self._merged
        ):
            kind = "a sketch" if self._merged else "an Alg 12 sketch"
            raise ParameterError(
                f"sketch: needs {kind} with k = {self.k}, d = {self.universe_size}; got "
                f"k = {sketch.k}, d = {sketch.universe_size}"
                + (", standard" if sketch.standard else "")
            )
        if sketch.n > self.max_length:
            raise ParameterError(
                f"data: {sketch.n} elements; this release is for at most "
                f"max_length = {self.max_length}"
            )
        return sketch.positive() if self._merged else shifted_counts(sketch)

    def release_sketch(self, sketch: MGSketch, rng: RandomSource | None = None) -> SketchRelease:
        """The release of ``sketch``: at most ``k`` keys with their noisy values.

        Oracle calls: see :attr:`max_oracle_calls` (dense: one per element, in order;
        sparse: BV's mixture draw, :func:`.sparsetop.sparse_keep_heavy`,
        :func:`.sparsetop.top_fallback`).

        Raises:
            ParameterError: a sketch of another ``k`` or ``d`` (or a standard sketch for
                Section 3.6), or more elements than ``max_length``; no call is made.
        """
        values = self._values(sketch)
        rng = default_source() if rng is None else rng
        if self.beta is None:
            heavy = dense_keep_heavy(values, self.sampler, self.universe_size, self.k, rng)
        else:
            heavy = self._mixture(values, rng)
        parameters = [
            ("algorithm", self._section),
            ("epsilon", str(self.epsilon)),
            ("k", str(self.k)),
            ("max_length", str(self.max_length)),
        ]
        if self.beta is not None:
            parameters.append(("beta", str(self.beta)))
        return SketchRelease(
            heavy,
            self.universe_size,
            self.privacy,
            self.neighbours,
            tuple(parameters),
            denominator=1 if self._merged else self.k + 1,
        )

    def __repr__(self) -> str:
        beta = "" if self.beta is None else f", beta={self.beta}"
        return (
            f"{type(self).__name__}(k={self.k}, universe_size={self.universe_size}, "
            f"epsilon={self.epsilon}, max_length={self.max_length}{beta})"
        )


class PureMisraGries(_PureTopK):
    """Pure ``eps``-DP heavy hitters from a Misra-Gries sketch, noise on every element.

    Paper: Lebeda thesis Section 3.6 (sensitivity 2 after the shift; noise to
    every element, top ``k``), with BV's clamped geometric mechanism and
    KeepHeavy's top ``k`` (BV Alg 6.1).

    Neighbours: streams differing by one added or removed element (Def 3.1).

    Args:
        k: counters of the sketch, and the most elements released.
        universe_size: ``d``, in ``[k + 1, MAX_DENSE_UNIVERSE]`` (every element gets noise).
        epsilon: the budget.
        max_length: ``N``, a public bound on the stream length (longer streams are refused).

    Raises:
        ParameterError: a parameter out of range.
    """

    _section = "Lebeda thesis Section 3.6 (pure DP, dense)"

    def __init__(self, k: int, universe_size: int, epsilon: object, max_length: int) -> None:
        super().__init__(k, universe_size, epsilon, max_length, None)

    def release(self, data: Iterable[object], rng: RandomSource | None = None) -> SketchRelease:
        """The sketch of the stream ``data`` (Alg 12), then :meth:`release_sketch`."""
        return self.release_sketch(misra_gries(self.k, self.universe_size, data), rng)


class PureSparseMisraGries(PureMisraGries):
    """:class:`PureMisraGries` over a universe of any size, touching ``O(k)`` elements.

    Paper: Lebeda thesis Section 3.6, released with BV's KH' (Alg 6.4, Prop 6.5) for
    ``k`` kept values in ``[0, kN]``, order statistics by :func:`.sparsetop.approx_top_sample`
    (BV Prop 6.19's argument) and BV's mixture (Alg 3.1, Lemma 3.2; as Alg 6.9).

    Neighbours: streams differing by one added or removed element (Def 3.1).

    Args:
        k: counters of the sketch, and the most elements released.
        universe_size: ``d >= 2k + 1``, any size.
        epsilon: the budget.
        max_length: ``N``, a public bound on the stream length.
        beta: ``1/g``, the probability of releasing the data-independent fallback
            (:func:`.sparsetop.top_fallback`) instead.

    Raises:
        ParameterError: a parameter out of range, or BV's condition (1) failing.
    """

    _section = "Lebeda thesis Section 3.6 (pure DP, sparse: BV KH' and mixture)"

    def __init__(
        self, k: int, universe_size: int, epsilon: object, max_length: int, beta: object
    ) -> None:
        _PureTopK.__init__(self, k, universe_size, epsilon, max_length, beta)


class PureMergedMG(_PureTopK):
    """Pure ``eps``-DP release of a merged sketch: noise at sensitivity ``k`` on every element.

    Paper: Lebeda thesis Section 3.7 (Corollary 3.2: merged neighbours differ by 1 in
    at most ``k`` counters; "add noise with magnitude ``k/eps`` to all elements and keep
    the top ``k``", after [CLSX12]), with BV's clamped geometric on ``[0, N]`` and
    KeepHeavy's top ``k``.

    Neighbours: datasets of several streams, one element added to or removed from
    one stream (Section 3.7), merged in a fixed order.

    Args:
        k: counters of every sketch.
        universe_size: ``d``, in ``[k + 1, MAX_DENSE_UNIVERSE]``.
        epsilon: the budget (``eps/k`` per unit: ``k`` counters move by one).
        max_length: ``N``, a public bound on the total length of the streams.
    """

    _merged = True
    _section = "Lebeda thesis Section 3.7 (merged sketch, pure DP, dense)"

    def __init__(self, k: int, universe_size: int, epsilon: object, max_length: int) -> None:
        super().__init__(k, universe_size, epsilon, max_length, None)


class PureSparseMergedMG(PureMergedMG):
    """:class:`PureMergedMG` over a universe of any size, touching ``O(k)`` elements.

    Paper: Lebeda thesis Section 3.7 with BV's KH', the order statistics of
    :func:`.sparsetop.approx_top_sample` and BV's mixture, as for
    :class:`PureSparseMisraGries`.

    Args:
        k: counters of every sketch.
        universe_size: ``d >= 2k + 1``, any size.
        epsilon: the budget.
        max_length: ``N``, a public bound on the total length of the streams.
        beta: ``1/g``, the probability of releasing the data-independent fallback.
    """

    _section = "Lebeda thesis Section 3.7 (merged sketch, pure DP, sparse: BV KH' and mixture)"

    def __init__(
        self, k: int, universe_size: int, epsilon: object, max_length: int, beta: object
    ) -> None:
        _PureTopK.__init__(self, k, universe_size, epsilon, max_length, beta)
