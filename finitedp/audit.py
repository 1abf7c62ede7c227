"""Audits: exact reports of what a mechanism does against what its theorem claims.

Paper: BV Thm 4.7 (GeoSample), Thm 4.10 (FastSample), Thm 5.2-5.6 (BasicHistogram,
StabilityHistogram), Thm 6.10-6.11 (PureSparseHistogram), Thm 8.3 / 8.6
(CompactHistogram).

Three kinds of audit:

* :func:`audit_counting_sampler` explores a counting-query sampler exactly for
  every count (``finitedp audit geo|fast``).
* :func:`audit_histogram_mechanism` (``finitedp audit bounded-geometric|stability|
  pure-sparse|compact``) enumerates every dataset of ``n`` rows over a tiny
  universe, computes each exact release distribution with :mod:`finitedp.checker`,
  and decides the theorem's privacy and accuracy claims and the oracle-call
  shapes; :func:`audit_histogram` does the same for any ``fn(data, rng)``.
* :func:`compare` draws from a *foreign* sampler that claims to realise one of
  finitedp's exact distributions and reports the estimated total-variation
  distance with a rigorous confidence bound and a chi-square goodness-of-fit test.

Each claim states the exact value found and whether the claim holds, decided
without floating point.  Decimals appear only in the final "readable" section,
converted from the exact values for display, and in :func:`compare`'s p-value,
which is a statistical report and never a privacy decision.
"""

from __future__ import annotations

import importlib
import math
import numbers
import operator
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Protocol

from .checker.counting import CountingAudit, audit_counting
from .checker.histogram import all_datasets, all_multisets, neighbouring_pairs
from .checker.measures import INFINITY, Ratio
from .checker.symbolic import DEFAULT_LIMIT, explore
from .counting.base import CountingSampler
from .errors import ParameterError, ParameterTypeError
from .exactmath import ceil_ln, compare_exp, exp_bounds
from .guarantees import Accuracy, Privacy
from .oracle import RandomSource
from .params import check_positive_int, exact_fraction, inverse_natural, short_int

__all__ = [
    "DEFAULT_MAX_PATHS",
    "HISTOGRAM_TARGETS",
    "KNOWN_SIZES",
    "AccuracyClaim",
    "AccuracyFinding",
    "AuditTooLargeError",
    "Claim",
    "ComparisonReport",
    "CountingReport",
    "HistogramReport",
    "ProgressSink",
    "audit_counting_sampler",
    "audit_histogram",
    "audit_histogram_mechanism",
    "chi_square_survival",
    "compare",
    "load_callable",
]


@dataclass(frozen=True)
class Claim:
    """One checkable statement of a theorem, with the exact evidence."""

    statement: str
    evidence: str
    holds: bool


@dataclass(frozen=True)
class CountingReport:
    """The exact audit of a counting-query sampler and the verdict on each claim."""

    sampler: CountingSampler
    audit: CountingAudit
    beta: Fraction
    claims: tuple[Claim, ...]

    @property
    def ok(self) -> bool:
        """Whether every claim holds."""
        return all(claim.holds for claim in self.claims)

    def render(self, *, distributions: bool = True) -> str:
        """The report as text: exact fractions first, a decimal rendering at the end."""
        lines = [f"finitedp audit of {self.sampler!r}", *_parameters(self.sampler), ""]
        if distributions:
            lines.append("Exact output distribution Pr[M(c, U) = z]:")
            for c, dist in enumerate(self.audit.distributions):
                cells = ", ".join(f"{z}: {p}" for z, p in sorted(dist.items()))
                lines.append(f"  c = {c}: {{{cells}}}")
            lines.append("")
        lines.append("Claims (decided exactly):")
        for claim in self.claims:
            mark = "holds" if claim.holds else "FAILS"
            lines.append(f"  [{mark}] {claim.statement}")
            lines.append(f"          {claim.evidence}")
        lines += ["", "Readable (decimal, display only):", *_decimals(self)]
        return "\n".join(lines)


def _parameters(sampler: CountingSampler) -> list[str]:
    noise = sampler.noise
    items = [f"mode = {sampler.mode}", f"alpha = {noise.alpha}"]
    if sampler.k is not None:
        items.insert(0, f"k = {sampler.k}")
    for name in ("t", "d_prime"):
        if hasattr(sampler, name):
            items.append(f"{name} = {short_int(getattr(sampler, name))}")
    items.append(f"d = {short_int(sampler.d)}")
    return ["  " + ", ".join(items)]


def _privacy_claims(sampler: CountingSampler, audit: CountingAudit) -> list[Claim]:
    ratio, (c0, c1) = audit.privacy_ratio, audit.worst_pair
    found = f"max ratio over neighbouring counts = {ratio} (at c = {c0}, {c1})"
    half = sampler.epsilon / 2
    within = ratio is not INFINITY and compare_exp(Fraction(ratio), half) <= 0  # type: ignore[arg-type]
    claims = [Claim(f"(eps/2, 0)-DP for counting queries: ratio <= e^({half})", found, within)]
    bound = getattr(sampler, "privacy_ratio", None)
    if bound is not None:
        claims.append(Claim(f"ratio <= b/a = {bound} exactly", found, ratio <= bound))
    return claims


def audit_counting_sampler(sampler: CountingSampler, beta: object = "1/10") -> CountingReport:
    """Audit a GeoSample or FastSample exactly over all counts ``c`` in ``[0, n]``.

    Paper: BV Thm 4.7 i/iv (GeoSample), Thm 4.10 i/ii/v (FastSample).

    Args:
        sampler: the sampler to audit; its ``n`` sets the work (``n + 1`` explorations).
        beta: the failure probability for the accuracy claim.

    Returns:
        A :class:`CountingReport`; ``report.ok`` says whether every claim holds.
    """
    audit = audit_counting(sampler)
    a = sampler.accuracy(beta)  # type: ignore[attr-defined]
    b = exact_fraction(beta, "beta")
    achieved = audit.worst_accuracy(a)
    claims = [
        *_privacy_claims(sampler, audit),
        Claim(
            f"({a}, {b})-accuracy: min_c Pr[|M(c, U) - c| <= {a}] >= {1 - b}",
            f"achieved {achieved}",
            achieved >= 1 - b,
        ),
        Claim(
            "M(c, u) = min{z : F(z) >= u} on every path (exact CDF, monotone in u)",
            f"{'every' if audit.inverse_cdf_exact else 'NOT every'} path interval matches F",
            audit.inverse_cdf_exact,
        ),
        Claim(
            f"at most {sampler.max_comparisons} comparisons of the draw per sample",
            f"largest on any path: {audit.max_comparisons}",
            audit.max_comparisons <= sampler.max_comparisons,
        ),
    ]
    return CountingReport(sampler, audit, b, tuple(claims))


def _decimals(report: CountingReport) -> list[str]:
    import math  # display only: floats never feed back into a decision

    ratio = report.audit.privacy_ratio
    half = report.sampler.epsilon / 2
    lines = [f"  eps/2 = {float(half):.6g}"]
    if ratio is INFINITY:
        lines.append("  max ratio = infinity")
    else:
        r = float(ratio)  # type: ignore[arg-type]
        lines.append(f"  max ratio = {r:.6g}, ln(max ratio) = {math.log(r):.6g}")
        lines.append(f"  share of eps/2 used = {math.log(r) / float(half):.2%}")
    a = report.sampler.accuracy(report.beta)  # type: ignore[attr-defined]
    lines.append(f"  worst Pr[|M(c,U) - c| <= {a}] = {float(report.audit.worst_accuracy(a)):.6g}")
    return lines


# -- histogram audits ------------------------------------------------------------------

#: A dataset: ``n`` rows, each an int in ``[1, |X|]``.
Dataset = tuple[int, ...]

#: The user-level histogram mechanisms ``finitedp audit`` knows, by command-line name.
HISTOGRAM_TARGETS = ("bounded-geometric", "stability", "pure-sparse", "compact")

#: The most paths (leaves of the checker's enumeration, over all datasets) an
#: audit explores unless told otherwise.  Measured at 50 to 150 microseconds a
#: path on one core (the mechanism is re-run for every path), so about 15 to 45 s.
DEFAULT_MAX_PATHS = 300_000

