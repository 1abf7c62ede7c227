"""Lebeda thesis Section 2.9 run with finitedp's exact ALP, beside the thesis' numbers.

* Fig 2.3a: the upper bound ``(1/2 + Lemma 2.10) alpha`` on the expected error of
  ALP1-Estimator for alpha in 0.1..10 and k/s in {0, 0.05, 0.1, 0.15, 0.2},
  computed exactly (``finitedp.alp.bounds``), and the minimum of each curve.
* Fig 2.4: the error distribution of ALP1-Estimator at eps = 1, alpha = 3, psi = 5000,
  collision probability 0.1 and 0.01 (mean absolute error, standard deviation,
  mean error, 90th percentile of |error|, extremes), against the thesis' figures.
* Fig 2.5: mean per-entry error of Alg 4 (s = 10k and s = infinity) against Alg 10
  (collisions 0.1 e^-eps, 0.1/eps and none) over eps.

The simulation is the thesis' (Section 2.9): one entry's path, worst-case hash
collisions at a fixed rate on every bit past ``y_i``; every bit is drawn exactly
(``flip_mask``, rational probabilities) and every error is an exact rational,
converted to float only for the printed statistics and the plots.

    .venv/bin/python benchmarks/alp_experiments.py [--quick] [--plots DIR]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
from _timing import environment, print_table

from finitedp.alp.bounds import entry_error_bound
from finitedp.alp.randomized import flip_mask, rand_round
from finitedp.oracle import RandomSource, SystemRandomSource, draws
from finitedp.ratio import GeometricRatio

PSI = 5000
F = Fraction


def _peak_averages(bits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # type: ignore[type-arg]
    """Alg 3 on each row of a 0/1 matrix: (sum of the maximisers, their number), exact ints."""
    runs, m = bits.shape
    f = np.zeros((runs, m + 1), dtype=np.int64)
    np.cumsum(2 * bits.astype(np.int64) - 1, axis=1, out=f[:, 1:])
    peaks = f == f.max(axis=1, keepdims=True)
    return (peaks * np.arange(m + 1)).sum(axis=1), peaks.sum(axis=1)


def _paths(y: np.ndarray, m: int, p: Fraction, up: Fraction, rng: RandomSource) -> np.ndarray:  # type: ignore[type-arg]
    """Noisy paths: bit j <= y_i is 1 w.p. 1 - p, bit j > y_i is 1 w.p. ``up`` (collisions)."""
    runs = len(y)
    keep = ~flip_mask(runs * m, p.numerator, p.denominator, rng).reshape(runs, m)
    stray = flip_mask(runs * m, up.numerator, up.denominator, rng).reshape(runs, m)
    below = np.arange(1, m + 1)[None, :] <= y[:, None]
    return np.where(below, keep, stray)


def _uniform(rng: RandomSource, top: int, count: int) -> np.ndarray:  # type: ignore[type-arg]
    return np.array(draws(rng, top + 1, count), dtype=np.int64) - 1


def alp1_errors(
    alpha: Fraction, collision: Fraction, runs: int, rng: RandomSource, grid: int = 100
) -> list[Fraction]:
    """x uniform on the 1/grid grid of [0, psi], ALP1 at eps = 1: the exact errors x~ - x."""
    m = -(-PSI // alpha)
    p = 1 / (alpha + 2)
    up = (1 - collision) * p + collision * (1 - p)
    q = (F(1, grid) / alpha).denominator
    xs = [F(int(u), grid) for u in _uniform(rng, PSI * grid, runs)]
    y = np.array([rand_round(x / alpha, q, rng) for x in xs], dtype=np.int64)
    totals, counts = _peak_averages(_paths(y, int(m), p, up, rng))
    return [alpha * F(int(t), int(c)) - x for t, c, x in zip(totals, counts, xs, strict=True)]


def alg4_mean_error(eps: Fraction, collision: Fraction, runs: int, rng: RandomSource) -> float:
    """Alg 4 + 5 at alpha = 3 on x a multiple of alpha/eps in [0, psi] (no rounding error)."""
    alpha = F(3)
    m = int(-(-PSI * eps // alpha))
    p = 1 / (alpha + 2)
    up = (1 - collision) * p + collision * (1 - p)
    y = _uniform(rng, int(PSI * eps // alpha), runs)
    totals, counts = _peak_averages(_paths(y, m, p, up, rng))
    scale = alpha / eps
    return statistics.fmean(
        float(abs(scale * (F(int(t), int(c)) - int(v))))
        for t, c, v in zip(totals, counts, y, strict=True)
    )


def alg10_mean_error(eps: Fraction, collision: Fraction, runs: int, rng: RandomSource) -> float:
    """Alg 10 + Alg 3 with finitedp's exact ratio b/a <= e^eps, x an integer in [0, psi]."""
    ratio = GeometricRatio.tight(2 * eps)  # a/b >= e^-eps
    p = F(ratio.a, ratio.a + ratio.b)
    up = (1 - collision) * p + collision * (1 - p)
    y = _uniform(rng, PSI, runs)
    totals, counts = _peak_averages(_paths(y, PSI, p, up, rng))
    return statistics.fmean(
        float(abs(F(int(t), int(c)) - int(v))) for t, c, v in zip(totals, counts, y, strict=True)
    )


