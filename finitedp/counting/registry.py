"""The counting samplers by name, as the tools see them, and their JSON descriptions.

Paper: BV Alg 4.8 / Thm 4.7 (GeoSample), Alg 4.11 / Thm 4.10 (FastSample).

A counting sampler with budget ``eps`` is ``(eps/2, 0)``-DP for one count:
neighbouring counts ``c`` and ``c + 1`` (BV's histograms replace one row, which
moves two counts).  ``finitedp audit geo|fast``, ``--counter geo|fast`` and
the ``"counting"`` reference vectors come from :data:`COUNTERS`.

>>> COUNTERS["geo"].build(4, 1, None, "paper", None).d
135
>>> sampler_derived(sampler_from_spec(sampler_spec("geo", 1, "1")))
{'a': '2', 'b': '3', 'k': '1', 'd': '5'}
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import ParameterError
from ..jsonvalues import decimal, parse_rational, parse_uint
from ..ratio import DEFAULT_SLACK
from .base import CountingSampler
from .fastsample import FastSample
from .geosample import GeoSample

__all__ = [
    "COUNTERS",
    "CounterEntry",
    "build_counter",
    "sampler_derived",
    "sampler_from_spec",
    "sampler_only",
    "sampler_spec",
    "user_derived",
    "with_sampler",
]

JSON = dict[str, Any]


@dataclass(frozen=True)
class CounterEntry:
    """A counting sampler, as every tool sees it.

    Attributes:
        name: the command-line name (``geo``, ``fast``).
        cls_name: the class name (the ``"sampler"`` field of counting vectors).
        summary: one line for ``--help``.
        paper: the algorithm and theorem.
        takes_gamma: whether it has a mixing weight ``gamma``.
        build: ``(n, epsilon, gamma, noise, slack)`` -> the sampler (``slack`` None: default).
        vector_configs: ``(noise, n, epsilon, gamma)`` of its reference vectors, in order.
    """

    name: str
    cls_name: str
    summary: str
    paper: str
    takes_gamma: bool
    build: Callable[[int, object, object, str, object], CountingSampler]
    vector_configs: tuple[tuple[str, int, str, str | None], ...]


def _geo(n: int, epsilon: object, gamma: object, noise: str, slack: object) -> CountingSampler:
    if gamma is not None:
        raise ParameterError("gamma: applies to the fast counter only")
    if slack is None:
        return GeoSample(n, epsilon, noise=noise)
    return GeoSample(n, epsilon, noise=noise, slack=slack)


def _fast(n: int, epsilon: object, gamma: object, noise: str, slack: object) -> CountingSampler:
    if gamma is None:
        raise ParameterError("gamma: the fast sampler needs it, e.g. gamma = 1/8")
    if slack is None:
        return FastSample(n, epsilon, gamma, noise=noise)
    return FastSample(n, epsilon, gamma, noise=noise, slack=slack)


#: Command-line name -> entry.  The order is the order of the counting vectors.
COUNTERS: dict[str, CounterEntry] = {
    "geo": CounterEntry(
        "geo",
        "GeoSample",
        "GeoSample for every count (BV Thm 4.7)",
        "BV Alg 4.8, Thm 4.7",
        False,
        _geo,
        (
            ("paper", 1, "1", None),
            ("paper", 5, "1", None),
            ("paper", 6, "1/2", None),
            ("paper", 10, "1/3", None),
            ("paper", 16, "1/10", None),
            ("paper", 40, "1/4", None),
            ("tight", 1, "1", None),
            ("tight", 5, "1", None),
            ("tight", 8, "1/2", None),
            ("tight", 12, "3/7", None),
            ("tight", 30, "2", None),
        ),
    ),
    "fast": CounterEntry(
        "fast",
        "FastSample",
        "FastSample for every count (BV Thm 4.10)",
        "BV Alg 4.11, Thm 4.10",
        True,
        _fast,
        (
            ("paper", 1, "1", "1/2"),
            ("paper", 5, "1", "1/2"),
            ("paper", 10, "1/2", "1/10"),
            ("paper", 16, "1/3", "1/100"),
            ("paper", 300, "1/2", "1/20"),
            ("tight", 1, "1", "1/2"),
            ("tight", 6, "1", "1/2"),
            ("tight", 12, "2/3", "1/10"),
            ("tight", 40, "1/5", "1/100"),
            ("tight", 1000, "1", "1/1000"),
        ),
    ),
}


def build_counter(counter: str, n: int, epsilon: object, gamma: object) -> CountingSampler:
    """The paper-mode counter ``counter`` (``geo`` or ``fast``) for a paper-layer audit.

    Raises:
        ParameterError: an unknown counter, or ``gamma`` missing for ``fast`` or
            given for ``geo``.
    """
    if counter not in COUNTERS:
        raise ParameterError(
            f"counter: got {counter!r}; use one of {', '.join(COUNTERS)} "
            f"({', '.join(e.cls_name for e in COUNTERS.values())})"
        )
    if COUNTERS[counter].takes_gamma and gamma is None:
        raise ParameterError(
            "gamma: the paper layer with the fast counter needs FastSample's gamma = 1/g, "
            "e.g. gamma = 1/8 (or use counter geo)"
        )
    return COUNTERS[counter].build(n, epsilon, gamma, "paper", None)


# -- the JSON description of a sampler (reference vectors) ---------------------------


@functools.lru_cache(maxsize=256)
def _sampler_cached(key: str) -> CountingSampler:
    spec = json.loads(key)
    kind, noise = spec["kind"], spec["noise"]
    n, eps = parse_uint(spec["n"], "n"), parse_rational(spec["epsilon"], "epsilon")
    if noise == "paper" and "slack" in spec:
        raise ValueError("sampler.slack: only tight noise has a slack")
    slack = parse_rational(spec["slack"], "slack") if "slack" in spec else DEFAULT_SLACK
    if kind not in COUNTERS:
        raise ValueError(f"sampler.kind: got {kind!r}; expected one of {', '.join(COUNTERS)}")
    entry = COUNTERS[kind]
    if not entry.takes_gamma and "gamma" in spec:
        raise ValueError(f"sampler.gamma: {entry.cls_name} has no gamma")
    gamma = parse_rational(spec["gamma"], "gamma") if entry.takes_gamma else None
    return entry.build(n, eps, gamma, noise, slack)


def sampler_from_spec(spec: Mapping[str, Any]) -> CountingSampler:
    """Build (once) the counting sampler a vector's ``"sampler"`` object describes.

    Raises:
        ValueError: a malformed description.
    """
    return _sampler_cached(json.dumps(spec, sort_keys=True))


def sampler_spec(
    kind: str, n: int, epsilon: str, gamma: str | None = None, noise: str = "paper"
) -> JSON:
    """A vector's ``"sampler"`` object, in the key order the vectors use."""
    spec: JSON = {"kind": kind, "noise": noise, "n": decimal(n), "epsilon": epsilon}
    if gamma is not None:
        spec["gamma"] = gamma
    if noise == "tight":
        spec["slack"] = str(DEFAULT_SLACK)
    return spec


