"""Reference vectors of the mixed geometric and the vector sums (``SPEC.md`` section 2e).

Paper: BV Lemma 3.2 (the mixing); Lebeda thesis Algs 15 and 16.  A vector sum's
grids are three lists ``lowers``, ``uppers``, ``steps`` of signed rationals;
``sums`` are the sums in grid units; the outputs are the released values.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator, Mapping
from fractions import Fraction
from typing import Any

from ..counting.mixedgeometric import MixedGeometric
from ..entries import JSON, VectorCase, VectorKind, cache_key
from ..jsonvalues import decimal, parse_uint, rational
from ..oracle import RandomSource
from ..params import exact_fraction
from ..selection.grid import Grid
from .vectorsum import EllipticalGaussian, ParallelotopeLaplace

__all__ = ["PRIMITIVES", "cases"]


def _signed(value: Any) -> str:
    """A signed integer or rational as written in SPEC.md 2d (``rational`` keeps the sign)."""
    return rational(exact_fraction(value, "value"))


def _int(value: Any, name: str) -> int:
    return int(exact_fraction(value, name))


@functools.lru_cache(maxsize=16)
def _noise(key: str) -> MixedGeometric:
    p = json.loads(key)
    return MixedGeometric(
        exact_fraction(p["epsilon"], "epsilon"),
        parse_uint(p["sensitivity"], "sensitivity"),
        _int(p["low"], "low"),
        _int(p["high"], "high"),
    )


def _noise_of(p: Mapping[str, Any]) -> MixedGeometric:
    return _noise(cache_key({k: p[k] for k in ("epsilon", "sensitivity", "low", "high")}))


def _mg_derive(p: Mapping[str, Any]) -> JSON:
    g = _noise_of(p)
    return {
        "a": decimal(g.ratio.numerator),
        "b": decimal(g.ratio.denominator),
        "t": decimal(g.t),
        "m": decimal(g.block),
        "W": decimal(g.noise_total),
        "d": decimal(g.d),
    }


def _mg_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    g = _noise_of(p)
    value = _int(p["value"], "value")
    return [_signed(g.sample(value, rng)) for _ in range(parse_uint(p["count"], "count"))]


@functools.lru_cache(maxsize=16)
def _mechanism(key: str) -> ParallelotopeLaplace | EllipticalGaussian:
    p = json.loads(key)
    grids = [
        Grid(
            exact_fraction(lo, "lowers"), exact_fraction(hi, "uppers"), exact_fraction(st, "steps")
        )
        for lo, hi, st in zip(p["lowers"], p["uppers"], p["steps"], strict=True)
    ]
    n, power = parse_uint(p["n"], "n"), parse_uint(p["p"], "p")
    if "epsilon" in p:
        return ParallelotopeLaplace(grids, n, exact_fraction(p["epsilon"], "epsilon"), p=power)
    # vectors without "noise_law" were made with the one-table law (before issue 41)
    law = p.get("noise_law", "table")
    return EllipticalGaussian(grids, n, exact_fraction(p["rho"], "rho"), p=power, noise_law=law)


def _mechanism_of(p: Mapping[str, Any]) -> ParallelotopeLaplace | EllipticalGaussian:
    return _mechanism(cache_key({k: v for k, v in p.items() if k != "sums"}))


def _vs_derive(p: Mapping[str, Any]) -> JSON:
    mech = _mechanism_of(p)
    out: dict[str, Any] = {"shares": [rational(b) for b in mech.split.b]}
    if isinstance(mech, EllipticalGaussian):
        out["variances"] = [rational(mech.table(i).sigma2 or Fraction(0)) for i in range(mech.d)]
        out["radii"] = [decimal(mech.table(i).radius) for i in range(mech.d)]
    else:
        out["truncations"] = [decimal(mech.sampler(i).t) for i in range(mech.d)]
    return out


def _vs_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    mech = _mechanism_of(p)
    sums = [parse_uint(s, "sums") for s in p["sums"]]
    return [_signed(e) for e in mech.release_sums(sums, rng).estimates]


PRIMITIVES = (
    VectorKind("MixedGeometric", "primitive", _mg_derive, _mg_run),
    VectorKind("ParallelotopeLaplace", "primitive", _vs_derive, _vs_run),
    VectorKind("EllipticalGaussian", "primitive", _vs_derive, _vs_run),
)


def cases() -> Iterator[VectorCase]:
    """The configurations, in file order."""
    for eps, sens, low, high, value in (
        ("1", 1, 0, 3, 1),
        ("1/2", 2, -3, 5, 5),
        ("1/100", 7, 0, 700, 350),
        ("3", 1000, 0, 10**6, 0),
    ):
        params: dict[str, Any] = {
            "epsilon": eps,
            "sensitivity": decimal(sens),
            "low": _signed(low),
            "high": _signed(high),
            "value": _signed(value),
            "count": "8",
        }
        yield "MixedGeometric", params, 2
    grids: dict[str, Any] = {
        "lowers": ["-2", "0", "-1"],
        "uppers": ["2", "1", "3"],
        "steps": ["1", "1/4", "1/2"],
    }
    for p, budget, sums in (("1", "1", ["6", "2", "17"]), ("2", "1/2", ["0", "12", "24"])):
        params = {**grids, "n": "3", "epsilon": budget, "p": p, "sums": sums}
        yield "ParallelotopeLaplace", params, 2
    for p, rho, sums in (("2", "1/2", ["6", "2", "17"]), ("1", "2", ["12", "0", "9"])):
        params = {**grids, "n": "3", "rho": rho, "p": p, "sums": sums}
        yield "EllipticalGaussian", params, 2


def later_cases() -> Iterator[VectorCase]:
    """Issue 40: a coordinate whose ``sigma^2`` passes ``2^28`` (SPEC.md 2e step 3's second
    precision rule), listed first, so that the draws (by increasing ``sigma^2``) are not in
    coordinate order."""
    params = {
        "lowers": ["0", "0"],
        "uppers": ["32768", "1"],
        "steps": ["1", "1"],
        "n": "3",
        "rho": "1/2",
        "p": "2",
        "sums": ["50000", "2"],
    }
    yield "EllipticalGaussian", params, 2


def convolved_cases() -> Iterator[VectorCase]:
    """Issue 41: Alg 15 with ConvolvedGaussian (``noise_law``), small and wide noise."""
    grids = {"lowers": ["-2", "0", "-1"], "uppers": ["2", "1", "3"], "steps": ["1", "1/4", "1/2"]}
    for p, rho, sums in (("2", "1/2", ["6", "2", "17"]), ("1", "1/1000", ["12", "0", "9"])):
        params = {**grids, "n": "3", "rho": rho, "p": p, "sums": sums, "noise_law": "convolved"}
        yield "EllipticalGaussian", params, 2
    wide = {
        "lowers": ["0", "0"],
        "uppers": ["32768", "1"],
        "steps": ["1", "1"],
        "n": "3",
        "rho": "1/2",
        "p": "2",
        "sums": ["50000", "2"],
        "noise_law": "convolved",
    }
    yield "EllipticalGaussian", wide, 2
