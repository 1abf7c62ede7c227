"""Reference test vectors: known answers that another implementation must reproduce.

Paper: BV Section 2.4 (every mechanism is a deterministic function of its input
and of the oracle answers ``u`` in ``[d]_+``), Defs 4.1-4.3 (counting samplers),
Algs 5.1, 5.4, 6.1, 6.4, 6.7, 6.9, 6.16-6.21, 8.2, 8.5, A.3.

A vector file is JSON Lines: one JSON object (a *vector*) per line, each
validated by the JSON Schema ``finitedp/schemas/vectors.schema.json``.  Three
kinds of vectors:

* ``"counting"``: a counting sampler (GeoSample or FastSample, paper or tight
  noise), its parameters, a true count ``c``, a draw ``u`` and the output
  ``z = min{z : F(z) >= u}``, with ``F(z - 1)`` and ``F(z)`` so that the bracket
  ``F(z - 1) < u <= F(z)`` can be checked.  Edge cases (``u = 1``, ``u = d``,
  ``u = F(z)`` and ``F(z) + 1``, ``c = 0`` and ``c = n``) and random draws.
* ``"histogram"``: a histogram mechanism (user-level or paper-layer), its
  parameters, a dataset, the *tape* of ``(d, u)`` oracle answers recorded with
  :class:`~finitedp.oracle.RecordingSource` over a
  :class:`~finitedp.oracle.SeededSource`, and the output's JSON form.
* ``"primitive"``: a sampling step with no dataset (DistinctSample,
  ApproxBinSample, OrdSample, ...), its parameters, its tape and its output.

``SPEC.md`` ("Oracle call order and reference test vectors") states, for every
mechanism, the order of oracle calls and how the output is formed, so that a
tape can be replayed elsewhere.

Numbers.  Every integer that is a value of the mathematics (``d``, ``u``, CDF
values, counts, bins, rows, universe sizes, parameters) is written as a decimal
string, because many JSON parsers lose precision above ``2^53``; rationals are
strings ``"p/q"`` in lowest terms (``"1"`` for an integer).  The only JSON
number in a vector is the schema version ``"finitedp": 1``.

Determinism.  :func:`generate` takes all its randomness from ``SeededSource``
streams with fixed seeds (the seed of a tape is the UTF-8 of the vector's id),
so the file it writes is identical byte for byte on every run.  Seeded sources
are not for production (see ``SPEC.md``); they are what makes vectors possible.

>>> vector = next(v for v in generate() if v["kind"] == "histogram")
>>> verify_vector(vector) is None
True
"""

from __future__ import annotations

import functools
import importlib
import importlib.resources
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, NamedTuple

from .counting.base import CountingSampler
from .counting.fastsample import FastSample
from .counting.geosample import GeoSample
from .histograms.approx import approx_bin_sample, approx_ord_sample
from .histograms.basic import basic_histogram
from .histograms.binomial import exact_bin_sample
from .histograms.distinct import distinct_sample
from .histograms.keepheavy import keep_heavy, kh_prime, ord_sample
from .histograms.mechanisms import BoundedGeometricHistogram, StabilityHistogram
from .histograms.release import PartialHistogram
from .histograms.sparse import (
    PureSparseHistogram,
    pure_sparse_delta,
    pure_sparse_fallback,
    pure_sparse_histogram,
    sparse_histogram,
    sparse_precision,
)
from .histograms.stability import stability_histogram
from .oracle import RandomSource, RecordingSource, ReplaySource, SeededSource
from .ratio import DEFAULT_SLACK

try:  # CompactHistogram (BV Section 8) is optional: vectors cover it when it is present.
    from .compact.histogram import (
        CompactHistogram,
        CompactRelease,
        EmptyBinSampler,
        compact_histogram,
    )

    COMPACT_AVAILABLE = True
except ImportError:  # pragma: no cover - only while compact.py is unfinished
    COMPACT_AVAILABLE = False

__all__ = [
    "COMPACT_AVAILABLE",
    "MECHANISMS",
    "SCHEMA_VERSION",
    "Mechanism",
    "VerifyResult",
    "dumps_vector",
    "generate",
    "generate_to",
    "load_schema",
    "random_vectors",
    "schema_errors",
    "verify",
    "verify_file",
    "verify_vector",
    "write_jsonl",
]

#: The value of the ``"finitedp"`` field of every vector: the layout version.
SCHEMA_VERSION = 1

_UINT = re.compile(r"(0|[1-9][0-9]*)")
_RATIONAL = re.compile(r"(0|[1-9][0-9]*)(/[1-9][0-9]*)?")

JSON = dict[str, Any]


# -- exact encodings ------------------------------------------------------------------


def _s(value: int) -> str:
    """An integer as the decimal string every vector uses."""
    return str(int(value))


def _int(value: object, name: str) -> int:
    """Parse a decimal string written by :func:`_s` (no sign, no leading zeros)."""
    if not isinstance(value, str) or not _UINT.fullmatch(value):
        raise ValueError(f"{name}: got {value!r}; expected a decimal string")
    return int(value)


def _frac(value: object, name: str) -> Fraction:
    """Parse ``"p/q"`` (or ``"p"``) in lowest terms."""
    if not isinstance(value, str) or not _RATIONAL.fullmatch(value):
        raise ValueError(f"{name}: got {value!r}; expected a rational string p/q")
    q = Fraction(value)
    if str(q) != value:
        raise ValueError(f"{name}: got {value!r}; write the rational in lowest terms ({q})")
    return q


def _ints(values: object, name: str) -> list[int]:
    if not isinstance(values, list):
        raise ValueError(f"{name}: expected a list of decimal strings")
    return [_int(v, f"{name}[{i}]") for i, v in enumerate(values)]


def _histogram_json(release: PartialHistogram) -> JSON:
    """A :class:`PartialHistogram` with its integers as decimal strings."""
    return {
        "type": "partial_histogram",
        "universe_size": _s(release.universe_size),
        "bins": [[_s(x), _s(c)] for x, c in release.bins],
    }


def _tape_json(tape: Iterable[tuple[int, int]]) -> list[list[str]]:
    return [[_s(d), _s(u)] for d, u in tape]


