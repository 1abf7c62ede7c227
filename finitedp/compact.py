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
Points in ``K`` make interpolation cheap (:mod:`finitedp.polynomial`); points
with few bits set make evaluation cheap (one shift per bit).

>>> mech = CompactHistogram(n=3, universe_size=1000, epsilon=1, beta0="1/10")
>>> release = mech.release([7, 7, 500])
>>> all(0 <= release[x] <= 3 for x in (1, 7, 500, 1000))
True
>>> CompactRelease.from_json(release.to_json()) == release
True
"""

from __future__ import annotations

import functools
import json
import multiprocessing
import operator
from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from fractions import Fraction
from typing import Any

import gmpy2

from .counting import CountingSampler
from .dataset import check_dataset, check_universe, true_counts
from .errors import ParameterError
from .exactmath import ceil_ln, ceil_log
from .fastsample import FastSample
from .geosample import GeoSample
from .gf2 import MAX_LEVEL, GF2Field
from .guarantees import Accuracy, Privacy
from .oracle import RandomSource, default_source, draw
from .params import check_positive_int, exact_fraction, inverse_natural, short_int
from .polynomial import (
    _worker_count,
    horner,
    horner_sparse,
    interpolate,
    interpolate_subfield,
)

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

#: Version of the JSON layout written by :meth:`CompactRelease.to_json`.
COMPACT_SCHEMA_VERSION = 1

# Below this many points, or in small fields, the generic interpolation is as fast.
_SUBFIELD_FROM = 16


# -- the empty-bin sampler (Lemma 8.4, Alg 8.5) -----------------------------------


class EmptyBinSampler:
    """BV's ``M0: [d0]_+ -> [n]``: ``M(0, f(u0))`` with ``f`` spreading ``[d0]_+`` onto ``[d]_+``.

    Paper: BV Alg 8.5, Lemma 8.4.  With ``d0 = q d + r`` (``0 <= r < d``),
    ``f(u0) = ceil(u0/(q+1))`` for ``u0 <= r (q+1)`` and ``ceil((u0 - r)/q)`` above,
    so each ``u`` in ``[d]_+`` has ``q + 1`` (``u <= r``) or ``q`` preimages.

    Args:
        sampler: the counting sampler ``M`` (non-decreasing in ``u`` at ``c = 0``).
        d0: the size of ``M0``'s domain; at least ``(4/3) d``.

    Raises:
        ParameterError: ``d0 < (4/3) d``.
    """

    __slots__ = ("_bounds", "_d", "_d0", "_q", "_r", "_sampler")

    def __init__(self, sampler: CountingSampler, d0: int) -> None:
        d0 = check_positive_int(d0, "d0")
        d = sampler.d
        if 3 * d0 < 4 * d:
            raise ParameterError(
                f"d0: got {short_int(d0)}; Lemma 8.4 needs d0 >= (4/3) d with d = {short_int(d)}"
            )
        self._sampler, self._d, self._d0 = sampler, d, d0
        self._q, self._r = divmod(d0, d)
        # bounds[v] = max{u0 : M0(u0) <= v} = G(F_M(v)) (Lemma 8.4 v); bounds[n] = d0.
        self._bounds = [self.max_preimage(sampler.cdf(0, v)) for v in range(sampler.n + 1)]

    @property
    def sampler(self) -> CountingSampler:
        """The counting sampler ``M``."""
        return self._sampler

    @property
    def d0(self) -> int:
        """The domain size ``d0``."""
        return self._d0

    @property
    def q(self) -> int:
        """``q = floor(d0 / d)``."""
        return self._q

    @property
    def r(self) -> int:
        """``r = d0 mod d``."""
        return self._r

    def f(self, u0: int) -> int:
        """Alg 8.5 step 2: the non-decreasing map ``[d0]_+ -> [d]_+``."""
        q, r = self._q, self._r
        if r and u0 <= r * (q + 1):
            return (u0 + q) // (q + 1)
        return (u0 - r + q - 1) // q

    def max_preimage(self, u: int) -> int:
        """``max{u0 : f(u0) <= u}`` for ``u`` in ``[0, d]`` (Lemma 8.4 v)."""
        q, r = self._q, self._r
        if r and u <= r:
            return (q + 1) * u
        return q * u + r

    def __call__(self, u0: int) -> int:
        """Alg 8.5 literally: ``M(0, f(u0))`` for an int ``u0`` in ``[1, d0]``."""
        if isinstance(u0, bool) or not isinstance(u0, int) or not 1 <= u0 <= self._d0:
            raise ParameterError(f"u0: got {u0!r}; it must be an int in [1, d0]")
        return self._sampler(0, self.f(u0))

    def search(self, u0: Any) -> int:
        """``M0(u0)`` by bisection over ``max{u0' : M0(u0') <= v}``: comparisons of ``u0`` only.

        Equal to :meth:`__call__` (``f`` and ``M(0, .)`` are non-decreasing); the
        checker can run it on symbolic draws.
        """
        return bisect_left(self._bounds, u0)

    def preimage(self, v: int) -> tuple[int, int]:
        """``supp(S_v) = [low, high]``, the draws ``u0`` with ``M0(u0) = v`` (Lemma 8.4 v).

        Raises:
            ParameterError: ``v`` outside ``[0, n]`` or with an empty preimage.
        """
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= self._sampler.n:
            raise ParameterError(f"v: got {v!r}; it must be an int in [0, {self._sampler.n}]")
        low = self._bounds[v - 1] + 1 if v else 1
        high = self._bounds[v]
        if low > high:
            raise ParameterError(
                f"v: M0 never outputs {v} (M(0, U) = {v} has probability 0), so no histogram "
                f"of the family has this count"
            )
        return low, high

    def sample_preimage(self, v: int, rng: RandomSource) -> Any:
        """A draw of ``S_v``, uniform on :meth:`preimage` ``(v)``: one call ``uniform(size)``."""
        low, high = self.preimage(v)
        return draw(rng, high - low + 1) + (low - 1)

    def pmf(self) -> dict[int, Fraction]:
        """The exact distribution of ``M0(U0)``, ``U0`` uniform on ``[d0]_+`` (no zero entries)."""
        result, previous = {}, 0
        for v, bound in enumerate(self._bounds):
            if bound > previous:
                result[v] = Fraction(bound - previous, self._d0)
            previous = bound
        return result

    @property
    def bounds(self) -> tuple[int, ...]:
        """``(max{u0 : M0(u0) <= v} for v in [0, n])``."""
        return tuple(self._bounds)


# -- the universe map ---------------------------------------------------------------


def field_level_for(size: int) -> int:
    """The least ``j`` with ``2^(2*3^j) >= size``."""
    j = 0
    while (1 << (2 * 3**j)) < size:
        j += 1
    return j


class UniverseMap:
    """The injective public map ``phi`` from ``[1, 2^(2*3^j)]`` into ``K = GF2Field(j)``.

    ``phi(x)`` is the element of rank ``x - 1`` when ``K``'s elements are ordered by
    the number of bits set, then colexicographically (the combinatorial number
    system): points of a large universe have few bits set.

    Args:
        level: ``j``.
    """

    __slots__ = ("_binomial", "_starts", "_width")

    def __init__(self, level: int) -> None:
        self._width = 2 * 3**level
        w = self._width
        # binomial[t][c] = C(c, t) for c in [0, w].
        self._binomial = [[0] * (w + 1) for _ in range(w + 1)]
        for c in range(w + 1):
            self._binomial[0][c] = 1
            for t in range(1, c + 1):
                self._binomial[t][c] = self._binomial[t][c - 1] + self._binomial[t - 1][c - 1]
        self._starts = [0]  # the rank of the first element of each weight
        for t in range(w + 1):
            self._starts.append(self._starts[-1] + self._binomial[t][w])

    @property
    def size(self) -> int:
        """``2^(2*3^j)``: the largest point mapped."""
        return self._starts[-1]

    def __call__(self, x: int) -> int:
        """``phi(x)`` for ``x`` in ``[1, 2^(2*3^j)]``."""
        rank = x - 1
        weight = bisect_left(self._starts, rank + 1) - 1
        rank -= self._starts[weight]
        element, c = 0, self._width
        for t in range(weight, 0, -1):
            # The largest c with C(c, t) <= rank is the t-th smallest chosen position.
            row = self._binomial[t]
            c = bisect_left(row, rank + 1, t - 1, c) - 1
            element |= 1 << c
            rank -= row[c]
        return element

    def max_weight(self, points: int) -> int:
        """The most bits set in ``phi(x)`` for ``x <= points``."""
        return bisect_left(self._starts, points) - 1


# -- Lemma 8.1 iv and Alg 8.2 --------------------------------------------------------


def _layout(n: int, universe_size: int, field: GF2Field) -> tuple[int, UniverseMap]:
    level = field_level_for(max(universe_size, n + 1))
    if level > field.level:
        raise ParameterError(
            f"d0: got 2^{field.degree}; the field must have at least max(|X|, n + 1) = "
            f"{short_int(max(universe_size, n + 1))} elements"
        )
    return level, UniverseMap(level)


def _interpolate(
    field: GF2Field, level: int, nodes: list[int], values: list[int], workers: int | None
) -> tuple[int, ...]:
    if level < field.level and len(nodes) >= _SUBFIELD_FROM:
        return interpolate_subfield(field, level, nodes, values, workers=workers)
    return interpolate(field, [field.embed(b, level) for b in nodes], values)


def sample_consistent(
    empty: EmptyBinSampler,
    universe_size: int,
    constraints: Mapping[int, int],
    rng: RandomSource,
    *,
    workers: int | None = None,
) -> tuple[int, ...]:
    """A polynomial uniform among those whose histogram has ``g_x = c_x`` for ``x`` in ``A``.

    Paper: BV Lemma 8.1 iv (the three steps of its proof).  Oracle calls, in order:
    for each ``x`` of ``A`` in increasing order one ``uniform(|supp S_{c_x}|)``
    (the draw of ``S_{c_x}``), then for each filler point one ``uniform(d0)``.
    The fillers are the ``n + 1 - |A|`` smallest points of ``[1, ...]`` not in ``A``
    (points beyond ``|X|`` are fine: only distinctness matters).

    Args:
        empty: the empty-bin sampler ``M0`` (its ``d0`` fixes the field, its ``M`` fixes ``n``).
        universe_size: ``|X|``.
        constraints: ``{x: c_x}`` with ``|A| <= n``.
        rng: the randomness source.
        workers: processes for the interpolation (see
            :func:`finitedp.polynomial.interpolate_subfield`; ``None`` chooses).

    Returns:
        The coefficients ``(a_0, ..., a_n)``.

    Raises:
        ParameterError: more than ``n`` constraints, a bin outside ``[1, |X|]``, a count
            ``M0`` never outputs, or a field smaller than ``max(|X|, n + 1)``.
    """
    n, field = empty.sampler.n, _field_of(empty)
    if len(constraints) > n:
        raise ParameterError(f"constraints: got {len(constraints)} bins; at most n = {n}")
    level, phi = _layout(n, universe_size, field)
    occupied = sorted(constraints)
    for x in occupied:
        if isinstance(x, bool) or not isinstance(x, int) or not 1 <= x <= universe_size:
            raise ParameterError(
                f"constraints: bin {x!r} is outside the universe [1, {short_int(universe_size)}]"
            )
    values = [_as_int(empty.sample_preimage(constraints[x], rng)) - 1 for x in occupied]
    points = list(occupied)
    taken, candidate = set(occupied), 1
    while len(points) < n + 1:
        if candidate not in taken:
            points.append(candidate)
            values.append(_as_int(draw(rng, field.order)) - 1)
        candidate += 1
    return _interpolate(field, level, [phi(x) for x in points], values, workers)


def _as_int(u: Any) -> int:
    # A symbolic draw of the exact checker becomes one concrete value per path here.
    return operator.index(u)


def _field_of(empty: EmptyBinSampler) -> GF2Field:
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


def compact_histogram(
    sampler: CountingSampler,
    empty: EmptyBinSampler,
    data: Iterable[object],
    universe_size: int,
    rng: RandomSource | None = None,
    *,
    workers: int | None = None,
    pad: bool = False,
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
            from 512 points on a machine with two or more CPUs, ``1`` never forks.
        pad: make the number of oracle calls ``2n + 1`` for every dataset.

    Returns:
        The release: the polynomial and what is needed to evaluate it.

    Raises:
        ParameterError: bad data, a field too small, or ``empty`` built for another sampler.
    """
    if empty.sampler is not sampler:
        raise ParameterError("empty: the empty-bin sampler must be built for the same sampler M")
    m = check_universe(universe_size)
    rows = check_dataset(data, sampler.n, m)
    field = _field_of(empty)
    if field.order < m:
        raise ParameterError(f"d0: got 2^{field.degree}; it must be at least |X| = {short_int(m)}")
    source = rng or default_source()
    counts = true_counts(rows)
    sample = sampler.sample
    noisy = {x: sample(c, source) for x, c in counts.items()}
    if pad:
        for _ in range(sampler.n - len(counts)):
            draw(source, sampler.d)
    coefficients = sample_consistent(empty, m, noisy, source, workers=workers)
    return CompactRelease(field.level, m, coefficients, empty)


