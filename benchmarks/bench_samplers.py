"""Time per sample and construction time of GeoSample and FastSample.

Measures, with the default CSPRNG source (one ``SystemRandomSource`` made once):

* construction time ``GeoSample(n, eps)`` / ``FastSample(n, eps, gamma)``, and
* time per ``sampler.sample(c, rng)`` after construction, for ``c = n // 2`` and ``c = 0``,

for GeoSample with ``n`` in {10, 10^3, 10^4} and FastSample with ``n`` in
{10, 10^3, 10^5, 10^6}, ``eps`` in {1, 1/8}, ``gamma = 2^-60`` (paper mode),
together with the bit length of the oracle domain ``d`` and FastSample's
truncation ``t``.  Then the headline cases against their targets (with, for
information, the same FastSample in ``noise="tight"`` mode), and a split
of the FastSample headline's time per sample into the oracle draw and the
search (``sampler(c, u)`` on pre-drawn ``u``).

Targets (from the issue):

* FastSample(n=10^6, eps=1/2, gamma=2^-60): <= 3 us per sample;
* GeoSample(n=10^4): <= 2 ms per sample.

Each figure is the best of 3 runs, each run repeated until it lasts about
0.3 s (``time.perf_counter``).  Run: ``.venv/bin/python benchmarks/bench_samplers.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import partial

from _timing import (
    best_per_call,
    call_loop,
    environment,
    fmt_time,
    print_table,
    repeat_call,
)

from finitedp import FastSample, GeoSample, SystemRandomSource
from finitedp.counting.base import CountingSampler
from finitedp.oracle import draw

GAMMA = Fraction(1, 2**60)
EPSILONS = (Fraction(1), Fraction(1, 8))
GEO_NS = (10, 10**3, 10**4)
FAST_NS = (10, 10**3, 10**5, 10**6)

HEADLINE_FAST = (10**6, Fraction(1, 2), GAMMA)
TARGET_FAST = Fraction(3, 10**6)  # seconds per sample
TARGET_GEO = Fraction(2, 10**3)

#: The default CSPRNG source, made once and shared by every measurement.
SOURCE = SystemRandomSource()


def row(
    name: str, n: int, eps: Fraction, factory: Callable[[], CountingSampler]
) -> tuple[list[object], dict[int, float]]:
    """One table row: parameters, sizes, construction time and time per sample at two counts."""
    rng = SOURCE
    build = best_per_call(repeat_call(factory))
    sampler = factory()
    t = sampler.t if isinstance(sampler, FastSample) else "-"
    per_sample = {c: best_per_call(repeat_call(sampler.sample, c, rng)) for c in (n // 2, 0)}
    cells: list[object] = [
        name,
        n,
        str(eps),
        sampler.d.bit_length(),
        t,
        fmt_time(build),
        fmt_time(per_sample[n // 2]),
        fmt_time(per_sample[0]),
    ]
    return cells, per_sample


def verdict(seconds: float, target: Fraction) -> str:
    """Display only: compare a measured time with a target given as an exact fraction."""
    return "MET" if seconds <= float(target) else "MISSED"


def split(sampler: CountingSampler, c: int) -> list[list[object]]:
    """Where one sample's time goes: the oracle draw versus the search over pre-drawn ``u``."""
    rng, d = SOURCE, sampler.d

    def noop(_c: int, _u: int) -> None:
        return None

    def make_u() -> int:
        return rng.uniform(d)

    parts: list[tuple[str, float]] = [
        (
            "sampler.sample(c, rng)  [the whole sample]",
            best_per_call(repeat_call(sampler.sample, c, rng)),
        ),
        ("rng.uniform(d)          [oracle draw]", best_per_call(repeat_call(rng.uniform, d))),
        (
            "draw(rng, d)            [oracle draw + contract check]",
            best_per_call(repeat_call(draw, rng, d)),
        ),
        (
            "sampler(c, u)           [validated search, pre-drawn u]",
            best_per_call(call_loop(sampler, c, make_u)),
        ),
        (
            "sampler._search(c, u)   [search as sample() calls it]",
            best_per_call(call_loop(sampler._search, c, make_u)),
        ),
        (
            "noop(c, u)              [loop + call overhead baseline]",
            best_per_call(call_loop(noop, c, make_u)),
        ),
    ]
    times = dict(parts)
    uniform = times["rng.uniform(d)          [oracle draw]"]
    search = times["sampler._search(c, u)   [search as sample() calls it]"]
    parts.append(("uniform + _search       [sum of the two parts]", uniform + search))
    return [[label, fmt_time(seconds)] for label, seconds in parts]


def main() -> None:
    print(environment())
    print(
        "time per sample after construction (c = n//2 and c = 0), construction time; "
        "paper mode, gamma = 2^-60; best of 3 runs of ~0.3 s\n"
    )
    rows: list[list[object]] = []
    for eps in EPSILONS:
        for n in GEO_NS:
            rows.append(row("GeoSample", n, eps, partial(GeoSample, n, eps))[0])
    for eps in EPSILONS:
        for n in FAST_NS:
            rows.append(row("FastSample", n, eps, partial(FastSample, n, eps, GAMMA))[0])
    headers = ["sampler", "n", "eps", "bits(d)", "t", "construct", "c=n//2", "c=0"]
    print_table(headers, rows)

    print("\nheadline cases (targets from the issue)\n")
    n, eps, gamma = HEADLINE_FAST
    fast_cells, fast_times = row("FastSample", n, eps, partial(FastSample, n, eps, gamma))
    headline = [[*fast_cells, "<= 3 us", verdict(max(fast_times.values()), TARGET_FAST)]]
    tight = partial(FastSample, n, eps, gamma, noise="tight")
    tight_cells, tight_times = row("FastSample tight", n, eps, tight)
    headline.append([*tight_cells, "(info)", verdict(max(tight_times.values()), TARGET_FAST)])
    for geo_eps in EPSILONS:
        cells, times = row("GeoSample", 10**4, geo_eps, partial(GeoSample, 10**4, geo_eps))
        headline.append([*cells, "<= 2 ms", verdict(max(times.values()), TARGET_GEO)])
    print_table([*headers, "target", "verdict"], headline)

    sampler = FastSample(n, eps, gamma)
    for c in (n // 2, 0):
        print(
            f"\nsplit of one FastSample(n={n}, eps={eps}, gamma=2^-60) sample, c = {c} "
            f"(t = {sampler.t}, "
            f"bits(d) = {sampler.d.bit_length()}, table of {2 * min(sampler.t, n)} entries)\n"
        )
        print_table(["part", "time"], split(sampler, c))


if __name__ == "__main__":
    main()
