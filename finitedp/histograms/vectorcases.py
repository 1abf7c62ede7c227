"""Reference vectors of the histogram mechanisms: how each is run, and which cases.

Paper: BV Algs 5.1, 5.4, 6.1, 6.4, 6.7, 6.9, 6.16-6.21, A.3.  Each
:class:`~finitedp.entries.VectorKind` builds a mechanism or primitive from a
vector's ``params`` (decimal strings and ``"p/q"``), runs it on a dataset with a
recording or replaying source, and returns the output's JSON form.  ``SPEC.md``
states the oracle-call order of each; :mod:`finitedp.vectors` generates and
verifies the vectors from the cases here, in this order.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from ..counting.fastsample import FastSample
from ..counting.geosample import GeoSample
from ..counting.registry import (
    sampler_from_spec,
    sampler_only,
    sampler_spec,
    user_derived,
    with_sampler,
)
from ..entries import (
    JSON,
    VectorCase,
    VectorKind,
    cache_key,
    no_dataset,
    no_derive,
    rows_of,
    user_params,
)
from ..jsonvalues import decimal, parse_rational, parse_uint, parse_uints
from ..oracle import RandomSource
from .approx import approx_bin_sample, approx_ord_sample
from .basic import basic_histogram
from .binomial import exact_bin_sample
from .distinct import distinct_sample
from .keepheavy import keep_heavy, kh_prime, ord_sample
from .mechanisms import BoundedGeometricHistogram, StabilityHistogram
from .release import PartialHistogram
from .sparse import (
    PureSparseHistogram,
    pure_sparse_delta,
    pure_sparse_fallback,
    pure_sparse_histogram,
    sparse_histogram,
    sparse_precision,
)
from .stability import stability_histogram

__all__ = [
    "BOUNDED_GEOMETRIC",
    "PAPER_LAYER",
    "PRIMITIVES",
    "PURE_SPARSE",
    "RANDOM_POOL",
    "STABILITY",
    "histogram_json",
    "paper_cases",
    "primitive_cases",
    "user_cases",
]


def histogram_json(release: PartialHistogram) -> JSON:
    """A :class:`PartialHistogram` with its integers as decimal strings."""
    return {
        "type": "partial_histogram",
        "universe_size": decimal(release.universe_size),
        "bins": [[decimal(x), decimal(c)] for x, c in release.bins],
    }


# BoundedGeometricHistogram (Alg 5.1 over X, Thm 5.3 / Fig 3).


@functools.lru_cache(maxsize=64)
def _bgh(key: str) -> BoundedGeometricHistogram:
    p = json.loads(key)
    return BoundedGeometricHistogram(
        parse_uint(p["n"], "n"),
        parse_uint(p["universe_size"], "universe_size"),
        parse_rational(p["epsilon"], "epsilon"),
        parse_rational(p["beta0"], "beta0") if "beta0" in p else None,
        counter=p["counter"],
    )


def _bgh_derive(p: Mapping[str, Any]) -> JSON:
    return user_derived(_bgh(cache_key(p)).sampler, {}, {})


def _bgh_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    return histogram_json(_bgh(cache_key(p)).release(rows_of(data), rng))


# StabilityHistogram (Alg 5.4, Thm 5.6 / Fig 4).


@functools.lru_cache(maxsize=64)
def _sh(key: str) -> StabilityHistogram:
    p = json.loads(key)
    return StabilityHistogram(
        parse_uint(p["n"], "n"),
        parse_uint(p["universe_size"], "universe_size"),
        parse_rational(p["epsilon"], "epsilon"),
        parse_rational(p["delta"], "delta"),
        parse_rational(p["beta0"], "beta0") if "beta0" in p else None,
        counter=p["counter"],
        pad=p["pad"],
    )


def _sh_derive(p: Mapping[str, Any]) -> JSON:
    mech = _sh(cache_key(p))
    return user_derived(mech.sampler, {"threshold": decimal(mech.threshold)}, {})


def _sh_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    return histogram_json(_sh(cache_key(p)).release(rows_of(data), rng))


# PureSparseHistogram (Alg 6.9, Thm 6.11 / Fig 5).


@functools.lru_cache(maxsize=64)
def _psh(key: str) -> PureSparseHistogram:
    p = json.loads(key)
    return PureSparseHistogram(
        parse_uint(p["n"], "n"),
        parse_uint(p["universe_size"], "universe_size"),
        parse_rational(p["epsilon"], "epsilon"),
        parse_rational(p["beta"], "beta"),
        counter=p["counter"],
        pad=p["pad"],
    )


def _psh_derive(p: Mapping[str, Any]) -> JSON:
    mech = _psh(cache_key(p))
    then = {"beta1": str(mech.beta1), "delta": str(mech.delta), "s": decimal(mech.precision)}
    return user_derived(mech.sampler, {}, then)


def _psh_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    return histogram_json(_psh(cache_key(p)).release(rows_of(data), rng))


# Paper-layer histogram functions (Sections 5 and 6).


def _basic_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    bins = parse_uints(p["bins"], "bins") if "bins" in p else None
    m = parse_uint(p["universe_size"], "universe_size")
    return histogram_json(
        basic_histogram(sampler_from_spec(p["sampler"]), rows_of(data), m, bins, rng)
    )


def _stability_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    release = stability_histogram(
        sampler_from_spec(p["sampler"]),
        parse_uint(p["threshold"], "threshold"),
        rows_of(data),
        parse_uint(p["universe_size"], "universe_size"),
        rng,
        pad=p["pad"],
    )
    return histogram_json(release)


def _keep_heavy_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    m = parse_uint(p["universe_size"], "universe_size")
    return histogram_json(keep_heavy(sampler_from_spec(p["sampler"]), rows_of(data), m, rng))


def _kh_prime_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    m = parse_uint(p["universe_size"], "universe_size")
    return histogram_json(
        kh_prime(sampler_from_spec(p["sampler"]), rows_of(data), m, rng, pad=p["pad"])
    )


def _sparse_derive(p: Mapping[str, Any]) -> JSON:
    sampler = sampler_from_spec(p["sampler"])
    m = parse_uint(p["universe_size"], "universe_size")
    s = sparse_precision(sampler.n, m, parse_rational(p["delta"], "delta"))
    return with_sampler({"s": decimal(s)}, p)


def _sparse_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    release = sparse_histogram(
        sampler_from_spec(p["sampler"]),
        parse_rational(p["delta"], "delta"),
        rows_of(data),
        parse_uint(p["universe_size"], "universe_size"),
        rng,
        pad=p["pad"],
    )
    return histogram_json(release)


def _pure_sparse_derive(p: Mapping[str, Any]) -> JSON:
    sampler = sampler_from_spec(p["sampler"])
    m = parse_uint(p["universe_size"], "universe_size")
    eps, beta1 = parse_rational(p["epsilon"], "epsilon"), parse_rational(p["beta1"], "beta1")
    delta = pure_sparse_delta(eps, beta1, sampler.n, m)
    return with_sampler(
        {"delta": str(delta), "s": decimal(sparse_precision(sampler.n, m, delta))}, p
    )


def _pure_sparse_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    release = pure_sparse_histogram(
        sampler_from_spec(p["sampler"]),
        parse_rational(p["epsilon"], "epsilon"),
        parse_rational(p["beta1"], "beta1"),
        rows_of(data),
        parse_uint(p["universe_size"], "universe_size"),
        rng,
        pad=p["pad"],
    )
    return histogram_json(release)


# Primitives (no dataset).


def _distinct_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    no_dataset(data)
    chosen = distinct_sample(
        parse_uints(p["excluded"], "excluded"),
        parse_uint(p["universe_size"], "universe_size"),
        parse_uint(p["r"], "r"),
        rng,
    )
    return [decimal(x) for x in chosen]


def _approx_bin_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    no_dataset(data)
    m, pp, q = parse_uint(p["m"], "m"), parse_uint(p["p"], "p"), parse_uint(p["q"], "q")
    return decimal(
        approx_bin_sample(m, pp, q, parse_uint(p["s"], "s"), parse_uint(p["t"], "t"), rng)
    )


def _exact_bin_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    no_dataset(data)
    m, pp, q = parse_uint(p["m"], "m"), parse_uint(p["p"], "p"), parse_uint(p["q"], "q")
    return decimal(exact_bin_sample(m, pp, q, parse_uint(p["t"], "t"), rng))


def _cdf_function(p: Mapping[str, Any]) -> Callable[[int], int]:
    table = parse_uints(p["cdf"], "cdf")
    if len(table) != parse_uint(p["n"], "n") + 1:
        raise ValueError("cdf: expected n + 1 values F(0), ..., F(n)")
    return table.__getitem__


def _approx_ord_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    no_dataset(data)
    n, m, s = parse_uint(p["n"], "n"), parse_uint(p["m"], "m"), parse_uint(p["s"], "s")
    return [decimal(v) for v in approx_ord_sample(_cdf_function(p), n, m, s, rng)]


def _ord_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    no_dataset(data)
    n, m = parse_uint(p["n"], "n"), parse_uint(p["m"], "m")
    return [decimal(v) for v in ord_sample(_cdf_function(p), n, m, rng)]


def _fallback_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    no_dataset(data)
    n, m = parse_uint(p["n"], "n"), parse_uint(p["universe_size"], "universe_size")
    return histogram_json(pure_sparse_fallback(n, m, rng))


#: Every mechanism a vector may name, with how to derive, run and replay it.


BOUNDED_GEOMETRIC = VectorKind("BoundedGeometricHistogram", "histogram", _bgh_derive, _bgh_run)
STABILITY = VectorKind("StabilityHistogram", "histogram", _sh_derive, _sh_run)
PURE_SPARSE = VectorKind("PureSparseHistogram", "histogram", _psh_derive, _psh_run)

#: The paper-layer functions and primitives, by their vectors' ``"mechanism"`` name.
PAPER_LAYER: tuple[VectorKind, ...] = (
    VectorKind("basic_histogram", "histogram", sampler_only, _basic_run),
    VectorKind("stability_histogram", "histogram", sampler_only, _stability_run),
    VectorKind("keep_heavy", "histogram", sampler_only, _keep_heavy_run),
    VectorKind("kh_prime", "histogram", sampler_only, _kh_prime_run),
    VectorKind("sparse_histogram", "histogram", _sparse_derive, _sparse_run),
    VectorKind("pure_sparse_histogram", "histogram", _pure_sparse_derive, _pure_sparse_run),
)
PRIMITIVES: tuple[VectorKind, ...] = (
    VectorKind("distinct_sample", "primitive", no_derive, _distinct_run),
    VectorKind("approx_bin_sample", "primitive", no_derive, _approx_bin_run),
    VectorKind("exact_bin_sample", "primitive", no_derive, _exact_bin_run),
    VectorKind("approx_ord_sample", "primitive", no_derive, _approx_ord_run),
    VectorKind("ord_sample", "primitive", no_derive, _ord_run),
    VectorKind("pure_sparse_fallback", "primitive", no_derive, _fallback_run),
)


def user_cases() -> Iterator[VectorCase]:
    """The user-level mechanisms' configurations: (mechanism, params, runs per dataset)."""
    yield "BoundedGeometricHistogram", user_params(3, 6, "1", beta0="1/10", counter="fast"), 2
    yield "BoundedGeometricHistogram", user_params(5, 12, "1/2", beta0="1/4", counter="fast"), 1
    yield "BoundedGeometricHistogram", user_params(3, 6, "1", counter="geo"), 2
    yield "BoundedGeometricHistogram", user_params(6, 16, "1/3", counter="geo"), 1
    yield "BoundedGeometricHistogram", user_params(8, 3, "1/2", counter="geo"), 2
    yield "BoundedGeometricHistogram", user_params(1, 1, "1", counter="geo"), 2
    yield (
        "StabilityHistogram",
        user_params(12, 20, "1", delta="1/2", beta0="1/2", counter="fast"),
        2,
    )
    yield "StabilityHistogram", user_params(10, 2**64, "1", delta="1/2", counter="geo"), 2
    yield "StabilityHistogram", user_params(9, 5, "1", delta="1/2", counter="geo", pad=False), 2
    yield "PureSparseHistogram", user_params(3, 7, "1", beta="1", counter="geo"), 3
    yield "PureSparseHistogram", user_params(2, 5, "1", beta="1", counter="geo", pad=False), 3
    yield "PureSparseHistogram", user_params(4, 2**64, "1/2", beta="1/2", counter="fast"), 2
    yield "PureSparseHistogram", user_params(3, 1000, "1", beta="1/2", counter="fast", pad=False), 2