def fig_2_3a() -> dict[Fraction, list[tuple[Fraction, Fraction]]]:
    curves = {}
    rows = []
    for collision in (F(0), F(1, 20), F(1, 10), F(3, 20), F(1, 5)):
        curve = [(F(a, 10), entry_error_bound(F(a, 10), collision)) for a in range(1, 101)]
        curves[collision] = curve
        best = min(curve, key=lambda point: point[1])
        at3 = dict(curve)[F(3)]
        rows.append(
            [str(collision), f"{float(best[0]):.1f}", f"{float(best[1]):.2f}", f"{float(at3):.2f}"]
        )
    print("\nFig 2.3a: upper bound on E|x - x~| at eps = 1 (exact; floats only for display)")
    print_table(["k/s", "argmin alpha", "min bound", "bound at alpha = 3"], rows)
    return curves


THESIS_2_4 = {
    F(1, 10): {
        "mean |err|": 6.4,
        "std": 11.0,
        "mean err": 2.33,
        "90th pct |err|": 15.78,
        "min": -114.0,
        "max": 274.0,
    },
    F(1, 100): {
        "mean |err|": 4.8,
        "std": 7.8,
        "mean err": 0.18,
        "90th pct |err|": 11.5,
        "min": float("nan"),
        "max": 147.0,
    },
}


def fig_2_4(runs: int, rng: RandomSource) -> dict[Fraction, list[float]]:
    out = {}
    rows = []
    for collision, thesis in THESIS_2_4.items():
        errors = [float(e) for e in alp1_errors(F(3), collision, runs, rng)]
        out[collision] = errors
        ours = {
            "mean |err|": statistics.fmean(abs(e) for e in errors),
            "std": statistics.pstdev(errors),
            "mean err": statistics.fmean(errors),
            "90th pct |err|": float(np.percentile(np.abs(errors), 90)),
            "min": min(errors),
            "max": max(errors),
        }
        for key, value in ours.items():
            rows.append([str(collision), key, f"{value:.2f}", f"{thesis[key]:.2f}"])
    print(f"\nFig 2.4: ALP1 at eps = 1, alpha = 3, psi = {PSI} ({runs:,} runs; the thesis 10^6)")
    print_table(["collision", "statistic", "finitedp", "thesis"], rows)
    return out