def _tape(value: object) -> list[tuple[int, int]]:
    if not isinstance(value, list):
        raise ValueError("tape: expected a list of [d, u] pairs")
    out = []
    for i, pair in enumerate(value):
        if not isinstance(pair, list) or len(pair) != 2:
            raise ValueError(f"tape[{i}]: expected a pair [d, u]")
        out.append((_int(pair[0], f"tape[{i}].d"), _int(pair[1], f"tape[{i}].u")))
    return out


def dumps_vector(vector: Mapping[str, Any]) -> str:
    """One vector as its JSON Lines line (compact separators, ASCII, no newline).

    The key order is the order of the mapping, so equal vectors built the same
    way give equal bytes.

    Args:
        vector: a vector (JSON-ready: strings, lists, dicts, booleans, the version int).

    Returns:
        The line, without its ``\n``.
    """
    return json.dumps(vector, separators=(",", ":"), ensure_ascii=True)


# -- counting samplers ------------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def _sampler_cached(key: str) -> CountingSampler:
    spec = json.loads(key)
    kind, noise = spec["kind"], spec["noise"]
    n, eps = _int(spec["n"], "n"), _frac(spec["epsilon"], "epsilon")
    slack = _frac(spec["slack"], "slack") if "slack" in spec else DEFAULT_SLACK
    if noise == "paper" and "slack" in spec:
        raise ValueError("sampler.slack: only tight noise has a slack")
    if kind == "geo":
        if "gamma" in spec:
            raise ValueError("sampler.gamma: GeoSample has no gamma")
        return GeoSample(n, eps, noise=noise, slack=slack)
    if kind == "fast":
        return FastSample(n, eps, _frac(spec["gamma"], "gamma"), noise=noise, slack=slack)
    raise ValueError(f'sampler.kind: got {kind!r}; expected "geo" or "fast"')


def _sampler(spec: Mapping[str, Any]) -> CountingSampler:
    """Build (once) the counting sampler a ``"sampler"`` object describes."""
    return _sampler_cached(json.dumps(spec, sort_keys=True))


def _sampler_spec(
    kind: str, n: int, epsilon: str, gamma: str | None = None, noise: str = "paper"
) -> JSON:
    spec: JSON = {"kind": kind, "noise": noise, "n": _s(n), "epsilon": epsilon}
    if gamma is not None:
        spec["gamma"] = gamma
    if noise == "tight":
        spec["slack"] = str(DEFAULT_SLACK)
    return spec


def _sampler_derived(sampler: CountingSampler) -> JSON:
    """What a sampler's parameters determine: ratio ``a/b``, ``k``, ``t``, ``d'``, ``d``.

    Tight ratios come from a search (``finitedp.ratio``) that other implementations
    need not reproduce: they may take ``a`` and ``b`` from here.
    """
    ratio = sampler.noise
    out: JSON = {"a": _s(ratio.a), "b": _s(ratio.b)}
    if ratio.k is not None:
        out["k"] = _s(ratio.k)
    if isinstance(sampler, FastSample):
        out["t"] = _s(sampler.t)
        out["d_prime"] = _s(sampler.d_prime)
    out["d"] = _s(sampler.d)
    return out


_SAMPLER_NAMES = {"geo": "GeoSample", "fast": "FastSample"}


def _counting_vector(
    vector_id: str, spec: Mapping[str, Any], sampler: CountingSampler, c: int, u: int
) -> JSON:
    z = sampler(c, u)
    params = {k: v for k, v in spec.items() if k != "kind"}
    return {
        "id": vector_id,
        "kind": "counting",
        "finitedp": SCHEMA_VERSION,
        "sampler": _SAMPLER_NAMES[spec["kind"]],
        "params": params,
        "derived": _sampler_derived(sampler),
        "c": _s(c),
        "u": _s(u),
        "output": _s(z),
        "F_below": _s(sampler.cdf(c, z - 1)),
        "F_at": _s(sampler.cdf(c, z)),
    }


def _verify_counting(vector: Mapping[str, Any]) -> None:
    kinds = {name: kind for kind, name in _SAMPLER_NAMES.items()}
    spec = {"kind": kinds[vector["sampler"]], **vector["params"]}
    sampler = _sampler(spec)
    _expect("derived", vector["derived"], _sampler_derived(sampler))
    c, u = _int(vector["c"], "c"), _int(vector["u"], "u")
    z = sampler(c, u)
    _expect("output", vector["output"], _s(z))
    below, at = sampler.cdf(c, z - 1), sampler.cdf(c, z)
    _expect("F_below", vector["F_below"], _s(below))
    _expect("F_at", vector["F_at"], _s(at))
    if not below < u <= at:  # the definition of inverse-CDF sampling (Lemma 2.13)
        raise ValueError(f"F(z - 1) < u <= F(z) fails for z = {z}")
    # BV's literal binary search (Alg 4.8 step 3) and one replayed oracle call agree.
    _expect("output (BV binary search)", vector["output"], _s(sampler.bisect_reference(c, u)))
    replay = ReplaySource([(sampler.d, u)])
    _expect("output (sample with a replayed draw)", vector["output"], _s(sampler.sample(c, replay)))
    replay.assert_exhausted()


# -- mechanisms: how each is built from its parameters, derived values, and run ------


class Mechanism(NamedTuple):
    """How vectors of one mechanism are made and replayed.

    Attributes:
        kind: ``"histogram"`` (takes a dataset) or ``"primitive"`` (does not).
        derive: the values the parameters determine (``d``, ``s``, thresholds...).
        run: ``run(params, dataset, rng)`` -> the output's JSON form.
    """

    kind: str
    derive: Callable[[Mapping[str, Any]], JSON]
    run: Callable[[Mapping[str, Any], tuple[int, ...] | None, RandomSource], Any]


def _rows(dataset: tuple[int, ...] | None) -> tuple[int, ...]:
    if dataset is None:
        raise ValueError("dataset: this mechanism needs one")
    return dataset


def _key(params: Mapping[str, Any]) -> str:
    return json.dumps(params, sort_keys=True)


def _with_sampler(derived: JSON, params: Mapping[str, Any]) -> JSON:
    return {"sampler": _sampler_derived(_sampler(params["sampler"])), **derived}