#: Instances measured to work: the whole audit on one (shared) core of the
#: development machine, default ``--beta 1/10``, ``epsilon = 1``.
KNOWN_SIZES: dict[str, str] = {
    "bounded-geometric": (
        "counter fast: n = 2, |X| = 5 (4,374 paths, 0.5 s); n = 3, |X| = 5 (38,912 paths, 5 s); "
        "n = 2, |X| = 7 (67,797 paths, 10 s); n = 4, |X| = 5 (228,125 paths, 30 s)"
    ),
    "stability": (
        "user level (needs n >= b; b = 8 for geo, 11 for fast at epsilon = 1, delta = 1/2): "
        "geo n = 10, |X| = 2 (1,474 paths, 0.2 s); geo n = 8, |X| = 3 (19,224 paths, 2 s); "
        "fast n = 13, |X| = 2 (2,968 paths, 0.3 s); fast n = 11, |X| = 3 (87,300 paths, 10 s); "
        "paper layer (--threshold, geo): n = 4, |X| = 4, b = 1 (3,470 paths, 0.7 s); "
        "n = 5, |X| = 4, b = 2 (15,144 paths, 2 s)"
    ),
    "pure-sparse": (
        "n = 1, |X| = 3 (432 paths, 0.1 s); n = 1, |X| = 7 (35,280 paths, 4 s); with "
        "--split-mixture: n = 2, |X| = 5 (12,969 paths, 2 s), n = 2, |X| = 6 (59,940 paths, 9 s)"
    ),
    "compact": (
        "paper layer only (--level 1, d0 = 64, --counter geo): n = 1, |X| = 3 (12,288 paths, "
        "2 s); n = 1, |X| = 8 (32,768 paths, 8 s); n = 2 needs d0^3 = 262,144 paths per dataset"
    ),
}


class ProgressSink(Protocol):
    """Where a long audit reports its progress (the CLI passes its rich display)."""

    def phase(self, description: str, total: int | None = None) -> None:
        """Start a step, with its number of units if known."""

    def advance(self, amount: int) -> None:
        """Report ``amount`` more units of the current step done."""


class _NoProgress:
    """A :class:`ProgressSink` that shows nothing."""

    def phase(self, description: str, total: int | None = None) -> None:
        """Ignore the step."""

    def advance(self, amount: int) -> None:
        """Ignore the progress."""


class AuditTooLargeError(ParameterError):
    """The exact enumeration an audit needs is above its limit of paths."""


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
class _Explored:
    """The exact behaviour of a mechanism on one dataset."""

    distribution: dict[Any, Fraction]
    traces: frozenset[tuple[int, ...]]
    paths: int


