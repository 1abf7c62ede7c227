"""CompactHistogram (BV Thm 8.6) at |X| = 2^64, eps = 1/2, beta0 = 2^-20: release, count, size.

Prints, with the field size L that Thm 8.6's exact formula gives:

1. field multiplication in GF(2^(2*3^l)) for l = 4..8: the 4-bit windowed method
   against Kronecker substitution through gmpy2, squaring, and a product by a
   universe point (at most 14 bits set, one shift per bit), plus one product in
   the subfield GF(2^162) in spread form (what interpolation does n^2 times);
2. n = 10^3 rows (n distinct bins, the worst case): a full release, its JSON size,
   the time of one count (best of 20 bins) and of 1000 counts through ``counts``,
   and the time to load the JSON;
3. n = 10^4 rows: the release is measured on a fraction of the interpolation
   nodes and extrapolated (said so in the output); one count and ``counts`` on a
   polynomial of the release's size (evaluation time does not depend on the
   coefficients' values), 10^4 counts extrapolated from 200.

Targets (from the issue): n = 10^3: release <= 10 s, one count <= 20 ms;
n = 10^4: release <= 120 s, one count <= 200 ms, 10^4 counts <= 10 min.

Run: ``.venv/bin/python benchmarks/bench_compact.py`` (about 3-5 minutes).
``--quick`` skips n = 10^4.  Timings depend on the machine's load, printed first.
"""

from __future__ import annotations

import os
import random
import sys
from fractions import Fraction
from time import perf_counter

from _timing import best_per_call, environment, fmt_time, print_table, repeat_call

from finitedp import FastSample, SystemRandomSource
from finitedp.compact import CompactHistogram, CompactRelease, UniverseMap
from finitedp.gf2 import _KRONECKER_FROM, GF2Field
from finitedp.polynomial import SpreadSubfield, _node_sums, _vanishing

UNIVERSE = 2**64
EPSILON = Fraction(1, 2)
BETA0 = Fraction(1, 2**20)
SOURCE = SystemRandomSource()
TARGETS = {
    (1000, "release"): 10.0,
    (1000, "count"): 0.020,
    (10000, "release"): 120.0,
    (10000, "count"): 0.200,
    (10000, "counts"): 600.0,
}


def verdict(n: int, what: str, seconds: float) -> str:
    """Display only: compare a measured time with the issue's target."""
    target = TARGETS.get((n, what))
    if target is None:
        return ""
    return f"(target {fmt_time(target)}: {'MET' if seconds <= target else 'MISSED'})"


def field_table() -> None:
    print("1. field multiplication (best of 3 runs of ~0.3 s each)\n")
    rows: list[list[object]] = []
    rng = random.Random(1)  # operands only; nothing private is computed
    phi = UniverseMap(4)
    for level in range(4, 9):
        field = GF2Field(level)
        a, b = rng.getrandbits(field.degree), rng.getrandbits(field.degree)
        point = field.embed(phi(2**64 - 12345), 4)  # a universe point: <= 14 bits set
        rows.append(
            [
                level,
                field.degree,
                fmt_time(best_per_call(repeat_call(field.mul_windowed, a, b))),
                fmt_time(best_per_call(repeat_call(field.mul_kronecker, a, b))),
                fmt_time(best_per_call(repeat_call(field.square, a))),
                fmt_time(best_per_call(repeat_call(field.mul_sparse, a, point))),
                "kronecker" if field.degree >= _KRONECKER_FROM else "windowed",
            ]
        )
    headers = ["l", "L", "windowed", "kronecker", "square", "by point", "mul uses"]
    print_table(headers, rows)
    k = SpreadSubfield(GF2Field(4))
    x, y = k.spread(rng.getrandbits(162)), k.spread(rng.getrandbits(162))
    spread = fmt_time(best_per_call(repeat_call(k.mul, x, y)))
    print(f"\nGF(2^162) product in spread form: {spread}")


def distinct_bins(n: int) -> list[int]:
    rng = random.Random(n)  # the benchmark's data, not a release
    rows: set[int] = set()
    while len(rows) < n:
        rows.add(rng.randrange(1, UNIVERSE + 1))
    return sorted(rows)


def describe(mech: CompactHistogram) -> str:
    degree = 2 * 3**mech.level
    sampler = mech.sampler
    assert isinstance(sampler, FastSample)
    return (
        f"l = {mech.level}, L = {degree} bits, bits(d) = {sampler.d.bit_length()}, "
        f"eps' = {sampler.epsilon}, gamma = 2^-{sampler.gamma.denominator.bit_length() - 1}"
    )


