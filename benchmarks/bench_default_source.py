"""The default randomness path against an explicit source (issue: performance, item 1).

``sampler.sample(c)`` without ``rng`` uses :func:`finitedp.oracle.default_source`,
one OS-seeded source per thread kept for the process; with ``rng`` the caller's
source.  Printed side by side, best of 3 runs each, and their ratio (target: at
most 1.5).  Interleaved: default, explicit, default, explicit.

    .venv/bin/python benchmarks/bench_default_source.py      # about 10 s
"""

from __future__ import annotations

from _timing import best_per_call, environment, fmt_time, print_table, repeat_call

from finitedp import FastSample, GeoSample
from finitedp.oracle import SystemRandomSource


def main() -> None:
    print(environment())
    explicit = SystemRandomSource()
    cases = [
        ("FastSample(1000, 1, 1/1000)", FastSample(1000, 1, "1/1000"), 500),
        ("GeoSample(1000, 1)", GeoSample(1000, 1), 500),
        ("GeoSample(100, 1/10)", GeoSample(100, "1/10"), 50),
    ]
    rows = []
    for name, sampler, c in cases:
        default_time = best_per_call(repeat_call(sampler.sample, c))
        explicit_time = best_per_call(repeat_call(sampler.sample, c, explicit))
        default_time = min(default_time, best_per_call(repeat_call(sampler.sample, c)))
        explicit_time = min(explicit_time, best_per_call(repeat_call(sampler.sample, c, explicit)))
        fresh_time = best_per_call(
            repeat_call(lambda c, s=sampler: s.sample(c, SystemRandomSource()), c)
        )
        rows.append(
            [
                name,
                fmt_time(default_time),
                fmt_time(explicit_time),
                f"{default_time / explicit_time:.2f}",
                fmt_time(fresh_time),
            ]
        )
    print("\nsample(c): default source (rng=None) against an explicit SystemRandomSource")
    print("(last column: a new source per call, the default path before this change)")
    print_table(["sampler", "default", "explicit", "default/explicit", "new source"], rows)


if __name__ == "__main__":
    main()
