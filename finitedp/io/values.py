"""A value column: each row contributes a bounded, exact, non-negative amount to its key.

``finitedp release ... --value-column AMOUNT --value-bound B --value-step 1/q``
reads every value as an exact rational (``3``, ``2.5``, ``7/4``; never a float),
and refuses, naming the line, a value that is negative, above ``B`` or not a
multiple of the step.  One row then moves the vector by at most ``B`` in l1
distance, and replacing a row by at most ``2B``: the mechanism's contribution.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ..errors import FiniteDPError, ParameterError
from ..params import exact_fraction, positive_fraction, short_fraction

__all__ = ["ValueColumn", "exact_value", "shorten"]

#: Longest value text read (digits beyond this are surely not a bounded amount).
MAX_VALUE_CHARS = 200

#: The most grid steps a value bound (``--value-bound``) may span, and the finest grid.
MAX_VALUE = 1 << 64


def shorten(text: str) -> str:
    """``text`` as a message shows it: at most 30 characters (no 31-digit echo)."""
    return text if len(text) <= 30 else text[:30] + "..."


def exact_value(text: str, where: str, what: str, examples: str) -> Fraction:
    """One value of a file, read as an exact rational (never a float).

    Raises:
        ParameterError: naming ``where``: too long to be ``what``, or not an exact number.
    """
    shown = shorten(text)
    if len(text) > MAX_VALUE_CHARS:
        raise ParameterError(f"{where}: value {shown!r} is too long to be {what}")
    try:
        return exact_fraction(text.strip(), "value")
    except FiniteDPError:
        raise ParameterError(
            f"{where}: value {shown!r} is not an exact number (use {examples})"
        ) from None


@dataclass(frozen=True)
class ValueColumn:
    """The declared bound and grid of a value column.

    Attributes:
        bound: ``B``: every value lies in ``[0, B]``.
        step: the grid: every value is a multiple of it (``1`` for integers, ``1/q``).
    """

    bound: Fraction
    step: Fraction

    @classmethod
    def parse(cls, bound: object, step: object) -> ValueColumn:
        """From the command line's ``--value-bound`` and ``--value-step`` (default 1).

        Raises:
            ParameterError: not positive, a step that is not ``1/q``, or a bound off the grid.
        """
        b = positive_fraction(bound, "value_bound")
        g = positive_fraction(1 if step is None else step, "value_step")
        if g.numerator != 1 or g.denominator > MAX_VALUE:
            raise ParameterError(
                f"value_step: got {short_fraction(g)}; use 1 or a grid 1/q (e.g. 1/100), q <= 2^64"
            )
        if b / g > MAX_VALUE:
            raise ParameterError(
                f"value_bound: got {short_fraction(b)}; at most 2^64 steps of the grid (each "
                f"row's value is summed exactly, and the noise grows with the bound)"
            )
        if (b / g).denominator != 1:
            raise ParameterError(
                f"value_bound: got {short_fraction(b)}; it must be a multiple of the step "
                f"{short_fraction(g)}"
            )
        return cls(b, g)

    def read(self, text: str, where: str) -> Fraction:
        """One value, checked.

        Raises:
            ParameterError: naming ``where`` (file and line) and the rule broken.
        """
        value = exact_value(text, where, "an amount", "3, 2.5 or 7/4")
        shown = shorten(text)
        if not 0 <= value <= self.bound:
            raise ParameterError(
                f"{where}: value {shown} is outside [0, {self.bound}] (--value-bound)"
            )
        if (value / self.step).denominator != 1:
            raise ParameterError(
                f"{where}: value {shown} is not a multiple of the step {self.step} (--value-step)"
            )
        return value
