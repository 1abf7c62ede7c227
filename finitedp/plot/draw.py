"""Drawing the series with matplotlib (the ``plot`` extra); outputs are written atomically."""

from __future__ import annotations

import io
import textwrap
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import FiniteDPError, ParameterError
from ..io.files import write_atomically

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

from .series import (
    _BLUE,
    _FORMATS,
    _MAX_TICK_LABELS,
    _RED,
    _REFERENCE_LABEL,
    _YELLOW,
    PLOT_EXTRA_MESSAGE,
    CountingPmfSeries,
    ReleaseSeries,
    counting_pmf_series,
    release_series,
)

__all__ = ["PlotExtraMissingError", "plot_counting_pmfs", "plot_release"]


class PlotExtraMissingError(FiniteDPError, ImportError):
    """matplotlib, needed to draw, is not installed (``pip install 'finitedp[plot]'``)."""


# -- drawing ---------------------------------------------------------------------------


def _require_matplotlib() -> Any:
    """The ``matplotlib`` module.

    Raises:
        PlotExtraMissingError: matplotlib is not installed.
    """
    try:
        import matplotlib
        import matplotlib.figure  # Figure, used by the callers
        import matplotlib.font_manager  # font fallback for labels
    except ImportError as error:
        raise PlotExtraMissingError(PLOT_EXTRA_MESSAGE) from error
    return matplotlib


def _output_format(out_path: str | Path) -> str:
    """``"png"`` or ``"svg"``, from the suffix.

    Raises:
        ParameterError: another suffix.
    """
    suffix = Path(out_path).suffix.lower()
    if suffix not in _FORMATS:
        raise ParameterError(
            f"out: got {str(out_path)!r}; the format comes from the suffix: use .png or .svg"
        )
    return _FORMATS[suffix]


#: Families tried after DejaVu Sans for labels in other scripts, when installed.
_FALLBACK_FAMILIES = (
    "Noto Sans CJK JP",
    "Noto Sans CJK SC",
    "Noto Sans",
    "Source Han Sans",
    "WenQuanYi Zen Hei",
    "Droid Sans Fallback",
    "Arial Unicode MS",
    "Hiragino Sans",
    "Microsoft YaHei",
)


def _families(matplotlib: Any) -> list[str]:
    """DejaVu Sans, then the installed fallback families (none: no font warnings)."""
    installed = {font.name for font in matplotlib.font_manager.fontManager.ttflist}
    return ["DejaVu Sans", *(f for f in _FALLBACK_FAMILIES if f in installed)]


def _rc(matplotlib: Any) -> dict[str, Any]:
    """Settings for reproducible files, independent of the user's matplotlibrc."""
    return {
        "svg.hashsalt": "finitedp",  # stable element ids
        "svg.fonttype": "path",  # glyphs as paths: the file looks the same everywhere
        "font.family": _families(matplotlib),
        "font.size": 9,
        "axes.spines.top": False,
        "axes.spines.right": False,
    }


def _drawable_labels(matplotlib: Any, labels: Sequence[str]) -> tuple[list[str], bool]:
    """The labels as drawn: one with a character no installed font has is escaped.

    Returns:
        The labels, and whether any was escaped (``\\u6771`` rather than a blank box).
    """
    manager = matplotlib.font_manager
    fonts = []
    for family in _families(matplotlib):
        properties = manager.FontProperties(family=family)
        fonts.append(manager.get_font(manager.findfont(properties, fallback_to_default=False)))
    out, escaped = [], False
    for label in labels:
        if all(any(font.get_char_index(ord(ch)) for font in fonts) for ch in label):
            out.append(label)
        else:
            out.append(label.encode("ascii", "backslashreplace").decode("ascii"))
            escaped = True
    return out, escaped


