"""CompactHistogram (BV Thm 8.6) at |X| = 2^64, eps = 1/2, beta0 = 2^-20: release, count, size.

Prints, with the field size L that Thm 8.6's exact formula gives:

1. field multiplication in GF(2^(2*3^l)) for l = 4..8: the 4-bit windowed method,
   the byte-table method and Kronecker substitution through gmpy2 (and which one
   ``mul`` uses), squaring, and a product by a
   universe point (at most 14 bits set, one shift per bit); then one product of
   two packed polynomials of 5000 coefficients over the subfield GF(2^162)
   (``PackedPolyRing(4).mul``), the unit of work of the subproduct-tree
   interpolation;
2. n = 10^3 rows (n distinct bins, the worst case): a full release with the
   default workers (two forked processes on two or more CPUs) and with
   ``workers=1``, its JSON size, the time of one count (best of 20 bins) and of
   1000 counts through ``counts``, and the time to load the JSON;
3. n = 10^4 rows: a full release (default workers; about 30 s on a 2-core
   machine), its JSON size, the time to load it, one count (best of 20 bins)
   and 10^4 counts through ``counts`` on that release (a few minutes).

For both n it also prints what the ``"blocks"`` sampler did: how many of the
``s = 81`` coordinates of GF(2^13122) over GF(2^162) it had to interpolate
(those with ``a_r > 0``) and ``sum_r a_r`` (``a_r``: the bins whose dyadic block
reaches coordinate r), recorded by wrapping ``finitedp.compact.family._sample_blocks``.

Targets (from the issue): n = 10^3: release <= 10 s, one count <= 20 ms;
n = 10^4: release <= 120 s, one count <= 200 ms, 10^4 counts <= 10 min.

Run: ``.venv/bin/python benchmarks/bench_compact.py`` (about 8 minutes; 10^4 counts take ~6).
``--quick`` skips n = 10^4 (about 30 s).  ``--quick-counts`` measures 500 of
the 10^4 counts at n = 10^4 and extrapolates (said so in the output).
Timings depend on the machine's load, printed first.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from fractions import Fraction
from time import perf_counter
from typing import Any

from _timing import best_per_call, environment, fmt_time, print_table, repeat_call

import finitedp.compact.family
from finitedp import FastSample, SystemRandomSource
from finitedp.compact.gf2 import GF2Field
from finitedp.compact.histogram import CompactHistogram, CompactRelease, UniverseMap
from finitedp.compact.kpoly import PackedPolyRing

UNIVERSE = 2**64
EPSILON = Fraction(1, 2)
BETA0 = Fraction(1, 2**20)
SOURCE = SystemRandomSource()
#: Coefficients of each operand of the packed-polynomial product in section 1.
POLY_LENGTH = 5000
#: Counts measured at n = 10^4 under --quick-counts (the rest is extrapolated).
QUICK_COUNTS = 500
TARGETS = {
    (1000, "release"): 10.0,
    (1000, "count"): 0.020,
    (10000, "release"): 120.0,
    (10000, "count"): 0.200,
    (10000, "counts"): 600.0,
}


def verdict(n: int, what: str, seconds: float) -> str:
    """Display only: a measured time, compared with the issue's target if there is one."""
    target = TARGETS.get((n, what))
    if target is None:
        return fmt_time(seconds)
    met = "MET" if seconds <= target else "MISSED"
    return f"{fmt_time(seconds)} (target {fmt_time(target)}: {met})"


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
                fmt_time(best_per_call(repeat_call(field.mul_bytes, a, b))),
                fmt_time(best_per_call(repeat_call(field.mul_kronecker, a, b))),
                fmt_time(best_per_call(repeat_call(field.square, a))),
                fmt_time(best_per_call(repeat_call(field.mul_sparse, a, point))),
                field.method,
            ]
        )
    headers = ["l", "L", "windowed", "bytes", "kronecker", "square", "by point", "mul uses"]
    print_table(headers, rows)
    ring = PackedPolyRing(4)
    m = POLY_LENGTH
    x = ring.pack([rng.getrandbits(ring.width) for _ in range(m)])
    y = ring.pack([rng.getrandbits(ring.width) for _ in range(m)])
    product = fmt_time(best_per_call(repeat_call(ring.mul, x, m, y, m)))
    print(
        f"\nproduct of two packed polynomials of {m} coefficients over GF(2^{ring.width}) "
        f"(PackedPolyRing(4).mul, {ring.block}-bit blocks): {product}"
    )


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


