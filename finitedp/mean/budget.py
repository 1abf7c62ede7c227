"""PLAN's budget plan: every decision of a release, made once from public values only.

Paper: Lebeda thesis Alg 17 and Listing 5.1 (the steps and their shares of ``rho``);
issue 28 and proofs_notes/plan.md (the split by need, the repair rounds, ``K``).

:func:`plan_budget` reads the public parameters (``n``, ``d``, the grid, ``rho``,
``beta`` and the options) and decides, in this order, the quantiles' mechanism, the
shares of ``rho``, the rounds, the radius grid and its share, the rows expected beyond
the radius, ``K`` and the noise of each round.  The result, a :class:`PlanBudget`, is a
value: it can be printed and compared, and since nothing in it depends on the rows, it
is the privacy argument's list of what is fixed before the data are read.

>>> b = plan_budget(-20, 20, d=8, n=1000, rho="1/2", step="1/16")
>>> [str(s) for s in b.shares], b.rounds, b.units, b.inputs.selection
(['1/16', '1/32', '1/64', '57/64'], 1, 500, 'exponential')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from math import isqrt
from typing import Literal, TypedDict

from ..counting.gaussiannoise import DEFAULT_LAW, check_law
from ..errors import ParameterError
from ..params import check_positive_int, positive_fraction, probability, short_fraction, short_int
from ..selection.grid import Grid
from .release import parse_shares, parse_variance
from .rounds import MAX_ROUNDS, grown_units, split_for, viable_rounds
from .scaling import SCALE_BITS, check_exponent, clip_grid, gap_levels, require_plan_time
from .shares import PlanInputs, clipped_beyond, lighter_radius, shares_by_need

__all__ = ["MAX_RHO", "SPREAD_RATIO", "PlanBudget", "PlanOptions", "check_public", "plan_budget"]

#: The ratio of the gaps' geometric grid (spreads are estimated to within it).
SPREAD_RATIO = Fraction(6, 5)

#: The largest budget PLAN takes.
MAX_RHO = 64


class PlanOptions(TypedDict, total=False):
    """PLAN's optional keyword arguments (:func:`plan_budget`, :class:`~.plan.PLAN`)."""

    step: object
    p: object
    variance: Literal["gaussian", "binary"] | Sequence[object]
    selection: Literal["auto", "exponential", "binary", "gaussian"]
    centre: Literal["median", "lower"] | None
    clipped: object
    beta: object
    shares: Sequence[object] | None
    units: object
    clip_ratio: object
    clip_count: object
    noise_radius: object
    noise_precision: object
    rounds: object
    noise_split: Sequence[object] | None
    noise_law: object


@dataclass(frozen=True)
class PlanBudget:
    """Every public decision of one PLAN (:func:`plan_budget`); no row is read to make it.

    Attributes:
        inputs: the checked parameters (grid, ``n``, ``d``, ``rho``, ``beta``, the spread's
            kind, the quantiles' mechanism as finally chosen, the noise law).
        p: the error norm targeted.
        public_variances: the ``d`` public variances (``variance`` given as numbers).
        shares: ``(centre, spread, radius, noise)`` fractions of ``rho``.
        rounds: ``R``, the clip-and-noise rounds.
        noise_split: each round's fraction of the noise's share.
        repairing: whether the rounds repair a centre the share could not place.
        clip_ratio, clip_count: the radii's geometric grid.
        radius_share: each round's radius quantile's zCDP budget (a fraction of ``rho``'s).
        clipped: ``k``, the rows expected beyond the radius (the radius quantile's rank).
        units: ``K``, the grid of ``C/K`` on which rows are summed.
        round_shares: each round's zCDP budget for its noise.
        noise_radius, noise_precision: the ``"table"`` law's table, if given.
        defaults: whether ``K`` and the noise tables are the defaults (then a statement
            with ``delta0 > 2^-20`` is refused).
    """

    inputs: PlanInputs
    p: int
    public_variances: tuple[Fraction, ...] | None
    shares: tuple[Fraction, ...]
    rounds: int
    noise_split: tuple[Fraction, ...]
    repairing: bool
    clip_ratio: Fraction
    clip_count: int
    radius_share: Fraction
    clipped: int
    units: int
    round_shares: tuple[Fraction, ...]
    noise_radius: object
    noise_precision: object
    defaults: bool

    def describe(self) -> str:
        """The plan as lines of text: what each step gets, and why it is public."""
        i = self.inputs
        names = ("centre", "spread", "radius", "noise")
        return "\n".join(
            [
                f"PLAN n = {i.n}, d = {i.d}, rho = {short_fraction(i.rho)}, grid "
                f"[{short_fraction(i.grid.lower)}, {short_fraction(i.grid.upper)}] step "
                f"{short_fraction(i.grid.step)}; every figure below is public",
                "shares of rho: "
                + ", ".join(
                    f"{n} {short_fraction(s)}" for n, s in zip(names, self.shares, strict=True)
                ),
                f"quantiles: {i.selection}; spread: {i.variance_kind}; centre: "
                f"{'median' if i.centred else 'lower end'}; noise law: {i.noise_law}",
                f"rounds: {self.rounds} (noise split "
                f"{', '.join(short_fraction(f) for f in self.noise_split)})"
                + (" repairing the centre" if self.repairing else ""),
                f"radius: {self.clip_count} levels of ratio {short_fraction(self.clip_ratio)}, "
                f"quantile (n - {self.clipped})/n with {short_fraction(self.radius_share)} each",
                f"K = {self.units}",
            ]
        )


