"""Reference vectors of PLAN (``SPEC.md`` section 2f): small instances, every step replayable.

Paper: Lebeda thesis Alg 17, Listing 5.1, Section 5.7.1; proofs_notes/plan.md.
A vector gives every parameter explicitly (the shares, rounds, ``K``, the radii's
grid, ``k``), the rows as a flat row-major list of signed values, and in
``derived`` what the parameters fix: the exponential quantiles' bases (finitedp
picks them from the shares; they change only the privacy statement, which vectors
do not test), the noise's ``sigma^2``, radius and ``W``.  The output is the
release's public values: the first centre, the scales, each round's radius and
the estimates.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from fractions import Fraction
from typing import Any, Literal, cast

from ..entries import JSON, VectorCase, VectorKind
from ..jsonvalues import decimal, parse_uint, rational
from ..oracle import RandomSource, SeededSource
from ..params import exact_fraction
from ..selection.quantile import BinarySearchQuantile, ExponentialQuantile
from .plan import PLAN

__all__ = ["PRIMITIVES", "cases"]


def _plan(p: Mapping[str, Any]) -> PLAN:
    variance: Any = p["variance"]
    if variance == "public":
        variance = [exact_fraction(v, "variances") for v in p["variances"]]
    return PLAN(
        exact_fraction(p["lower"], "lower"),
        exact_fraction(p["upper"], "upper"),
        d=parse_uint(p["d"], "d"),
        n=len(p["rows"]) // parse_uint(p["d"], "d"),
        rho=exact_fraction(p["rho"], "rho"),
        step=exact_fraction(p["step"], "step"),
        p=parse_uint(p["p"], "p"),
        variance=variance,
        selection=cast(Literal["exponential", "binary", "gaussian"], p["selection"]),
        centre=cast(Literal["median", "lower"], p["centre"]),
        shares=[exact_fraction(s, "shares") for s in p["shares"]],
        rounds=parse_uint(p["rounds"], "rounds"),
        units=parse_uint(p["units"], "units"),
        clip_ratio=exact_fraction(p["clip_ratio"], "clip_ratio"),
        clip_count=parse_uint(p["clip_count"], "clip_count"),
        clipped=parse_uint(p["clipped"], "clipped"),
        noise_law=p.get("noise_law", "table"),  # absent: made before issue 41
    )


def _derive(p: Mapping[str, Any]) -> JSON:
    plan = _plan(p)
    out: JSON = {}
    selectors = {"centre": plan.centre, "spread": plan.spread, "radius": plan.radius}
    for name, selector in selectors.items():
        if isinstance(selector, ExponentialQuantile):
            out[f"{name}_base"] = rational(selector.mechanism.base)
        elif isinstance(selector, BinarySearchQuantile):  # BV counts: the tight ratio b/a
            out[f"{name}_a"] = decimal(selector.sampler.noise.a)
            out[f"{name}_b"] = decimal(selector.sampler.noise.b)
    sigma2 = plan.noise.sigma2
    assert sigma2 is not None
    out.update(
        {
            "gap_levels": decimal(len(plan.gap_levels)),
            "sigma2": rational(sigma2),
            "noise_radius": decimal(plan.noise.radius),
            "W": decimal(plan.noise.d),
        }
    )
    return out


def _run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    plan = _plan(p)
    values = [exact_fraction(v, "rows") for v in p["rows"]]
    rows = [values[j * plan.d : (j + 1) * plan.d] for j in range(plan.n)]
    release = plan.release(rows, rng)
    radii = [r.radius for r in release.rounds] or [release.radius]
    return {
        "centre": [rational(c) for c in release.centre],
        "scales": [decimal(s) for s in release.scales],
        "radii": [decimal(r) for r in radii],
        "estimates": [rational(e) for e in release.estimates],
    }


PRIMITIVES = (VectorKind("PLAN", "primitive", _derive, _run),)


def _rows(tag: str, n: int, means: list[int], spreads: list[int], upper: int) -> list[str]:
    """Gaussian-like rows on the grid of 1/2 (integers from a seeded source, then halved)."""
    rng = SeededSource(f"finitedp/vectors/plan/{tag}".encode())
    out = []
    for _ in range(n):
        for mean, spread in zip(means, spreads, strict=True):
            # a sum of four uniform draws in [-spread, spread] (a bell, exactly on the grid)
            offset = sum(rng.uniform(2 * spread + 1) - 1 - spread for _ in range(4))
            index = min(max(2 * mean + offset, -2 * upper), 2 * upper)
            out.append(rational(Fraction(index, 2)))
    return out


def _binary_rows(tag: str, n: int, rates: list[Fraction]) -> list[str]:
    rng = SeededSource(f"finitedp/vectors/plan/{tag}".encode())
    return [
        "1" if rng.uniform(r.denominator) <= r.numerator else "0" for _ in range(n) for r in rates
    ]


def cases() -> Iterator[VectorCase]:
    """PLAN's configurations, in file order (appended after every earlier kind)."""
    common = {"units": "2", "clip_ratio": "2", "clip_count": "12"}
    listing = ["1/16", "3/16", "3/16", "9/16"]
    for tag, n, means, spreads, selection, rounds, rho in (
        ("a", 8, [1, -2], [2, 6], "exponential", 1, "4"),
        ("b", 10, [0, 3, -1], [1, 3, 8], "exponential", 2, "32"),
        ("c", 8, [2, 0], [4, 1], "gaussian", 1, "32"),
        ("d", 12, [-3, 1], [3, 3], "binary", 3, "4"),
    ):
        upper = 8
        params = {
            "lower": f"-{upper}",
            "upper": str(upper),
            "step": "1/2",
            "d": decimal(len(means)),
            "rho": rho,
            "p": "2",
            "variance": "gaussian",
            "selection": selection,
            "centre": "median",
            "shares": listing,
            "rounds": decimal(rounds),
            **common,
            "clipped": "2",
            "rows": _rows(tag, n, means, spreads, upper),
        }
        yield "PLAN", params, 2
    public = {
        "lower": "-4",
        "upper": "4",
        "step": "1/2",
        "d": "2",
        "rho": "2",
        "p": "1",
        "variance": "public",
        "variances": ["1", "9/4"],
        "selection": "exponential",
        "centre": "lower",
        "shares": ["0", "0", "1/8", "7/8"],
        "rounds": "2",
        **common,
        "clipped": "1",
        "rows": _rows("public", 6, [0, 1], [1, 2], 4),
    }
    yield "PLAN", public, 2
    rates = [Fraction(1, 2), Fraction(1, 10), Fraction(3, 4)]
    binary = {
        "lower": "0",
        "upper": "1",
        "step": "1",
        "d": "3",
        "rho": "2",
        "p": "1",
        "variance": "binary",
        "selection": "exponential",
        "centre": "lower",
        "shares": ["0", "1/8", "1/16", "13/16"],
        "rounds": "1",
        **common,
        "clipped": "2",
        "rows": _binary_rows("binary", 12, rates),
    }
    yield "PLAN", binary, 2


