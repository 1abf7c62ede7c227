"""Negative vectors: inputs every implementation must refuse (Wycheproof style).

Each vector is one JSON object with ``"kind": "negative"``, ``"result":
"invalid"``, the layout version ``"finitedp": 1``, a stable ``id``, the
``reason`` in words and ``flags`` naming the rule broken.  What is refused:

* ``"target": "counter"``: building a counting sampler (``sampler`` = ``geo`` or
  ``fast``) from ``params`` (``noise``, ``n``, ``epsilon``, ``gamma``?); a JSON
  number with a fraction part stands for a float, which is never exact.
* ``"target": "replay"``: replaying ``tape`` for the (valid) counting sampler of
  ``params`` at count ``c``: the tape's ``d`` or ``u`` does not fit the call.
* ``"target": "mechanism"``: building the user-level ``mechanism`` (its
  command-line name in the registry) for ``n``, ``universe_size`` and
  ``params`` (``epsilon``, ``beta``, ``counter``, ``options``) and, if that
  succeeds, releasing ``dataset``.

:func:`verify_negative` passes a vector when the refusal happens (a
:class:`~finitedp.errors.FiniteDPError`); accepting the input is the failure.
"""

from __future__ import annotations

import functools
import importlib
import importlib.resources
import json
from collections.abc import Iterator, Mapping
from typing import Any

from ..counting.registry import COUNTERS
from ..entries import ReleaseParameters
from ..errors import FiniteDPError
from ..jsonvalues import parse_uint
from ..oracle import ReplaySource
from ..registry import MECHANISMS

__all__ = ["negative_vectors", "verify_negative"]

JSON = dict[str, Any]


def _vector(vid: str, target: str, reason: str, flags: list[str], **fields: Any) -> JSON:
    return {
        "id": f"negative/{vid}",
        "kind": "negative",
        "finitedp": 1,
        "result": "invalid",
        "target": target,
        **fields,
        "reason": reason,
        "flags": flags,
    }


def _counters() -> Iterator[JSON]:
    cases: list[tuple[str, str, dict[str, Any], str, list[str]]] = [
        ("geo", "float-epsilon", {"epsilon": 0.5}, "epsilon is a float", ["FloatParameter"]),
        ("fast", "float-gamma", {"gamma": 0.125}, "gamma is a float", ["FloatParameter"]),
        ("geo", "epsilon-2-3", {"epsilon": "2/3"}, "paper mode needs eps = 1/m", ["NotInverse"]),
        ("fast", "epsilon-3", {"epsilon": "3"}, "paper mode needs eps = 1/m", ["NotInverse"]),
        ("geo", "epsilon-0", {"epsilon": "0"}, "eps must be positive", ["OutOfRange"]),
        ("geo", "epsilon-negative", {"epsilon": "-1/2"}, "eps must be positive", ["OutOfRange"]),
        ("fast", "gamma-2-5", {"gamma": "2/5"}, "gamma must be 1/g", ["NotInverse"]),
        ("fast", "gamma-1", {"gamma": "1"}, "gamma must be 1/g with g >= 2", ["OutOfRange"]),
        ("geo", "n-0", {"n": "0"}, "n must be at least 1", ["OutOfRange"]),
        ("geo", "n-float", {"n": 2.0}, "n is a float", ["FloatParameter"]),
        ("geo", "noise-unknown", {"noise": "laplace"}, "noise is paper or tight", ["Unknown"]),
        ("geo", "tight-epsilon-0", {"noise": "tight", "epsilon": "0"}, "eps > 0", ["OutOfRange"]),
    ]
    for sampler, name, change, reason, flags in cases:
        params: dict[str, Any] = {"noise": "paper", "n": "4", "epsilon": "1/2"}
        if sampler == "fast":
            params["gamma"] = "1/8"
        params.update(change)
        yield _vector(
            f"counter/{sampler}/{name}", "counter", reason, flags, sampler=sampler, params=params
        )


