"""The exceptions finitedp raises, all in one place.

Every error is a subclass of :class:`FiniteDPError` and of the built-in
``ValueError`` or ``TypeError`` it refines, so callers can catch either the
library's family or the familiar built-in.  Messages name the parameter,
say what was received and what is allowed, e.g.
``epsilon: got 0.5 (a float); floats break the exactness guarantee, use Fraction(1, 2) or "1/2"``.
"""

from __future__ import annotations

__all__ = [
    "CertificationError",
    "CheckerLimitError",
    "FiniteDPError",
    "FloatParameterError",
    "NotApplicableError",
    "OracleError",
    "ParameterError",
    "ParameterTypeError",
    "ResourceLimitError",
    "TapeError",
]


class FiniteDPError(Exception):
    """Base class of every exception raised by finitedp."""


class ParameterError(FiniteDPError, ValueError):
    """A parameter has the right type but lies outside its valid range or form."""


class ResourceLimitError(ParameterError):
    """The work asked for would need more memory than the configured limit allows.

    Raised before the work starts, from public parameters alone; see
    :mod:`finitedp.resources` (``FINITEDP_MAX_MEMORY``).
    """


class NotApplicableError(ParameterError):
    """Valid parameters that this mechanism cannot serve (e.g. ``n`` below its threshold).

    ``finitedp release`` without ``--mechanism`` moves on to the next default, as it
    does after a :class:`ResourceLimitError`.
    """


class ParameterTypeError(FiniteDPError, TypeError):
    """A parameter has a type finitedp does not accept."""


class FloatParameterError(ParameterTypeError):
    """A float was passed where an exact number is required.

    Floats are refused everywhere data, parameters or probabilities flow:
    their rounding is exactly what breaks differential privacy (Mironov 2012).
    """


class OracleError(FiniteDPError, ValueError):
    """A randomness source broke the ``uniform(d)`` contract."""


class TapeError(OracleError):
    """A replayed tape does not fit the calls the mechanism makes."""


class CheckerLimitError(FiniteDPError, ValueError):
    """The exact checker would have to enumerate more values than its limit allows."""


class CertificationError(FiniteDPError, ValueError):
    """A value finitedp certifies in integers before using it failed its check.

    Precisions are chosen so that this cannot happen; it is raised rather than
    releasing anything the guarantee would not cover (a bug to report).
    """