def paper_cases() -> Iterator[VectorCase]:
    """The paper-layer functions' configurations: (function, params, runs per dataset)."""
    geo1 = sampler_spec("geo", 1, "1")
    geo2 = sampler_spec("geo", 2, "1")
    geo3 = sampler_spec("geo", 3, "1")
    geo4 = sampler_spec("geo", 4, "1")
    fast2 = sampler_spec("fast", 2, "1", "1/2")
    fast3 = sampler_spec("fast", 3, "1", "1/2")
    fast5 = sampler_spec("fast", 5, "1", "1/2")
    tight_geo2 = sampler_spec("geo", 2, "2", noise="tight")
    tight_geo3 = sampler_spec("geo", 3, "1", noise="tight")
    tight_fast4 = sampler_spec("fast", 4, "1/2", "1/10", "tight")
    big = decimal(2**64)
    yield "basic_histogram", {"sampler": geo3, "universe_size": "10", "bins": ["2", "3", "5"]}, 2
    yield "basic_histogram", {"sampler": tight_fast4, "universe_size": "6"}, 1
    bins = ["1", "12345", decimal(2**40)]
    yield (
        "basic_histogram",
        {"sampler": tight_geo2, "universe_size": decimal(2**40), "bins": bins},
        2,
    )
    for pad in (False, True):
        params = {"sampler": geo4, "threshold": "1", "universe_size": "10", "pad": pad}
        yield "stability_histogram", params, 2
    params = {"sampler": fast5, "threshold": "2", "universe_size": big, "pad": True}
    yield "stability_histogram", params, 1
    yield "keep_heavy", {"sampler": geo3, "universe_size": "8"}, 2
    yield "keep_heavy", {"sampler": fast2, "universe_size": "5"}, 1
    for pad in (False, True):
        yield "kh_prime", {"sampler": geo3, "universe_size": "8", "pad": pad}, 2
    yield "kh_prime", {"sampler": tight_geo2, "universe_size": "20", "pad": False}, 2
    params = {"sampler": geo3, "delta": "1/10", "universe_size": "8", "pad": False}
    yield "sparse_histogram", params, 2
    params = {"sampler": fast3, "delta": "1/100", "universe_size": big, "pad": True}
    yield "sparse_histogram", params, 1
    params = {"sampler": tight_geo3, "delta": "1/7", "universe_size": "50", "pad": False}
    yield "sparse_histogram", params, 1
    for pad in (True, False):
        params = {
            "sampler": geo2,
            "epsilon": "1",
            "beta1": "1/2",
            "universe_size": "5",
            "pad": pad,
        }
        yield "pure_sparse_histogram", params, 3
    params = {"sampler": geo1, "epsilon": "1", "beta1": "1/2", "universe_size": "3", "pad": True}
    yield "pure_sparse_histogram", params, 2


