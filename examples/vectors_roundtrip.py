"""Reference test vectors: generate a few, check them, replay one by hand, catch a forgery.

Every finitedp mechanism is a deterministic function of its input and of the
oracle's answers u in [1, d] (BV Section 2.4).  A vector records the
parameters, the dataset, the tape of (d, u) pairs and the output, so another
implementation can replay the tape and must produce the same output
(finitedp.vectors; the call order of every mechanism is in SPEC.md).

The tapes come from SeededSource streams with fixed seeds, so the vectors are
the same on every run; a seeded source is for tests and vectors only, never for
a production release (anyone who knows the seed knows the noise).
Run: python examples/vectors_roundtrip.py
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from finitedp import BoundedGeometricHistogram, ReplaySource
from finitedp.vectors import generate, verify, write_jsonl

WANTED = ("GeoSample", "FastSample", "BoundedGeometricHistogram", "PureSparseHistogram")


def pick() -> list[dict[str, Any]]:
    """The first vector of each kind in WANTED (samplers: n = 10, c = 5) and one primitive."""
    chosen: dict[str, dict[str, Any]] = {}
    for vector in generate():
        name = vector.get("sampler") or vector["mechanism"]
        if vector["kind"] == "primitive":
            name = "primitive"
        wanted_case = "/n=10/" in vector["id"] and vector["id"].endswith("/c=5/u=F(5)+1")
        if vector["kind"] == "counting" and not wanted_case:
            continue
        if (name in WANTED or name == "primitive") and name not in chosen:
            chosen[name] = vector
    return list(chosen.values())


def replay_by_hand(vector: dict[str, Any]) -> bool:
    """Rebuild the mechanism from the vector's parameters and feed it the recorded tape."""
    p = vector["params"]
    mech = BoundedGeometricHistogram(
        int(p["n"]), int(p["universe_size"]), p["epsilon"], p["beta0"], counter=p["counter"]
    )
    tape = [(int(d), int(u)) for d, u in vector["tape"]]
    replay = ReplaySource(tape)  # raises TapeError if a call's d differs from the tape's
    release = mech.release([int(x) for x in vector["dataset"]], rng=replay)
    replay.assert_exhausted()
    recorded = [(int(x), int(c)) for x, c in vector["output"]["bins"]]
    print(f"  {vector['id']}")
    print(
        f"  dataset {[int(x) for x in vector['dataset']]}, {len(tape)} draws with "
        f"d of {tape[0][0].bit_length()} bits; replayed {list(release.bins)}, "
        f"recorded {recorded}"
    )
    return list(release.bins) == recorded


def main() -> None:
    vectors = pick()
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "vectors.jsonl"
        count = write_jsonl(vectors, path)
        print(f"wrote {count} vectors ({path.stat().st_size:,} bytes of JSON Lines):")
        for vector in vectors:
            print(f"  {vector['kind']:<9} {vector['id']}")
        print(f"verify: {verify(path).message()}")

        counting = vectors[1]
        below, u, at = (int(counting[key]) for key in ("F_below", "u", "F_at"))
        print(
            f"\nA counting vector ({counting['sampler']}): true count c = {counting['c']}, "
            f"draw u = F(5) + 1 ({u.bit_length()} bits),\n  output z = {counting['output']}: "
            f"the least z with F(z) >= u; F(z - 1) < u <= F(z) holds: {below < u <= at}"
        )

        print("\nOne histogram vector, replayed by hand:")
        histogram = next(v for v in vectors if v.get("mechanism") == "BoundedGeometricHistogram")
        print(f"  same output: {replay_by_hand(histogram)}")

        # A forged vector: one released count changed.  Verification replays the
        # tape, recomputes the output and names the line and the id that differ.
        forged = json.loads(json.dumps(histogram))
        x, c = forged["output"]["bins"][0]
        forged["output"]["bins"][0] = [x, str(int(c) + 1)]
        write_jsonl([v if v is not histogram else forged for v in vectors], path)
        print(f"\nafter changing one count: verify: {verify(path).message()}")


if __name__ == "__main__":
    main()