def _save(figure: Figure, fmt: str, out_path: str | Path) -> Path:
    """Render ``figure`` in ``fmt`` and write it atomically to ``out_path``."""

    buffer = io.BytesIO()
    metadata: dict[str, str | None] = {"Date": None} if fmt == "svg" else {"Software": None}
    figure.savefig(buffer, format=fmt, dpi=150, metadata=metadata)
    write_atomically(str(out_path), buffer.getvalue())
    return Path(out_path)


def _floats(values: Sequence[Fraction]) -> list[float]:
    """Exact probabilities as bar heights: the one place a fraction becomes a float."""
    return [float(p) for p in values]


def _mark(axes: Axes, z: int, text: str, n: int, style: str) -> None:
    """A labelled vertical line at output ``z``, drawn only if ``z`` is in ``[0, n]``."""
    if 0 <= z <= n:
        axes.axvline(z, color="#555555", linewidth=0.8, linestyle=style, zorder=0)
        axes.annotate(
            text,
            (z, 1.0),
            xycoords=("data", "axes fraction"),
            xytext=(2, -2),
            textcoords="offset points",
            va="top",
            fontsize=8,
            color="#555555",
        )


def _counting_figure(series: CountingPmfSeries, *, log_scale: bool = False) -> Figure:
    """The three panels of BV Fig 2, each with the clamped geometric overlaid.

    Args:
        series: the exact PMFs.
        log_scale: a logarithmic probability axis (shows the tails and the uniform floor).

    Returns:
        A matplotlib figure (not attached to pyplot); bars in panel order
        GeoSample, ``Z'`` clamped, FastSample.
    """
    from matplotlib.figure import Figure

    n, c, t = series.n, series.count, series.t
    zs = list(range(n + 1))
    figure = Figure(figsize=(8.0, 7.5), layout="constrained")
    panels = figure.subplots(3, 1, sharex=True, sharey=True)
    distance = float(series.fast_distance)
    rows = (
        (
            series.geosample,
            _BLUE,
            "GeoSample",
            "(a) GeoSample (Alg 4.8): the clamped geometric exactly (Thm 4.7 i)"
            if series.geosample_matches_reference
            else "(a) GeoSample (Alg 4.8): DIFFERS from the clamped geometric",
        ),
        (
            series.truncated,
            _YELLOW,
            "Z' clamped",
            f"(b) Z' clamped to [0, n]: the geometric truncated to |z - c| <= t = {t}, "
            f"the cut tails moved onto c (Lemma 4.12 i)",
        ),
        (
            series.fastsample,
            _RED,
            "FastSample",
            f"(c) FastSample (Alg 4.11): (1 - gamma) Z' + gamma Uniform[0, n] (Lemma 4.12 ii)\n"
            f"statistical distance to the clamped geometric: {distance:.3g}",
        ),
    )
    reference = _floats(series.geometric)
    width = 0.8 if n <= 60 else 1.0
    for axes, (pmf, colour, name, title) in zip(panels, rows, strict=True):
        axes.bar(zs, _floats(pmf), width=width, color=colour, label=f"{name} (exact)", gid=name)
        axes.plot(
            zs,
            reference,
            color="black",
            linewidth=0.8,
            marker="o" if n <= 100 else None,
            markersize=2.5,
            drawstyle="default" if n <= 100 else "steps-mid",
            label=_REFERENCE_LABEL,
        )
        axes.set_title(title, loc="left", fontsize=9)
        axes.set_ylabel("probability")
        _mark(axes, c, "c", n, "-")
        _mark(axes, c - t, "c - t", n, ":")
        _mark(axes, c + t, "c + t", n, ":")
        if log_scale:
            axes.set_yscale("log")
    panels[-1].set_xlabel("output z")
    panels[-1].set_xlim(-1, n + 1)
    # One legend for the figure, below the panels: the bars of each panel, then the line.
    entries: dict[str, Any] = {}
    for axes in panels:
        found, labels = axes.get_legend_handles_labels()
        entries.update((label, h) for h, label in zip(found, labels, strict=True))
    entries[_REFERENCE_LABEL] = entries.pop(_REFERENCE_LABEL)  # the line last
    figure.legend(
        list(entries.values()), list(entries), loc="outside lower center", ncols=4, frameon=False
    )
    figure.suptitle(
        f"Exact PMFs for true count c = {c}, n = {n}: ε = {series.epsilon}, "
        f"gamma = {series.gamma}, noise = {series.noise}, e^(ε~/2) = {series.ratio}",
        fontsize=10,
    )
    return figure


