"""The ALP that ``finitedp release --mechanism alp`` builds from a file of ``n`` rows.

Paper: Lebeda thesis Alg 4/5 and Alg 10 (pure), or Algs 7-9 (``--delta``: Threshold ALP).

Neighbours: one row replaced (``n`` public, as for the BV mechanisms): two
counts move by one, an l1 distance of 2, so every part runs at half its budget
per unit (``contribution = 2``) and Threshold ALP states the group ``delta``.
With a value column (each row adds a value in ``[0, B]`` on the grid ``1/q``
to its key) a replaced row moves the vector by at most ``2B``: ``contribution
= 2B``, and the values' grid is ALP's (and Threshold2's) ``step``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import Any, cast

from ..entries import WeightedSums
from ..errors import ParameterError, ResourceLimitError
from ..guarantees import Accuracy, Privacy
from ..oracle import RandomSource
from ..params import check_positive_int, exact_fraction, probability
from .combined import ThresholdALP, ThresholdALPRelease
from .embedding import check_keys
from .hashing import check_buckets
from .mechanism import ALP, DEFAULT_ALPHA
from .release import ALPRelease

__all__ = ["WeightedRows", "for_rows"]


class WeightedRows:
    """ALP or Threshold ALP on rows ``(key, value)``: the vector is the sum of each key's values.

    Neighbours: one row of ``n`` replaced, values in ``[0, B]``: l1 distance at most
    ``2B`` (the wrapped mechanism's ``contribution``).
    """

    def __init__(self, mechanism: ALP | ThresholdALP, n: int, universe_size: int) -> None:
        self.mechanism, self.n, self.universe_size = mechanism, n, universe_size

    @property
    def privacy(self) -> Privacy:
        """The wrapped mechanism's guarantee."""
        return self.mechanism.privacy

    def accuracy(self, beta: object) -> Accuracy:
        """The wrapped mechanism's statement (in the values' units)."""
        return self.mechanism.accuracy(beta)

    def release(
        self, data: Iterable[object] | WeightedSums, rng: RandomSource | None = None
    ) -> ALPRelease | ThresholdALPRelease:
        """Sum the values per key, then project (``data`` may be :class:`WeightedSums`).

        Raises:
            ParameterError: not ``n`` rows of ``(key, exact value)`` with keys in ``[1, d]``.
        """
        if isinstance(data, WeightedSums):  # already summed by the reader, every value checked
            if data.n != self.n:
                raise ParameterError(f"data: {data.n} rows; this release is for n = {self.n}")
            check_keys(list(data.sums), self.universe_size)
            return self.mechanism.project(dict(data.sums), rng)
        rows = list(data)
        if len(rows) != self.n:
            raise ParameterError(f"data: got {len(rows)} rows; this release is for n = {self.n}")
        if not all(isinstance(row, tuple) and len(row) == 2 for row in rows):
            raise ParameterError("data: rows must be (key, value) pairs with a value column")
        pairs = cast(list[tuple[Any, Any]], rows)
        check_keys([key for key, _ in pairs], self.universe_size)
        x: dict[int, Fraction] = {}
        for key, value in pairs:
            x[key] = x.get(key, Fraction(0)) + exact_fraction(value, f"value of key {key}")
        return self.mechanism.project(x, rng)


def for_rows(
    n: int,
    universe_size: int,
    epsilon: object,
    option: Callable[[str], object],
    beta: object = None,
    values: tuple[Fraction, Fraction] | None = None,
) -> ALP | ThresholdALP | WeightedRows:
    """The mechanism for ``n`` rows over ``[1, |X|]``, from the command line's options.

    Defaults: ``k = min(n, |X|)`` (at most ``n`` keys occur), ``psi = n`` (no count
    exceeds ``n``; Thm 2.2's ``psi = u``), ``alpha = 3``.  ``option(name)`` gives
    ``--psi``, ``--k``, ``--alpha``, ``--buckets``, ``--histogram-projection`` and
    ``--delta`` (Threshold ALP; ``psi`` is then its threshold ``t``).  ``beta`` (the
    accuracy statement's) is checked here, before any data is read.  ``values =
    (B, step)`` is a value column's bound and grid: rows are then ``(key, value)``,
    ``contribution = 2B`` and ``psi`` defaults to ``n B``.

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
    bound, step = (Fraction(1), Fraction(1)) if values is None else values
    contribution = 2 * bound
    mechanism: ALP | ThresholdALP
    if delta is not None:
        if psi is not None:
            raise ParameterError("psi: with --delta, psi is Threshold ALP's threshold t")
        if contribution.denominator != 1:
            raise ParameterError(
                f"value_bound: got {bound}; with --delta, 2 B must be an integer "
                f"(Threshold2's group delta counts whole units)"
            )
        mechanism = ThresholdALP(
            universe_size,
            epsilon,
            delta,
            keys,
            alpha=alpha_value,
            s=s,
            variant=variant,
            contribution=int(contribution),
            rows=n,
            step=step,
        )
    else:
        try:
            mechanism = ALP(
                universe_size,
                epsilon,
                k=keys,
                psi=n * bound if psi is None else psi,
                alpha=alpha_value,
                s=s,
                step=step,
                contribution=contribution,
                variant=variant,
                rows=n,
            )
        except ResourceLimitError as error:  # say which of k and psi the caller left to n
            chosen = [f"--{name} (default {name} = {text})" for name, given, text in (
                ("k", k, f"min(n, |X|) = {keys}"), ("psi", psi, f"n = {n * bound}"))
                if given is None]  # fmt: skip
            if not chosen:
                raise
            raise ResourceLimitError(f"{error}; or give {' and '.join(chosen)}") from None
    return mechanism if values is None else WeightedRows(mechanism, n, universe_size)


def _int_option(value: object, name: str) -> int:
    v = exact_fraction(value, name)
    if v.denominator != 1:
        raise ParameterError(f"{name}: got {v}; it must be an integer")
    return check_positive_int(int(v), name)
