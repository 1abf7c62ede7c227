"""PLAN's repair rounds: the clip-and-noise step run again around the estimate so far.

Paper: Lebeda thesis Alg 17 Lines 5-8 (one round), repeated as in Biswas, Dong,
Kamath & Ullman 2020 (CoinPress: each private mean recentres the next clipping);
issue 28; proofs_notes/plan.md, "Repair rounds".

Why: the coordinate-wise centre (Line 3) spends ``rho_c/d`` per coordinate.  When
``d`` is large and ``rho`` small, a few coordinates' medians land far outside their
data (the failure mass of any quantile over a long grid), the norms grow with
them, and one clipping radius ``C`` large enough to keep the rows makes noise
that swamps the estimate.  A round's estimate corrects the centre (its error is
the noise's, ``O(C sqrt(d)/(n sqrt(rho_t)))``, not the centre's), so the next
round clips around a centre a factor ``n sqrt(rho_t)/sqrt(d)`` closer and finds
a smaller ``C``.

Privacy: round ``t``'s centre is a function of earlier releases only (public), and
the round is Alg 17's radius quantile and Gaussian noise with its own share; the
accountant composes ``R`` rounds.  The estimates of all rounds are combined by
inverse variance (:func:`combine`), a function of the releases: when the first
centre was already good the rounds' noises average out and little budget is lost
(only the radius quantiles' shares).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from math import isqrt
from typing import Protocol

from ..accounting import Guarantee
from ..counting.gaussiannoise import GaussianNoise, gaussian_noise
from ..errors import ParameterError
from ..oracle import RandomSource
from ..params import exact_fraction, short_fraction
from ..selection.grid import Grid
from .release import MeanRelease, Round

__all__ = [
    "LIGHT_ROUNDS",
    "LIGHT_SHARE",
    "MAX_ROUNDS",
    "NOISE_GUARD",
    "REPAIR_CLIPPED",
    "REPAIR_ROUNDS",
    "REPAIR_VIABLE",
    "Round",
    "RoundPlan",
    "combine",
    "grown_units",
    "light_split",
    "nearest_indices",
    "noise_guarantees",
    "parse_split",
    "repair_rounds",
    "round_noises",
    "run_rounds",
    "split_for",
    "viable_rounds",
]

#: The most rounds PLAN takes (each a radius quantile and ``d`` noise draws).
MAX_ROUNDS = 16

#: Rounds by default when no centre share up to 1/4 keeps every median inside its
#: data (:func:`.shares.shares_by_need`), at least: :func:`repair_rounds` takes more
#: where the radius quantiles can pay for them.  Each round shrinks the centre's
#: error by about ``n sqrt(rho_t)/sqrt(d)``; four rounds gave an l2 error of
#: 16, six 5.9, eight 4.9 at the thesis' n = 4000, d = 2048, rho = 1/16 (Gaussian A,
#: exponential medians, no spreads; IOME 11.2).
REPAIR_ROUNDS = 8

#: :func:`repair_rounds` keeps at most this share of the rows beyond the radius.
REPAIR_CLIPPED = Fraction(1, 8)

#: Repair rounds run only where ``REPAIR_ROUNDS`` rounds' radius quantiles leave at most
#: this share of the rows beyond the radius; else one round buys the centre (up to
#: half of ``rho``).  At ``n = 600``, ``d = 128``, ``rho = 1/32`` eight rounds would clip
#: 521 rows, their radii are nearly uniform over the levels, and the estimate stays at
#: the lost first centre (l2 error 236, 216, 178 on three seeds); one round: 31, 28, 32.
#: At ``n = 600``, ``d = 256``, ``rho = 1/8`` eight rounds clip 273 and repair well.
REPAIR_VIABLE = Fraction(1, 2)

#: In repair rounds the first ``R // LIGHT_ROUNDS`` rounds take ``LIGHT_SHARE`` of an
#: even noise share each (:func:`light_split`).
LIGHT_ROUNDS = 4
LIGHT_SHARE = Fraction(1, 4)

#: Each round's noise has ``sigma^2`` for ``rho_t (1 - 2^-NOISE_GUARD)``: the table's own
#: terms (``d/w(T)``) fit in what the guard leaves below ``rho_t``.
NOISE_GUARD = 20


def repair_rounds(n: int, clipped: Callable[[int], int]) -> int:
    """The repair rounds: the most ``R`` in ``[REPAIR_ROUNDS, MAX_ROUNDS]`` whose radius
    quantile (``rho_r/R`` each) leaves at most ``n/8`` rows beyond it, else ``REPAIR_ROUNDS``.

    The early rounds, centred badly, have large radii and weigh little in the
    inverse-variance mean, so its variance is about the last rounds' times
    ``R/(R - t0)`` (``t0`` the rounds the centre needs): more rounds lose less to
    them, until each round's radius quantile, with ``rho_r/R``, clips too many rows.
    ``clipped(R)`` is that count (public: ``n``, the levels, ``rho``, ``beta``).
    Gaussian A, n = 4000, median l2 error of 3 data sets for 8 / 12 / 16 rounds:
    d = 2048, rho = 1/16: 6.35 / 5.55 / 5.62; 1/8: 3.98 / 3.42 / 3.37 (IOME 3.79);
    1/4: 2.34 / 2.19 / 2.14 (IOME 1.97); d = 512, rho = 1/16: 1.15 / 1.09 / 1.05
    (IOME 1.01); skewed C, d = 2048: 56 and 58 at 1/16 (8, 16 rounds), 47 and 46 at
    1/4.  At n = 600, d = 256, rho = 1/8, 16 rounds clip 376 of the 600 rows (8: 273)
    and the error went from 4.4 to 711: there the rule keeps 8.
    """
    for rounds in range(MAX_ROUNDS, REPAIR_ROUNDS, -1):
        if clipped(rounds) <= REPAIR_CLIPPED * n:
            return rounds
    return REPAIR_ROUNDS


def viable_rounds(n: int, clipped: Callable[[int], int]) -> int:
    """:func:`repair_rounds`, or 1 (no repair) where even ``REPAIR_ROUNDS`` rounds' radius
    quantiles would leave more than ``REPAIR_VIABLE n`` rows beyond the radius."""
    if clipped(REPAIR_ROUNDS) > REPAIR_VIABLE * n:
        return 1
    return repair_rounds(n, clipped)


def light_split(rounds: int) -> tuple[Fraction, ...]:
    """Repair rounds' fractions of the noise share: the first ``R // 4`` light, the rest even.

    The first rounds' centres are still being repaired: their radii are large, their
    estimates weigh little in :func:`combine`, and they only need to move the centre
    into the data's spread.  A quarter of an even share each does that a round or so
    later than a full share (each round shrinks the centre's error by a factor that
    grows with ``sqrt(rho_t)``), and the rounds that count get the rest.  Public values
    only: the guarantee is the accountant's sum either way.  Measured on the same data
    and seeds (Gaussian A, ``n = 4000``, median l2 error): 1.081 -> 1.039 at ``d = 512``,
    ``rho = 1/16`` (12 rounds, 24 data sets); 3.50 -> 3.44 at ``d = 2048``, ``rho = 1/8``
    (16 rounds, 16 data sets) (proofs_notes/plan.md, "Repair rounds").

    >>> light_split(12)[:4], sum(light_split(12))
    ((Fraction(1, 48), Fraction(1, 48), Fraction(1, 48), Fraction(5, 48)), Fraction(1, 1))
    >>> light_split(3)
    (Fraction(1, 3), Fraction(1, 3), Fraction(1, 3))
    """
    light = rounds // LIGHT_ROUNDS
    each = LIGHT_SHARE / rounds
    rest = (1 - light * each) / (rounds - light)
    return (each,) * light + (rest,) * (rounds - light)


def parse_split(split: Sequence[object], rounds: int) -> tuple[Fraction, ...]:
    """``noise_split`` checked: ``R`` positive fractions of the noise share summing to 1."""
    if isinstance(split, str) or not isinstance(split, Sequence):
        raise ParameterError(f"noise_split: got {split!r}; need {rounds} fractions, one a round")
    out = tuple(exact_fraction(f, f"noise_split[{i}]") for i, f in enumerate(split))
    if len(out) != rounds or any(f <= 0 for f in out) or sum(out) != 1:
        raise ParameterError(
            f"noise_split: got {split!r}; need {rounds} fractions (one a round), each > 0, "
            f"summing to 1"
        )
    return out


def split_for(rounds: int, asked: Sequence[object] | None, repairing: bool) -> tuple[Fraction, ...]:
    """``noise_split`` as asked (checked), else :func:`light_split` in repair rounds, else even."""
    if asked is not None:
        return parse_split(asked, rounds)
    return light_split(rounds) if repairing else (Fraction(1, rounds),) * rounds


def round_noises(
    shares: Sequence[Fraction], units: int, radius: object, precision: object, law: str
) -> tuple[GaussianNoise, ...]:
    """Round ``t``'s noise: ``sigma^2 = (2K)^2/(2 rho_t (1 - 2^-NOISE_GUARD))``, of ``law``.

    One sampler per distinct share, the same object for the rounds that share it.
    """
    built: dict[Fraction, GaussianNoise] = {}
    for share in shares:
        if share not in built:
            guarded = share * (1 - Fraction(1, 1 << NOISE_GUARD))
            built[share] = gaussian_noise(
                Fraction((2 * units) ** 2) / (2 * guarded),
                law,
                radius=radius,
                precision=precision,
            )
    return tuple(built[s] for s in shares)


def grown_units(units: int, n: int, least: Fraction, root: int) -> int:
    """The default ``K``: ``units`` (``16 ceil(sqrt(d))``) grown towards ``ceil(n/2)``, at
    most ``8191``, and never so large that the lightest round's ``sigma^2`` passes ``2^28``
    (its table exact at 128 bits) unless ``K = ceil(sqrt(d)) = root``, the least the
    clipping allows.  0/1 rows all round alike, so the rounding's ``n/2`` units must
    stay small against the noise; and a wider table has fewer bits, whose tail mass
    (``delta0``, times ``d``) can make the statement vacuous (proofs_notes/plan.md).

    >>> grown_units(736, 4000, Fraction(1, 1024), 46)  # d = 2048, rho_t = 1/1024
    362
    """
    guarded = least * (1 - Fraction(1, 1 << NOISE_GUARD))
    precise = isqrt(int(guarded * (1 << 27)))
    grown = min(max(units, min(-(-n // 2), precise)), (1 << 13) - 1)
    return max(root, min(grown, precise))


def noise_guarantees(
    split: Sequence[Fraction], noises: Sequence[GaussianNoise], units: int, d: int
) -> list[tuple[Guarantee, int]]:
    """Each distinct table's ``zcdp_vector(2K, d)`` (in round order) and its count of rounds."""
    out = []
    for fraction in dict.fromkeys(split):
        label = "noise (l2 2K)"
        if len(set(split)) > 1:
            label += f", rounds with {short_fraction(fraction)} of its share"
        noise = noises[list(split).index(fraction)]
        out.append((noise.zcdp_vector(2 * units, d, label), list(split).count(fraction)))
    return out


