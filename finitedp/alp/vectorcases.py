"""Reference vectors of ALP and its primitives (replayable from ``SPEC.md``).

Paper: Lebeda thesis Algs 2-5 and 10 (the release), Section 2.2 (random
rounding, randomized response).  A vector lists the release (hash parameters
as decimal strings, the bits in base64) and the exact estimates at probe keys.
"""

from __future__ import annotations

import functools
import json
from collections import Counter
from collections.abc import Iterator, Mapping
from fractions import Fraction
from typing import Any

from ..entries import JSON, VectorCase, VectorKind, cache_key, no_dataset, rows_of
from ..jsonvalues import decimal, parse_rational, parse_uint, rational
from ..oracle import RandomSource
from .combined import ThresholdALP
from .hashing import word_bits
from .maxproj import MaxProjection
from .mechanism import ALP
from .randomized import digits_per_draw, flip_mask, rand_round
from .release import ALPRelease
from .threshold import (
    ClampedGeometric,
    least_grid_threshold,
    one_plus_epsilon,
    threshold2,
    threshold2_on_grid,
    threshold_for,
)

__all__ = ["ALP_VECTORS", "PAPER_LAYER", "PRIMITIVES", "RANDOM_POOL", "cases"]


@functools.lru_cache(maxsize=64)
def _alp(key: str) -> ALP:
    p = json.loads(key)
    return ALP(
        parse_uint(p["universe_size"], "universe_size"),
        parse_rational(p["epsilon"], "epsilon"),
        k=parse_uint(p["k"], "k"),
        psi=parse_rational(p["psi"], "psi"),
        alpha=parse_rational(p["alpha"], "alpha"),
        s=parse_uint(p["s"], "s"),
        contribution=parse_rational(p["contribution"], "contribution"),
        variant=p["variant"],
    )


def _alp_derive(p: Mapping[str, Any]) -> JSON:
    return _embedding_derived(_alp(cache_key(p)))


def _embedding_derived(mech: ALP) -> JSON:
    f, base = mech.flip
    return {
        "m": decimal(mech.m),
        "word": decimal(word_bits(mech.universe_size, mech.s)),
        "flip": rational(Fraction(f, base)),
        "flip_base": decimal(base),
        "digits_per_draw": decimal(digits_per_draw(base)),
        "scale": rational(mech.scale),
    }


def _probes(data: tuple[int, ...], universe_size: int) -> list[int]:
    return sorted({*data, 1, min(2, universe_size), universe_size})


def _alp_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    mech = _alp(cache_key(p))
    rows = rows_of(data)
    release = mech.project(dict(Counter(rows)), rng)
    return _alp_output(release, _probes(rows, mech.universe_size))


def _alp_output(release: ALPRelease, probes: list[int]) -> JSON:
    h = release.hashes
    return {
        "type": "alp",
        "hashes": {
            "family": "multiply-add-shift",
            "word": decimal(h.word),
            "a": [decimal(v) for v in h.a],
            "b": [decimal(v) for v in h.b],
        },
        "bits": release.bits.to_text(),
        "estimates": [
            [decimal(x), rational(v)]
            for x, v in zip(probes, release.estimates(probes), strict=True)
        ],
    }


def _round_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    no_dataset(data)
    q = parse_uint(p["q"], "q")
    values = [parse_rational(v, "r") for v in p["r"]]
    return [decimal(rand_round(r, q, rng)) for r in values]


def _flip_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    no_dataset(data)
    count, f, base = (parse_uint(p[key], key) for key in ("count", "f", "base"))
    mask = flip_mask(count, f, base, rng)
    return "".join("1" if b else "0" for b in mask.tolist())


def _flip_derive(p: Mapping[str, Any]) -> JSON:
    return {"digits_per_draw": decimal(digits_per_draw(parse_uint(p["base"], "base")))}


def _threshold(p: Mapping[str, Any]) -> tuple[ClampedGeometric, int]:
    eps = parse_rational(p["epsilon"], "epsilon")
    t = threshold_for(ClampedGeometric(eps, 1).ratio, parse_rational(p["delta"], "delta"))
    return ClampedGeometric(eps, t - 1), t


