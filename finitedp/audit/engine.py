"""The exact engine of histogram audits: enumerate, measure, decide.

Paper: BV Def 2.1 (neighbours differ in one row), Defs 2.5-2.7 (accuracy).
:func:`run_plan` explores a plan (:class:`~finitedp.checker.plan.AuditPlan`)
on every dataset, then decides its privacy claim over every neighbouring pair
(pure: the exact worst ratio; approximate: exact bounds on the hockey-stick
``delta`` at ``e^eps``), its accuracy claims over every dataset and bin, and its
oracle-call claims over every path.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from ..checker.histogram import neighbouring_pairs, stream_pairs
from ..checker.measures import INFINITY, Ratio
from ..checker.plan import (
    AccuracyClaim,
    AuditPlan,
    Dataset,
    Explored,
    exact_text,
    sum_exact,
    true_counts,
)
from ..exactmath import compare_exp, exp_bounds
from ..guarantees import Privacy
from ..resources import TIME_ENV, describe_seconds, max_seconds
from .report import (
    AccuracyFinding,
    AuditTooLargeError,
    Claim,
    HistogramReport,
    ProgressSink,
    runs_text,
)

__all__ = ["run_plan"]


def _count_law(
    law: Mapping[Any, Fraction], counts: Callable[[Any], tuple[int | Fraction, ...]]
) -> dict[tuple[int | Fraction, ...], Fraction]:
    grouped: dict[tuple[int | Fraction, ...], list[Fraction]] = {}
    for release, p in law.items():
        grouped.setdefault(counts(release), []).append(p)
    return {v: sum_exact(ps) for v, ps in grouped.items()}


def _ceil(x: int | Fraction) -> int:
    return -(-x // 1)


def _accuracy_findings(
    claims: Sequence[AccuracyClaim],
    count_laws: Mapping[Dataset, Mapping[tuple[int | Fraction, ...], Fraction]],
    n: int,
    m: int,
) -> tuple[list[AccuracyFinding], int]:
    """Decide each accuracy claim exactly from the law of the counts of every dataset.

    Returns:
        The findings, and the largest error any release can show (``n`` for counts).
    """
    # errors[D][x][e] = Pr[ceil |h_x - c_x| = e]; worst[D][e] = Pr[ceil max_x |h_x - c_x| = e],
    # accumulated as integer numerators over the law's common denominator.  Counts
    # lie in [0, n], so gaps are at most n; an estimate (ALP: a Fraction) may lie
    # further out, and |h - c| <= a for an integer a is ceil |h - c| <= a.
    errors: dict[Dataset, list[list[Fraction]]] = {}
    worst: dict[Dataset, list[Fraction]] = {}
    top = n
    for data, law in count_laws.items():
        true = true_counts(data, m)
        for vector in law:
            for h, c in zip(vector, true, strict=True):
                gap: int | Fraction = h - c if h >= c else c - h
                top = max(top, _ceil(gap))
    for data, law in count_laws.items():
        true = true_counts(data, m)
        den, scaled = _over_common_denominator(law)
        per_bin = [[0] * (top + 1) for _ in range(m)]
        overall = [0] * (top + 1)
        for vector, k in scaled.items():
            gaps = [_ceil(abs(h - c)) for h, c in zip(vector, true, strict=True)]
            for x, gap in enumerate(gaps):
                per_bin[x][gap] += k
            overall[max(gaps)] += k
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
            true = true_counts(data, m)
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
            a for a in range(top + 1) if all(within(table, a) >= need for _, _, table in cases)
        )
        findings.append(AccuracyFinding(claim, achieved, where, tightest))
    return findings, top


def _accuracy_claim(finding: AccuracyFinding, n: int, top: int) -> Claim:
    claim = finding.claim
    if finding.achieved is None:
        evidence = f"vacuous here: no dataset of n = {n} rows has a count above {claim.threshold}"
    else:
        assert finding.worst is not None
        data, x = finding.worst
        at = f"D = {data}" + ("" if x is None else f", x = {x}")
        evidence = f"achieved {exact_text(finding.achieved)} (worst at {at}); tightest a = "
        evidence += f"{finding.tightest}"
        if claim.a >= top == n:
            evidence += f" (a >= n = {n}: every count is within a, the claim is trivial here)"
        elif claim.a >= top:
            evidence += f" (a >= {top}, the largest error any release shows: trivial here)"
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
        f"worst ratio {exact_text(ratio)} at D = {pair[0]}, D' = {pair[1]}",
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
        f"exact delta at e^({eps}) lies in [{exact_text(lower)}, {exact_text(upper)}] "
        f"(hockey-stick "
        f"divergences at rational bounds of e^({eps}) within 2^-{precision}; worst pair "
        f"D = {pair[0]}, D' = {pair[1]}){verdict}",
        holds,
    )
    return claim, (lower, upper), pair


def _reorderings(datasets: Sequence[Dataset], count: int = 3) -> list[tuple[Dataset, Dataset]]:
    """Up to ``count`` (sorted representative, a reordering of it) pairs to spot-check."""
    varied = sorted(datasets, key=lambda d: (-len(set(d)), d))
    return [(d, tuple(reversed(d))) for d in varied[:count] if len(set(d)) > 1]


def _refuse_if_slow(spec: AuditPlan, paths: int, explored: int, datasets: int) -> None:
    """Refuse once the paths seen, projected over every dataset, pass the time budget.

    A projection from counted paths, never from a clock: the same instance is
    refused at the same dataset on every machine.
    """
    projected = paths * datasets // explored
    seconds = Fraction(projected * spec.path_microseconds, 10**6)
    budget = max_seconds()
    if seconds > budget:
        raise AuditTooLargeError(
            f"after {explored} of {datasets} datasets ({paths:,} paths) the enumeration is "
            f"projected at about {projected:,} paths, {describe_seconds(seconds)} at "
            f"{spec.path_microseconds} microseconds a path, above the time budget of "
            f"{describe_seconds(budget)}; audit a smaller instance ({spec.hint or 'smaller n'}) "
            f"or raise the budget with {TIME_ENV}"
        )


def run_plan(
    spec: AuditPlan,
    n: int,
    m: int,
    datasets: list[Dataset],
    ordered: bool,
    max_paths: int,
    progress: ProgressSink,
) -> HistogramReport:
    """Enumerate, measure and decide every claim of ``spec``."""
    counts = spec.counts or (lambda release: tuple(release[x] for x in range(1, m + 1)))
    explored: dict[Dataset, Explored] = {}
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
        _refuse_if_slow(spec, total, len(explored), len(datasets))
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
    pairs = stream_pairs(datasets) if spec.streams else neighbouring_pairs(datasets)
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
    findings, top = _accuracy_findings(spec.accuracy, count_laws, n, m)
    claims += [_accuracy_claim(finding, n, top) for finding in findings]
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
                + ", ".join(runs_text(t) for t in sorted(traces)[:3]),
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