def _inputs(
    lower: object,
    upper: object,
    d: object,
    n: object,
    rho: object,
    step: object,
    beta: object,
    variance: object,
    selection: str,
    centre: str | None,
    noise_law: str,
) -> tuple[PlanInputs, tuple[Fraction, ...] | None]:
    """The checked parameters (each refused by name), and the public variances if given."""
    grid = Grid(lower, upper, step)
    size = check_positive_int(d, "d")
    if size >= 1 << 20:
        raise ParameterError(f"d: got {size}; PLAN takes fewer than 2^20 coordinates")
    rows = check_positive_int(n, "n")
    if rows < 2:
        raise ParameterError(f"n: got {rows}; PLAN needs at least 2 rows")
    budget = positive_fraction(rho, "rho")
    if budget > MAX_RHO:
        raise ParameterError(
            f"rho: got {short_fraction(budget)}; at most {MAX_RHO} (beyond, the noise "
            f"tables degenerate and the release would be the exact mean)"
        )
    failure = probability(beta, "beta")
    if selection not in ("auto", "exponential", "binary", "gaussian"):
        raise ParameterError(
            f"selection: got {selection!r}; use 'auto', 'exponential', 'binary' or 'gaussian'"
        )
    span = grid.size - 1
    if span.bit_length() > SCALE_BITS - 8:
        raise ParameterError(
            f"step: the grid from lower to upper has {short_int(span)} steps; PLAN "
            f"takes fewer than 2^{SCALE_BITS - 8}: use a coarser step or narrower bounds"
        )
    kind, public = parse_variance(variance, size)
    if centre is None:  # binary data are not recentred (the authors' plan_binary)
        centre = "lower" if kind == "binary" else "median"
    if centre not in ("median", "lower"):
        raise ParameterError(f"centre: got {centre!r}; use 'median' or 'lower'")
    # The pairs' gaps |x - y| (grid units) are read on a geometric grid: level k
    # covers gaps up to T_k = ceil(r^k); the spread is a constant-factor estimate,
    # and a few dozen levels (not 2M/step points) keep the median's tail short.
    levels = gap_levels(span, SPREAD_RATIO)
    inputs = PlanInputs(
        grid,
        size,
        rows,
        budget,
        failure,
        kind,
        # "auto" tries the exponential mechanism first (shares_by_need may switch it)
        "exponential" if selection == "auto" else selection,
        centre == "median",
        tuple(levels),
        noise_law,
    )
    return inputs, public


def check_public(
    lower: object,
    upper: object,
    d: object,
    rho: object,
    step: object,
    beta: object,
    variance: object,
    selection: str,
    p: object,
    rounds: object,
) -> None:
    """Refuse, by name, every parameter :func:`plan_budget` refuses without ``n``: what
    a release checks before it reads the data (``n`` is then a file's row count).

    Raises:
        ParameterError: the grid, ``d``, ``rho``, ``beta``, the variance, the selection,
            ``p`` or ``rounds`` out of range.
    """
    _inputs(lower, upper, d, 2, rho, step, beta, variance, selection, None, DEFAULT_LAW)
    check_exponent(p)
    asked = None if rounds is None else check_positive_int(rounds, "rounds")
    if asked is not None and asked > MAX_ROUNDS:
        raise ParameterError(f"rounds: got {short_int(asked)}; PLAN takes 1 to {MAX_ROUNDS}")


