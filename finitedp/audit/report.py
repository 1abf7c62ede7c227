"""Audit reports: the claims, decided exactly, and their rendering as text.

Decimals appear only in the final "readable" section of a report, converted
from the exact values for display; nothing is decided from them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Protocol

from ..checker.measures import INFINITY, Ratio
from ..checker.plan import AccuracyClaim, Dataset, exact_text
from ..errors import ParameterError
from ..guarantees import Privacy
from ..params import short_int

__all__ = [
    "AccuracyFinding",
    "AuditTooLargeError",
    "Claim",
    "HistogramReport",
    "NoProgress",
    "ProgressSink",
]


@dataclass(frozen=True)
class Claim:
    """One checkable statement of a theorem, with the exact evidence."""

    statement: str
    evidence: str
    holds: bool


class ProgressSink(Protocol):
    """Where a long audit reports its progress (the CLI passes its rich display)."""

    def phase(self, description: str, total: int | None = None) -> None:
        """Start a step, with its number of units if known."""

    def advance(self, amount: int) -> None:
        """Report ``amount`` more units of the current step done."""


class NoProgress:
    """A :class:`ProgressSink` that shows nothing."""

    def phase(self, description: str, total: int | None = None) -> None:
        """Ignore the step."""

    def advance(self, amount: int) -> None:
        """Ignore the progress."""


class AuditTooLargeError(ParameterError):
    """The exact enumeration an audit needs is above its limit of paths."""


@dataclass(frozen=True)
class AccuracyFinding:
    """What the enumeration found for one :class:`AccuracyClaim`.

    Attributes:
        claim: the claim.
        achieved: the smallest probability of error at most ``a`` over the datasets
            (and bins) the claim covers; ``None`` when it covers none (vacuous).
        worst: the dataset (and bin, for per-query claims) attaining it.
        tightest: the smallest error bound whose probability is at least ``1 - beta``
            on every covered dataset and bin (``None`` when vacuous).
    """

    claim: AccuracyClaim
    achieved: Fraction | None
    worst: tuple[Dataset, int | None] | None
    tightest: int | None

    @property
    def holds(self) -> bool:
        """Whether the claim holds (a vacuous claim holds)."""
        return self.achieved is None or self.achieved >= 1 - self.claim.beta


@dataclass(frozen=True)
class HistogramReport:
    """The exact audit of a histogram mechanism over every dataset of a tiny universe.

    Attributes:
        title: what was audited (usually its ``repr``).
        description: lines on the layer, the parameters and the sampler.
        n: rows per dataset.
        universe_size: ``|X|``.
        ordered: whether every dataset of ``X^n`` was enumerated (else one sorted
            representative per multiset, with reorderings spot-checked).
        datasets: the datasets enumerated.
        pairs: the number of neighbouring pairs among them.
        paths: the number of paths (oracle outcomes) explored in all.
        distributions: ``{D: {release: Pr[M(D) = release]}}``, exact.
        count_laws: ``{D: {(h_1, ..., h_m): probability}}``, the law of the counts.
        traces: every sequence of oracle domains ``(d_1, d_2, ...)`` met on any path.
        traces_by_dataset: the same, per dataset.
        privacy: the claimed guarantee.
        worst_ratio: for a pure claim, the exact worst privacy ratio (else ``None``).
        worst_pair: the neighbouring pair attaining the privacy finding.
        delta_bounds: for an approximate claim, ``(lower, upper)`` exact bounds on the
            smallest ``delta`` at the real ``e^epsilon`` (else ``None``).
        accuracy: one finding per accuracy claim.
        claims: every claim with its evidence and verdict.
        notes: what was not claimed, and why.
    """

    title: str
    description: tuple[str, ...]
    n: int
    universe_size: int
    ordered: bool
    datasets: tuple[Dataset, ...]
    pairs: int
    paths: int
    distributions: Mapping[Dataset, Mapping[Any, Fraction]]
    count_laws: Mapping[Dataset, Mapping[tuple[int | Fraction, ...], Fraction]]
    traces: frozenset[tuple[int, ...]]
    traces_by_dataset: Mapping[Dataset, frozenset[tuple[int, ...]]]
    privacy: Privacy
    worst_ratio: Ratio | None
    worst_pair: tuple[Dataset, Dataset] | None
    delta_bounds: tuple[Fraction, Fraction] | None
    accuracy: tuple[AccuracyFinding, ...]
    claims: tuple[Claim, ...]
    notes: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """Whether every claim holds."""
        return all(claim.holds for claim in self.claims)

    def render(self, *, distributions: bool = False) -> str:
        """The report as text: exact values first, a decimal rendering at the end.

        Args:
            distributions: also list, for every dataset, the exact law of the counts
                ``(h_1, ..., h_m)``.
        """
        kind = "datasets of X^n" if self.ordered else "multisets (sorted representatives)"
        size = f"of n = {self.n} rows"
        if len({len(data) for data in self.datasets}) > 1:  # streams of 0..n elements
            kind, size = "streams", f"of 0 to {self.n} elements"
        lines = [
            f"finitedp audit of {self.title}",
            *(f"  {line}" for line in self.description),
            f"  enumerated: {len(self.datasets)} {kind} {size} over "
            f"X = [1, {self.universe_size}], {self.pairs} neighbouring pairs, "
            f"{self.paths:,} paths",
            "",
        ]
        if distributions:
            m = self.universe_size
            lines.append(f"Exact law of the counts Pr[(h_1, ..., h_{m}) = v]:")
            for data in self.datasets:
                lines.append(f"  D = {data}:")
                for vector, p in sorted(self.count_laws[data].items()):
                    lines.append(f"    {vector}: {exact_text(p)}")
            lines.append("")
        lines.append("Oracle calls:")
        lines += [f"  {line}" for line in _trace_lines(self)]
        lines += ["", "Claims (decided exactly):"]
        for claim in self.claims:
            mark = "holds" if claim.holds else "FAILS"
            lines.append(f"  [{mark}] {claim.statement}")
            lines.append(f"          {claim.evidence}")
        if self.notes:
            lines += ["", "Notes:", *(f"  {note}" for note in self.notes)]
        lines += ["", "Readable (decimal, display only):", *_histogram_decimals(self)]
        return "\n".join(lines)


def runs_text(trace: tuple[int, ...]) -> str:
    """``(5, 5, 5, 9)`` as ``5 x3, 9``: a sequence of oracle domains, run-length encoded."""
    parts: list[str] = []
    i = 0
    while i < len(trace):
        j = i
        while j < len(trace) and trace[j] == trace[i]:
            j += 1
        parts.append(short_int(trace[i]) + (f" x{j - i}" if j - i > 1 else ""))
        i = j
    return "(" + ", ".join(parts) + ")"


def _trace_lines(report: HistogramReport) -> list[str]:
    calls = sorted({len(trace) for trace in report.traces})
    shown = sorted(report.traces, key=lambda t: (len(t), t))
    span = f"{calls[0]}" if len(calls) == 1 else f"{calls[0]} to {calls[-1]}"
    same = len({frozenset(t) for t in report.traces_by_dataset.values()}) == 1
    lines = [
        f"{span} calls per release; {len(report.traces)} distinct sequence(s) of domains "
        f"over all paths; the set of sequences is "
        f"{'the same for every dataset' if same else 'NOT the same for every dataset'}",
    ]
    lines += [f"domains {runs_text(trace)}" for trace in shown[:4]]
    if len(shown) > 4:
        lines.append(f"... and {len(shown) - 4} more")
    return lines


def _histogram_decimals(report: HistogramReport) -> list[str]:
    # Display only: floats never feed back into a decision.
    eps = report.privacy.epsilon
    lines = [f"  epsilon = {float(eps):.6g}"]
    ratio = report.worst_ratio
    if ratio is INFINITY:
        lines.append("  worst privacy ratio = infinity")
    elif isinstance(ratio, Fraction) and ratio > 0:
        loss = math.log(ratio)
        lines.append(f"  worst privacy ratio = {float(ratio):.6g}, privacy loss = {loss:.6g}")
        lines.append(f"  share of epsilon used = {loss / float(eps):.2%}")
    if report.delta_bounds is not None:
        low, high = report.delta_bounds
        lines.append(
            f"  delta = {float(report.privacy.delta):.6g}; exact delta at e^epsilon in "
            f"[{float(low):.6g}, {float(high):.6g}]"
        )
    for finding in report.accuracy:
        claim = finding.claim
        if finding.achieved is None:
            lines.append(f"  {claim.kind} a = {claim.a}: no bin qualifies (vacuous)")
            continue
        lines.append(
            f"  {claim.kind} a = {claim.a}: worst Pr[within a] = {float(finding.achieved):.6g} "
            f"(needed {float(1 - claim.beta):.6g}); tightest a = {finding.tightest}"
        )
    return lines