_Explorer = Callable[[Dataset], _Explored]


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
    count_laws: Mapping[Dataset, Mapping[tuple[int, ...], Fraction]]
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
        lines = [
            f"finitedp audit of {self.title}",
            *(f"  {line}" for line in self.description),
            f"  enumerated: {len(self.datasets)} {kind} of n = {self.n} rows over "
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
                    lines.append(f"    {vector}: {_exact(p)}")
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


def _exact(value: Fraction | Ratio) -> str:
    """An exact value for a report line; very long fractions are shown by their size."""
    text = str(value)
    if len(text) <= 64 or not isinstance(value, Fraction):
        return text
    digits = (len(str(value.numerator)), len(str(value.denominator)))
    return f"<a fraction of {digits[0]}/{digits[1]} digits, about {float(value):.9g}>"


def _runs(trace: tuple[int, ...]) -> str:
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
    lines += [f"domains {_runs(trace)}" for trace in shown[:4]]
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


def _sum_exact(probabilities: Iterable[Fraction]) -> Fraction:
    """Sum fractions, adding numerators per denominator first (most paths share one)."""
    by_denominator: dict[int, int] = {}
    for p in probabilities:
        by_denominator[p.denominator] = by_denominator.get(p.denominator, 0) + p.numerator
    return sum((Fraction(k, d) for d, k in by_denominator.items()), Fraction(0))


def _explorer(
    release: Callable[[Dataset, RandomSource], Any], limit: int
) -> Callable[[Dataset], _Explored]:
    """Explore ``release(data, rng)`` exactly: its law, its oracle-domain sequences, its paths."""

    def run(data: Dataset) -> _Explored:
        paths = explore(release, data, limit=limit)
        grouped: dict[Any, list[Fraction]] = {}
        for path in paths:
            grouped.setdefault(path.output, []).append(path.probability)
        law = {out: ps[0] if len(ps) == 1 else _sum_exact(ps) for out, ps in grouped.items()}
        traces = frozenset(tuple(draw.d for draw in path.draws) for path in paths)
        return _Explored(law, traces, len(paths))

    return run


def _count_law(
    law: Mapping[Any, Fraction], counts: Callable[[Any], tuple[int, ...]]
) -> dict[tuple[int, ...], Fraction]:
    grouped: dict[tuple[int, ...], list[Fraction]] = {}
    for release, p in law.items():
        grouped.setdefault(counts(release), []).append(p)
    return {v: _sum_exact(ps) for v, ps in grouped.items()}


def _true_counts(data: Dataset, m: int) -> tuple[int, ...]:
    counts = [0] * m
    for row in data:
        counts[row - 1] += 1
    return tuple(counts)


def _accuracy_findings(
    claims: Sequence[AccuracyClaim],
    count_laws: Mapping[Dataset, Mapping[tuple[int, ...], Fraction]],
    n: int,
    m: int,
) -> list[AccuracyFinding]:
    """Decide each accuracy claim exactly from the law of the counts of every dataset."""
    # errors[D][x][e] = Pr[|h_x - c_x| = e]; worst[D][e] = Pr[max_x |h_x - c_x| = e],
    # accumulated as integer numerators over the law's common denominator.
    errors: dict[Dataset, list[list[Fraction]]] = {}
    worst: dict[Dataset, list[Fraction]] = {}
    for data, law in count_laws.items():
        true = _true_counts(data, m)
        den, scaled = _over_common_denominator(law)
        per_bin = [[0] * (n + 1) for _ in range(m)]
        overall = [0] * (n + 1)
        for vector, k in scaled.items():
            gaps = [abs(h - c) for h, c in zip(vector, true, strict=True)]
            for x, gap in enumerate(gaps):
                per_bin[x][min(gap, n)] += k
            overall[min(max(gaps), n)] += k
        errors[data] = [[Fraction(k, den) for k in row] for row in per_bin]
        worst[data] = [Fraction(k, den) for k in overall]

    def within(table: list[Fraction], a: int) -> Fraction:
        return sum(table[: max(0, a) + 1], Fraction(0))

    findings = []
    for claim in claims:
        cases: list[tuple[Dataset, int | None, list[Fraction]]] = []
        for data in count_laws:
            if claim.kind == "simultaneous":
                cases.append((data, None, worst[data]))
                continue
            true = _true_counts(data, m)
            for x in range(m):
                if claim.threshold is None or true[x] > claim.threshold:
                    cases.append((data, x + 1, errors[data][x]))
        if not cases:
            findings.append(AccuracyFinding(claim, None, None, None))
            continue
        achieved, where = min(
            ((within(table, claim.a), (data, x)) for data, x, table in cases),
            key=lambda item: item[0],
        )
        need = 1 - claim.beta
        tightest = next(
            a for a in range(n + 1) if all(within(table, a) >= need for _, _, table in cases)
        )
        findings.append(AccuracyFinding(claim, achieved, where, tightest))
    return findings


def _accuracy_claim(finding: AccuracyFinding, n: int) -> Claim:
    claim = finding.claim
    if finding.achieved is None:
        evidence = f"vacuous here: no dataset of n = {n} rows has a count above {claim.threshold}"
    else:
        assert finding.worst is not None
        data, x = finding.worst
        at = f"D = {data}" + ("" if x is None else f", x = {x}")
        evidence = f"achieved {_exact(finding.achieved)} (worst at {at}); tightest a = "
        evidence += f"{finding.tightest}"
        if claim.a >= n:
            evidence += f" (a >= n = {n}: every count is within a, the claim is trivial here)"
    return Claim(claim.statement(), evidence, finding.holds)


def _over_common_denominator(law: Mapping[Any, Fraction]) -> tuple[int, dict[Any, int]]:
    """``(D, {h: k})`` with ``Pr[h] = k / D`` for every release (``D``: lcm of denominators)."""
    den = math.lcm(*(p.denominator for p in law.values()))
    return den, {h: p.numerator * (den // p.denominator) for h, p in law.items()}


def _worst_ratio(
    distributions: Mapping[Dataset, Mapping[Any, Fraction]],
    pairs: Sequence[tuple[Dataset, Dataset]],
) -> tuple[Ratio, tuple[Dataset, Dataset]]:
    """The largest ``Pr[M(D) = h] / Pr[M(D') = h]`` over the pairs, both directions.

    As :func:`finitedp.checker.measures.max_privacy_ratio`, without re-validating
    the distributions for every pair (they come from the checker, exact by
    construction).  Each law is put over one denominator and ratios are compared by
    cross-multiplying integers.
    """
    scaled = {data: _over_common_denominator(law) for data, law in distributions.items()}
    best_num, best_den, best_pair = 0, 1, pairs[0]
    for first, second in pairs:
        for a, b in ((first, second), (second, first)):
            (p_den, p_law), (q_den, q_law) = scaled[a], scaled[b]
            # (p / p_den) / (q / q_den) = (p * f) / (q * g), with f = g = 1 when the
            # denominators agree (the usual case: both are d^(number of draws)).
            f, g = (1, 1) if p_den == q_den else (q_den, p_den)
            for release, p in p_law.items():
                q = q_law.get(release)
                if not q:
                    return INFINITY, (a, b)
                if p * f * best_den > best_num * q * g:
                    best_num, best_den, best_pair = p * f, q * g, (a, b)
    return Fraction(best_num, best_den), best_pair


def _worst_hockey_stick(
    distributions: Mapping[Dataset, Mapping[Any, Fraction]],
    pairs: Sequence[tuple[Dataset, Dataset]],
    exp_epsilon: Fraction,
) -> tuple[Fraction, tuple[Dataset, Dataset]]:
    """The largest ``sum_h max(0, Pr[M(D) = h] - e^eps Pr[M(D') = h])`` over the pairs.

    As :func:`finitedp.checker.histogram.max_hockey_stick` at a rational ``e^eps``,
    without re-validating the distributions for every pair.
    """
    best, best_pair = Fraction(-1), pairs[0]
    for first, second in pairs:
        for a, b in ((first, second), (second, first)):
            q_law = distributions[b]
            excess = [p - exp_epsilon * q_law.get(h, 0) for h, p in distributions[a].items()]
            delta = sum((e for e in excess if e > 0), Fraction(0))
            if delta > best:
                best, best_pair = delta, (a, b)
    return best, best_pair


def _pure_privacy(
    distributions: Mapping[Dataset, Mapping[Any, Fraction]],
    pairs: Sequence[tuple[Dataset, Dataset]],
    privacy: Privacy,
    source: str,
) -> tuple[Claim, Ratio, tuple[Dataset, Dataset]]:
    ratio, pair = _worst_ratio(distributions, pairs)
    eps = privacy.epsilon
    holds = isinstance(ratio, Fraction) and compare_exp(ratio, eps) <= 0
    claim = Claim(
        f"({eps}, 0)-DP [{source}]: max over neighbouring D, D' and releases h of "
        f"Pr[M(D) = h] / Pr[M(D') = h] <= e^({eps})",
        f"worst ratio {_exact(ratio)} at D = {pair[0]}, D' = {pair[1]}",
        holds,
    )
    return claim, ratio, pair


#: The most bits of precision spent bracketing ``e^epsilon`` before an (eps, delta)
#: claim is declared undecided (never reached in practice: the divergence is linear
#: in ``e^epsilon`` between breakpoints, so it equals a rational ``delta`` only at
#: a rational ``e^epsilon``).
_MAX_EXP_PRECISION = 1 << 14


def _approximate_privacy(
    distributions: Mapping[Dataset, Mapping[Any, Fraction]],
    pairs: Sequence[tuple[Dataset, Dataset]],
    privacy: Privacy,
    source: str,
) -> tuple[Claim, tuple[Fraction, Fraction], tuple[Dataset, Dataset]]:
    """Decide ``(eps, delta)``-DP exactly by bracketing ``e^eps`` between rationals.

    The hockey-stick divergence decreases in ``e^eps``: at a rational lower bound of
    ``e^eps`` it bounds the true ``delta`` from above, at an upper bound from below.
    """
    eps, delta = privacy.epsilon, privacy.delta
    precision = 128
    while True:
        low, high = exp_bounds(eps, precision)
        upper, pair = _worst_hockey_stick(distributions, pairs, low)
        lower, _ = _worst_hockey_stick(distributions, pairs, high)
        decided = upper <= delta or lower > delta
        if decided or precision >= _MAX_EXP_PRECISION:
            break
        precision *= 2
    holds = upper <= delta
    verdict = "" if decided else " (undecided at the precision limit: reported as failing)"
    claim = Claim(
        f"({eps}, {delta})-DP [{source}]: max over neighbouring D, D' of "
        f"sum_h max(0, Pr[M(D) = h] - e^({eps}) Pr[M(D') = h]) <= {delta}",
        f"exact delta at e^({eps}) lies in [{_exact(lower)}, {_exact(upper)}] (hockey-stick "
        f"divergences at rational bounds of e^({eps}) within 2^-{precision}; worst pair "
        f"D = {pair[0]}, D' = {pair[1]}){verdict}",
        holds,
    )
    return claim, (lower, upper), pair


def _reorderings(datasets: Sequence[Dataset], count: int = 3) -> list[tuple[Dataset, Dataset]]:
    """Up to ``count`` (sorted representative, a reordering of it) pairs to spot-check."""
    varied = sorted(datasets, key=lambda d: (-len(set(d)), d))
    return [(d, tuple(reversed(d))) for d in varied[:count] if len(set(d)) > 1]


@dataclass(frozen=True)
class _Spec:
    """Everything an audit needs about its target, besides the enumeration itself."""

    title: str
    description: tuple[str, ...]
    explore: _Explorer
    privacy: Privacy
    privacy_source: str
    accuracy: tuple[AccuracyClaim, ...]
    exact_calls: int | None = None
    max_calls: int | None = None
    fixed_domains: bool = False
    notes: tuple[str, ...] = ()
    counts: Callable[[Any], tuple[int, ...]] | None = None


def _run_audit(
    spec: _Spec,
    n: int,
    m: int,
    datasets: list[Dataset],
    ordered: bool,
    max_paths: int,
    progress: ProgressSink,
) -> HistogramReport:
    """Enumerate, measure and decide every claim of ``spec``."""
    counts = spec.counts or (lambda release: tuple(release[x] for x in range(1, m + 1)))
    explored: dict[Dataset, _Explored] = {}
    total = 0
    progress.phase(f"exploring {len(datasets)} datasets exactly", total=len(datasets))
    for data in datasets:
        result = spec.explore(data)
        explored[data] = result
        total += result.paths
        if total > max_paths:
            raise AuditTooLargeError(
                f"the enumeration passed the limit of {max_paths:,} paths after "
                f"{len(explored)} of {len(datasets)} datasets; raise max_paths or audit a "
                f"smaller instance"
            )
        progress.advance(1)
    reordered = [] if ordered else _reorderings(datasets)
    same_law = True
    for sorted_data, mixed in reordered:
        result = spec.explore(mixed)
        total += result.paths
        same_law = same_law and result.distribution == explored[sorted_data].distribution
    distributions = {data: result.distribution for data, result in explored.items()}
    progress.phase("computing the laws of the counts")
    count_laws = {data: _count_law(law, counts) for data, law in distributions.items()}
    pairs = neighbouring_pairs(datasets)
    claims: list[Claim] = []
    worst_ratio: Ratio | None = None
    delta_bounds: tuple[Fraction, Fraction] | None = None
    worst_pair: tuple[Dataset, Dataset] | None = None
    progress.phase(f"checking privacy over {len(pairs)} neighbouring pairs")
    if spec.privacy.pure:  # pairs is not empty: n >= 1 and |X| >= 2
        claim, worst_ratio, worst_pair = _pure_privacy(
            distributions, pairs, spec.privacy, spec.privacy_source
        )
        claims.append(claim)
    else:
        claim, delta_bounds, worst_pair = _approximate_privacy(
            distributions, pairs, spec.privacy, spec.privacy_source
        )
        claims.append(claim)
    progress.phase("checking accuracy")
    findings = _accuracy_findings(spec.accuracy, count_laws, n, m)
    claims += [_accuracy_claim(finding, n) for finding in findings]
    by_dataset = {data: result.traces for data, result in explored.items()}
    traces = frozenset(t for result in explored.values() for t in result.traces)
    lengths = sorted({len(t) for t in traces})
    span = f"{lengths[0]}" if len(lengths) == 1 else f"between {lengths[0]} and {lengths[-1]}"
    if spec.exact_calls is not None:
        claims.append(
            Claim(
                f"exactly {spec.exact_calls} oracle calls on every path of every dataset "
                f"(the number of calls reveals nothing)",
                f"found {span} calls",
                lengths == [spec.exact_calls],
            )
        )
    if spec.max_calls is not None:
        claims.append(
            Claim(
                f"at most {spec.max_calls} oracle calls per release",
                f"found {span} calls",
                lengths[-1] <= spec.max_calls,
            )
        )
    if spec.fixed_domains:
        claims.append(
            Claim(
                "the same sequence of oracle domains on every path of every dataset",
                f"{len(traces)} distinct sequence(s): "
                + ", ".join(_runs(t) for t in sorted(traces)[:3]),
                len(traces) == 1,
            )
        )
    if reordered:
        claims.append(
            Claim(
                "the release depends on the counts only (so one dataset per multiset suffices)",
                f"{len(reordered)} reordered dataset(s) explored: "
                + ", ".join(str(mixed) for _, mixed in reordered)
                + (": same exact law" if same_law else ": a DIFFERENT law"),
                same_law,
            )
        )
    return HistogramReport(
        title=spec.title,
        description=spec.description,
        n=n,
        universe_size=m,
        ordered=ordered,
        datasets=tuple(datasets),
        pairs=len(pairs),
        paths=total,
        distributions=distributions,
        count_laws=count_laws,
        traces=traces,
        traces_by_dataset=by_dataset,
        privacy=spec.privacy,
        worst_ratio=worst_ratio,
        worst_pair=worst_pair,
        delta_bounds=delta_bounds,
        accuracy=tuple(findings),
        claims=tuple(claims),
        notes=spec.notes,
    )


def _dataset_count(n: int, m: int, ordered: bool) -> int:
    return m**n if ordered else math.comb(n + m - 1, n)


def _check_sizes(n: object, universe_size: object, max_paths: object) -> tuple[int, int, int]:
    rows = check_positive_int(n, "n")
    m = check_positive_int(universe_size, "universe_size")
    if m < 2:
        raise ParameterError(
            "universe_size: got 1; with one value every dataset is the same, so there is no "
            "neighbouring pair to audit; use |X| >= 2"
        )
    return rows, m, check_positive_int(max_paths, "max_paths")


def _enumerate(n: int, m: int, ordered: bool, max_paths: int, what: str) -> list[Dataset]:
    count = _dataset_count(n, m, ordered)
    if count > max_paths:
        raise AuditTooLargeError(
            f"{what}: {count:,} {'datasets' if ordered else 'multisets'} of n = {n} rows over "
            f"|X| = {m}, each with at least one path, is above the limit of {max_paths:,} paths"
        )
    return all_datasets(n, m) if ordered else all_multisets(n, m)


def audit_histogram(
    release: Callable[[Dataset, RandomSource], Hashable],
    *,
    n: int,
    universe_size: int,
    privacy: Privacy,
    accuracy: Accuracy | Sequence[AccuracyClaim] | None = None,
    max_oracle_calls: int | None = None,
    title: str | None = None,
    ordered: bool = False,
    counts: Callable[[Any], tuple[int, ...]] | None = None,
    max_paths: int = DEFAULT_MAX_PATHS,
    progress: ProgressSink | None = None,
) -> HistogramReport:
    """Audit any histogram mechanism ``release(data, rng)`` over every dataset of a tiny universe.

    Paper: BV Def 2.1 (neighbours differ in one row), Defs 2.5-2.7 (accuracy).

    Args:
        release: the mechanism, called as ``release(data, rng=source)``; it must take
            its randomness from ``rng`` only and be deterministic given its draws.
            Its releases are hashable, with ``release[x]`` the count of ``x`` in
            ``[1, universe_size]`` (or give ``counts``).
        n: rows per dataset.
        universe_size: ``|X|``, at least 2.
        privacy: the claimed guarantee; pure claims are decided from the exact worst
            ratio, ``(eps, delta)`` ones from exact hockey-stick divergences.
        accuracy: the claimed accuracy (an :class:`~finitedp.guarantees.Accuracy`, or
            explicit :class:`AccuracyClaim` s), or ``None``.
        max_oracle_calls: if given, checked as "at most this many calls".
        title: the report's title (default: ``repr(release)``).
        ordered: enumerate all of ``X^n`` (default: one sorted dataset per multiset, and
            three reorderings spot-checked, which assumes the release depends on the
            counts only).
        counts: ``release -> (h_1, ..., h_m)``, if ``release[x]`` is not the count.
        max_paths: stop with :class:`AuditTooLargeError` past this many paths.
        progress: where to report progress.

    Returns:
        A :class:`HistogramReport`; ``report.ok`` says whether every claim holds.

    Raises:
        AuditTooLargeError: more than ``max_paths`` paths.
        ParameterError: bad sizes.
    """
    rows, m, limit = _check_sizes(n, universe_size, max_paths)
    claims = _claims_of(accuracy) if isinstance(accuracy, Accuracy) else tuple(accuracy or ())
    spec = _Spec(
        title=title or repr(release),
        description=(f"claimed privacy: ({privacy.epsilon}, {privacy.delta})-DP",),
        explore=_explorer(release, max(limit, DEFAULT_LIMIT)),
        privacy=privacy,
        privacy_source="claimed",
        accuracy=claims,
        max_calls=max_oracle_calls,
        counts=counts,
    )
    datasets = _enumerate(rows, m, ordered, limit, "audit")
    return _run_audit(spec, rows, m, datasets, ordered, limit, progress or _NoProgress())


def _claims_of(accuracy: Accuracy) -> tuple[AccuracyClaim, ...]:
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


def _missing_accuracy(accuracy: Accuracy) -> tuple[str, ...]:
    notes = []
    if accuracy.per_query is None:
        notes.append(
            f"{accuracy.source} gives no per-query bound at beta = {accuracy.beta} "
            f"(outside its range of beta); none is checked"
        )
    if accuracy.simultaneous is None:
        notes.append(
            f"{accuracy.source} gives no simultaneous bound at beta = {accuracy.beta} "
            f"(outside its range of beta); none is checked"
        )
    return tuple(notes)


# -- the targets of ``finitedp audit`` --------------------------------------------------


def _support_sizes(sampler: CountingSampler) -> list[int]:
    """Paths of ``sampler.sample(c)`` per ``c``: one per output of positive probability."""
    return [len(sampler.pmf(c)) for c in range(sampler.n + 1)]


def _occupied(data: Dataset) -> dict[int, int]:
    counts: dict[int, int] = {}
    for row in data:
        counts[row] = counts.get(row, 0) + 1
    return counts


def _refuse_if_large(
    estimate: int, limit: int, target: str, n: int, m: int, count: int, hint: str = ""
) -> None:
    if estimate <= limit:
        return
    raise AuditTooLargeError(
        f"{target} at n = {n}, |X| = {m}: the exact enumeration would explore about "
        f"{estimate:,} paths over {count:,} datasets, above the limit of {limit:,} "
        f"(max_paths, --max-paths; 50-150 microseconds a path). Sizes known to work: "
        f"{KNOWN_SIZES.get(target, 'see finitedp.audit.KNOWN_SIZES')}.{hint}"
    )


def _counter_sampler(counter: str, n: int, epsilon: object, gamma: object) -> CountingSampler:
    from .counting.fastsample import FastSample
    from .counting.geosample import GeoSample

    if counter == "geo":
        if gamma is not None:
            raise ParameterError("gamma: applies to the fast counter only")
        return GeoSample(n, epsilon)
    if counter != "fast":
        raise ParameterError(f'counter: got {counter!r}; use "fast" (FastSample) or "geo"')
    if gamma is None:
        raise ParameterError(
            "gamma: the paper layer with the fast counter needs FastSample's gamma = 1/g, "
            "e.g. gamma = 1/8 (or use counter geo)"
        )
    return FastSample(n, epsilon, gamma)


def _bounded_geometric(
    n: int, m: int, epsilon: object, beta: Fraction, counter: str, limit: int
) -> tuple[_Spec, Callable[[list[Dataset]], int]]:
    from .histograms.mechanisms import BoundedGeometricHistogram

    mech = BoundedGeometricHistogram(n, m, epsilon, beta, counter=counter)
    accuracy = mech.accuracy(beta)
    sizes = _support_sizes(mech.sampler)

    def estimate(datasets: list[Dataset]) -> int:
        return sum(math.prod(sizes[c] for c in _true_counts(d, m)) for d in datasets)

    spec = _Spec(
        title=repr(mech),
        description=(
            "user-level mechanism: BasicHistogram over every bin (BV Alg 5.1, Thm 5.3, Fig 3)",
            f"counter {mech.sampler!r}, d = {short_int(mech.sampler.d)}",
        ),
        explore=_explorer(mech.release, max(limit, DEFAULT_LIMIT)),
        privacy=mech.privacy,
        privacy_source="BV Thm 5.3 i",
        accuracy=_claims_of(accuracy),
        exact_calls=mech.max_oracle_calls,
        fixed_domains=True,
        notes=_missing_accuracy(accuracy),
    )
    return spec, estimate


def _stability_estimate(sizes: list[int]) -> Callable[[list[Dataset]], int]:
    def estimate(datasets: list[Dataset]) -> int:
        return sum(math.prod(sizes[c] for c in _occupied(d).values()) for d in datasets)

    return estimate


def _stability_user(
    n: int,
    m: int,
    epsilon: object,
    delta: object,
    beta: Fraction,
    counter: str,
    limit: int,
) -> tuple[_Spec, Callable[[list[Dataset]], int]]:
    from .histograms.bounds import stability_threshold
    from .histograms.mechanisms import StabilityHistogram

    if delta is None:
        raise ParameterError(
            "delta: the user-level stability mechanism is (eps, delta)-DP and needs delta = 1/k, "
            "e.g. 1/2 at this size; or audit the paper layer with an explicit threshold"
        )
    try:
        mech = StabilityHistogram(n, m, epsilon, delta, beta, counter=counter)
    except ParameterError as error:
        b = stability_threshold(
            counter, inverse_natural(epsilon, "epsilon"), inverse_natural(delta, "delta")
        )
        if b <= n:
            raise
        raise ParameterError(
            f"n: got {n}; the user-level StabilityHistogram needs n >= b = {b} for epsilon = "
            f"{epsilon}, delta = {delta} (BV Thm 5.6: below it every release is empty). The "
            f"smallest user-level instance is n = {b}: feasible for |X| <= 3 (known sizes: "
            f"{KNOWN_SIZES['stability']}). Or audit the paper layer, StabilityHistogram_{{M,b}} "
            f"of BV Alg 5.4 / Thm 5.5, with an explicit small threshold: --threshold B "
            f"(B in [0, n]) instead of --delta"
        ) from error
    accuracy = mech.accuracy(beta)
    notes = _missing_accuracy(accuracy)
    if mech.threshold >= n:
        notes += (
            f"DEGENERATE: b = {mech.threshold} >= n = {n}, so no noisy count (in [0, n]) is "
            f"above b and every release is empty: the privacy claim holds trivially. Audit "
            f"n > b (e.g. --n {mech.threshold + 2} with |X| = 2) or the paper layer with a small "
            f"--threshold",
        )
    spec = _Spec(
        title=repr(mech),
        description=(
            "user-level mechanism: noisy occupied bins above a threshold (BV Alg 5.4, "
            "Thm 5.6, Fig 4)",
            f"counter {mech.sampler!r}, d = {short_int(mech.sampler.d)}, threshold "
            f"b = {mech.threshold}",
        ),
        explore=_explorer(mech.release, max(limit, DEFAULT_LIMIT)),
        privacy=mech.privacy,
        privacy_source="BV Thm 5.6 i",
        accuracy=_claims_of(accuracy),
        exact_calls=mech.max_oracle_calls,
        fixed_domains=True,
        notes=notes,
    )
    return spec, _stability_estimate(_support_sizes(mech.sampler))


def _stability_paper(
    n: int,
    m: int,
    epsilon: object,
    beta: Fraction,
    counter: str,
    threshold: int,
    gamma: object,
    limit: int,
) -> tuple[_Spec, Callable[[list[Dataset]], int]]:
    from .histograms.stability import stability_histogram

    sampler = _counter_sampler(counter, n, epsilon, gamma)
    b = threshold
    if isinstance(b, bool) or not isinstance(b, int) or not 0 <= b <= n:
        raise ParameterError(f"threshold: got {b!r}; b must be an int in [0, n] = [0, {n}]")
    tail = sum((p for z, p in sampler.pmf(1).items() if z > b), Fraction(0))
    a = sampler.accuracy(beta)  # type: ignore[attr-defined]
    simultaneous_beta = 1 - (1 - beta) ** n

    def release(data: Dataset, rng: RandomSource) -> Any:
        return stability_histogram(sampler, b, data, m, rng, pad=True)

    claims = [AccuracyClaim("per-query", a, beta, a + b, "BV Thm 5.5 ii")]
    notes = [
        f"delta is Thm 5.5 i's smallest: 2 Pr[M(1, U) > b] = {_exact(2 * tail)}",
        f"a = {a} is the counter's (a, beta)-accuracy at beta = {beta} (BV Thm 4.7 / 4.10)",
    ]
    if simultaneous_beta < 1:
        claims.append(
            AccuracyClaim("simultaneous", a + b, simultaneous_beta, None, "BV Thm 5.5 iii")
        )
    spec = _Spec(
        title=f"StabilityHistogram_{{M,b}} (paper layer) with M = {sampler!r}, b = {b}",
        description=(
            "paper layer: stability_histogram (BV Alg 5.4, Thm 5.5), padded to n oracle calls",
            f"counter {sampler!r}, d = {short_int(sampler.d)}, threshold b = {b}, |X| = {m}",
        ),
        explore=_explorer(release, max(limit, DEFAULT_LIMIT)),
        privacy=Privacy(sampler.epsilon, 2 * tail),
        privacy_source="BV Thm 5.5 i",
        accuracy=tuple(claims),
        exact_calls=n,
        fixed_domains=True,
        notes=tuple(notes),
    )
    return spec, _stability_estimate(_support_sizes(sampler))


def _pure_sparse(
    n: int,
    m: int,
    epsilon: object,
    beta: Fraction,
    counter: str,
    split_mixture: bool,
    limit: int,
) -> tuple[_Spec, Callable[[list[Dataset]], int]]:
    from .histograms.keepheavy import kh_prime
    from .histograms.sparse import ApproxOrderStatistics, PureSparseHistogram, pure_sparse_fallback

    mech = PureSparseHistogram(n, m, epsilon, beta, counter=counter)
    sampler, beta1 = mech.sampler, mech.beta1
    step = ApproxOrderStatistics(mech.precision, pad=True)
    sizes = _support_sizes(sampler)
    fallback_paths = int((m * (n + 1)) ** n)
    order_paths: dict[int, int] = {}

    def order_statistics_paths(distinct: int) -> int:
        if distinct not in order_paths:

            def levels(rng: RandomSource) -> tuple[int, ...]:
                return step(sampler.scaled_cdf_at_zero, n, m - distinct, rng)

            order_paths[distinct] = len(explore(levels, limit=max(limit, DEFAULT_LIMIT)))
        return order_paths[distinct]

    def sparse_paths(data: Dataset) -> int:
        counts = _occupied(data)
        k = len(counts)
        noisy = math.prod(sizes[c] for c in counts.values())
        distinct = math.prod(m - k - i for i in range(n + 1))
        return noisy * distinct * order_statistics_paths(k)

    def sparse(data: Dataset, rng: RandomSource) -> Any:
        return kh_prime(sampler, data, m, rng, order_statistics=step, pad=True)

    def fallback(rng: RandomSource) -> Any:
        return pure_sparse_fallback(n, m, rng)

    notes = list(_missing_accuracy(mech.accuracy(beta)))
    if split_mixture:
        whole = _explorer(lambda data, rng: fallback(rng), max(limit, DEFAULT_LIMIT))
        part = _explorer(sparse, max(limit, DEFAULT_LIMIT))
        cache: list[_Explored] = []

        def explore_split(data: Dataset) -> _Explored:
            first = not cache
            if first:
                cache.append(whole(data))
            other, mine = cache[0], part(data)
            law = {h: (1 - beta1) * p for h, p in mine.distribution.items()}
            for h, p in other.distribution.items():
                law[h] = law.get(h, Fraction(0)) + beta1 * p
            traces = frozenset(
                (beta1.denominator, *s, *f) for s in mine.traces for f in other.traces
            )
            return _Explored(law, traces, mine.paths + (other.paths if first else 0))

        def estimate(datasets: list[Dataset]) -> int:
            return sum(sparse_paths(d) for d in datasets) + fallback_paths

        explorer: _Explorer = explore_split
        notes.append(
            f"--split-mixture: each law is (1 - beta1) SparseHistogram + beta1 fallback with "
            f"beta1 = {beta1} (BV Alg 3.1 / 6.9: finitedp.counting.mixing.Mixture runs both "
            f"branches on independent draws and one draw in [1, 1/beta1] picks the release); "
            f"the two branches are explored separately, not the Mixture call itself "
            f"(tests/test_audit.py "
            f"checks the two agree end to end at n = 1)"
        )
    else:

        def estimate(datasets: list[Dataset]) -> int:
            return sum(2 * sparse_paths(d) * fallback_paths for d in datasets)

        explorer = _explorer(mech.release, max(limit, DEFAULT_LIMIT))
    notes.append(
        "the oracle domains of DistinctSample depend on the number of distinct rows |A| "
        "(BV Alg 6.21 step 3; see finitedp.histograms.sparse): only the number of calls is "
        "data-independent"
    )
    spec = _Spec(
        title=repr(mech),
        description=(
            "user-level mechanism: PureSparseHistogram (BV Alg 6.9, Thm 6.10-6.11, Fig 5)",
            f"counter {sampler!r}, d = {short_int(sampler.d)}, beta1 = {beta1}, "
            f"delta = {_exact(mech.delta)}, precision s = {short_int(mech.precision)}",
        ),
        explore=explorer,
        privacy=mech.privacy,
        privacy_source="BV Thm 6.11 i",
        accuracy=_claims_of(mech.accuracy(beta)),
        exact_calls=mech.max_oracle_calls,
        notes=tuple(notes),
    )
    return spec, estimate


def _compact_estimate(
    sampler: CountingSampler, d0: int, preimage: Callable[[int], tuple[int, int]], n: int
) -> Callable[[list[Dataset]], int]:
    def per_count(c: int) -> int:
        total = 0
        for v in sampler.pmf(c):
            low, high = preimage(v)
            total += high - low + 1
        return total

    cache: dict[int, int] = {}

    def estimate(datasets: list[Dataset]) -> int:
        total = 0
        for data in datasets:
            counts = _occupied(data)
            paths = d0 ** (n + 1 - len(counts))
            for c in counts.values():
                if c not in cache:
                    cache[c] = per_count(c)
                paths *= cache[c]
            total += paths
        return total

    return estimate


def _compact(
    n: int,
    m: int,
    epsilon: object,
    beta: Fraction,
    counter: str,
    level: int | None,
    gamma: object,
    limit: int,
) -> tuple[_Spec, Callable[[list[Dataset]], int], str]:
    from .compact.gf2 import MAX_LEVEL
    from .compact.histogram import CompactHistogram, EmptyBinSampler, compact_histogram

    if level is None:
        mech = CompactHistogram(n, m, epsilon, beta, counter=counter)
        empty = mech.empty_bin
        accuracy = mech.accuracy(beta)
        hint = (
            f" CompactHistogram (BV Thm 8.6) takes d0 = 2^{mech.d0.bit_length() - 1} here, and "
            f"its n + 1 - |A| filler draws in [1, d0] are used as field elements, so the checker "
            f"must enumerate them value by value. Audit the paper layer instead, "
            f"CompactHistogram_{{M,M0}} of BV Alg 8.2 / Thm 8.3 in a small field: --level 1 "
            f"(d0 = 64) with --counter geo, at n = 1."
        )
        spec = _Spec(
            title=repr(mech),
            description=(
                "user-level mechanism: CompactHistogram (BV Alg 8.2, Thm 8.6, Fig 6)",
                f"counter {mech.sampler!r}, d = {short_int(mech.sampler.d)}, "
                f"d0 = 2^{mech.d0.bit_length() - 1}",
            ),
            explore=_explorer(mech.release, max(limit, DEFAULT_LIMIT)),
            privacy=mech.privacy,
            privacy_source="BV Thm 8.6 i",
            accuracy=_claims_of(accuracy),
            exact_calls=mech.max_oracle_calls,
            notes=_missing_accuracy(accuracy),
        )
        estimate = _compact_estimate(mech.sampler, mech.d0, empty.preimage, n)
        return spec, estimate, hint
    if isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= MAX_LEVEL:
        raise ParameterError(f"level: got {level!r}; it must be an int in [0, {MAX_LEVEL}]")
    if counter == "fast":
        raise ParameterError(
            "counter: the compact paper layer needs d0 >= (4/3) d (BV Lemma 8.4), and "
            "FastSample's d has dozens of digits even at n = 1, far above any d0 whose filler "
            "draws can be enumerated; use --counter geo"
        )
    sampler = _counter_sampler(counter, n, epsilon, gamma)
    d0 = 1 << (2 * 3**level)
    if d0 < max(m, n + 1):
        raise ParameterError(
            f"level: d0 = 2^{2 * 3**level} is below max(|X|, n + 1) = {max(m, n + 1)} "
            f"(BV Alg 8.2 needs d0 >= |X|); raise --level"
        )
    empty = EmptyBinSampler(sampler, d0)
    a_sampler = sampler.accuracy(beta)  # type: ignore[attr-defined]
    m0 = empty.pmf()
    a_empty = next(a for a in range(n + 1) if sum(p for v, p in m0.items() if v <= a) >= 1 - beta)
    a = max(a_sampler, a_empty)

    def release(data: Dataset, rng: RandomSource) -> Any:
        return compact_histogram(sampler, empty, data, m, rng, workers=1, pad=True)

    claims = [AccuracyClaim("per-query", a, beta, None, "BV Thm 8.3 ii")]
    if beta * m < 1:
        claims.append(AccuracyClaim("simultaneous", a, beta * m, None, "BV Thm 8.3 iii"))
    budget = sampler.epsilon + Fraction(3 * sampler.d, d0)
    spec = _Spec(
        title=f"CompactHistogram_{{M,M0}} (paper layer) with M = {sampler!r}, d0 = {d0}",
        description=(
            "paper layer: compact_histogram (BV Alg 8.2, Thm 8.3) with the empty-bin sampler "
            "M0 of Alg 8.5, padded to 2n + 1 oracle calls",
            f"counter {sampler!r}, d = {sampler.d}, field GF(2^{2 * 3**level}), d0 = {d0}",
        ),
        explore=_explorer(release, max(limit, DEFAULT_LIMIT)),
        privacy=Privacy(budget),
        privacy_source=f"BV Thm 8.3 i with Lemma 8.4: eps1 + eps2 + eps3 = {sampler.epsilon} + "
        f"d/d0 + 2d/d0",
        accuracy=tuple(claims),
        exact_calls=2 * n + 1,
        notes=(
            f"a = max({a_sampler}, {a_empty}): the counter's (a, beta)-accuracy (BV Thm 4.7) and "
            f"the least a with Pr[M0(U0) <= a] >= 1 - beta (Thm 8.3's assumption)",
            "the S_v draws have domain |supp S_v|, which depends on the noisy count v (BV Lemma "
            "8.4 v): only the number of calls is data-independent",
            "releases are polynomials; privacy is measured on them, the counts h_x = M0(p(x)) "
            "are their post-processing",
        ),
    )
    return spec, _compact_estimate(sampler, d0, empty.preimage, n), ""


def audit_histogram_mechanism(
    target: str,
    n: int,
    universe_size: int,
    epsilon: object,
    *,
    delta: object = None,
    beta: object = "1/10",
    counter: str = "fast",
    threshold: int | None = None,
    level: int | None = None,
    gamma: object = None,
    ordered: bool = False,
    split_mixture: bool = False,
    max_paths: int = DEFAULT_MAX_PATHS,
    progress: ProgressSink | None = None,
) -> HistogramReport:
    """Audit one of finitedp's histogram mechanisms exactly over a tiny universe.

    Paper: BV Thm 5.3 (bounded-geometric), Thm 5.5 / 5.6 (stability), Thm 6.11
    (pure-sparse), Thm 8.3 / 8.6 (compact).

    Every dataset of ``n`` rows over ``X = [1, universe_size]`` (one per multiset
    unless ``ordered``) is run against the checker's enumerating oracle, so what is
    audited is the real release code.  The report decides the privacy claim over
    every neighbouring pair, the accuracy claims over every dataset and bin, and
    the oracle-call claims over every path.

    The user-level mechanism is audited unless a paper-layer parameter is given:

    * ``stability`` with ``threshold=b``: BV's ``StabilityHistogram_{M,b}`` (Alg 5.4,
      Thm 5.5) with ``M`` = GeoSample, or FastSample with ``gamma``.  The user-level
      mechanism needs ``n >= b = 1 + ceil(9/(2 eps) ln(2/delta))`` (8 at ``eps = 1``,
      ``delta = 1/2``), feasible only for ``|X| <= 3``.
    * ``compact`` with ``level=l``: ``CompactHistogram_{M,M0}`` (Alg 8.2, Thm 8.3) with
      ``d0 = 2^(2*3^l)`` and ``M`` = GeoSample.  The user-level mechanism's field is
      at least ``GF(2^18)`` and its filler draws would have to be enumerated value by
      value, so it is always refused.

    Args:
        target: one of :data:`HISTOGRAM_TARGETS`.
        n: rows per dataset.
        universe_size: ``|X|``, at least 2.
        epsilon: the budget ``1/k``.
        delta: ``1/k``, for the user-level stability mechanism only.
        beta: the accuracy statement's failure probability; also the mechanism's
            ``beta0`` (pure-sparse: ``beta``), as ``finitedp release`` uses it.
        counter: ``"fast"`` or ``"geo"``.
        threshold: stability only: audit the paper layer with this ``b``.
        level: compact only: audit the paper layer with this field level.
        gamma: FastSample's ``gamma`` for the stability paper layer.
        ordered: enumerate all of ``X^n`` instead of one dataset per multiset.
        split_mixture: pure-sparse only: explore SparseHistogram and the fallback
            separately and combine them as Alg 3.1's mixture (reaches ``n = 2``).
        max_paths: refuse (before any exploration, from an estimate) above this many paths.
        progress: where to report progress.

    Returns:
        A :class:`HistogramReport`; ``report.ok`` says whether every claim holds.

    Raises:
        AuditTooLargeError: the estimated number of paths is above ``max_paths``; the
            message gives the estimate and the sizes known to work.
        ParameterError: a parameter out of range or not applicable to ``target``
            (the message says what to do instead).
        FloatParameterError: a float parameter.
    """
    if target not in HISTOGRAM_TARGETS:
        raise ParameterError(
            f"target: got {target!r}; choose one of {', '.join(HISTOGRAM_TARGETS)}"
        )
    rows, m, limit = _check_sizes(n, universe_size, max_paths)
    b = exact_fraction(beta, "beta")
    _refuse_options(target, delta, threshold, level, gamma, split_mixture)
    hint = ""
    if target == "bounded-geometric":
        spec, estimate = _bounded_geometric(rows, m, epsilon, b, counter, limit)
    elif target == "stability" and threshold is None:
        spec, estimate = _stability_user(rows, m, epsilon, delta, b, counter, limit)
        hint = " Or audit the paper layer with an explicit small threshold: --threshold B."
    elif target == "stability":
        assert threshold is not None
        spec, estimate = _stability_paper(rows, m, epsilon, b, counter, threshold, gamma, limit)
    elif target == "pure-sparse":
        spec, estimate = _pure_sparse(rows, m, epsilon, b, counter, split_mixture, limit)
        if not split_mixture:
            hint = (
                " --split-mixture explores SparseHistogram and the fallback separately "
                "(BV Alg 3.1's law), which reaches n = 2, |X| = 5."
            )
    else:
        spec, estimate, hint = _compact(rows, m, epsilon, b, counter, level, gamma, limit)
    progress = progress or _NoProgress()
    datasets = _enumerate(rows, m, ordered, limit, target)
    progress.phase("estimating the number of paths")
    _refuse_if_large(estimate(datasets), limit, target, rows, m, len(datasets), hint)
    return _run_audit(spec, rows, m, datasets, ordered, limit, progress)


def _refuse_options(
    target: str,
    delta: object,
    threshold: object,
    level: object,
    gamma: object,
    split_mixture: bool,
) -> None:
    if delta is not None and (target != "stability" or threshold is not None):
        why = (
            "the paper layer (--threshold) uses Thm 5.5's delta = 2 Pr[M(1, U) > b]"
            if target == "stability"
            else f"{target} is (eps, 0)-DP"
        )
        raise ParameterError(f"delta: got {delta}; {why}, so omit delta")
    if threshold is not None and target != "stability":
        raise ParameterError("threshold: applies to the stability paper layer only")
    if level is not None and target != "compact":
        raise ParameterError("level: applies to the compact paper layer only")
    if gamma is not None and not (target == "stability" and threshold is not None):
        raise ParameterError(
            "gamma: applies to the stability paper layer only (--threshold with --counter fast); "
            "the user-level mechanisms derive gamma from beta"
        )
    if split_mixture and target != "pure-sparse":
        raise ParameterError("split_mixture: applies to pure-sparse only")


# -- auditing another implementation ----------------------------------------------------


@dataclass(frozen=True)
class ComparisonReport:
    """How a foreign sampler's draws compare with an exact reference distribution.

    Attributes:
        samples: the number of draws ``N``.
        reference: the exact reference PMF (zero entries dropped).
        counts: how often each value was drawn.
        outside: the drawn values outside the reference support, with their counts
            (any is a red flag: the reference gives them probability 0).
        confidence: the confidence level of the bounds.
        tv_estimate: the plug-in estimate ``TV(p_hat, p)``, exact.
        tv_lower: a lower confidence bound on ``TV(q, p)``, ``q`` the sampler's law.
        tv_upper: an upper confidence bound on ``TV(q, p)``.
        cells: ``k``, the cells of the bound: the support and one cell for everything else.
        chi_square: the chi-square statistic over the pooled cells, exact.
        degrees_of_freedom: pooled cells minus one (0: too few samples for the test).
        p_value: the chi-square p-value, a float (display-level; ``None`` without a test).
        description: what was compared with what.
    """

    samples: int
    reference: Mapping[int, Fraction]
    counts: Mapping[int, int]
    outside: Mapping[int, int]
    confidence: Fraction
    tv_estimate: Fraction
    tv_lower: Fraction
    tv_upper: Fraction
    cells: int
    chi_square: Fraction
    degrees_of_freedom: int
    p_value: float | None
    description: str = ""

    @property
    def alpha(self) -> Fraction:
        """``1 - confidence``: the test's level."""
        return 1 - self.confidence

    @property
    def rejected(self) -> bool:
        """Whether the chi-square test rejects the reference at level ``alpha``."""
        return self.p_value is not None and self.p_value < float(self.alpha)

    @property
    def consistent(self) -> bool:
        """No draw outside the support and no rejection by the chi-square test."""
        return not self.outside and not self.rejected

    def render(self) -> str:
        """The report as text: counts and exact statistics first, then decimals."""
        lines = [f"finitedp audit compare: {self.samples:,} draws"]
        if self.description:
            lines.append(f"  {self.description}")
        support = sorted(self.reference)
        lines += [
            f"  reference support: {len(support)} values in [{support[0]}, {support[-1]}]",
            "",
            "    value  Pr[reference]                  draws     frequency",
        ]
        for z in support:
            p, k = self.reference[z], self.counts.get(z, 0)
            exact = str(p) if len(str(p)) <= 24 else f"~{float(p):.9g}"
            lines.append(f"    {z:>5}  {exact:<28} {k:>9}     {k / self.samples:.6f}")
        lines.append("")
        if self.outside:
            shown = ", ".join(f"{z}: {k}" for z, k in sorted(self.outside.items())[:10])
            lines.append(
                f"RED FLAG: {sum(self.outside.values())} draw(s) outside the reference support "
                f"(probability 0 there): {{{shown}}}"
            )
        else:
            lines.append("Draws outside the reference support: none")
        conf = f"{self.confidence}"
        lines += [
            "",
            "Total variation distance TV(sampler, reference):",
            f"  plug-in estimate TV(p_hat, p) = {_exact(self.tv_estimate)} "
            f"(~{float(self.tv_estimate):.6g})",
            f"  with confidence {conf}: TV in [{float(self.tv_lower):.6g}, "
            f"{float(self.tv_upper):.6g}] (Bretagnolle-Huber-Carol, k = {self.cells} cells; "
            f"exact upper bound {_exact(self.tv_upper)})",
            "",
        ]
        if self.p_value is None:
            lines.append(
                "Chi-square goodness of fit: not run (fewer than 2 cells with expected count "
                ">= 5; draw more samples)"
            )
        else:
            lines.append(
                f"Chi-square goodness of fit: X^2 = {_exact(self.chi_square)} "
                f"(~{float(self.chi_square):.6g}), df = {self.degrees_of_freedom} (adjacent "
                f"values pooled to expected counts >= 5), p-value = {self.p_value:.4g} "
                f"(float, display only)"
            )
        lines.append("")
        if self.consistent:
            lines.append(
                f"Verdict: consistent with the reference at level {self.alpha} (this does not "
                f"prove equality: TV may be up to {float(self.tv_upper):.3g})"
            )
        else:
            why = []
            if self.outside:
                why.append("draws outside the support")
            if self.rejected:
                why.append(f"chi-square rejects at level {self.alpha}")
            lines.append(f"Verdict: NOT the reference distribution ({'; '.join(why)})")
        return "\n".join(lines)


def _checked_reference(reference: Mapping[int, object]) -> dict[int, Fraction]:
    if not isinstance(reference, Mapping):
        raise ParameterTypeError(
            f"reference: got a {type(reference).__name__}; give a mapping {{value: Fraction}}"
        )
    pmf: dict[int, Fraction] = {}
    for z, value in reference.items():
        if isinstance(z, bool) or not isinstance(z, int):
            raise ParameterTypeError(f"reference: key {z!r} is not an int")
        p = exact_fraction(value, f"reference[{z}]")
        if p < 0 or p > 1:
            raise ParameterError(f"reference[{z}]: got {p}; a probability lies in [0, 1]")
        if p:
            pmf[z] = p
    total = sum(pmf.values(), Fraction(0))
    if total != 1:
        raise ParameterError(f"reference: the probabilities sum to {total}, not exactly 1")
    return pmf


def _as_draw(value: object, i: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ParameterTypeError(
            f"sampler: draw {i} returned {value!r} (a {type(value).__name__}); the sampler must "
            f"return an int"
        )
    return operator.index(value)


def _ln_upper(x: Fraction) -> Fraction:
    """A rational upper bound on ``ln x`` (``x >= 1``), within ``2^-40``."""
    scale = 1 << 40
    return Fraction(ceil_ln(scale, x), scale)


def _sqrt_upper(x: Fraction) -> Fraction:
    """A rational upper bound on ``sqrt(x)`` (``x >= 0``), within about ``2^-40``."""
    scale = 1 << 40
    square = -(-x.numerator * scale * scale // x.denominator)  # ceil(x * 4^40)
    return Fraction(math.isqrt(square) + 1, scale)


def _chi_square_cells(
    reference: Mapping[int, Fraction], counts: Mapping[int, int], samples: int
) -> list[tuple[Fraction, int]]:
    """``(expected, observed)`` per cell: adjacent values pooled until expected >= 5."""
    cells: list[tuple[Fraction, int]] = []
    expected, observed = Fraction(0), 0
    for z in sorted(reference):
        expected += samples * reference[z]
        observed += counts.get(z, 0)
        if expected >= 5:
            cells.append((expected, observed))
            expected, observed = Fraction(0), 0
    if expected > 0 and cells:
        last_e, last_o = cells.pop()
        cells.append((last_e + expected, last_o + observed))
    return cells


def chi_square_survival(statistic: float, df: int) -> float:
    """``Pr[chi^2_df >= statistic]``, the regularized upper incomplete gamma ``Q(df/2, x/2)``.

    Series for small ``x``, Lentz's continued fraction for large (Numerical Recipes
    6.2); floats, about 14 significant digits: a statistical report, not a privacy
    decision.

    >>> round(chi_square_survival(3.841458820694124, 1), 6)
    0.05
    >>> round(chi_square_survival(18.307038053275146, 10), 6)
    0.05

    Args:
        statistic: the chi-square statistic, at least 0.
        df: the degrees of freedom, at least 1.

    Returns:
        The p-value in ``[0, 1]``.

    Raises:
        ParameterError: ``df < 1`` or a negative statistic.
    """
    if df < 1 or statistic < 0:
        raise ParameterError(f"chi-square: need df >= 1 and statistic >= 0, got {df}, {statistic}")
    a, x = df / 2, statistic / 2
    if x == 0:
        return 1.0
    log_front = -x + a * math.log(x) - math.lgamma(a)
    tiny = 1e-300
    if x < a + 1:
        term = total = 1 / a
        denominator = a
        for _ in range(100_000):
            denominator += 1
            term *= x / denominator
            total += term
            if abs(term) < abs(total) * 1e-16:
                break
        return min(1.0, max(0.0, 1 - total * math.exp(log_front)))
    b = x + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 100_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        step = d * c
        h *= step
        if abs(step - 1) < 1e-16:
            break
    return min(1.0, max(0.0, math.exp(log_front) * h))


def compare(
    sampler: Callable[[], int],
    reference: Mapping[int, Fraction],
    samples: int,
    *,
    confidence: Fraction = Fraction(99, 100),
    description: str = "",
    progress: ProgressSink | None = None,
) -> ComparisonReport:
    """Compare a foreign sampler with an exact reference PMF from its draws.

    The sampler claims to realise ``reference`` (e.g. a clamped discrete Laplace,
    ``GeometricMechanism(n, ratio).pmf(c)`` or ``GeoSample(n, eps).pmf(c)``).  Its
    randomness is its own business: draws are assumed independent.

    The confidence interval on the total-variation distance uses the
    Bretagnolle-Huber-Carol L1 inequality: for ``N`` independent draws of a law
    ``q`` on ``k`` cells, ``Pr[||q_hat - q||_1 >= lambda] <= 2^k exp(-N lambda^2 / 2)``,
    so with probability at least ``confidence = 1 - alpha``, ``|TV(q, p) - TV(q_hat, p)| <=
    lambda / 2 = sqrt((k ln 2 + ln(1/alpha)) / (2N))``.  The cells are the reference's
    support and one cell for every other value: ``p`` gives the latter probability 0,
    so lumping them together leaves ``TV(q, p)`` unchanged and the bound holds
    whatever the sampler outputs.  ``ln`` and ``sqrt`` are bounded by exact rationals.

    The goodness-of-fit test is Pearson's chi-square over the support, adjacent values
    pooled until each cell expects at least 5 draws; the statistic is an exact
    ``Fraction``, its p-value (:func:`chi_square_survival`) a float, acceptable for a
    statistical report (no privacy decision depends on it).  Any draw outside the
    reference support is reported separately as a red flag: it has probability 0.

    Args:
        sampler: called with no arguments, returns an int.
        reference: ``{value: probability}``, exact, summing to exactly 1.
        samples: the number of draws ``N``.
        confidence: the confidence of the TV bounds; ``1 - confidence`` is the test's level.
        description: a line for the report (what is compared with what).
        progress: where to report progress.

    Returns:
        A :class:`ComparisonReport`; ``report.consistent`` says whether nothing was flagged.

    Raises:
        ParameterError: ``samples < 1``, ``confidence`` outside ``(0, 1)``, or a reference
            that is not an exact distribution.
        ParameterTypeError: the sampler returned something other than an int.
    """
    n_samples = check_positive_int(samples, "samples")
    level = exact_fraction(confidence, "confidence")
    if not 0 < level < 1:
        raise ParameterError(f"confidence: got {level}; it must lie in (0, 1)")
    pmf = _checked_reference(reference)
    sink = progress or _NoProgress()
    sink.phase(f"drawing {n_samples:,} samples", total=n_samples)
    counts: dict[int, int] = {}
    batch = 0
    for i in range(n_samples):
        z = _as_draw(sampler(), i)
        counts[z] = counts.get(z, 0) + 1
        batch += 1
        if batch == 4096:
            sink.advance(batch)
            batch = 0
    sink.advance(batch)
    outside = {z: k for z, k in counts.items() if z not in pmf}
    gap = sum((abs(Fraction(counts.get(z, 0), n_samples) - p) for z, p in pmf.items()), Fraction(0))
    tv = (gap + Fraction(sum(outside.values()), n_samples)) / 2
    cells = len(pmf) + 1
    alpha = 1 - level
    radius = _sqrt_upper((cells * _ln_upper(Fraction(2)) + _ln_upper(1 / alpha)) / (2 * n_samples))
    pooled = _chi_square_cells(pmf, counts, n_samples)
    statistic = sum(((k - e) ** 2 / e for e, k in pooled), Fraction(0))
    df = len(pooled) - 1
    p_value = chi_square_survival(float(statistic), df) if df >= 1 else None
    return ComparisonReport(
        samples=n_samples,
        reference=pmf,
        counts=counts,
        outside=outside,
        confidence=level,
        tv_estimate=tv,
        tv_lower=max(Fraction(0), tv - radius),
        tv_upper=min(Fraction(1), tv + radius),
        cells=cells,
        chi_square=statistic,
        degrees_of_freedom=max(df, 0),
        p_value=p_value,
        description=description,
    )


def load_callable(spec: str) -> Callable[[], Any]:
    """The callable named ``MODULE:NAME`` (``NAME`` may be dotted: ``pkg.mod:obj.method``).

    Args:
        spec: ``IMPORT.PATH:CALLABLE``.

    Returns:
        The object, checked to be callable.

    Raises:
        ParameterError: a malformed spec, a module that cannot be imported, a missing
            attribute, or an object that is not callable.
    """
    module_name, colon, attribute = spec.partition(":")
    if not colon or not module_name or not attribute:
        raise ParameterError(
            f"sampler: got {spec!r}; write IMPORT.PATH:CALLABLE, e.g. mypackage.noise:draw"
        )
    try:
        found: Any = importlib.import_module(module_name)
    except ImportError as error:
        raise ParameterError(f"sampler: cannot import {module_name!r}: {error}") from None
    for part in attribute.split("."):
        try:
            found = getattr(found, part)
        except AttributeError:
            raise ParameterError(
                f"sampler: {module_name!r} has no attribute {attribute!r}"
            ) from None
    if not callable(found):
        raise ParameterError(f"sampler: {spec} is a {type(found).__name__}, not a callable")
    return found  # type: ignore[no-any-return]
