"""An exact privacy accountant: what each step promises, and what their composition does.

Paper: Dwork & Roth (2014) Thm 3.16 (basic composition of ``(eps, delta)``-DP);
Bun & Steinke (TCC 2016; BS16) Lemma 2.3 / Lemma 8.3 (zCDP and approximate
zCDP compose by adding ``rho`` and ``delta``), Prop 1.4 (pure ``eps``-DP is
``eps^2/2``-zCDP), Def 8.1 (``delta``-approximate ``rho``-zCDP); Cesar & Rogers
(2021) Lemma 3.2 (an ``eps``-bounded-range mechanism, such as the exponential
mechanism, is ``eps^2/8``-zCDP); conversions in :mod:`.convert`.

A :class:`Guarantee` holds what one mechanism promises for one neighbour
relation, in each notion it can state: ``(epsilon, delta)``-DP and/or
(approximate) ``rho``-zCDP, with ``orders = "integer"`` when the Renyi bound
``D_alpha <= alpha rho`` is proved at integer orders ``alpha >= 2`` only (the
truncated discrete Gaussian, :mod:`finitedp.counting.gaussian`).  An
:class:`Accountant` keeps the guarantees of the steps of one release and
composes them; every figure is an exact rational or a rational upper bound.

>>> acc = Accountant("replace one row")
>>> acc.add(Guarantee.pure(Fraction(1, 4), "median"))
>>> acc.add(Guarantee.zcdp(Fraction(1, 8), "noise"))
>>> total = acc.total()
>>> total.epsilon is None, total.rho      # no pure statement survives; 1/32 + 1/8
(True, Fraction(5, 32))
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..errors import ParameterError
from ..exactmath import simplest_between
from ..jsonvalues import rational
from ..params import (
    check_positive_int,
    decimal_nearest,
    exact_fraction,
    probability,
    short_fraction,
)
from .convert import ln_upper, zcdp_epsilon

__all__ = ["Accountant", "Guarantee"]

_ORDERS = ("all", "integer")


@dataclass(frozen=True)
class Guarantee:
    """One mechanism's privacy for one neighbour relation, in every notion it can state.

    Attributes:
        label: what the step is (``"median of coordinate 3"``).
        epsilon: ``(epsilon, delta)``-DP holds (pure when ``delta = 0``); ``None``: not stated.
        delta: the ``delta`` of that statement.
        rho: ``delta``-approximate ``rho``-zCDP holds (BS16 Def 8.1); ``None``: not stated.
        rho_delta: the ``delta`` of the zCDP statement (0: plain zCDP).
        orders: ``"all"``: ``D_alpha <= alpha rho`` for every real ``alpha > 1``;
            ``"integer"``: for integer ``alpha >= 2`` only.
    """

    label: str
    epsilon: Fraction | None = None
    delta: Fraction = Fraction(0)
    rho: Fraction | None = None
    rho_delta: Fraction = Fraction(0)
    orders: str = "all"

    def __post_init__(self) -> None:
        if self.epsilon is None and self.rho is None:
            raise ParameterError(f"{self.label}: a guarantee needs epsilon or rho")
        if self.epsilon is not None and self.epsilon < 0:
            raise ParameterError(
                f"{self.label}: epsilon {short_fraction(self.epsilon)} is negative"
            )
        if self.rho is not None and self.rho < 0:
            raise ParameterError(f"{self.label}: rho {short_fraction(self.rho)} is negative")
        for name, value in (("delta", self.delta), ("rho_delta", self.rho_delta)):
            if not 0 <= value <= 1:
                raise ParameterError(
                    f"{self.label}: {name} {short_fraction(value)} is outside [0, 1]"
                )
        if self.orders not in _ORDERS:
            raise ParameterError(f"orders: got {self.orders!r}; use 'all' or 'integer'")

    @classmethod
    def pure(cls, epsilon: object, label: str) -> Guarantee:
        """Pure ``eps``-DP, and so ``eps^2/2``-zCDP (BS16 Prop 1.4)."""
        eps = exact_fraction(epsilon, "epsilon")
        return cls(label, eps, Fraction(0), eps * eps / 2)

    @classmethod
    def pure_ratio(
        cls, exp_epsilon: object, label: str, *, bounded_range: bool = False
    ) -> Guarantee:
        """Pure DP with ``e^eps`` an exact rational ratio; ``eps`` is its logarithm rounded up.

        Args:
            bounded_range: the mechanism is ``eps``-bounded-range (the exponential
                mechanism: Cesar & Rogers 2021), so it is ``eps^2/8``-zCDP, not ``eps^2/2``.
        """
        ratio = exact_fraction(exp_epsilon, "exp_epsilon")
        if ratio < 1:
            raise ParameterError(
                f"exp_epsilon: got {short_fraction(ratio)}; a privacy ratio is at least 1"
            )
        eps = ln_upper(ratio) if ratio > 1 else Fraction(0)
        return cls(label, eps, Fraction(0), eps * eps / (8 if bounded_range else 2))

    @classmethod
    def approx(cls, epsilon: object, delta: object, label: str) -> Guarantee:
        """``(eps, delta)``-DP, with no zCDP statement."""
        return cls(
            label,
            exact_fraction(epsilon, "epsilon"),
            probability(delta, "delta", allow_zero=True, allow_one=True),
        )

    @classmethod
    def zcdp(
        cls, rho: object, label: str, *, delta: object = 0, integer_orders: bool = False
    ) -> Guarantee:
        """``delta``-approximate ``rho``-zCDP (BS16 Def 8.1; plain zCDP when ``delta = 0``)."""
        return cls(
            label,
            rho=exact_fraction(rho, "rho"),
            rho_delta=probability(delta, "delta", allow_zero=True, allow_one=True),
            orders="integer" if integer_orders else "all",
        )

    def __repr__(self) -> str:
        figures = [
            f"{name}={short_fraction(value)}"
            for name, value in (
                ("epsilon", self.epsilon),
                ("delta", self.delta),
                ("rho", self.rho),
                ("rho_delta", self.rho_delta),
            )
            if value is not None and (value or name in ("epsilon", "rho"))
        ]
        orders = ", orders='integer'" if self.orders == "integer" else ""
        return f"Guarantee({self.label!r}, {', '.join(figures)}{orders})"

    def summary(self, at_delta: tuple[Fraction, Fraction] | None = None) -> str:
        """The guarantee in decimals for people, every figure rounded up (still a bound).

        Args:
            at_delta: ``(delta, epsilon)``, the converted statement to show beside a
                zCDP one (the accountant's :meth:`Accountant.epsilon_for`).

        >>> Guarantee.zcdp(Fraction(1, 3), "x").summary((Fraction(1, 10**6), Fraction(37, 10)))
        'rho <= 0.3334 (zCDP); (3.7, 1e-06)-DP'
        >>> Guarantee.pure(Fraction(2, 3), "x").summary()
        'epsilon <= 0.6667 (pure DP)'
        """

        def up(value: Fraction) -> str:
            return decimal_nearest(value, 4, up=True)

        if self.epsilon is not None and not self.delta:  # pure: its rho adds nothing
            return f"epsilon <= {up(self.epsilon)} (pure DP)"
        parts = []
        if self.rho is not None:
            slack = f", delta0 <= {up(self.rho_delta)}" if self.rho_delta else ""
            parts.append(f"rho <= {up(self.rho)} (zCDP{slack})")
        if self.epsilon is not None:
            parts.append(f"({up(self.epsilon)}, {up(self.delta)})-DP")
        if at_delta is not None and self.rho is not None:
            parts.append(f"({up(at_delta[1])}, {up(at_delta[0])})-DP")
        return "; ".join(parts)

    def to_json_dict(self) -> dict[str, Any]:
        """Every figure as an exact fraction string (``None`` where not stated)."""
        return {
            "label": self.label,
            "epsilon": None if self.epsilon is None else rational(self.epsilon),
            "delta": rational(self.delta),
            "rho": None if self.rho is None else rational(self.rho),
            "rho_delta": rational(self.rho_delta),
            "orders": self.orders,
        }


@dataclass
class Accountant:
    """The steps of one release under one neighbour relation, composed exactly.

    Args:
        neighbours: the relation every step's guarantee is for (``"replace one row"``).
    """

    neighbours: str
    steps: list[Guarantee] = field(default_factory=list)

    def _all_state(self, notion: str) -> bool:
        """Whether every step states ``notion`` (``"epsilon"`` or ``"rho"``)."""
        return all(getattr(s, notion) is not None for s in self.steps)

    def add(self, guarantee: Guarantee, times: int = 1) -> None:
        """Record one step, or ``times`` steps with the same guarantee as one entry.

        Adaptive composition: steps may depend on earlier outputs.  ``times``
        copies compose to ``times`` times each figure (``delta`` capped at 1),
        the same as adding them one by one (a vector's coordinates of one
        sensitivity are one entry, not thousands).
        """
        if not isinstance(guarantee, Guarantee):
            raise ParameterError(f"guarantee: got {type(guarantee).__name__}; use a Guarantee")
        k = check_positive_int(times, "times")
        if k > 1:
            g = guarantee
            guarantee = Guarantee(
                f"{g.label} (x{k})",
                None if g.epsilon is None else k * g.epsilon,
                min(Fraction(1), k * g.delta),
                None if g.rho is None else k * g.rho,
                min(Fraction(1), k * g.rho_delta),
                g.orders,
            )
        self.steps.append(guarantee)

    def total(self) -> Guarantee:
        """The composition of every step (BS16 Lemma 8.3; Dwork-Roth Thm 3.16).

        ``epsilon`` and ``delta`` add when every step states them; ``rho`` and
        ``rho_delta`` add when every step states ``rho``; the orders are
        ``"integer"`` if any step's are.

        Raises:
            ParameterError: no steps, or steps that share no notion (some state only
                ``(eps, delta)``, others only zCDP): then use :meth:`epsilon_for`.
        """
        if not self.steps:
            raise ParameterError("accountant: no steps to compose")
        steps = self.steps
        dp, cdp = self._all_state("epsilon"), self._all_state("rho")
        if not (dp or cdp):
            raise ParameterError(
                "accountant: the steps mix guarantees stated only in (eps, delta) with ones "
                "stated only in zCDP, so no one notion holds for all; use epsilon_for(delta)"
            )
        return Guarantee(
            f"{len(steps)} step{'' if len(steps) == 1 else 's'} composed",
            sum((s.epsilon or Fraction(0) for s in steps), Fraction(0)) if dp else None,
            min(Fraction(1), sum((s.delta for s in steps), Fraction(0))) if dp else Fraction(0),
            sum((s.rho or Fraction(0) for s in steps), Fraction(0)) if cdp else None,
            min(Fraction(1), sum((s.rho_delta for s in steps), Fraction(0)))
            if cdp
            else Fraction(0),
            "integer" if any(s.orders == "integer" for s in steps) else "all",
        )

    def epsilon_for(self, delta: object) -> Fraction:
        """The least certified ``epsilon`` with the release ``(epsilon, delta)``-DP.

        Steps with a zCDP statement are composed in zCDP and converted by CKS20
        Cor 13 (:func:`~.convert.zcdp_epsilon`) with what ``delta`` leaves after
        their ``rho_delta``; steps with only ``(eps, delta)`` are added to it
        (basic composition).  When every step is ``(eps, delta)``-DP, basic
        composition alone is tried too, and the smaller ``epsilon`` kept.
        An approximate zCDP statement's events cost ``ln(1/(1 - rho_delta))``
        more (their probabilities need not be equal), rounded up to
        ``rho_delta / (1 - rho_delta)``.

        Raises:
            ParameterError: ``delta`` is not above the ``delta`` the steps spend outright.
        """
        target = probability(delta, "delta")
        if not self.steps:
            raise ParameterError("accountant: no steps to compose")
        plain = [s for s in self.steps if s.rho is None]
        smooth = [s for s in self.steps if s.rho is not None]
        spent_eps = sum((s.epsilon or Fraction(0) for s in plain), Fraction(0))
        spent_delta = sum((s.delta for s in plain), Fraction(0))
        options: list[Fraction] = []
        if self._all_state("epsilon"):
            every = self.total()
            if every.epsilon is not None and every.delta <= target:
                options.append(every.epsilon)
        if smooth:
            rho = sum((s.rho or Fraction(0) for s in smooth), Fraction(0))
            rho_delta = sum((s.rho_delta for s in smooth), Fraction(0))
            left = target - spent_delta - rho_delta
            if left > 0:
                integer = any(s.orders == "integer" for s in smooth)
                eps = zcdp_epsilon(rho, left, integer_orders=integer)
                if rho_delta:
                    eps += rho_delta / (1 - rho_delta)
                options.append(spent_eps + eps)
        elif spent_delta <= target:
            options.append(spent_eps)
        if not options:
            raise ParameterError(
                f"delta: got {short_fraction(target)}; the steps spend at least "
                f"{short_fraction(spent_delta + sum((s.rho_delta for s in smooth), Fraction(0)))}"
                " outright"
            )
        best = min(options)
        # A larger epsilon is a weaker claim: the simplest rational within 2^-32 above is valid.
        return simplest_between(best, best + best / (1 << 32)) if best > 0 else best

    def to_json_dict(self, delta: object | None = None) -> dict[str, Any]:
        """The steps, their composition and, given ``delta``, the ``epsilon`` for it."""
        mixed = not (self._all_state("epsilon") or self._all_state("rho"))
        out: dict[str, Any] = {
            "neighbours": self.neighbours,
            "steps": [s.to_json_dict() for s in self.steps],
            "total": None if mixed else self.total().to_json_dict(),
        }
        if delta is not None:
            out["at_delta"] = {
                "delta": rational(probability(delta, "delta")),
                "epsilon": rational(self.epsilon_for(delta)),
            }
        return out
