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

Layout: :mod:`.series` (the exact data of a picture), :mod:`.draw` (matplotlib),
:mod:`.command` (``finitedp plot``).
"""

from .command import add_plot_parser, run_plot
from .draw import PlotExtraMissingError, plot_counting_pmfs, plot_release
from .series import (
    MAX_PMF_N,
    MAX_RELEASE_BARS,
    PLOT_EXTRA_MESSAGE,
    CountingPmfSeries,
    ReleaseSeries,
    counting_pmf_series,
    release_series,
)

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