def fig_2_5(runs: int, rng: RandomSource, quick: bool) -> dict[str, list[tuple[float, float]]]:
    grid = [F(1, 4), F(1, 2), F(3, 4), F(1), F(3, 2), F(2), F(3), F(5), F(10)]
    if quick:
        grid = [F(1, 4), F(1), F(3), F(10)]
    series: dict[str, list[tuple[float, float]]] = {
        "Alg 4, s = 10k": [],
        "Alg 4, s = inf": [],
        "Alg 10, 0.1 e^-eps": [],
        "Alg 10, 0.1/eps": [],
        "Alg 10, s = inf": [],
    }
    rows = []
    for eps in grid:
        ratio = GeometricRatio.tight(2 * eps)
        values = {
            "Alg 4, s = 10k": alg4_mean_error(eps, F(1, 10), runs, rng),
            "Alg 4, s = inf": alg4_mean_error(eps, F(0), runs, rng),
            # 0.1 e^-eps as the exact rational 0.1 a/b (a/b is within 1% of e^-eps)
            "Alg 10, 0.1 e^-eps": alg10_mean_error(eps, F(1, 10) * ratio.alpha, runs, rng),
            "Alg 10, 0.1/eps": alg10_mean_error(eps, min(F(1, 10), F(1, 10) / eps), runs, rng),
            "Alg 10, s = inf": alg10_mean_error(eps, F(0), runs, rng),
        }
        for name, value in values.items():
            series[name].append((float(eps), value))
        rows.append([f"{float(eps):.2f}", *(f"{v:.3f}" for v in values.values())])
    print(f"\nFig 2.5: mean per-entry error, psi = {PSI}, alpha = 3 ({runs:,} runs per point)")
    print_table(["eps", *series], rows)
    return series


def _plot(directory: Path, curves: dict, errors: dict, series: dict) -> None:  # type: ignore[type-arg]
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed (pip install -e '.[plot]'): no plots", file=sys.stderr)
        return
    directory.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(6, 4))
    for collision, curve in curves.items():
        ax.plot(
            [float(a) for a, _ in curve],
            [float(v) for _, v in curve],
            label=f"k/s = {float(collision):g}",
        )
    ax.set(
        xlabel="alpha", ylabel="upper bound on E|x - x~|", ylim=(0, 60), title="Fig 2.3a (exact)"
    )
    ax.legend()
    fig.savefig(directory / "fig_2_3a.png", dpi=120, bbox_inches="tight")
    fig, ax = plt.subplots(figsize=(6, 4))
    for collision, errs in errors.items():
        ax.hist(
            errs,
            bins=120,
            range=(-60, 60),
            density=True,
            histtype="step",
            label=f"ALP, collision {float(collision):g}",
        )
    grid = np.linspace(-60, 60, 400)
    for scale in (1.0, 4.5):
        ax.plot(
            grid, np.exp(-np.abs(grid) / scale) / (2 * scale), "--", label=f"Laplace({scale:g})"
        )
    ax.set(xlabel="error x~ - x", ylabel="density", title="Fig 2.4 (eps = 1, alpha = 3)")
    ax.legend()
    fig.savefig(directory / "fig_2_4.png", dpi=120, bbox_inches="tight")
    fig, ax = plt.subplots(figsize=(6, 4))
    for name, points in series.items():
        ax.plot([e for e, _ in points], [v for _, v in points], marker="o", label=name)
    eps_grid = np.linspace(0.25, 10, 100)
    ax.plot(eps_grid, 1 / eps_grid, ":", label="1/eps")
    ax.plot(eps_grid, np.exp(-eps_grid), ":", label="1/e^eps")
    ax.set(xlabel="eps", ylabel="mean per-entry error", yscale="log", title="Fig 2.5")
    ax.legend(fontsize=7)
    fig.savefig(directory / "fig_2_5.png", dpi=120, bbox_inches="tight")
    print(f"\nplots written to {directory}/fig_2_3a.png, fig_2_4.png, fig_2_5.png")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs and points (~20 s)")
    parser.add_argument("--plots", type=Path, help="write PNG plots to this directory")
    args = parser.parse_args()
    print(environment())
    rng = SystemRandomSource()
    curves = fig_2_3a()
    errors = fig_2_4(4_000 if args.quick else 40_000, rng)
    series = fig_2_5(300 if args.quick else 2_000, rng, args.quick)
    if args.plots:
        _plot(args.plots, curves, errors, series)


if __name__ == "__main__":
    main()
