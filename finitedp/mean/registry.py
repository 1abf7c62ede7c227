"""The mean family's user-level entry: PLAN over numeric columns (``plan-mean``).

Paper: Lebeda thesis Alg 17, Listing 5.1, Section 5.7.1.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ..entries import JSON, P_OPTION, ColumnEntry, ColumnOutcome, Option
from ..errors import FiniteDPError, ParameterError
from ..jsonvalues import json_int, rational
from ..oracle import RandomSource
from ..params import exact_fraction, short_fraction
from .budget import check_public
from .plan import NEIGHBOURS, PLAN
from .release import MeanRelease, Round

__all__ = ["COLUMN_ENTRIES"]

Columns = list[tuple[Fraction, Fraction, Fraction]]

VARIANCE_OPTION = Option(
    "variance",
    "how PLAN estimates each column's spread: gaussian (median of |x - y| over pairs of "
    "rows) or binary (private column means, for 0/1 data)",
    "choice",
    choices=("gaussian", "binary"),
)
SELECTION_OPTION = Option(
    "selection",
    "PLAN's per-coordinate quantiles: auto (the default: exponential where its bound "
    "places every median, else gaussian), exponential (one draw each), gaussian (binary "
    "search with discrete Gaussian counts) or binary (binary search with BV counts)",
    "choice",
    choices=("auto", "exponential", "gaussian", "binary"),
)
ROUNDS_OPTION = Option(
    "rounds",
    "how many times PLAN clips and adds noise, each time around the estimate so far "
    "(default 1, or 4 where the coordinate-wise centre cannot be placed)",
    "int",
    metavar="R",
)


class _Plan:
    """PLAN as the command line sees it: the columns' values in, a document part out."""

    def __init__(self, plan: PLAN) -> None:
        self.plan = plan

    @property
    def guarantee(self) -> Any:
        return self.plan.guarantee

    def epsilon_for(self, delta: object) -> Fraction:
        return self.plan.epsilon_for(delta)

    def parameters(self) -> JSON:
        plan = self.plan
        bound = plan.centre_bound
        return {
            "p": json_int(plan.p),
            "variance": plan.variance_kind,
            "selection": plan.selection,
            "shares": [rational(s) for s in plan.shares],
            "rounds": json_int(plan.rounds),
            "noise_split": [rational(f) for f in plan.noise_split],
            "units": json_int(plan.units),
            "clipped_rows": json_int(plan.clipped),
            "clip_ratio": rational(plan.clip_ratio),
            "centre_rank_error": None if bound is None else json_int(bound),
        }

    def accuracy(self, beta: object) -> JSON:
        plan = self.plan
        sigma2 = plan.noise.sigma2
        rounds: JSON = {}
        if plan.rounds > 1:
            rounds = {
                "round_noise_sigma2_units": [
                    None if t.sigma2 is None else rational(t.sigma2) for t in plan.noises
                ]
            }
        return {
            "noise_sigma2_units": None if sigma2 is None else rational(sigma2),
            **rounds,
            "statement": "each mean's noise is bounded beside its estimate in the data's "
            f"units, all at once with probability >= {short_fraction(1 - plan.beta / 3)} "
            "(noise_within), and is a discrete Gaussian whose variance in the data's units "
            "is stated there too (noise_variance; noise_sigma2_units "
            "in units of C/K, the release's clip_radius/units, times step/(n scale_i)); rows "
            "beyond the clipping radius C from the centre are pulled in to it, which biases "
            "a mean toward the centre: at most clipped_rows rows are expected beyond C (with "
            f"probability >= {short_fraction(1 - plan.beta / 3)}); rounding to the grid "
            "moves a coordinate's sum by at most n/2 units of C/K; with "
            f"probability >= {short_fraction(1 - plan.beta / 3)} every centre has rank error "
            "at most centre_rank_error (below min(m, n - 1 - m): inside its data's range)"
            + (
                ""
                if plan.rounds == 1
                else f"; with {plan.rounds} rounds (each its own radius and noise, "
                "round_noise_sigma2_units; noise_sigma2_units is the last round's), the "
                "estimate is their inverse-variance mean (weights noise_split_t/C_t^2, the "
                "release's rounds)"
            ),
        }

    def release_from(self, data: Any, rng: RandomSource | None = None) -> ColumnOutcome:
        return self._outcome(self.plan.release_statistics(data, rng))

    def release_from_sets(self, sets: list[Any], rng: RandomSource | None = None) -> ColumnOutcome:
        return self._outcome(self.plan.release_sets(sets, rng))

    def _outcome(self, release: MeanRelease) -> ColumnOutcome:
        """The document part, each mean's noise variance and bound, and the grid's bounds
        (a mean lies in them; the noise may carry an estimate out)."""
        bounds = (self.plan.grid.lower, self.plan.grid.upper)
        return ColumnOutcome(
            release.to_json_dict(),
            release.estimates,
            release.noise_variances,
            (bounds,) * self.plan.d,
            self._noise_within(release),
        )

    def _noise_within(self, release: MeanRelease) -> tuple[Fraction, ...] | None:
        """Each mean's noise bound in the data's units, all at once with probability
        ``>= 1 - beta/3`` (the third of ``beta`` the statement leaves the noise): each
        round's ``|z| <= a_t`` at ``beta/(3 R d)``, carried by the round's weight and
        radius (``C_t step/(K n P_i)``) into the inverse-variance mean."""
        plan = self.plan
        rounds = release.rounds or (Round((), release.radius, release.estimates),)
        share = plan.beta / (3 * len(rounds) * plan.d)
        weights = [r.share / (r.radius * r.radius) for r in rounds]
        total = sum(weights, Fraction(0))
        out = []
        for scale in release.scales:
            bound = Fraction(0)
            for r, w, noise in zip(rounds, weights, plan.noises, strict=True):
                try:
                    a = noise.accuracy(share)
                except FiniteDPError:
                    return None
                bound += w * a * Fraction(r.radius, plan.units * plan.n * scale)
            out.append(bound * plan.grid.step / total)
        return tuple(out)