# -- the release --------------------------------------------------------------------


def _describe(sampler: CountingSampler) -> dict[str, Any] | None:
    """The JSON description of a library sampler, or None for another kind."""
    if isinstance(sampler, FastSample):
        kind, extra = "fast", {"gamma": str(sampler.gamma)}
    elif isinstance(sampler, GeoSample):
        kind, extra = "geo", {}
    else:
        return None
    ratio = sampler.noise
    return {
        "kind": kind,
        "n": sampler.n,
        "epsilon": str(sampler.epsilon),
        **extra,
        "noise": sampler.mode,
        "ratio": [str(ratio.a), str(ratio.b)],
        "d": str(sampler.d),
    }


def _rebuild(spec: Any) -> CountingSampler:
    if not isinstance(spec, dict):
        raise ParameterError("counter: expected an object describing the counting sampler")
    try:
        kind, noise = spec["kind"], spec["noise"]
        sampler: CountingSampler
        if kind == "fast":
            sampler = FastSample(spec["n"], spec["epsilon"], spec["gamma"], noise=noise)
        elif kind == "geo":
            sampler = GeoSample(spec["n"], spec["epsilon"], noise=noise)
        else:
            raise ParameterError(f'counter.kind: got {kind!r}; expected "fast" or "geo"')
        ratio = [str(sampler.noise.a), str(sampler.noise.b)]
        if spec["ratio"] != ratio or spec["d"] != str(sampler.d):
            raise ParameterError(
                "counter: the stored ratio or d does not match the sampler these parameters "
                "build; the release was made with other settings"
            )
    except KeyError as missing:
        raise ParameterError(f"counter: missing field {missing}") from None
    return sampler


