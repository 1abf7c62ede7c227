"""Reference vectors of the discrete Gaussian (replayable from ``SPEC.md`` section 2d).

Paper: CKS20 Def 1 (the law); BV Lemma 2.13 (one draw over the integer CDF).
A vector gives the law's parameters, ``W`` (which checks a replayer's weights),
and ``count`` samples from ``count`` draws ``uniform(W)``.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator, Mapping
from typing import Any

from ..entries import JSON, VectorCase, VectorKind, cache_key
from ..jsonvalues import decimal, parse_uint
from ..oracle import RandomSource
from ..params import exact_fraction
from .gaussian import DiscreteGaussian

__all__ = ["PRIMITIVES", "cases"]


@functools.lru_cache(maxsize=32)
def _law(key: str) -> DiscreteGaussian:
    p = json.loads(key)
    radius = parse_uint(p["radius"], "radius")
    if "base" in p:
        return DiscreteGaussian.with_base(exact_fraction(p["base"], "base"), radius)
    return DiscreteGaussian(
        exact_fraction(p["sigma"], "sigma"),
        radius=radius,
        precision=parse_uint(p["precision"], "precision"),
    )


def _derive(p: Mapping[str, Any]) -> JSON:
    law = _law(cache_key({k: v for k, v in p.items() if k != "count"}))
    return {"W": decimal(law.d), "w_R": decimal(law.weight(law.radius))}


def _run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    law = _law(cache_key({k: v for k, v in p.items() if k != "count"}))
    return [decimal(z) for z in law.sample_many(parse_uint(p["count"], "count"), rng)]


PRIMITIVES = (
    VectorKind("DiscreteGaussianBase", "primitive", _derive, _run),
    VectorKind("DiscreteGaussianFixed", "primitive", _derive, _run),
)


def cases() -> Iterator[VectorCase]:
    """The discrete Gaussian's configurations, in file order."""
    for base, radius in (("1/2", 4), ("2/3", 6), ("9/10", 12), ("99/100", 30)):
        params = {"base": base, "radius": decimal(radius), "count": "16"}
        yield "DiscreteGaussianBase", params, 2
    for sigma, radius, precision in (
        ("1", 4, 16),
        ("3/2", 7, 20),
        ("10", 60, 32),
        ("1000", 7000, 40),
        ("10000", 70000, 41),
    ):
        params = {
            "sigma": sigma,
            "radius": decimal(radius),
            "precision": decimal(precision),
            "count": "16",
        }
        yield "DiscreteGaussianFixed", params, 2
