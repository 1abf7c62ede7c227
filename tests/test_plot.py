"""finitedp.plot: the exact series behind the pictures, and the pictures themselves.

The series (:func:`counting_pmf_series`, :func:`release_series`) are pure and
tested everywhere.  Drawing needs matplotlib (the ``plot`` extra): those tests
are skipped when it is not installed.
"""

from __future__ import annotations

import argparse
import json
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from finitedp import Accuracy, FastSample, GeoSample, PartialHistogram, SeededSource
from finitedp.checker import exact_distribution
from finitedp.cli import main as cli_main
from finitedp.compact.histogram import CompactHistogram
from finitedp.errors import FiniteDPError, FloatParameterError, ParameterError
from finitedp.plot import (
    PLOT_EXTRA_MESSAGE,
    PlotExtraMissingError,
    add_plot_parser,
    counting_pmf_series,
    plot_counting_pmfs,
    plot_release,
    release_series,
    run_plot,
)


def _has_matplotlib() -> bool:
    try:
        import matplotlib.figure  # noqa: F401
    except ImportError:
        return False
    return True


HAS_MATPLOTLIB = _has_matplotlib()
needs_matplotlib = pytest.mark.skipif(
    not HAS_MATPLOTLIB, reason="matplotlib (the plot extra) is not installed"
)

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
DATA = Path(__file__).resolve().parent.parent / "examples" / "data" / "visits.csv"


# -- counting_pmf_series: exact fractions ------------------------------------------------


@pytest.mark.parametrize("noise", ["paper", "tight"])
def test_series_are_the_samplers_exact_pmfs(noise: str) -> None:
    n, c = 12, 9
    series = counting_pmf_series(n, 1, "1/4", c, noise=noise)
    geo, fast = GeoSample(n, 1, noise=noise), FastSample(n, 1, "1/4", noise=noise)
    for values in (series.geosample, series.geometric, series.truncated, series.fastsample):
        assert len(values) == n + 1
        assert all(type(p) is Fraction for p in values)  # no float anywhere
        assert sum(values) == 1
    assert series.geosample == tuple(geo.pmf(c).get(z, Fraction(0)) for z in range(n + 1))
    # FastSample's PMF, independently: enumerate the oracle with the exact checker.
    explored = exact_distribution(fast.sample, c)
    assert series.fastsample == tuple(explored.get(z, Fraction(0)) for z in range(n + 1))
    assert (series.t, series.ratio, series.noise) == (fast.t, geo.privacy_ratio, noise)


def test_geosample_is_the_clamped_geometric_and_fastsample_the_mixture() -> None:
    series = counting_pmf_series(20, "1/2", "1/8", 5)
    assert series.geosample_matches_reference  # Thm 4.7 i
    assert series.fastsample_is_mixture  # Lemma 4.12 ii
    gamma, n = Fraction(1, 8), 20
    for f, p in zip(series.fastsample, series.truncated, strict=True):
        assert f == (1 - gamma) * p + gamma / (n + 1)
    distance = sum(
        (abs(f - g) for f, g in zip(series.fastsample, series.geometric, strict=True)), Fraction(0)
    )
    assert series.fast_distance == distance / 2 > 0


def test_truncated_series_is_lemma_4_12_i() -> None:
    # Tight noise keeps t small, so [c - t, c + t] lies inside [0, n]: no clamping.
    n, c = 60, 30
    series = counting_pmf_series(n, 1, "1/4", c, noise="tight")
    t, alpha = series.t, 1 / series.ratio
    assert c - t >= 0 and c + t <= n
    mass = (1 - alpha) / (1 + alpha)  # Pr[Z = c + j] = mass * alpha^|j|
    for z, p in enumerate(series.truncated):
        if z == c:
            tails = 2 * alpha ** (t + 1) / (1 + alpha)
            assert p == mass + tails
        elif abs(z - c) <= t:
            assert p == mass * alpha ** abs(z - c)
        else:
            assert p == 0


def test_series_refuses_floats_and_bad_counts() -> None:
    with pytest.raises(FloatParameterError):
        counting_pmf_series(10, 0.5, "1/4", 3)
    with pytest.raises(ParameterError, match="count"):
        counting_pmf_series(10, 1, "1/4", 11)
    with pytest.raises(ParameterError, match="gamma"):
        counting_pmf_series(10, 1, "2/3", 3)
    with pytest.raises(ParameterError, match="at most n = 10000"):
        counting_pmf_series(10_001, 1, "1/4", 3)


# -- release_series --------------------------------------------------------------------


def _partial() -> PartialHistogram:
    return PartialHistogram.from_counts(10, {2: 5, 7: 30})


