"""Exact arithmetic helpers: ceilings of logarithms, and deciding ``r <= e^x``.

Paper: BV write ``log`` for base 2 and ``ln`` for the natural logarithm; every
ceiling of a logarithm they use is computed here with integers only.

Comparisons with ``e^x`` are decided rigorously: ``e^x`` is bracketed between
two rationals from its Taylor series with an explicit remainder bound, and the
bracket is narrowed until it excludes the rational being compared.  For a
rational ``x != 0``, ``e^x`` is irrational (Lindemann), so this always stops.

>>> ceil_log(Fraction(8), 2), ceil_log(Fraction(9), 2), ceil_log(Fraction(1, 3), 2)
(3, 4, -1)
>>> compare_exp(Fraction(33, 32), Fraction(1, 32))   # 33/32 < e^(1/32) = 1.0317...
-1
>>> compare_exp(Fraction(2), Fraction(1, 2))         # 2 > e^(1/2) = 1.6487...
1
>>> compare_exp(Fraction(5, 4), Fraction(1, 4))      # 5/4 vs e^(1/4) = 1.284...
-1
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from math import floor

from .errors import ParameterError

__all__ = [
    "ceil_ln",
    "ceil_log",
    "ceil_log_ratio",
    "compare_exp",
    "exp_bounds",
    "least_such_that",
    "ln_bounds",
    "min_power_at_least",
    "power_bounds",
    "power_bracket",
    "rescaled",
    "simplest_between",
]


def ceil_log(x: Fraction | int, base: int = 2) -> int:
    """The smallest integer ``k`` with ``base**k >= x``, that is ``ceil(log_base x)``.

    Args:
        x: a positive rational.
        base: an integer at least 2.

    Raises:
        ParameterError: ``x <= 0`` or ``base < 2``.
    """
    x = Fraction(x)
    if x <= 0 or base < 2:
        raise ParameterError(f"ceil_log: need x > 0 and base >= 2, got x = {x}, base = {base}")
    if base == 2:
        return _ceil_log2(x)
    return ceil_log_ratio(Fraction(base), x)


def _ceil_log2(x: Fraction) -> int:
    """``ceil(log2 x)`` for a rational ``x > 0``, from bit lengths and one comparison."""
    p, q = x.numerator, x.denominator
    e = p.bit_length() - q.bit_length()  # 2^(e-1) < p/q < 2^(e+1)
    # The answer is e or e + 1: e exactly when p/q <= 2^e.
    at_most = p <= q << e if e >= 0 else p << -e <= q
    return e if at_most else e + 1


def ceil_log_ratio(ratio: Fraction, target: Fraction) -> int:
    """The smallest integer ``k`` with ``ratio**k >= target`` (rationals ``ratio > 1, target > 0``).

    ``k = ceil(ln target / ln ratio)``, decided by bracketing both logarithms
    between rationals (:func:`ln_bounds`) until the bracket of the quotient
    holds no integer.  Where it holds one, ``k0``, the quotient may be that
    integer only if ``ratio**k0 == target``, which can happen only for small
    ``|k0|`` (``target``'s numerator and denominator would be ``k0``-th powers)
    and is then checked exactly; otherwise the precision is doubled.  So the
    work grows with the size of the numbers and ``log |k|``, never with ``k``:
    ``ratio = 1 + 2^-160`` costs microseconds, where a search over powers
    ``ratio**k`` would never end.

    >>> ceil_log_ratio(Fraction(3, 2), Fraction(10)), ceil_log_ratio(Fraction(2), Fraction(8))
    (6, 3)
    >>> ceil_log_ratio(Fraction(2**160 + 1, 2**160), Fraction(10)).bit_length()
    162
    """
    if target == 1:
        return 0
    precision = 64
    while True:
        r_low, r_high = ln_bounds(ratio, precision)
        t_low, t_high = ln_bounds(target, precision)
        if r_low > 0:
            if target > 1:
                q_low, q_high = t_low / r_high, t_high / r_low
            else:
                q_low, q_high = t_low / r_low, t_high / r_high
            k = -floor(-q_high)
            if q_low > k - 1:  # the whole bracket lies in (k - 1, k]
                return k
            candidate = -floor(-q_low)  # the quotient may be this integer only if exact
            if _is_exact_power(ratio, candidate, target):
                return candidate
        precision *= 2


def _is_exact_power(ratio: Fraction, k: int, target: Fraction) -> bool:
    """``ratio**k == target``, decided without building a power larger than ``target``."""
    if k == 0:
        return target == 1
    base = ratio if k > 0 else 1 / ratio
    # base**|k| in lowest terms has numerator and denominator of at least this many bits.
    pairs = ((base.numerator, target.numerator), (base.denominator, target.denominator))
    for mine, theirs in pairs:
        if abs(k) * (mine.bit_length() - 1) >= theirs.bit_length() + 1:
            return False
    return bool(base ** abs(k) == target)


def _atanh_bounds(y: Fraction, bits: int) -> tuple[int, int]:
    """Integers ``lo <= 2^bits atanh(y) <= hi`` for ``0 <= y <= 1/3``.

    The series ``sum y^(2j+1)/(2j+1)`` in fixed point, with every product
    rounded down for ``lo`` and up for ``hi``; the tail after the last term is
    at most ``y^(2J+3) / (1 - y^2) <= (9/8) y^(2J+3)``.
    """
    scale = 1 << bits
    power_low = y.numerator * scale // y.denominator
    power_high = -(-y.numerator * scale // y.denominator)
    square = y * y
    sq_low = square.numerator * scale // square.denominator
    sq_high = -(-square.numerator * scale // square.denominator)
    low = high = 0
    j = 0
    while power_high > 0:
        low += power_low // (2 * j + 1)
        high += -(-power_high // (2 * j + 1))
        power_low = power_low * sq_low >> bits
        power_high = -(-power_high * sq_high >> bits)
        j += 1
        if power_high <= 1:
            break
    return low, high + -(-9 * power_high // 8) + 1


def ln_bounds(x: Fraction | int, precision: int = 64) -> tuple[Fraction, Fraction]:
    """Rationals ``lo <= ln x <= hi`` with ``hi - lo`` at most about ``2^-precision |ln x|``.

    The relative precision holds however close ``x`` is to 1: with
    ``x = 2^e m``, ``m`` in ``[1, 2)``, ``ln x = 2 e atanh(1/3) + 2 atanh((m-1)/(m+1))``
    and the fixed-point width follows the size of ``(m-1)/(m+1)``.

    >>> low, high = ln_bounds(Fraction(2))
    >>> Fraction(6931471, 10**7) < low <= high < Fraction(6931472, 10**7)  # ln 2 = 0.69314718...
    True

    Raises:
        ParameterError: ``x <= 0``.
    """
    x = Fraction(x)
    if x <= 0:
        raise ParameterError(f"ln_bounds: need x > 0, got {x}")
    if x == 1:
        return Fraction(0), Fraction(0)
    if x < 1:
        low, high = ln_bounds(1 / x, precision)
        return -high, -low
    e = _ceil_log2(x)
    if Fraction(1 << e) > x:
        e -= 1  # now 2^e <= x < 2^(e+1)
    m = x / (1 << e)
    y = (m - 1) / (m + 1)  # in [0, 1/3)
    total_low, total_high = Fraction(0), Fraction(0)
    if y > 0:
        # Enough bits that the leading term y has `precision` significant ones.
        bits = precision + 8 + max(0, y.denominator.bit_length() - y.numerator.bit_length())
        a_low, a_high = _atanh_bounds(y, bits)
        total_low, total_high = Fraction(2 * a_low, 1 << bits), Fraction(2 * a_high, 1 << bits)
    if e:
        bits = precision + 8 + e.bit_length()
        a_low, a_high = _atanh_bounds(Fraction(1, 3), bits)  # ln 2 = 2 atanh(1/3)
        total_low += Fraction(2 * e * a_low, 1 << bits)
        total_high += Fraction(2 * e * a_high, 1 << bits)
    return total_low, total_high


def min_power_at_least(ratio: Fraction, target: Fraction) -> int:
    """The smallest integer ``A >= 0`` with ``ratio**A >= target``: ``ceil(ln target / ln ratio)``.

    This is how accuracy bounds such as BV Thm 4.7 i, ``a = ceil((2/eps~) ln(1/beta))``
    with ``e^(eps~/2) = ratio``, are evaluated exactly.

    Raises:
        ParameterError: ``ratio <= 1`` or ``target <= 0``.
    """
    if ratio <= 1 or target <= 0:
        raise ParameterError(f"need ratio > 1 and target > 0, got ratio {ratio}, target {target}")
    return max(0, ceil_log_ratio(ratio, target))


def _exp_series_bounds(x: Fraction, precision: int) -> tuple[Fraction, Fraction]:
    """Bounds on ``e^x`` for ``0 <= x`` from the Taylor series, to about ``2^-precision``.

    The partial sum ``sum_{i < j} x^i/i!`` and the last term are kept over the common
    denominator ``b^j j!`` (``x = a/b``) as integers: the same rationals as summing
    fractions, without a gcd per term.
    """
    a, b = x.numerator, x.denominator
    total, power, den, j = 0, 1, 1, 0  # total/den = sum_{i < j} x^i/i!; power/den = x^j/j!
    while True:
        total += power
        j += 1
        power, total, den = power * a, total * b * j, den * b * j
        # Remainder after summing terms 0..j-1 is at most term / (1 - x/(j+1)) once j + 1 > x.
        if (j + 1) * b > 2 * a and power << precision <= den:
            low = Fraction(total, den)
            rest = Fraction(power * b * (j + 1), den * (b * (j + 1) - a))
            return low, low + rest


def _round_out(low: Fraction, high: Fraction, precision: int) -> tuple[Fraction, Fraction]:
    scale = 1 << precision
    lo = Fraction(floor(low * scale), scale)
    hi = Fraction(-floor(-high * scale), scale)
    return lo, hi


#: Above this ``|x|``, :func:`exp_bounds` squares ``e^(x/2^k)`` up instead of summing
#: the series, which needs more than ``2|x|`` terms of growing fractions (a second at
#: ``|x| = 1000``, minutes at 4096).  Below it the series is kept: its brackets decide
#: tight ratios that reference vectors record.
EXP_SERIES_LIMIT = 64

#: The largest ``|x|`` :func:`exp_bounds` takes: ``e^x`` then has about ``1.44 |x|`` bits.
EXP_MAX_ARGUMENT = 1 << 24


def _exp_by_squaring(x: Fraction, precision: int) -> tuple[Fraction, Fraction]:
    """Bounds on ``e^x`` for ``x >= 1``, relative error about ``2^-precision``.

    ``e^x = (e^(x/2^k))^(2^k)`` with ``x/2^k < 1``: the series at ``w`` bits, then
    ``k`` squarings of fixed-point integers rounded outward, keeping ``w`` bits.  Each
    squaring doubles the relative error and adds ``2^-(w-1)``, so after ``k`` of them it
    is below ``2^(k+2-w)``; ``w = precision + k + 8`` keeps it below ``2^-precision``.
    """
    k = (x.numerator // x.denominator).bit_length()  # x / 2^k < 1
    width = precision + k + 8
    scale = 1 << (width + k)
    # y = x/2^k to `width` bits, rounded down and up (e^y is increasing)
    y_low = Fraction(x.numerator * scale // x.denominator, scale << k)
    y_high = Fraction(-(-x.numerator * scale // x.denominator), scale << k)
    low = _exp_series_bounds(y_low, width + 4)[0]
    high = _exp_series_bounds(y_high, width + 4)[1]
    lo = low.numerator * (1 << width) // low.denominator
    hi = -(-high.numerator * (1 << width) // high.denominator)
    exponent = -width  # e^y in [lo, hi] * 2^exponent
    for _ in range(k):
        lo, hi, exponent = lo * lo, hi * hi, 2 * exponent
        shift = max(0, lo.bit_length() - width)
        lo, hi, exponent = lo >> shift, -(-hi >> shift), exponent + shift
    unit = Fraction(2) ** exponent
    return lo * unit, hi * unit


def exp_bounds(x: Fraction | int, precision: int = 64) -> tuple[Fraction, Fraction]:
    """Rationals ``lo <= e^x <= hi``, each a multiple of ``2^-precision``-ish, ``hi - lo`` small.

    Args:
        x: any rational with ``|x| <= 2^24``.
        precision: the number of bits of absolute (for ``x >= 0``: relative to
            the integer part) precision wanted.

    Raises:
        ParameterError: ``|x| > 2^24`` (``e^x`` would have millions of bits).
    """
    x = Fraction(x)
    if abs(x) > EXP_MAX_ARGUMENT:
        raise ParameterError(
            f"exponent: e^x with |x| about 2^{_ceil_log2(abs(x))} would have more than "
            f"2^24 bits; at most |x| = 2^24"
        )
    if abs(x) > EXP_SERIES_LIMIT:
        low, high = _exp_by_squaring(abs(x), precision + 4)
    else:
        low, high = _exp_series_bounds(abs(x), precision + 4)
    if x >= 0:
        return _round_out(low, high, precision)
    return _round_out(1 / high, 1 / low, precision)


def compare_exp(r: Fraction | int, x: Fraction | int) -> int:
    """Decide the sign of ``r - e^x`` exactly, for rationals ``r`` and ``x``.

    Returns:
        ``-1`` if ``r < e^x``, ``0`` if equal (only when ``x == 0`` and ``r == 1``),
        ``1`` if ``r > e^x``.
    """
    r, x = Fraction(r), Fraction(x)
    if x == 0:
        return (r > 1) - (r < 1)
    if r <= 0:
        return -1
    precision = 64
    while True:
        low, high = exp_bounds(x, precision)
        if r < low:
            return -1
        if r > high:
            return 1
        precision *= 2


def simplest_between(low: Fraction, high: Fraction) -> Fraction:
    """The rational with the smallest denominator in the closed interval ``[low, high]``.

    It is unique and found by walking the continued-fraction expansions of both
    ends (the Stern-Brocot tree).

    >>> simplest_between(Fraction(3, 10), Fraction(2, 5))
    Fraction(1, 3)

    Raises:
        ParameterError: ``low > high`` or ``low <= 0``.
    """
    if not 0 < low <= high:
        raise ParameterError(f"need 0 < low <= high, got [{low}, {high}]")
    # Each step peels off an integer part; the result is the continued fraction
    # [q0; q1, ..., qm] accumulated into the convergent recurrences.
    p_prev, p = 0, 1
    q_prev, q = 1, 0
    while True:
        whole = floor(low)
        if whole == low or whole + 1 <= high:
            last = whole if whole == low else whole + 1
            return Fraction(last * p + p_prev, last * q + q_prev)
        p_prev, p = p, whole * p + p_prev
        q_prev, q = q, whole * q + q_prev
        low, high = 1 / (high - whole), 1 / (low - whole)


def ceil_ln(coefficient: Fraction | int, x: Fraction | int) -> int:
    """``ceil(coefficient * ln x)`` exactly, for rationals ``coefficient > 0`` and ``x > 0``.

    It is the least integer ``A`` with ``e^(A / coefficient) >= x``.  BV's
    accuracy tables are of this form, e.g. ``ceil(9/(2 eps) ln(2/beta))`` (Fig 3).
    ``coefficient * ln x`` is bracketed by :func:`ln_bounds` until the bracket
    lies in one ``(A - 1, A]``; for ``x != 1`` it is never an integer
    (``e^(A/coefficient)`` is irrational for ``A != 0``, Lindemann), so the
    narrowing ends, after ``O(log log)`` rounds in the size of the answer.

    >>> ceil_ln(Fraction(9, 1), Fraction(2))    # 9 ln 2 = 6.238...
    7

    Raises:
        ParameterError: ``coefficient <= 0`` or ``x <= 0``.
    """
    coefficient, x = Fraction(coefficient), Fraction(x)
    if coefficient <= 0 or x <= 0:
        raise ParameterError(f"ceil_ln: need coefficient > 0 and x > 0, got {coefficient}, {x}")

    if x == 1:
        return 0
    precision = 64
    while True:
        low, high = ln_bounds(x, precision)
        answer = -floor(-coefficient * high)
        if coefficient * low > answer - 1:
            return answer
        precision *= 2


def least_such_that(holds: Callable[[int], bool], start: int) -> int:
    """The least integer ``t >= start`` with ``holds(t)`` (``holds``: false, then true).

    Exponential search for an upper end, then bisection: ``O(log t)`` calls.  It
    must hold somewhere, or the search does not end.

    >>> least_such_that(lambda t: t * t >= 50, 0)
    8
    """
    if holds(start):
        return start
    low, step = start, 1
    while not holds(low + step):
        low, step = low + step, 2 * step
    high = low + step
    while high - low > 1:  # invariant: not holds(low), holds(high)
        mid = (low + high) // 2
        if holds(mid):
            high = mid
        else:
            low = mid
    return high


def power_bracket(factors: list[tuple[int, int]], bits: int) -> tuple[int, int, int]:
    """``(lo, hi, t)`` with ``lo 2^t <= prod x^e <= hi 2^t``, ``hi`` of at most ``bits`` bits.

    The product of powers ``x^e`` (``x >= 1``, ``e >= 0``) is bracketed by squaring and
    multiplying with every intermediate cut to ``bits`` bits, the lower end rounded
    down and the upper end up, so the bracket is certified.  A cut moves an end by a
    factor ``1 + 2^(1 - bits)`` at most and a squaring doubles an end's relative
    error, so the bracket's relative width is about ``(e + bits(e)) 2^(3 - bits)``
    summed over the factors (``e << 2^bits``): ``bits`` should exceed the wanted
    precision by ``bits(e) + 3``.  Where an exact value of ``e log x`` bits costs a
    pass over megabytes, this costs ``O(log e)`` products of ``bits``-bit integers:
    callers decide from it, and compute exactly only where it leaves the answer open.

    >>> lo, hi, t = power_bracket([(3, 100)], 64)
    >>> lo << t <= 3**100 <= hi << t, hi.bit_length() <= 64
    (True, True)
    >>> power_bracket([(2, 10), (3, 2)], 64)   # 9216, exactly (nothing cut)
    (9216, 9216, 0)
    """
    lo, hi, at = 1, 1, 0  # the bracket of the product so far is [lo, hi] * 2^at

    def cut(low: int, high: int, exponent: int) -> tuple[int, int, int]:
        extra = high.bit_length() - bits
        if extra <= 0:
            return low, high, exponent
        return low >> extra, -(-high >> extra), exponent + extra

    for x, e in factors:
        if x < 1 or e < 0:
            raise ParameterError(f"factors: got {x}^{e}; need x >= 1 and e >= 0")
        sq_lo, sq_hi, sq_at = cut(x, x, 0)
        while e:
            if e & 1:
                lo, hi, at = cut(lo * sq_lo, hi * sq_hi, at + sq_at)
            e >>= 1
            if e:
                sq_lo, sq_hi, sq_at = cut(sq_lo * sq_lo, sq_hi * sq_hi, 2 * sq_at)
    return lo, hi, at


def rescaled(lo: int, hi: int, at: int, shift: int) -> tuple[int, int]:
    """``[lo, hi] 2^at`` as a bracket ``[lo', hi'] 2^shift`` (outward rounding)."""
    if at >= shift:
        return lo << (at - shift), hi << (at - shift)
    return lo >> (shift - at), -(-hi >> (shift - at))


def power_bounds(factors: list[tuple[int, int]], bits: int, shift: int) -> tuple[int, int]:
    """:func:`power_bracket` at a given scale: ``lo 2^shift <= prod x^e <= hi 2^shift``.

    >>> power_bounds([(2, 10), (3, 2)], 64, 3)   # 9216 = 1152 * 2^3, exactly
    (1152, 1152)
    """
    return rescaled(*power_bracket(factors, bits), shift)
