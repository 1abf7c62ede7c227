"""PLAN's public arithmetic: rational budgets, integer scales, norm bounds, clipping levels.

Paper: Lebeda thesis Alg 17 (Lines 4-8) and Listing 5.1; proofs_notes/plan.md.

Every function here is a deterministic function of public values (the budgets,
the grid, the earlier private outputs) or of *one* row, so none of it costs
privacy; it decides only accuracy, and each rounding goes the safe way for the
one bound privacy needs: a clipped row's norm is at most ``K`` grid units.

* :func:`budget_epsilon`: the pure ``eps`` whose zCDP (``eps^2/8`` bounded-range,
  ``eps^2/2`` otherwise) is at most a share ``rho'``.
* :func:`integer_scales`: ``P_i ∝ tau_i^(-2/(p+2))`` as integers in ``[1, 2^Q]``
  (Line 4's ``Sigma^(-1/(p+2))``, with ``tau_i`` a standard-deviation estimate).
* :func:`norm_bounds`: ``N_j = ceil(||w_j||_2)`` per row, exactly (int64 numpy and
  one Python integer per row).
* :func:`clip_levels`: the geometric grid of clipping radii (Line 6's quantile), and
  :func:`level_count`, how many levels reach from the largest norm down to 1.
* :func:`binary_variances`: Section 5.7.1's binary spreads from the private column sums.
* :func:`clipped_sum`: Line 8's ``sum_j min(C/||y_j||, 1) y_j`` on a grid of ``C/K``,
  every row of norm at most ``K`` units (exactly, in integers).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from math import isqrt

import gmpy2
import numpy as np

from ..errors import ParameterError
from ..params import check_positive_int, exact_fraction, short_fraction, short_int
from ..resources import require_time
from ..selection.grid import Grid
from ..statistics import ceil_sqrt, level_of, norm_bounds, rounded

__all__ = [
    "MAX_CLIP_COUNT",
    "SCALE_BITS",
    "binary_variances",
    "budget_epsilon",
    "ceil_sqrt",
    "clip_grid",
    "clip_levels",
    "clip_margin",
    "clip_rows",
    "clipped_sum",
    "gap_levels",
    "index_rows",
    "integer_scales",
    "kept_within",
    "level_count",
    "level_of",
    "norm_bounds",
    "sqrt_floor",
]

#: ``|w_i| = |k_i - m_i| P_i < 2^SCALE_BITS``: the scaled rows fit int64 with room.
SCALE_BITS = 40


def sqrt_floor(x: Fraction, bits: int = 64) -> Fraction:
    """A rational ``<= sqrt(x)`` within ``2^-bits`` relative (``x >= 0``).

    >>> sqrt_floor(Fraction(2), 8)
    Fraction(181, 128)
    """
    if x <= 0:
        return Fraction(0)
    shift = 2 * bits
    return Fraction(isqrt((x.numerator << shift) // x.denominator), 1 << bits)


def binary_variances(sums: Sequence[Fraction], grid: Grid, d: int, n: int) -> list[Fraction]:
    """``(q - lower)(upper - q)`` for each column mean ``q = sum/n``, ``q`` first clamped to
    ``d^(-2/5)`` of the range from either end (Section 5.7.1; the authors' ``plan_binary``
    clamps the same way): a near-empty column keeps a spread of that order.

    >>> binary_variances([Fraction(0), Fraction(5)], Grid(0, 1), 32, 10)
    [Fraction(3, 16), Fraction(1, 4)]
    """
    width = grid.upper - grid.lower
    edge = width / max(4, int(gmpy2.iroot(gmpy2.mpz(d * d), 5)[0]))
    low, high = grid.lower + edge, grid.upper - edge
    means = [min(max(e / n, low), high) for e in sums]
    return [(q - grid.lower) * (grid.upper - q) for q in means]


def budget_epsilon(rho: Fraction, bounded_range: bool) -> Fraction:
    """The pure ``eps`` with zCDP below ``rho``: ``sqrt(8 rho)`` or ``sqrt(2 rho)``, rounded down.

    The ``1 - 2^-20`` guard leaves room for the accountant's certified logarithm
    of the mechanism's exact ratio (an upper bound a hair above ``eps``).

    >>> budget_epsilon(Fraction(1, 8), True) < 1 <= budget_epsilon(Fraction(1, 8), True) * 2
    True
    """
    x = (8 if bounded_range else 2) * rho
    eps = sqrt_floor(x, 64 + x.denominator.bit_length())  # 64 bits below sqrt(x) however small
    return eps * (1 - Fraction(1, 1 << 20))


#: The largest error norm ``p`` PLAN targets.
MAX_P = 64


def check_exponent(p: object) -> int:
    """PLAN's ``p``: a positive int of at most :data:`MAX_P`.

    The scales' ``(tau_min/tau_i)^(2/(p+2))`` are roots of ``(p + 2) 32``-bit integers,
    and beyond ``p = 64`` every scale is the same to ``2^-32``.
    """
    value = check_positive_int(p, "p")
    if value > MAX_P:
        raise ParameterError(
            f"p: got {short_int(value)}; at most {MAX_P} (beyond, every scale is the same to "
            f"2^-32 and the cost grows with p)"
        )
    return value


def require_plan_time(d: int, rounds: int) -> None:
    """Refuse a PLAN whose steps are estimated above the time budget, from ``d`` and rounds.

    Every step is per coordinate (a quantile or two, a scale, the noise of each round),
    measured at about 115 us a coordinate at one round (``d = 2^16``, a basket file).
    """
    require_time(
        Fraction(d * (120 + 20 * rounds), 10**6),
        f"PLAN's steps over {d} columns and {rounds} round(s)",
        "d",
        "use fewer columns (or --items)",
    )


def integer_scales(tau: list[Fraction], p: int, units: int) -> list[int]:
    """``P_i = max(1, floor(2^Q (tau_min/tau_i)^(2/(p+2))))`` with ``Q = SCALE_BITS - bits(D)``.

    Coordinates with a smaller spread are stretched more (Alg 17 Line 4); the
    largest factor is ``2^Q``, so ``|k - m| P_i < D 2^Q <= 2^SCALE_BITS``.  All
    ``tau_i = 0`` (no spread anywhere) gives equal scales.

    >>> integer_scales([Fraction(1), Fraction(4)], 2, 255)          # 2^32 (1/4)^(1/2)
    [4294967296, 2147483648]
    """
    q = SCALE_BITS - units.bit_length()
    positive = [t for t in tau if t > 0]
    if not positive:
        return [1 << q] * len(tau)
    low = min(positive)
    k = p + 2
    out = []
    for t in tau:
        if t <= 0:
            out.append(1 << q)
            continue
        x = low / t  # in (0, 1]
        top = (x.numerator**2 << (q * k)) // x.denominator**2
        out.append(max(1, int(gmpy2.iroot(gmpy2.mpz(top), k)[0])))
    return out


def clip_levels(largest: int, ratio: Fraction, levels: int) -> list[int]:
    """``C_k = ceil(largest ratio^-(L-1-k))``, ``k = 0..L-1``: geometric, up to ``largest``."""
    out = []
    scale = Fraction(largest)
    for _ in range(levels):
        out.append(-(-scale.numerator // scale.denominator))
        scale /= ratio
    return out[::-1]


def gap_levels(span: int, ratio: Fraction) -> list[int]:
    """``T_k = ceil(ratio^k)`` for ``k = 0, 1, ...`` until ``T_k >= span``, at least two
    (a grid of two points has gaps 0 and 1, and the spread's selector two levels).

    >>> gap_levels(10, Fraction(6, 5)), gap_levels(1, Fraction(6, 5))
    ([1, 2, 2, 2, 3, 3, 3, 4, 5, 6, 7, 8, 9, 11], [1, 2])
    """
    levels = [1]
    while levels[-1] < span or len(levels) < 2:
        power = ratio ** len(levels)
        levels.append(-(-power.numerator // power.denominator))
    return levels


#: The most clipping levels (each a rational power, kept as an integer).
MAX_CLIP_COUNT = 1 << 16


def clip_grid(ratio: object, count: object, root: int) -> tuple[Fraction, int]:
    """``clip_ratio`` and ``clip_count`` checked; the count by default reaches from the
    largest norm (below ``sqrt(d) 2^SCALE_BITS``, ``root = ceil(sqrt(d))``) down to 1 unit.

    Raises:
        ParameterError: a ratio not above 1 or wider than 64 bits, or more than
            ``MAX_CLIP_COUNT`` levels, naming the parameter.
    """
    r = exact_fraction(ratio, "clip_ratio")
    if not r > 1 or max(r.as_integer_ratio()) >> 64:
        raise ParameterError(
            f"clip_ratio: got {short_fraction(r)}; it must be above 1, with numerator and "
            f"denominator below 2^64"
        )
    if count is None:
        levels = level_count(root << SCALE_BITS, r, MAX_CLIP_COUNT)
        if levels > MAX_CLIP_COUNT:
            raise ParameterError(
                f"clip_ratio: got {short_fraction(r)}; the radii from the largest norm down "
                f"to 1 need more than {MAX_CLIP_COUNT} levels: use a larger one"
            )
        return r, levels
    levels = check_positive_int(count, "clip_count")
    if levels > MAX_CLIP_COUNT:
        raise ParameterError(f"clip_count: got {levels}; at most {MAX_CLIP_COUNT} levels")
    return r, levels


def level_count(top: int, ratio: Fraction, most: int) -> int:
    """``1 + k`` for the least ``k`` with ``ratio^k >= top`` (the levels ``top, top/ratio,
    ...`` reach 1), or ``most + 1`` when that is more than ``most``.

    A doubling then a bisection on ``k``: the integers are ``k`` times ``ratio``'s bits,
    never more than about twice the answer's, so a ``ratio`` near 1 is refused fast.

    >>> level_count(1000, Fraction(2), 100), level_count(1000, Fraction(2), 10)
    (11, 11)
    >>> level_count(2**40, Fraction(100000001, 100000000), 65536)
    65537
    """

    def reaches(k: int) -> bool:
        return bool(ratio.numerator**k >= top * ratio.denominator**k)

    low, high = 0, 1
    while not reaches(high):
        if high >= most:
            return most + 1
        low, high = high + 1, min(2 * high, most)
    while low < high:
        mid = (low + high) // 2
        low, high = (low, mid) if reaches(mid) else (mid + 1, high)
    return low + 1


def clipped_sum(w: np.ndarray, bounds: list[int], radius: int, units: int) -> np.ndarray:
    """``sum_j v_j`` with ``v_j = round(w_j g_j)``, ``||v_j||_2 <= K`` for every row, exactly.

    ``K = units``, ``C = radius`` (in the units of ``w``) and ``c = ceil(sqrt(d))``: a
    row with ``2 N_j K <= C (2K - c)`` is scaled by ``g = K/C`` (not clipped), any
    other by ``g = (2K - c)/(2 N_j)`` (clipped to ``C``).  Either way
    ``||w_j|| g <= K - c/2``, and rounding each coordinate moves the row by at most
    ``sqrt(d)/2 <= c/2``.  Needs ``|w| < 2^40`` and ``K < 2^13`` (no overflow).
    """
    n, d = w.shape
    c = clip_margin(d)
    num = np.empty(n, dtype=np.int64)
    den = np.empty(n, dtype=np.int64)
    for j, bound in enumerate(bounds):
        if 2 * bound * units <= radius * (2 * units - c):
            num[j], den[j] = units, radius
        else:
            num[j], den[j] = 2 * units - c, 2 * bound
    return np.asarray(rounded(w, num[:, None], den[:, None]).sum(axis=0, dtype=np.int64))


def clip_rows(
    rows: np.ndarray, centre: np.ndarray, scales: np.ndarray, bounds: list[int], units: int
) -> np.ndarray:
    """:func:`clipped_sum` of rows every one of which is clipped (``N_j`` above
    :func:`kept_within`): ``sum_j round(w_j (2K - c)/(2 N_j))``, ``w_j = (k_j - m) P``.

    The same integers as :func:`clipped_sum`, in place on one copy of the block: a
    basket's clipped rows are dense vectors of tens of thousands of coordinates.
    """
    d = rows.shape[1]
    den = 2 * np.asarray(bounds, dtype=np.int64)[:, None]
    t = np.subtract(rows, centre, dtype=np.int64)
    t *= 2 * (2 * units - clip_margin(d)) * scales  # 2 w num, below 2^55
    t += den
    t //= 2 * den
    return np.asarray(t.sum(axis=0, dtype=np.int64))


def clip_margin(d: int) -> int:
    """``c = ceil(sqrt(d))``: rounding each of ``d`` coordinates moves a row by at most ``c/2``."""
    return isqrt(d - 1) + 1 if d > 1 else 1


def kept_within(radius: int, units: int, d: int) -> int:
    """The largest ``N`` with ``2 N K <= C (2K - c)``: rows of norm bound at most this are
    scaled by ``K/C`` (not clipped) in :func:`clipped_sum`."""
    return radius * (2 * units - clip_margin(d)) // (2 * units)


def index_rows(rows: object, n: int, d: int, span: int) -> np.ndarray:
    """``rows`` as an ``n x d`` integer array of grid indices in ``[0, span]``.

    Raises:
        ParameterError: ragged rows, the wrong shape or type, or an index off the grid.
    """
    try:
        data = np.asarray(rows)
    except (ValueError, TypeError, OverflowError):  # ragged, or not numbers numpy holds
        raise ParameterError(
            f"rows: not an n x d array (rows of unequal length, or entries that are not "
            f"integers); need {n} x {d} grid indices"
        ) from None
    if data.shape != (n, d) or data.dtype.kind not in "iu":
        raise ParameterError(
            f"rows: got an array of shape {data.shape} ({data.dtype}); need {n} x {d} "
            "grid indices (integers)"
        )
    if data.size and (int(data.min()) < 0 or int(data.max()) > span):
        raise ParameterError(f"rows: every grid index must lie in [0, {span}]")
    return data
