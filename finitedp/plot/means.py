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
from ..params import exact_fraction

__all__ = ["MeanSeries", "mean_series", "plot_means"]


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


def mean_series(document: Any, name: str) -> MeanSeries:
    """The estimates and their noise scales from a ``plan-mean`` document.

    Raises:
        ParameterError: not a ``plan-mean`` release, or a field missing or malformed.
    """
    release = _field(document, "release", name)
    if _field(release, "type", name) != "plan-mean":
        raise ParameterError(f"{name}: not a PLAN release (release type plan-mean)")
    columns = _field(_field(document, "parameters", name), "columns", name)
    estimates = tuple(exact_fraction(e, "estimates") for e in _field(release, "estimates", name))
    scales = [int(s) for s in _field(release, "scales", name)]
    if not isinstance(columns, list) or len({len(columns), len(estimates), len(scales)}) > 1:
        raise ParameterError(f"{name}: parameters.columns: one per estimate")
    n, radius = int(_field(release, "n", name)), int(_field(release, "clip_radius", name))
    units = int(_field(release, "units", name))
    sigma2 = exact_fraction(
        _field(_field(document, "accuracy", name), "noise_sigma2_units", name), "sigma2"
    )
    if "rounds" in release:  # the rounds' inverse-variance mean (weights s_t/C_t^2)
        rounds = release["rounds"]
        radii = [int(_field(r, "clip_radius", name)) for r in rounds] if rounds else []
        if not isinstance(rounds, list) or not radii or min(radii) <= 0 or radius <= 0:
            raise ParameterError(f"{name}: rounds: a list of rounds with positive clip_radius")
        shares = [exact_fraction(r.get("noise_share", 1), "noise_share") for r in rounds]
        if min(shares) <= 0:
            raise ParameterError(f"{name}: rounds: every noise_share must be positive")
        weights = sum((s / (r * r) for s, r in zip(shares, radii, strict=True)), Fraction(0))
        sigma2 *= shares[-1] / (radius * radius * weights)
    steps = [exact_fraction(_field(c, "step", name), "step") for c in columns]
    deviations = tuple(
        Fraction(radius, units * n * scale) * step
        for scale, step in zip(scales, steps, strict=True)
    )
    names = tuple(str(_field(c, "name", name)) for c in columns)
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
        figure, axes = plt.subplots(figsize=(max(6.0, 0.25 * len(xs)), 4))
        axes.errorbar(xs, ys, yerr=bars, fmt="o", ms=3, capsize=2, color="tab:green")
        if len(xs) <= 40:
            axes.set_xticks(xs, series.names, rotation=60, fontsize="small")
        axes.set_xlabel("coordinate")
        axes.set_ylabel("private mean (+-2 noise s.d.)")
        axes.set_title("PLAN (thesis Alg 17): estimates and their noise")
        figure.tight_layout()
        return _save(figure, fmt, out_path)
