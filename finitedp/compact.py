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
Points in ``K`` make interpolation cheap (:mod:`finitedp.family`: each
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

import functools
import json
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

import gmpy2

from .counting import CountingSampler
from .dataset import check_dataset, check_universe, true_counts
from .emptybin import EmptyBinSampler
from .errors import ParameterError
from .exactmath import ceil_ln, ceil_log
from .family import (
    UniverseMap,
    field_level_for,
    field_of,
    sample_consistent,
    universe_layout,
)
from .fastsample import FastSample
from .geosample import GeoSample
from .gf2 import MAX_LEVEL, GF2Field
from .guarantees import Accuracy, Privacy
from .oracle import RandomSource, default_source, draw
from .parallel import SHARED, fork_map, worker_count
from .params import check_positive_int, exact_fraction, inverse_natural, short_int
from .polynomial import horner, horner_sparse

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
            (:func:`finitedp.family.sample_consistent`; same distribution, same calls).

    Returns:
        The release: the polynomial and what is needed to evaluate it.

    Raises:
        ParameterError: bad data, a field too small, or ``empty`` built for another sampler.
    """
    if empty.sampler is not sampler:
        raise ParameterError("empty: the empty-bin sampler must be built for the same sampler M")
    m = check_universe(universe_size)
    rows = check_dataset(data, sampler.n, m)
    field = field_of(empty)
    if field.order < m:
        raise ParameterError(f"d0: got 2^{field.degree}; it must be at least |X| = {short_int(m)}")
    source = rng or default_source()
    counts = true_counts(rows)
    sample = sampler.sample
    noisy = {x: sample(c, source) for x, c in counts.items()}
    if pad:
        for _ in range(sampler.n - len(counts)):
            draw(source, sampler.d)
    coefficients = sample_consistent(empty, m, noisy, source, method=method, workers=workers)
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
        self._sublevel, self._phi = universe_layout(n, self._universe, self._field)
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
        count = worker_count(workers, len(bins), 64) if self._field.degree >= 1458 else 1
        if count == 1:
            return [self.count(x) for x in bins]
        SHARED["release"] = self  # inherited by the forked workers, not pickled
        try:
            parts = fork_map(_count_part, [bins[i::count] for i in range(count)], count)
        finally:
            SHARED.pop("release", None)
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


def _count_part(bins: list[int]) -> list[int]:
    release: CompactRelease = SHARED["release"]
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
