"""Three histograms for a huge universe, side by side: what each lists, and what it promises.

The universe is every UTF-8 string of at most 3 bytes (|X| = 16,843,009), far
too many bins to add noise to each; the data are 300 airport codes.  All three
mechanisms take time independent of |X| (or polylogarithmic in it):

* StabilityHistogram (BV Thm 5.6): (eps, delta)-DP; lists only occupied bins
  whose noisy count clears a threshold b, so rare values vanish.
* PureSparseHistogram (BV Thm 6.11): pure (eps, 0)-DP; lists the n heaviest
  noisy bins of the whole universe, so most of what it lists are empty bins
  whose noise happened to be large, and its bound needs true counts above t.
* CompactHistogram (BV Thm 8.6): pure (eps, 0)-DP; a polynomial answering every
  value within a per-query error, with no threshold, at the cost of a larger
  release.

The noise is drawn from SeededSource so that the output is the same on every
run; that is for examples and tests only: anyone who knows the seed knows the
noise, so a production release must use the default source (the OS CSPRNG).
Run: python examples/sparse_histograms.py
"""

from __future__ import annotations

from collections import Counter

from finitedp import PureSparseHistogram, SeededSource, StabilityHistogram
from finitedp.compact.histogram import CompactHistogram
from finitedp.io.universe import parse_universe

EPSILON, DELTA, BETA = "1", "1/1000000", "1/10"


def main() -> None:
    universe = parse_universe("utf8:3")
    airports = {"ZRH": 120, "GVA": 80, "BSL": 40, "BRN": 20, "LUG": 8, "SIR": 3}
    rows = [code for code, count in airports.items() for _ in range(count)]
    rows += [f"{i:03d}" for i in range(300 - len(rows))]  # 29 values seen once
    truth = Counter(rows)
    data = [universe.encode(row) for row in rows]
    n, size = len(data), universe.size
    print(f"n = {n} rows, universe {universe.spec} with |X| = {size:,} values")

    stability = StabilityHistogram(n, size, EPSILON, DELTA, BETA)
    mechanisms = {
        "stability": stability,
        "pure-sparse": PureSparseHistogram(n, size, EPSILON, BETA),
        "compact": CompactHistogram(n, size, EPSILON, BETA),
    }
    releases = {
        name: mech.release(data, rng=SeededSource(f"sparse-example/{name}".encode()))
        for name, mech in mechanisms.items()
    }

    print("\nWhat each promises (beta = 1/10):")
    for name, mech in mechanisms.items():
        privacy, accuracy = mech.privacy, mech.accuracy(BETA)
        above = f" for true counts above t = {accuracy.threshold}" if accuracy.threshold else ""
        print(
            f"  {name:<12} ({privacy.epsilon}, {privacy.delta})-DP; per query "
            f"|error| <= {accuracy.per_query}{above}; all bins at once <= "
            f"{accuracy.simultaneous} ({accuracy.source})"
        )
    print(f"  (stability lists a bin only if its noisy count exceeds b = {stability.threshold})")

    print("\nThe same values read from each release:")
    queried = [*airports, "000", "JFK"]
    print(f"  {'value':<6} {'true':>5} {'stability':>10} {'pure-sparse':>12} {'compact':>8}")
    for code in queried:
        x = universe.encode(code)
        row = [releases[name][x] for name in mechanisms]
        print(f"  {code:<6} {truth[code]:>5} {row[0]:>10} {row[1]:>12} {row[2]:>8}")

    occupied = set(data)
    print("\nWhat each release lists, and its size:")
    for name, release in releases.items():
        size_bytes = len(release.to_json().encode("utf-8"))
        if name == "compact":
            listed = "every value (evaluate the polynomial)"
        else:
            spurious = sum(1 for x in release if x not in occupied)
            listed = f"{len(release)} bins, {spurious} of them empty in the data"
        print(f"  {name:<12} {listed}; JSON {size_bytes:,} bytes")

    print(
        "\nTrade-offs: stability is the most accurate but only (eps, delta)-DP and silent "
        "below b;\npure-sparse is pure DP but lists noise bins and only bounds counts above "
        "t;\ncompact is pure DP with a bound for every value, in a larger release."
    )


if __name__ == "__main__":
    main()
