"""Time ApproxOrdSample (BV Alg 6.20) at the precision PureSparseHistogram needs.

Setting (BV Alg 6.9 and 6.21 at ``|X| = 2^64``): ``eps = 1/2``, ``beta1 = 2^-12``,
``delta = (eps/3) beta1 (1/(3 |X|))^n``, ``s = (n^2 + 2n) |X| / delta``,
``m = |X| - n`` (every bin empty but n), and
``F = FastSample(n, 1/2, gamma = 2^-10/(8 |X|)).scaled_cdf_at_zero``, for ``n`` in
{10, 100, 1000, 3000}.  Printed per ``n``: the bits of ``s``, the time of one
``approx_ord_sample(F, n, m, s, rng)`` call (best of 3 runs, each repeated until it
lasts about 0.3 s), the share of that time spent evaluating ``F`` at ``0..n``, the
oracle calls made, which pass computes the rounds of Alg 6.18 ("interval" when
``s`` is long enough, else "exact"), and how many rounds ran Alg 6.16 on the full
numbers (all of them in exact mode; in interval mode only the rounds whose draw
fell between the bounds, probability about 2^-60 per call, so expect 0).

Then, for scale, the same calls with the interval pass switched off (Alg 6.16 on
the full ``log2 s``-bit numbers at every step) for n = 100, and one
``t' = 1`` round of Alg 6.18 at n = 1000 both ways.  The target for the whole
PureSparseHistogram at n = 1000 is 10 s; the share of it this step takes is printed.

Run: ``.venv/bin/python benchmarks/bench_approx.py`` (about 1-2 minutes).
"""

from __future__ import annotations

from fractions import Fraction
from time import perf_counter
from typing import Any

import gmpy2
from _timing import best_per_call, environment, fmt_time, print_table, repeat_call

import finitedp.histograms.approx as approx_module
from finitedp import FastSample, RecordingSource, SystemRandomSource
from finitedp.histograms.approx import approx_ord_sample

UNIVERSE = 2**64
EPSILON = Fraction(1, 2)
BETA1 = Fraction(1, 2**12)
GAMMA = Fraction(1, 2**10) / (8 * UNIVERSE)
NS = (10, 100, 1000, 3000)
LITERAL_NS = (100,)
TARGET_SECONDS = 10  # the whole PureSparseHistogram at n = 1000

#: The default CSPRNG source, made once and shared by every measurement.
SOURCE = SystemRandomSource()


def precision(n: int) -> int:
    """``s = (n^2 + 2n) |X| / delta`` with ``delta`` of Alg 6.9; an integer."""
    delta = EPSILON / 3 * BETA1 * Fraction(1, 3 * UNIVERSE) ** n
    s = (n * n + 2 * n) * UNIVERSE / delta
    assert s.denominator == 1
    return s.numerator


def counted_run(n: int, s: int, cdf: Any) -> tuple[int, int, tuple[int, ...]]:
    """One call with the oracle calls and exact recomputations counted."""
    exact_calls = 0
    original = approx_module._conv_power

    def counting(*args: Any) -> Any:
        nonlocal exact_calls
        exact_calls += 1
        return original(*args)

    approx_module._conv_power = counting  # type: ignore[assignment]
    try:
        recorder = RecordingSource(SOURCE)
        out = approx_ord_sample(cdf, n, UNIVERSE - n, s, recorder)
    finally:
        approx_module._conv_power = original
    return len(recorder.tape), exact_calls, out


def literal_mode() -> Any:
    """Switch the interval pass off: Alg 6.16 on the full numbers. Returns the restorer."""
    original = approx_module._precision_shift
    approx_module._precision_shift = lambda i, s, t: 0  # type: ignore[assignment]

    def restore() -> None:
        approx_module._precision_shift = original

    return restore


def one_round(s: int, literal: bool) -> float:
    """Seconds for one t' = 1 round of Alg 6.18 (m = 2^64 - 1000, a tiny p as at the top)."""
    m = UNIVERSE - 1000
    p_scaled = s // 2**80
    a = [gmpy2.mpz(s - p_scaled)]
    start = perf_counter()
    if literal:
        approx_module._conv_power(a, m, s, 1)
    else:
        r = approx_module._precision_shift(m, s, 1)
        approx_module._conv_power_bounds(*approx_module._vector_bounds(a, r), m, s, 1, r)
    return perf_counter() - start


def main() -> None:
    print(environment())
    print(
        "ApproxOrdSample_F(m, s), m = 2^64 - n, s = (n^2+2n) 2^64 / delta, "
        "F = FastSample(n, 1/2, 2^-77) at count 0"
    )
    rows = []
    share_1000 = 0.0
    for n in NS:
        s = precision(n)
        sampler = FastSample(n, EPSILON, GAMMA)
        cdf = sampler.scaled_cdf_at_zero
        seconds = best_per_call(repeat_call(approx_ord_sample, cdf, n, UNIVERSE - n, s, SOURCE))
        start = perf_counter()
        for z in range(n + 1):
            cdf(z)
        f_seconds = perf_counter() - start
        draws, exact_calls, out = counted_run(n, s, cdf)
        if n == 1000:
            share_1000 = seconds / TARGET_SECONDS
        mode = "interval" if approx_module._precision_shift(UNIVERSE - n, s, 1) else "exact"
        rows.append(
            [
                n,
                s.bit_length(),
                mode,
                fmt_time(seconds),
                f"{100 * f_seconds / seconds:.1f}%",
                draws,
                exact_calls,
                f"{out[0]}..{out[-1]}",
            ]
        )
    print_table(
        ["n", "bits(s)", "pass", "time/call", "F share", "draws", "exact rounds", "c_0..c_n"],
        rows,
    )
    print(
        f"n = 1000: ApproxOrdSample takes {100 * share_1000:.1f}% of the "
        f"{TARGET_SECONDS} s PureSparseHistogram target"
    )

    print()
    print("Without the interval pass (Alg 6.16 on all log2(s) bits at every step):")
    rows = []
    restore = literal_mode()
    try:
        for n in LITERAL_NS:
            s = precision(n)
            cdf = FastSample(n, EPSILON, GAMMA).scaled_cdf_at_zero
            seconds = best_per_call(repeat_call(approx_ord_sample, cdf, n, UNIVERSE - n, s, SOURCE))
            rows.append([n, s.bit_length(), fmt_time(seconds)])
    finally:
        restore()
    print_table(["n", "bits(s)", "time/call"], rows)
    s = precision(1000)
    exact = min(one_round(s, literal=True) for _ in range(3))
    bounds = min(one_round(s, literal=False) for _ in range(3))
    print(
        f"n = 1000, one t' = 1 round of Alg 6.18 (64 levels of Alg 6.16): exact "
        f"{fmt_time(exact)}, interval pass {fmt_time(bounds)} ({exact / bounds:.0f}x); "
        f"about n - 200 = 800 such rounds per call at n = 1000"
    )


if __name__ == "__main__":
    main()
