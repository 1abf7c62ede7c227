"""PLAN's release type and the parsing of its parameters.

Paper: Lebeda thesis Alg 17 (the released estimate and its public intermediate
values); proofs_notes/plan.md.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal, TypeVar

from ..accounting import Guarantee
from ..errors import FiniteDPError, ParameterError
from ..jsonvalues import json_int, rational
from ..params import exact_fraction, short_fraction

__all__ = [
    "LISTING_SHARES",
    "NEIGHBOURS",
    "PLAN_RELEASE_VERSION",
    "MeanRelease",
    "Round",
    "naming_rho",
    "parse_shares",
    "parse_variance",
]

#: PLAN's neighbour relation.
NEIGHBOURS = "replace one row (a whole vector); n is public"

#: The ``"version"`` of a ``"plan-mean"`` release (2: each round states its noise share).
PLAN_RELEASE_VERSION = 2

#: Listing 5.1's split: 1/4 of rho to centre and spread (1/4 and 3/4 of it), then
#: 1/4 of the rest to the clipping radius and 3/4 to the noise.
LISTING_SHARES = (Fraction(1, 16), Fraction(3, 16), Fraction(3, 16), Fraction(9, 16))


@dataclass(frozen=True)
class Round:
    """One round's public outputs: its centre (grid values), radius ``C_t`` and estimates,
    and ``share``, its fraction of the noise's share of ``rho`` (public; it weighs the round
    in :func:`.rounds.combine`)."""

    centre: tuple[Fraction, ...]
    radius: int
    estimates: tuple[Fraction, ...]
    share: Fraction = Fraction(1)


@dataclass(frozen=True)
class MeanRelease:
    """A released mean: exact rational estimates, the public intermediate values, the guarantee."""

    n: int
    estimates: tuple[Fraction, ...]
    centre: tuple[Fraction, ...]
    scales: tuple[int, ...]
    radius: int
    units: int
    guarantee: Guarantee
    neighbours: str = NEIGHBOURS
    version: int = PLAN_RELEASE_VERSION
    #: With repair rounds, each round's centre, clipping radius and estimates
    #: (``centre`` is the first's, ``radius`` the last's, ``estimates`` their
    #: inverse-variance mean, :func:`.rounds.combine`, weighted by each round's noise share).
    rounds: tuple[Round, ...] = ()
    #: Each estimate's noise variance in the data's units (exact; the noise alone, given
    #: the released radii and scales: clipping may bias the estimate further).  Not in
    #: the release's JSON (the document states it beside each estimate).
    noise_variances: tuple[Fraction, ...] = ()

    def to_json_dict(self) -> dict[str, Any]:
        """JSON-ready: rationals as ``"a/b"`` strings, integers above ``2^53`` as strings."""
        out: dict[str, Any] = {
            "version": self.version,
            "type": "plan-mean",
            "neighbours": self.neighbours,
            "n": json_int(self.n),
            "estimates": [rational(e) for e in self.estimates],
            "centre": [rational(c) for c in self.centre],
            "scales": [json_int(s) for s in self.scales],
            "clip_radius": json_int(self.radius),
            "units": json_int(self.units),
            "guarantee": self.guarantee.to_json_dict(),
        }
        if self.rounds:
            out["rounds"] = [
                {
                    "centre": [rational(c) for c in r.centre],
                    "clip_radius": json_int(r.radius),
                    "noise_share": rational(r.share),
                    "estimates": [rational(e) for e in r.estimates],
                }
                for r in self.rounds
            ]
        return out


def parse_variance(
    variance: object, d: int
) -> tuple[Literal["gaussian", "binary", "public"], tuple[Fraction, ...] | None]:
    if variance in ("gaussian", "binary"):
        return variance, None
    if isinstance(variance, str) or not isinstance(variance, Sequence):
        raise ParameterError(
            f"variance: got {variance!r}; use 'gaussian', 'binary' or d public variances"
        )
    values = tuple(exact_fraction(v, f"variance[{i}]") for i, v in enumerate(variance))
    if len(values) != d or any(v < 0 for v in values):
        raise ParameterError(f"variance: need d = {d} variances, each >= 0")
    return "public", values


def parse_shares(
    shares: Sequence[object] | None, public: bool, centred: bool = True
) -> tuple[Fraction, ...]:
    if shares is None:
        c, v, r, z = LISTING_SHARES
        return (c + v, Fraction(0), r, z) if public else (c, v, r, z)
    out = tuple(exact_fraction(s, f"shares[{i}]") for i, s in enumerate(shares))
    if len(out) != 4 or any(s < 0 for s in out) or sum(out) > 1:
        raise ParameterError(
            f"shares: got {shares!r}; need (centre, spread, radius, noise), each >= 0, sum <= 1"
        )
    if min(out[2], out[3]) <= 0 or (out[0] <= 0 and centred) or (out[1] <= 0 and not public):
        raise ParameterError("shares: every step that runs needs a positive share")
    return out


#: PLAN's own parameters: an error naming one of them is passed on as it is.
OWN_PARAMETERS = frozenset(
    (
        *("lower", "upper", "step", "d", "n", "rho", "p", "variance", "selection", "beta"),
        *("shares", "units", "clip_ratio", "clip_count", "noise_radius", "noise_precision"),
        *("centre", "clipped", "shares[0]", "shares[1]", "shares[2]", "shares[3]", "rounds"),
        "noise_split",
    )
)

F = TypeVar("F", bound=Callable[..., None])


def naming_rho(init: F) -> F:
    """Errors of PLAN's inner steps (a table too small or too large for a share of
    ``rho``) are re-raised naming ``rho``, the parameter the user can change, or
    ``noise_radius`` / ``noise_precision`` when the user gave the table's."""

    @functools.wraps(init)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> None:
        try:
            init(self, *args, **kwargs)
        except FiniteDPError as error:
            message = str(error)
            if message.split(":")[0].split("[")[0] in OWN_PARAMETERS:
                raise
            for inner, own in (("radius", "noise_radius"), ("precision", "noise_precision")):
                if message.startswith(f"{inner}:") and kwargs.get(own) is not None:
                    raise type(error)(f"{own}: no noise table with it ({message})") from None
            rho = short_fraction(exact_fraction(kwargs.get("rho"), "rho"))
            raise type(error)(
                f"rho: got {rho}; a step of PLAN cannot be built with its share ({message})"
            ) from None

    return wrapper  # type: ignore[return-value]