def test_release_series_of_a_partial_histogram() -> None:
    accuracy = Accuracy(Fraction(1, 10), 8, 20, 15, "test")
    series = release_series(_partial(), accuracy)  # largest count first
    assert (series.bins, series.counts, series.labels) == ((7, 2), (30, 5), ("7", "2"))
    assert (series.error, series.error_kind, series.threshold) == (8, "per-query", 20)
    assert series.intervals() == ((22, 38), (0, 13))  # clipped at 0: true counts are >= 0
    top = release_series(
        PartialHistogram.from_counts(10, {1: 4, 2: 9, 3: 9, 8: 1}), accuracy, top=2
    )
    assert (top.bins, top.counts) == ((2, 3), (9, 9))  # ties in the universe's order
    with pytest.raises(ParameterError, match="--top"):
        release_series(_partial(), accuracy, top=0)
    chosen = release_series(_partial(), accuracy, values=[7, "3"], labels=["seven", "three"])
    assert (chosen.bins, chosen.counts, chosen.labels) == ((7, 3), (30, 0), ("seven", "three"))


def test_release_series_falls_back_to_the_simultaneous_bound() -> None:
    series = release_series(_partial(), Accuracy(Fraction(1, 10), None, None, 15, "test"))
    assert (series.error, series.error_kind, series.threshold) == (15, "simultaneous", None)
    bare = release_series(_partial(), {"beta": "1/2", "per_query": None, "simultaneous": None})
    assert (bare.error, bare.error_kind, bare.intervals()) == (None, "none", ((30, 30), (5, 5)))


def test_release_series_refusals() -> None:
    accuracy = Accuracy(Fraction(1, 10), 8, None, 15, "test")
    with pytest.raises(ParameterError, match="accuracy"):
        release_series(_partial())  # a bare release has no stored statement
    with pytest.raises(ParameterError, match="labels"):
        release_series(_partial(), accuracy, labels=["one"])
    with pytest.raises(ParameterError, match="values"):
        release_series(_partial(), accuracy, values=[11])
    with pytest.raises(ParameterError, match="values"):
        release_series(PartialHistogram(10, ()), accuracy)
    with pytest.raises(ParameterError, match="not JSON"):
        release_series("{oops", accuracy)


def test_release_series_of_a_compact_release_needs_values() -> None:
    mech = CompactHistogram(n=3, universe_size=50, epsilon=1, beta0="1/10", counter="geo")
    release = mech.release([4, 4, 9], rng=SeededSource(b"test_plot"))
    with pytest.raises(ParameterError, match="values"):
        release_series(release, mech.accuracy("1/10"))
    series = release_series(release, mech.accuracy("1/10"), values=[4, 9, 50])
    assert series.counts == (release[4], release[9], release[50])
    assert series.n == 3 and series.threshold is None
    assert series.error == mech.accuracy("1/10").per_query


def _document(tmp_path: Path, *extra: str) -> Path:
    out = tmp_path / "release.json"
    args = ["release", str(DATA), "--column", "city", "--universe", "utf8:16", "--epsilon"]
    code = cli_main([*args, "1/2", "--seed", "0a", "--out", str(out), "--quiet", *extra])
    assert code == 0
    return out


def test_release_series_reads_a_release_document(tmp_path: Path) -> None:
    path = _document(tmp_path)  # the default for utf8:16: a compact release
    document = json.loads(path.read_text(encoding="utf-8"))
    series = release_series(path, values=["Zürich", "東京", "Atlantis"])
    assert series.labels == ("Zürich", "東京", "Atlantis")
    assert series.mechanism == document["mechanism"] == "compact"
    assert series.error == document["accuracy"]["per_query"]
    assert series.n == 200
    assert series.privacy is not None and series.privacy.epsilon == Fraction(1, 2)
    # The same counts as `finitedp query`.
    assert series == release_series(document, values=["Zürich", "東京", "Atlantis"])
    assert series == release_series(json.dumps(document), values=["Zürich", "東京", "Atlantis"])


def test_plot_refuses_other_suffixes_before_any_work(tmp_path: Path) -> None:
    with pytest.raises(ParameterError, match=r"\.png or \.svg"):
        plot_counting_pmfs(10, 1, "1/4", 3, tmp_path / "pmf.pdf")
    with pytest.raises(ParameterError, match=r"\.png or \.svg"):
        plot_release(_partial(), None, tmp_path / "release.jpg")


def test_missing_matplotlib_is_one_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(PlotExtraMissingError) as caught:
        plot_counting_pmfs(10, 1, "1/4", 3, tmp_path / "pmf.png")
    assert (
        str(caught.value)
        == PLOT_EXTRA_MESSAGE
        == ("install the plot extra: pip install 'finitedp[plot]'")
    )
    assert isinstance(caught.value, FiniteDPError) and isinstance(caught.value, ImportError)
    assert not (tmp_path / "pmf.png").exists()