def _replays() -> Iterator[JSON]:
    params = {"noise": "paper", "n": "4", "epsilon": "1/2"}
    d = COUNTERS["geo"].build(4, "1/2", None, "paper", None).d
    cases = [
        ("wrong-d", [[str(d + 1), "1"]], "the tape's d is not the sampler's d", ["WrongDomain"]),
        ("u-above-d", [[str(d), str(d + 1)]], "u lies outside [1, d]", ["DrawOutOfRange"]),
        ("u-zero", [[str(d), "0"]], "u lies outside [1, d]", ["DrawOutOfRange"]),
        ("empty", [], "one draw is needed, the tape has none", ["TapeExhausted"]),
    ]
    for name, tape, reason, flags in cases:
        yield _vector(
            f"replay/geo/{name}",
            "replay",
            reason,
            flags,
            sampler="geo",
            params=params,
            c="2",
            tape=tape,
        )


#: Mechanisms added after the file's first vectors: their vectors are appended
#: (:func:`_later_mechanisms`), each with parameters it accepts at ``|X| = 8``.
_LATER: dict[str, tuple[int, dict[str, Any]]] = {
    # The blanket's threshold needs N Pr[M(0, U) > b] <= beta/2 with b < n <= 3; its
    # eps may be any positive rational (tight noise), so no "eps must be 1/m" vector.
    "blanket": (3, {"epsilon": "8", "beta": "1/2"}),
}


def _mechanisms() -> Iterator[JSON]:
    for name, entry in MECHANISMS.items():
        if name in _LATER:
            continue
        needed = {o.name: o.example for o in entry.release_options if o.required}
        base: dict[str, Any] = {
            "epsilon": "1",
            "beta": "1/10",
            "counter": "fast",
            "options": needed,
        }
        n = 3
        if name == "stability":  # Thm 5.6's threshold at eps = 1, delta = 1/10 is 18
            n = 20
        yield from _mechanism_cases(name, n, base)


def _later_mechanisms() -> Iterator[JSON]:
    for name, (n, change) in _LATER.items():
        needed = {o.name: o.example for o in MECHANISMS[name].release_options if o.required}
        base: dict[str, Any] = {"beta": "1/10", "counter": "fast", "options": needed, **change}
        yield from _mechanism_cases(name, n, base, skip=("epsilon-2-3",))
        yield _tagged_float(name, n, {**base, "epsilon": {"float": "8.0"}}, "8.0")


def _mechanism_cases(
    name: str, n: int, base: dict[str, Any], skip: tuple[str, ...] = ()
) -> Iterator[JSON]:
    valid = [str(1 + i % 6) for i in range(n)]
    cases: list[tuple[str, dict[str, Any], list[str], str, list[str]]] = [
        (
            "row-outside",
            {},
            ["9", *valid[1:]],
            "row 9 is outside [1, 8]",
            ["DataOutsideUniverse"],
        ),
        ("row-zero", {}, ["0", *valid[1:]], "row 0 is outside [1, 8]", ["DataOutsideUniverse"]),
        ("epsilon-float", {"epsilon": 1.0}, valid, "eps is a float", ["FloatParameter"]),
        ("epsilon-2-3", {"epsilon": "2/3"}, valid, "eps must be 1/m", ["NotInverse"]),
        ("beta-0", {"beta": "0"}, valid, "beta must lie in (0, 1)", ["OutOfRange"]),
        ("counter-unknown", {"counter": "laplace"}, valid, "no such counter", ["Unknown"]),
        ("rows-too-many", {}, [*valid, "1"], "the dataset has n + 1 rows", ["WrongSize"]),
    ]
    for case, change, dataset, reason, flags in cases:
        if case in skip or _accepts(name, n, {**base, **change}, dataset):
            continue  # a rule this mechanism does not have (ALP: any rational eps, no counter)
        vector = _vector(
            f"mechanism/{name}/{case}",
            "mechanism",
            reason,
            flags,
            mechanism=name,
            n=str(n),
            universe_size="8",
            params={**base, **change},
            dataset=dataset,
        )
        _require_valid_control(vector, {**base}, valid)
        yield vector


