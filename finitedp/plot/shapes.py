"""Thesis Figure 4.1: where a two-column sum is private, for three budget splits.

Paper: Lebeda thesis Figure 4.1 (Section 4.3): a release of ``d = 2`` columns with
sensitivities ``Delta = (Delta_1, Delta_2)`` is private for every difference of
sums inside an ellipse (Alg 15: ``sum (x_i b_i/Delta_i)^2 <= 1``) or a
parallelogram (Alg 16: ``sum |x_i| b_i/Delta_i <= 1``) whose semi-axes are
``Delta_i/b_i``; every one of them reaches the corners of the box
``[-Delta_1, Delta_1] x [-Delta_2, Delta_2]`` of possible differences.

``finitedp plot shapes RELEASE.json --out FIG.png`` draws that box and three
shapes: the standard mechanism (``Delta_i/b_i`` equal), Mark's proportional noise
(``b_i`` equal), and the release's own split (read exactly from the document).
The legend gives each split's ``sum (Delta_i/b_i)^p`` (the error is a constant
times it, Lemmas 4.7 and 4.10) relative to the release's.  The shapes of the
standard and proportional splits involve square roots; they are drawn only, in
floating point (display).

>>> s = shape_series({"release": {"type": "vector-sum"}, "parameters": {"rho": "1/2",
...     "p": 2, "shares": ["2/3", "1/3"], "columns": [{"name": "a", "lower": "0",
...     "upper": "4", "step": "1"}, {"name": "b", "lower": "0", "upper": "1", "step": "1"}]}},
...     "fig")
>>> s.kind, s.deltas, s.shares, s.objective
('gaussian', (Fraction(4, 1), Fraction(1, 1)), (Fraction(2, 3), Fraction(1, 3)), Fraction(45, 1))
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..errors import ParameterError
from ..io.releases import document_field
from .fields import drawable, items, rational

__all__ = ["ShapeSeries", "plot_shapes", "shape_series"]


@dataclass(frozen=True)
class ShapeSeries:
    """The exact data of Figure 4.1 for one two-column release."""

    kind: str  # "gaussian" (ellipses) or "laplace" (parallelograms)
    p: int
    names: tuple[str, str]
    deltas: tuple[Fraction, Fraction]
    shares: tuple[Fraction, Fraction]

    @property
    def objective(self) -> Fraction:
        """``sum (Delta_i/b_i)^p`` of the release's split, exactly."""
        return sum(
            ((d / b) ** self.p for d, b in zip(self.deltas, self.shares, strict=True)), Fraction(0)
        )

    def axes(self) -> dict[str, tuple[float, float]]:
        """Semi-axes ``Delta_i/b_i`` of the three shapes (display: floats)."""
        d1, d2 = (float(d) for d in self.deltas)
        if self.kind == "gaussian":
            standard = math.hypot(d1, d2)
            return {
                "standard (Alg 14)": (standard, standard),
                "proportional (Mark)": (math.sqrt(2) * d1, math.sqrt(2) * d2),
                "this release": (
                    float(self.deltas[0] / self.shares[0]),
                    float(self.deltas[1] / self.shares[1]),
                ),
            }
        return {
            "standard (Laplace)": (d1 + d2, d1 + d2),
            "uniform b": (2 * d1, 2 * d2),
            "this release": (
                float(self.deltas[0] / self.shares[0]),
                float(self.deltas[1] / self.shares[1]),
            ),
        }


_field = functools.partial(document_field, kind="a sum release of finitedp release")


#: The largest exponent ``p`` whose objective a plot evaluates (the API's own limit).
MAX_P = 64


