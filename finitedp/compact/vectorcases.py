"""Reference vectors of CompactHistogram and the paper-layer compact_histogram.

Paper: BV Alg 8.2, Thm 8.6 / Fig 6, Alg 8.5.  The output lists the polynomial
(fixed-width hex, as :meth:`CompactRelease.to_json`) and the counts at the probe
bins (the occupied ones, ``1``, ``2`` and ``|X|``); ``SPEC.md`` gives the field,
the universe map and the order of the calls.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ..counting.registry import sampler_from_spec, sampler_spec, user_derived, with_sampler
from ..entries import JSON, VectorCase, VectorKind, cache_key, rows_of, user_params
from ..jsonvalues import decimal, parse_rational, parse_uint
from ..oracle import RandomSource
from .emptybin import EmptyBinSampler
from .histogram import CompactHistogram, compact_histogram
from .release import CompactRelease

__all__ = ["COMPACT", "PAPER_LAYER", "RANDOM_POOL", "cases"]


# CompactHistogram (Alg 8.2, Thm 8.6 / Fig 6) and the paper-layer compact_histogram.


def _compact_json(release: CompactRelease, probes: Iterable[int]) -> JSON:
    """The polynomial (fixed-width hex, as ``CompactRelease.to_json``) and counts at probes."""
    document = release.to_json_dict()
    return {
        "type": "compact_histogram",
        "l": decimal(document["l"]),
        "universe_size": decimal(release.universe_size),
        "coefficients": document["coefficients"],
        "counts": [[decimal(x), decimal(release.count(x))] for x in probes],
    }


def _probes(data: tuple[int, ...], universe_size: int) -> list[int]:
    """Bins whose counts the vector lists: the occupied ones, ``1``, ``2`` and ``|X|``."""
    return sorted({*data, 1, min(2, universe_size), universe_size})


@functools.lru_cache(maxsize=64)
def _ch(key: str) -> CompactHistogram:
    p = json.loads(key)
    return CompactHistogram(
        parse_uint(p["n"], "n"),
        parse_uint(p["universe_size"], "universe_size"),
        parse_rational(p["epsilon"], "epsilon"),
        parse_rational(p["beta0"], "beta0") if "beta0" in p else None,
        counter=p["counter"],
    )


def _ch_derive(p: Mapping[str, Any]) -> JSON:
    mech = _ch(cache_key(p))
    return user_derived(mech.sampler, {}, {"l": decimal(mech.level), "d0": decimal(mech.d0)})


def _ch_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    mech = _ch(cache_key(p))
    rows = rows_of(data)
    release = mech.release(rows, rng, workers=1)
    return _compact_json(release, _probes(rows, mech.universe_size))


@functools.lru_cache(maxsize=64)
def _empty_bin(key: str) -> EmptyBinSampler:
    p = json.loads(key)
    return EmptyBinSampler(sampler_from_spec(p["sampler"]), 1 << (2 * 3 ** parse_uint(p["l"], "l")))


def _compact_derive(p: Mapping[str, Any]) -> JSON:
    return with_sampler({"d0": decimal(_empty_bin(cache_key(p)).d0)}, p)


def _compact_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    empty = _empty_bin(cache_key(p))
    m, rows = parse_uint(p["universe_size"], "universe_size"), rows_of(data)
    release = compact_histogram(empty.sampler, empty, rows, m, rng, workers=1, method=p["method"])
    return _compact_json(release, _probes(rows, m))


COMPACT = VectorKind("CompactHistogram", "histogram", _ch_derive, _ch_run)
PAPER_LAYER = (VectorKind("compact_histogram", "histogram", _compact_derive, _compact_run),)


def cases() -> Iterator[VectorCase]:
    """CompactHistogram's and compact_histogram's configurations, in order."""
    geo2 = sampler_spec("geo", 2, "1")
    geo3 = sampler_spec("geo", 3, "1")
    fast2 = sampler_spec("fast", 2, "1", "1/2")
    yield "CompactHistogram", user_params(2, 10, "1", counter="geo"), 2
    yield "CompactHistogram", user_params(3, 1000, "1", counter="geo"), 2
    yield "CompactHistogram", user_params(3, 1000, "1", beta0="1/10", counter="fast"), 1
    yield "CompactHistogram", user_params(4, 2**64, "1/2", beta0="1/8", counter="fast"), 1
    for method in ("points", "blocks"):
        spec = {"l": "1", "universe_size": "20", "method": method}
        yield "compact_histogram", {"sampler": geo2, **spec}, 2
        spec = {"l": "2", "universe_size": "300", "method": method}
        yield "compact_histogram", {"sampler": geo3, **spec}, 2
        spec = {"l": "3", "universe_size": "1000", "method": method}
        yield "compact_histogram", {"sampler": fast2, **spec}, 1
    spec = {"l": "2", "universe_size": "4", "method": "blocks"}  # s = 9 coordinates
    yield "compact_histogram", {"sampler": geo3, **spec}, 3


#: Cheap configurations ``random_vectors`` picks from.
RANDOM_POOL: tuple[tuple[str, JSON], ...] = (
    ("CompactHistogram", user_params(2, 10, "1", counter="geo")),
)