def _accepts(name: str, n: int, params: JSON, dataset: list[str]) -> bool:
    probe = {"target": "mechanism", "mechanism": name, "n": str(n), "universe_size": "8"}
    try:
        _attempt({**probe, "params": params, "dataset": dataset})
    except _Accepted:
        return True
    except FiniteDPError:
        return False
    return True


class _Accepted(Exception):
    """Raised by the oracle of a negative run: the mechanism accepted the input."""


class _RefuseDraws:
    def uniform(self, d: int) -> int:
        raise _Accepted


def _require_valid_control(vector: JSON, params: JSON, dataset: list[str]) -> None:
    # The same vector with the valid parameters and dataset must be accepted, so
    # that each negative vector breaks exactly the rule it names.
    control = {**vector, "params": params, "dataset": dataset}
    try:
        _attempt(control)
    except _Accepted:
        return
    raise AssertionError(f"the control of {vector['id']} is refused: fix the case")


def _tagged_floats() -> Iterator[JSON]:
    """Floats written as ``{"float": text}``: a JSON parser may read ``2.0`` as 2.

    Appended after the first 57 vectors (their untagged floats stay as they were).
    """
    counters: list[tuple[str, str, dict[str, Any]]] = [
        ("geo", "epsilon", {"noise": "paper", "n": "4", "epsilon": {"float": "0.5"}}),
        ("geo", "n", {"noise": "paper", "n": {"float": "2.0"}, "epsilon": "1/2"}),
        ("fast", "gamma", {"noise": "tight", "n": "4", "epsilon": "1", "gamma": {"float": "0.25"}}),
    ]
    for sampler, name, params in counters:
        reason = f"{name} is a float ({params[name]['float']}), tagged"
        yield _vector(
            f"counter/{sampler}/float-{name}/tagged",
            "counter",
            reason,
            ["FloatParameter"],
            sampler=sampler,
            params=params,
        )
    for name, entry in MECHANISMS.items():
        if name in _LATER:
            continue
        needed = {o.name: o.example for o in entry.release_options if o.required}
        params = {"epsilon": {"float": "1.0"}, "beta": "1/10", "counter": "fast", "options": needed}
        yield _tagged_float(name, 20 if name == "stability" else 3, params, "1.0")


def _tagged_float(name: str, n: int, params: dict[str, Any], text: str) -> JSON:
    return _vector(
        f"mechanism/{name}/epsilon-float/tagged",
        "mechanism",
        f"eps is a float ({text}), tagged",
        ["FloatParameter"],
        mechanism=name,
        n=str(n),
        universe_size="8",
        params=params,
        dataset=[str(1 + i % 6) for i in range(n)],
    )


#: The blanket's edges an implementation had to guess (issue 54 item 6): each case
#: ``(name, n, |X|, params, reason, flags)`` beside its accepted control (same ``n``
#: and ``|X|``, the control's params), appended after every earlier vector.
_BLANKET_EDGES: list[tuple[str, int, int, dict[str, Any], dict[str, Any], str, list[str]]] = [
    (
        "universe-2n",
        3,
        6,
        {"epsilon": "8"},
        {"epsilon": "8"},
        "|X| = 2n: the blanket needs |X| >= 2n + 1 (BV footnote 6), with the control at |X| = 7",
        ["OutOfRange"],
    ),
    (
        "no-threshold",
        3,
        8,
        {"epsilon": "1"},
        {"epsilon": "8"},
        "no b < n with N Pr[M(0, U) > b] <= beta/2: refused, not an empty release",
        ["OutOfRange"],
    ),
    (
        "paper-fast",
        3,
        8,
        {"epsilon": "8", "options": {"noise": "paper"}},
        {"epsilon": "8"},
        'noise "paper" with counter "fast" (FastSample\'s paper ratio has no rational proof)',
        ["Unknown"],
    ),
    (
        "paper-geo-2-3",
        20,
        41,
        {"epsilon": "2/3", "counter": "geo", "options": {"noise": "paper"}},
        {"epsilon": "1", "counter": "geo", "options": {"noise": "paper"}},
        'noise "paper" (counter "geo") needs eps = 1/m',
        ["NotInverse"],
    ),
]