def convolved_cases() -> Iterator[VectorCase]:
    """Issue 41: PLAN with ConvolvedGaussian (``noise_law``) in its noise, its Gaussian
    searches and its binary spread."""
    common = {"units": "2", "clip_ratio": "2", "clip_count": "12"}
    listing = ["1/16", "3/16", "3/16", "9/16"]
    for tag, n, means, spreads, selection, rounds, rho in (
        ("a", 8, [1, -2], [2, 6], "exponential", 1, "4"),
        ("c", 8, [2, 0], [4, 1], "gaussian", 2, "32"),
    ):
        params = {
            "lower": "-8",
            "upper": "8",
            "step": "1/2",
            "d": decimal(len(means)),
            "rho": rho,
            "p": "2",
            "variance": "gaussian",
            "selection": selection,
            "centre": "median",
            "shares": listing,
            "rounds": decimal(rounds),
            **common,
            "clipped": "2",
            "rows": _rows(tag, n, means, spreads, 8),
            "noise_law": "convolved",
        }
        yield "PLAN", params, 2
    rates = [Fraction(1, 2), Fraction(1, 10), Fraction(3, 4)]
    binary = {
        "lower": "0",
        "upper": "1",
        "step": "1",
        "d": "3",
        "rho": "2",
        "p": "1",
        "variance": "binary",
        "selection": "exponential",
        "centre": "lower",
        "shares": ["0", "1/8", "1/16", "13/16"],
        "rounds": "1",
        **common,
        "clipped": "2",
        "rows": _binary_rows("binary", 12, rates),
        "noise_law": "convolved",
    }
    yield "PLAN", binary, 2
