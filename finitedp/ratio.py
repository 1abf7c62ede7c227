"""The ratio of the geometric noise: BV's ``2^k/(2^k+1)`` or a tight rational.

Paper: BV Thm 4.7 (``eps~ = 2 ln(1 + 2^-k)``, ``k = ceil(log(2/eps))``), Alg 4.8.

The clamped two-sided geometric distribution with ratio ``alpha = a/b < 1``
has probabilities proportional to ``alpha^|z - c|``; it is
``ln(b/a)``-differentially private for counting queries.  BV fix
``a = 2^k, b = 2^k + 1`` so that ``e^(eps~/2) = 1 + 2^-k``, spending between
half and all of the budget ``eps/2`` (BV state the looser 4/9).  The *tight*
ratio is any rational with ``e^(-eps/2) <= alpha`` (decided exactly) and
``ln(1/alpha) >= (1 - slack) eps/2``: among those we take the one with the
smallest denominator, because the samplers' integers grow like ``n log b``.

>>> GeometricRatio.paper(Fraction(1, 10))
GeometricRatio(a=32, b=33, k=5)
>>> GeometricRatio.tight(Fraction(1, 10))
GeometricRatio(a=59, b=62, k=None)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from .errors import ParameterError
from .exactmath import ceil_log, compare_exp, exp_bounds, simplest_between
from .params import exact_fraction, inverse_natural, positive_fraction, short_fraction

__all__ = ["DEFAULT_SLACK", "MAX_TIGHT_EPSILON", "GeometricRatio", "resolve_noise"]

#: Default share of the budget a tight ratio may leave unused (1%).
DEFAULT_SLACK = Fraction(1, 100)


@dataclass(frozen=True)
class GeometricRatio:
    """The noise ratio ``alpha = a/b`` of a clamped geometric; ``k`` is set in BV's paper mode.

    Attributes:
        a: numerator of ``alpha``.
        b: denominator of ``alpha``; ``b/a = e^(eps~/2)`` is the per-count privacy ratio.
        k: BV's exponent when ``a = 2^k, b = 2^k + 1``; ``None`` for a tight ratio.
    """

    a: int
    b: int
    k: int | None = None

    def __post_init__(self) -> None:
        if not 0 < self.a < self.b:
            raise ParameterError(f"ratio: need 0 < a < b, got a = {self.a}, b = {self.b}")

    @property
    def alpha(self) -> Fraction:
        """The geometric ratio ``a/b`` in ``(0, 1)``."""
        return Fraction(self.a, self.b)

    @property
    def exp_epsilon(self) -> Fraction:
        """``b/a = e^(eps~/2)``: the exact privacy ratio between neighbouring counts."""
        return Fraction(self.b, self.a)

    @property
    def mode(self) -> str:
        """``"paper"`` for BV's ``2^k/(2^k+1)``, ``"tight"`` otherwise."""
        return "paper" if self.k is not None else "tight"

    @classmethod
    def paper(cls, epsilon: Fraction) -> GeometricRatio:
        """BV's ratio: ``k = ceil(log2(2/eps))``, ``alpha = 2^k / (2^k + 1)`` (Alg 4.8 step 1)."""
        k = ceil_log(2 / epsilon, 2)
        return cls(1 << k, (1 << k) + 1, k)

    @classmethod
    def tight(cls, epsilon: Fraction, slack: Fraction = DEFAULT_SLACK) -> GeometricRatio:
        """The simplest ``a/b`` in ``[e^(-eps/2), e^(-(1 - slack) eps/2)]``, to ``2^-precision``.

        The search runs on a rational interval just inside the true one (its ends
        are rational bounds of the irrational ends, a few ``2^-64`` apart), so a
        simpler fraction could only be missed if it sat that close to an end; the
        privacy side ``alpha >= e^(-eps/2)`` is then re-decided exactly.

        Args:
            epsilon: any positive rational; the sampler is ``eps/2``-DP per count.
            slack: the share of ``eps/2`` that may go unused, in ``(0, 1)``.
        """
        if not 0 < slack < 1:
            raise ParameterError(f"slack: got {slack}; it must lie in (0, 1)")
        half = epsilon / 2
        precision = 64 + ceil_log(1 / (slack * half), 2) if slack * half < 1 else 64
        while True:
            # Inner rational bounds of the true interval, so any point between them is inside it.
            low = exp_bounds(-half, precision)[1]
            high = exp_bounds(-(1 - slack) * half, precision)[0]
            if low <= high:
                break
            precision *= 2
        alpha = simplest_between(low, high)
        ratio = cls(alpha.numerator, alpha.denominator)
        if compare_exp(ratio.exp_epsilon, half) > 0:  # pragma: no cover - guarded by construction
            raise AssertionError(f"tight ratio {alpha} exceeds the budget eps/2 = {half}")
        return ratio


#: The largest budget tight mode accepts (e^(-32) is about 10^-14 already).
MAX_TIGHT_EPSILON = 64


def check_epsilon(epsilon: object, noise: str) -> Fraction:
    """``epsilon`` validated for the noise mode: ``1/m`` for ``"paper"`` (BV's ``N^-1``),
    any positive rational up to :data:`MAX_TIGHT_EPSILON` for ``"tight"``.

    Raises:
        ParameterError: ``noise`` is neither, or ``epsilon`` is out of its range.
    """
    if noise == "paper":
        return inverse_natural(epsilon, "epsilon")
    if noise == "tight":
        eps = positive_fraction(epsilon, "epsilon")
        if eps > MAX_TIGHT_EPSILON:
            raise ParameterError(
                f"epsilon: got {short_fraction(eps)}; tight noise takes epsilon up to "
                f"{MAX_TIGHT_EPSILON} (the exact search for the ratio brackets e^(-eps/2), "
                f"whose series grows with eps; such budgets protect nothing anyway)"
            )
        return eps
    raise ParameterError(f'noise: got {noise!r}; use "paper" (BV, the default) or "tight"')


def resolve_noise(epsilon: object, noise: str, slack: object) -> tuple[Fraction, GeometricRatio]:
    """Validate ``epsilon`` for the chosen noise mode and pick the ratio.

    Paper mode (BV) needs ``eps`` in ``N^-1``; tight mode accepts any positive rational.

    Raises:
        ParameterError: ``noise`` is not ``"paper"`` or ``"tight"``, or a value is out of range.
    """
    eps = check_epsilon(epsilon, noise)
    if noise == "paper":
        return eps, GeometricRatio.paper(eps)
    return eps, GeometricRatio.tight(eps, exact_fraction(slack, "slack"))
