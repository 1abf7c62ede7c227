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
from .hashing import word_bits
from .mechanism import ALP
from .randomized import digits_per_draw, flip_mask, rand_round

__all__ = ["ALP_VECTORS", "PRIMITIVES", "RANDOM_POOL", "cases"]


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
    mech = _alp(cache_key(p))
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
    probes = _probes(rows, mech.universe_size)
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


ALP_VECTORS = VectorKind("ALP", "histogram", _alp_derive, _alp_run)
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
    """ALP's configurations and its primitives', in the order of the vector file."""
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


#: Cheap configurations ``random_vectors`` picks from.
RANDOM_POOL: tuple[tuple[str, JSON], ...] = (("ALP", _params(2, 10, "1", 2, "12", 8)),)