def combine(rounds: Sequence[Round]) -> tuple[Fraction, ...]:
    """The inverse-variance mean of the rounds' estimates: weights ``rho_t/C_t^2``.

    Round ``t``'s noise on coordinate ``i`` has variance ``sigma_t^2 (C_t step/(K n
    P_i))^2`` with ``sigma_t^2 = (2K)^2/(2 rho_t')``: proportional to ``C_t^2/rho_t``
    (``Round.share``, the round's fraction of the noise share) with a factor common to
    all rounds.  One round is returned as it is.

    >>> zero = (Fraction(0),)
    >>> combine([Round(zero, 2, (Fraction(1),)), Round(zero, 1, (Fraction(2),))])
    (Fraction(9, 5),)
    >>> heavy, light = Fraction(3, 4), Fraction(1, 4)
    >>> combine([Round(zero, 2, (Fraction(1),), heavy), Round(zero, 1, (Fraction(2),), light)])
    (Fraction(11, 7),)
    """
    if len(rounds) == 1:
        return rounds[0].estimates
    weights = [r.share / (r.radius * r.radius) for r in rounds]
    total = sum(weights, Fraction(0))
    return tuple(
        sum((w * e for w, e in zip(weights, column, strict=True)), Fraction(0)) / total
        for column in zip(*(r.estimates for r in rounds), strict=True)
    )