# BoundedGeometricHistogram (Alg 5.1 over X, Thm 5.3 / Fig 3).


@functools.lru_cache(maxsize=64)
def _bgh(key: str) -> BoundedGeometricHistogram:
    p = json.loads(key)
    return BoundedGeometricHistogram(
        _int(p["n"], "n"),
        _int(p["universe_size"], "universe_size"),
        _frac(p["epsilon"], "epsilon"),
        _frac(p["beta0"], "beta0") if "beta0" in p else None,
        counter=p["counter"],
    )


def _user_derived(sampler: CountingSampler, first: JSON, then: JSON) -> JSON:
    """A user-level mechanism's ``derived``: sampler, ``first``, gamma (FastSample), ``then``."""
    out: JSON = {"sampler": _sampler_derived(sampler), **first}
    if isinstance(sampler, FastSample):
        out["gamma"] = str(sampler.gamma)
    return {**out, **then}


def _bgh_derive(p: Mapping[str, Any]) -> JSON:
    return _user_derived(_bgh(_key(p)).sampler, {}, {})


def _bgh_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    return _histogram_json(_bgh(_key(p)).release(_rows(data), rng))


# StabilityHistogram (Alg 5.4, Thm 5.6 / Fig 4).


@functools.lru_cache(maxsize=64)
def _sh(key: str) -> StabilityHistogram:
    p = json.loads(key)
    return StabilityHistogram(
        _int(p["n"], "n"),
        _int(p["universe_size"], "universe_size"),
        _frac(p["epsilon"], "epsilon"),
        _frac(p["delta"], "delta"),
        _frac(p["beta0"], "beta0") if "beta0" in p else None,
        counter=p["counter"],
        pad=p["pad"],
    )


def _sh_derive(p: Mapping[str, Any]) -> JSON:
    mech = _sh(_key(p))
    return _user_derived(mech.sampler, {"threshold": _s(mech.threshold)}, {})


def _sh_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    return _histogram_json(_sh(_key(p)).release(_rows(data), rng))


# PureSparseHistogram (Alg 6.9, Thm 6.11 / Fig 5).


@functools.lru_cache(maxsize=64)
def _psh(key: str) -> PureSparseHistogram:
    p = json.loads(key)
    return PureSparseHistogram(
        _int(p["n"], "n"),
        _int(p["universe_size"], "universe_size"),
        _frac(p["epsilon"], "epsilon"),
        _frac(p["beta"], "beta"),
        counter=p["counter"],
        pad=p["pad"],
    )


def _psh_derive(p: Mapping[str, Any]) -> JSON:
    mech = _psh(_key(p))
    then = {"beta1": str(mech.beta1), "delta": str(mech.delta), "s": _s(mech.precision)}
    return _user_derived(mech.sampler, {}, then)


def _psh_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    return _histogram_json(_psh(_key(p)).release(_rows(data), rng))


# CompactHistogram (Alg 8.2, Thm 8.6 / Fig 6) and the paper-layer compact_histogram.


def _compact_json(release: CompactRelease, probes: Iterable[int]) -> JSON:
    """The polynomial (fixed-width hex, as ``CompactRelease.to_json``) and counts at probes."""
    document = release.to_json_dict()
    return {
        "type": "compact_histogram",
        "l": _s(document["l"]),
        "universe_size": _s(release.universe_size),
        "coefficients": document["coefficients"],
        "counts": [[_s(x), _s(release.count(x))] for x in probes],
    }


def _probes(data: tuple[int, ...], universe_size: int) -> list[int]:
    """Bins whose counts the vector lists: the occupied ones, ``1``, ``2`` and ``|X|``."""
    return sorted({*data, 1, min(2, universe_size), universe_size})


@functools.lru_cache(maxsize=64)
def _ch(key: str) -> CompactHistogram:
    p = json.loads(key)
    return CompactHistogram(
        _int(p["n"], "n"),
        _int(p["universe_size"], "universe_size"),
        _frac(p["epsilon"], "epsilon"),
        _frac(p["beta0"], "beta0") if "beta0" in p else None,
        counter=p["counter"],
    )


def _ch_derive(p: Mapping[str, Any]) -> JSON:
    mech = _ch(_key(p))
    return _user_derived(mech.sampler, {}, {"l": _s(mech.level), "d0": _s(mech.d0)})


def _ch_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    mech = _ch(_key(p))
    rows = _rows(data)
    release = mech.release(rows, rng, workers=1)
    return _compact_json(release, _probes(rows, mech.universe_size))


@functools.lru_cache(maxsize=64)
def _empty_bin(key: str) -> EmptyBinSampler:
    p = json.loads(key)
    return EmptyBinSampler(_sampler(p["sampler"]), 1 << (2 * 3 ** _int(p["l"], "l")))


def _compact_derive(p: Mapping[str, Any]) -> JSON:
    return _with_sampler({"d0": _s(_empty_bin(_key(p)).d0)}, p)


def _compact_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    empty = _empty_bin(_key(p))
    m, rows = _int(p["universe_size"], "universe_size"), _rows(data)
    release = compact_histogram(empty.sampler, empty, rows, m, rng, workers=1, method=p["method"])
    return _compact_json(release, _probes(rows, m))


# Paper-layer histogram functions (Sections 5 and 6).


def _no_derive(p: Mapping[str, Any]) -> JSON:
    return {}


def _sampler_only(p: Mapping[str, Any]) -> JSON:
    return _with_sampler({}, p)


def _basic_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    bins = _ints(p["bins"], "bins") if "bins" in p else None
    m = _int(p["universe_size"], "universe_size")
    return _histogram_json(basic_histogram(_sampler(p["sampler"]), _rows(data), m, bins, rng))


def _stability_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    release = stability_histogram(
        _sampler(p["sampler"]),
        _int(p["threshold"], "threshold"),
        _rows(data),
        _int(p["universe_size"], "universe_size"),
        rng,
        pad=p["pad"],
    )
    return _histogram_json(release)


def _keep_heavy_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    m = _int(p["universe_size"], "universe_size")
    return _histogram_json(keep_heavy(_sampler(p["sampler"]), _rows(data), m, rng))


