"""The ALP that ``finitedp release --mechanism alp`` builds from a file of ``n`` rows.

Paper: Lebeda thesis Alg 4/5 and Alg 10 (pure), or Algs 7-9 (``--delta``: Threshold ALP).

Neighbours: one row replaced (``n`` public, as for the BV mechanisms): two
counts move by one, an l1 distance of 2, so every part runs at half its budget
per unit (``contribution = 2``) and Threshold ALP states the group ``delta``.
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import ParameterError
from ..params import check_positive_int, exact_fraction, probability
from .combined import ThresholdALP
from .hashing import check_buckets
from .mechanism import ALP, DEFAULT_ALPHA

__all__ = ["for_rows"]


def for_rows(
    n: int,
    universe_size: int,
    epsilon: object,
    option: Callable[[str], object],
    beta: object = None,
) -> ALP | ThresholdALP:
    """The mechanism for ``n`` rows over ``[1, |X|]``, from the command line's options.

    Defaults: ``k = min(n, |X|)`` (at most ``n`` keys occur), ``psi = n`` (no count
    exceeds ``n``; Thm 2.2's ``psi = u``), ``alpha = 3``.  ``option(name)`` gives
    ``--psi``, ``--k``, ``--alpha``, ``--buckets``, ``--histogram-projection`` and
    ``--delta`` (Threshold ALP; ``psi`` is then its threshold ``t``).  ``beta`` (the
    accuracy statement's) is checked here, before any data is read.

    Raises:
        ParameterError: an option out of range, named by its flag's name.
    """
    if beta is not None:
        probability(beta, "beta")
    k, psi, alpha, buckets, delta = (
        option(name) for name in ("k", "psi", "alpha", "buckets", "delta")
    )
    keys = min(n, universe_size) if k is None else _int_option(k, "k")
    s: int | None = None
    if buckets is not None:
        s = check_buckets(_int_option(buckets, "buckets"), "buckets")
        if not s > 2 * keys:
            raise ParameterError(f"buckets: got {s}; it must exceed 2k = {2 * keys}")
    variant = "histogram" if option("histogram_projection") else "alp"
    alpha_value = DEFAULT_ALPHA if alpha is None else alpha
    if delta is not None:
        if psi is not None:
            raise ParameterError("psi: with --delta, psi is Threshold ALP's threshold t")
        return ThresholdALP(
            universe_size,
            epsilon,
            delta,
            keys,
            alpha=alpha_value,
            s=s,
            variant=variant,
            contribution=2,
            rows=n,
        )
    return ALP(
        universe_size,
        epsilon,
        k=keys,
        psi=n if psi is None else psi,
        alpha=alpha_value,
        s=s,
        contribution=2,
        variant=variant,
        rows=n,
    )


def _int_option(value: object, name: str) -> int:
    v = exact_fraction(value, name)
    if v.denominator != 1:
        raise ParameterError(f"{name}: got {v}; it must be an integer")
    return check_positive_int(int(v), name)
