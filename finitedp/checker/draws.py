"""Symbolic oracle draws: an interval of ``uniform(d)`` that branches when compared.

Paper: BV Section 2.4 (the oracle ``uniform(d)``).  See :mod:`.symbolic` for
how :func:`~.symbolic.explore` drives them: a :class:`SymbolicDraw` answers a
comparison without branching when its interval decides it, and otherwise asks
its source to branch.
"""

from __future__ import annotations

import numbers
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import gmpy2

from ..errors import FiniteDPError
from ..params import short_int

if TYPE_CHECKING:
    from .symbolic import EnumeratingSource

__all__ = ["DrawRecord", "ExplorationError", "SymbolicDraw"]

_LT, _LE, _GT, _GE = range(4)


class ExplorationError(FiniteDPError, RuntimeError):
    """The explored function broke the checker's assumptions (e.g. it is not deterministic)."""


@dataclass(frozen=True, slots=True)
class DrawRecord:
    """One oracle call on a path: ``uniform(d)`` restricted to ``[lo, hi]``."""

    d: int
    lo: int
    hi: int

    @property
    def size(self) -> int:
        """The number of values ``hi - lo + 1`` the path allows."""
        return self.hi - self.lo + 1


class _Draw:
    """The mutable state of one oracle call during one run."""

    __slots__ = ("alive", "comparisons", "concretizations", "d", "divisions", "hi", "lo", "source")

    def __init__(self, source: EnumeratingSource, d: int) -> None:
        self.source = source
        self.d = d
        self.lo = 1
        self.hi = d
        self.alive = True
        self.comparisons = 0
        self.divisions = 0
        self.concretizations = 0

    def at_most(self, t: int) -> bool:
        """Decide ``U <= t``, branching if the interval does not decide it."""
        if self.hi <= t:
            return True
        if t < self.lo:
            return False
        if self.source._choose(2) == 0:
            self.hi = t
            return True
        self.lo = t + 1
        return False

    def equals(self, t: int) -> bool:
        """Decide ``U == t``, branching below / equal / above as needed."""
        lo, hi = self.lo, self.hi
        if t < lo or t > hi:
            return False
        if lo == hi:
            return True
        choice = self.source._choose(1 + (lo < t) + (t < hi))
        if lo < t:
            if choice == 0:
                self.hi = t - 1
                return False
            choice -= 1
        if choice == 0:
            self.lo = self.hi = t
            return True
        self.lo = t + 1
        return False

    def pick(self) -> int:
        """Branch over every value left in the interval; return this path's value."""
        size = self.hi - self.lo + 1
        self.source._require_within_limit(size, "values", "concretize")
        value = self.lo + self.source._choose(size)
        self.lo = self.hi = value
        return value

    def record(self) -> DrawRecord:
        """This draw's final state."""
        return DrawRecord(self.d, self.lo, self.hi)


#: Integer types compared directly (``gmpy2.mpz`` is what the samplers' tables hold).
_INTEGERS = (int, type(gmpy2.mpz(0)))


def _as_rational(value: object) -> tuple[int, int] | None:
    """``(numerator, denominator)`` of an exact rational, else None."""
    if isinstance(value, numbers.Rational):
        return int(value.numerator), int(value.denominator)
    return None


def _as_integer(value: object) -> int | None:
    if type(value) is int:
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    return None


_ORDER_OPS: tuple[Callable[[Any, Any], Any], ...] = (
    operator.lt,
    operator.le,
    operator.gt,
    operator.ge,
)


def _concretizing(op: Callable[[Any, Any], Any], reflected: bool = False) -> Callable[..., Any]:
    """A binary dunder method that concretizes the draw and then applies ``op``."""
    if reflected:
        return lambda self, other: op(other, self._concretize())
    return lambda self, other: op(self._concretize(), other)


def _concretizing_unary(op: Callable[[int], Any]) -> Callable[..., Any]:
    """A unary dunder method that concretizes the draw and then applies ``op``."""
    return lambda self: op(self._concretize())