def sampler_derived(sampler: CountingSampler) -> JSON:
    """What a sampler's parameters determine: ratio ``a/b``, ``k``, ``t``, ``d'``, ``d``.

    Tight ratios come from a search (``finitedp.ratio``) that other implementations
    need not reproduce: they may take ``a`` and ``b`` from here.
    """
    ratio = sampler.noise
    out: JSON = {"a": decimal(ratio.a), "b": decimal(ratio.b)}
    if ratio.k is not None:
        out["k"] = decimal(ratio.k)
    if isinstance(sampler, FastSample):
        out["t"] = decimal(sampler.t)
        out["d_prime"] = decimal(sampler.d_prime)
    out["d"] = decimal(sampler.d)
    return out


def user_derived(sampler: CountingSampler, first: JSON, then: JSON) -> JSON:
    """A user-level mechanism's ``derived``: sampler, ``first``, gamma (FastSample), ``then``."""
    out: JSON = {"sampler": sampler_derived(sampler), **first}
    if isinstance(sampler, FastSample):
        out["gamma"] = str(sampler.gamma)
    return {**out, **then}


def with_sampler(derived: JSON, params: Mapping[str, Any]) -> JSON:
    """``derived`` preceded by the derived values of ``params["sampler"]``."""
    return {"sampler": sampler_derived(sampler_from_spec(params["sampler"])), **derived}


def sampler_only(params: Mapping[str, Any]) -> JSON:
    """The ``derived`` of a paper-layer vector whose only derived values are its sampler's."""
    return with_sampler({}, params)