def _threshold_derive(p: Mapping[str, Any]) -> JSON:
    noise, t = _threshold(p)
    ratio = noise.ratio
    return {
        "a": decimal(ratio.numerator),
        "b": decimal(ratio.denominator),
        "t": decimal(t),
        "R": decimal(noise.r),
        "d": decimal(noise.sampler.d),
    }


def _threshold_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    noise, t = _threshold(p)
    released = threshold2(dict(Counter(rows_of(data))), noise, t, parse_uint(p["k"], "k"), rng)
    return [[decimal(x), decimal(v)] for x, v in sorted(released.items())]


def _max(p: Mapping[str, Any]) -> MaxProjection:
    return MaxProjection(
        parse_uint(p["universe_size"], "universe_size"),
        parse_rational(p["epsilon"], "epsilon"),
        parse_uint(p["s"], "s"),
        parse_uint(p["u"], "u"),
    )


def _max_derive(p: Mapping[str, Any]) -> JSON:
    mech = _max(p)
    ratio = mech.sampler.noise
    return {
        "a": decimal(ratio.a),
        "b": decimal(ratio.b),
        "d": decimal(mech.sampler.d),
        "word": decimal(word_bits(mech.universe_size, mech.s)),
    }


def _max_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    release = _max(p).project(dict(Counter(rows_of(data))), rng)
    h = release.hashes
    return {
        "a": decimal(h.a[0]),
        "b": decimal(h.b[0]),
        "noisy": [decimal(v) for v in release.noisy],
    }


@functools.lru_cache(maxsize=16)
def _threshold_alp(key: str) -> ThresholdALP:
    p = json.loads(key)
    return ThresholdALP(
        parse_uint(p["universe_size"], "universe_size"),
        parse_rational(p["epsilon"], "epsilon"),
        parse_rational(p["delta"], "delta"),
        k=parse_uint(p["k"], "k"),
        alpha=parse_rational(p["alpha"], "alpha"),
        s=parse_uint(p["s"], "s"),
        split=parse_rational(p["split"], "split"),
        contribution=parse_uint(p["contribution"], "contribution"),
    )


def _threshold_alp_derive(p: Mapping[str, Any]) -> JSON:
    mech = _threshold_alp(cache_key(p))
    ratio = mech.noise.ratio
    return {
        "a": decimal(ratio.numerator),
        "b": decimal(ratio.denominator),
        "t": decimal(mech.t),
        "R": decimal(mech.noise.r),
        "d": decimal(mech.noise.sampler.d),
        **_embedding_derived(mech.alp),
    }


def _threshold_alp_run(
    p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource
) -> Any:
    mech = _threshold_alp(cache_key(p))
    rows = rows_of(data)
    release = mech.project(dict(Counter(rows)), rng)
    probes = _probes(rows, mech.alp.universe_size)
    return {
        "heavy": [[decimal(x), decimal(v)] for x, v in release.heavy],
        "alp": _alp_output(release.alp, probes),
        "estimates": [
            [decimal(x), rational(v)]
            for x, v in zip(probes, release.estimates(probes), strict=True)
        ],
    }


def _grid(p: Mapping[str, Any]) -> tuple[ClampedGeometric, int, int]:
    eps, q = parse_rational(p["epsilon"], "epsilon"), parse_uint(p["q"], "q")
    t = least_grid_threshold(eps, parse_rational(p["delta"], "delta"), 1, q)
    return ClampedGeometric(eps, t - 1, ratio=one_plus_epsilon(eps)), t, q


def _grid_derive(p: Mapping[str, Any]) -> JSON:
    noise, t, _ = _grid(p)
    ratio = noise.ratio
    return {
        "a": decimal(ratio.numerator),
        "b": decimal(ratio.denominator),
        "t": decimal(t),
        "R": decimal(noise.r),
        "d": decimal(noise.sampler.d),
    }


def _grid_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    no_dataset(data)
    noise, t, q = _grid(p)
    x = {
        parse_uint(i, "keys"): parse_rational(v, "values")
        for i, v in zip(p["keys"], p["values"], strict=True)
    }
    released = threshold2_on_grid(x, noise, t, parse_uint(p["k"], "k"), q, rng)
    return [[decimal(i), decimal(v)] for i, v in sorted(released.items())]


