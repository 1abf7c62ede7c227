"""A compact histogram: one small polynomial that answers a noisy count for every value.

BV Section 8 (Alg 8.2, Thm 8.6): the release is a polynomial p of degree at
most n over GF(2^L); the count of value x is read as M0(p(phi(x))).  Occupied
values get FastSample's noisy count, every other value a noise count ((n+1)-wise
independent across values), and every answer is within the per-query
error a with probability 1 - beta, with no threshold and pure (eps, 0)-DP.

Here: 60 visits over the universe of all UTF-8 strings of at most 16 bytes
(|X| about 2^128), queried, written to JSON, read back and queried again.
The release is drawn from SeededSource so that the output is the same on every
run; that is for examples only: anyone who knows the seed knows the noise, so a
production release must use the default source (the OS CSPRNG).
Run: python examples/compact_release.py
"""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

from finitedp import SeededSource
from finitedp.compact import CompactHistogram, CompactRelease
from finitedp.io.universe import parse_universe

VISITS = Path(__file__).resolve().parent / "data" / "visits.csv"


def main() -> None:
    with VISITS.open(encoding="utf-8", newline="") as handle:
        cities = [row["city"] for row in csv.DictReader(handle)][:60]
    universe = parse_universe("utf8:16")
    data = [universe.encode(city) for city in cities]
    truth = Counter(cities)

    mech = CompactHistogram(n=len(data), universe_size=universe.size, epsilon="1/2", beta0="1/10")
    accuracy = mech.accuracy("1/10")
    print(f"{mech!r}")
    print(
        f"  field GF(2^{mech.d0.bit_length() - 1}) (level l = {mech.level}); "
        f"({mech.privacy.epsilon}, {mech.privacy.delta})-DP; "
        f"at most {mech.max_oracle_calls} oracle calls"
    )
    print(
        f"  per query: |error| <= {accuracy.per_query} with probability >= {1 - accuracy.beta}, "
        f"for every value; all |X| values at once: <= {accuracy.simultaneous}"
    )

    release = mech.release(data, rng=SeededSource(b"compact-example"))
    queried = [*sorted(truth, key=lambda city: (-truth[city], city))[:5], "Atlantis", ""]
    print("\nQueries:\n   true  released  value")
    for city in queried:
        print(f"  {truth[city]:>5} {release.count(universe.encode(city)):>9}  {city!r}")

    text = release.to_json()
    back = CompactRelease.from_json(text)
    same = back == release and all(
        back[universe.encode(city)] == release[universe.encode(city)] for city in queried
    )
    coefficient_bytes = (back.field.degree + 7) // 8
    print(f"\nJSON: {len(text.encode('utf-8')):,} bytes; read back equal, same answers: {same}")
    print(
        f"  {len(back.coefficients)} coefficients (n + 1) of {coefficient_bytes} bytes each: "
        f"L depends on |X| only through log|X|, where listing every value takes |X| entries"
    )
    print("  `finitedp query` reads this JSON too (its values are then the numbers 1..|X|).")


if __name__ == "__main__":
    main()
