"""Resource bounds stated before the work starts (principle 6).

Exact mechanisms on finite computers use integers whose size grows with public
parameters: GeoSample's ``d`` has about ``n log2(b)`` bits, FastSample's about
``t log2(b)`` with ``t = O(log(n/gamma) / eps)``.  Rather than abort inside GMP
or be killed by the kernel, every entry point estimates the memory it is about
to need from public parameters alone and calls :func:`require_memory`, which
refuses with a :class:`~finitedp.errors.ResourceLimitError` naming the
parameter, the estimate and the limit.

The limit is :data:`DEFAULT_MAX_MEMORY` (4 GiB) unless the environment variable
``FINITEDP_MAX_MEMORY`` says otherwise (bytes, or a number with a suffix
``K``, ``M``, ``G`` or ``T``, powers of 1024).  It is read at each check, so a
program may change it between calls.

Time is estimated the same way (:func:`require_time`): work on integers of ``N``
bits is costed from measured rates of GMP (a pass over ``N`` bits, such as a
product, a power's last squaring or a draw of ``N`` random bits) and of
CPython's own integers (``Fraction`` arithmetic, which multiplies by Karatsuba
and takes greatest common divisors in quadratic time).  Work estimated above
:data:`DEFAULT_MAX_SECONDS` (10 minutes, or ``FINITEDP_MAX_SECONDS``) is
refused before it starts.  The rates are rounded up from
``benchmarks/bench_bigint.py`` on the reference machine (2 cores); an estimate
is an order of magnitude, not a promise.

>>> integer_bytes(8 * 1024)
1024
>>> parse_memory("512M")
536870912
>>> describe_seconds(gmp_seconds(10**9, 1))
'6 s'
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from fractions import Fraction

from .errors import ParameterError, ResourceLimitError

__all__ = [
    "DEFAULT_MAX_MEMORY",
    "DEFAULT_MAX_SECONDS",
    "GMP_NS_PER_BIT",
    "MEMORY_ENV",
    "PYTHON_GCD_NS_PER_WORD2",
    "PYTHON_NS_PER_KARATSUBA_WORD",
    "TIME_ENV",
    "check_limits",
    "describe_bytes",
    "describe_seconds",
    "fraction_seconds",
    "gmp_seconds",
    "integer_bytes",
    "max_memory",
    "max_seconds",
    "parse_memory",
    "python_seconds",
    "recorded_estimates",
    "require_bits",
    "require_memory",
    "require_time",
    "time_budget",
]

#: The environment variable that overrides :data:`DEFAULT_MAX_MEMORY`.
MEMORY_ENV = "FINITEDP_MAX_MEMORY"

#: The memory any one object finitedp builds may need, unless configured: 4 GiB.
DEFAULT_MAX_MEMORY = 4 << 30

#: GMP multiplies and divides with temporaries a few times the operands' size.
WORKING_COPIES = 4

_UNITS = {"": 0, "K": 10, "M": 20, "G": 30, "T": 40}
_MEMORY = re.compile(r"([0-9]{1,15})\s*([KMGT]?)(?:I?B)?", re.IGNORECASE)


def parse_memory(text: str) -> int:
    """A memory size such as ``"4G"``, ``"512M"`` or ``"1000000"`` (bytes), as bytes.

    Raises:
        ParameterError: not such a size, or zero.
    """
    match = _MEMORY.fullmatch(text.strip())
    if match is None or int(match.group(1)) == 0:
        raise ParameterError(
            f"{MEMORY_ENV}: got {text!r:.30}; write a positive size in bytes, "
            f"optionally with K, M, G or T (powers of 1024), e.g. 4G"
        )
    return int(match.group(1)) << _UNITS[match.group(2).upper()]


def max_memory() -> int:
    """The current limit in bytes: ``FINITEDP_MAX_MEMORY`` if set, else 4 GiB."""
    text = os.environ.get(MEMORY_ENV)
    return DEFAULT_MAX_MEMORY if text is None else parse_memory(text)


def describe_bytes(size: int) -> str:
    """A byte count for a message: ``"3.0 GiB"``, ``"512 KiB"``, ``"17 bytes"``."""
    if size >= 1 << 60:
        return f"2^{size.bit_length() - 1} bytes or more"
    for unit, shift in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size >= 1 << shift:
            tenths = (size * 10) >> shift  # integer arithmetic: no float in a message either
            if tenths >= 10_000:
                return f"{tenths // 10:,} {unit}"
            return f"{tenths // 10}.{tenths % 10} {unit}"
    return f"{size} bytes"


def integer_bytes(bits: int) -> int:
    """The bytes an integer of ``bits`` bits occupies (rounded up)."""
    return (max(bits, 0) + 7) // 8


def require_memory(estimate: int, what: str, cause: str) -> None:
    """Refuse work whose estimated memory is above the limit.

    Args:
        estimate: the bytes the work would need, from public parameters alone.
        what: what needs them, e.g. ``"FastSample's search table"``.
        cause: the parameters responsible, e.g. ``"epsilon = 1/1000000 with n = 10"``.

    Raises:
        ResourceLimitError: ``estimate`` is above :func:`max_memory`.
    """
    limit = max_memory()
    if estimate > limit:
        raise ResourceLimitError(
            f"{cause}: {what} would need about {describe_bytes(estimate)}, above the limit "
            f"of {describe_bytes(limit)}; choose a larger epsilon, a smaller n or universe, "
            f"or raise the limit with {MEMORY_ENV} (e.g. {MEMORY_ENV}=16G)"
        )


def require_bits(bits: int, what: str, cause: str, copies: int = WORKING_COPIES) -> None:
    """:func:`require_memory` for arithmetic on integers of ``bits`` bits."""
    require_memory(copies * integer_bytes(bits), what, cause)


#: The environment variable that overrides :data:`DEFAULT_MAX_SECONDS`.
TIME_ENV = "FINITEDP_MAX_SECONDS"

#: The time any one request may be estimated to need, unless configured: 10 minutes.
DEFAULT_MAX_SECONDS = 600

#: Nanoseconds per bit of one pass of GMP over a large integer, rounded up from the
#: measured rates (a product 5, a quotient 12, a power 3, a CSPRNG draw 1.1).
GMP_NS_PER_BIT = 6

#: CPython multiplies its own integers by Karatsuba: an ``N``-bit power or product
#: takes about ``c * (N/64)^1.585`` with ``c`` measured at 11.5-13.1 ns from 10^5 to
#: 1.4 * 10^7 bits, rounded up here; ``Fraction`` arithmetic costs the same or more.
PYTHON_NS_PER_KARATSUBA_WORD = 16

#: CPython's gcd, which reduces every ``Fraction`` made of large integers, is
#: quadratic: 5.4-5.5 ns per squared 64-bit word measured at 10^5 to 10^6 bits.
PYTHON_GCD_NS_PER_WORD2 = 6


_BUDGETS: ContextVar[tuple[int, ...]] = ContextVar("finitedp_time_budgets", default=())


def max_seconds() -> int:
    """The current time budget in seconds: ``FINITEDP_MAX_SECONDS`` if set, else 600,
    and at most any :func:`time_budget` in force.

    Raises:
        ParameterError: the variable is not a positive whole number of seconds.
    """
    text = os.environ.get(TIME_ENV)
    if text is None:
        budget = DEFAULT_MAX_SECONDS
    elif not re.fullmatch(r"[0-9]{1,12}", text.strip()) or int(text) == 0:
        raise ParameterError(
            f"{TIME_ENV}: got {text!r:.30}; write a positive whole number of seconds, e.g. 600"
        )
    else:
        budget = int(text)
    return min((budget, *_BUDGETS.get()))


def check_limits() -> None:
    """Read both limits now, so a malformed one is refused by name before any work.

    Raises:
        ParameterError: ``FINITEDP_MAX_SECONDS`` or ``FINITEDP_MAX_MEMORY`` is set to
            something other than a positive whole number (of seconds; of bytes, with
            an optional K, M, G or T).
    """
    max_seconds()
    max_memory()


@contextmanager
def time_budget(seconds: int) -> Iterator[None]:
    """Lower the time budget to ``seconds`` inside the ``with`` block (never raise it).

    ``vectors verify`` gives each reference vector a small budget: the vectors are
    small by design, and an edited one should fail at once, not run for minutes.
    """
    token = _BUDGETS.set((*_BUDGETS.get(), seconds))
    try:
        yield
    finally:
        _BUDGETS.reset(token)


def gmp_seconds(bits: int, passes: int) -> Fraction:
    """The estimated time of ``passes`` passes of GMP over ``bits``-bit integers."""
    return Fraction(max(bits, 0) * max(passes, 0) * GMP_NS_PER_BIT, 10**9)


def python_seconds(bits: int, operations: int = 1) -> Fraction:
    """The estimated time of ``operations`` CPython products (or powers) of ``bits`` bits.

    ``(N/64)^1.585`` is replaced by ``2^floor(1.585 * bit_length(N/64))``, between
    half and three times as large: an order of magnitude.
    """
    words = max(bits, 64) // 64
    karatsuba = 1 << (words.bit_length() * 1585 // 1000)
    return Fraction(karatsuba * PYTHON_NS_PER_KARATSUBA_WORD * max(operations, 0), 10**9)


def fraction_seconds(bits: int, operations: int = 1) -> Fraction:
    """The estimated time of ``operations`` exact ``Fraction`` values of ``bits``-bit terms.

    Each is reduced by one CPython gcd, quadratic in the size.
    """
    words = max(bits, 64) // 64
    return Fraction(words * words * PYTHON_GCD_NS_PER_WORD2 * max(operations, 0), 10**9)


def describe_seconds(seconds: Fraction | int) -> str:
    """A duration for a message, rounded up: ``"6 s"``, ``"14 min"``, ``"3 h"``, ``"5 days"``."""
    value = Fraction(seconds)
    whole = -(-value.numerator // value.denominator)
    for unit, size in (("days", 172_800), ("h", 7_200), ("min", 120)):
        if whole >= size:
            count = -(-whole // (size // 2))
            return f"{count:,} {unit}" if count < 10**12 else f"more than 10^12 {unit}"
    return f"{whole} s"


#: The lists :func:`recorded_estimates` collects into (this context's, as ``_BUDGETS``).
_RECORDED: ContextVar[tuple[list[Fraction], ...]] = ContextVar(
    "finitedp_recorded_estimates", default=()
)


@contextmanager
def recorded_estimates() -> Iterator[list[Fraction]]:
    """Collect the time estimates (seconds) every :func:`require_time` accepts meanwhile:
    what a command says before a long run (a guess from public values, never a promise)."""
    found: list[Fraction] = []
    token = _RECORDED.set((*_RECORDED.get(), found))
    try:
        yield found
    finally:
        _RECORDED.reset(token)


def require_time(seconds: Fraction, what: str, cause: str, hint: str = "") -> None:
    """Refuse work whose estimated time is above the budget (:func:`max_seconds`).

    Args:
        seconds: the estimate, from public parameters alone.
        what: what takes the time, e.g. ``"FastSample's 2.4e9-bit integers"``.
        cause: the parameters responsible, e.g. ``"epsilon = 1/1000000"``.
        hint: what would work instead (appended to the message).

    Raises:
        ResourceLimitError: ``seconds`` is above the budget.
    """
    limit = max_seconds()
    if seconds > limit:
        advice = hint or "choose a larger epsilon or a smaller n or universe"
        raise ResourceLimitError(
            f"{cause}: {what} would take about {describe_seconds(seconds)}, above the time "
            f"budget of {describe_seconds(limit)}; {advice}, or raise the budget with "
            f"{TIME_ENV} (seconds, e.g. {TIME_ENV}=3600)"
        )
    for found in _RECORDED.get():
        found.append(Fraction(seconds))
