"""One vector: building it from a run, and checking it by replay.

See :mod:`finitedp.vectors` for the three kinds of vectors and ``SPEC.md``
("Reference test vectors") for every field.  Mechanisms are found through
:data:`finitedp.registry.VECTOR_KINDS` and the counting samplers through
:data:`finitedp.registry.COUNTERS`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..counting.base import CountingSampler
from ..counting.registry import sampler_derived, sampler_from_spec
from ..entries import JSON
from ..jsonvalues import decimal, parse_uint, parse_uints
from ..oracle import RecordingSource, ReplaySource, SeededSource
from ..registry import COUNTERS, VECTOR_KINDS

__all__ = [
    "SCHEMA_VERSION",
    "counting_vector",
    "dumps_vector",
    "recorded_vector",
    "verify_counting",
    "verify_recorded",
]

#: The value of the ``"finitedp"`` field of every vector: the layout version.
SCHEMA_VERSION = 1

#: A counting vector's ``"sampler"`` (class name) -> the sampler's ``kind``.
_KIND_OF = {entry.cls_name: entry.name for entry in COUNTERS.values()}


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


def _tape_json(tape: Iterable[tuple[int, int]]) -> list[list[str]]:
    return [[decimal(d), decimal(u)] for d, u in tape]


def _tape(value: object) -> list[tuple[int, int]]:
    if not isinstance(value, list):
        raise ValueError("tape: expected a list of [d, u] pairs")
    out = []
    for i, pair in enumerate(value):
        if not isinstance(pair, list) or len(pair) != 2:
            raise ValueError(f"tape[{i}]: expected a pair [d, u]")
        out.append((parse_uint(pair[0], f"tape[{i}].d"), parse_uint(pair[1], f"tape[{i}].u")))
    return out


def counting_vector(
    vector_id: str, spec: Mapping[str, Any], sampler: CountingSampler, c: int, u: int
) -> JSON:
    z = sampler(c, u)
    params = {k: v for k, v in spec.items() if k != "kind"}
    return {
        "id": vector_id,
        "kind": "counting",
        "finitedp": SCHEMA_VERSION,
        "sampler": COUNTERS[spec["kind"]].cls_name,
        "params": params,
        "derived": sampler_derived(sampler),
        "c": decimal(c),
        "u": decimal(u),
        "output": decimal(z),
        "F_below": decimal(sampler.cdf(c, z - 1)),
        "F_at": decimal(sampler.cdf(c, z)),
    }


def verify_counting(vector: Mapping[str, Any]) -> None:
    spec = {"kind": _KIND_OF[vector["sampler"]], **vector["params"]}
    sampler = sampler_from_spec(spec)
    _expect("derived", vector["derived"], sampler_derived(sampler))
    c, u = parse_uint(vector["c"], "c"), parse_uint(vector["u"], "u")
    z = sampler(c, u)
    _expect("output", vector["output"], decimal(z))
    below, at = sampler.cdf(c, z - 1), sampler.cdf(c, z)
    _expect("F_below", vector["F_below"], decimal(below))
    _expect("F_at", vector["F_at"], decimal(at))
    if not below < u <= at:  # the definition of inverse-CDF sampling (Lemma 2.13)
        raise ValueError(f"F(z - 1) < u <= F(z) fails for z = {z}")
    # BV's literal binary search (Alg 4.8 step 3) and one replayed oracle call agree.
    bisected = decimal(sampler.bisect_reference(c, u))
    _expect("output (BV binary search)", vector["output"], bisected)
    replay = ReplaySource([(sampler.d, u)])
    _expect(
        "output (sample with a replayed draw)", vector["output"], decimal(sampler.sample(c, replay))
    )
    replay.assert_exhausted()


def recorded_vector(
    vector_id: str, mechanism: str, params: JSON, dataset: Sequence[int] | None
) -> JSON:
    """Run a mechanism on a recording of ``SeededSource(id)`` and build its vector."""
    mech = VECTOR_KINDS[mechanism]
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
        vector["dataset"] = [decimal(x) for x in rows]
    vector.update({"seed": seed.hex(), "tape": _tape_json(recorder.tape), "output": output})
    return vector


def verify_recorded(vector: Mapping[str, Any]) -> None:
    name = vector["mechanism"]
    if name not in VECTOR_KINDS:
        raise ValueError(f"mechanism: {name!r} is not known to this finitedp")
    mech = VECTOR_KINDS[name]
    if vector["kind"] != mech.kind:
        raise ValueError(f"kind: {name} vectors have kind {mech.kind!r}")
    params = vector["params"]
    _expect("derived", vector["derived"], mech.derive(params))
    rows = None if "dataset" not in vector else tuple(parse_uints(vector["dataset"], "dataset"))
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
