"""Issue 41 item 5: what the Gaussian steps of PLAN and the vector sums cost to build.

Prints, for both discrete Gaussian laws (``noise_law="table"``: one table over
``[-R, R]``; ``"convolved"``: ConvolvedGaussian, the default), side by side in one
run, the time to construct:

* PLAN at setting A, ``d = 2048`` (``n = 4000``, box ``25 sqrt(d)``, grid 1/16) and
  at ``n = 10^5``, ``d = 1024``, for ``rho`` in ``{1/16, 1/4, 1}`` (target: <= 2 s);
* EllipticalGaussian over ``d = 10^5`` coordinates of a few grids (target: <= 2 s).

Construction decides everything from public values (shares, tables, statements);
no data is read.  Medians of ``--rounds`` rounds (default 3).

    .venv/bin/python benchmarks/bench_noise_setup.py [--rounds R]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from _timing import environment, print_table

from finitedp.aggregation.vectorsum import EllipticalGaussian
from finitedp.counting import convolvedtables, gaussiannoise
from finitedp.errors import FiniteDPError
from finitedp.mean import PLAN
from finitedp.selection import Grid

LAWS = ("table", "convolved")


def _time(build: Callable[[], Any], rounds: int) -> str:
    times = []
    for _ in range(rounds):
        convolvedtables.normal_table.cache_clear()  # every round builds from nothing
        convolvedtables.alias_table.cache_clear()
        gaussiannoise._convolved.cache_clear()
        start = time.perf_counter()
        try:
            build()
        except FiniteDPError as error:  # the one-table law refuses some sizes
            return f"refused ({type(error).__name__}, {time.perf_counter() - start:.2f} s)"
        times.append(time.perf_counter() - start)
    return f"{statistics.median(times):.2f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(environment())
    rows = []
    for label, n, d, box in (
        ("A d=2048", 4000, 2048, int(25 * 2048**0.5) + 1),
        ("n=10^5 d=1024", 100_000, 1024, 200),
    ):
        for rho in (Fraction(1, 16), Fraction(1, 4), Fraction(1)):
            cells = []
            for law in LAWS:

                def build(
                    law: str = law, box: int = box, d: int = d, n: int = n, rho: Fraction = rho
                ) -> PLAN:
                    return PLAN(-box, box, d=d, n=n, rho=rho, step=Fraction(1, 16), noise_law=law)

                cells.append(_time(build, args.rounds))
            rows.append((f"PLAN {label}", f"rho {rho}", *cells))
    grids = [Grid(0, 100, 1), Grid(-5, 5, Fraction(1, 4)), Grid(0, 1, 1), Grid(0, 10**4, 1)]
    coordinates = [grids[i % len(grids)] for i in range(100_000)]
    for rho in (Fraction(1, 100), Fraction(1)):
        cells = []
        for law in LAWS:
            cells.append(
                _time(
                    lambda law=law, rho=rho: EllipticalGaussian(
                        coordinates, 10**6, rho, noise_law=law
                    ),
                    args.rounds,
                )
            )
        rows.append(("EllipticalGaussian d=10^5", f"rho {rho}", *cells))
    print("\nConstruction time (targets: <= 2 s with the convolved law)")
    print_table(("what", "budget", "table law", "convolved law"), rows)


if __name__ == "__main__":
    main()
