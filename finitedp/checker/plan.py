"""Audit plans: what a histogram mechanism tells the exact audit about itself.

Paper: BV Def 2.1 (neighbouring datasets differ in one row), Defs 2.5-2.7
(accuracy).  A mechanism's registry entry (``finitedp.<family>.registry``)
turns the user's parameters into an :class:`AuditPlan`: how to explore one
dataset exactly, which privacy and accuracy it claims, how many oracle calls,
and an estimate of the work.  The audit tool (:mod:`finitedp.audit`) runs
plans; it never names a mechanism, and mechanisms never import it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..counting.base import CountingSampler
from ..guarantees import Accuracy, Privacy
from ..oracle import RandomSource
from .symbolic import DEFAULT_LIMIT, ExactSum, iter_paths

__all__ = [
    "AccuracyClaim",
    "AuditPlan",
    "AuditRequest",
    "Dataset",
    "Explored",
    "Explorer",
    "claims_of",
    "exact_text",
    "explorer",
    "missing_accuracy",
    "occupied",
    "sum_exact",
    "support_sizes",
    "true_counts",
]

#: A dataset: ``n`` rows, each an int in ``[1, |X|]``.
Dataset = tuple[int, ...]


@dataclass(frozen=True)
class AccuracyClaim:
    """One accuracy statement of a theorem, to be checked exactly.

    Attributes:
        kind: ``"per-query"`` (BV Defs 2.5 / 2.7) or ``"simultaneous"`` (Def 2.6).
        a: the claimed error bound.
        beta: the claimed failure probability.
        threshold: for a per-query claim, only bins with true count above it count
            (Def 2.7); ``None`` for every bin.
        source: the theorem the claim comes from.
    """

    kind: str
    a: int
    beta: Fraction
    threshold: int | None = None
    source: str = ""

    def statement(self) -> str:
        """The claim in words, with its formula."""
        if self.kind == "simultaneous":
            return (
                f"({self.a}, {self.beta})-simultaneous accuracy [{self.source}]: "
                f"min_D Pr[max_x |h_x - c_x| <= {self.a}] >= {1 - self.beta}"
            )
        where = "" if self.threshold is None else f" with c_x > {self.threshold}"
        return (
            f"({self.a}, {self.beta})-per-query accuracy"
            f"{'' if self.threshold is None else f' on counts above {self.threshold}'} "
            f"[{self.source}]: min over D, x{where} of Pr[|h_x - c_x| <= {self.a}] "
            f">= {1 - self.beta}"
        )


@dataclass(frozen=True)
class Explored:
    """The exact behaviour of a mechanism on one dataset.

    Attributes:
        distribution: release -> its exact probability.
        traces: the sequences of oracle domains met on the paths.
        paths: how many paths (leaves of the enumeration) were visited.
    """

    distribution: dict[Any, Fraction]
    traces: frozenset[tuple[int, ...]]
    paths: int


Explorer = Callable[[Dataset], Explored]


@dataclass(frozen=True)
class AuditRequest:
    """The user's parameters for one audit, as typed (the plan parses and checks them).

    Attributes:
        n: rows per dataset.
        universe_size: ``|X|``, at least 2.
        epsilon: the budget, as given.
        beta: the accuracy statement's failure probability (also ``beta0``).
        counter: ``"fast"`` or ``"geo"``.
        limit: the most paths the audit may explore.
        options: the target's own options (its ``AuditTarget.options``), ``None``
            where not given.
    """

    n: int
    universe_size: int
    epsilon: object
    beta: Fraction
    counter: str
    limit: int
    options: Mapping[str, Any] = field(default_factory=dict)

    def option(self, name: str) -> Any:
        """The value of one of the target's options (``None`` if not given)."""
        return self.options.get(name)

    @property
    def explore_limit(self) -> int:
        """The per-exploration limit handed to :func:`explorer`."""
        return max(self.limit, DEFAULT_LIMIT)


