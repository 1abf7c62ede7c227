"""The exact series a picture is drawn from: PMFs and releases, as fractions.

See :mod:`finitedp.plot`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..counting.fastsample import FastSample, fastsample_plan
from ..counting.geometric import GeometricMechanism
from ..counting.geosample import GeoSample
from ..errors import ParameterError
from ..guarantees import Accuracy, Privacy
from ..histograms.release import PartialHistogram
from ..io.releases import load_release, parse_document, read_document
from ..io.universe import Universe, Utf8Universe, parse_universe
from ..params import article, check_count, exact_fraction, short_fraction, short_int
from ..resources import fraction_seconds, require_time

if TYPE_CHECKING:
    pass

__all__ = [
    "MAX_PMF_N",
    "MAX_RELEASE_BARS",
    "PLOT_EXTRA_MESSAGE",
    "CountingPmfSeries",
    "ReleaseSeries",
    "counting_pmf_series",
    "release_series",
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
        ResourceLimitError: the exact laws estimated above the time budget.
    """
    if type(n) is int and n > MAX_PMF_N:
        raise ParameterError(
            f"n: got {n}; a PMF picture draws n + 1 bars from exact CDFs, at most n = {MAX_PMF_N}"
        )
    geo = GeoSample(n, epsilon, noise=noise)
    # Z' and FastSample's law, before FastSample's integers are made (GeoSample's law
    # is cheaper: fewer bits), n + 1 probabilities each, one CPython gcd apiece.
    bits = fastsample_plan(geo.n, epsilon, gamma, noise)[-1]
    require_time(
        fraction_seconds(bits, 2 * (geo.n + 1)) + fraction_seconds(geo.d.bit_length(), geo.n + 1),
        f"{2 * (geo.n + 1)} exact probabilities over {short_int(bits)}-bit integers",
        f"n = {geo.n}, epsilon = {short_fraction(geo.epsilon)}",
    )
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
        counts: the released noisy count ``h_x`` of each bin (an exact estimate for ALP).
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
    counts: tuple[int | Fraction, ...]
    error: int | None
    error_kind: str
    threshold: int | None
    accuracy: Accuracy
    privacy: Privacy | None
    mechanism: str
    n: int | None

    def intervals(self) -> tuple[tuple[int | Fraction, int | Fraction], ...]:
        """``[max(0, h - a), min(n, h + a)]`` for each bar (``(h, h)`` without a bound).

        True counts lie in ``[0, n]``, so an error bar is clipped to it.
        """
        a = self.error or 0
        top = self.n
        return tuple(
            (max(0, h - a), h + a if top is None else min(top, h + a)) for h in self.counts
        )


def _clamp(value: int | Fraction, n: int | None) -> int | Fraction:
    if value < 0:
        return 0
    return value if n is None or value <= n else n


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


def release_series(
    release: object,
    accuracy: object = None,
    *,
    labels: Sequence[str] | None = None,
    values: Sequence[object] | None = None,
    top: int | None = None,
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
            its listed bins, largest count first, and an unlisted value has count 0.
        top: draw only the ``top`` largest listed counts (a release of many bins).

    Returns:
        The series; the error bar is the per-query ``a`` if the theorem gives one at
        this beta, else the simultaneous one (which bounds every bin too), else none.

    Raises:
        ParameterError: an unreadable release, a value outside its universe, no accuracy
            statement, no values for a compact release, labels of the wrong length, or
            more than :data:`MAX_RELEASE_BARS` bars.
    """
    document: Any = release
    if isinstance(release, Path):
        document = read_document(str(release))
    elif isinstance(release, str):
        document = parse_document(release, "release")
    stored_accuracy: object = None
    privacy: Privacy | None = None
    n: int | None = None
    if isinstance(document, Mapping) and not isinstance(document, PartialHistogram):
        counts_of, universe, _ = load_release(dict(document), "release")
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
                f"release: got {article(mechanism)} {mechanism}; expected a finitedp release "
                "document, its JSON, a PartialHistogram or a CompactRelease"
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
    elif callable(getattr(counts_of, "keys", None)):  # a release that names its bins
        listed = list(counts_of.keys())  # type: ignore[attr-defined]
        # largest first (ties in the universe's order): a chart read from its left end
        bins = sorted(listed, key=lambda x: -counts_of[x])
        if top is not None:
            if type(top) is not int or top < 1:
                raise ParameterError(f"--top: got {top!r}; give K >= 1")
            bins = bins[:top]
    else:
        raise ParameterError(
            f"--values: {article(mechanism)} {mechanism} release lists no bins (every value has "
            f"a count); name the values to plot with --values A,B,..."
        )
    if not bins:
        raise ParameterError("--values: nothing to plot (the release lists no bins; name values)")
    if len(bins) > MAX_RELEASE_BARS:
        raise ParameterError(
            f"values: {len(bins)} bars; a picture holds at most {MAX_RELEASE_BARS}: draw the "
            f"largest with --top K, or name the values to plot"
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
        # An estimate (ALP) may fall outside [0, n], where no true count lies: shown
        # clamped to it, as the thesis clamps every output to [0, u] (post-processing).
        counts=tuple(_clamp(counts_of[x], n) for x in bins),
        error=half_width,
        error_kind=kind,
        threshold=statement.threshold if kind == "per-query" else None,
        accuracy=statement,
        privacy=privacy,
        mechanism=mechanism,
        n=n,
    )
