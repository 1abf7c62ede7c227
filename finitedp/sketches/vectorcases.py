"""Reference vectors of Private Misra-Gries (replayable from ``SPEC.md`` section 2c).

Paper: Lebeda thesis Alg 12 (the sketch of the dataset's rows, in order) and
Alg 13 (the noise and the threshold).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator, Mapping
from typing import Any

from ..entries import JSON, VectorCase, VectorKind, cache_key, rows_of
from ..jsonvalues import decimal, parse_rational, parse_uint
from ..oracle import RandomSource
from .private import PrivateMisraGries, pmg_release
from .pure import PureSparseMisraGries

__all__ = ["PMG_VECTORS", "PURE_PMG_VECTORS", "cases"]


@functools.lru_cache(maxsize=16)
def _pmg(key: str) -> PrivateMisraGries:
    p = json.loads(key)
    return PrivateMisraGries(
        parse_uint(p["k"], "k"),
        parse_uint(p["universe_size"], "universe_size"),
        parse_rational(p["epsilon"], "epsilon"),
        parse_rational(p["delta"], "delta"),
        threshold=p["threshold"],
        standard=p["sketch"] == "standard",
    )


def _derive(p: Mapping[str, Any]) -> JSON:
    mech = _pmg(cache_key(p))
    return {
        "a": decimal(mech.alpha.numerator),
        "b": decimal(mech.alpha.denominator),
        "R": decimal(mech.noise.r),
        "tau": decimal(mech.tau),
        "d": decimal(mech.noise.sampler.d),
    }


def _run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    mech = _pmg(cache_key(p))
    released = pmg_release(mech.sketch(rows_of(data)), mech.noise, mech.tau, rng)
    return [[decimal(x), decimal(v)] for x, v in released]


PMG_VECTORS = VectorKind("PrivateMisraGries", "histogram", _derive, _run)


@functools.lru_cache(maxsize=16)
def _pure(key: str) -> PureSparseMisraGries:
    p = json.loads(key)
    return PureSparseMisraGries(
        parse_uint(p["k"], "k"),
        parse_uint(p["universe_size"], "universe_size"),
        parse_rational(p["epsilon"], "epsilon"),
        parse_uint(p["max_length"], "max_length"),
        parse_rational(p["beta1"], "beta1"),
    )


def _pure_derive(p: Mapping[str, Any]) -> JSON:
    mech = _pure(cache_key(p))
    return {
        "U": decimal(mech.bound),
        "d": decimal(mech.sampler.d),
        "delta": str(mech.delta),
        "s": decimal(mech.precision),
    }


def _pure_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    released = _pure(cache_key(p)).release(rows_of(data), rng)
    return [[decimal(x), decimal(v)] for x, v in released.heavy]


PURE_PMG_VECTORS = VectorKind("PureSparseMisraGries", "histogram", _pure_derive, _pure_run)


def _params(n: int, d: int, eps: str, delta: str, k: int, threshold: str, sketch: str) -> JSON:
    return {
        "n": decimal(n),
        "universe_size": decimal(d),
        "epsilon": eps,
        "delta": delta,
        "k": decimal(k),
        "threshold": threshold,
        "sketch": sketch,
    }


def cases() -> Iterator[VectorCase]:
    """PMG's configurations, in file order."""
    yield "PrivateMisraGries", _params(8, 5, "2", "1/10", 2, "paper", "alg12"), 2
    yield "PrivateMisraGries", _params(8, 5, "2", "1/10", 2, "clamp", "alg12"), 2
    yield "PrivateMisraGries", _params(30, 1000, "1", "1/1000", 3, "clamp", "standard"), 1
    yield "PrivateMisraGries", _params(40, 2**64, "1/2", "1/100", 2, "paper", "standard"), 1
    for n, d, eps, k, length, beta1, runs in (
        (8, 7, "1", 2, 8, "1/4", 3),
        (40, 2**64, "1", 2, 40, "1/40", 2),
        (60, 1000, "1/2", 3, 100, "1/10", 1),
    ):
        params = {
            "n": decimal(n),
            "universe_size": decimal(d),
            "epsilon": eps,
            "k": decimal(k),
            "max_length": decimal(length),
            "beta1": beta1,
        }
        yield "PureSparseMisraGries", params, runs