def _settings(columns: Columns, options: Mapping[str, str | None]) -> dict[str, Any]:
    """PLAN's keyword arguments but ``n`` and ``rho``, from the flags (one grid checked)."""
    if any(c != columns[0] for c in columns):
        raise ParameterError(
            "--bounds: plan-mean needs one grid for every column (the thesis' [-M, M]^d); "
            "give one --bounds and one --grid"
        )
    lower, upper, step = columns[0]
    basket = options.get("format") == "baskets"  # 0/1 rows: the binary variance by default
    variance = options.get("variance") or ("binary" if basket else "gaussian")
    p, rounds = (options.get(name) for name in ("p", "rounds"))
    return {
        "lower": lower,
        "upper": upper,
        "step": step,
        "d": len(columns),
        "p": (1 if variance == "binary" else 2) if p is None else int(exact_fraction(p, "--p")),
        "variance": variance,
        "selection": options.get("selection") or "auto",
        "beta": options.get("beta") or "1/10",
        "rounds": None if rounds is None else int(exact_fraction(rounds, "--rounds")),
    }


def _check(columns: Columns, budget: str, options: Mapping[str, str | None]) -> None:
    """What :func:`_build` refuses without data, refused before the file is read."""
    check_public(rho=budget, **_settings(columns, options))


def _build(n: int, columns: Columns, budget: str, options: Mapping[str, str | None]) -> _Plan:
    return _Plan(PLAN(n=n, rho=budget, **_settings(columns, options)))


COLUMN_ENTRIES = (
    ColumnEntry(
        "plan-mean",
        "PLAN: a variance-aware private mean of numeric columns: zCDP (--rho)",
        "Lebeda thesis Alg 17, Listing 5.1, Section 5.7.1",
        NEIGHBOURS,
        "rho",
        _build,
        (P_OPTION, VARIANCE_OPTION, SELECTION_OPTION, ROUNDS_OPTION),
        "rows",
        baskets=True,
        check=_check,
    ),
)
