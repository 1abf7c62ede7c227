"""CompactRelease: a released compact histogram, read without the data.

Paper: BV Lemma 8.1 iii (the representation of a release), Thm 8.3 v
(evaluating a count).  The release is a polynomial ``p`` of degree at most
``n`` over ``GF(2^L)``; ``h_x = M0(T(p(phi(x))))`` (see :mod:`.histogram`).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import gmpy2

from ..counting.base import CountingSampler
from ..counting.fastsample import FastSample
from ..counting.geosample import GeoSample
from ..errors import ParameterError
from ..histograms.dataset import check_universe
from ..jsonvalues import JsonFloat, decimal, json_int, load_json, parse_count, rational
from ..params import short_int
from .emptybin import EmptyBinSampler
from .family import universe_layout
from .gf2 import MAX_LEVEL, GF2Field
from .parallel import SHARED, fork_map, worker_count
from .polynomial import horner, horner_sparse

__all__ = ["COMPACT_SCHEMA_VERSION", "CompactRelease"]

#: Version of the JSON layout written by :meth:`CompactRelease.to_json`.
COMPACT_SCHEMA_VERSION = 1


def _describe(sampler: CountingSampler) -> dict[str, Any] | None:
    """The JSON description of a library sampler, or None for another kind."""
    if isinstance(sampler, FastSample):
        kind, extra = "fast", {"gamma": rational(sampler.gamma)}
    elif isinstance(sampler, GeoSample):
        kind, extra = "geo", {}
    else:
        return None
    ratio = sampler.noise
    return {
        "kind": kind,
        "n": json_int(sampler.n),
        "epsilon": rational(sampler.epsilon),
        **extra,
        "noise": sampler.mode,
        "ratio": [decimal(ratio.a), decimal(ratio.b)],
        "d": decimal(sampler.d),
    }


def _count(value: object, name: str) -> int:
    try:
        return parse_count(value, name)
    except ValueError as error:
        raise ParameterError(str(error)) from None


def _exact(value: object) -> object:
    # Parameters are written as "p/q" strings; a JSON float is refused by type.
    return float(value) if isinstance(value, JsonFloat) else value


def _rebuild(spec: Any) -> CountingSampler:
    if not isinstance(spec, dict):
        raise ParameterError("counter: expected an object describing the counting sampler")
    try:
        kind, noise = spec["kind"], spec["noise"]
        sampler: CountingSampler
        n = _count(spec["n"], "counter.n")
        if kind == "fast":
            sampler = FastSample(n, _exact(spec["epsilon"]), _exact(spec["gamma"]), noise=noise)
        elif kind == "geo":
            sampler = GeoSample(n, _exact(spec["epsilon"]), noise=noise)
        else:
            raise ParameterError(f'counter.kind: got {kind!r}; expected "fast" or "geo"')
        ratio = [decimal(sampler.noise.a), decimal(sampler.noise.b)]
        if spec["ratio"] != ratio or spec["d"] != decimal(sampler.d):
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
            "universe_size": json_int(self._universe),
            "n": json_int(self.n),
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
        data = load_json(text, "release") if isinstance(text, str) else text
        if not isinstance(data, Mapping) or data.get("type") != "compact_histogram":
            got = data.get("type") if isinstance(data, Mapping) else None
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
        n = _count(data.get("n"), "n")
        if n != sampler.n:
            raise ParameterError(f"n: got {n}; the counter was built for n = {sampler.n}")
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
        universe = _count(data.get("universe_size"), "universe_size")
        release = cls(level, universe, coefficients, empty)
        expected = {"subfield_level": release.subfield_level, "order": "weight-colex"}
        if data.get("universe_map") != expected:
            got = data.get("universe_map")
            raise ParameterError(f"universe_map: got {got!r}; expected {expected}")
        return release


def _count_part(bins: list[int]) -> list[int]:
    release: CompactRelease = SHARED["release"]
    return [release.count(x) for x in bins]