def _kh_prime_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    m = _int(p["universe_size"], "universe_size")
    return _histogram_json(kh_prime(_sampler(p["sampler"]), _rows(data), m, rng, pad=p["pad"]))


def _sparse_derive(p: Mapping[str, Any]) -> JSON:
    sampler = _sampler(p["sampler"])
    m = _int(p["universe_size"], "universe_size")
    s = sparse_precision(sampler.n, m, _frac(p["delta"], "delta"))
    return _with_sampler({"s": _s(s)}, p)


def _sparse_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    release = sparse_histogram(
        _sampler(p["sampler"]),
        _frac(p["delta"], "delta"),
        _rows(data),
        _int(p["universe_size"], "universe_size"),
        rng,
        pad=p["pad"],
    )
    return _histogram_json(release)


def _pure_sparse_derive(p: Mapping[str, Any]) -> JSON:
    sampler = _sampler(p["sampler"])
    m = _int(p["universe_size"], "universe_size")
    eps, beta1 = _frac(p["epsilon"], "epsilon"), _frac(p["beta1"], "beta1")
    delta = pure_sparse_delta(eps, beta1, sampler.n, m)
    return _with_sampler({"delta": str(delta), "s": _s(sparse_precision(sampler.n, m, delta))}, p)


def _pure_sparse_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    release = pure_sparse_histogram(
        _sampler(p["sampler"]),
        _frac(p["epsilon"], "epsilon"),
        _frac(p["beta1"], "beta1"),
        _rows(data),
        _int(p["universe_size"], "universe_size"),
        rng,
        pad=p["pad"],
    )
    return _histogram_json(release)


# Primitives (no dataset).


def _no_data(data: tuple[int, ...] | None) -> None:
    if data is not None:
        raise ValueError("dataset: this primitive takes none")


def _distinct_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    _no_data(data)
    chosen = distinct_sample(
        _ints(p["excluded"], "excluded"),
        _int(p["universe_size"], "universe_size"),
        _int(p["r"], "r"),
        rng,
    )
    return [_s(x) for x in chosen]


def _approx_bin_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    _no_data(data)
    m, pp, q = _int(p["m"], "m"), _int(p["p"], "p"), _int(p["q"], "q")
    return _s(approx_bin_sample(m, pp, q, _int(p["s"], "s"), _int(p["t"], "t"), rng))


def _exact_bin_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    _no_data(data)
    m, pp, q = _int(p["m"], "m"), _int(p["p"], "p"), _int(p["q"], "q")
    return _s(exact_bin_sample(m, pp, q, _int(p["t"], "t"), rng))


def _cdf_function(p: Mapping[str, Any]) -> Callable[[int], int]:
    table = _ints(p["cdf"], "cdf")
    if len(table) != _int(p["n"], "n") + 1:
        raise ValueError("cdf: expected n + 1 values F(0), ..., F(n)")
    return table.__getitem__


def _approx_ord_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    _no_data(data)
    n, m, s = _int(p["n"], "n"), _int(p["m"], "m"), _int(p["s"], "s")
    return [_s(v) for v in approx_ord_sample(_cdf_function(p), n, m, s, rng)]


def _ord_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    _no_data(data)
    n, m = _int(p["n"], "n"), _int(p["m"], "m")
    return [_s(v) for v in ord_sample(_cdf_function(p), n, m, rng)]


def _fallback_run(p: Mapping[str, Any], data: tuple[int, ...] | None, rng: RandomSource) -> Any:
    _no_data(data)
    n, m = _int(p["n"], "n"), _int(p["universe_size"], "universe_size")
    return _histogram_json(pure_sparse_fallback(n, m, rng))


#: Every mechanism a vector may name, with how to derive, run and replay it.
MECHANISMS: dict[str, Mechanism] = {
    "BoundedGeometricHistogram": Mechanism("histogram", _bgh_derive, _bgh_run),
    "StabilityHistogram": Mechanism("histogram", _sh_derive, _sh_run),
    "PureSparseHistogram": Mechanism("histogram", _psh_derive, _psh_run),
    "basic_histogram": Mechanism("histogram", _sampler_only, _basic_run),
    "stability_histogram": Mechanism("histogram", _sampler_only, _stability_run),
    "keep_heavy": Mechanism("histogram", _sampler_only, _keep_heavy_run),
    "kh_prime": Mechanism("histogram", _sampler_only, _kh_prime_run),
    "sparse_histogram": Mechanism("histogram", _sparse_derive, _sparse_run),
    "pure_sparse_histogram": Mechanism("histogram", _pure_sparse_derive, _pure_sparse_run),
    "distinct_sample": Mechanism("primitive", _no_derive, _distinct_run),
    "approx_bin_sample": Mechanism("primitive", _no_derive, _approx_bin_run),
    "exact_bin_sample": Mechanism("primitive", _no_derive, _exact_bin_run),
    "approx_ord_sample": Mechanism("primitive", _no_derive, _approx_ord_run),
    "ord_sample": Mechanism("primitive", _no_derive, _ord_run),
    "pure_sparse_fallback": Mechanism("primitive", _no_derive, _fallback_run),
}
if COMPACT_AVAILABLE:
    MECHANISMS["CompactHistogram"] = Mechanism("histogram", _ch_derive, _ch_run)
    MECHANISMS["compact_histogram"] = Mechanism("histogram", _compact_derive, _compact_run)


def _recorded_vector(
    vector_id: str, mechanism: str, params: JSON, dataset: Sequence[int] | None
) -> JSON:
    """Run a mechanism on a recording of ``SeededSource(id)`` and build its vector."""
    mech = MECHANISMS[mechanism]
    seed = vector_id.encode()
    recorder = RecordingSource(SeededSource(seed))
    rows = None if dataset is None else tuple(dataset)
    output = mech.run(params, rows, recorder)
    vector: JSON = {
        "id": vector_id,
        "kind": mech.kind,
        "finitedp": SCHEMA_VERSION,
        "mechanism": mechanism,
        "params": params,
        "derived": mech.derive(params),
    }
    if rows is not None:
        vector["dataset"] = [_s(x) for x in rows]
    vector.update({"seed": seed.hex(), "tape": _tape_json(recorder.tape), "output": output})
    return vector