def nearest_indices(grid: Grid, estimates: Sequence[Fraction]) -> list[int]:
    """Each estimate's nearest grid index (halves up), clamped to the grid: the next centre.

    >>> nearest_indices(Grid(-1, 1, "1/2"), [Fraction(-3), Fraction(1, 5), Fraction(1, 4)])
    [0, 2, 3]
    """
    span = grid.size - 1
    out = []
    for e in estimates:
        position = (e - grid.lower) / grid.step + Fraction(1, 2)
        index = position.numerator // position.denominator
        out.append(min(max(index, 0), span))
    return out


class RoundPlan(Protocol):
    """What the rounds read of a PLAN: public values and the noises, never the rows."""

    @property
    def grid(self) -> Grid: ...
    @property
    def d(self) -> int: ...
    @property
    def n(self) -> int: ...
    @property
    def units(self) -> int: ...
    @property
    def noise_split(self) -> tuple[Fraction, ...]: ...
    @property
    def noises(self) -> tuple[GaussianNoise, ...]: ...
    @property
    def guarantee(self) -> Guarantee: ...


def run_rounds(
    plan: RoundPlan,
    centre: list[int],
    scales: list[int],
    clip: Callable[[list[int]], tuple[int, list[int]]],
    rng: RandomSource,
) -> MeanRelease:
    """Steps 3-4, ``R`` times, and the release: ``clip(centre)`` draws the radius and gives
    the clipped sums; the noise (``d`` draws) makes the round's estimate; the next round
    is centred on the grid point nearest the estimates so far.  The dense and the sparse
    paths (:mod:`.sparse`) differ only in ``clip``."""
    grid, step, done = plan.grid, plan.grid.step, []
    # combine(done) kept as running sums: the same fractions, without R^2 d operations
    weighted, weight = [Fraction(0)] * plan.d, Fraction(0)
    # and each estimate's noise variance in the data's units: sum_t w_t^2 Var(z_t) c_t^2
    spread = [Fraction(0)] * plan.d
    for share, sampler in zip(plan.noise_split, plan.noises, strict=True):
        radius, sums = clip(centre)
        noise = sampler.sample_many(plan.d, rng)
        estimates = tuple(
            grid.value(m) + Fraction((s + z) * radius, plan.units * plan.n * scale) * step
            for m, s, z, scale in zip(centre, sums, noise, scales, strict=True)
        )
        done.append(Round(tuple(grid.value(m) for m in centre), radius, estimates, share))
        w = share / (radius * radius)
        weighted = [a + w * e for a, e in zip(weighted, estimates, strict=True)]
        weight += w
        variance = sampler.moment(2)  # exact: the noise's own law, an even moment
        spread = [
            v + w * w * variance * (Fraction(radius, plan.units * plan.n * scale) * step) ** 2
            for v, scale in zip(spread, scales, strict=True)
        ]
        centre = nearest_indices(grid, [a / weight for a in weighted])
    combined = done[0].estimates if len(done) == 1 else tuple(a / weight for a in weighted)
    return MeanRelease(
        plan.n,
        combined,
        done[0].centre,
        tuple(scales),
        done[-1].radius,
        plan.units,
        plan.guarantee,
        rounds=tuple(done) if len(done) > 1 else (),
        noise_variances=tuple(v / (weight * weight) for v in spread),
    )