@functools.total_ordering
class CompactRelease:
    """A released compact histogram: ``h_x = M0(T(p(phi(x))))`` for every ``x`` in ``[1, m]``.

    Paper: BV Lemma 8.1 iii (the representation), Thm 8.3 v (evaluation).
    Immutable, hashable and ordered by ``(l, universe_size, coefficients)``; two
    releases are equal when they have the same polynomial, universe and
    empty-bin sampler.  Evaluation never needs the data.

    Args:
        level: ``l`` (the field is ``GF(2^(2*3^l))``).
        universe_size: ``|X|``.
        coefficients: ``(a_0, ..., a_n)``.
        empty: the empty-bin sampler ``M0``.
    """

    __slots__ = (
        "_coefficients",
        "_empty",
        "_field",
        "_key",
        "_phi",
        "_sublevel",
        "_universe",
        "_wide",
    )

    def __init__(
        self, level: int, universe_size: int, coefficients: Sequence[int], empty: EmptyBinSampler
    ) -> None:
        self._field = GF2Field(level)
        if empty.d0 != self._field.order:
            raise ParameterError("empty: its d0 must be the field's order 2^(2*3^l)")
        self._universe = check_universe(universe_size)
        n = empty.sampler.n
        if len(coefficients) != n + 1:
            raise ParameterError(
                f"coefficients: got {len(coefficients)}; a polynomial of degree <= n = {n} "
                f"has {n + 1}"
            )
        self._coefficients = tuple(
            self._field.check(a, f"coefficients[{i}]") for i, a in enumerate(coefficients)
        )
        self._wide = tuple(gmpy2.mpz(a) for a in self._coefficients)  # faster Horner steps
        self._empty = empty
        self._sublevel, self._phi = _layout(n, self._universe, self._field)
        spec = _describe(empty.sampler)
        sampler_key = json.dumps(spec, sort_keys=True) if spec else repr(empty.sampler)
        self._key = (level, self._universe, self._coefficients, sampler_key)

    @property
    def level(self) -> int:
        """``l``."""
        return self._field.level

    @property
    def field(self) -> GF2Field:
        """The field ``GF(2^(2*3^l))``."""
        return self._field

    @property
    def subfield_level(self) -> int:
        """``j``: the universe is mapped into ``GF2Field(j)``, a subfield of the field."""
        return self._sublevel

    @property
    def n(self) -> int:
        """The degree bound ``n`` (the number of rows)."""
        return len(self._coefficients) - 1

    @property
    def universe_size(self) -> int:
        """``|X| = m``."""
        return self._universe

    @property
    def coefficients(self) -> tuple[int, ...]:
        """``(a_0, ..., a_n)``, field elements."""
        return self._coefficients

    @property
    def empty_bin(self) -> EmptyBinSampler:
        """The empty-bin sampler ``M0``."""
        return self._empty

    def point(self, x: int) -> int:
        """``phi(x)`` as an element of the field."""
        return self._field.embed(self._phi(self._check_bin(x)), self._sublevel)

    def _check_bin(self, x: object) -> int:
        if isinstance(x, bool) or not isinstance(x, int) or not 1 <= x <= self._universe:
            raise ParameterError(f"x: got {x!r}; bins are ints in [1, {short_int(self._universe)}]")
        return x

    def _evaluate(self, point: int) -> int:
        if self._field.degree >= 54:
            return horner_sparse(self._field, self._wide, point)
        return horner(self._field, self._coefficients, point)

    def count(self, x: int) -> int:
        """``h_x``: the noisy count of bin ``x``, in ``[0, n]``.

        Raises:
            ParameterError: ``x`` outside ``[1, |X|]``.
        """
        value = self._evaluate(self.point(x))
        return self._empty.search(value + 1)

    def counts(self, xs: Iterable[int], *, workers: int | None = None) -> list[int]:
        """``[h_x for x in xs]``, sharing the field, the map and the sampler's table.

        Args:
            xs: bins in ``[1, |X|]``.
            workers: processes to use; ``None`` picks 2 (forked) for 64 bins or more
                on a machine with 2 or more CPUs and a field of at least ``2^1458``.

        Raises:
            ParameterError: a bin outside ``[1, |X|]`` (checked before any work).
        """
        bins = [self._check_bin(x) for x in xs]
        count = _worker_count(workers, len(bins), 64) if self._field.degree >= 1458 else 1
        if count == 1:
            return [self.count(x) for x in bins]
        global _SHARED_RELEASE
        _SHARED_RELEASE = self  # inherited by the forked workers, not pickled
        try:
            context = multiprocessing.get_context("fork")
            with ProcessPoolExecutor(max_workers=count, mp_context=context) as pool:
                parts = list(pool.map(_count_part, [bins[i::count] for i in range(count)]))
        finally:
            _SHARED_RELEASE = None
        result = [0] * len(bins)
        for i, part in enumerate(parts):
            result[i::count] = part
        return result

    def __getitem__(self, x: int) -> int:
        return self.count(x)

    def _compare_key(self) -> tuple[Any, ...]:
        return self._key

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CompactRelease):
            return NotImplemented
        return self._key == other._key

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, CompactRelease):
            return NotImplemented
        return self._key < other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __repr__(self) -> str:
        return (
            f"CompactRelease(level={self.level}, universe_size={self._universe}, "
            f"n={self.n}, sampler={self._empty.sampler!r})"
        )

    def to_json_dict(self) -> dict[str, Any]:
        """The JSON object (schema version 1): everything needed to evaluate every count.

        Raises:
            ParameterError: the counting sampler is not a FastSample or GeoSample.
        """
        spec = _describe(self._empty.sampler)
        if spec is None:
            raise ParameterError(
                f"sampler: {self._empty.sampler!r} has no JSON description; only FastSample "
                f"and GeoSample releases can be serialised"
            )
        digits = -(-self._field.degree // 4)
        return {
            "type": "compact_histogram",
            "version": COMPACT_SCHEMA_VERSION,
            "l": self.level,
            "universe_size": self._universe,
            "n": self.n,
            "universe_map": {"subfield_level": self._sublevel, "order": "weight-colex"},
            "counter": spec,
            "coefficients": [format(a, f"0{digits}x") for a in self._coefficients],
        }

    def to_json(self) -> str:
        """Serialise to a JSON string; coefficients as fixed-width lowercase hex."""
        return json.dumps(self.to_json_dict(), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | Mapping[str, Any]) -> CompactRelease:
        """Parse what :meth:`to_json` wrote, checking every field.

        Raises:
            ParameterError: wrong type or version, bad lengths, coefficients outside
                the field, or parameters that do not fit together.
        """
        try:
            data = json.loads(text) if isinstance(text, str) else dict(text)
        except json.JSONDecodeError as error:
            raise ParameterError(f"not JSON: {error}") from None
        if not isinstance(data, dict) or data.get("type") != "compact_histogram":
            got = data.get("type") if isinstance(data, dict) else None
            raise ParameterError(f"type: got {got!r}; expected 'compact_histogram'")
        if data.get("version") != COMPACT_SCHEMA_VERSION:
            raise ParameterError(
                f"version: got {data.get('version')!r}; this finitedp reads version "
                f"{COMPACT_SCHEMA_VERSION}"
            )
        level = data.get("l")
        if isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= MAX_LEVEL:
            raise ParameterError(f"l: got {level!r}; it must be an int in [0, {MAX_LEVEL}]")
        field = GF2Field(level)
        sampler = _rebuild(data.get("counter"))
        n = data.get("n")
        if n != sampler.n:
            raise ParameterError(f"n: got {n!r}; the counter was built for n = {sampler.n}")
        raw = data.get("coefficients")
        if not isinstance(raw, list) or len(raw) != sampler.n + 1:
            size = len(raw) if isinstance(raw, list) else raw
            raise ParameterError(
                f"coefficients: got {size!r}; expected a list of n + 1 hex strings"
            )
        digits = -(-field.degree // 4)
        coefficients = []
        for i, item in enumerate(raw):
            if not isinstance(item, str) or len(item) != digits:
                raise ParameterError(
                    f"coefficients[{i}]: expected a hex string of exactly {digits} digits"
                )
            try:
                value = int(item, 16)
            except ValueError:
                raise ParameterError(f"coefficients[{i}]: {item[:20]!r}... is not hex") from None
            if value >> field.degree:
                raise ParameterError(
                    f"coefficients[{i}]: the value has more than L = {field.degree} bits, "
                    f"so it is not an element of the field"
                )
            coefficients.append(value)
        empty = EmptyBinSampler(sampler, field.order)
        universe = data.get("universe_size")
        if isinstance(universe, bool) or not isinstance(universe, int):
            raise ParameterError(f"universe_size: got {universe!r}; it must be a positive int")
        release = cls(level, universe, coefficients, empty)
        expected = {"subfield_level": release.subfield_level, "order": "weight-colex"}
        if data.get("universe_map") != expected:
            got = data.get("universe_map")
            raise ParameterError(f"universe_map: got {got!r}; expected {expected}")
        return release


_SHARED_RELEASE: CompactRelease | None = None


def _count_part(bins: list[int]) -> list[int]:
    release = _SHARED_RELEASE
    if release is None:  # pragma: no cover - only reached in a forked worker
        raise RuntimeError("no release to evaluate")
    return [release.count(x) for x in bins]


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

    Raises:
        ParameterError: a parameter out of range (or a field beyond ``l = 12``);
        FloatParameterError: a float.
    """

    __slots__ = ("_beta0", "_empty", "_epsilon", "_level", "_n", "_sampler", "_universe")

    def __init__(
        self,
        n: object,
        universe_size: object,
        epsilon: object,
        beta0: object = None,
        *,
        counter: str = "fast",
    ) -> None:
        self._n = check_positive_int(n, "n")
        self._universe = check_universe(universe_size)
        eps = inverse_natural(epsilon, "epsilon")
        self._epsilon = eps
        # eps' = 1/ceil(10/(9 eps)) = 1/ceil(10 m / 9).
        eps_prime = Fraction(1, -(-10 * eps.denominator // 9))
        self._sampler: CountingSampler
        if counter == "fast":
            if beta0 is None:
                raise ParameterError("beta0: FastSample needs beta0 = 1/k to set gamma")
            self._beta0: Fraction | None = inverse_natural(beta0, "beta0")
            gamma = self._beta0 / (2 * self._universe)
            self._sampler = FastSample(self._n, eps_prime, gamma)
        elif counter == "geo":
            self._beta0 = None if beta0 is None else inverse_natural(beta0, "beta0")
            self._sampler = GeoSample(self._n, eps_prime)
        else:
            raise ParameterError(f'counter: got {counter!r}; use "fast" (FastSample) or "geo"')
        # l = ceil(log3(ceil(log2 max(|X|, 30 d/eps)) / 2)), with 30 d / eps = 30 d m.
        bits = ceil_log(max(self._universe, 30 * self._sampler.d * eps.denominator), 2)
        self._level = max(0, ceil_log(Fraction(bits, 2), 3))
        if self._level > MAX_LEVEL:
            raise ParameterError(
                f"n, universe_size, epsilon: the field GF(2^(2*3^{self._level})) of Thm 8.6 "
                f"is beyond l = {MAX_LEVEL}"
            )
        self._empty = EmptyBinSampler(self._sampler, 1 << (2 * 3**self._level))

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
            raise ParameterError(f"beta: got {b}; it must lie in (0, 1)")
        scale, m = 5 / self._epsilon, self._universe
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
        data: Iterable[object],
        rng: RandomSource | None = None,
        *,
        workers: int | None = None,
    ) -> CompactRelease:
        """Release a compact histogram of ``data`` (BV Alg 8.2).

        Args:
            data: exactly ``n`` ints in ``[1, universe_size]``.
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
            f"epsilon={self._epsilon}, beta0={self._beta0}, counter={kind!r})"
        )