class BlocksRecorder:
    """Wraps ``finitedp.compact.family._sample_blocks`` to keep its ``tops`` (the ``k_x``).

    The wrapper only stores references, so it adds nothing measurable to a release;
    ``a_r`` is computed afterwards, outside the timed region.
    """

    def __init__(self) -> None:
        self.calls: list[tuple[GF2Field, int, list[int]]] = []
        self._original: Callable[..., Any] = finitedp.compact.family._sample_blocks

    def __enter__(self) -> BlocksRecorder:
        original = self._original

        def wrapper(field: GF2Field, level: int, nodes: Any, tops: list[int], *rest: Any) -> Any:
            self.calls.append((field, level, tops))
            return original(field, level, nodes, tops, *rest)

        finitedp.compact.family._sample_blocks = wrapper
        return self

    def __exit__(self, *exc: object) -> None:
        finitedp.compact.family._sample_blocks = self._original

    def summary(self) -> str:
        """The coordinates interpolated and ``sum_r a_r`` of the first recorded release."""
        field, level, tops = self.calls[0]
        s = field.stride(level)
        counts = [sum(1 for k in tops if k >= s - r) for r in range(s)]
        active = [a for a in counts if a]
        if not active:
            return f"none of the s = {s} coordinates constrained (nothing interpolated)"
        return (
            f"{len(active)} of the s = {s} coordinates interpolated "
            f"(a_r > 0 for r >= {s - len(active)}), sum_r a_r = {sum(counts)} "
            f"(largest a_r = {max(active)}, |A| = {len(tops)})"
        )


def timed_release(
    mech: CompactHistogram, data: list[int], workers: int | None
) -> tuple[CompactRelease, float, BlocksRecorder]:
    with BlocksRecorder() as recorder:
        start = perf_counter()
        release = mech.release(data, SOURCE, workers=workers)
        elapsed = perf_counter() - start
    return release, elapsed, recorder


def best_count(release: CompactRelease, bins: list[int]) -> float:
    """The best time of a single ``count`` over the first 20 bins."""
    best = float("inf")
    for x in bins[:20]:
        start = perf_counter()
        release.count(x)
        best = min(best, perf_counter() - start)
    return best


def time_batch(release: CompactRelease, bins: list[int]) -> float:
    start = perf_counter()
    release.counts(bins)  # default workers: 2 processes on a 2-CPU machine
    return perf_counter() - start


def load(release: CompactRelease, text: str) -> str:
    start = perf_counter()
    loaded = CompactRelease.from_json(text)
    return f"{fmt_time(perf_counter() - start)}; equal: {loaded == release}"


def case(section: int, n: int, probes: int, serial: bool, quick_counts: bool) -> None:
    mech = CompactHistogram(n, UNIVERSE, EPSILON, BETA0)
    print(f"\n{section}. n = {n}: {describe(mech)}")
    data = distinct_bins(n)
    release, elapsed, recorder = timed_release(mech, data, None)
    print(f"   subfield of the universe: GF(2^{2 * 3**release.subfield_level})")
    figure = verdict(n, "release", elapsed)
    print(f"   release (full run, {n} distinct bins, default workers): {figure}")
    print(f"   blocks sampler: {recorder.summary()}")
    if serial:
        _, alone, _ = timed_release(mech, data, 1)
        print(f"   release (full run, workers=1): {verdict(n, 'release', alone)}")
    text = release.to_json()
    print(f"   release size: {len(text.encode())} bytes of JSON")
    print(f"   from_json: {load(release, text)}")
    bins = [random.Random(7).randrange(1, UNIVERSE + 1) for _ in range(probes)]
    best = best_count(release, bins)
    print(f"   one count (best of 20): {verdict(n, 'count', best)}")
    if quick_counts:
        measured = bins[:QUICK_COUNTS]
        total = time_batch(release, measured) / len(measured) * probes
        print(
            f"   {probes} counts through counts(): EXTRAPOLATED from {len(measured)} "
            f"(--quick-counts): {verdict(n, 'counts', total)}"
        )
    else:
        total = time_batch(release, bins)
        print(
            f"   {probes} counts through counts() (measured, default workers): "
            f"{verdict(n, 'counts', total)}"
        )


def main() -> None:
    print(environment())
    print(f"|X| = 2^64, eps = {EPSILON}, beta0 = 2^-20, FastSample (Thm 8.6)\n")
    field_table()
    case(2, 1000, 1000, serial=True, quick_counts=False)
    if "--quick" not in sys.argv:
        case(3, 10000, 10000, serial=False, quick_counts="--quick-counts" in sys.argv)


if __name__ == "__main__":
    main()
