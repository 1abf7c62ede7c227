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

>>> integer_bytes(8 * 1024)
1024
>>> parse_memory("512M")
536870912
"""

from __future__ import annotations

import os
import re

from .errors import ParameterError, ResourceLimitError

__all__ = [
    "DEFAULT_MAX_MEMORY",
    "MEMORY_ENV",
    "describe_bytes",
    "integer_bytes",
    "max_memory",
    "parse_memory",
    "require_bits",
    "require_memory",
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
            f"{MEMORY_ENV}: got {text!r:.40}; write a positive size in bytes, "
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