def _verify_recorded(vector: Mapping[str, Any]) -> None:
    name = vector["mechanism"]
    if name not in MECHANISMS:
        raise ValueError(f"mechanism: {name!r} is not known to this finitedp")
    mech = MECHANISMS[name]
    if vector["kind"] != mech.kind:
        raise ValueError(f"kind: {name} vectors have kind {mech.kind!r}")
    params = vector["params"]
    _expect("derived", vector["derived"], mech.derive(params))
    rows = None if "dataset" not in vector else tuple(_ints(vector["dataset"], "dataset"))
    tape = _tape(vector["tape"])
    replay = ReplaySource(tape)
    output = mech.run(params, rows, replay)
    replay.assert_exhausted()
    _expect("output", vector["output"], output)
    # The tape is what the seeded stream gives for these domains (SPEC.md, SeededSource).
    stream = SeededSource(bytes.fromhex(vector["seed"]))
    for i, (d, u) in enumerate(tape):
        if stream.uniform(d) != u:
            raise ValueError(f"tape[{i}]: u is not the seeded stream's draw for this d")


def _expect(name: str, recorded: object, computed: object) -> None:
    if recorded != computed:
        shown = json.dumps(computed)
        if len(shown) > 200:
            shown = shown[:200] + "..."
        raise ValueError(f"{name}: the vector does not match the recomputed value {shown}")


# -- generation ----------------------------------------------------------------------------


#: Counting configurations: (sampler kind, noise, n, epsilon, gamma).
_COUNTING_CONFIGS: tuple[tuple[str, str, int, str, str | None], ...] = (
    ("geo", "paper", 1, "1", None),
    ("geo", "paper", 5, "1", None),
    ("geo", "paper", 6, "1/2", None),
    ("geo", "paper", 10, "1/3", None),
    ("geo", "paper", 16, "1/10", None),
    ("geo", "paper", 40, "1/4", None),
    ("geo", "tight", 1, "1", None),
    ("geo", "tight", 5, "1", None),
    ("geo", "tight", 8, "1/2", None),
    ("geo", "tight", 12, "3/7", None),
    ("geo", "tight", 30, "2", None),
    ("fast", "paper", 1, "1", "1/2"),
    ("fast", "paper", 5, "1", "1/2"),
    ("fast", "paper", 10, "1/2", "1/10"),
    ("fast", "paper", 16, "1/3", "1/100"),
    ("fast", "paper", 300, "1/2", "1/20"),
    ("fast", "tight", 1, "1", "1/2"),
    ("fast", "tight", 6, "1", "1/2"),
    ("fast", "tight", 12, "2/3", "1/10"),
    ("fast", "tight", 40, "1/5", "1/100"),
    ("fast", "tight", 1000, "1", "1/1000"),
)

#: Below this ``n`` the edge cases cover ``u = F(z), F(z) + 1`` for every ``z``; above
#: it, the ``z`` near ``0``, ``c``, ``c +- t`` (FastSample's stretches) and ``n``.
_ALL_Z_UP_TO = 16

_RANDOM_U_PER_COUNT = 3
_RANDOM_PAIRS = 4


def _counting_id(spec: Mapping[str, Any]) -> str:
    parts = [spec["kind"] + "sample", spec["noise"], f"n={spec['n']}", f"eps={spec['epsilon']}"]
    if "gamma" in spec:
        parts.append(f"gamma={spec['gamma']}")
    return "/".join(parts)


def _edge_points(sampler: CountingSampler, c: int) -> list[int]:
    n = sampler.n
    if n <= _ALL_Z_UP_TO:
        return list(range(n + 1))
    near = [0, 1, 2, c - 2, c - 1, c, c + 1, c + 2, n - 2, n - 1, n]
    if isinstance(sampler, FastSample):
        t = sampler.t
        near += [c - t - 1, c - t, c - t + 1, c + t - 1, c + t, c + t + 1]
    return sorted({z for z in near if 0 <= z <= n})


