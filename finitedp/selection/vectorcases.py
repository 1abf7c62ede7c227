"""Reference vectors of the exponential mechanism and the quantiles (``SPEC.md`` section 2d).

Paper: Ilvento 2020 (a rational base); Smith 2011 (the interval exponential
quantile); Huang-Liang-Yi 2021 (binary search with noisy counts).  Values and
grid ends are signed rationals written ``"-3/2"``; everything else as usual.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ..entries import JSON, VectorCase, VectorKind
from ..jsonvalues import decimal, parse_uint, rational
from ..oracle import RandomSource, SeededSource
from ..params import exact_fraction
from .exponential import ExponentialMechanism
from .gaussianquantile import GaussianBinarySearchQuantile
from .quantile import BinarySearchQuantile, ExponentialQuantile

__all__ = ["PRIMITIVES", "cases", "later_cases"]


def _signed(value: Any) -> str:
    """A signed integer or rational as written in SPEC.md 2d (``rational`` keeps the sign)."""
    return rational(exact_fraction(value, "value"))


def _ints(values: Any, name: str) -> list[int]:
    return [int(exact_fraction(v, name)) for v in values]


def _em(p: Mapping[str, Any]) -> ExponentialMechanism:
    return ExponentialMechanism(
        exact_fraction(p["base"], "base"), sensitivity=parse_uint(p["sensitivity"], "sensitivity")
    )


def _em_derive(p: Mapping[str, Any]) -> JSON:
    weights = _em(p).weights(_ints(p["utilities"], "utilities"), _ints(p["counts"], "counts"))
    return {"W": decimal(sum(weights))}


def _em_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    i, j = _em(p).sample(_ints(p["utilities"], "utilities"), _ints(p["counts"], "counts"), rng)
    return [decimal(i), decimal(j)]


def _grid(p: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "lower": exact_fraction(p["lower"], "lower"),
        "upper": exact_fraction(p["upper"], "upper"),
        "step": exact_fraction(p["step"], "step"),
        "quantile": exact_fraction(p["quantile"], "quantile"),
        "n": len(p["values"]),
    }


def _eq(p: Mapping[str, Any]) -> ExponentialQuantile:
    return ExponentialQuantile(base=exact_fraction(p["base"], "base"), **_grid(p))


def _eq_derive(p: Mapping[str, Any]) -> JSON:
    q = _eq(p)
    values = [exact_fraction(v, "values") for v in p["values"]]
    return {
        "rank": decimal(q.rank),
        "K": decimal(q.clip),
        "candidates": decimal(len(q.candidates(values))),
    }


def _eq_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    return _signed(_eq(p).release([exact_fraction(v, "values") for v in p["values"]], rng))


def _bs(p: Mapping[str, Any]) -> BinarySearchQuantile:
    return BinarySearchQuantile(epsilon=exact_fraction(p["epsilon"], "epsilon"), **_grid(p))


def _bs_derive(p: Mapping[str, Any]) -> JSON:
    q = _bs(p)
    ratio = q.sampler.noise
    return {
        "rank": decimal(q.rank),
        "steps": decimal(q.steps),
        "L": decimal(q.clip),
        "a": decimal(ratio.a),
        "b": decimal(ratio.b),
        "d": decimal(q.sampler.d),
    }


def _bs_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    return _signed(_bs(p).release([exact_fraction(v, "values") for v in p["values"]], rng))


def _fx(p: Mapping[str, Any]) -> ExponentialQuantile:
    return ExponentialQuantile(base=exact_fraction(p["base"], "base"), weights="fixed", **_grid(p))


def _fx_derive(p: Mapping[str, Any]) -> JSON:
    q = _fx(p)
    assert q.table is not None
    values = [exact_fraction(v, "values") for v in p["values"]]
    return {
        "rank": decimal(q.rank),
        "K": decimal(q.clip),
        "P": decimal(q.table[0].bit_length() - 1),
        "w_K": decimal(q.table[-1]),
        "candidates": decimal(len(q.candidates(values))),
    }


def _fx_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    return _signed(_fx(p).release([exact_fraction(v, "values") for v in p["values"]], rng))


def _gq(p: Mapping[str, Any]) -> GaussianBinarySearchQuantile:
    # vectors without "noise_law" were made with the one-table law (before issue 41)
    law = p.get("noise_law", "table")
    return GaussianBinarySearchQuantile(
        rho=exact_fraction(p["rho"], "rho"), noise_law=law, **_grid(p)
    )


def _gq_derive(p: Mapping[str, Any]) -> JSON:
    q = _gq(p)
    assert q.noise.sigma2 is not None
    return {
        "rank": decimal(q.rank),
        "steps": decimal(q.steps),
        "sigma2": rational(q.noise.sigma2),
        "radius": decimal(q.noise.radius),
        "W": decimal(q.noise.d),
    }


def _gq_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    return _signed(_gq(p).release([exact_fraction(v, "values") for v in p["values"]], rng))


PRIMITIVES = (
    VectorKind("ExponentialMechanism", "primitive", _em_derive, _em_run),
    VectorKind("ExponentialQuantile", "primitive", _eq_derive, _eq_run),
    VectorKind("BinarySearchQuantile", "primitive", _bs_derive, _bs_run),
    VectorKind("ExponentialQuantileFixed", "primitive", _fx_derive, _fx_run),
    VectorKind("GaussianBinarySearchQuantile", "primitive", _gq_derive, _gq_run),
)


def _values(tag: str, n: int, low: int, high: int) -> list[str]:
    rng = SeededSource(f"finitedp/vectors/quantile/{tag}".encode())
    return [_signed(low + rng.uniform(high - low + 1) - 1) for _ in range(n)]


def cases() -> Iterator[VectorCase]:
    """The configurations, in file order."""
    for base, sens, utilities, counts in (
        ("2", 1, [0, -1, -2], [1, 1, 2]),
        ("3/2", 1, [0, -3, 2, 2, -1], [1, 5, 1, 3, 1]),
        ("101/100", 2, [-7, 0, -40, -1], [100, 1, 7, 1000]),
    ):
        params = {
            "base": base,
            "sensitivity": decimal(sens),
            "utilities": [_signed(u) for u in utilities],
            "counts": [decimal(c) for c in counts],
        }
        yield "ExponentialMechanism", params, 3
    grids = (
        ("0", "10", "1", "1/2", 5, 0, 10),
        ("-2", "2", "1/2", "1/4", 8, -2, 2),
        ("-1000", "1000", "1", "1/2", 60, -50, 80),
    )
    for lower, upper, step, quantile, n, low, high in grids:
        raw = _values(f"{lower}/{upper}/{n}", n, low, high)
        values = [_signed(exact_fraction(v, "v") * exact_fraction(step, "step")) for v in raw]
        common = {"lower": lower, "upper": upper, "step": step, "quantile": quantile}
        yield "ExponentialQuantile", {**common, "base": "3/2", "values": values}, 3
        yield "BinarySearchQuantile", {**common, "epsilon": "1", "values": values}, 2


def later_cases() -> Iterator[VectorCase]:
    """The fixed-weight exponential and the Gaussian binary-search quantiles (PLAN's), appended
    after the vector sums so that earlier vectors keep their places."""
    grids = (
        ("0", "10", "1", "1/2", 5, 0, 10),
        ("-2", "2", "1/2", "1/4", 8, -2, 2),
        ("-1000", "1000", "1", "1/2", 60, -50, 80),
        ("0", "40", "1", "9/10", 30, 0, 40),
    )
    for lower, upper, step, quantile, n, low, high in grids:
        raw = _values(f"later/{lower}/{upper}/{n}", n, low, high)
        values = [_signed(exact_fraction(v, "v") * exact_fraction(step, "step")) for v in raw]
        common = {"lower": lower, "upper": upper, "step": step, "quantile": quantile}
        yield "ExponentialQuantileFixed", {**common, "base": "3/2", "values": values}, 2
        yield "ExponentialQuantileFixed", {**common, "base": "1001/1000", "values": values}, 2
        yield "GaussianBinarySearchQuantile", {**common, "rho": "2", "values": values}, 2
        yield "GaussianBinarySearchQuantile", {**common, "rho": "1/50", "values": values}, 2


def spec_cases() -> Iterator[VectorCase]:
    """Issue 40: a base so large that ``K = 1`` and ``m >= K``, so the candidates start
    with SPEC.md 2d's step 1 (the block ``(0, P, K)`` below the first data value kept),
    for both weightings."""
    common = {"lower": "0", "upper": "10", "step": "1", "quantile": "1/2"}
    values = ["3", "4", "5", "6", "7"]
    base = decimal(2**70)
    yield "ExponentialQuantile", {**common, "base": base, "values": values}, 2
    yield "ExponentialQuantileFixed", {**common, "base": base, "values": values}, 2


def convolved_cases() -> Iterator[VectorCase]:
    """Issue 41: the Gaussian binary search with ConvolvedGaussian counts (``noise_law``)."""
    for lower, upper, step, quantile, n, low, high in (
        ("-2", "2", "1/2", "1/4", 8, -2, 2),
        ("-1000", "1000", "1", "1/2", 60, -50, 80),
    ):
        raw = _values(f"later/{lower}/{upper}/{n}", n, low, high)
        values = [_signed(exact_fraction(v, "v") * exact_fraction(step, "step")) for v in raw]
        common = {"lower": lower, "upper": upper, "step": step, "quantile": quantile}
        for rho in ("2", "1/50"):
            params = {**common, "rho": rho, "values": values, "noise_law": "convolved"}
            yield "GaussianBinarySearchQuantile", params, 2