def time_counts(release: CompactRelease, bins: list[int]) -> tuple[float, float]:
    """(best single count over the bins, time of one ``counts`` call over all of them)."""
    best = float("inf")
    for x in bins[:20]:
        start = perf_counter()
        release.count(x)
        best = min(best, perf_counter() - start)
    start = perf_counter()
    release.counts(bins)  # default workers: 2 processes on a 2-CPU machine
    return best, perf_counter() - start


def full_case(n: int) -> None:
    mech = CompactHistogram(n, UNIVERSE, EPSILON, BETA0)
    print(f"\n2. n = {n}: {describe(mech)}")
    data = distinct_bins(n)
    start = perf_counter()
    release = mech.release(data, SOURCE)
    elapsed = perf_counter() - start
    text = release.to_json()
    print(f"   subfield of the universe: GF(2^{2 * 3**release.subfield_level})")
    figure = f"{fmt_time(elapsed)} {verdict(n, 'release', elapsed)}"
    print(f"   release (full run, {n} distinct bins, default workers): {figure}")
    print(f"   release size: {len(text.encode())} bytes of JSON")
    probes = [random.Random(7).randrange(1, UNIVERSE + 1) for _ in range(1000)]
    best, batch = time_counts(release, probes)
    print(f"   one count (best of 20): {fmt_time(best)} {verdict(n, 'count', best)}")
    print(f"   {len(probes)} counts through counts(): {fmt_time(batch)}")
    start = perf_counter()
    loaded = CompactRelease.from_json(text)
    print(f"   from_json: {fmt_time(perf_counter() - start)}; equal: {loaded == release}")


def extrapolated_case(n: int, fraction: Fraction) -> None:
    mech = CompactHistogram(n, UNIVERSE, EPSILON, BETA0)
    print(f"\n3. n = {n}: {describe(mech)}")
    data = distinct_bins(n)
    field = GF2Field(mech.level)
    phi = UniverseMap(4)
    fillers = [x for x in range(1, n + 2) if x not in set(data)][: n + 1 - len(data)]
    nodes = [phi(x) for x in data + fillers]
    values = [SOURCE.uniform(field.order) - 1 for _ in nodes]
    start = perf_counter()
    z = _vanishing(SpreadSubfield(GF2Field(4)), nodes)
    vanishing = perf_counter() - start
    part = max(1, int(len(nodes) * fraction))
    start = perf_counter()
    _node_sums(field.level, 4, z, nodes[:part], values[:part])
    per_node = (perf_counter() - start) / part
    serial = vanishing + per_node * len(nodes)
    print(
        f"   release EXTRAPOLATED from {part} of {len(nodes)} interpolation nodes "
        f"(one process): Z(X) {fmt_time(vanishing)} + {fmt_time(per_node)} per node "
        f"= {fmt_time(serial)} serial {verdict(n, 'release', serial)}"
    )
    workers = 2 if (os.cpu_count() or 1) >= 2 else 1
    if workers > 1:
        parallel = fmt_time(vanishing + per_node * len(nodes) / 2)
        print(f"   with the default 2 worker processes: about {parallel} (if both CPUs are free)")
    coefficients = [random.Random(3).getrandbits(field.degree) for _ in range(n + 1)]
    release = CompactRelease(mech.level, UNIVERSE, coefficients, mech.empty_bin)
    size = len(release.to_json().encode())
    print(f"   release size: {size} bytes of JSON")
    probes = [random.Random(9).randrange(1, UNIVERSE + 1) for _ in range(200)]
    best, batch = time_counts(release, probes)
    print(f"   one count (best of 20): {fmt_time(best)} {verdict(n, 'count', best)}")
    total = batch / len(probes) * n
    print(
        f"   {n} counts through counts(): EXTRAPOLATED from {len(probes)}: "
        f"{fmt_time(total)} {verdict(n, 'counts', total)}"
    )


def main() -> None:
    print(environment())
    print(f"|X| = 2^64, eps = {EPSILON}, beta0 = 2^-20, FastSample (Thm 8.6)\n")
    field_table()
    full_case(1000)
    if "--quick" not in sys.argv:
        extrapolated_case(10000, Fraction(1, 50))


if __name__ == "__main__":
    main()