# -- drawing ------------------------------------------------------------------------------


def _assert_png(path: Path) -> None:
    data = path.read_bytes()
    assert len(data) > 1000 and data.startswith(PNG_SIGNATURE)


def _assert_svg(path: Path) -> None:
    data = path.read_bytes()
    assert (
        data.startswith(b"<?xml") and b"<svg" in data[:1000] and data.rstrip().endswith(b"</svg>")
    )


@needs_matplotlib
def test_plot_counting_pmfs_writes_png_and_svg(tmp_path: Path) -> None:
    png = plot_counting_pmfs(30, 1, "1/4", 20, tmp_path / "pmf.png", noise="tight")
    svg = plot_counting_pmfs(30, 1, "1/4", 20, tmp_path / "pmf.SVG", log_scale=True)
    assert (png, svg) == (tmp_path / "pmf.png", tmp_path / "pmf.SVG")
    _assert_png(png)
    _assert_svg(svg)


@needs_matplotlib
def test_plotted_heights_are_the_exact_pmfs() -> None:
    from finitedp.plot.draw import _counting_figure

    series = counting_pmf_series(16, "1/2", "1/8", 11, noise="tight")
    figure = _counting_figure(series)
    panels = figure.axes
    assert len(panels) == 3
    for axes, exact in zip(
        panels, (series.geosample, series.truncated, series.fastsample), strict=True
    ):
        (bars,) = axes.containers
        assert [bar.get_height() for bar in bars] == [float(p) for p in exact]
        (line,) = axes.get_lines()[:1]
        assert list(line.get_ydata()) == [float(p) for p in series.geometric]


@needs_matplotlib
def test_release_figure_draws_counts_and_error_bars() -> None:
    from matplotlib.container import BarContainer

    from finitedp.plot.draw import _release_figure

    series = release_series(_partial(), Accuracy(Fraction(1, 10), 8, 20, 15, "test"))
    figure = _release_figure(series, list(series.labels), escaped=False)
    (axes,) = figure.axes
    (bars,) = [c for c in axes.containers if isinstance(c, BarContainer)]
    assert [bar.get_height() for bar in bars] == [30.0, 5.0]
    assert bars.errorbar is not None
    segments = bars.errorbar.lines[2][0].get_segments()
    assert [(s[0][1], s[1][1]) for s in segments] == [(22.0, 38.0), (0.0, 13.0)]
    assert any(line.get_ydata()[0] == 20 for line in axes.get_lines())  # t marked


@needs_matplotlib
def test_plot_release_of_a_document_and_a_compact_release(tmp_path: Path) -> None:
    document = json.loads(_document(tmp_path).read_text(encoding="utf-8"))
    out = plot_release(document, None, tmp_path / "fig1.png", values=["Zürich", "東京", "Oslo"])
    _assert_png(out)
    mech = CompactHistogram(n=3, universe_size=50, epsilon=1, beta0="1/10", counter="geo")
    release = mech.release([4, 4, 9], rng=SeededSource(b"test_plot"))
    svg = plot_release(release, mech.accuracy("1/10"), tmp_path / "c.svg", values=[4, 9, 50])
    _assert_svg(svg)


@needs_matplotlib
def test_svg_output_is_reproducible(tmp_path: Path) -> None:
    one = plot_counting_pmfs(10, 1, "1/4", 3, tmp_path / "one.svg")
    two = plot_counting_pmfs(10, 1, "1/4", 3, tmp_path / "two.svg")
    assert one.read_bytes() == two.read_bytes()


def _run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="finitedp")
    add_plot_parser(parser.add_subparsers(dest="command", required=True))
    args: Any = parser.parse_args(argv)
    assert args.run is run_plot
    try:
        return int(args.run(args))
    except FiniteDPError:
        return 2


@needs_matplotlib
def test_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pmf = tmp_path / "pmf.png"
    argv = ["plot", "pmf", "--n", "20", "--epsilon", "1", "--gamma", "1/4", "--count", "15"]
    assert _run([*argv, "--out", str(pmf)]) == 0
    _assert_png(pmf)
    assert "wrote" in capsys.readouterr().err
    release = _document(tmp_path)
    figure = tmp_path / "fig1.svg"
    assert _run(["plot", "release", str(release), "--out", str(figure), "--values", "Oslo"]) == 0
    _assert_svg(figure)
    # A compact release lists no bins: --values is needed; a bad suffix fails first.
    assert _run(["plot", "release", str(release), "--out", str(tmp_path / "x.png")]) == 2
    assert _run(["plot", "release", "missing.json", "--out", str(tmp_path / "x.gif")]) == 2
    assert not (tmp_path / "x.png").exists()
