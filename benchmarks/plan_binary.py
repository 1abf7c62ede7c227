"""PLAN on synthetic binary data: thesis Section 5.7.2's "Binary" setting (issue 24 item 3).

``n = 4096`` users, each a 0/1 vector of ``d`` coordinates, coordinate ``i`` set
with probability ``1/2`` for the first ``ratio d`` coordinates and ``1/100`` for
the rest (the authors' ``simulations/binary_experiments.py``, ``synthetic_data``).
For each ``d``, ``ratio`` and ``rho`` every algorithm runs on the same fresh data
per repetition, and the error is the authors' ``||estimate - p||_1 / 2`` against the
true ``p`` (also against the empirical mean):

* ``finitedp PLAN``: ``variance="binary"``, ``p = 1``, the rows given sparsely
  (:meth:`PLAN.release_sets`); exact, its accountant at most ``rho``;
* ``authors' PLAN``: ``plan.mean_estimation.plan_binary`` (``--peer DIR``), whose
  accounting is consistent with replace-one;
* ``IOME``: ``quantile_binary_search.method.random_rotation_mean`` on the dense
  rows, with the authors' call ``(0, sqrt(d))`` for the universe;
* ``Gaussian mechanism``: the column means with ``sigma = 2 sqrt(d)/(n sqrt(2 rho))``
  (floats: a floor, not a peer); ``empirical mean`` (non-private).

The peers use floats and numpy's generator; they are measured, never imported by
the package.  Run: ``.venv/bin/python benchmarks/plan_binary.py --peer DIR
[--quick] [--runs R] [--dims D,...]`` (``--quick``: d = 256 and 512, rho = 1/16,
1/4, 1).  With ``--peer``, each cell also prints the thesis' own medians (Figure 5.3
(a), from the authors' committed results) for comparison.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import time
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
from plan_experiments import committed_medians, report_cell  # as Section 5.7's A/B/C

from finitedp.mean import PLAN
from finitedp.oracle import SeededSource

N = 4096
AUTHORS = "authors' PLAN"


def synthetic(gen: np.random.Generator, d: int, ratio: float) -> tuple[np.ndarray, np.ndarray]:
    """Dense 0/1 rows and the true means (1/2 on the first ``ratio d`` coordinates)."""
    p = np.where(np.arange(d) < int(ratio * d), 0.5, 0.01)
    return (gen.uniform(size=(N, d)) < p).astype(np.int64), p


def thesis_medians(root: str) -> dict[tuple[int, float, Fraction], dict[str, float]]:
    """The medians behind the thesis' Figure 5.3 (a): the peer's committed
    ``experiments_results/synthetic/dataframe.csv`` (10 runs a cell): ``PLAN(paper),
    clipped`` and ``instance optimal, clipped``, whose error is ``||estimate - p||_1
    / 2`` against the true ``p`` (``binary_experiments.py``: ``synthetic_data``
    returns ``p`` as ``groundtruth``; its ``gt_p`` is the empirical mean), as this
    script's first column."""
    return committed_medians(
        root,
        "synthetic",
        "label",
        {"PLAN(paper), clipped": "PLAN", "instance optimal, clipped": "IOME"},
        lambda row: (
            (int(row["d"]), float(row["ratio"]), Fraction(row["rho"]))
            if int(row["n"]) == N
            else None
        ),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--peer", help="a checkout of ChristianLebeda/PLAN-experiments")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--runs", type=int, default=None)
    parser.add_argument("--dims", help="comma-separated d (default per mode)")
    args = parser.parse_args()
    runs = args.runs or (3 if args.quick else 10)
    dims = (256, 512) if args.quick else (256, 512, 1024, 2048)
    if args.dims:
        dims = tuple(int(d) for d in args.dims.split(","))
    thesis = thesis_medians(args.peer) if args.peer else {}
    rhos = (
        [Fraction(1, 16), Fraction(1, 4), Fraction(1)]
        if args.quick
        else [Fraction(1, 16), Fraction(1, 8), Fraction(1, 4), Fraction(1, 2), Fraction(1)]
    )
    ratios = (0.0, 0.25, 0.5, 0.75, 1.0)
    peer_plan: Any = None
    peer_iome: Any = None
    if args.peer:
        sys.path.insert(0, args.peer)
        from plan import mean_estimation  # type: ignore[import-not-found]
        from quantile_binary_search import method  # type: ignore[import-not-found]

        peer_plan, peer_iome = mean_estimation.plan_binary, method.random_rotation_mean
    gen = np.random.default_rng(2026)
    print(f"n = {N}; runs per cell: {runs}; error ||estimate - p||_1 / 2 (median / 90th pct)")
    print(
        f"{'d':>5}{'ratio':>6}{'rho':>6}  {'algorithm':<20}{'median':>10}{'p90':>10}"
        f"{'vs emp':>10}{'secs':>7}"
    )
    for d in dims:
        for ratio in ratios:
            for rho in rhos:
                algos: dict[str, Callable[[np.ndarray, list[list[int]], int], np.ndarray]] = {
                    "finitedp PLAN": lambda x, sets, r, d=d, rho=rho: np.array(
                        [
                            float(e)
                            for e in PLAN(0, 1, d=d, n=N, rho=rho, variance="binary", p=1)
                            .release_sets(sets, SeededSource(r.to_bytes(4, "big")))
                            .estimates
                        ]
                    ),
                    "Gaussian mechanism": lambda x, sets, r, d=d, rho=rho: (
                        x.mean(axis=0)
                        + gen.normal(0, 2 * np.sqrt(d) / (N * np.sqrt(2 * float(rho))), d)
                    ),
                    "empirical mean": lambda x, sets, r: x.mean(axis=0),
                }
                if peer_plan is not None:
                    algos[AUTHORS] = lambda x, sets, r, d=d, rho=rho: np.asarray(
                        peer_plan(sets, N, d, float(rho)).mean
                    )
                    algos["IOME"] = lambda x, sets, r, d=d, rho=rho: np.asarray(
                        peer_iome(x.astype(float), d, (0, d**0.5), p=float(rho)).mean
                    )
                errors: dict[str, list[tuple[float, float]]] = {k: [] for k in algos}
                secs = dict.fromkeys(algos, 0.0)
                for r in range(runs):
                    x, p = synthetic(gen, d, ratio)
                    sets = [np.nonzero(row)[0].tolist() for row in x]
                    emp = x.mean(axis=0)
                    for name, algo in algos.items():
                        start = time.perf_counter()
                        with contextlib.redirect_stdout(io.StringIO()):
                            est = algo(x, sets, r)
                        secs[name] += time.perf_counter() - start
                        errors[name].append(
                            (float(np.abs(est - p).sum() / 2), float(np.abs(est - emp).sum() / 2))
                        )
                medians = report_cell(f"{d:>5}{ratio:>6.2f}{rho!s:>6}", 20, errors, secs, runs)
                if "IOME" in medians:
                    ours = medians["finitedp PLAN"]
                    print(
                        f"{'':<19}IOME / finitedp PLAN = {medians['IOME'] / ours:.3g}; "
                        f"authors' PLAN / finitedp PLAN = {medians[AUTHORS] / ours:.3g}"
                    )
                reference = thesis.get((d, ratio, rho))
                if reference is not None and set(reference) == {"PLAN", "IOME"}:
                    print(
                        f"{'':<19}thesis (against p, 10 runs): PLAN "
                        f"{reference['PLAN']:.4g}, IOME {reference['IOME']:.4g}, "
                        f"IOME / PLAN = {reference['IOME'] / reference['PLAN']:.3g}"
                    )
                sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
