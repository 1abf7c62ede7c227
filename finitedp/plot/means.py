"""``finitedp plot means``: a PLAN release's estimates with their noise's error bars.

Paper: Lebeda thesis Figure 5.1 (d), the private mean; Alg 17 Line 8 for the scale.

Coordinate ``i``'s noise is the discrete Gaussian of variance ``sigma^2`` (the
document's ``accuracy.noise_sigma2_units``) in units of ``C/K``, then divided by
``n P_i`` and multiplied by the grid step: its standard deviation in the data's
units is ``sigma C step/(K n P_i)``; with repair rounds (a ``rounds`` list, whose
estimates are combined by inverse variance, weights ``s_t/C_t^2`` for each round's
``noise_share`` ``s_t``; 1 each where a document has none) ``sigma^2 C^2`` (the last
round's) becomes ``sigma^2 s_R/sum_t (s_t/C_t^2)``, folded into ``sigma2`` here.  The
bars are ``+-2`` of those (about 95 % of the noise alone; clipping's bias is not in
them, as the document says).
Everything is read from the document as exact fractions and converted to floats
only to be drawn.

>>> doc = {"release": {"type": "plan-mean", "n": 4, "estimates": ["1/2", "-3"],
...     "scales": [2, 1], "clip_radius": 8, "units": 2},
...     "parameters": {"columns": [{"name": "a", "step": "1/2"}, {"name": "b", "step": "1/2"}]},
...     "accuracy": {"noise_sigma2_units": "4"}}
>>> series = mean_series(doc, "doc")
>>> series.names, series.estimates, series.deviations     # 8 * (1/2) / (2 * 4 * P_i)
(('a', 'b'), (Fraction(1, 2), Fraction(-3, 1)), (Fraction(1, 4), Fraction(1, 2)))
>>> doc["release"]["rounds"] = [{"clip_radius": 16}, {"clip_radius": 8}]
>>> mean_series(doc, "doc").sigma2                          # 4 / (64 (1/256 + 1/64))
Fraction(16, 5)
>>> doc["release"]["rounds"][0]["noise_share"] = "1/4"       # the first round lighter
>>> doc["release"]["rounds"][1]["noise_share"] = "3/4"
>>> mean_series(doc, "doc").sigma2                    # 4 (3/4) / (64 (1/1024 + 3/256))
Fraction(48, 13)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction
from math import sqrt
from pathlib import Path
from typing import Any

from ..errors import ParameterError
from ..io.releases import document_field
from .fields import count, drawable, items, rational

__all__ = ["MAX_COORDINATES", "MeanSeries", "mean_series", "plot_estimates", "plot_means"]


@dataclass(frozen=True)
class MeanSeries:
    """What the picture needs: names, estimates, and each noise's standard deviation
    divided by ``sqrt(sigma^2)`` (``deviations``; times ``sigma`` gives it)."""

    names: tuple[str, ...]
    estimates: tuple[Fraction, ...]
    deviations: tuple[Fraction, ...]
    sigma2: Fraction

    def bars(self) -> list[float]:
        """The drawn half-widths, ``2 sigma deviations_i``: floats, for display only."""
        sigma = sqrt(float(self.sigma2))
        return [2 * sigma * float(dev) for dev in self.deviations]


_field = functools.partial(document_field, kind="a plan-mean release")


#: The most coordinates a means plot reads (PLAN's own limit on ``d``).
MAX_COORDINATES = 1 << 20

#: Above this many coordinates the picture is a summary (a bar each is unreadable,
#: and 41,271 of them took minutes and 1.5 million pixels): the estimates sorted with
#: their noise band, and a histogram of the bars' half-widths.
SUMMARY_ABOVE = 50

#: Inches at the 150 dpi of :func:`finitedp.plot.draw._save`: at most 2,000 x 1,200 px.
MAX_WIDTH, MAX_HEIGHT = 13.3, 8.0


def mean_series(document: Any, name: str) -> MeanSeries:
    """The estimates and their noise scales from a ``plan-mean`` document.

    Every figure is checked against what a release writes (:mod:`.fields`): positive
    ``n``, radius, units, scales, steps and ``sigma^2``; one column and one scale
    per estimate; rounds with positive radii and shares.

    Raises:
        ParameterError: not a ``plan-mean`` release, or a field missing or malformed.
    """
    release = _field(document, "release", name)
    if _field(release, "type", name) != "plan-mean":
        raise ParameterError(f"{name}: not a PLAN release (release type plan-mean)")
    columns = items(_field(document, "parameters", name), "columns", name, most=MAX_COORDINATES)
    estimates_in = items(release, "estimates", name, most=MAX_COORDINATES)
    scales_in = items(release, "scales", name, most=MAX_COORDINATES)
    if len({len(columns), len(estimates_in), len(scales_in)}) > 1:
        raise ParameterError(
            f"{name}: {len(estimates_in)} estimates, {len(scales_in)} scales and "
            f"{len(columns)} columns; a release has one of each per coordinate"
        )
    estimates = tuple(rational({"estimates": e}, "estimates", name) for e in estimates_in)
    scales = [count({"scales": s}, "scales", name) for s in scales_in]
    n, radius = count(release, "n", name), count(release, "clip_radius", name)
    units = count(release, "units", name)
    accuracy = _field(document, "accuracy", name)
    sigma2 = rational(accuracy, "noise_sigma2_units", name, positive=True)
    if "rounds" in release:  # the rounds' inverse-variance mean (weights s_t/C_t^2)
        rounds = items(release, "rounds", name, most=MAX_COORDINATES)
        radii = [count(r, "clip_radius", name) for r in rounds]
        shares = [rational(r, "noise_share", name, positive=True, default=1) for r in rounds]
        weights = sum((s / (r * r) for s, r in zip(shares, radii, strict=True)), Fraction(0))
        sigma2 *= shares[-1] / (radius * radius * weights)
    steps = [rational(c, "step", name, positive=True) for c in columns]
    deviations = tuple(
        Fraction(radius, units * n * scale) * step
        for scale, step in zip(scales, steps, strict=True)
    )
    names = tuple(str(_field(c, "name", name)) for c in columns)
    for figure in (sigma2, *deviations):
        drawable(figure, "the noise scale (clip_radius, units, n, scales, step)", name)
    return MeanSeries(names, estimates, deviations, sigma2)


def plot_means(document: Any, name: str, out_path: str | Path) -> Path:
    """Draw the estimates with ``+-2`` noise standard deviations (needs the ``plot`` extra).

    Raises:
        ParameterError: see :func:`mean_series`; a bad suffix or path.
        PlotExtraMissingError: matplotlib is not installed.
    """
    from .draw import _output_format, _rc, _require_matplotlib, _save

    fmt = _output_format(out_path)
    series = mean_series(document, name)
    matplotlib = _require_matplotlib()
    import matplotlib.pyplot as plt

    xs = list(range(len(series.names)))
    ys = [float(e) for e in series.estimates]
    bars = series.bars()
    with matplotlib.rc_context(_rc(matplotlib)):
        if len(xs) <= SUMMARY_ABOVE:
            figure, axes = plt.subplots(figsize=(min(MAX_WIDTH, max(6.0, 0.25 * len(xs))), 4))
            axes.errorbar(xs, ys, yerr=bars, fmt="o", ms=3, capsize=2, color="tab:green")
            axes.set_xticks(xs, series.names, rotation=60, fontsize="small")
            axes.set_xlabel("coordinate")
            axes.set_ylabel("private mean (+-2 noise s.d.)")
            axes.set_title("PLAN (thesis Alg 17): estimates and their noise")
        else:
            figure, (left, right) = plt.subplots(1, 2, figsize=(MAX_WIDTH, 5.5))
            order = sorted(xs, key=ys.__getitem__)
            sorted_ys = [ys[i] for i in order]
            low = [ys[i] - bars[i] for i in order]
            high = [ys[i] + bars[i] for i in order]
            left.fill_between(xs, low, high, color="tab:green", alpha=0.3, lw=0, label="+-2 s.d.")
            left.plot(xs, sorted_ys, lw=1, color="tab:green", label="estimate")
            left.set_xlabel(f"the {len(xs):,} coordinates, sorted by estimate")
            left.set_ylabel("private mean")
            left.legend(fontsize="small")
            right.hist(bars, bins=min(60, max(10, len(xs) // 50)), color="tab:blue")
            right.set_xlabel("noise half-width (2 s.d.) in the data's units")
            right.set_ylabel("coordinates")
            figure.suptitle(f"PLAN (thesis Alg 17): {len(xs):,} estimates and their noise")
        figure.tight_layout()
        return _save(figure, fmt, out_path)


def plot_estimates(document: Any, name: str, out_path: str | Path) -> Path:
    """Draw a column release's estimates (sums, quantiles): a point per column, or above
    :data:`SUMMARY_ABOVE` columns the estimates sorted (needs the ``plot`` extra).

    The document states no per-column noise band for these kinds (a sum's accuracy is
    a moment of the whole vector, a quantile's a rank error), so none is drawn.

    Raises:
        ParameterError: not a column release, or an estimate malformed or not drawable.
        PlotExtraMissingError: matplotlib is not installed.
    """
    from .draw import _output_format, _rc, _require_matplotlib, _save

    fmt = _output_format(out_path)
    rows = items(document if isinstance(document, dict) else {}, "estimates", name,
                 most=MAX_COORDINATES)  # fmt: skip
    names = [str(_field(r, "column", name)) for r in rows]
    values = [float(drawable(rational(r, "value", name), "value", name)) for r in rows]
    mechanism = str(document.get("mechanism", "release"))
    matplotlib = _require_matplotlib()
    import matplotlib.pyplot as plt

    xs = list(range(len(values)))
    with matplotlib.rc_context(_rc(matplotlib)):
        figure, axes = plt.subplots(figsize=(min(MAX_WIDTH, max(6.0, 0.25 * len(xs))), 4))
        if len(xs) <= SUMMARY_ABOVE:
            axes.plot(xs, values, "o", ms=4, color="tab:green")
            axes.set_xticks(xs, names, rotation=60, fontsize="small")
            axes.set_xlabel("column")
        else:
            axes.plot(xs, sorted(values), lw=1, color="tab:green")
            axes.set_xlabel(f"the {len(xs):,} columns, sorted by estimate")
        axes.set_ylabel("private estimate")
        axes.set_title(f"{mechanism}: the released estimates")
        figure.tight_layout()
        return _save(figure, fmt, out_path)
