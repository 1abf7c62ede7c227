"""The hash family of BV Lemma 8.1 and sampling a member consistent with the noisy counts.

Paper: BV Lemma 8.1 (the family ``G_{M0}(X)``: polynomials of degree ``<= n``
over ``F = GF(2^L)``, read through ``T`` and ``M0``), Alg 8.2 steps 3-4.

**The universe map** ``phi`` puts ``X = [1, m]`` into the subfield
``K = GF(2^(2*3^j))`` of ``F`` (``j`` the least level with
``2^(2*3^j) >= max(m, n + 1)``), the ``(x-1)``-th element of ``K`` in the order
"fewer bits set first, then colexicographic".  Any injective public map keeps
the family ``(n+1)``-wise independent; points in ``K`` make interpolation
cheap, points with few bits set make evaluation cheap.

**Sampling** (Lemma 8.1 iv): a polynomial ``p`` uniform among those with
``M0(T(p(phi(x)))) = v_x`` for every occupied bin ``x``.  Two samplers, with the
same output distribution and the same oracle calls:

* ``"points"``, the proof of Lemma 8.1 iv literally: draw ``y_x`` from ``S_{v_x}``
  (uniform on the interval ``M0^-1(v_x)``), give ``n + 1 - |A|`` filler points
  uniform values, and interpolate through the ``n + 1`` points;
* ``"blocks"`` (the default, much faster for large fields): the interval
  ``S_v`` is a disjoint union of aligned dyadic blocks, and a uniform draw of
  ``S_v`` is a uniform draw of its block (probability proportional to size)
  followed by uniform low bits.  So only the bits that select the block are
  constrained: ``p(phi(x))`` must agree with ``y_x`` on its top ``k_x`` bits,
  ``k_x = L - log2 |block|``, and is otherwise free.  Over ``K`` the field has
  the basis ``1, x, ..., x^(s-1)`` (``s = 3^(l-j)``), a point of ``K`` acts on each
  coordinate separately, and bit ``r + s e`` of an element is bit ``e`` of its
  coordinate ``r``: the top ``k`` bits touch only the coordinates
  ``r >= s - k``.  Each coordinate of ``p`` is a polynomial over ``K`` sampled
  on its own, constrained only at the bins whose blocks reach it; the others
  are uniform, copied from the draws.  ``proofs_notes/compact_histogram.md``
  proves that the distribution is that of ``"points"``; the tests compare the
  two exactly.

The ``"blocks"`` layout, exactly (what another implementation must follow):
with ``y_x`` (``x`` in ``A``) and the fillers ``f_1, ..., f_(n+1-|A|)`` drawn as
in ``"points"``, let ``w_x`` be the largest ``w`` with the aligned block
``[y_x - y_x mod 2^w, y_x - y_x mod 2^w + 2^w)`` inside ``[lo_v - 1, hi_v - 1]`` and
``k_x = L - w_x``.  Order ``A`` by ``k_x`` decreasing, then ``x`` increasing:
``x_1, ..., x_|A|``; the sequence ``R = (y_(x_1), ..., y_(x_|A|), f_1, ...)`` has
``n + 1`` elements.  For coordinate ``r``: ``a_r = #{x : k_x >= s - r}``; if
``a_r = 0`` coordinate ``r`` of the coefficients is ``R``'s coordinate ``r``;
else ``P`` is the first ``p`` points, ``p`` the least power of two ``>= a_r``
(``|A|`` if that is more), and coordinate ``r`` of the polynomial is
``I + Z_P rho``: ``I`` of degree below ``p`` through ``(phi(x_i), R_i^(r))``,
``i <= p``, ``Z_P = prod_(i <= p) (z - phi(x_i))`` and ``rho`` the polynomial with
coefficients ``R_(p+1)^(r), ..., R_(n+1)^(r)``.

>>> from finitedp import GeoSample
>>> from finitedp.compact.emptybin import EmptyBinSampler
>>> from finitedp.oracle import SeededSource
>>> empty = EmptyBinSampler(GeoSample(3, 1), 2**18)
>>> p = sample_consistent(empty, 20, {4: 2, 9: 0}, SeededSource(b"doc"))
>>> len(p), all(0 <= a < 2**18 for a in p)
(4, True)
"""

