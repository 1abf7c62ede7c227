"""The declared universe's interface: a spec, a size ``|X|`` and a labelling of
``[1, |X|]`` (BV Section 2.4).  The kinds are in :mod:`finitedp.io.universe` (numbers
and strings) and :mod:`finitedp.io.keyset` (key lists), which both build on this.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from ..errors import ParameterError
from ..params import short_int

__all__ = ["Universe"]


def _preview(label: str) -> str:
    """``repr`` of a label, cut short so that an error message stays one readable line."""
    return repr(label) if len(label) <= 60 else repr(label[:60]) + "..."


class Universe(ABC):
    """A declared universe: a spec string, a size ``|X|`` and a labelling of ``[1, |X|]``."""

    __slots__ = ()

    @property
    @abstractmethod
    def spec(self) -> str:
        """The spec string that :func:`parse_universe` reads back: ``"int:M"`` or ``"utf8:L"``."""

    @property
    @abstractmethod
    def size(self) -> int:
        """``|X|``: the values are numbered ``1..size``."""

    @abstractmethod
    def encode(self, label: str) -> int:
        """The number of ``label`` in ``[1, size]``.

        Raises:
            ParameterError: ``label`` is not a value of this universe (the
                message names the value and says what the values are).
        """

    @abstractmethod
    def decode(self, x: int) -> str:
        """The label numbered ``x``: the inverse of :meth:`encode`.

        Raises:
            ParameterError: ``x`` is outside ``[1, size]`` or is no label's number.
        """

    def _check_number(self, x: object) -> int:
        if isinstance(x, bool) or not isinstance(x, int) or not 1 <= x <= self.size:
            shown = short_int(x) if isinstance(x, int) else repr(x)
            raise ParameterError(
                f"x: got {shown}; the values of {self.spec} are numbered 1..{short_int(self.size)}"
            )
        return x

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Universe):
            return NotImplemented
        return self.spec == other.spec

    def __hash__(self) -> int:
        return hash(self.spec)

    def __repr__(self) -> str:
        return f"parse_universe({self.spec!r})"
