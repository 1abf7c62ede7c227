"""Comparing another implementation's sampler with an exact distribution (statistics).

:func:`compare` draws from a *foreign* sampler that claims to realise one of
finitedp's exact distributions and reports the estimated total-variation
distance with a rigorous confidence bound and a chi-square goodness-of-fit test.
This is statistics, not a privacy proof.
"""

from __future__ import annotations

import importlib
import math
import numbers
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..checker.plan import exact_text
from ..errors import ParameterError, ParameterTypeError
from ..exactmath import ceil_ln
from ..params import check_positive_int, exact_fraction, short_int
from .report import NoProgress, ProgressSink

__all__ = ["ComparisonReport", "chi_square_survival", "compare", "load_callable"]


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
        """Whether the chi-square test rejects the reference at level ``alpha``.

        A float test, said as such in the report: the statistic is exact, but its
        p-value comes from a floating-point incomplete gamma (about 14 digits).
        That is adequate for a statistical verdict about a foreign sampler, which
        is uncertain anyway; no privacy claim of finitedp is decided this way.
        """
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
            exact = exact_text(p)
            exact = exact if len(exact) <= 24 else f"~{float(p):.9g}"
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
            f"  plug-in estimate TV(p_hat, p) = {exact_text(self.tv_estimate)} "
            f"(~{float(self.tv_estimate):.6g})",
            f"  with confidence {conf}: TV in [{float(self.tv_lower):.6g}, "
            f"{float(self.tv_upper):.6g}] (Bretagnolle-Huber-Carol, k = {self.cells} cells; "
            f"exact upper bound {exact_text(self.tv_upper)})",
            "",
        ]
        if self.p_value is None:
            lines.append(
                "Chi-square goodness of fit: not run (fewer than 2 cells with expected count "
                ">= 5; draw more samples)"
            )
        else:
            lines.append(
                f"Chi-square goodness of fit: X^2 = {exact_text(self.chi_square)} "
                f"(~{float(self.chi_square):.6g}), df = {self.degrees_of_freedom} (adjacent "
                f"values pooled to expected counts >= 5), p-value = {self.p_value:.4g} "
                f"(computed in floating point, and the verdict below uses it: a statistical "
                f"test, not an exact decision)"
            )
        lines.append("")
        if self.consistent:
            lines.append(
                f"Verdict (statistical): consistent with the reference at level {self.alpha} "
                f"(this does not "
                f"prove equality: TV may be up to {float(self.tv_upper):.3g})"
            )
        else:
            why = []
            if self.outside:
                why.append("draws outside the support")
            if self.rejected:
                why.append(f"chi-square rejects at level {self.alpha}")
            lines.append(
                f"Verdict (statistical): NOT the reference distribution ({'; '.join(why)})"
            )
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


#: The most draws ``compare`` makes: each is a call of user code (about 10^7 a minute).
MAX_SAMPLES = 10**8

#: The largest draw a compared sampler may return (its value is rendered in the report).
MAX_DRAW_BITS = 4096


def _failure(error: BaseException) -> str:
    """``TypeName: message`` of user code's exception, its message abbreviated."""
    text = str(error)
    if len(text) > 200:
        text = text[:200] + "..."
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _shown(value: object) -> str:
    """``repr(value)`` for a message, at most 80 characters (user objects may fail it)."""
    try:
        text = repr(value)
    except Exception:  # user code's repr may fail
        return f"a {type(value).__name__}"
    return text if len(text) <= 80 else text[:77] + "..."


def _draw(sampler: Callable[[], Any], i: int) -> int:
    """One draw of user code: any exception (``SystemExit`` included) is an input error."""
    try:
        value = sampler()
    except (Exception, SystemExit) as error:
        raise ParameterError(f"sampler: draw {i} raised {_failure(error)}") from None
    return _as_draw(value, i)


def _as_draw(value: object, i: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ParameterTypeError(
            f"sampler: draw {i} returned {_shown(value)} (a {type(value).__name__}); the "
            f"sampler must return an int"
        )
    z = operator.index(value)
    if z.bit_length() > MAX_DRAW_BITS:
        raise ParameterError(
            f"sampler: draw {i} returned {short_int(z)}; draws of more than {MAX_DRAW_BITS} "
            f"bits are refused (no reference distribution has such values)"
        )
    return z


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
    if n_samples > MAX_SAMPLES:
        raise ParameterError(
            f"samples: got {short_int(n_samples)}; at most {MAX_SAMPLES:,} draws (one Python "
            f"call each: about a minute per 10^7 draws, so 10^8 take some 10 minutes)"
        )
    level = exact_fraction(confidence, "confidence")
    if not 0 < level < 1:
        raise ParameterError(f"confidence: got {level}; it must lie in (0, 1)")
    pmf = _checked_reference(reference)
    sink = progress or NoProgress()
    sink.phase(f"drawing {n_samples:,} samples", total=n_samples)
    counts: dict[int, int] = {}
    batch = 0
    for i in range(n_samples):
        z = _draw(sampler, i)
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
    except (Exception, SystemExit) as error:  # user code: any failure is reported as such
        raise ParameterError(
            f"sampler: importing {module_name!r} failed: {_failure(error)}"
        ) from None
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