def plan_budget(
    lower: object,
    upper: object,
    *,
    d: object,
    n: object,
    rho: object,
    step: object = 1,
    p: object = 2,
    variance: Literal["gaussian", "binary"] | Sequence[object] = "gaussian",
    selection: Literal["auto", "exponential", "binary", "gaussian"] = "auto",
    centre: Literal["median", "lower"] | None = None,
    clipped: object = None,
    beta: object = "1/10",
    shares: Sequence[object] | None = None,
    units: object = None,
    clip_ratio: object = "65/64",
    clip_count: object = None,
    noise_radius: object = None,
    noise_precision: object = None,
    rounds: object = None,
    noise_split: Sequence[object] | None = None,
    noise_law: object = None,
) -> PlanBudget:
    """PLAN's decisions from its public parameters (the arguments of :class:`~.plan.PLAN`).

    Raises:
        ParameterError: any parameter out of range, named.
    """
    sized = noise_radius is not None or noise_precision is not None  # a table's options
    law = check_law(noise_law or ("table" if sized else DEFAULT_LAW))
    inputs, public = _inputs(lower, upper, d, n, rho, step, beta, variance, selection, centre, law)
    exponent = check_exponent(p)
    root = isqrt(inputs.d - 1) + 1 if inputs.d > 1 else 1
    k = min(16 * root, (1 << 13) - 1) if units is None else check_positive_int(units, "units")
    if not root <= k < 1 << 13:
        raise ParameterError(
            f"units: got {short_int(k)}; K must lie in [ceil(sqrt(d)), 2^13) = [{root}, 8192)"
        )
    asked = None if rounds is None else check_positive_int(rounds, "rounds")
    if asked is not None and asked > MAX_ROUNDS:
        raise ParameterError(f"rounds: got {short_int(asked)}; PLAN takes 1 to {MAX_ROUNDS}")
    known = public is not None
    if shares is not None:
        split, count = parse_shares(shares, known, inputs.centred), asked or 1
    else:
        split, count, placed = shares_by_need(inputs, known, asked)
        if selection == "auto" and not placed:  # the Gaussian search fails less far out
            inputs = replace(inputs, selection="gaussian")
            split, count, _ = shares_by_need(inputs, known, asked)
    ratio, levels_count = clip_grid(clip_ratio, clip_count, root)
    levels = Grid(0, max(1, levels_count - 1))
    repairing = shares is None and asked is None and count > 1
    if repairing:  # as many rounds as the radius quantiles can pay for, or one (.rounds)
        radius_total = split[2] * inputs.rho
        count = viable_rounds(inputs.n, lambda r: clipped_beyond(inputs, levels, radius_total / r))
        if count == 1:  # the rounds would clip most rows: one round buys the centre
            split, count, _ = shares_by_need(inputs, known, 1)
            repairing = False
    require_plan_time(inputs.d, count)  # public work first: before any table
    if shares is None and count == 1:  # the radius' spare share to the noise
        split = lighter_radius(
            split, inputs.n, lambda s: clipped_beyond(inputs, levels, s * inputs.rho)
        )
    radius_share = split[2] * inputs.rho / count
    fractions = split_for(count, noise_split, repairing)
    beyond = clipped_beyond(inputs, levels, radius_share)
    if clipped is not None:
        beyond = check_positive_int(clipped, "clipped")
        if beyond >= inputs.n:
            raise ParameterError(
                f"clipped: got {short_int(beyond)}; it must be below n = {short_int(inputs.n)}"
            )
    elif inputs.variance_kind == "binary":  # heavy-tailed baskets: clip a tenth
        beyond = max(beyond, inputs.n // 10)
    round_shares = tuple(split[3] * inputs.rho * f for f in fractions)
    if units is None:  # 0/1 rows all round alike: K grows to n/2 (proofs_notes/plan.md)
        k = grown_units(k, inputs.n, min(round_shares), root)
    return PlanBudget(
        inputs,
        exponent,
        public,
        split,
        count,
        fractions,
        repairing,
        ratio,
        levels_count,
        radius_share,
        beyond,
        k,
        round_shares,
        noise_radius,
        noise_precision,
        units is None and not sized,
    )
