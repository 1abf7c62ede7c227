"""PLAN on real binary data: the Kosarak head (issue 24 item 4; thesis Figure 5.3's setting).

Each of the 36,681 sessions of ``../shared/data/kosarak-head.dat`` (or the file
named by ``$FINITEDP_KOSARAK``) is a 0/1 vector over the d = 17,032 pages seen,
read sparsely: finitedp's :meth:`PLAN.release_sets` keeps ``O(items + d)`` memory
and never forms the ``n x d`` matrix.  For each ``rho`` and repetition it prints
the l1 error against the empirical mean (the thesis' measure for binary data) of

* ``finitedp PLAN``: ``variance="binary"``, ``p = 1`` (Section 5.7.1's binary
  instantiation), exact, its accountant at most ``rho``;
* ``authors' PLAN``: ``plan.mean_estimation.plan_binary`` of
  ChristianLebeda/PLAN-experiments (``--peer DIR``, run as a peer; its accounting
  is consistent with replace-one: per-coordinate mean sensitivity ``1/n`` over all
  ``d`` coordinates, a norm quantile of sensitivity 1, noise for ``2C``);
* ``Gaussian mechanism``: the column means with ``sigma = 2 sqrt(d)/(n sqrt(2 rho))``
  (a 0/1 row has l2 norm at most ``sqrt(d)``; floats: a floor, not a peer).

* ``IOME`` (``--peer``, ``--iome-runs``, 2 by default as in the thesis): the
  authors' ``random_rotation_mean`` on the rows padded to ``2^15`` columns, with
  ``u = (0, 2^7.5)``, ``T = 10``, as their ``binary_experiments.py`` calls it, run by
  ``iome_lean.iome``: the same algorithm and law in one ``n x 2^15`` array (9.6 GB)
  instead of the peer's dense ``2^15 x 2^15`` rotation matrices (8 GiB each, several
  alive) and copies of the data, which do not fit in this machine's 24 GB.
  ``iome_lean.py --check DIR`` shows it equal to the peer's function, seed for seed.

With ``--peer``, each ``rho`` also prints the thesis' own medians for the *full*
Kosarak (Figure 5.3 (b), the authors' committed results; their measure is half the
l1 error): orientation, not a like-for-like comparison (twice the sessions, more pages).

Run: ``.venv/bin/python benchmarks/plan_kosarak.py [--peer DIR] [--runs R] [--iome-runs K]``
(about a minute and 10 GB per IOME run).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np
from iome_lean import iome
from plan_experiments import committed_medians

from finitedp.mean import PLAN
from finitedp.oracle import SeededSource

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "kosarak-head.dat"


def read_sessions(path: Path) -> tuple[list[list[int]], int]:
    """Sessions as sorted lists of 0-based page indices, and d (the largest id)."""
    sessions = []
    top = 0
    with path.open(encoding="ascii") as handle:
        for line in handle:
            items = sorted({int(x) - 1 for x in line.split()})
            if items:
                top = max(top, items[-1] + 1)
            sessions.append(items)
    return sessions, top


def thesis_medians(root: str) -> dict[Fraction, dict[str, float]]:
    """The medians behind the thesis' Figure 5.3 (b): the authors' committed
    ``experiments_results/kosarak/dataframe.csv`` (the *full* Kosarak, n = 75,462,
    d = 27,983; 20 runs; ``||estimate - empirical mean||_1 / 2``): ``PLAN(paper)-clipped``
    and ``instance optimal``."""
    names = {"PLAN(paper)-clipped": "PLAN", "instance optimal": "IOME"}
    return committed_medians(root, "kosarak", "label", names, lambda row: Fraction(row["rho"]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--peer", help="a checkout of ChristianLebeda/PLAN-experiments")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--iome-runs", type=int, default=2, help="IOME runs per rho (0: none)")
    args = parser.parse_args()
    path = Path(os.environ.get("FINITEDP_KOSARAK", DATA))
    start = time.perf_counter()
    sessions, d = read_sessions(path)
    n = len(sessions)
    counts = np.bincount(
        np.concatenate([np.array(s, dtype=np.int64) for s in sessions]), minlength=d
    )
    empirical = counts / n
    print(
        f"{path.name}: n = {n}, d = {d}, {int(counts.sum())} items; read in "
        f"{time.perf_counter() - start:.1f} s"
    )
    peer = method = None
    thesis = thesis_medians(args.peer) if args.peer else {}
    if args.peer:
        sys.path.insert(0, args.peer)
        from plan import mean_estimation  # type: ignore[import-not-found]
        from quantile_binary_search import method  # type: ignore[import-not-found]

        peer = mean_estimation
    padded = 1 << (d - 1).bit_length()

    def dense_rows(r0: int, r1: int) -> np.ndarray:
        block = np.zeros((r1 - r0, padded))
        for i, items in enumerate(sessions[r0:r1]):
            block[i, items] = 1.0
        return block

    gen = np.random.default_rng(5)
    plan_peak = 0.0
    print(f"{'rho':>6}  {'algorithm':<20}{'l1 median':>11}{'l1 p90':>10}{'secs':>7}")
    for rho in (Fraction(1, 16), Fraction(1, 8), Fraction(1, 4), Fraction(1, 2), Fraction(1)):
        rows: dict[str, list[float]] = {"finitedp PLAN": [], "Gaussian mechanism": []}
        secs: dict[str, float] = {}
        if peer is not None:
            rows["authors' PLAN"] = []
        for r in range(args.runs):
            t = time.perf_counter()
            plan = PLAN(0, 1, d=d, n=n, rho=rho, variance="binary", p=1)
            release = plan.release_sets(sessions, SeededSource(r.to_bytes(4, "big")))
            estimate = np.array([float(e) for e in release.estimates])
            secs["finitedp PLAN"] = secs.get("finitedp PLAN", 0) + time.perf_counter() - t
            rows["finitedp PLAN"].append(float(np.abs(estimate - empirical).sum()))
            sigma = 2 * np.sqrt(d) / (n * np.sqrt(2 * float(rho)))
            gauss = empirical + gen.normal(0, sigma, d)
            rows["Gaussian mechanism"].append(float(np.abs(gauss - empirical).sum()))
            if peer is not None:
                t = time.perf_counter()
                out = peer.plan_binary(sessions, n, d, float(rho))
                secs["authors' PLAN"] = secs.get("authors' PLAN", 0) + time.perf_counter() - t
                rows["authors' PLAN"].append(float(np.abs(np.asarray(out.mean) - empirical).sum()))
        if not plan_peak:  # before the first IOME run
            plan_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        if method is not None and args.iome_runs > 0:
            rows["IOME"] = []
            np.random.seed(int(rho.denominator))
            for _ in range(args.iome_runs):
                t = time.perf_counter()
                out = iome(dense_rows, n, padded, (0, padded**0.5), float(rho), method)[:d]
                secs["IOME"] = secs.get("IOME", 0) + time.perf_counter() - t
                rows["IOME"].append(float(np.abs(out - empirical).sum()))
        for name, errors in rows.items():
            e = np.array(errors)
            print(
                f"{rho!s:>6}  {name:<20}{np.median(e):>11.4g}{np.percentile(e, 90):>10.4g}"
                f"{secs.get(name, 0.0) / len(errors):>7.2f}"
            )
        if "IOME" in rows:
            iome_median = np.median(rows["IOME"])
            authors = np.median(rows["authors' PLAN"])
            print(
                f"{'':>8}here: IOME / finitedp PLAN = "
                f"{iome_median / np.median(rows['finitedp PLAN']):.3g}, IOME / authors' PLAN = "
                f"{iome_median / authors:.3g}"
            )
        reference = thesis.get(rho, {})
        if set(reference) == {"PLAN", "IOME"}:
            print(
                f"{'':>8}thesis, the full Kosarak (l1 / 2, 20 runs): PLAN {reference['PLAN']:.4g}, "
                f"IOME {reference['IOME']:.4g}, IOME / PLAN = "
                f"{reference['IOME'] / reference['PLAN']:.3g}; finitedp here, l1 / 2: "
                f"{np.median(rows['finitedp PLAN']) / 2:.4g}"
            )
        sys.stdout.flush()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"peak resident memory {plan_peak:.0f} MiB before IOME ran, {peak:.0f} MiB in all "
        f"(dense int64 n x d would be {n * d * 8 / 2**30:.1f} GiB)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
