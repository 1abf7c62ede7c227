"""Audits of histogram mechanisms over every dataset of a tiny universe.

Paper: BV Thm 5.3 (bounded-geometric), Thm 5.5 / 5.6 (stability), Thm 6.11
(pure-sparse), Thm 8.3 / 8.6 (compact), and any mechanism through
:func:`audit_histogram`.  Neighbours replace one row (BV Def 2.1).  The
mechanisms are found in :data:`finitedp.registry.MECHANISMS`: each entry's
``audit`` says how to explore it (its plan), which options it takes, and the
sizes known to work.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from ..checker.histogram import all_datasets, all_multisets, all_streams
from ..checker.plan import (
    AccuracyClaim,
    AuditPlan,
    AuditRequest,
    Dataset,
    claims_of,
    explorer,
)
from ..checker.symbolic import DEFAULT_LIMIT
from ..errors import ParameterError
from ..guarantees import Accuracy, Privacy
from ..oracle import RandomSource
from ..params import check_positive_int, exact_fraction
from ..registry import MECHANISMS
from .engine import run_plan
from .report import AuditTooLargeError, HistogramReport, NoProgress, ProgressSink

__all__ = [
    "DEFAULT_MAX_PATHS",
    "HISTOGRAM_TARGETS",
    "KNOWN_SIZES",
    "audit_histogram",
    "audit_histogram_mechanism",
]

#: The most paths (leaves of the checker's enumeration, over all datasets) an
#: audit explores unless told otherwise.  Measured at 50 to 150 microseconds a
#: path on one core (the mechanism is re-run for every path), so about 15 to 45 s.
DEFAULT_MAX_PATHS = 300_000

#: The user-level mechanisms ``finitedp audit`` knows, by command-line name.
HISTOGRAM_TARGETS = tuple(name for name, entry in MECHANISMS.items() if entry.audit is not None)

#: Instances measured to work, by target (from each mechanism's registry entry).
KNOWN_SIZES: dict[str, str] = {
    name: entry.audit.known_sizes for name, entry in MECHANISMS.items() if entry.audit is not None
}


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


def _enumerate(
    n: int, m: int, ordered: bool, max_paths: int, what: str, streams: bool = False
) -> list[Dataset]:
    """Every dataset to explore, refused (before it is built) above ``max_paths``.

    ``streams``: every sequence of 0 to ``n`` elements (add/remove neighbours).
    """
    if streams:
        count, kind = sum(m**j for j in range(n + 1)), f"streams of at most {n} elements"
    else:
        count = _dataset_count(n, m, ordered)
        kind = f"{'datasets' if ordered else 'multisets'} of n = {n} rows"
    if count > max_paths:
        raise AuditTooLargeError(
            f"{what}: {count:,} {kind} over |X| = {m}, each with at least one path, is above "
            f"the limit of {max_paths:,} paths"
        )
    if streams:
        return all_streams(n, m)
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
    claims = claims_of(accuracy) if isinstance(accuracy, Accuracy) else tuple(accuracy or ())
    spec = AuditPlan(
        title=title or repr(release),
        description=(f"claimed privacy: {privacy}",),
        explore=explorer(release, max(limit, DEFAULT_LIMIT)),
        privacy=privacy,
        privacy_source="claimed",
        accuracy=claims,
        max_calls=max_oracle_calls,
        counts=counts,
    )
    datasets = _enumerate(rows, m, ordered, limit, "audit")
    return run_plan(spec, rows, m, datasets, ordered, limit, progress or NoProgress())


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


def audit_histogram_mechanism(
    target: str,
    n: int,
    universe_size: int,
    epsilon: object,
    *,
    beta: object = "1/10",
    counter: str = "fast",
    ordered: bool = False,
    max_paths: int = DEFAULT_MAX_PATHS,
    progress: ProgressSink | None = None,
    **options: Any,
) -> HistogramReport:
    """Audit one of finitedp's user-level histogram mechanisms exactly over a tiny universe.

    Paper: BV Thm 5.3 (bounded-geometric), Thm 5.5 / 5.6 (stability), Thm 6.11
    (pure-sparse), Thm 8.3 / 8.6 (compact): each mechanism's registry entry says
    which (``MECHANISMS[target].audit``).

    Every dataset of ``n`` rows over ``X = [1, universe_size]`` (one per multiset
    unless ``ordered``) is run against the checker's enumerating oracle, so what is
    audited is the real release code.  The report decides the privacy claim over
    every neighbouring pair (datasets that differ in one row), the accuracy claims
    over every dataset and bin, and the oracle-call claims over every path.

    A target's own options select its paper layer or its way of exploring: for
    ``stability``, ``delta`` (user level, BV Thm 5.6) or ``threshold`` and ``gamma``
    (the paper layer ``StabilityHistogram_{M,b}``, Thm 5.5); for ``compact``,
    ``level`` (the paper layer in ``GF(2^(2*3^level))``, Thm 8.3; the user level's
    field is too large to enumerate and is refused); for ``pure-sparse``,
    ``split_mixture``.

    Args:
        target: one of :data:`HISTOGRAM_TARGETS`.
        n: rows per dataset.
        universe_size: ``|X|``, at least 2.
        epsilon: the budget ``1/k``.
        beta: the accuracy statement's failure probability; also the mechanism's
            ``beta0`` (pure-sparse: ``beta``), as ``finitedp release`` uses it.
        counter: ``"fast"`` or ``"geo"``.
        ordered: enumerate all of ``X^n`` instead of one dataset per multiset.
        max_paths: refuse (before any exploration, from an estimate) above this many paths.
        progress: where to report progress.
        **options: the target's own options (``None`` means not given).

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
    audit = MECHANISMS[target].audit
    assert audit is not None
    known = {option.name for option in audit.options}
    for name, value in options.items():
        if value is not None and value is not False and name not in known:
            takes = ", ".join(sorted(known)) or "no options of its own"
            raise ParameterError(f"{name}: does not apply to {target} (its audit takes {takes})")
    rows, m, limit = _check_sizes(n, universe_size, max_paths)
    request = AuditRequest(
        rows, m, epsilon, exact_fraction(beta, "beta"), counter, limit, dict(options)
    )
    plan = audit.plan(request)
    progress = progress or NoProgress()
    ordered = ordered or plan.streams  # a stream's order matters
    datasets = _enumerate(rows, m, ordered, limit, target, streams=plan.streams)
    if plan.estimate is not None:
        progress.phase("estimating the number of paths")
        estimate = plan.estimate(datasets)
        _refuse_if_large(estimate, limit, target, rows, m, len(datasets), plan.hint)
    return run_plan(plan, rows, m, datasets, ordered, limit, progress)
