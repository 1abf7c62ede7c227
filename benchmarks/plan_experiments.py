"""Thesis Section 5.7 at equal *true* privacy: finitedp's PLAN, the authors' code, IOME.

Issues 24 (item 3) and 28 (item 2).  For each setting (Gaussian A: no skew;
B: Zipf skew ``sigma_i^2 = (d/i)^alpha``; C: alpha = 2 over dimensions) and each
``rho``, every algorithm runs on the same fresh data per repetition:

* ``finitedp PLAN``: :class:`finitedp.mean.PLAN` on the data rounded to a grid of
  1/16 (exact; its accountant states at most ``rho``);
* ``authors' PLAN (published)``: ``plan.mean_estimation.plan`` of
  ChristianLebeda/PLAN-experiments at 94470ac, run as published with ``rho`` (its
  label) -- its **true** ``rho`` is recomputed by finitedp's accountant from its
  steps (see :func:`published_true_rho`) and printed beside it;
* ``authors' PLAN (corrected)``: the same code with the accounting corrected --
  the quantiles' rank sensitivity 1 (``swap=True``) and the tripled rows charged
  ``rho/9`` (the preprocessing gets a third of its budget) -- so its true ``rho`` is
  the label;
* ``IOME``: ``quantile_binary_search.method.random_rotation_mean`` (Huang-Liang-Yi,
  the authors' copy; its accounting is replace-one consistent);
* ``Gaussian mechanism``: the mean clipped to the public box, ``sigma = 2 M sqrt(d)/(n
  sqrt(2 rho))`` (floats: a floor, not a peer);
* ``empirical mean`` (non-private).

Printed per cell: the median and 90th percentile of the l2 error against the true
mean (and against the empirical mean), the ratios IOME / finitedp PLAN, and, where the
thesis has the cell, the medians behind its Figure 5.2 (the authors' committed
``experiments_results``, 50 runs, published accounting) for comparison.

The peers are read from a checkout given by ``--peer DIR`` (for example
``git -C $(fetch ChristianLebeda/PLAN-experiments) archive HEAD | tar -x -C DIR``);
without it only finitedp's rows and the baselines run.  They use floats and numpy's
generator: they are peers to measure against, never part of the package.

Run: ``python benchmarks/plan_experiments.py --quick --peer /tmp/plan-peer`` (a few
minutes), or without ``--quick`` for the thesis' sizes (A: n = 4000, d = 64, 512,
2048; B: n = 10^4, d = 512, alpha = 0 to 2 by 1/2; C: n = 10^4, alpha = 2, d as A;
hours on 2 cores: ``--runs`` and ``--only`` split it).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from finitedp.accounting import Accountant, Guarantee
from finitedp.mean import PLAN
from finitedp.oracle import SeededSource

GRID = 16  # the data are rounded to multiples of 1/16 for finitedp


@dataclass(frozen=True)
class Setting:
    name: str
    n: int
    d: int
    alpha: float
    mean: float
    universe: float  # M: the box is [-M, M]^d

    def sigmas(self) -> np.ndarray:
        return np.array([(self.d / i) ** (self.alpha / 2) for i in range(1, self.d + 1)])


def settings(quick: bool) -> list[Setting]:
    """A, B, C of Section 5.7.2 at the sizes of the authors' committed results
    (``experiments_results/gaussian{A,B,C}``); ``--quick`` scales them down."""
    out = []
    a_dims = (64, 512) if quick else (64, 512, 2048)
    for d in a_dims:
        out.append(Setting("A", 4000, d, 0.0, 0.0, 25 * d**0.5))
    b_d, alphas = (256, (0.0, 1.0, 2.0)) if quick else (512, (0.0, 0.5, 1.0, 1.5, 2.0))
    for alpha in alphas:
        s = Setting("B", 10_000, b_d, alpha, 10.0, 0.0)
        out.append(Setting("B", s.n, b_d, alpha, 10.0, 50 * b_d * s.sigmas().max() ** 0.5))
    for d in a_dims:
        s = Setting("C", 10_000, d, 2.0, 10.0, 0.0)
        out.append(Setting("C", s.n, d, 2.0, 10.0, 50 * d * s.sigmas().max() ** 0.5))
    return out


def committed_medians(
    root: str,
    folder: str,
    label: str,
    names: dict[str, str],
    key: Callable[[dict[str, str]], Any],
) -> dict[Any, dict[str, float]]:
    """Median errors per cell and algorithm in the authors' committed results
    (``experiments_results/<folder>/dataframe.csv`` of the peer checkout): the rows
    whose column ``label`` is in ``names`` (renamed by it), grouped by ``key(row)``
    (``None``: skipped).  Empty if the file is absent."""
    path = os.path.join(root, "experiments_results", folder, "dataframe.csv")
    runs: dict[Any, dict[str, list[float]]] = {}
    if os.path.exists(path):
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                cell = key(row)
                if row[label] in names and cell is not None:
                    algos = runs.setdefault(cell, {})
                    algos.setdefault(names[row[label]], []).append(float(row["error"]))
    return {c: {a: float(np.median(v)) for a, v in algos.items()} for c, algos in runs.items()}


class Thesis:
    """The medians behind the thesis' Figure 5.2: the peer's committed result CSVs.

    ``experiments_results/gaussian{A,B,C}/dataframe.csv`` (50 runs a cell, the
    published accounting): the l2 error against the true mean (``baseline_comparison.py``
    with ``compare_empirical_mean = False``) of the published PLAN
    (``PLAN-E-ULTIMATE++`` in A and B, ``PLAN`` in C) and of IOME (``Instance
    optimal``).
    """

    def __init__(self, root: str) -> None:
        names = {"PLAN-E-ULTIMATE++": "PLAN", "PLAN": "PLAN", "Instance optimal": "IOME"}
        self.cells: dict[tuple[str, int, int, float, Fraction], dict[str, float]] = {}
        for name in "ABC":
            self.cells |= committed_medians(
                root,
                f"gaussian{name}",
                "Algorithm",
                names,
                lambda row, name=name: (
                    name,
                    int(row["n"]),
                    int(row["d"]),
                    float(row["r"]),
                    Fraction(row["rho"]),
                ),
            )

    def line(self, s: Setting, rho: Fraction) -> str | None:
        cell = self.cells.get((s.name, s.n, s.d, s.alpha, rho))
        if cell is None or set(cell) != {"PLAN", "IOME"}:
            return None
        return (
            f"thesis (published accounting, 50 runs): PLAN {cell['PLAN']:.4g}, "
            f"IOME {cell['IOME']:.4g}, IOME / PLAN = {cell['IOME'] / cell['PLAN']:.3g}"
        )


# -- finitedp -------------------------------------------------------------------------------------


def finitedp_plan(
    data: np.ndarray, setting: Setting, rho: Fraction, seed: int, selection: Any = None
) -> np.ndarray:
    m = int(np.ceil(setting.universe))
    idx = np.clip(np.round((data + m) * GRID), 0, 2 * m * GRID).astype(np.int64)
    options = {} if selection is None else {"selection": selection}
    plan = PLAN(-m, m, d=setting.d, n=setting.n, rho=rho, step=Fraction(1, GRID), **options)
    release = plan.release_indices(idx, SeededSource(seed.to_bytes(8, "big")))
    return np.array([float(e) for e in release.estimates])


# -- the peers ------------------------------------------------------------------------------------


def published_true_rho(rho: Fraction, n: int, d: int, k: float) -> Fraction:
    """The published Gaussian PLAN's true zCDP under replace-one, by finitedp's accountant.

    Its steps (``plan/mean_estimation.py``): budget ``rho/4`` to centre (1/4) and
    spread (3/4), per coordinate, divided by 3 for the tripled rows; the rest split
    1/4 radius, 3/4 noise.  Each quantile is the exponential mechanism with
    ``eps = sqrt(8 rho')`` and weights ``exp(eps u/(2 s))``, ``s = max(q, 1 - q)``:
    a replaced row moves the rank utility by 1 (3 for a tripled row), so the weights
    move by ``e^(eps t/(2 s))`` and the mechanism is ``eps t/s``-bounded-range, that is
    ``(eps t/s)^2/8 = rho' (t/s)^2``-zCDP.  The noise is right (sensitivity 2C).
    """
    acc = Accountant("replace one row")
    pre, rest = rho / 4, rho * 3 / 4
    median_factor = Fraction(3 * 2) ** 2  # t = 3 (tripled rows), s = 1/2
    acc.add(Guarantee.zcdp(pre / 4 / d / 3 * median_factor, "centre"), d)
    acc.add(Guarantee.zcdp(pre * 3 / 4 / d / 3 * median_factor, "spread"), d)
    q = Fraction(1 - k)  # the radius' quantile, s = max(q, 1 - q) = q (t = 1: norms of x)
    acc.add(Guarantee.zcdp(rest / 4 / q**2, "radius"))
    acc.add(Guarantee.zcdp(rest * 3 / 4, "noise"))
    total = acc.total().rho
    assert total is not None
    return total


class Peer:
    """The authors' code, imported from a checkout (``--peer``)."""

    def __init__(self, root: str) -> None:
        sys.path.insert(0, root)
        from plan import mean_estimation  # type: ignore[import-not-found]
        from quantile_binary_search import method  # type: ignore[import-not-found]
        from util.parameters import AlgorithmParameters  # type: ignore[import-not-found]

        self.me, self.method, self.params = mean_estimation, method, AlgorithmParameters
        self._kaplan = mean_estimation.kaplan_quantile

    def _input(self, data: np.ndarray, s: Setting, rho: float) -> Any:
        return self.params(
            data.copy(),
            s.d,
            (-s.universe, s.universe),
            rho,
            alpha=0.1,
            variance=0.1,
            step=20,
            k=0,
            cov=None,
            recenter_and_std_budget_proportion=0.25,
            recenter_budget_proportion=0.25,
            top_k_budget_proportion=0.25,
            fill=False,
            regularization=True,
            k_groups=1,
            max_std_distance=2,
            kaplan=True,
            chisquared=True,
            beta=0.1,
        )  # Section 5.7.2 / baseline_comparison.py, k_groups = 1 as in the thesis text

    def clip_fraction(self, s: Setting, rho: float) -> float:
        """``k/n`` as ``_topk_method`` computes it (the radius quantile is ``1 - k``)."""
        t = np.log(2 * s.universe)
        top_k = 0.25 * 0.75 * rho
        return float((np.sqrt(s.n) + np.sqrt(t / 2 * np.log(t / 0.1) / top_k)) / s.n)

    def published(self, data: np.ndarray, s: Setting, rho: float) -> np.ndarray:
        self.me.kaplan_quantile = self._kaplan
        with contextlib.redirect_stdout(io.StringIO()):
            return np.asarray(self.me.plan(self._input(data, s, rho)).mean)

    def corrected(self, data: np.ndarray, s: Setting, rho: float) -> np.ndarray:
        original = self._kaplan

        def swap(arr: Any, bounds: Any, q: float, r: float, _: Any) -> Any:
            return original(arr, bounds, q, r, True)  # rank sensitivity 1: replace-one

        self.me.kaplan_quantile = swap
        try:
            x = self._input(data, s, rho)
            with contextlib.redirect_stdout(io.StringIO()):
                pre = self.me._variance_aware_mean_pair_sample_quantile(x, rho * 0.25 / 3)
                out = self.me._topk_method(
                    x, rho * 0.75, pre.center_predictions, pre.std_predictions
                )
            return np.asarray(out.mean)
        finally:
            self.me.kaplan_quantile = original

    def iome(self, data: np.ndarray, s: Setting, rho: float) -> np.ndarray:
        with contextlib.redirect_stdout(io.StringIO()):
            out = self.method.random_rotation_mean(
                data.copy(), s.d, (-s.universe, s.universe), rho, 20, 0.25
            )
        return np.asarray(out.mean)


def gaussian_mechanism(
    data: np.ndarray, s: Setting, rho: float, gen: np.random.Generator
) -> np.ndarray:
    sigma = 2 * s.universe * np.sqrt(s.d) / (s.n * np.sqrt(2 * rho))
    return np.clip(data, -s.universe, s.universe).mean(axis=0) + gen.normal(0, sigma, s.d)


# -- the run --------------------------------------------------------------------------------------


def report_cell(
    cell: str,
    width: int,
    errors: dict[str, list[tuple[float, float]]],
    seconds: dict[str, float],
    runs: int,
) -> dict[str, float]:
    """Print one line per algorithm (median and 90th percentile of the error against the
    truth, median against the empirical mean, seconds a run); return the medians."""
    medians = {}
    for name, errs in errors.items():
        true_err = np.array([e[0] for e in errs])
        emp_err = np.array([e[1] for e in errs])
        medians[name] = float(np.median(true_err))
        print(
            f"{cell}  {name:<{width}}{np.median(true_err):>10.4g}"
            f"{np.percentile(true_err, 90):>10.4g}{np.median(emp_err):>10.4g}"
            f"{seconds[name] / runs:>7.2f}"
        )
    return medians


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="scaled down: a few minutes")
    parser.add_argument("--peer", help="a checkout of ChristianLebeda/PLAN-experiments")
    parser.add_argument("--runs", type=int, default=None, help="repetitions per cell")
    parser.add_argument(
        "--only", help="cells to run, as SET:d (for instance A:2048,C:512); default all"
    )
    parser.add_argument(
        "--selection",
        action="append",
        choices=("exponential", "binary", "gaussian"),
        help="finitedp PLAN's per-coordinate quantiles (repeat for several rows); default its own",
    )
    parser.add_argument("--rhos", help="the budgets, comma-separated fractions (default per mode)")
    args = parser.parse_args()
    runs = args.runs or (3 if args.quick else 20)
    rhos = (
        [Fraction(1, 16), Fraction(1, 4), Fraction(1)]
        if args.quick
        else [Fraction(1, 16), Fraction(1, 8), Fraction(1, 4), Fraction(1, 2), Fraction(1)]
    )
    if args.rhos:
        rhos = [Fraction(r) for r in args.rhos.split(",")]
    peer = Peer(args.peer) if args.peer else None
    thesis = Thesis(args.peer) if args.peer else None
    gen = np.random.default_rng(2026)
    print(f"runs per cell: {runs}; errors are l2 against the true mean (median / 90th pct)")
    header = (
        f"{'set':<4}{'n':>6}{'d':>6}{'alpha':>6}{'rho':>6}  {'algorithm':<28}"
        f"{'median':>10}{'p90':>10}{'vs emp':>10}{'secs':>7}"
    )
    print(header)
    wanted = None if args.only is None else set(args.only.split(","))
    for s in settings(args.quick):
        if wanted is not None and f"{s.name}:{s.d}" not in wanted:
            continue
        sig = s.sigmas()
        for rho in rhos:
            algos: dict[str, Callable[[np.ndarray, int], np.ndarray]] = {}
            for sel in args.selection or [None]:
                name = "finitedp PLAN" if sel is None else f"finitedp PLAN ({sel})"
                algos[name] = lambda x, r, s=s, rho=rho, sel=sel: finitedp_plan(x, s, rho, r, sel)
            algos |= {
                "Gaussian mechanism": lambda x, r, s=s, rho=rho: gaussian_mechanism(
                    x, s, float(rho), gen
                ),
                "empirical mean": lambda x, r: x.mean(axis=0),
            }
            if peer is not None:
                true = published_true_rho(rho, s.n, s.d, peer.clip_fraction(s, float(rho)))
                algos[f"authors PLAN (true {float(true):.3g})"] = lambda x, r, s=s, rho=rho: (
                    peer.published(x, s, float(rho))
                )
                algos["authors PLAN (corrected)"] = lambda x, r, s=s, rho=rho: peer.corrected(
                    x, s, float(rho)
                )
                algos["IOME"] = lambda x, r, s=s, rho=rho: peer.iome(x, s, float(rho))
            errors: dict[str, list[tuple[float, float]]] = {k: [] for k in algos}
            seconds: dict[str, float] = dict.fromkeys(algos, 0.0)
            for r in range(runs):
                data = gen.normal(s.mean, sig, size=(s.n, s.d))
                data = np.round(data * GRID) / GRID  # everyone sees the same grid data
                truth = np.full(s.d, s.mean)
                emp = data.mean(axis=0)
                for name, algo in algos.items():
                    start = time.perf_counter()
                    est = algo(data, r)
                    seconds[name] += time.perf_counter() - start
                    errors[name].append(
                        (float(np.linalg.norm(est - truth)), float(np.linalg.norm(est - emp)))
                    )
            cell = f"{s.name:<4}{s.n:>6}{s.d:>6}{s.alpha:>6.1f}{rho!s:>6}"
            medians = report_cell(cell, 28, errors, seconds, runs)
            ours = next(k for k in medians if k.startswith("finitedp PLAN"))
            if "IOME" in medians:
                ratio = medians["IOME"] / medians[ours]
                corrected = medians["IOME"] / medians["authors PLAN (corrected)"]
                print(
                    f"{'':<28}IOME / finitedp PLAN = {ratio:.3g}; "
                    f"IOME / corrected = {corrected:.3g}"
                )
            reference = None if thesis is None else thesis.line(s, rho)
            if reference is not None:
                print(f"{'':<28}{reference}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
