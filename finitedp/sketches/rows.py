"""The Private Misra-Gries that ``finitedp release --mechanism pmg`` builds from a file.

Paper: Lebeda thesis Alg 12 + Alg 13, Section 3.5.1.

Neighbours: the file's rows, in order, are the stream; two files are neighbours
when one has one row more (thesis Def 3.1).  The number of rows is therefore
not public: it is not used here and not written into the release.
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import ParameterError
from ..params import check_positive_int, exact_fraction, probability
from .private import PrivateMisraGries

__all__ = ["for_rows"]


def for_rows(
    universe_size: int, epsilon: object, option: Callable[[str], object], beta: object = None
) -> PrivateMisraGries:
    """The mechanism from the command line's ``--k``, ``--delta``, ``--clamp-threshold``
    and ``--standard-sketch`` (``beta``, the accuracy statement's, is checked here).

    Raises:
        ParameterError: an option out of range, named by its flag's name.
    """
    if beta is not None:
        probability(beta, "beta")
    k = exact_fraction(option("k"), "k")
    if k.denominator != 1:
        raise ParameterError(f"k: got {k}; the number of counters is an integer")
    return PrivateMisraGries(
        check_positive_int(int(k), "k"),
        universe_size,
        epsilon,
        option("delta"),
        threshold="clamp" if option("clamp_threshold") else "paper",
        standard=bool(option("standard_sketch")),
    )