def plot_counting_pmfs(
    n: int,
    epsilon: object,
    gamma: object,
    c: int,
    out_path: str | Path,
    *,
    noise: str = "paper",
    log_scale: bool = False,
) -> Path:
    """Draw BV Fig 2 for these parameters: GeoSample, ``Z'`` clamped and FastSample.

    Each panel shows one exact PMF as bars and the clamped geometric
    (``GeometricMechanism``, BV Alg 4.5) as a black line; ``c`` and ``c +- t`` are
    marked.  The probabilities are the exact fractions of
    :func:`counting_pmf_series`, converted to ``float`` only to be drawn.

    Args:
        n: the number of rows.
        epsilon: the budget.
        gamma: FastSample's uniform weight ``1/g``.
        c: the true count.
        out_path: the picture; ``.png`` or ``.svg``.
        noise: ``"paper"`` or ``"tight"``.
        log_scale: a logarithmic probability axis.

    Returns:
        The path written.

    Raises:
        ParameterError: a parameter out of range, another suffix, or an unwritable path.
        FloatParameterError: a float parameter.
        PlotExtraMissingError: matplotlib is not installed.
    """
    fmt = _output_format(out_path)
    series = counting_pmf_series(n, epsilon, gamma, c, noise=noise)
    matplotlib = _require_matplotlib()
    with matplotlib.rc_context(_rc(matplotlib)):
        return _save(_counting_figure(series, log_scale=log_scale), fmt, out_path)


