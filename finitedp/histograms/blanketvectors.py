"""Reference vectors of BlanketHistogram and of its chain (appended after every older source).

Paper: BV Alg 5.1, Thm 5.2 (thresholded); the blanket: ``proofs_notes/blanket_histogram.md``
and SPEC.md ("BlanketHistogram").
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator, Mapping
from typing import Any

from ..counting.registry import user_derived
from ..entries import JSON, VectorCase, VectorKind, cache_key, no_dataset, rows_of
from ..jsonvalues import decimal, parse_rational, parse_uint
from ..oracle import RandomSource
from .blanket import BlanketHistogram
from .blanketchain import BlanketChain
from .vectorcases import histogram_json

__all__ = ["BLANKET", "PRIMITIVES", "cases"]


@functools.lru_cache(maxsize=16)
def _blanket(key: str) -> BlanketHistogram:
    p = json.loads(key)
    return BlanketHistogram(
        parse_uint(p["n"], "n"),
        parse_uint(p["universe_size"], "universe_size"),
        parse_rational(p["epsilon"], "epsilon"),
        parse_rational(p["beta"], "beta"),
        counter=p["counter"],
        noise=p["noise"],
    )


def _chain_derived(chain: BlanketChain) -> JSON:
    return {"h": decimal(chain.h), "G": decimal(chain.g), "W": decimal(chain.w)}


def _blanket_derive(p: Mapping[str, Any]) -> JSON:
    mech = _blanket(cache_key(p))
    sampler = mech.sampler
    first = {
        "threshold": decimal(mech.threshold),
        "tail": decimal(sampler.d - sampler.cdf(0, mech.threshold)),
    }
    return user_derived(sampler, first, _chain_derived(mech.chain))


def _blanket_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    return histogram_json(_blanket(cache_key(p)).release(rows_of(data), rng))


def _chain(p: Mapping[str, Any]) -> BlanketChain:
    return BlanketChain(
        parse_uint(p["universe_size"], "universe_size"),
        parse_uint(p["tail"], "tail"),
        parse_uint(p["d"], "d"),
        parse_uint(p["last"], "last"),
        parse_uint(p["h"], "h"),
    )


def _chain_derive(p: Mapping[str, Any]) -> JSON:
    chain = _chain(p)
    thresholds = [decimal(a) for _, block in chain.blocks() for a in block]  # as sampled
    return {**_chain_derived(chain), "thresholds": thresholds}


def _chain_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    no_dataset(data)
    size = _chain(p).sample(rng)
    return None if size is None else decimal(size)


BLANKET = VectorKind("BlanketHistogram", "histogram", _blanket_derive, _blanket_run)
PRIMITIVES: tuple[VectorKind, ...] = (
    VectorKind("blanket_chain", "primitive", _chain_derive, _chain_run),
)


def _params(n: int, m: int, eps: str, beta: str, counter: str) -> JSON:
    return {
        "n": decimal(n),
        "universe_size": decimal(m),
        "epsilon": eps,
        "beta": beta,
        "counter": counter,
        "noise": "tight",
    }


def cases() -> Iterator[VectorCase]:
    """The chain alone (thresholds in ``derived``; a large blanket), then the mechanism."""
    yield "blanket_chain", {"universe_size": "9", "tail": "1", "d": "11", "last": "8", "h": "24"}, 4
    chain = {"universe_size": decimal(2**64), "tail": "3", "d": decimal(2**70), "last": "20"}
    yield "blanket_chain", {**chain, "h": "40"}, 2
    yield "BlanketHistogram", _params(2, 5, "4", "1/4", "geo"), 3
    yield "BlanketHistogram", _params(3, 1000, "8", "1/2", "geo"), 2
    yield "BlanketHistogram", _params(30, 2**64, "4", "1/10", "fast"), 2


def later_cases() -> Iterator[VectorCase]:
    """Issue 40: a chain whose size passes ``L`` (output ``null``); a blanket with
    ``|R| + |E| > n`` (n = 1: dataset pool1, run 2), and one with two sampled empty
    keys released (n = 6, dataset same, run 1), found by replaying the seeds."""
    yield (
        "blanket_chain",
        {"universe_size": "1000", "tail": "1", "d": "1002", "last": "0", "h": "24"},
        3,
    )
    yield "BlanketHistogram", _params(1, 3, "8", "1/2", "geo"), 3
    yield "BlanketHistogram", _params(6, 100, "4", "1/2", "geo"), 2
