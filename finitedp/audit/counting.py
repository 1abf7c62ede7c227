"""Audit of a counting-query sampler: every count, explored exactly.

Paper: BV Thm 4.7 (GeoSample), Thm 4.10 (FastSample).  A sampler with budget
``eps`` is claimed ``(eps/2, 0)``-DP between neighbouring counts ``c`` and
``c + 1`` (BV's histograms replace one row, which moves two counts).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import isqrt

from ..checker.counting import CountingAudit, audit_counting
from ..checker.measures import INFINITY
from ..checker.plan import exact_text
from ..counting.base import CountingSampler
from ..errors import CheckerLimitError
from ..exactmath import compare_exp
from ..params import exact_fraction, short_int
from .report import Claim

__all__ = [
    "DEFAULT_MAX_COUNTING_PATHS",
    "CountingReport",
    "audit_counting_sampler",
    "counting_paths",
]


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
                cells = ", ".join(f"{z}: {exact_text(p)}" for z, p in sorted(dist.items()))
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
    found = f"max ratio over neighbouring counts = {exact_text(ratio)} (at c = {c0}, {c1})"
    half = sampler.epsilon / 2
    within = ratio is not INFINITY and compare_exp(Fraction(ratio), half) <= 0  # type: ignore[arg-type]
    claims = [Claim(f"(eps/2, 0)-DP for counting queries: ratio <= e^({half})", found, within)]
    bound = getattr(sampler, "privacy_ratio", None)
    if bound is not None:
        claims.append(Claim(f"ratio <= b/a = {bound} exactly", found, ratio <= bound))
    return claims


#: The most paths a counting audit explores unless told otherwise (about 20 s).
DEFAULT_MAX_COUNTING_PATHS = 300_000


def counting_paths(sampler: CountingSampler) -> int:
    """The paths an audit explores: one per output of positive probability per count.

    Every output in ``[0, n]`` has positive probability under GeoSample and
    FastSample (the geometric noise and the uniform mixture reach all of them),
    so the number is ``(n + 1)^2``, known before any work.
    """
    return (sampler.n + 1) ** 2


def audit_counting_sampler(
    sampler: CountingSampler, beta: object = "1/10", *, max_paths: int = DEFAULT_MAX_COUNTING_PATHS
) -> CountingReport:
    """Audit a GeoSample or FastSample exactly over all counts ``c`` in ``[0, n]``.

    Paper: BV Thm 4.7 i/iv (GeoSample), Thm 4.10 i/ii/v (FastSample).

    Args:
        sampler: the sampler to audit; its ``n`` sets the work (``n + 1``
            explorations of ``n + 1`` paths each).
        beta: the failure probability for the accuracy claim.
        max_paths: refuse (before any work) an audit of more paths than this.

    Returns:
        A :class:`CountingReport`; ``report.ok`` says whether every claim holds.

    Raises:
        CheckerLimitError: ``(n + 1)^2`` paths are above ``max_paths``.
        ParameterError: ``beta`` out of the sampler's range.
    """
    a = sampler.accuracy(beta)  # type: ignore[attr-defined]  # before the work: beta may be bad
    b = exact_fraction(beta, "beta")
    paths = counting_paths(sampler)
    if paths > max_paths:
        raise CheckerLimitError(
            f"n: got {sampler.n}; an exact audit explores (n + 1)^2 = {paths:,} paths, above "
            f"the limit of {max_paths:,} (about n = {isqrt(max_paths) - 1}); use a smaller n "
            f"or raise the limit (--max-paths)"
        )
    audit = audit_counting(sampler)
    achieved = audit.worst_accuracy(a)
    claims = [
        *_privacy_claims(sampler, audit),
        Claim(
            f"({a}, {b})-accuracy: min_c Pr[|M(c, U) - c| <= {a}] >= {1 - b}",
            f"achieved {exact_text(achieved)}",
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