def _counting_vectors(kind: str, noise: str, n: int, eps: str, gamma: str | None) -> Iterator[JSON]:
    spec = _sampler_spec(kind, n, eps, gamma, noise)
    sampler = _sampler(spec)
    base, d = _counting_id(spec), sampler.d
    rng = SeededSource(base.encode())
    for c in sorted({0, 1, n // 2, n - 1, n}):
        # Every edge case under its own label, even where two coincide (F(n) = d).
        cases = [("u=1", 1), ("u=d", d)]
        for z in _edge_points(sampler, c):
            f = sampler.cdf(c, z)
            cases.append((f"u=F({z})", f))
            if f < d:
                cases.append((f"u=F({z})+1", f + 1))
        for label, u in cases:
            yield _counting_vector(f"{base}/c={c}/{label}", spec, sampler, c, u)
        for i in range(_RANDOM_U_PER_COUNT):
            yield _counting_vector(f"{base}/c={c}/u=random{i}", spec, sampler, c, rng.uniform(d))
    for i in range(_RANDOM_PAIRS):
        c = rng.uniform(n + 1) - 1
        yield _counting_vector(f"{base}/random{i}/c={c}", spec, sampler, c, rng.uniform(d))


def _datasets(tag: str, n: int, m: int, count: int = 2) -> list[tuple[str, list[int]]]:
    """Named datasets of ``n`` rows in ``[1, m]``: fixed shapes, then seeded random ones."""
    rng = SeededSource(f"finitedp/vectors/data/{tag}".encode())
    shapes = [
        ("same", [1] * n),
        ("top", [m] * n),
        ("distinct", [1 + i % m for i in range(n)]),
    ]
    for i in range(count):
        pool = [rng.uniform(m) for _ in range(max(1, n // 2))]  # repeated rows
        shapes.append((f"pool{i}", [pool[rng.uniform(len(pool)) - 1] for _ in range(n)]))
    shapes.append(("uniform", [rng.uniform(m) for _ in range(n)]))
    return shapes


def _describe_params(params: Mapping[str, Any]) -> str:
    parts = []
    for key, value in params.items():
        if key == "sampler":
            parts.append(_counting_id(value))
        elif isinstance(value, list):
            parts.append(f"{key}=[{','.join(value)}]")
        elif isinstance(value, bool):
            parts.append(f"{key}={'yes' if value else 'no'}")
        else:
            parts.append(f"{key}={value}")
    return "/".join(parts)


def _histogram_cases() -> Iterator[tuple[str, JSON, int]]:
    """(mechanism, params, runs per dataset) for every histogram configuration."""
    geo1 = _sampler_spec("geo", 1, "1")
    geo2 = _sampler_spec("geo", 2, "1")
    geo3 = _sampler_spec("geo", 3, "1")
    geo4 = _sampler_spec("geo", 4, "1")
    fast2 = _sampler_spec("fast", 2, "1", "1/2")
    fast3 = _sampler_spec("fast", 3, "1", "1/2")
    fast5 = _sampler_spec("fast", 5, "1", "1/2")
    tight_geo2 = _sampler_spec("geo", 2, "2", noise="tight")
    tight_geo3 = _sampler_spec("geo", 3, "1", noise="tight")
    tight_fast4 = _sampler_spec("fast", 4, "1/2", "1/10", "tight")
    big = _s(2**64)
    yield "BoundedGeometricHistogram", _p(3, 6, "1", beta0="1/10", counter="fast"), 2
    yield "BoundedGeometricHistogram", _p(5, 12, "1/2", beta0="1/4", counter="fast"), 1
    yield "BoundedGeometricHistogram", _p(3, 6, "1", counter="geo"), 2
    yield "BoundedGeometricHistogram", _p(6, 16, "1/3", counter="geo"), 1
    yield "BoundedGeometricHistogram", _p(8, 3, "1/2", counter="geo"), 2
    yield "BoundedGeometricHistogram", _p(1, 1, "1", counter="geo"), 2
    yield "StabilityHistogram", _p(12, 20, "1", delta="1/2", beta0="1/2", counter="fast"), 2
    yield "StabilityHistogram", _p(10, 2**64, "1", delta="1/2", counter="geo"), 2
    yield "StabilityHistogram", _p(9, 5, "1", delta="1/2", counter="geo", pad=False), 2
    yield "PureSparseHistogram", _p(3, 7, "1", beta="1", counter="geo"), 3
    yield "PureSparseHistogram", _p(2, 5, "1", beta="1", counter="geo", pad=False), 3
    yield "PureSparseHistogram", _p(4, 2**64, "1/2", beta="1/2", counter="fast"), 2
    yield "PureSparseHistogram", _p(3, 1000, "1", beta="1/2", counter="fast", pad=False), 2
    if COMPACT_AVAILABLE:
        yield "CompactHistogram", _p(2, 10, "1", counter="geo"), 2
        yield "CompactHistogram", _p(3, 1000, "1", counter="geo"), 2
        yield "CompactHistogram", _p(3, 1000, "1", beta0="1/10", counter="fast"), 1
        yield "CompactHistogram", _p(4, 2**64, "1/2", beta0="1/8", counter="fast"), 1
        for method in ("points", "blocks"):
            spec = {"l": "1", "universe_size": "20", "method": method}
            yield "compact_histogram", {"sampler": geo2, **spec}, 2
            spec = {"l": "2", "universe_size": "300", "method": method}
            yield "compact_histogram", {"sampler": geo3, **spec}, 2
            spec = {"l": "3", "universe_size": "1000", "method": method}
            yield "compact_histogram", {"sampler": fast2, **spec}, 1
        spec = {"l": "2", "universe_size": "4", "method": "blocks"}  # s = 9 coordinates
        yield "compact_histogram", {"sampler": geo3, **spec}, 3
    yield "basic_histogram", {"sampler": geo3, "universe_size": "10", "bins": ["2", "3", "5"]}, 2
    yield "basic_histogram", {"sampler": tight_fast4, "universe_size": "6"}, 1
    bins = ["1", "12345", _s(2**40)]
    yield "basic_histogram", {"sampler": tight_geo2, "universe_size": _s(2**40), "bins": bins}, 2
    for pad in (False, True):
        params = {"sampler": geo4, "threshold": "1", "universe_size": "10", "pad": pad}
        yield "stability_histogram", params, 2
    params = {"sampler": fast5, "threshold": "2", "universe_size": big, "pad": True}
    yield "stability_histogram", params, 1
    yield "keep_heavy", {"sampler": geo3, "universe_size": "8"}, 2
    yield "keep_heavy", {"sampler": fast2, "universe_size": "5"}, 1
    for pad in (False, True):
        yield "kh_prime", {"sampler": geo3, "universe_size": "8", "pad": pad}, 2
    yield "kh_prime", {"sampler": tight_geo2, "universe_size": "20", "pad": False}, 2
    params = {"sampler": geo3, "delta": "1/10", "universe_size": "8", "pad": False}
    yield "sparse_histogram", params, 2
    params = {"sampler": fast3, "delta": "1/100", "universe_size": big, "pad": True}
    yield "sparse_histogram", params, 1
    params = {"sampler": tight_geo3, "delta": "1/7", "universe_size": "50", "pad": False}
    yield "sparse_histogram", params, 1
    for pad in (True, False):
        params = {
            "sampler": geo2,
            "epsilon": "1",
            "beta1": "1/2",
            "universe_size": "5",
            "pad": pad,
        }
        yield "pure_sparse_histogram", params, 3
    params = {"sampler": geo1, "epsilon": "1", "beta1": "1/2", "universe_size": "3", "pad": True}
    yield "pure_sparse_histogram", params, 2


def _p(n: int, m: int, eps: str, *, pad: bool | None = None, **extra: str) -> JSON:
    """User-level parameters in a fixed key order (the order shows in ids)."""
    params: JSON = {"n": _s(n), "universe_size": _s(m), "epsilon": eps}
    for key in ("delta", "beta", "beta0", "counter"):
        if key in extra:
            params[key] = extra[key]
    if pad is not None:
        params["pad"] = pad
    elif "delta" in extra or "beta" in extra:  # StabilityHistogram, PureSparseHistogram
        params["pad"] = True
    return params


def _params_n_m(params: Mapping[str, Any]) -> tuple[int, int]:
    n = _int(params["sampler"]["n"], "n") if "sampler" in params else _int(params["n"], "n")
    return n, _int(params["universe_size"], "universe_size")


def _histogram_vectors() -> Iterator[JSON]:
    for mechanism, params, runs in _histogram_cases():
        n, m = _params_n_m(params)
        base = f"{mechanism}/{_describe_params(params)}"
        for label, rows in _datasets(base, n, m):
            for run in range(runs):
                yield _recorded_vector(f"{base}/data={label}/run={run}", mechanism, params, rows)


def _primitive_cases() -> Iterator[tuple[str, JSON, int]]:
    big = 2**64
    for excluded, m, r in (
        ([], 5, 5),
        (["2", "4"], 10, 3),
        (["1", _s(big)], big, 4),
        (["1", "2", "3"], 4, 1),
        (["3"], 6, 0),
        (["7", "8", "9", "10"], 12, 8),
    ):
        yield "distinct_sample", {"excluded": excluded, "universe_size": _s(m), "r": _s(r)}, 3
    for m, p, q, s, t in (
        (10, 1, 3, 100, 4),
        (1000, 1, 2, 10**6, 3),
        (5, 0, 7, 5, 2),
        (7, 7, 7, 50, 8),
        (3, 1, 2, 3, 0),
        (40, 3, 5, 2**40, 17),
        (big, 1, 2**65, 2**700 + 1, 5),  # s long enough for the interval pass of Alg 6.16
    ):
        params = {"m": _s(m), "p": _s(p), "q": _s(q), "s": _s(s), "t": _s(t)}
        yield "approx_bin_sample", params, 4
    for m, p, q, t in ((10, 1, 3, 4), (20, 2, 5, 21), (4, 1, 2, 0), (0, 1, 2, 3), (6, 5, 5, 2)):
        yield "exact_bin_sample", {"m": _s(m), "p": _s(p), "q": _s(q), "t": _s(t)}, 3
    geo = GeoSample(3, 1)
    fast = FastSample(2, 1, "1/2")
    tables = (
        ([_s(geo.scaled_cdf_at_zero(z)) for z in range(4)], 10, 1000),
        ([_s(fast.scaled_cdf_at_zero(z)) for z in range(3)], 3, 3**40),
        (["1", "1", "5", "10"], 4, 4),
    )
    for cdf, m, s in tables:
        top = _s(len(cdf) - 1)
        yield "approx_ord_sample", {"cdf": cdf, "n": top, "m": _s(m), "s": _s(s)}, 3
        yield "ord_sample", {"cdf": cdf, "n": top, "m": _s(m)}, 3
    for n, m in ((3, 5), (4, big), (1, 1), (6, 3)):
        yield "pure_sparse_fallback", {"n": _s(n), "universe_size": _s(m)}, 3


def _primitive_vectors() -> Iterator[JSON]:
    for mechanism, params, runs in _primitive_cases():
        base = f"{mechanism}/{_describe_params(params)}"
        for run in range(runs):
            yield _recorded_vector(f"{base}/run={run}", mechanism, params, None)


def generate() -> Iterator[JSON]:
    """The reference vectors, always the same ones in the same order.

    Counting vectors first (every configuration of ``_COUNTING_CONFIGS``), then
    histogram mechanisms, then primitives.  All randomness (random ``u``, random
    datasets, tapes) comes from :class:`~finitedp.oracle.SeededSource` streams
    with fixed seeds.

    Returns:
        An iterator of vectors (JSON-ready dicts, integers as decimal strings).
    """
    for config in _COUNTING_CONFIGS:
        yield from _counting_vectors(*config)
    yield from _histogram_vectors()
    yield from _primitive_vectors()


#: Cheap configurations :func:`random_vectors` picks from (small integers, short tapes).
_RANDOM_POOL: tuple[tuple[str, JSON], ...] = (
    ("BoundedGeometricHistogram", _p(3, 5, "1", counter="geo")),
    ("BoundedGeometricHistogram", _p(2, 4, "1", beta0="1/4", counter="fast")),
    ("StabilityHistogram", _p(9, 2**64, "1", delta="1/2", counter="geo")),
    ("PureSparseHistogram", _p(2, 5, "1", beta="1", counter="geo")),
    ("kh_prime", {"sampler": _sampler_spec("geo", 2, "1"), "universe_size": "6", "pad": True}),
    (
        "sparse_histogram",
        {
            "sampler": _sampler_spec("geo", 2, "1"),
            "delta": "1/10",
            "universe_size": "9",
            "pad": False,
        },
    ),
    ("keep_heavy", {"sampler": _sampler_spec("geo", 2, "1"), "universe_size": "4"}),
)


def random_vectors(seed: bytes, count: int = 3) -> list[JSON]:
    """A few vectors whose configuration, dataset and tape all come from ``seed``.

    For property tests: whatever the seed, the vectors must verify.  One counting
    vector (GeoSample or FastSample, random ``c`` and ``u``) and ``count`` recorded
    vectors of mechanisms picked from a small pool (with compact ones when available).

    Args:
        seed: any bytes.
        count: how many recorded vectors.

    Returns:
        ``count + 1`` vectors.
    """
    rng = SeededSource(b"finitedp/vectors/random/" + seed)
    tag = seed.hex()
    kind, noise, n, eps, gamma = _COUNTING_CONFIGS[rng.uniform(len(_COUNTING_CONFIGS)) - 1]
    spec = _sampler_spec(kind, n, eps, gamma, noise)
    sampler = _sampler(spec)
    c, u = rng.uniform(n + 1) - 1, rng.uniform(sampler.d)
    out = [_counting_vector(f"random/{tag}/{_counting_id(spec)}/c={c}", spec, sampler, c, u)]
    pool = list(_RANDOM_POOL)
    if COMPACT_AVAILABLE:
        pool.append(("CompactHistogram", _p(2, 10, "1", counter="geo")))
    for i in range(count):
        mechanism, params = pool[rng.uniform(len(pool)) - 1]
        n, m = _params_n_m(params)
        rows = [rng.uniform(min(m, 2 * n + 1)) for _ in range(n)]
        vector_id = f"random/{tag}/{i}/{mechanism}"
        out.append(_recorded_vector(vector_id, mechanism, params, rows))
    return out


def write_jsonl(vectors: Iterable[Mapping[str, Any]], path: str | Path) -> int:
    """Write vectors as JSON Lines (``\\n`` line ends, UTF-8/ASCII).

    Args:
        vectors: the vectors, in order.
        path: the file to (over)write; its directory must exist.

    Returns:
        The number of vectors written.

    Raises:
        OSError: the file cannot be written.
    """
    count = 0
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        for vector in vectors:
            out.write(dumps_vector(vector) + "\n")
            count += 1
    return count


def generate_to(path: str | Path) -> int:
    """Write the reference vectors (:func:`generate`) to ``path``; for ``vectors generate``.

    Args:
        path: the output file (``vectors/reference.jsonl`` for the committed one).

    Returns:
        The number of vectors written.

    Raises:
        OSError: the file cannot be written.
    """
    return write_jsonl(generate(), path)


# -- verification ----------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def load_schema() -> JSON:
    """The JSON Schema (draft 2020-12) of one vector, shipped in ``finitedp/schemas``.

    Returns:
        The parsed schema (cached: do not modify it).

    Raises:
        OSError: the package data is missing (``schemas/*.json`` not installed).
    """
    resource = importlib.resources.files("finitedp").joinpath("schemas/vectors.schema.json")
    schema: JSON = json.loads(resource.read_text(encoding="utf-8"))
    return schema


@functools.lru_cache(maxsize=1)
def _validator() -> Any:
    # Imported by name: jsonschema ships no type information, and the validator is
    # only used through its documented ``iter_errors`` method.
    jsonschema = importlib.import_module("jsonschema")
    schema = load_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def schema_errors(vector: object) -> list[str]:
    """The schema violations of one parsed vector.

    Args:
        vector: a parsed JSON value.

    Returns:
        Messages ``"path: problem"``, ordered by path; empty when the vector is valid.

    Raises:
        ModuleNotFoundError: the ``jsonschema`` package is not installed.
    """
    errors = sorted(_validator().iter_errors(vector), key=lambda e: list(e.absolute_path))
    out = []
    for error in errors:
        where = "/".join(str(part) for part in error.absolute_path) or "(top level)"
        message = str(error.message)
        out.append(f"{where}: {message[:300]}")
    return out


def verify_vector(vector: Mapping[str, Any]) -> str | None:
    """Check one parsed vector: schema, then replay (or recomputation for counting vectors).

    Args:
        vector: a parsed vector (see :func:`verify` for what is checked).

    Returns:
        ``None`` if it verifies, else why not (one line).
    """
    problems = schema_errors(vector)
    if problems:
        return f"schema: {problems[0]}"
    try:
        if vector["kind"] == "counting":
            _verify_counting(vector)
        else:
            _verify_recorded(vector)
    except Exception as error:  # a verifier reports every failure, whatever raised it
        return f"{type(error).__name__}: {error}"
    return None


@dataclass(frozen=True)
class VerifyResult:
    """The outcome of :func:`verify`.

    Attributes:
        ok: every vector verified (and there was at least one).
        checked: how many vectors verified before the first failure (all, if ``ok``).
        line: the 1-based line number of the first failing vector, or ``None``.
        vector_id: its ``"id"`` (``None`` if it has none or the line is not JSON).
        reason: why it failed.
    """

    ok: bool
    checked: int
    line: int | None = None
    vector_id: str | None = None
    reason: str | None = None

    @property
    def index(self) -> int | None:
        """The 0-based index of the first failing vector, or ``None``."""
        return None if self.line is None else self.line - 1

    def message(self) -> str:
        """A one-line report naming the first failing vector."""
        if self.ok:
            return f"ok: {self.checked} vectors verified"
        name = f" (id {self.vector_id})" if self.vector_id is not None else ""
        where = f"line {self.line}{name}: " if self.line is not None else ""
        return f"FAILED at {where}{self.reason}"


def verify(path: str | Path) -> VerifyResult:
    """Verify a vector file line by line, stopping at the first failure.

    Each line must be a JSON object valid under the schema, with an id not seen
    before.  Recorded vectors are replayed with :class:`~finitedp.oracle.ReplaySource`
    (every call's ``d`` must match the tape, and the tape must be used up) and must
    give the recorded output; the tape must also be the seeded stream of ``seed``.
    Counting vectors are recomputed: ``d`` and the derived values, the output, and
    ``F`` at the output and below it.

    Args:
        path: the JSON Lines file.

    Returns:
        A :class:`VerifyResult`; ``ok`` is false for an empty file.
    """
    seen: set[str] = set()
    checked = 0
    with open(path, encoding="utf-8", newline="") as lines:
        for number, line in enumerate(lines, start=1):
            vector_id: str | None = None
            if not line.endswith("\n") or line.endswith("\r\n"):
                return VerifyResult(False, checked, number, None, "lines must end with \\n")
            try:
                vector = json.loads(line)
            except json.JSONDecodeError as error:
                return VerifyResult(False, checked, number, None, f"not JSON: {error}")
            if isinstance(vector, dict) and isinstance(vector.get("id"), str):
                vector_id = vector["id"]
            if vector_id is not None and vector_id in seen:
                return VerifyResult(False, checked, number, vector_id, "duplicate id")
            reason = verify_vector(vector)
            if reason is not None:
                return VerifyResult(False, checked, number, vector_id, reason)
            if vector_id is not None:
                seen.add(vector_id)
            checked += 1
    if not checked:
        return VerifyResult(False, 0, None, None, "the file holds no vectors")
    return VerifyResult(True, checked)


def verify_file(path: str | Path) -> tuple[bool, str]:
    """For ``vectors verify``: whether the file verifies, and a one-line report.

    Args:
        path: the JSON Lines file.

    Returns:
        ``(ok, message)``; the message names the first failing line and its id.  A
        missing or unreadable file is a failure, reported in the message.
    """
    try:
        result = verify(path)
    except (OSError, UnicodeDecodeError) as error:
        return False, f"FAILED: cannot read {path}: {error}"
    return result.ok, result.message()