def primitive_cases() -> Iterator[VectorCase]:
    """Primitives (no dataset): DistinctSample, the binomial and order-statistic samplers."""
    big = 2**64
    for excluded, m, r in (
        ([], 5, 5),
        (["2", "4"], 10, 3),
        (["1", decimal(big)], big, 4),
        (["1", "2", "3"], 4, 1),
        (["3"], 6, 0),
        (["7", "8", "9", "10"], 12, 8),
    ):
        yield (
            "distinct_sample",
            {"excluded": excluded, "universe_size": decimal(m), "r": decimal(r)},
            3,
        )
    for m, p, q, s, t in (
        (10, 1, 3, 100, 4),
        (1000, 1, 2, 10**6, 3),
        (5, 0, 7, 5, 2),
        (7, 7, 7, 50, 8),
        (3, 1, 2, 3, 0),
        (40, 3, 5, 2**40, 17),
        (big, 1, 2**65, 2**700 + 1, 5),  # s long enough for the interval pass of Alg 6.16
    ):
        params = {
            "m": decimal(m),
            "p": decimal(p),
            "q": decimal(q),
            "s": decimal(s),
            "t": decimal(t),
        }
        yield "approx_bin_sample", params, 4
    for m, p, q, t in ((10, 1, 3, 4), (20, 2, 5, 21), (4, 1, 2, 0), (0, 1, 2, 3), (6, 5, 5, 2)):
        yield (
            "exact_bin_sample",
            {"m": decimal(m), "p": decimal(p), "q": decimal(q), "t": decimal(t)},
            3,
        )
    geo = GeoSample(3, 1)
    fast = FastSample(2, 1, "1/2")
    tables = (
        ([decimal(geo.scaled_cdf_at_zero(z)) for z in range(4)], 10, 1000),
        ([decimal(fast.scaled_cdf_at_zero(z)) for z in range(3)], 3, 3**40),
        (["1", "1", "5", "10"], 4, 4),
    )
    for cdf, m, s in tables:
        top = decimal(len(cdf) - 1)
        yield "approx_ord_sample", {"cdf": cdf, "n": top, "m": decimal(m), "s": decimal(s)}, 3
        yield "ord_sample", {"cdf": cdf, "n": top, "m": decimal(m)}, 3
    for n, m in ((3, 5), (4, big), (1, 1), (6, 3)):
        yield "pure_sparse_fallback", {"n": decimal(n), "universe_size": decimal(m)}, 3


#: Cheap configurations ``random_vectors`` picks from (small integers, short tapes).
RANDOM_POOL: tuple[tuple[str, JSON], ...] = (
    ("BoundedGeometricHistogram", user_params(3, 5, "1", counter="geo")),
    ("BoundedGeometricHistogram", user_params(2, 4, "1", beta0="1/4", counter="fast")),
    ("StabilityHistogram", user_params(9, 2**64, "1", delta="1/2", counter="geo")),
    ("PureSparseHistogram", user_params(2, 5, "1", beta="1", counter="geo")),
    ("kh_prime", {"sampler": sampler_spec("geo", 2, "1"), "universe_size": "6", "pad": True}),
    (
        "sparse_histogram",
        {
            "sampler": sampler_spec("geo", 2, "1"),
            "delta": "1/10",
            "universe_size": "9",
            "pad": False,
        },
    ),
    ("keep_heavy", {"sampler": sampler_spec("geo", 2, "1"), "universe_size": "4"}),
)
