"""BV's paper noise ratio ``2^k/(2^k+1)`` versus the tight rational ratio: accuracy and cost.

For ``eps`` in {1, 1/10, 1/100} and both noise modes (``noise="paper"``, the
default, and ``noise="tight"``) it prints

* the geometric ratio ``alpha = a/b`` (exact) and the share of the budget
  ``eps/2`` it spends, ``ln(b/a) / (eps/2)`` (paper mode spends between 4/9 and
  all of it; tight mode at least ``1 - slack`` = 99%);
* the standard deviation of the unclamped two-sided geometric noise,
  ``sqrt(2ab)/(b - a)`` (its variance ``2ab/(b - a)^2`` is computed exactly),
  against the ideal geometric with ratio ``e^(-eps/2)``, which spends exactly
  ``eps/2``: ``sqrt(2 alpha*)/(1 - alpha*)``;
* the cost: GeoSample at ``n = 10^3`` (bits of ``d``, time per sample) and
  FastSample at ``n = 10^5``, ``gamma = 2^-60`` (``t``, bits of ``d``,
  construction time, time per sample), with ``c = n // 2`` and the default
  CSPRNG source made once.

Every figure is computed exactly and converted to float only when printed.
FastSample keeps a table of ``2 min(t, n)`` integers of about ``t log2(b)``
bits each, so its memory grows like ``(log(n/gamma)/eps)^2``; a case whose table
would exceed ``MAX_TABLE_BYTES`` (1 GiB) is skipped with its size shown, unless
the script is run with ``--full``.

There are no targets here; the comparison shows what ``noise="tight"`` buys.
Timings are the best of 3 runs of ~0.3 s (``time.perf_counter``).
Run: ``.venv/bin/python benchmarks/bench_tight_vs_paper.py [--full]``.
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction

from _timing import best_per_call, environment, fmt_time, print_table, repeat_call

from finitedp import FastSample, GeoSample, SystemRandomSource
from finitedp.counting.fastsample import paper_threshold, tight_threshold
from finitedp.ratio import DEFAULT_SLACK, GeometricRatio

EPSILONS = (Fraction(1), Fraction(1, 10), Fraction(1, 100))
MODES = ("paper", "tight")
GEO_N = 10**3
FAST_N = 10**5
GAMMA = Fraction(1, 2**60)
MAX_TABLE_BYTES = 1 << 30

SOURCE = SystemRandomSource()


def ratio_for(eps: Fraction, mode: str) -> GeometricRatio:
    """The ratio the samplers pick for ``eps`` in this mode (as ``resolve_noise`` does)."""
    return (
        GeometricRatio.paper(eps) if mode == "paper" else GeometricRatio.tight(eps, DEFAULT_SLACK)
    )


def noise_variance(ratio: GeometricRatio) -> Fraction:
    """Exact variance ``2ab/(b - a)^2`` of the two-sided geometric ``Pr[z] ~ (a/b)^|z|``."""
    a, b = ratio.a, ratio.b
    return Fraction(2 * a * b, (b - a) ** 2)


def ideal_std(eps: Fraction) -> float:
    """Display only: the standard deviation of the geometric with ratio ``e^(-eps/2)``."""
    alpha = math.exp(-float(eps / 2))
    return math.sqrt(2 * alpha) / (1 - alpha)


def budget_share(ratio: GeometricRatio, eps: Fraction) -> float:
    """Display only: ``ln(b/a) / (eps/2)``, from the exact ``(b - a)/a`` via ``log1p``."""
    return math.log1p(float(Fraction(ratio.b - ratio.a, ratio.a))) / float(eps / 2)


def fast_table_bytes(n: int, eps: Fraction, ratio: GeometricRatio) -> tuple[int, int]:
    """FastSample's ``t`` and the approximate size of its search table, without building it."""
    t = paper_threshold(n, eps, GAMMA) if ratio.k is not None else tight_threshold(n, ratio, GAMMA)
    d_prime = (ratio.a + ratio.b) * ratio.b**t
    k_mix = (GAMMA.denominator - 1) * (n + 1)
    entry_bits = (2 * t * d_prime + k_mix * d_prime).bit_length()
    return t, 2 * min(t, n) * (entry_bits // 8 + 32)


def main() -> None:
    full = "--full" in sys.argv[1:]
    print(environment())
    print(f"tight mode slack = {DEFAULT_SLACK}; gamma = 2^-60; c = n // 2\n")

    quality: list[list[object]] = []
    cost: list[list[object]] = []
    notes: list[str] = []
    for eps in EPSILONS:
        ideal = ideal_std(eps)
        for mode in MODES:
            ratio = ratio_for(eps, mode)
            std = math.sqrt(noise_variance(ratio))
            quality.append(
                [
                    str(eps),
                    mode,
                    f"{ratio.a}/{ratio.b}",
                    f"{budget_share(ratio, eps):.4f}",
                    f"{std:.4g}",
                    f"{ideal:.4g}",
                    f"{std / ideal:.4f}",
                ]
            )

            geo = GeoSample(GEO_N, eps, noise=mode)
            geo_time = best_per_call(repeat_call(geo.sample, GEO_N // 2, SOURCE))
            row: list[object] = [
                str(eps),
                mode,
                geo.d.bit_length(),
                fmt_time(geo_time),
            ]
            del geo

            t, table_bytes = fast_table_bytes(FAST_N, eps, ratio)
            if table_bytes > MAX_TABLE_BYTES and not full:
                size = f"{table_bytes / 2**30:.1f} GiB"
                notes.append(f"* eps = {eps}, {mode}: skipped, its table would take ~{size}")
                cost.append([*row, t, "-", "skipped*", "-"])
                continue

            def build(eps: Fraction = eps, mode: str = mode) -> FastSample:
                return FastSample(FAST_N, eps, GAMMA, noise=mode)

            construct = best_per_call(repeat_call(build))
            fast = build()
            assert fast.t == t
            fast_time = best_per_call(repeat_call(fast.sample, FAST_N // 2, SOURCE))
            cost.append([*row, t, fast.d.bit_length(), fmt_time(construct), fmt_time(fast_time)])
            del fast

    print("noise: the ratio, the budget it spends, and the noise it adds\n")
    print_table(["eps", "mode", "a/b", "share of eps/2", "std", "ideal std", "std/ideal"], quality)
    print(f"\ncost: GeoSample n = {GEO_N}; FastSample n = {FAST_N}, gamma = 2^-60\n")
    print_table(
        [
            "eps",
            "mode",
            "Geo bits(d)",
            "Geo /sample",
            "Fast t",
            "Fast bits(d)",
            "Fast construct",
            "Fast /sample",
        ],
        cost,
    )
    for note in notes:
        print(f"{note} (run with --full to build it anyway)")


if __name__ == "__main__":
    main()