def shape_series(document: Any, name: str) -> ShapeSeries:
    """Figure 4.1's data from a ``finitedp release`` document of a two-column sum.

    The document must hold what a release writes (:mod:`.fields`): two columns with
    ``lower < upper`` and a positive step, positive shares whose norm is at most 1
    (``sum b_i <= 1`` for Laplace, ``sum b_i^2 <= 1`` for the Gaussian), a positive
    ``epsilon`` or ``rho`` and an integer ``1 <= p <= 64``.

    Raises:
        ParameterError: not a sum release, not two columns, or a malformed field.
    """
    release = _field(document, "release", name)
    if _field(release, "type", name) != "vector-sum":
        raise ParameterError(f"{name}: not a sum of numeric columns (release type vector-sum)")
    parameters = _field(document, "parameters", name)
    columns = items(parameters, "columns", name, most=2)
    shares = items(parameters, "shares", name, most=2)
    if len(columns) != 2 or len(shares) != 2:
        raise ParameterError(f"{name}: Figure 4.1 needs a release of exactly two columns")
    deltas = []
    for column in columns:
        lower, upper = rational(column, "lower", name), rational(column, "upper", name)
        rational(column, "step", name, positive=True)
        if lower >= upper:
            raise ParameterError(f"{name}: columns: lower {lower} is not below upper {upper}")
        deltas.append(drawable(upper - lower, "upper - lower", name))
    b = tuple(rational({"shares": s}, "shares", name, positive=True) for s in shares)
    kind = "gaussian" if "rho" in parameters else "laplace"
    budget = "rho" if kind == "gaussian" else "epsilon"
    rational(parameters, budget, name, positive=True)
    norm = sum(x * x for x in b) if kind == "gaussian" else sum(b)
    if norm > 1:
        raise ParameterError(
            f"{name}: shares: their {'squares sum' if kind == 'gaussian' else 'sum'} to "
            f"{float(norm):.6g}; a budget split spends at most the budget (at most 1)"
        )
    p = _field(parameters, "p", name)
    if type(p) is not int or not 1 <= p <= MAX_P:
        raise ParameterError(f"{name}: p: got {p!r:.30}; an integer from 1 to {MAX_P}")
    names = (str(_field(columns[0], "name", name)), str(_field(columns[1], "name", name)))
    return ShapeSeries(kind, p, names, (deltas[0], deltas[1]), (b[0], b[1]))


def plot_shapes(document: Any, name: str, out_path: str | Path) -> Path:
    """Draw Figure 4.1 for a two-column sum release (needs the ``plot`` extra).

    Raises:
        ParameterError: see :func:`shape_series`; a bad suffix or path.
        PlotExtraMissingError: matplotlib is not installed.
    """
    from .draw import _output_format, _rc, _require_matplotlib, _save

    fmt = _output_format(out_path)
    series = shape_series(document, name)
    matplotlib = _require_matplotlib()
    import matplotlib.pyplot as plt

    with matplotlib.rc_context(_rc(matplotlib)):
        figure, axes = plt.subplots(figsize=(6, 7))
        d1, d2 = (float(d) for d in series.deltas)
        axes.plot(
            [-d1, d1, d1, -d1, -d1],
            [-d2, -d2, d2, d2, -d2],
            color="black",
            lw=1,
            label="possible differences",
        )
        base = _log(series.objective)
        angles = [2 * math.pi * k / 256 for k in range(257)]
        for (label, (a1, a2)), colour in zip(
            series.axes().items(), ("tab:blue", "tab:orange", "tab:green"), strict=True
        ):
            # In logarithms: a1^p overflows a float long before p = 64.
            error = sum(math.exp(series.p * math.log(a) - base) for a in (a1, a2))
            text = f"{label}: error x{error:.3g}"
            if series.kind == "gaussian":
                xs = [a1 * math.cos(t) for t in angles]
                ys = [a2 * math.sin(t) for t in angles]
            else:
                xs, ys = [a1, 0.0, -a1, 0.0, a1], [0.0, a2, 0.0, -a2, 0.0]
            axes.plot(xs, ys, color=colour, label=text)
        axes.set_aspect("equal")
        axes.set_xlabel(series.names[0])
        axes.set_ylabel(series.names[1])
        shape = "ellipses (Alg 15)" if series.kind == "gaussian" else "parallelograms (Alg 16)"
        axes.set_title(f"Thesis Fig 4.1: {shape}, E||error||_{series.p}^{series.p}")
        axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), fontsize="small")
        figure.tight_layout()
        return _save(figure, fmt, out_path)


def _log(value: Fraction) -> float:
    """``ln value`` for display, without converting a huge fraction to a float."""
    return math.log(value.numerator) - math.log(value.denominator)
