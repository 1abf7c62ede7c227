"""Thesis chapter 4's comparison, exactly, and the speed of a 10^5-coordinate release.

Run (from the repository root; about two minutes)::

    .venv/bin/python benchmarks/bench_vector_sum.py [--quick]

1. **Exact expected error per split** (Zipf-skewed integer sensitivities
   ``Delta_i = max(1, floor(1000 / i))``, ``d`` from 10 to 10^5, ``p = 1, 2``):
   the objective ``F(b) = sum (Delta_i/b_i)^p`` of the standard mechanism
   (``b_i ∝ Delta_i``), Mark's proportional noise (``b_i`` equal), the sweet spot
   (``b_i ∝ sqrt(Delta_i)``) and the optimum, each as a ratio to the optimum's.
   The expected error is a constant times ``F`` (Lemmas 4.7 and 4.10), so the
   ratios are the chapter's; Corollary 4.1's closed forms are printed beside.
2. **The finite computer's cost**: the exact ``E ||eta||_p^p`` of the implemented
   noise (``moment``) against Lemma 4.7 / 4.10 for the same ``b`` (``ideal_moment``).
3. **Measured**: the mean of ``||eta||_p^p`` over releases against the exact value.
4. **Speed**: ``d = 10^5`` coordinates, ``n = 10^5`` rows: a long-format Parquet file
   (row, coordinate, value; 10 nonzero coordinates a row) summed exactly by DuckDB,
   then both mechanisms built and released; the process's peak RSS.  No library implements
   chapter 4 (the thesis gives no code); the floating-point baseline beside it is
   numpy's ``normal``/``laplace`` with the same scales, what a float library would do.

Floats appear only in what is printed.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import tempfile
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

from finitedp.aggregation import budget_split
from finitedp.aggregation.vectorsum import EllipticalGaussian, ParallelotopeLaplace
from finitedp.oracle import SeededSource
from finitedp.selection import Grid

SPLITS = (("standard", Fraction(1)), ("proportional", Fraction(0)), ("sweet spot", Fraction(1, 2)))


def zipf(d: int) -> list[int]:
    return [max(1, 1000 // (i + 1)) for i in range(d)]


def table_splits(dims: list[int]) -> None:
    print("1. Exact F(b)/F(optimum), Zipf Delta_i = max(1, floor(1000/i))")
    print(
        f"{'d':>7} {'noise':>9} {'p':>2} "
        + " ".join(f"{n:>13}" for n, _ in SPLITS)
        + f" {'Cor 4.1':>9} {'optimum factor-1':>17}"
    )
    for d in dims:
        deltas = zipf(d)
        for norm, noise in (("l2", "Gaussian"), ("l1", "Laplace")):
            for p in (1, 2):
                best = budget_split(deltas, norm, p=p)
                cells = []
                for _, e in SPLITS:
                    s = budget_split(deltas, norm, p=p, exponent=e)
                    cells.append(f"{float(s.objective / best.objective):>13.4f}")
                corollary = ""
                if norm == "l2":
                    l2 = sum(x * x for x in deltas) ** 0.5
                    if p == 1:
                        l23 = sum(x ** (2 / 3) for x in deltas) ** 1.5
                        corollary = f"{d * l2 / l23:>9.4f}"
                    else:
                        corollary = f"{(d**0.5 * l2 / sum(deltas)) ** 2:>9.4f}"
                print(
                    f"{d:>7} {noise:>9} {p:>2} "
                    + " ".join(cells)
                    + f" {corollary:>9} {float(best.factor - 1):>17.2e}"
                )


def table_costs(d: int, releases: int) -> None:
    print(f"\n2-3. Implemented vs ideal, and measured over {releases} releases (d = {d}, n = 1000)")
    grids = [Grid(0, x) for x in zipf(d)]
    rng = SeededSource(b"bench-vector-sum")
    print(
        f"{'mechanism':>22} {'p':>2} {'exact E||eta||_p^p':>20} {'ideal (Lemma)':>16} "
        f"{'ratio':>10} {'measured mean':>15} {'(meas/exact)':>12}"
    )
    for label, make, p in (
        ("Laplace eps=1", lambda p: ParallelotopeLaplace(grids, 1000, 1, p=p), 1),
        ("Laplace eps=1", lambda p: ParallelotopeLaplace(grids, 1000, 1, p=p), 2),
        ("Gaussian rho=1/2", lambda p: EllipticalGaussian(grids, 1000, "1/2", p=p), 2),
    ):
        mech = make(p)
        exact = mech.moment(p)
        ideal = mech.ideal_moment()
        sums = [0] * d
        errors = []
        for _ in range(releases):
            rel = mech.release_sums(sums, rng)
            errors.append(float(sum(abs(e) ** p for e in rel.estimates)))
        mean = statistics.fmean(errors)
        ideal_text = f"{float(ideal):>16.6g}" if ideal is not None else f"{'-':>16}"
        ratio = f"{float(exact / ideal):>10.6f}" if ideal is not None else f"{'-':>10}"
        print(
            f"{label:>22} {p:>2} {float(exact):>20.6g} {ideal_text} {ratio} "
            f"{mean:>15.6g} {mean / float(exact):>12.4f}"
        )


def write_long_parquet(path: Path, n: int, d: int, per_row: int) -> list[int]:
    import duckdb

    deltas = zipf(d)
    gen = np.random.default_rng(7)
    rows = np.repeat(np.arange(n, dtype=np.int64), per_row)
    coords = np.concatenate([gen.choice(d, per_row, replace=False) for _ in range(n)])
    values = (gen.random(n * per_row) * (np.array(deltas)[coords] + 1)).astype(np.int64)
    con = duckdb.connect()
    con.register("t", {"row": rows, "coordinate": coords, "value": values})
    con.execute(f"COPY t TO '{path}' (FORMAT PARQUET)")
    return deltas


def table_speed(n: int, d: int) -> None:
    import duckdb

    print(
        f"\n4. Speed: d = {d} coordinates, n = {n} rows, long-format Parquet "
        "(10 nonzero coordinates a row)"
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "vectors.parquet"
        deltas = write_long_parquet(path, n, d, 10)
        t0 = time.perf_counter()
        # Integer values on step-1 grids: DuckDB's HUGEINT sum is exact; absent entries are 0.
        got = duckdb.sql(
            f"SELECT coordinate, SUM(value)::HUGEINT AS s FROM '{path}' GROUP BY coordinate"
        ).fetchall()
        sums = [0] * d
        for c, s in got:
            sums[int(c)] = int(s)
        read = time.perf_counter() - t0
        grids = [Grid(0, x) for x in deltas]
        print(f"   DuckDB exact sums: {read:.2f} s")
        for label, make in (
            ("Laplace eps=1", lambda: ParallelotopeLaplace(grids, n, 1)),
            ("Gaussian rho=1/2", lambda: EllipticalGaussian(grids, n, "1/2")),
        ):
            t0 = time.perf_counter()
            mech = make()
            built = time.perf_counter() - t0
            t0 = time.perf_counter()
            mech.release_sums(sums)
            released = time.perf_counter() - t0
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
            print(
                f"   {label:>18}: build {built:.2f} s, release {released:.2f} s, "
                f"total with reading {read + built + released:.2f} s, "
                f"process peak RSS so far {peak / 2**20:.0f} MiB"
            )
        gen = np.random.default_rng(1)
        t0 = time.perf_counter()
        gen.normal(0, 1000.0, d)
        gen.laplace(0, 1000.0, d)
        print(
            f"   float baseline (numpy normal + laplace, no guarantee): "
            f"{time.perf_counter() - t0:.4f} s"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller d, fewer releases")
    args = parser.parse_args()
    dims = [10, 100, 1000] if args.quick else [10, 100, 1000, 10**4, 10**5]
    table_splits(dims)
    table_costs(100 if args.quick else 1000, 5 if args.quick else 20)
    table_speed(10**4 if args.quick else 10**5, 10**4 if args.quick else 10**5)


if __name__ == "__main__":
    main()
