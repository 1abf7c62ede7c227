"""Pictures: the samplers' exact PMFs (BV Fig 2) and a release with error bars (BV Fig 1).

Paper: BV Fig 2 (the PMFs of GeoSample, of ``Z'`` clamped to ``[0, n]`` as in
Lemma 4.12 i, and of FastSample), Fig 1 and Def 2.5 (a histogram whose error
bars are the per-query accuracy ``a``), Def 2.7 (the threshold ``t``).

Two layers:

* pure functions, needing nothing beyond finitedp: :func:`counting_pmf_series`
  gives the exact PMFs as tuples of :class:`~fractions.Fraction`, and
  :func:`release_series` the bars, error bars and threshold of a release, all
  integers and fractions;
* drawing: :func:`plot_counting_pmfs` and :func:`plot_release` draw those
  series with matplotlib (the optional extra ``plot``: ``pip install
  'finitedp[plot]'``), imported only when a picture is drawn.

No float enters a computation: probabilities are exact fractions up to the
moment they become bar heights, where (and only where) they are converted to
``float`` for matplotlib.  A probability below about ``1e-308`` is drawn as 0.

The format of the picture comes from the suffix of the output path: ``.png``
or ``.svg``.  The file is written atomically (a temporary file, then a rename).

>>> series = counting_pmf_series(8, 1, "1/4", 3)
>>> series.geosample == series.geometric          # Thm 4.7 i, exactly
True
>>> sum(series.fastsample), series.fastsample_is_mixture
(Fraction(1, 1), True)
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .counting.fastsample import FastSample
from .counting.geometric import GeometricMechanism
from .counting.geosample import GeoSample
from .errors import FiniteDPError, ParameterError
from .guarantees import Accuracy, Privacy
from .histograms.release import PartialHistogram
from .io.universe import Universe, Utf8Universe, parse_universe
from .params import check_count, exact_fraction, short_int

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "MAX_PMF_N",
    "MAX_RELEASE_BARS",
    "PLOT_EXTRA_MESSAGE",
    "CountingPmfSeries",
    "PlotExtraMissingError",
    "ReleaseSeries",
    "add_plot_parser",
    "counting_pmf_series",
    "plot_counting_pmfs",
    "plot_release",
    "release_series",
    "run_plot",
]

#: The message of :class:`PlotExtraMissingError`.
PLOT_EXTRA_MESSAGE = "install the plot extra: pip install 'finitedp[plot]'"

#: A release picture has at most this many bars (pass ``values`` to choose them).
MAX_RELEASE_BARS = 2000

#: The largest ``n`` of a PMF picture: ``n + 1`` bars, and exact CDFs whose cost
#: grows like ``n^2`` (about 3 s at ``n = 10^4``).
MAX_PMF_N = 10_000

#: Tick labels are written under the bars up to this many bars.
_MAX_TICK_LABELS = 80

_FORMATS = {".png": "png", ".svg": "svg"}

_REFERENCE_LABEL = "clamped geometric (Alg 4.5)"

# Colour-blind safe (Paul Tol's "bright" scheme).
_BLUE, _YELLOW, _RED, _GREY = "#4477AA", "#CCBB44", "#EE6677", "#BBBBBB"


class PlotExtraMissingError(FiniteDPError, ImportError):
    """matplotlib, needed to draw, is not installed (``pip install 'finitedp[plot]'``)."""


# -- the exact series ----------------------------------------------------------------


@dataclass(frozen=True)
class CountingPmfSeries:
    """The exact PMFs of BV Fig 2 for one true count, indexed by the output ``z`` in ``[0, n]``.

    Paper: BV Fig 2, Thm 4.7 i, Lemma 4.12.

    Attributes:
        n: the number of rows; outputs lie in ``[0, n]``.
        count: the true count ``c``.
        epsilon: the budget ``eps`` both samplers were built with.
        gamma: FastSample's uniform weight.
        noise: ``"paper"`` or ``"tight"``.
        ratio: ``e^(eps~/2) = b/a``, the ratio of the geometric noise of both samplers.
        t: FastSample's truncation.
        geosample: ``Pr[GeoSample(c, U) = z]``, from its integer CDF over ``d``.
        geometric: ``Pr[c + Geo clamped to [0, n] = z]`` (BV Alg 4.5), the reference.
        truncated: ``Pr[Z' clamped to [0, n] = z]``: FastSample's ``F'(z)/d'`` (Lemma 4.12 i).
        fastsample: ``Pr[FastSample(c, U) = z]``, from its integer CDF over ``d``.
    """

    n: int
    count: int
    epsilon: Fraction
    gamma: Fraction
    noise: str
    ratio: Fraction
    t: int
    geosample: tuple[Fraction, ...]
    geometric: tuple[Fraction, ...]
    truncated: tuple[Fraction, ...]
    fastsample: tuple[Fraction, ...]

    @property
    def geosample_matches_reference(self) -> bool:
        """Whether GeoSample's PMF equals the clamped geometric exactly (Thm 4.7 i)."""
        return self.geosample == self.geometric

    @property
    def fastsample_is_mixture(self) -> bool:
        """Whether FastSample equals ``(1 - gamma) Z' + gamma Uniform[0, n]`` (Lemma 4.12 ii)."""
        uniform = self.gamma / (self.n + 1)
        return all(
            f == (1 - self.gamma) * p + uniform
            for f, p in zip(self.fastsample, self.truncated, strict=True)
        )

    @property
    def fast_distance(self) -> Fraction:
        """The exact statistical distance between FastSample and the clamped geometric."""
        return (
            sum(
                (abs(f - g) for f, g in zip(self.fastsample, self.geometric, strict=True)),
                Fraction(0),
            )
            / 2
        )


def _pmf_tuple(pmf: Mapping[int, Fraction], n: int) -> tuple[Fraction, ...]:
    """``(pmf[0], ..., pmf[n])``, with 0 for the outputs a PMF omits."""
    return tuple(pmf.get(z, Fraction(0)) for z in range(n + 1))


def counting_pmf_series(
    n: int, epsilon: object, gamma: object, c: int, *, noise: str = "paper"
) -> CountingPmfSeries:
    """The exact PMFs that :func:`plot_counting_pmfs` draws, as fractions.

    GeoSample and FastSample are built with the same ``epsilon`` and ``noise``, so
    both use the geometric ratio ``b/a``; the reference is
    ``GeometricMechanism(n, b/a)``.  Every probability is an exact
    :class:`~fractions.Fraction` computed from the samplers' integer CDFs.

    Args:
        n: the number of rows.
        epsilon: the budget (``1/m`` in paper mode, any positive rational in tight mode).
        gamma: FastSample's uniform weight ``1/g``, ``g >= 2``.
        c: the true count, in ``[0, n]``.
        noise: ``"paper"`` (BV's ratio and ``t``) or ``"tight"``.

    Returns:
        The series, each of length ``n + 1``.

    Raises:
        ParameterError: a parameter out of range, or ``n`` above :data:`MAX_PMF_N`.
        FloatParameterError: a float.
    """
    if type(n) is int and n > MAX_PMF_N:
        raise ParameterError(
            f"n: got {n}; a PMF picture draws n + 1 bars from exact CDFs, at most n = {MAX_PMF_N}"
        )
    geo = GeoSample(n, epsilon, noise=noise)
    fast = FastSample(n, epsilon, gamma, noise=noise)
    count = check_count(c, geo.n, "count")
    reference = GeometricMechanism(geo.n, geo.noise.exp_epsilon)
    d_prime, previous, truncated = fast.d_prime, 0, []
    for z in range(geo.n + 1):
        current = fast.truncated_cdf(count, z)
        truncated.append(Fraction(current - previous, d_prime))
        previous = current
    return CountingPmfSeries(
        n=geo.n,
        count=count,
        epsilon=geo.epsilon,
        gamma=fast.gamma,
        noise=geo.mode,
        ratio=geo.noise.exp_epsilon,
        t=fast.t,
        geosample=_pmf_tuple(geo.pmf(count), geo.n),
        geometric=_pmf_tuple(reference.pmf(count), geo.n),
        truncated=tuple(truncated),
        fastsample=_pmf_tuple(fast.pmf(count), geo.n),
    )


@dataclass(frozen=True)
class ReleaseSeries:
    """What :func:`plot_release` draws: bars, their error bars and the threshold, exactly.

    Paper: BV Fig 1, Defs 2.5-2.7.

    Attributes:
        bins: the bin numbers ``x`` in ``[1, |X|]``, in the order drawn.
        labels: the tick label of each bar.
        counts: the released noisy count ``h_x`` of each bin.
        error: the half-width ``a`` of every error bar, or ``None`` (no bound at this beta).
        error_kind: ``"per-query"`` (Def 2.5 / 2.7), ``"simultaneous"`` (Def 2.6, which
            also bounds every single bin), or ``"none"``.
        threshold: ``t`` of Def 2.7 (the bound holds for true counts above it), or ``None``.
        accuracy: the statement the error bars come from.
        privacy: the release's ``(epsilon, delta)``, when known.
        mechanism: the mechanism's name (or the release's class).
        n: the number of rows, when known (error bars are clipped to ``[0, n]``).
    """

    bins: tuple[int, ...]
    labels: tuple[str, ...]
    counts: tuple[int, ...]
    error: int | None
    error_kind: str
    threshold: int | None
    accuracy: Accuracy
    privacy: Privacy | None
    mechanism: str
    n: int | None

    def intervals(self) -> tuple[tuple[int, int], ...]:
        """``[max(0, h - a), min(n, h + a)]`` for each bar (``(h, h)`` without a bound).

        True counts lie in ``[0, n]``, so an error bar is clipped to it.
        """
        a = self.error or 0
        top = self.n
        return tuple(
            (max(0, h - a), h + a if top is None else min(top, h + a)) for h in self.counts
        )


def _label(universe: Universe, x: int) -> str:
    """A printable tick label for bin ``x``: its value, or its bytes in hex if it has none."""
    try:
        label = universe.decode(x)
    except ParameterError:
        if isinstance(universe, Utf8Universe):
            return "0x" + universe.decode_bytes(x).hex()
        return f"#{short_int(x)}"
    return label if label.isprintable() and label.strip() == label and label else repr(label)


def _int_or_none(value: object, name: str) -> int | None:
    """A bound of an accuracy statement: a non-negative int or ``None``.

    Raises:
        ParameterError: anything else (a float, a string, a negative number).
    """
    if value is None or (type(value) is int and value >= 0):
        return value
    raise ParameterError(f"accuracy.{name}: got {value!r}; expected a non-negative int or null")


def _accuracy(value: object) -> Accuracy:
    """An :class:`Accuracy`, or one read from its JSON form (``Accuracy.to_json_dict``)."""
    if isinstance(value, Accuracy):
        return value
    if not isinstance(value, Mapping):
        raise ParameterError(
            f"accuracy: got a {type(value).__name__}; pass the mechanism's accuracy(beta) "
            f"or its JSON form"
        )
    source = value.get("source")
    return Accuracy(
        exact_fraction(value.get("beta"), "accuracy.beta"),
        _int_or_none(value.get("per_query"), "per_query"),
        _int_or_none(value.get("threshold"), "threshold"),
        _int_or_none(value.get("simultaneous"), "simultaneous"),
        source if isinstance(source, str) else "",
    )


def _privacy(value: object) -> Privacy | None:
    """The document's ``privacy`` object as a :class:`Privacy` (``None`` if absent).

    Raises:
        ParameterError: epsilon or delta is not an exact number.
    """
    if not isinstance(value, Mapping):
        return None
    return Privacy(
        exact_fraction(value.get("epsilon"), "privacy.epsilon"),
        exact_fraction(value.get("delta", "0"), "privacy.delta"),
    )


def _parse_document(text: str, name: str) -> Any:
    """``json.loads(text)``.

    Raises:
        ParameterError: not JSON; the message names ``name`` and the line.
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ParameterError(f"{name}, line {error.lineno}: not JSON: {error.msg}") from None


def _read_document(path: str | Path) -> Any:
    """The parsed JSON of a release file (``-``: standard input).

    Raises:
        ParameterError: unreadable, not UTF-8 or not JSON.
    """
    from .cli import _decode_utf8, _read_bytes  # the same reading as ``finitedp query``

    name = "<stdin>" if str(path) == "-" else str(path)
    return _parse_document(_decode_utf8(_read_bytes(str(path)), name), name)


def release_series(
    release: object,
    accuracy: object = None,
    *,
    labels: Sequence[str] | None = None,
    values: Sequence[object] | None = None,
) -> ReleaseSeries:
    """The bars and error bars that :func:`plot_release` draws, from a release.

    Args:
        release: a document written by ``finitedp release`` (parsed, as JSON text, or a
            :class:`~pathlib.Path` to it), a bare release JSON, a
            :class:`~finitedp.histograms.release.PartialHistogram` or a
            :class:`~finitedp.compact.release.CompactRelease`.
        accuracy: the :class:`~finitedp.guarantees.Accuracy` whose ``a`` gives the error
            bars (or its JSON form); ``None`` reads the statement stored in the document.
        labels: tick labels, one per bar, replacing the values' own labels.
        values: the values to draw, in order: labels of the document's universe
            (``int:M`` or ``utf8:L``), or bin numbers for a bare release.  Needed for a
            compact release (it lists no bins); for a partial histogram the default is
            its listed bins, and an unlisted value has count 0.

    Returns:
        The series; the error bar is the per-query ``a`` if the theorem gives one at
        this beta, else the simultaneous one (which bounds every bin too), else none.

    Raises:
        ParameterError: an unreadable release, a value outside its universe, no accuracy
            statement, no values for a compact release, labels of the wrong length, or
            more than :data:`MAX_RELEASE_BARS` bars.
    """
    from .cli import _load_release  # the same reading as ``finitedp query``

    document: Any = release
    if isinstance(release, Path):
        document = _read_document(release)
    elif isinstance(release, str):
        document = _parse_document(release, "release")
    stored_accuracy: object = None
    privacy: Privacy | None = None
    n: int | None = None
    if isinstance(document, Mapping) and not isinstance(document, PartialHistogram):
        counts_of, universe = _load_release(dict(document), "release")
        mechanism = str(document.get("mechanism") or counts_of.__class__.__name__)
        if "release" in document:
            stored_accuracy = document.get("accuracy")
            privacy = _privacy(document.get("privacy"))
            parameters = document.get("parameters")
            if isinstance(parameters, Mapping) and type(parameters.get("n")) is int:
                n = parameters["n"]
    else:
        counts_of = document
        mechanism = type(document).__name__
        size = getattr(document, "universe_size", None)
        if type(size) is not int:
            raise ParameterError(
                f"release: got a {mechanism}; expected a finitedp release document, its JSON, "
                f"a PartialHistogram or a CompactRelease"
            )
        universe = parse_universe(f"int:{size}")
    if n is None and type(getattr(counts_of, "n", None)) is int:
        n = counts_of.n  # type: ignore[attr-defined]
    if accuracy is None and stored_accuracy is None:
        raise ParameterError(
            "accuracy: this release carries no accuracy statement; pass the mechanism's "
            "accuracy(beta)"
        )
    statement = _accuracy(accuracy if accuracy is not None else stored_accuracy)

    if values is not None:
        bins = []
        for value in values:
            label = str(value) if type(value) is int else value
            if not isinstance(label, str):
                raise ParameterError(f"values: got {value!r}; values are labels (str) or ints")
            try:
                bins.append(universe.encode(label))
            except ParameterError as error:
                raise ParameterError(f"values: {error}") from None
    elif isinstance(counts_of, PartialHistogram):
        bins = list(counts_of)
    else:
        raise ParameterError(
            f"values: a {mechanism} release lists no bins (every value has a count); "
            f"name the values to plot"
        )
    if not bins:
        raise ParameterError("values: nothing to plot (the release lists no bins)")
    if len(bins) > MAX_RELEASE_BARS:
        raise ParameterError(
            f"values: {len(bins)} bars; a picture holds at most {MAX_RELEASE_BARS}, "
            f"name the values to plot"
        )
    names = tuple(_label(universe, x) for x in bins)
    if labels is not None:
        names = tuple(labels)
        if len(names) != len(bins):
            raise ParameterError(f"labels: got {len(names)} labels for {len(bins)} bars")
    half_width: int | None
    if statement.per_query is not None:
        half_width, kind = statement.per_query, "per-query"
    elif statement.simultaneous is not None:
        half_width, kind = statement.simultaneous, "simultaneous"
    else:
        half_width, kind = None, "none"
    return ReleaseSeries(
        bins=tuple(bins),
        labels=names,
        counts=tuple(int(counts_of[x]) for x in bins),
        error=half_width,
        error_kind=kind,
        threshold=statement.threshold if kind == "per-query" else None,
        accuracy=statement,
        privacy=privacy,
        mechanism=mechanism,
        n=n,
    )


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
    from .cli import _write_atomically  # one atomic writer for every output of finitedp

    buffer = io.BytesIO()
    metadata: dict[str, str | None] = {"Date": None} if fmt == "svg" else {"Software": None}
    figure.savefig(buffer, format=fmt, dpi=150, metadata=metadata)
    _write_atomically(str(out_path), buffer.getvalue())
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
        head += f": ({series.privacy.epsilon}, {series.privacy.delta})-DP"
    if series.n is not None:
        head += f", n = {series.n}"
    figure.suptitle(f"{head}\n{bound}", fontsize=9)
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
        values: the values to draw (required for a compact release).

    Returns:
        The path written.

    Raises:
        ParameterError: see :func:`release_series`; another suffix; an unwritable path.
        PlotExtraMissingError: matplotlib is not installed.
    """
    fmt = _output_format(out_path)
    series = release_series(release_json_or_release, accuracy, labels=labels, values=values)
    matplotlib = _require_matplotlib()
    with matplotlib.rc_context(_rc(matplotlib)):
        labels_drawn, escaped = _drawable_labels(matplotlib, series.labels)
        return _save(_release_figure(series, labels_drawn, escaped), fmt, out_path)


# -- the command line ------------------------------------------------------------------------

_PLOT_DESCRIPTION = """\
Draw a picture (PNG or SVG, chosen by the suffix of --out; needs the plot extra:
pip install 'finitedp[plot]').

  pmf      BV Fig 2: the exact PMFs of GeoSample, of the truncated geometric Z' and
           of FastSample for one true count, each against the clamped geometric.
  release  BV Fig 1: a release written by finitedp release, as bars with error bars
           +-a from its stored accuracy statement (threshold t marked).

Probabilities are exact fractions, converted to floating point only to be drawn.
"""


def add_plot_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``finitedp plot pmf`` and ``finitedp plot release`` to the command line.

    Args:
        subparsers: the object returned by ``ArgumentParser.add_subparsers``.

    Returns:
        The ``plot`` parser (its ``run`` default is :func:`run_plot`).
    """
    plot: argparse.ArgumentParser = subparsers.add_parser(
        "plot",
        help="draw exact PMFs (BV Fig 2) or a release with error bars (BV Fig 1)",
        description=_PLOT_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    pictures = plot.add_subparsers(dest="picture", required=True, metavar="{pmf,release}")
    pmf = pictures.add_parser(
        "pmf",
        help="exact PMFs of GeoSample, Z' and FastSample against the clamped geometric",
        description="BV Fig 2 for one true count: three panels (GeoSample, Z' clamped to "
        "[0, n], FastSample), each with the clamped geometric overlaid. Numbers are exact: "
        "write 1/2 (or 0.5, read as exactly 1/2).",
    )
    pmf.add_argument("--n", type=int, required=True, help="number of rows (outputs in [0, n])")
    pmf.add_argument("--epsilon", required=True, help="privacy budget, e.g. 1 or 1/2")
    pmf.add_argument("--gamma", required=True, help="FastSample's mixing weight 1/g, e.g. 1/4")
    pmf.add_argument("--count", type=int, required=True, help="the true count c, in [0, n]")
    pmf.add_argument("--noise", choices=["paper", "tight"], default="paper")
    pmf.add_argument("--log", action="store_true", help="logarithmic probability axis")
    pmf.add_argument("--out", required=True, metavar="FILE", help="FILE.png or FILE.svg")
    release = pictures.add_parser(
        "release",
        help="a release's counts with error bars +-a",
        description="BV Fig 1 for a release written by finitedp release: bars of the noisy "
        "counts with error bars from its accuracy statement (per-query a, else the "
        "simultaneous one), the threshold t marked. Partial releases draw their listed "
        "bins unless --values is given; compact releases need --values.",
    )
    release.add_argument("release", metavar="RELEASE.json", help="the release; - for stdin")
    release.add_argument("--out", required=True, metavar="FILE", help="FILE.png or FILE.svg")
    release.add_argument(
        "--values", nargs="+", metavar="V", help="values to draw, in the release's universe"
    )
    plot.set_defaults(run=run_plot)
    return plot


def run_plot(args: argparse.Namespace) -> int:
    """Run ``finitedp plot pmf`` or ``finitedp plot release``.

    Args:
        args: the parsed command line.

    Returns:
        0 (errors are raised).

    Raises:
        FiniteDPError: an input error, or matplotlib missing (:class:`PlotExtraMissingError`).
    """
    _output_format(args.out)  # before any work
    if args.picture == "pmf":
        path = plot_counting_pmfs(
            args.n,
            args.epsilon,
            args.gamma,
            args.count,
            args.out,
            noise=args.noise,
            log_scale=args.log,
        )
    else:
        _require_matplotlib()  # before reading a large release
        document = _read_document(args.release)
        path = plot_release(document, None, args.out, values=args.values)
    print(f"finitedp plot: wrote {path}", file=sys.stderr)
    return 0
