"""Pure differential privacy for Misra-Gries sketches (Section 3.6), dense over the universe.

Paper: Lebeda thesis Section 3.6: post-process the sketch to
``c_x + gamma - n/(k+1)`` (negatives dropped), whose l1 sensitivity is below 2,
then add noise to every element of the universe and release the top ``k``.

Neighbours: streams that differ by adding or removing one element (Def 3.1).

Exactness.  The shift uses the *exact* rational ``n/(k+1)`` (with
``floor(n/(k+1))`` the sensitivity grows to ``k``: ``tests/test_sketches.py``
has the counterexample); scaled by ``k + 1`` the shifted counters are the
integers ``v_x = (k+1)(c_x + gamma) - n``, at most ``k n``, with l1 sensitivity
at most ``(k+1)(1 + k/(k+1)) = 2k + 1``.  Each ``v_x`` (0 for the other elements)
gets BV's clamped geometric on ``[0, k N]`` (``N`` a public bound on the stream
length) with per-unit ratio ``b/a <= e^(eps/(2k+1))``: GeoSample at budget
``2 eps/(2k+1)``, one oracle call per element.  Clamping the output to a public
range and keeping the top ``k`` are post-processing, so the release is pure
``eps``-DP.  An estimate is ``noisy/(k+1)``, an exact ``Fraction``.

This touches all ``d`` elements (at most ``MAX_DENSE_UNIVERSE``); releasing the
top ``k`` over larger universes without touching every bin (BV's KH' with order
statistics over the empty bins) is not built yet.

>>> from finitedp.oracle import SeededSource
>>> mech = PureMisraGries(k=2, universe_size=20, epsilon=1, max_length=100)
>>> r = mech.release([3] * 60 + [4] * 25 + [5] * 10, rng=SeededSource(b"pure"))
>>> r.privacy.delta, [x for x, _ in r.heavy]
(Fraction(0, 1), [3, 4])
"""

from __future__ import annotations

from collections.abc import Iterable

from ..counting.geosample import GeoSample
from ..errors import ParameterError
from ..guarantees import Privacy
from ..histograms.mechanisms import MAX_DENSE_UNIVERSE
from ..oracle import RandomSource, default_source
from ..params import check_positive_int, positive_fraction, short_int
from .merge import MERGED_NEIGHBOURS
from .misragries import MGSketch, misra_gries
from .private import STREAM_NEIGHBOURS
from .release import SketchRelease

__all__ = ["PureMergedMG", "PureMisraGries", "dense_top_k", "shifted_counts"]


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


def dense_top_k(
    values: dict[int, int], sampler: GeoSample, universe_size: int, k: int, rng: RandomSource
) -> tuple[tuple[int, int], ...]:
    """Noise on every element ``1..d`` (one call each, in order), then the top ``k`` positive.

    Paper: [CLSX12] as Lebeda thesis Sections 3.6-3.7 use it.  Ties between equal
    noisy values go to the smaller key; choosing is post-processing of the noisy
    vector, so the release is as private as that vector.
    """
    noisy = [(sampler.sample(values.get(x, 0), rng), x) for x in range(1, universe_size + 1)]
    top = sorted(noisy, key=lambda pair: (-pair[0], pair[1]))[:k]
    return tuple(sorted((x, v) for v, x in top if v > 0))


def _check_dense(universe_size: int) -> int:
    d = check_positive_int(universe_size, "universe_size")
    if d > MAX_DENSE_UNIVERSE:
        raise ParameterError(
            f"universe_size: got {short_int(d)}; this release adds noise to every element, "
            f"so it is limited to {MAX_DENSE_UNIVERSE}"
        )
    return d