def _blanket_edges() -> Iterator[JSON]:
    for name, n, size, change, control, reason, flags in _BLANKET_EDGES:
        base: dict[str, Any] = {"beta": "1/2", "counter": "fast", "options": {}}
        dataset = [str(1 + i % 6) for i in range(n)]
        vector = _vector(
            f"mechanism/blanket/{name}",
            "mechanism",
            reason,
            flags,
            mechanism="blanket",
            n=str(n),
            universe_size=str(size),
            params={**base, **change},
            dataset=dataset,
        )
        valid = {**vector, "params": {**base, **control}}
        if name == "universe-2n":
            valid["universe_size"] = str(2 * n + 1)
        try:
            _attempt(valid)
        except _Accepted:
            yield vector
            continue
        raise AssertionError(f"the control of {vector['id']} is refused: fix the case")


def negative_vectors() -> Iterator[JSON]:
    """Every negative vector, in file order (new ones are appended)."""
    yield from _counters()
    yield from _replays()
    yield from _mechanisms()
    yield from _tagged_floats()
    yield from _later_mechanisms()
    yield from _blanket_edges()


def _untagged(value: Any) -> Any:
    """``{"float": text}`` as the float it stands for, anywhere in ``value``."""
    if isinstance(value, Mapping):
        if set(value) == {"float"} and isinstance(value["float"], str):
            return float(value["float"])
        return {key: _untagged(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_untagged(item) for item in value]
    return value


def _counter(vector: Mapping[str, Any]) -> Any:
    entry = COUNTERS[vector["sampler"]]
    p = _untagged(vector["params"])
    # A JSON number (int or float) is handed over as it is, so that a float
    # reaches the parameter parser and is refused there.
    n = p["n"] if not isinstance(p["n"], str) else parse_uint(p["n"], "n")
    return entry.build(n, p["epsilon"], p.get("gamma"), p["noise"], None)


def _attempt(vector: Mapping[str, Any]) -> None:
    target = vector["target"]
    if target == "counter":
        _counter(vector)
    elif target == "replay":
        sampler = _counter(vector)
        tape = [(int(d), int(u)) for d, u in vector["tape"]]
        source = ReplaySource(tape)
        sampler.sample(int(vector["c"]), source)
        source.assert_exhausted()
    elif target == "mechanism":
        entry = MECHANISMS[vector["mechanism"]]
        p = _untagged(vector["params"])
        parameters = ReleaseParameters(p["epsilon"], p["beta"], p["counter"], p["options"])
        n, size = parse_uint(vector["n"], "n"), parse_uint(vector["universe_size"], "|X|")
        built = entry.build(n, size, parameters)
        built.release([int(x) for x in vector["dataset"]], rng=_RefuseDraws())
    else:
        raise ValueError(f"target: got {target!r}; expected counter, replay or mechanism")


@functools.lru_cache(maxsize=1)
def _validator() -> Any:
    # The layout (not the deliberately invalid parameters) is fixed by a JSON Schema
    # shipped beside the vectors' own: finitedp/schemas/negative.schema.json.
    jsonschema = importlib.import_module("jsonschema")
    resource = importlib.resources.files("finitedp").joinpath("schemas/negative.schema.json")
    schema = json.loads(resource.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def verify_negative(vector: Mapping[str, Any]) -> str | None:
    """``None`` if the vector's input is refused with a FiniteDPError, else why it fails."""
    errors = sorted(_validator().iter_errors(vector), key=lambda e: list(e.absolute_path))
    if errors:
        where = "/".join(str(part) for part in errors[0].absolute_path) or "(top level)"
        return f"schema: {where}: {str(errors[0].message)[:300]}"
    try:
        _attempt(vector)
    except _Accepted:
        return f"accepted an input that must be refused: it drew noise ({vector['reason']})"
    except FiniteDPError:
        return None
    except (KeyError, TypeError, ValueError) as error:
        return f"malformed negative vector: {type(error).__name__}: {error}"
    return f"accepted an input that must be refused ({vector['reason']})"
