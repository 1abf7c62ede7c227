"""What a user-level mechanism promises: exact privacy and accuracy statements.

Paper: BV Def 2.1 ((eps, delta)-DP), Defs 2.5-2.7 (per-query, simultaneous,
and per-query-above-a-threshold accuracy).

Every user-level mechanism exposes ``privacy`` (a :class:`Privacy`) and
``accuracy(beta)`` (an :class:`Accuracy`), both exact, both serialisable.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .jsonvalues import json_int, parse_rational, rational
from .params import decimal_nearest, is_short, readable_fraction, short_fraction

__all__ = ["Accuracy", "Privacy"]


@dataclass(frozen=True)
class Privacy:
    """``(epsilon, delta)``-differential privacy over neighbouring datasets (BV Def 2.1).

    Attributes:
        epsilon: the exact epsilon.
        delta: the exact delta; 0 for pure differential privacy.
    """

    epsilon: Fraction
    delta: Fraction = Fraction(0)

    @property
    def pure(self) -> bool:
        """Whether ``delta == 0``."""
        return self.delta == 0

    @property
    def exact_text(self) -> bool:
        """Whether :meth:`__str__` shows both values exactly (else rounded up)."""
        return is_short(self.epsilon) and is_short(self.delta)

    def __str__(self) -> str:
        """``(1/2, 1/1000)-DP``; a long fraction is rounded up: ``(1/2, <= 9.03e-7)-DP``.

        >>> print(Privacy(Fraction(1, 2), Fraction(1, 3 * 10**40)))
        (1/2, <= 3.34e-41)-DP
        """
        return f"({readable_fraction(self.epsilon)}, {readable_fraction(self.delta)})-DP"

    def summary(self) -> str:
        """The statement in decimals for people, rounded up (still a bound).

        >>> Privacy(Fraction(1, 2)).summary(), Privacy(1, Fraction(1, 3 * 10**6)).summary()
        ('(0.5, 0)-DP', '(1, 3.33334e-07)-DP')
        """
        epsilon = decimal_nearest(self.epsilon, 6, up=True)
        return f"({epsilon}, {decimal_nearest(self.delta, 6, up=True)})-DP"

    def __repr__(self) -> str:
        """Exact when short; a fraction past Python's digit limit is shown by its size."""
        epsilon, delta = _fraction_repr(self.epsilon), _fraction_repr(self.delta)
        return f"Privacy(epsilon={epsilon}, delta={delta})"

    def to_json_dict(self) -> dict[str, Any]:
        """``{"epsilon": "a/b", "delta": "a/b"}`` with exact fractions as strings."""
        return {"epsilon": rational(self.epsilon), "delta": rational(self.delta)}

    @classmethod
    def from_json_dict(cls, obj: Any) -> Privacy:
        """Read :meth:`to_json_dict`'s form back.

        Raises:
            KeyError, TypeError: a missing field or not an object.
            ValueError: a value that is not an exact rational string.
        """
        if not isinstance(obj, dict):
            raise TypeError("privacy: not an object")
        return cls(
            parse_rational(obj["epsilon"], "privacy.epsilon"),
            parse_rational(obj["delta"], "privacy.delta"),
        )


@dataclass(frozen=True)
class Accuracy:
    """The accuracy a theorem guarantees at failure probability ``beta``.

    Attributes:
        beta: the failure probability.
        per_query: ``a`` with ``Pr[|h_x - c_x| <= a] >= 1 - beta`` for every bin
            ``x`` (with true count above ``threshold`` when that is set), BV Defs
            2.5 / 2.7; ``None`` if the theorem gives none at this ``beta``.
        threshold: ``t`` of Def 2.7, or ``None`` when the per-query bound holds for all counts.
        simultaneous: ``a`` with ``Pr[max_x |h_x - c_x| <= a] >= 1 - beta`` (Def 2.6),
            or ``None`` if the theorem gives none at this ``beta``.
        source: the theorem or figure the numbers come from.
        relative_to: what the bounds compare the release with: the true counts, or
            (a sketch) its counters, with the further bias to the true counts.
        absent_listed: (a release that lists some empty bins) the expected number of keys
            absent from the data that it lists, each with a count above the threshold;
            ``None`` where no absent key is listed.
        absent_beyond: the probability that some absent key is listed with a count beyond
            the simultaneous bound (exact or a certified upper bound).
        noise_floor: (a top-``k`` release over every key of a universe) the bound on the
            noise of each key absent from the data, with probability ``>= 1 - beta``: a
            listed key whose estimate is at most this may be absent; when fewer than
            ``k`` keys stand out above it, the top ``k`` fills up with such keys.
    """

    beta: Fraction
    per_query: int | None
    threshold: int | None
    simultaneous: int | None
    source: str
    relative_to: str = "the true counts"
    absent_listed: Fraction | None = None
    absent_beyond: Fraction | None = None
    noise_floor: int | None = None

    def to_json_dict(self) -> dict[str, Any]:
        """The statement as JSON-ready values (``beta`` as an exact fraction string)."""
        return {
            "beta": rational(self.beta),
            "per_query": _maybe_int(self.per_query),
            "threshold": _maybe_int(self.threshold),
            "simultaneous": _maybe_int(self.simultaneous),
            "source": self.source,
            "relative_to": self.relative_to,
            **(
                {"absent_listed": rational(self.absent_listed)}
                if self.absent_listed is not None
                else {}
            ),
            **(
                {"absent_beyond": rational(self.absent_beyond)}
                if self.absent_beyond is not None
                else {}
            ),
            **({"noise_floor": json_int(self.noise_floor)} if self.noise_floor is not None else {}),
        }


def _fraction_repr(value: Fraction) -> str:
    text = short_fraction(value)
    return repr(value) if "<" not in text else repr(text)


def _maybe_int(value: int | None) -> int | str | None:
    return None if value is None else json_int(value)
