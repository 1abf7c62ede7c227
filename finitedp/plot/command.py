"""``finitedp plot``: the command line of the pictures."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    pass

from ..errors import ParameterError
from ..io.arguments import count
from ..io.files import check_out, say
from ..io.releases import column_estimates, read_document
from .draw import _output_format, _require_matplotlib, plot_counting_pmfs, plot_release
from .means import plot_estimates, plot_means
from .shapes import plot_shapes

__all__ = ["add_plot_parser", "run_plot"]


# -- the command line ------------------------------------------------------------------------

_PLOT_DESCRIPTION = """\
Draw a picture (PNG or SVG, chosen by the suffix of --out; needs the plot extra:
pip install 'finitedp[plot]').

  pmf      BV Fig 2: the exact PMFs of GeoSample, of the truncated geometric Z' and
           of FastSample for one true count, each against the clamped geometric.
  release  BV Fig 1: a release written by finitedp release, as bars with error bars
           +-a from its stored accuracy statement (threshold t marked).
  shapes   Lebeda thesis Fig 4.1: for a sum of two numeric columns, the ellipses
           (Gaussian) or parallelograms (Laplace) within which it is private, for
           the standard split, the proportional one and the release's own.
  means    a PLAN release (finitedp release --mechanism plan-mean): each column's
           estimate with +-2 standard deviations of its noise.

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
    pictures = plot.add_subparsers(
        dest="picture", required=True, metavar="{pmf,release,shapes,means}"
    )
    pmf = pictures.add_parser(
        "pmf",
        help="exact PMFs of GeoSample, Z' and FastSample against the clamped geometric",
        description="BV Fig 2 for one true count: three panels (GeoSample, Z' clamped to "
        "[0, n], FastSample), each with the clamped geometric overlaid. Numbers are exact: "
        "write 1/2 (or 0.5, read as exactly 1/2).",
    )
    pmf.add_argument("--n", type=count, required=True, help="number of rows (outputs in [0, n])")
    pmf.add_argument("--epsilon", required=True, help="privacy budget, e.g. 1 or 1/2")
    pmf.add_argument("--gamma", required=True, help="FastSample's mixing weight 1/g, e.g. 1/4")
    pmf.add_argument("--count", type=count, required=True, help="the true count c, in [0, n]")
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
        "--top",
        type=int,
        metavar="K",
        help="draw the K largest listed counts (bars are drawn largest first)",
    )
    release.add_argument(
        "--values", nargs="+", metavar="V", help="values to draw, in the release's universe"
    )
    shapes = pictures.add_parser(
        "shapes",
        help="thesis Fig 4.1 for a sum of two numeric columns",
        description="Lebeda thesis Fig 4.1 for a release of two numeric columns written by "
        "finitedp release --mechanism vector-laplace|vector-gaussian: the box of possible "
        "differences and the shapes within which the standard split, the proportional one "
        "and the release's own are private, each with its expected error relative to the "
        "release's.",
    )
    shapes.add_argument("release", metavar="RELEASE.json", help="the release; - for stdin")
    shapes.add_argument("--out", required=True, metavar="FILE", help="FILE.png or FILE.svg")
    means = pictures.add_parser(
        "means",
        help="a PLAN release's estimates with their noise's error bars",
        description="For a release written by finitedp release --mechanism plan-mean: "
        "each column's estimate with +-2 standard deviations of its noise (sigma C step/"
        "(K n P_i), read exactly from the document; clipping's bias is not in the bars).",
    )
    means.add_argument("release", metavar="RELEASE.json", help="the release; - for stdin")
    means.add_argument("--out", required=True, metavar="FILE", help="FILE.png or FILE.svg")
    plot.set_defaults(run=run_plot)
    return plot


def run_plot(args: argparse.Namespace) -> int:
    """Run ``finitedp plot pmf``, ``finitedp plot release`` or ``finitedp plot shapes``.

    Args:
        args: the parsed command line.

    Returns:
        0 (errors are raised).

    Raises:
        FiniteDPError: an input error, or matplotlib missing (:class:`PlotExtraMissingError`).
    """
    _output_format(args.out)  # before any work
    check_out(args.out, str(getattr(args, "release", "-")))  # never over the release read
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
    elif args.picture in ("shapes", "means"):
        name = "<stdin>" if args.release == "-" else str(args.release)
        draw = plot_shapes if args.picture == "shapes" else plot_means
        path = draw(read_document(str(args.release)), name, args.out)
    else:
        _require_matplotlib()  # before reading a large release
        document = read_document(str(args.release))
        name = "<stdin>" if args.release == "-" else str(args.release)
        kind = document.get("release", {}).get("type") if isinstance(document, dict) else None
        if kind == "plan-mean":  # every release kind: the column ones too
            path = plot_means(document, name, args.out)
        elif column_estimates(document, name) is not None:
            path = plot_estimates(document, name, args.out)
        else:
            if args.top is not None and args.values is not None:
                raise ParameterError("--top: it picks the bars; --values names them: give one")
            path = plot_release(document, None, args.out, values=args.values, top=args.top)
    say(f"finitedp plot: wrote {path}")
    return 0