@dataclass(frozen=True)
class AuditPlan:
    """Everything an audit needs about its target, besides the enumeration itself.

    Attributes:
        title: the report's title (usually the mechanism's ``repr``).
        description: lines on the layer, the parameters and the sampler.
        explore: one dataset -> its exact behaviour.
        privacy: the claimed guarantee.
        privacy_source: the theorem it comes from.
        accuracy: the claimed accuracy statements.
        estimate: datasets -> the number of paths their exploration visits
            (checked against the limit before anything is explored).
        exact_calls: if set, every path must make exactly this many oracle calls.
        max_calls: if set, no path may make more.
        fixed_domains: whether every path of every dataset has the same domains.
        notes: what is not claimed, or why a claim is weak here.
        counts: release -> ``(h_1, ..., h_m)``, if ``release[x]`` is not the count.
        hint: appended to the refusal when the instance is too large.
        streams: the datasets are streams of 0 to ``n`` elements in order, and
            neighbours add or remove one element (Lebeda thesis Def 3.1) instead of
            replacing one row (BV Def 2.1).
        path_microseconds: an upper estimate of one path's cost, so that the
            enumeration is refused once its projected time passes the time budget.
    """

    title: str
    description: tuple[str, ...]
    explore: Explorer
    privacy: Privacy
    privacy_source: str
    accuracy: tuple[AccuracyClaim, ...]
    estimate: Callable[[list[Dataset]], int] | None = None
    exact_calls: int | None = None
    max_calls: int | None = None
    fixed_domains: bool = False
    notes: tuple[str, ...] = ()
    counts: Callable[[Any], tuple[int | Fraction, ...]] | None = None
    hint: str = ""
    streams: bool = False
    path_microseconds: int = 150


def sum_exact(probabilities: Iterable[Fraction]) -> Fraction:
    """Sum fractions, adding numerators per denominator first (most paths share one)."""
    return ExactSum(probabilities).total()


def explorer(release: Callable[[Dataset, RandomSource], Any], limit: int) -> Explorer:
    """Explore ``release(data, rng)`` exactly: its law, its oracle-domain sequences, its paths."""

    def run(data: Dataset) -> Explored:
        # Streamed: the law's numerators are summed per output and denominator as the
        # leaves come, so memory follows the outputs, not the paths (millions for a
        # whole PureSparseHistogram at n = 2).
        sums: dict[Any, ExactSum] = {}
        traces: set[tuple[int, ...]] = set()
        count = 0
        for path in iter_paths(release, data, limit=limit):
            count += 1
            sums.setdefault(path.output, ExactSum()).add(path.probability)
            traces.add(tuple(draw.d for draw in path.draws))
        law = {out: total.total() for out, total in sums.items()}
        return Explored(law, frozenset(traces), count)

    return run


def claims_of(accuracy: Accuracy) -> tuple[AccuracyClaim, ...]:
    """The per-query and simultaneous statements of a theorem's :class:`Accuracy`."""
    claims = []
    if accuracy.per_query is not None:
        claims.append(
            AccuracyClaim(
                "per-query", accuracy.per_query, accuracy.beta, accuracy.threshold, accuracy.source
            )
        )
    if accuracy.simultaneous is not None:
        claims.append(
            AccuracyClaim(
                "simultaneous", accuracy.simultaneous, accuracy.beta, None, accuracy.source
            )
        )
    return tuple(claims)


def missing_accuracy(accuracy: Accuracy) -> tuple[str, ...]:
    """Notes for the statements a theorem does not give at this ``beta``."""
    notes = []
    for kind, value in (("per-query", accuracy.per_query), ("simultaneous", accuracy.simultaneous)):
        if value is None:
            notes.append(
                f"{accuracy.source} gives no {kind} bound at beta = {accuracy.beta} "
                f"(outside its range of beta); none is checked"
            )
    return tuple(notes)


def support_sizes(sampler: CountingSampler) -> list[int]:
    """Paths of ``sampler.sample(c)`` per ``c``: one per output of positive probability."""
    return [len(sampler.pmf(c)) for c in range(sampler.n + 1)]


def occupied(data: Dataset) -> dict[int, int]:
    """The occupied bins of a dataset with their counts."""
    counts: dict[int, int] = {}
    for row in data:
        counts[row] = counts.get(row, 0) + 1
    return counts


def true_counts(data: Dataset, m: int) -> tuple[int, ...]:
    """``(c_1, ..., c_m)``: every bin's count, empty bins included."""
    counts = [0] * m
    for row in data:
        counts[row - 1] += 1
    return tuple(counts)


def exact_text(value: object) -> str:
    """An exact value for a report line; very long fractions and ints are shown by their size.

    Sizes are looked at before any conversion to text, which Python refuses
    beyond 4,300 digits.
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value) if value.bit_length() <= 3000 else f"<a {value.bit_length()}-bit integer>"
    if not isinstance(value, Fraction):
        return str(value)
    bits = (abs(value.numerator).bit_length(), value.denominator.bit_length())
    if max(bits) <= 200:
        text = str(value)
        if len(text) <= 64:
            return text
    try:
        about = f"{float(value):.9g}"  # display only
    except OverflowError:
        about = "beyond the range of a double"
    return f"<a fraction of {bits[0]}/{bits[1]} bits, about {about}>"
