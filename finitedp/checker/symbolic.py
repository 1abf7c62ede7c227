"""Exact enumeration of a randomized function over every outcome of its oracle calls.

Paper: BV Section 2.4 (the oracle ``uniform(d)``); the checker computes the
output distribution of a mechanism exactly, as a ``Fraction`` per output.

:func:`explore` runs ``fn(*args, rng=source, **kwargs)`` against an
:class:`EnumeratingSource`, whose ``uniform(d)`` returns a
:class:`SymbolicDraw` instead of an int.  A symbolic draw stands for
``U ~ Unif([1, d])`` restricted to the interval ``[lo, hi]`` that the
current path allows (initially ``[1, d]``).  Operations on it:

* comparisons (``<``, ``<=``, ``>``, ``>=``, ``==``, ``!=``, also reflected
  ones such as ``mpz(5) < u`` and ``bisect``) with exact rationals answer
  without branching when ``[lo, hi]`` decides them, and otherwise branch: the
  path takes one side and the interval shrinks.  ``==`` and ``!=`` branch
  three ways (below, equal, above) so that every branch is an interval;
* ``u + k``, ``k + u`` and ``u - k`` with ``k`` an integer give a view of the
  same draw shifted by ``k``, with all the same operations;
* ``v // q``, ``v % q`` and ``divmod(v, q)`` with ``q`` a positive integer
  branch on the quotient, one branch per quotient value the interval allows;
  the remainder is again a view;
* anything else (``u * 2``, ``int(u)``, ``hash(u)``, indexing, ``str(u)``,
  comparing two different draws, arithmetic with ``Fraction``) *concretizes*
  the draw: the path branches over every value left in ``[lo, hi]`` and the
  operation proceeds on a plain int.  This is refused with
  :class:`~finitedp.errors.CheckerLimitError` when more than ``limit``
  values are left, which is why a mechanism drawing from a ``d`` of thousands
  of bits must only compare its draws with integers.

Branching works by re-execution.  The explorer keeps the list of decisions
taken so far; each run replays that prefix, takes the first option at every
new branch point, and the untaken options are visited by later runs in
depth-first order (an odometer over the decisions).  Each leaf of the
computation tree is reached exactly once.  **fn must therefore be
deterministic given its draws**: no other randomness, no state carried from
one call to the next.  A replay that meets a different branch point is
detected and raises :class:`ExplorationError`.

Counters recorded in each :class:`Path`, per draw: ``comparisons`` counts
every comparison operator applied to the draw or to a view of it, decided or
not (a comparison of two different draws counts once on each);
``divisions`` counts ``//``, ``%`` and ``divmod``; ``concretizations``
counts the uses that needed a concrete value.  The comparisons that
``divmod`` and concretization make internally are not counted.

If ``fn`` returns a symbolic draw, or a tuple or list holding some, they are
concretized before the run ends, so ``return rng.uniform(3)`` works.

>>> def coin(rng):
...     return rng.uniform(6) <= 2
>>> exact_distribution(coin)
{True: Fraction(1, 3), False: Fraction(2, 3)}
>>> huge = 2**4000
>>> exact_distribution(lambda rng: (rng.uniform(huge) - 1) // (huge // 4))
{0: Fraction(1, 4), 1: Fraction(1, 4), 2: Fraction(1, 4), 3: Fraction(1, 4)}
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Generic, TypeVar, cast

from ..errors import CheckerLimitError, OracleError, ParameterError
from ..params import check_positive_int, short_int
from .draws import DrawRecord, ExplorationError, SymbolicDraw, _Draw

__all__ = [
    "DEFAULT_LIMIT",
    "DrawRecord",
    "EnumeratingSource",
    "ExactSum",
    "ExplorationError",
    "Path",
    "SymbolicDraw",
    "exact_distribution",
    "explore",
    "iter_paths",
]

#: Default bound on the values a concretization or division may branch over,
#: and on the number of leaves an exploration may visit.
DEFAULT_LIMIT = 10**6

_LT, _LE, _GT, _GE = range(4)

_T = TypeVar("_T")
_H = TypeVar("_H", bound=Hashable)


@dataclass(frozen=True, slots=True)
class Path(Generic[_T]):
    """One leaf of the computation tree.

    Attributes:
        output: what ``fn`` returned on this path.
        probability: the product over the draws of ``(hi - lo + 1) / d``.
        draws: the draws in call order, each with its final interval.
        comparisons: per draw, the comparison operators applied to it.
        divisions: per draw, the ``//``, ``%`` and ``divmod`` applied to it.
        concretizations: per draw, the uses that needed a concrete value.
    """

    output: _T
    probability: Fraction
    draws: tuple[DrawRecord, ...]
    comparisons: tuple[int, ...]
    divisions: tuple[int, ...]
    concretizations: tuple[int, ...] = ()


class EnumeratingSource:
    """The oracle of the exact checker: ``uniform(d)`` returns a :class:`SymbolicDraw`.

    It is driven by :func:`explore`, which runs the function once per leaf;
    on its own it behaves as the first run of an exploration (the first
    option at every branch).  It is not a ``RandomSource`` for static type
    checkers, since its draws are not ints.
    """

    __slots__ = ("_choices", "_draws", "_limit", "_position", "_sizes")

    def __init__(self, limit: int = DEFAULT_LIMIT) -> None:
        """Args:
        limit: the most values a concretization or a division may branch over.

        Raises:
            ParameterError: ``limit`` is not positive.
            ParameterTypeError: ``limit`` is not an int.
        """
        self._limit = check_positive_int(limit, "limit")
        self._choices: list[int] = []
        self._sizes: list[int] = []
        self._position = 0
        self._draws: list[_Draw] = []

    @property
    def limit(self) -> int:
        """The most values a concretization or a division may branch over."""
        return self._limit

    def uniform(self, d: int) -> SymbolicDraw:
        """Return a symbolic draw from ``[1, d]`` (a symbolic ``d`` is concretized).

        Raises:
            OracleError: ``d`` is not an int ``>= 1``.
        """
        if isinstance(d, bool) or not hasattr(d, "__index__"):
            raise OracleError(f"d: got {d!r}; the oracle draws from [1, d] for an int d >= 1")
        domain = operator.index(d)
        if domain < 1:
            raise OracleError(f"d: got {short_int(domain)}; the oracle needs d >= 1")
        base = _Draw(self, domain)
        self._draws.append(base)
        return SymbolicDraw(base)

    def _require_within_limit(self, count: int, what: str, action: str) -> None:
        if count > self._limit:
            raise CheckerLimitError(
                f"to {action} a draw the checker would branch over {short_int(count)} {what}, "
                f"more than limit = {self._limit}; the function should only compare draws "
                f"with integers (or add, subtract and divide them by int constants)"
            )

    def _choose(self, count: int) -> int:
        """The option this run takes at a branch point with ``count`` options."""
        if count == 1:
            return 0
        position = self._position
        self._position = position + 1
        if position < len(self._choices):
            if self._sizes[position] != count:
                raise ExplorationError(
                    f"branch point {position} had {self._sizes[position]} options on an earlier "
                    f"run and {count} now; fn must be deterministic given its draws"
                )
            return self._choices[position]
        self._choices.append(0)
        self._sizes.append(count)
        return 0

    def _run(
        self, fn: Callable[..., _T], args: tuple[object, ...], kwargs: dict[str, object]
    ) -> Path[_T]:
        """Run ``fn`` once along the current decision prefix; return its leaf."""
        self._position = 0
        self._draws = []
        try:
            # Settling only replaces draws by the ints they stand for.
            output = cast(_T, _settle(fn(*args, rng=self, **kwargs)))
        finally:
            for base in self._draws:
                base.alive = False
        if self._position != len(self._choices):
            raise ExplorationError(
                f"fn made {self._position} branching decisions where an earlier run made "
                f"{len(self._choices)}; fn must be deterministic given its draws"
            )
        return _leaf(output, self._draws)

    def _advance(self) -> bool:
        """Move the decision prefix to the next unexplored leaf; False when none is left."""
        choices, sizes = self._choices, self._sizes
        while choices and choices[-1] + 1 == sizes[-1]:
            choices.pop()
            sizes.pop()
        if not choices:
            return False
        choices[-1] += 1
        return True


def _settle(output: object) -> object:
    """Concretize symbolic draws in the output so it outlives the run."""
    if isinstance(output, SymbolicDraw):
        return output._concretize()
    if type(output) is tuple:
        return tuple(_settle(item) for item in output)
    if type(output) is list:
        return [_settle(item) for item in output]
    return output


def _leaf(output: _T, draws: list[_Draw]) -> Path[_T]:
    numerator = denominator = 1
    for base in draws:
        numerator *= base.hi - base.lo + 1
        denominator *= base.d
    return Path(
        output=output,
        probability=Fraction(numerator, denominator),
        draws=tuple(base.record() for base in draws),
        comparisons=tuple(base.comparisons for base in draws),
        divisions=tuple(base.divisions for base in draws),
        concretizations=tuple(base.concretizations for base in draws),
    )


class ExactSum:
    """A running sum of fractions, adding numerators as ints per denominator (most
    paths share one), so that millions of terms cost no gcd each."""

    __slots__ = ("_by_denominator",)

    def __init__(self, terms: Iterable[Fraction] = ()) -> None:
        self._by_denominator: dict[int, int] = {}
        for p in terms:
            self.add(p)

    def add(self, p: Fraction) -> None:
        """Add one term."""
        by = self._by_denominator
        by[p.denominator] = by.get(p.denominator, 0) + p.numerator

    def total(self) -> Fraction:
        """The sum so far, exactly."""
        return sum((Fraction(k, d) for d, k in self._by_denominator.items()), Fraction(0))


def iter_paths(
    fn: Callable[..., _T], /, *args: object, limit: int = DEFAULT_LIMIT, **kwargs: object
) -> Iterator[Path[_T]]:
    """The leaves of :func:`explore`, one at a time: memory for one path, not all of them.

    The check that the probabilities sum to 1 is made after the last leaf, so a
    consumer that stops early does not get it.  Arguments and exceptions as
    :func:`explore`.
    """
    if "rng" in kwargs:
        raise ParameterError("rng: the checker supplies rng itself; do not pass it")
    source = EnumeratingSource(limit)
    total, visited = ExactSum(), 0
    while True:
        path = source._run(fn, args, kwargs)
        visited += 1
        total.add(path.probability)
        yield path
        if not source._advance():
            break
        if visited >= source.limit:
            raise CheckerLimitError(
                f"fn has more than limit = {source.limit} leaves; "
                f"raise the limit or check a smaller instance"
            )
    if total.total() != 1:
        raise ExplorationError(f"path probabilities sum to {total.total()}, not 1 (a checker bug?)")


def explore(
    fn: Callable[..., _T], /, *args: object, limit: int = DEFAULT_LIMIT, **kwargs: object
) -> list[Path[_T]]:
    """Enumerate every leaf of ``fn(*args, rng=source, **kwargs)`` over all oracle outcomes.

    Args:
        fn: the randomized function; it takes its randomness from the keyword
            argument ``rng`` and must be deterministic given its draws.
        *args: positional arguments for ``fn``.
        limit: the most values a concretization or a division may branch
            over, and the most leaves the exploration may visit.
        **kwargs: keyword arguments for ``fn`` (not ``rng``).

    Returns:
        One :class:`Path` per leaf, in depth-first order; their probabilities sum to 1.

    Raises:
        CheckerLimitError: a branch or the number of leaves would exceed ``limit``.
        ExplorationError: ``fn`` is not deterministic given its draws.
        ParameterError: ``limit`` is not positive, or ``rng`` is in ``kwargs``.
        ParameterTypeError: ``limit`` is not an int.
    """
    return list(iter_paths(fn, *args, limit=limit, **kwargs))


def exact_distribution(
    fn: Callable[..., _H], /, *args: object, limit: int = DEFAULT_LIMIT, **kwargs: object
) -> dict[_H, Fraction]:
    """The exact output distribution of ``fn(*args, rng=..., **kwargs)``.

    Args:
        fn: the randomized function, as for :func:`explore`; its outputs must be hashable.
        *args: positional arguments for ``fn``.
        limit: as for :func:`explore`.
        **kwargs: keyword arguments for ``fn``.

    Returns:
        Each output with positive probability, mapped to its probability;
        the probabilities sum to exactly 1.

    Raises:
        CheckerLimitError: as for :func:`explore`.
        ExplorationError: as for :func:`explore`.
        ParameterError: as for :func:`explore`.
        TypeError: ``fn`` returned an unhashable value.
    """
    grouped: dict[_H, ExactSum] = {}
    for path in iter_paths(fn, *args, limit=limit, **kwargs):
        try:
            hash(path.output)
        except TypeError:
            raise TypeError(
                f"fn returned an unhashable {type(path.output).__name__}; return a tuple instead"
            ) from None
        grouped.setdefault(path.output, ExactSum()).add(path.probability)
    return {output: law.total() for output, law in grouped.items()}