ALP_VECTORS = VectorKind("ALP", "histogram", _alp_derive, _alp_run)
PAPER_LAYER = (
    VectorKind("Threshold2", "histogram", _threshold_derive, _threshold_run),
    VectorKind("MaxProjection", "histogram", _max_derive, _max_run),
    VectorKind("ThresholdALP", "histogram", _threshold_alp_derive, _threshold_alp_run),
    VectorKind("Threshold2_grid", "primitive", _grid_derive, _grid_run),
)
PRIMITIVES = (
    VectorKind("rand_round", "primitive", lambda p: {}, _round_run),
    VectorKind("flip_mask", "primitive", _flip_derive, _flip_run),
)


def _params(
    n: int,
    d: int,
    eps: str,
    k: int,
    psi: str,
    s: int,
    variant: str = "alp",
    alpha: str = "3",
    contribution: str = "1",
) -> JSON:
    return {
        "n": decimal(n),
        "universe_size": decimal(d),
        "epsilon": eps,
        "k": decimal(k),
        "psi": psi,
        "alpha": alpha,
        "s": decimal(s),
        "contribution": contribution,
        "variant": variant,
    }


def cases() -> Iterator[VectorCase]:
    """ALP's configurations, its primitives' and its paper-layer variants', in file order."""
    yield "ALP", _params(2, 10, "1", 2, "12", 8), 2
    yield "ALP", _params(3, 1000, "1/2", 3, "40", 8, alpha="5/2"), 2
    yield "ALP", _params(4, 2**64, "1", 4, "30", 16, contribution="2"), 1
    yield "ALP", _params(2, 2**100, "1/3", 2, "20", 8), 1
    yield "ALP", _params(3, 20, "1", 3, "6", 8, variant="histogram"), 2
    yield "ALP", _params(2, 2**70, "2", 2, "5", 8, variant="histogram", contribution="2"), 1
    yield "rand_round", {"q": "4", "r": ["0", "1/4", "7/4", "3"]}, 2
    yield "rand_round", {"q": "15", "r": ["2/3", "14/5"]}, 1
    yield "flip_mask", {"count": "10", "f": "1", "base": "5"}, 2
    yield "flip_mask", {"count": "70", "f": "7", "base": "26"}, 1
    threshold = {"n": "4", "universe_size": "10", "epsilon": "1", "delta": "1/20", "k": "4"}
    yield "Threshold2", threshold, 2
    yield "Threshold2", {**threshold, "n": "12", "universe_size": "2000", "k": "12"}, 1
    yield "MaxProjection", {"n": "4", "universe_size": "50", "epsilon": "1", "s": "4", "u": "3"}, 2
    yield (
        "MaxProjection",
        {"n": "6", "universe_size": str(2**64), "epsilon": "1/2", "s": "8", "u": "10"},
        1,
    )
    talp = {
        "n": "6",
        "universe_size": "1000",
        "epsilon": "2",
        "delta": "1/10",
        "k": "6",
        "alpha": "3",
        "s": "16",
        "split": "1/2",
        "contribution": "1",
    }
    yield "ThresholdALP", talp, 2
    yield "ThresholdALP", {**talp, "universe_size": str(2**64), "contribution": "2"}, 1
    grid = {"epsilon": "1", "delta": "1/4", "k": "3", "q": "4"}
    yield "Threshold2_grid", {**grid, "keys": ["2", "5", "9"], "values": ["1/4", "3", "27/4"]}, 2
    one = {"keys": ["1"], "values": ["2/3"]}
    yield "Threshold2_grid", {**grid, "epsilon": "1/2", "q": "3", **one}, 1


def later_cases() -> Iterator[VectorCase]:
    """Appended after every earlier source (issue 25 item 7): Threshold2_grid where the
    factor ``((1 + e/q)^q - 1)/e`` moves the threshold (``t = 5``; 4 without it)."""
    grid = {"epsilon": "1", "delta": "1/10", "k": "3", "q": "4"}
    yield "Threshold2_grid", {**grid, "keys": ["3", "4", "7"], "values": ["9/2", "5", "11/4"]}, 3


#: Cheap configurations ``random_vectors`` picks from.
RANDOM_POOL: tuple[tuple[str, JSON], ...] = (("ALP", _params(2, 10, "1", 2, "12", 8)),)
