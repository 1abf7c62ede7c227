"""The strict-work discrete Gaussian against its peers, the private quantiles, the accountant.

Issue: "Noise for sums and means on a finite computer".  Prints, side by side in
one run (rounds interleaved, medians of 5 rounds):

1. Per sample and per 10^5-coordinate vector at sigma = 10, 10^3, 10^6:
   finitedp's ``DiscreteGaussian`` (default ChaCha source), OpenDP's
   ``make_gaussian`` on integers (CKS20 rejection, Rust), diffprivlib's
   ``GaussianDiscrete`` (its scale set to the same sigma), and the CKS20
   authors' reference ``discretegauss.py`` (``--ibm DIR``: a folder holding it,
   from IBM/discrete-gaussian-differential-privacy; run as a peer, never copied).
   The slow peers' vectors are timed on 10^4 coordinates and scaled (said so).
2. The spread of the time of single samples (2,000 each, after warm-up):
   median, 99th percentile and max over median.  finitedp makes one draw and
   the same number of comparisons whatever it draws; the rejection samplers'
   loops run a random number of times.
3. Table construction and memory of finitedp's law.
4. The private quantiles of 10^6 values (exponential and binary search).
5. What the accountant says for PLAN's default split (rho = 1/2 in four parts)
   at delta = 10^-6.

Floats appear only as measured times and printed figures.  Targets: at least
as fast as OpenDP per sample at sigma = 10^3; a 10^5 vector in <= 0.3 s; the
quantile of 10^6 values in <= 2 s.

    .venv/bin/python benchmarks/bench_gaussian.py [--ibm DIR] [--quick]
"""

from __future__ import annotations

import argparse
import importlib
import random
import statistics
import sys
import time
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from _timing import environment, print_table

from finitedp.accounting import Accountant, Guarantee, zcdp_to_dp_bs
from finitedp.counting.gaussian import DiscreteGaussian
from finitedp.oracle import default_source
from finitedp.selection import BinarySearchQuantile, ExponentialQuantile

SIGMAS = (10, 1000, 10**6)
ROUNDS = 5
VECTOR = 100_000
SLOW_VECTOR = 10_000


def _peers(ibm_dir: str | None) -> dict[str, Callable[[int], Any]]:
    """name -> factory(sigma) -> (one sample: () -> int, vector: (k) -> list)."""
    out: dict[str, Callable[[int], Any]] = {}
    try:
        import opendp.prelude as dp

        dp.enable_features("contrib")

        def opendp_factory(sigma: int) -> Any:
            one = dp.m.make_gaussian(
                dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=float(sigma)
            )
            vec = dp.m.make_gaussian(
                dp.vector_domain(dp.atom_domain(T=int)), dp.l2_distance(T=int), scale=float(sigma)
            )
            return (lambda: one(0)), (lambda k: vec([0] * k)), 1

        out["OpenDP make_gaussian"] = opendp_factory
    except ImportError:
        print("OpenDP not installed (pip install opendp): skipped")
    try:
        from diffprivlib.mechanisms import GaussianDiscrete

        def diffprivlib_factory(sigma: int) -> Any:
            # diffprivlib sets its scale from (eps, delta, sensitivity); its scale grows
            # with the sensitivity, so scale that (display only: this is the peer's setup).
            unit = GaussianDiscrete(epsilon=1, delta=1e-6)._scale
            mech = GaussianDiscrete(epsilon=1, delta=1e-6, sensitivity=max(1, round(sigma / unit)))
            return (lambda: mech.randomise(0)), (lambda k: [mech.randomise(0) for _ in range(k)]), 0

        out["diffprivlib GaussianDiscrete"] = diffprivlib_factory
    except Exception as error:  # a peer that fails to import is skipped
        print(f"diffprivlib unavailable ({type(error).__name__}): skipped")
    if ibm_dir:
        sys.path.insert(0, ibm_dir)
        module = importlib.import_module("discretegauss")
        rng = random.SystemRandom()

        def ibm_factory(sigma: int) -> Any:
            s2 = sigma * sigma
            return (
                lambda: module.sample_dgauss(s2, rng),
                lambda k: [module.sample_dgauss(s2, rng) for _ in range(k)],
                0,
            )

        out["CKS20 discretegauss.py"] = ibm_factory
    else:
        print("CKS20's discretegauss.py: pass --ibm DIR to run it as a peer")
    return out


def _finitedp(sigma: int) -> Any:
    g = DiscreteGaussian(sigma)
    source = default_source()
    return (lambda: g.sample(source)), (lambda k: g.sample_many(k, source)), 1


