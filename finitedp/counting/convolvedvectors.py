"""Reference vectors of ConvolvedGaussian (replayable from ``SPEC.md`` section 2d).

Paper: CKS20 Def 1 (the ideal law); proofs_notes/convolved_gaussian.md (the law
sampled).  A vector gives ``sigma^2`` and ``count``; ``derived`` the public
construction a replayer checks its own against (levels, ``sigma_B^2``, each
table's ``X``, ``R`` and centre weight, the draw's bits ``K``); the output is
``count`` samples from ``count`` draws ``uniform(2^K)``.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from typing import Any

from ..entries import JSON, VectorCase, VectorKind
from ..jsonvalues import decimal, parse_uint, rational
from ..oracle import RandomSource
from ..params import exact_fraction
from .convolved import ConvolvedGaussian
from .convolvedtables import DEFAULT_DESIGN, normal_table

__all__ = ["PRIMITIVES", "cases"]


@functools.lru_cache(maxsize=32)
def _law(sigma2: str) -> ConvolvedGaussian:
    return ConvolvedGaussian.from_variance(exact_fraction(sigma2, "sigma2"))


def _derive(p: Mapping[str, Any]) -> JSON:
    law = _law(p["sigma2"])
    top = normal_table(law.top_sigma2, DEFAULT_DESIGN.top_bits)
    out: dict[str, Any] = {
        "levels": decimal(law.levels),
        "top_sigma2": rational(law.top_sigma2),
        "X_B": decimal(top.scale),
        "R_B": decimal(top.radius),
        "w0_B": decimal(top.weights[0]),
        "K": decimal(law.d.bit_length() - 1),
    }
    if law.levels:
        base = normal_table(DEFAULT_DESIGN.base_sigma2, DEFAULT_DESIGN.base_bits)
        out |= {
            "X_J": decimal(base.scale),
            "R_J": decimal(base.radius),
            "w0_J": decimal(base.weights[0]),
        }
    return out


def _run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    return [decimal(z) for z in _law(p["sigma2"]).sample_many(parse_uint(p["count"], "count"), rng)]


PRIMITIVES = (VectorKind("ConvolvedGaussian", "primitive", _derive, _run),)


def cases() -> Iterator[VectorCase]:
    """ConvolvedGaussian's configurations, in file order: every sigma of issue 41 and the
    ends (sigma^2 = 1/2: the centre below X; 2^64: seven levels), one batch of 64
    (the numpy path) among them."""
    for sigma2, count in (
        ("1/2", 16),
        ("100", 64),
        ("1000000", 16),
        ("268435456", 16),  # sigma = 2^14
        ("1000000000000", 16),  # 10^6
        ("1152921504606846976", 16),  # 2^30
        ("18446744073709551616", 16),  # 2^32
        ("1000001/3", 16),
    ):
        yield "ConvolvedGaussian", {"sigma2": sigma2, "count": decimal(count)}, 2


def later_cases() -> Iterator[VectorCase]:
    """The level boundary (issue 54 item 6): ``(t - 2304)/256 >= 144`` adds a level, so
    ``sigma^2 = 2304 + 144 * 256 = 39168`` has one level and ``39167`` none; a replayer
    reading ``>`` for ``>=`` fails the first."""
    for sigma2 in ("39167", "39168"):
        yield "ConvolvedGaussian", {"sigma2": sigma2, "count": decimal(16)}, 2