class PureMisraGries:
    """Pure ``eps``-DP heavy hitters from a Misra-Gries sketch, over a small universe.

    Paper: Lebeda thesis Section 3.6 (sensitivity 2 after the shift; noise to
    every element, top ``k``), with BV's clamped geometric mechanism.

    Neighbours: streams differing by one added or removed element (Def 3.1).

    Args:
        k: counters of the sketch, and the number of elements released.
        universe_size: ``d``, at most ``MAX_DENSE_UNIVERSE`` (every element gets noise).
        epsilon: the budget.
        max_length: ``N``, a public bound on the stream length (longer streams are refused).

    Raises:
        ParameterError: a parameter out of range.
    """

    def __init__(self, k: int, universe_size: int, epsilon: object, max_length: int) -> None:
        self.k = check_positive_int(k, "k")
        self.universe_size = _check_dense(universe_size)
        self.epsilon = positive_fraction(epsilon, "epsilon")
        self.max_length = check_positive_int(max_length, "max_length")
        self.bound = self.k * self.max_length  # v_x <= k n <= k N
        self.sampler = GeoSample(self.bound, 2 * self.epsilon / (2 * self.k + 1), noise="tight")

    @property
    def privacy(self) -> Privacy:
        """``(eps, 0)``: l1 sensitivity ``2k + 1`` in units of ``1/(k+1)``, ``eps/(2k+1)`` each."""
        return Privacy(self.epsilon)

    @property
    def neighbours(self) -> str:
        """The neighbour relation of :attr:`privacy`."""
        return STREAM_NEIGHBOURS

    def release_sketch(self, sketch: MGSketch, rng: RandomSource | None = None) -> SketchRelease:
        """Noise on every element (``d`` calls, in order), then the top ``k`` positive ones.

        Ties between equal noisy values go to the smaller key (post-processing).

        Raises:
            ParameterError: a sketch of another ``k`` or ``d``, a standard sketch, or a
                stream longer than ``max_length``.
        """
        if (sketch.k, sketch.universe_size, sketch.standard) != (
            self.k,
            self.universe_size,
            False,
        ):
            raise ParameterError(
                f"sketch: needs an Alg 12 sketch with k = {self.k}, d = {self.universe_size}"
            )
        if sketch.n > self.max_length:
            raise ParameterError(
                f"data: a stream of {sketch.n} elements; this release is for at most "
                f"max_length = {self.max_length}"
            )
        rng = default_source() if rng is None else rng
        heavy = dense_top_k(shifted_counts(sketch), self.sampler, self.universe_size, self.k, rng)
        parameters = (
            ("algorithm", "Lebeda thesis Section 3.6 (pure DP, dense)"),
            ("epsilon", str(self.epsilon)),
            ("k", str(self.k)),
            ("max_length", str(self.max_length)),
        )
        return SketchRelease(
            heavy,
            self.universe_size,
            self.privacy,
            self.neighbours,
            parameters,
            denominator=self.k + 1,
        )

    def release(self, data: Iterable[object], rng: RandomSource | None = None) -> SketchRelease:
        """The sketch of the stream ``data`` (Alg 12), then :meth:`release_sketch`."""
        return self.release_sketch(misra_gries(self.k, self.universe_size, data), rng)


class PureMergedMG:
    """Pure ``eps``-DP release of a merged sketch: noise at sensitivity ``k`` on every element.

    Paper: Lebeda thesis Section 3.7 (Corollary 3.2: merged neighbours differ by 1 in
    at most ``k`` counters; "add noise with magnitude ``k/eps`` to all elements and keep
    the top ``k``", after [CLSX12]), with BV's clamped geometric on ``[0, N]``.

    Neighbours: datasets of several streams, one element added to or removed from
    one stream (Section 3.7), merged in a fixed order.

    Args:
        k: counters of every sketch.
        universe_size: ``d``, at most ``MAX_DENSE_UNIVERSE``.
        epsilon: the budget (``eps/k`` per unit: ``k`` counters move by one).
        max_length: ``N``, a public bound on the total length of the streams.
    """

    def __init__(self, k: int, universe_size: int, epsilon: object, max_length: int) -> None:
        self.k = check_positive_int(k, "k")
        self.universe_size = _check_dense(universe_size)
        self.epsilon = positive_fraction(epsilon, "epsilon")
        self.max_length = check_positive_int(max_length, "max_length")
        self.sampler = GeoSample(self.max_length, 2 * self.epsilon / self.k, noise="tight")

    @property
    def privacy(self) -> Privacy:
        """``(eps, 0)``: at most ``k`` counters move by one, ``eps/k`` each (Corollary 3.2)."""
        return Privacy(self.epsilon)

    def release_sketch(self, sketch: MGSketch, rng: RandomSource | None = None) -> SketchRelease:
        """Noise on every element (``d`` calls), then the top ``k`` positive noisy counters.

        Raises:
            ParameterError: a sketch of another ``k`` or ``d``, or longer than ``max_length``.
        """
        if (sketch.k, sketch.universe_size) != (self.k, self.universe_size):
            raise ParameterError(
                f"sketch: needs k = {self.k}, d = {self.universe_size}; got k = {sketch.k}, "
                f"d = {sketch.universe_size}"
            )
        if sketch.n > self.max_length:
            raise ParameterError(
                f"data: {sketch.n} elements in all; this release is for at most "
                f"max_length = {self.max_length}"
            )
        rng = default_source() if rng is None else rng
        heavy = dense_top_k(sketch.positive(), self.sampler, self.universe_size, self.k, rng)
        parameters = (
            ("algorithm", "Lebeda thesis Section 3.7 (merged sketch, pure DP, dense)"),
            ("epsilon", str(self.epsilon)),
            ("k", str(self.k)),
            ("max_length", str(self.max_length)),
        )
        return SketchRelease(heavy, self.universe_size, self.privacy, MERGED_NEIGHBOURS, parameters)