class SymbolicDraw:
    """A view ``U + offset`` of a symbolic oracle draw ``U``.

    See the module docstring for which operations branch, which are decided
    without branching and which concretize.  ``repr`` never branches.
    """

    __slots__ = ("_base", "_offset")

    def __init__(self, base: _Draw, offset: int = 0) -> None:
        self._base = base
        self._offset = offset

    @property
    def finitedp_symbolic_domain(self) -> int:
        """The ``d`` of the oracle call; :func:`finitedp.oracle.draw` checks it."""
        return self._base.d

    @property
    def offset(self) -> int:
        """The constant this view adds to the draw."""
        return self._offset

    @property
    def bounds(self) -> tuple[int, int]:
        """The smallest and largest value this view can still take on the current path."""
        return self._base.lo + self._offset, self._base.hi + self._offset

    def _live(self) -> _Draw:
        base = self._base
        if not base.alive:
            raise ExplorationError(
                "a symbolic draw was used after the run that made it ended; "
                "fn must not keep draws between calls, and should return plain values"
            )
        return base

    def _concretize(self) -> int:
        base = self._live()
        base.concretizations += 1
        return base.pick() + self._offset

    # -- comparisons ---------------------------------------------------------

    def _order(self, other: object, op: int) -> bool | None:
        """Decide ``self OP other``; None when ``other`` is not a number."""
        base = self._live()
        base.comparisons += 1
        if type(other) in _INTEGERS:  # mpz too: the hot path of draws compared with CDFs
            num, den = int(cast(int, other)) - self._offset, 1
        else:
            fraction = _as_rational(other)
            if fraction is None:
                return self._order_fallback(other, op)
            num, den = fraction[0] - self._offset * fraction[1], fraction[1]
        # U + offset OP num/den; strict bounds use ceil(x) - 1, the others floor(x).
        t = -(-num // den) - 1 if op in (_LT, _GE) else num // den
        below = base.at_most(t)
        return below if op <= _LE else not below

    def _order_fallback(self, other: object, op: int) -> bool | None:
        if isinstance(other, SymbolicDraw) and other._base is self._base:
            return bool(_ORDER_OPS[op](self._offset, other._offset))
        if isinstance(other, SymbolicDraw | numbers.Number):
            return bool(_ORDER_OPS[op](self._concretize(), other))
        return None

    def __lt__(self, other: object) -> bool:
        result = self._order(other, _LT)
        return NotImplemented if result is None else result

    def __le__(self, other: object) -> bool:
        result = self._order(other, _LE)
        return NotImplemented if result is None else result

    def __gt__(self, other: object) -> bool:
        result = self._order(other, _GT)
        return NotImplemented if result is None else result

    def __ge__(self, other: object) -> bool:
        result = self._order(other, _GE)
        return NotImplemented if result is None else result

    def __eq__(self, other: object) -> bool:
        base = self._live()
        base.comparisons += 1
        if type(other) is int:
            return base.equals(other - self._offset)
        fraction = _as_rational(other)
        if fraction is not None:
            num, den = fraction
            return den == 1 and base.equals(num - self._offset)
        if isinstance(other, SymbolicDraw) and other._base is base:
            return self._offset == other._offset
        if isinstance(other, SymbolicDraw | numbers.Number):
            return bool(self._concretize() == other)
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        if equal is NotImplemented:
            return NotImplemented
        return not equal

    def __bool__(self) -> bool:
        return self != 0

    # -- offsets and division ------------------------------------------------

    def _shifted(self, k: int) -> SymbolicDraw:
        return SymbolicDraw(self._live(), self._offset + k)

    def __add__(self, other: object) -> Any:
        k = _as_integer(other)
        return operator.add(self._concretize(), other) if k is None else self._shifted(k)

    def __radd__(self, other: object) -> Any:
        k = _as_integer(other)
        return operator.add(other, self._concretize()) if k is None else self._shifted(k)

    def __sub__(self, other: object) -> Any:
        k = _as_integer(other)
        return operator.sub(self._concretize(), other) if k is None else self._shifted(-k)

    def __rsub__(self, other: object) -> Any:
        return operator.sub(other, self._concretize())

    def _divide(self, q: int) -> tuple[int, SymbolicDraw]:
        base = self._live()
        base.divisions += 1
        offset = self._offset
        low = (base.lo + offset) // q
        count = (base.hi + offset) // q - low + 1
        base.source._require_within_limit(count, "quotients", f"divide by {short_int(q)}")
        quotient = low + base.source._choose(count)
        start = quotient * q - offset
        base.lo = max(base.lo, start)
        base.hi = min(base.hi, start + q - 1)
        return quotient, SymbolicDraw(base, -start)

    def _divisor(self, other: object) -> int | None:
        q = _as_integer(other)
        if q == 0:
            raise ZeroDivisionError("integer division or modulo by zero")
        return q if q is not None and q > 0 else None

    def __divmod__(self, other: Any) -> Any:
        q = self._divisor(other)
        return divmod(self._concretize(), other) if q is None else self._divide(q)

    def __floordiv__(self, other: object) -> Any:
        q = self._divisor(other)
        return operator.floordiv(self._concretize(), other) if q is None else self._divide(q)[0]

    def __mod__(self, other: object) -> Any:
        q = self._divisor(other)
        return operator.mod(self._concretize(), other) if q is None else self._divide(q)[1]

    # -- everything else concretizes -----------------------------------------

    def __int__(self) -> int:
        return self._concretize()

    def __index__(self) -> int:
        return self._concretize()

    def __hash__(self) -> int:
        return hash(self._concretize())

    def __str__(self) -> str:
        return str(self._concretize())

    def __format__(self, spec: str) -> str:
        return format(self._concretize(), spec)

    def __round__(self, ndigits: int | None = None) -> int:
        return round(self._concretize(), ndigits)

    def __pow__(self, other: Any, modulo: Any = None) -> Any:
        return pow(self._concretize(), other, modulo)

    def __rpow__(self, other: object) -> Any:
        return operator.pow(other, self._concretize())

    __mul__ = _concretizing(operator.mul)
    __rmul__ = _concretizing(operator.mul, reflected=True)
    __truediv__ = _concretizing(operator.truediv)
    __rtruediv__ = _concretizing(operator.truediv, reflected=True)
    __rfloordiv__ = _concretizing(operator.floordiv, reflected=True)
    __rmod__ = _concretizing(operator.mod, reflected=True)
    __rdivmod__ = _concretizing(divmod, reflected=True)
    __lshift__ = _concretizing(operator.lshift)
    __rlshift__ = _concretizing(operator.lshift, reflected=True)
    __rshift__ = _concretizing(operator.rshift)
    __rrshift__ = _concretizing(operator.rshift, reflected=True)
    __and__ = _concretizing(operator.and_)
    __rand__ = _concretizing(operator.and_, reflected=True)
    __or__ = _concretizing(operator.or_)
    __ror__ = _concretizing(operator.or_, reflected=True)
    __xor__ = _concretizing(operator.xor)
    __rxor__ = _concretizing(operator.xor, reflected=True)
    __neg__ = _concretizing_unary(operator.neg)
    __pos__ = _concretizing_unary(operator.pos)
    __abs__ = _concretizing_unary(operator.abs)
    __invert__ = _concretizing_unary(operator.invert)
    __trunc__ = __floor__ = __ceil__ = _concretizing_unary(int)

    def __repr__(self) -> str:
        base = self._base
        shift = f" + {short_int(self._offset)}" if self._offset else ""
        return (
            f"SymbolicDraw(U{shift}, U ~ uniform({short_int(base.d)}) "
            f"restricted to [{short_int(base.lo)}, {short_int(base.hi)}])"
        )