def _release_figure(series: ReleaseSeries, labels: Sequence[str], escaped: bool) -> Figure:
    """BV Fig 1: the released counts as bars with error bars ``+-a``, and ``t`` marked.

    Args:
        series: the bars.
        labels: the tick labels as drawn.
        escaped: whether some labels were escaped (a note says so).

    Returns:
        A matplotlib figure (not attached to pyplot).
    """
    from matplotlib.figure import Figure

    k = len(series.bins)
    positions = list(range(k))
    figure = Figure(figsize=(max(7.0, min(24.0, 2.0 + 0.35 * k)), 4.8), layout="constrained")
    axes = figure.subplots()
    heights = [float(h) for h in series.counts]
    lows = [float(h - low) for h, (low, _) in zip(series.counts, series.intervals(), strict=True)]
    highs = [
        float(high - h) for h, (_, high) in zip(series.counts, series.intervals(), strict=True)
    ]
    has_bars = series.error is not None
    axes.bar(
        positions,
        heights,
        width=0.8,
        color=_BLUE,
        yerr=[lows, highs] if has_bars else None,
        error_kw={"ecolor": "black", "elinewidth": 1.0, "capsize": 3 if k <= 60 else 0},
        label="released count",
        gid="released",
    )
    top = max((high for _, high in series.intervals()), default=0)
    notes = []
    if series.threshold is not None:
        if series.threshold <= 1.25 * max(top, 1):
            axes.axhline(series.threshold, color=_RED, linestyle="--", linewidth=1.0)
            axes.annotate(
                f"t = {series.threshold}: the ±a bound is for true counts above t",
                (0.0, series.threshold),
                xycoords=("axes fraction", "data"),
                xytext=(4, 3),
                textcoords="offset points",
                fontsize=8,
                color=_RED,
                bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.85, "pad": 1.0},
                zorder=5,
            )
        else:
            notes.append(
                f"t = {series.threshold} lies above every bar: the ±a bound is stated for "
                f"true counts above t only"
            )
    if k <= _MAX_TICK_LABELS:
        rotate = k > 12 or any(len(label) > 4 for label in labels)
        axes.set_xticks(
            positions,
            labels,
            rotation=45 if rotate else 0,
            ha="right" if rotate else "center",
        )
    else:
        axes.set_xticks([])
        notes.append(f"{k} bars; tick labels omitted")
    if escaped:
        notes.append("labels in scripts no installed font has are shown escaped")
    axes.set_xlim(-0.7, k - 0.3)
    # Headroom above the highest error bar (or t) for the notes and the t label.
    ceiling = max(top, series.threshold or 0) if series.threshold is not None else top
    axes.set_ylim(0, 1.2 * max(ceiling if ceiling <= 1.25 * max(top, 1) else top, 1))
    axes.set_ylabel("noisy count")
    axes.set_xlabel("value")
    accuracy = series.accuracy
    if series.error is None:
        bound = f"no accuracy bound at beta = {accuracy.beta} ({accuracy.source})"
    else:
        scope = " with true count above t" if series.threshold is not None else ""
        bound = (
            f"error bars ±a, a = {series.error}: {series.error_kind} accuracy "
            f"({accuracy.source}),\nPr[|h_x - c_x| <= {series.error}] >= {1 - accuracy.beta} "
            f"for each bin x{scope}"
        )
    head = series.mechanism
    if series.privacy is not None:
        head += f": ({_short(series.privacy.epsilon)}, {_short(series.privacy.delta)})-DP"
    if series.n is not None:
        head += f", n = {series.n}"
    # the statement wrapped to the figure's width (about 13 characters an inch at 9 pt)
    width = int(figure.get_figwidth() * 13)
    wrapped = "\n".join(textwrap.fill(line, width) for line in f"{head}\n{bound}".split("\n"))
    figure.suptitle(wrapped, fontsize=9)
    if notes:
        axes.text(
            0.99, 0.98, "\n".join(notes), transform=axes.transAxes, ha="right", va="top", fontsize=8
        )
    return figure


def plot_release(
    release_json_or_release: object,
    accuracy: object,
    out_path: str | Path,
    *,
    labels: Sequence[str] | None = None,
    values: Sequence[object] | None = None,
    top: int | None = None,
) -> Path:
    """Draw BV Fig 1 for a release: bars of the noisy counts with error bars ``+-a``.

    ``a`` is the theorem's per-query accuracy (BV Def 2.5 / 2.7), or the
    simultaneous one when the theorem gives no per-query bound at that beta; the
    threshold ``t`` of Def 2.7, when there is one, is drawn as a dashed line.  Error
    bars are clipped to ``[0, n]``, where true counts lie.

    Args:
        release_json_or_release: see :func:`release_series`.
        accuracy: an :class:`~finitedp.guarantees.Accuracy` (or its JSON form), or
            ``None`` to use the one stored in a ``finitedp release`` document.
        out_path: the picture; ``.png`` or ``.svg``.
        labels: tick labels, one per bar.
        values: the values to draw (required for a compact release); by default the
            listed bins, largest count first.
        top: only the ``top`` largest listed counts.

    Returns:
        The path written.

    Raises:
        ParameterError: see :func:`release_series`; another suffix; an unwritable path.
        PlotExtraMissingError: matplotlib is not installed.
    """
    fmt = _output_format(out_path)
    series = release_series(
        release_json_or_release, accuracy, labels=labels, values=values, top=top
    )
    matplotlib = _require_matplotlib()
    with matplotlib.rc_context(_rc(matplotlib)):
        labels_drawn, escaped = _drawable_labels(matplotlib, series.labels)
        return _save(_release_figure(series, labels_drawn, escaped), fmt, out_path)


def _short(value: Fraction) -> str:
    """A fraction as written, or (display only) about 3 significant digits when it is long."""
    text = str(value)
    return text if len(text) <= 16 else f"{float(value):.3g} (about)"