def _per_call(fn: Callable[[], Any], calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls


def _spread(fn: Callable[[], Any], calls: int = 2000) -> tuple[float, float, float]:
    for _ in range(200):
        fn()
    times = []
    for _ in range(calls):
        start = time.perf_counter_ns()
        fn()
        times.append(time.perf_counter_ns() - start)
    times.sort()
    median = statistics.median(times)
    return median / 1000, times[int(0.99 * len(times))] / 1000, times[-1] / median


def samplers(ibm_dir: str | None, quick: bool) -> None:
    factories = {"finitedp DiscreteGaussian": _finitedp, **_peers(ibm_dir)}
    rows = []
    spread_rows = []
    for sigma in SIGMAS:
        built = {}
        for name, make in factories.items():
            try:
                built[name] = make(sigma)
            except Exception as error:  # a peer that refuses sigma is skipped
                print(f"{name} at sigma = {sigma:,}: {type(error).__name__}: {error}")
        one: dict[str, list[float]] = {name: [] for name in built}
        vec: dict[str, list[float]] = {name: [] for name in built}
        for _ in range(2 if quick else ROUNDS):  # interleaved rounds
            for name, (sample, vector, fast) in built.items():
                one[name].append(_per_call(sample, 2000 if fast else 300))
                k = VECTOR if fast else SLOW_VECTOR
                start = time.perf_counter()
                vector(k)
                vec[name].append((time.perf_counter() - start) * VECTOR / k)
        base = statistics.median(one["finitedp DiscreteGaussian"])
        for name in built:
            med = statistics.median(one[name])
            scaled = "" if built[name][2] else f" (from {SLOW_VECTOR:,})"
            rows.append(
                (
                    f"{sigma:,}",
                    name,
                    f"{med * 1e6:.2f} us",
                    f"{med / base:.1f}x",
                    f"{statistics.median(vec[name]):.3f} s{scaled}",
                )
            )
            median, p99, worst = _spread(built[name][0], 500 if quick else 2000)
            spread_rows.append(
                (f"{sigma:,}", name, f"{median:.1f} us", f"{p99:.1f} us", f"{worst:.1f}x")
            )
    print("\n1. Per sample and per 10^5-coordinate vector (medians of interleaved rounds)")
    print_table(("sigma", "sampler", "per sample", "vs finitedp", "10^5 vector"), rows)
    print("\n2. Spread of single-sample times (after 200 warm-up calls)")
    print_table(("sigma", "sampler", "median", "99th pct", "max/median"), spread_rows)


def tables() -> None:
    rows = []
    for sigma in SIGMAS:
        start = time.perf_counter()
        g = DiscreteGaussian(sigma)
        elapsed = time.perf_counter() - start
        claim = g.zcdp(max(1, sigma // 10))
        rows.append(
            (
                f"{sigma:,}",
                f"{g.radius:,}",
                str(g.d.bit_length()),
                f"{g.table_bytes / 2**20:.1f} MiB",
                f"{elapsed:.2f} s",
                str(g.max_comparisons),
                f"{float(claim.rho):.6g} / {float(claim.rho_delta):.2g}",
            )
        )
    print("\n3. finitedp's tables (default precision) and the zCDP statement at Delta = sigma/10")
    print_table(
        ("sigma", "R", "bits of W", "memory", "build", "comparisons", "rho' / delta0"), rows
    )


def quantiles() -> None:
    rng = random.Random(7)
    values = [rng.randint(-1000, 1000) + rng.randint(-1000, 1000) for _ in range(10**6)]
    rows = []
    for name, make in (
        (
            "ExponentialQuantile (base 21/20)",
            lambda: ExponentialQuantile(-2000, 2000, quantile="1/2", n=len(values), base="21/20"),
        ),
        (
            "BinarySearchQuantile (eps = 1)",
            lambda: BinarySearchQuantile(-2000, 2000, quantile="1/2", n=len(values), epsilon=1),
        ),
    ):
        times = []
        for _ in range(3):
            start = time.perf_counter()
            result = make().release(values, default_source())
            times.append(time.perf_counter() - start)
        rows.append((name, f"{statistics.median(times):.2f} s", str(result)))
    print("\n4. Private median of 10^6 integer values on [-2000, 2000] (median of 3)")
    print_table(("mechanism", "time", "one release"), rows)


def accountant() -> None:
    acc = Accountant("replace one vector")
    for part in ("centre", "variance", "clip", "noise"):
        acc.add(Guarantee.zcdp(Fraction(1, 8), part))
    delta = Fraction(1, 10**6)
    eps = acc.epsilon_for(delta)
    bs = zcdp_to_dp_bs(Fraction(1, 2), delta)
    print("\n5. PLAN's default split: rho = 1/2 in four parts of 1/8, at delta = 10^-6")
    print(f"   CKS20 Cor 13: epsilon = {eps} = {float(eps):.6f}")
    print(f"   BS16 Prop 1.3: epsilon = {float(bs):.6f} (rounded up)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ibm", help="a folder holding CKS20's discretegauss.py")
    parser.add_argument("--quick", action="store_true", help="2 rounds instead of 5")
    args = parser.parse_args()
    print(environment())
    samplers(args.ibm, args.quick)
    tables()
    quantiles()
    accountant()


if __name__ == "__main__":
    main()