from __future__ import annotations

import operator
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from typing import Any

import gmpy2

from ..errors import ParameterError
from ..oracle import RandomSource, draw
from ..params import short_int
from .emptybin import EmptyBinSampler
from .gf2 import MAX_LEVEL, GF2Field
from .kpoly import PackedPolyRing
from .parallel import SHARED, fork_map, worker_count
from .subproduct import Node, SubproductTree, interpolate, weights

__all__ = [
    "MAX_BINOMIAL_TABLE_BYTES",
    "METHODS",
    "UniverseMap",
    "dyadic_block",
    "field_level_for",
    "field_of",
    "interpolate_over_subfield",
    "sample_consistent",
    "universe_layout",
]

#: The samplers of :func:`sample_consistent`.
METHODS = ("blocks", "points")


# -- the universe map ---------------------------------------------------------------


def field_level_for(size: int) -> int:
    """The least ``j`` with ``2^(2*3^j) >= size``."""
    j = 0
    while (1 << (2 * 3**j)) < size:
        j += 1
    return j


#: Above this many bytes :class:`UniverseMap` walks the binomials instead of tabulating them.
MAX_BINOMIAL_TABLE_BYTES = 32 << 20


class UniverseMap:
    """The injective public map ``phi`` from ``[1, 2^(2*3^j)]`` into ``K = GF2Field(j)``.

    ``phi(x)`` is the element of rank ``x - 1`` when ``K``'s elements are ordered by
    the number of bits set, then colexicographically (the combinatorial number
    system): points of a large universe have few bits set.

    Only points up to ``points`` are mapped, so only the weights they reach are
    prepared.  The binomials ``C(c, t)`` of those weights are tabulated when the
    table is small; above :data:`MAX_BINOMIAL_TABLE_BYTES` (a universe of
    thousands of bits) each ``phi(x)`` walks them instead, ``O(2*3^j)`` exact
    products and divisions per point, and the map is the same.

    Args:
        level: ``j``.
        points: the largest point that will be mapped (default: all ``2^(2*3^j)``).
    """

    __slots__ = ("_binomial", "_points", "_starts", "_width")

    def __init__(self, level: int, points: int | None = None) -> None:
        self._width = w = 2 * 3**level
        self._points: int = (1 << w) if points is None else min(points, 1 << w)
        self._starts = [0]  # the rank of the first element of each weight reached
        weight = 0
        while self._starts[-1] < self._points:
            self._starts.append(self._starts[-1] + int(gmpy2.comb(w, weight)))
            weight += 1
        rows = len(self._starts) - 1
        size = rows * (w + 1) * (self._starts[-1].bit_length() // 8 + 32)
        self._binomial: list[list[int]] | None = None
        if size <= MAX_BINOMIAL_TABLE_BYTES:
            # binomial[t][c] = C(c, t) for c in [0, w] and the weights t reached.
            self._binomial = [[0] * (w + 1) for _ in range(rows)]
            for c in range(w + 1):
                self._binomial[0][c] = 1
                for t in range(1, min(c, rows - 1) + 1):
                    self._binomial[t][c] = self._binomial[t][c - 1] + self._binomial[t - 1][c - 1]

    @property
    def size(self) -> int:
        """The largest point mapped (``2^(2*3^j)`` unless fewer were asked for)."""
        return self._points

    def __call__(self, x: int) -> int:
        """``phi(x)`` for ``x`` in ``[1, size]``."""
        rank = x - 1
        weight = bisect_left(self._starts, rank + 1) - 1
        rank -= self._starts[weight]
        if self._binomial is None:
            return _unrank(self._width, weight, rank)
        element, c = 0, self._width
        for t in range(weight, 0, -1):
            # The largest c with C(c, t) <= rank is the t-th smallest chosen position.
            row = self._binomial[t]
            c = bisect_left(row, rank + 1, t - 1, c) - 1
            element |= 1 << c
            rank -= row[c]
        return element

    def max_weight(self, points: int) -> int:
        """The most bits set in ``phi(x)`` for ``x <= points`` (``points <= size``)."""
        return bisect_left(self._starts, points) - 1


def _unrank(width: int, weight: int, rank: int) -> int:
    """The ``rank``-th ``weight``-subset of ``[0, width)`` in colex order, as a bit mask.

    The same greedy as the table (the largest ``c`` with ``C(c, t) <= rank``), with
    ``C(c - 1, t) = C(c, t) (c - t) / c`` walking ``c`` down: each ``c`` is passed
    once over all ``t``, so ``O(width)`` exact steps.
    """
    element, c = 0, width
    for t in range(weight, 0, -1):
        c -= 1
        value: int = int(gmpy2.comb(c, t))
        while value > rank:
            value = value * (c - t) // c
            c -= 1
        element |= 1 << c
        rank -= value
    return element


# -- Lemma 8.1 iv ---------------------------------------------------------------------


def universe_layout(n: int, universe_size: int, field: GF2Field) -> tuple[int, UniverseMap]:
    """``(j, phi)``: the universe's subfield level and map, for ``n`` rows and ``|X|``.

    Raises:
        ParameterError: the field has fewer than ``max(|X|, n + 1)`` elements.
    """
    level = field_level_for(max(universe_size, n + 1))
    if level > field.level:
        raise ParameterError(
            f"d0: got 2^{field.degree}; the field must have at least max(|X|, n + 1) = "
            f"{short_int(max(universe_size, n + 1))} elements"
        )
    # Data points lie in [1, |X|]; the fillers are the n + 1 - |A| smallest others.
    return level, UniverseMap(level, max(universe_size, 2 * n + 2))


def sample_consistent(
    empty: EmptyBinSampler,
    universe_size: int,
    constraints: Mapping[int, int],
    rng: RandomSource,
    *,
    method: str = "blocks",
    workers: int | None = None,
) -> tuple[int, ...]:
    """A polynomial uniform among those whose histogram has ``g_x = c_x`` for ``x`` in ``A``.

    Paper: BV Lemma 8.1 iv (the three steps of its proof).  Oracle calls, in order:
    for each ``x`` of ``A`` in increasing order one ``uniform(|supp S_{c_x}|)``
    (the draw of ``S_{c_x}``), then for each filler point one ``uniform(d0)``.
    The fillers are the ``n + 1 - |A|`` smallest points of ``[1, ...]`` not in ``A``
    (points beyond ``|X|`` are fine: only distinctness matters).  Both methods
    (see the module notes) make these calls and have the same output distribution.

    Args:
        empty: the empty-bin sampler ``M0`` (its ``d0`` fixes the field, its ``M`` fixes ``n``).
        universe_size: ``|X|``.
        constraints: ``{x: c_x}`` with ``|A| <= n``.
        rng: the randomness source.
        method: ``"blocks"`` (default) or ``"points"``.
        workers: processes for the interpolations (``None``: two forked processes for
            large instances on two or more CPUs; ``1``: never fork).  The result does
            not depend on it.

    Returns:
        The coefficients ``(a_0, ..., a_n)``.

    Raises:
        ParameterError: more than ``n`` constraints, a bin outside ``[1, |X|]``, a count
            ``M0`` never outputs, a field smaller than ``max(|X|, n + 1)``, or an
            unknown method.
    """
    if method not in METHODS:
        raise ParameterError(f"method: got {method!r}; use one of {', '.join(METHODS)}")
    n, field = empty.sampler.n, field_of(empty)
    processes = worker_count(workers, n + 1, _PARALLEL_FROM)
    if len(constraints) > n:
        raise ParameterError(f"constraints: got {len(constraints)} bins; at most n = {n}")
    level, phi = universe_layout(n, universe_size, field)
    occupied = sorted(constraints)
    for x in occupied:
        if isinstance(x, bool) or not isinstance(x, int) or not 1 <= x <= universe_size:
            raise ParameterError(
                f"constraints: bin {x!r} is outside the universe [1, {short_int(universe_size)}]"
            )
    intervals = [empty.preimage(constraints[x]) for x in occupied]
    values = [_as_int(draw(rng, high - low + 1)) + low - 2 for low, high in intervals]
    fills = [_as_int(draw(rng, field.order)) - 1 for _ in range(n + 1 - len(occupied))]
    if method == "points":
        points = occupied + _fillers(occupied, n + 1 - len(occupied))
        nodes = [phi(x) for x in points]
        return interpolate_over_subfield(field, level, nodes, values + fills, workers=processes)
    sizes = [
        dyadic_block(y, low - 1, high - 1) for y, (low, high) in zip(values, intervals, strict=True)
    ]
    tops = [field.degree - w for w in sizes]
    order = sorted(range(len(occupied)), key=lambda i: (-tops[i], occupied[i]))
    sequence = [values[i] for i in order] + fills
    nodes = [phi(occupied[i]) for i in order]
    return _sample_blocks(field, level, nodes, [tops[i] for i in order], sequence, processes)


def _fillers(occupied: list[int], count: int) -> list[int]:
    """The ``count`` smallest positive integers not in ``occupied``."""
    taken, candidate = set(occupied), 1
    result: list[int] = []
    while len(result) < count:
        if candidate not in taken:
            result.append(candidate)
        candidate += 1
    return result


def dyadic_block(y: int, low: int, high: int) -> int:
    """The largest ``w`` with the aligned block of ``2^w`` integers around ``y`` in ``[low, high]``.

    The blocks of this kind partition ``[low, high]`` (aligned dyadic blocks nest),
    and a uniform ``y`` falls in a block with probability proportional to its size.

    Raises:
        ParameterError: ``y`` outside ``[low, high]``.
    """
    if not low <= y <= high:
        raise ParameterError(
            f"y: got {short_int(y)}; it must lie in [{short_int(low)}, {short_int(high)}]"
        )
    lo, hi = 0, high.bit_length() + 1  # w = 0 always fits; 2^hi integers never do
    while hi - lo > 1:
        w = (lo + hi) // 2
        if (y >> w) << w >= low and y | ((1 << w) - 1) <= high:
            lo = w
        else:
            hi = w
    return lo


def _sample_blocks(
    field: GF2Field,
    level: int,
    nodes: list[int],
    tops: list[int],
    sequence: list[int],
    workers: int,
) -> tuple[int, ...]:
    """The ``"blocks"`` polynomial from the ordered nodes, their ``k_x`` and ``R`` (see above)."""
    s = field.stride(level)
    # a_r = #{x : k_x >= s - r}: the bins whose blocks reach coordinate r.
    counts = [sum(1 for k in tops if k >= s - r) for r in range(s)]
    active = [r for r in range(s) if counts[r]]
    if not active:
        return tuple(sequence)
    tree = SubproductTree(PackedPolyRing(level), nodes)
    columns = zip(*(field.split(v, level, active) for v in sequence), strict=True)
    tasks = [
        (tree.prefix(counts[r]), list(column)) for r, column in zip(active, columns, strict=True)
    ]
    polys = _coordinates(tree, tasks, workers)
    return tuple(
        field.replace(v, level, {r: poly[t] for r, poly in zip(active, polys, strict=True)})
        for t, v in enumerate(sequence)
    )


def interpolate_over_subfield(
    field: GF2Field,
    level: int,
    nodes: Sequence[int],
    values: Sequence[int],
    *,
    workers: int | None = None,
) -> tuple[int, ...]:
    """The coefficients of ``p`` over ``field``, degree ``< len(nodes)``, with ``p(b_i) = y_i``.

    Paper: BV Lemma 8.1 iv, step 3.  The nodes are elements of the subfield
    ``K = GF2Field(level)`` (compact form); each of the ``s`` coordinates of the
    values over ``K`` (:meth:`GF2Field.split`) is interpolated over ``K`` with one
    shared subproduct tree (:mod:`finitedp.compact.subproduct`).

    Raises:
        ParameterError: points not distinct, lengths differ, or elements outside the fields.
    """
    if len(values) != len(nodes):
        raise ParameterError(f"values: got {len(values)} values for {len(nodes)} points")
    sub = GF2Field(level)
    for i, (b, y) in enumerate(zip(nodes, values, strict=True)):
        sub.check(b, f"nodes[{i}]")
        field.check(y, f"values[{i}]")
    tree = SubproductTree(PackedPolyRing(level), nodes)
    columns = zip(*(field.split(v, level) for v in values), strict=True)
    tasks = [(tree.root, list(column)) for column in columns]
    polys = _coordinates(tree, tasks, worker_count(workers, len(nodes), _PARALLEL_FROM))
    return tuple(field.join(parts, level) for parts in zip(*polys, strict=True))


# From this many points, two forked processes share the coordinates (2+ CPUs).
_PARALLEL_FROM = 512


def _coordinates(
    tree: SubproductTree, tasks: list[tuple[Node, list[int]]], workers: int
) -> list[list[int]]:
    """For each ``(P, column)``: the coefficients of ``I + Z_P rho`` (see the module notes).

    ``I`` interpolates ``column[:|P|]`` at ``P``'s points and ``rho`` has the
    coefficients ``column[|P|:]``; with ``P`` all the points, ``I`` alone.  The
    weights of every ``P`` are computed first (in parallel), then the columns.
    """
    spine = sorted({id(node): node for node, _ in tasks}.values(), key=lambda node: -node.size)
    SHARED["tree"] = tree
    try:
        for node, found in zip(
            spine, fork_map(_weights_task, [n.size for n in spine], workers), strict=True
        ):
            node.known_weights = found
        order = sorted(range(len(tasks)), key=lambda i: -tasks[i][0].size)
        SHARED["tasks"] = tasks
        results = fork_map(_coordinate_task, order, workers)
    finally:
        SHARED.pop("tree", None)
        SHARED.pop("tasks", None)
    polys: list[list[int]] = [[] for _ in tasks]
    for i, poly in zip(order, results, strict=True):
        polys[i] = poly
    return polys


def _weights_task(size: int) -> list[int]:
    tree: SubproductTree = SHARED["tree"]
    return weights(tree.prefix(size))


def _coordinate_task(index: int) -> list[int]:
    tasks: list[tuple[Node, list[int]]] = SHARED["tasks"]
    node, column = tasks[index]
    ring, p, total = node.ring, node.size, len(column)
    poly = interpolate(node, column[:p])
    if total > p:
        poly ^= ring.mul(node.z, p + 1, ring.pack(column[p:]), total - p)
    return ring.unpack(poly, total)


def _as_int(u: Any) -> int:
    # A symbolic draw of the exact checker becomes one concrete value per path here.
    return operator.index(u)


def field_of(empty: EmptyBinSampler) -> GF2Field:
    """The field ``GF(2^L)`` of an empty-bin sampler with ``d0 = 2^L``, ``L = 2 * 3^l``.

    Raises:
        ParameterError: ``d0`` is not of that form.
    """
    d0 = empty.d0
    width = d0.bit_length() - 1
    level = 0
    while 2 * 3**level < width:
        level += 1
    if d0 != 1 << width or 2 * 3**level != width or level > MAX_LEVEL:
        raise ParameterError(
            f"d0: got {short_int(d0)}; CompactHistogram needs d0 = 2^(2*3^l) for an l in "
            f"[0, {MAX_LEVEL}] (BV Alg 8.2)"
        )
    return GF2Field(level)
