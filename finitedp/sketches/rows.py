"""The Private Misra-Gries that ``finitedp release --mechanism pmg`` builds from a file.

Paper: Lebeda thesis Alg 12 + Alg 13, Section 3.5.1.

Neighbours: the file's rows, in order, are the stream; two files are neighbours
when one has one row more (thesis Def 3.1).  The number of rows is therefore
not public: it is not used here and not written into the release.
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import ParameterError
from ..params import check_positive_int, exact_fraction, inverse_natural, probability
from .private import PrivateMisraGries
from .pure import PureSparseMisraGries

__all__ = ["for_rows", "pure_for_rows"]


def _int_option(option: Callable[[str], object], name: str, what: str) -> int:
    value = exact_fraction(option(name), name)
    if value.denominator != 1:
        raise ParameterError(f"{name}: got {value}; {what} is an integer")
    return check_positive_int(int(value), name)


def for_rows(
    universe_size: int, epsilon: object, option: Callable[[str], object], beta: object = None
) -> PrivateMisraGries:
    """The mechanism from the command line's ``--k``, ``--delta``, ``--clamp-threshold``,
    ``--standard-sketch`` and ``--debias`` (``beta``, the accuracy statement's, is
    checked here).

    Raises:
        ParameterError: an option out of range, named by its flag's name.
    """
    if beta is not None:
        probability(beta, "beta")
    return PrivateMisraGries(
        _int_option(option, "k", "the number of counters"),
        universe_size,
        epsilon,
        option("delta"),
        threshold="clamp" if option("clamp_threshold") else "paper",
        standard=bool(option("standard_sketch")),
        debias=bool(option("debias")),
    )


def pure_for_rows(
    universe_size: int, epsilon: object, option: Callable[[str], object], beta: object
) -> PureSparseMisraGries:
    """The pure release from ``--k``, ``--max-length`` and ``--beta``, over any universe.

    ``beta`` is BV's ``beta0`` as for PureSparseHistogram (Thm 6.11): the fallback's
    probability is ``beta/4``, and the accuracy statement holds at ``beta``.

    Raises:
        ParameterError: an option out of range, named by its flag's name.
    """
    return PureSparseMisraGries(
        _int_option(option, "k", "the number of counters"),
        universe_size,
        epsilon,
        _int_option(option, "max_length", "the bound on the stream length"),
        inverse_natural(beta, "beta") / 4,
    )
