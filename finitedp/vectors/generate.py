"""Generating the reference vectors: always the same ones, in the same order.

All randomness (random ``u``, random datasets, tapes) comes from
:class:`~finitedp.oracle.SeededSource` streams with fixed seeds, so the file is
identical byte for byte on every run.  The configurations come from the
registry: :data:`finitedp.registry.COUNTERS` for the counting vectors and
:func:`finitedp.registry.vector_cases` for the others.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from ..counting.base import CountingSampler
from ..counting.registry import sampler_from_spec, sampler_spec
from ..entries import JSON
from ..jsonvalues import parse_uint
from ..oracle import SeededSource
from ..registry import COUNTERS, VECTOR_KINDS, random_pool, vector_cases
from .records import counting_vector, dumps_vector, recorded_vector

__all__ = ["generate", "generate_negative_to", "generate_to", "random_vectors", "write_jsonl"]

#: Counting configurations: (sampler kind, noise, n, epsilon, gamma), in file order.
_COUNTING_CONFIGS: tuple[tuple[str, str, int, str, str | None], ...] = tuple(
    (entry.name, *config) for entry in COUNTERS.values() for config in entry.vector_configs
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
    t = getattr(sampler, "t", None)  # FastSample's stretches
    if t is not None:
        near += [c - t - 1, c - t, c - t + 1, c + t - 1, c + t, c + t + 1]
    return sorted({z for z in near if 0 <= z <= n})


def _counting_vectors(kind: str, noise: str, n: int, eps: str, gamma: str | None) -> Iterator[JSON]:
    spec = sampler_spec(kind, n, eps, gamma, noise)
    sampler = sampler_from_spec(spec)
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
            yield counting_vector(f"{base}/c={c}/{label}", spec, sampler, c, u)
        for i in range(_RANDOM_U_PER_COUNT):
            yield counting_vector(f"{base}/c={c}/u=random{i}", spec, sampler, c, rng.uniform(d))
    for i in range(_RANDOM_PAIRS):
        c = rng.uniform(n + 1) - 1
        yield counting_vector(f"{base}/random{i}/c={c}", spec, sampler, c, rng.uniform(d))


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


def _params_n_m(params: Mapping[str, Any]) -> tuple[int, int]:
    n = parse_uint(params.get("sampler", params)["n"], "n")
    return n, parse_uint(params["universe_size"], "universe_size")


def _recorded_vectors() -> Iterator[JSON]:
    for mechanism, params, runs in vector_cases():
        base = f"{mechanism}/{_describe_params(params)}"
        if VECTOR_KINDS[mechanism].kind == "primitive":
            for run in range(runs):
                yield recorded_vector(f"{base}/run={run}", mechanism, params, None)
            continue
        n, m = _params_n_m(params)
        for label, rows in _datasets(base, n, m):
            for run in range(runs):
                yield recorded_vector(f"{base}/data={label}/run={run}", mechanism, params, rows)


def generate() -> Iterator[JSON]:
    """The reference vectors, always the same ones in the same order.

    Counting vectors first (every configuration of ``_COUNTING_CONFIGS``), then
    histogram mechanisms, then primitives, in the order of the registry's cases.
    All randomness (random ``u``, random
    datasets, tapes) comes from :class:`~finitedp.oracle.SeededSource` streams
    with fixed seeds.

    Returns:
        An iterator of vectors (JSON-ready dicts, integers as decimal strings).
    """
    for config in _COUNTING_CONFIGS:
        yield from _counting_vectors(*config)
    yield from _recorded_vectors()


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
    spec = sampler_spec(kind, n, eps, gamma, noise)
    sampler = sampler_from_spec(spec)
    c, u = rng.uniform(n + 1) - 1, rng.uniform(sampler.d)
    out = [counting_vector(f"random/{tag}/{_counting_id(spec)}/c={c}", spec, sampler, c, u)]
    pool = random_pool()
    for i in range(count):
        mechanism, params = pool[rng.uniform(len(pool)) - 1]
        n, m = _params_n_m(params)
        rows = [rng.uniform(min(m, 2 * n + 1)) for _ in range(n)]
        vector_id = f"random/{tag}/{i}/{mechanism}"
        out.append(recorded_vector(vector_id, mechanism, params, rows))
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


def generate_negative_to(path: str | Path) -> int:
    """Write the negative vectors (:func:`~finitedp.vectors.negative.negative_vectors`).

    Raises:
        OSError: the file cannot be written.
    """
    from .negative import negative_vectors

    return write_jsonl(negative_vectors(), path)
