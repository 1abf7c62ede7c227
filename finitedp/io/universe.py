"""Declared universes: how categorical labels are numbered into ``X = [1, |X|]``.

Paper: BV Section 2.4 (the universe is ``X = [m]_+``, indexed by ``1..m``).
The mechanisms work on integers; a universe says which strings are values and
numbers them injectively.  A universe is always *declared*, never inferred
from the data: inferring it would make ``|X|``, and so the output's domain,
depend on the rows, which differential privacy does not allow.

Two universes, written as a spec string (see ``SPEC.md``, "Universe encodings"):

``int:M``
    The values are the integers ``1..M``, labelled by their canonical decimal
    spelling: ASCII digits, no sign, no spaces, no leading zero.  ``encode("7")``
    is ``7``; ``"007"``, ``" 7"``, ``"+7"``, ``"7.0"`` and ``"0"`` are not labels
    (a lenient parser would map several strings to one value, and an error
    naming the line is better than a silent guess).  ``|X| = M``.

``utf8:L``
    The values are all UTF-8 strings of at most ``L`` bytes (the empty string
    included).  A string ``s`` whose UTF-8 encoding ``b`` has ``k`` bytes is
    numbered ``x = 1 + (256^k - 1)/255 + int_be(b)``, where ``(256^k - 1)/255 =
    sum_{j<k} 256^j`` counts the byte strings shorter than ``k`` and ``int_be``
    reads ``b`` as an unsigned big-endian integer.  So ``""`` is 1, the one-byte
    strings are 2..257 (``"A"`` is ``2 + 0x41 = 67``), the two-byte strings
    start at 258, and ``|X| = sum_{k=0}^{L} 256^k = (256^(L+1) - 1)/255``.
    Every byte string of at most ``L`` bytes gets a number and the map is a
    bijection onto ``[1, |X|]``; numbers are ordered by byte length, then by
    bytes (which for UTF-8 is code-point order).  A number whose bytes are not
    valid UTF-8 is in the universe but is no string's label: :meth:`decode`
    refuses it and :meth:`Utf8Universe.decode_bytes` gives the raw bytes (a
    sparse release may list such a bin, drawn at random among the empty ones).

>>> u = parse_universe("utf8:2")
>>> u.size, u.encode(""), u.encode("A"), u.decode(67), u.encode("é")
(65793, 1, 67, 'A', 50347)
>>> v = parse_universe("int:100")
>>> v.size, v.encode("42"), v.decode(42), v.spec
(100, 42, '42', 'int:100')
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod

from ..errors import ParameterError
from ..params import short_int

__all__ = [
    "MAX_INT_DIGITS",
    "MAX_UTF8_BYTES",
    "IntUniverse",
    "Universe",
    "Utf8Universe",
    "parse_universe",
]

#: ``int:M`` accepts ``M`` of at most this many decimal digits (Python's int
#: parser refuses more than 4300 by default; no mechanism needs more).
MAX_INT_DIGITS = 4000

#: ``utf8:L`` accepts ``L`` up to this many bytes (``|X|`` of about ``2^(8L)``;
#: CompactHistogram's largest field has about ``2^20`` bits, so more is unusable).
MAX_UTF8_BYTES = 65536

# Canonical positive decimal: ASCII only (str.isdigit and int() also accept
# other scripts' digits, underscores and surrounding spaces).
_DECIMAL = re.compile(r"[1-9][0-9]*")


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


class IntUniverse(Universe):
    """``int:M``: the integers ``1..M``, labelled by their canonical decimal spelling.

    Args:
        m: ``M >= 1``.

    Raises:
        ParameterError: ``m`` is not a positive int of at most ``MAX_INT_DIGITS`` digits.
    """

    __slots__ = ("_m",)

    def __init__(self, m: int) -> None:
        if isinstance(m, bool) or not isinstance(m, int) or m < 1:
            raise ParameterError(f"universe: int:M needs an integer M >= 1; got {m!r}")
        if m.bit_length() > MAX_INT_DIGITS * 10 // 3:  # 10/3 > log2(10): a cheap early bound
            raise ParameterError(
                f"universe: int:M allows M of at most {MAX_INT_DIGITS} digits; got a "
                f"{m.bit_length()}-bit M"
            )
        self._m = m

    @property
    def spec(self) -> str:
        """``"int:M"``."""
        return f"int:{self._m}"

    @property
    def size(self) -> int:
        """``M``."""
        return self._m

    def encode(self, label: str) -> int:
        """``int(label)`` for a canonical decimal ``label`` in ``1..M``.

        Raises:
            ParameterError: ``label`` is not the canonical spelling of an integer in ``1..M``.
        """
        # The length test keeps a huge label from reaching int().
        if len(label) <= len(str(self._m)) and _DECIMAL.fullmatch(label) and int(label) <= self._m:
            return int(label)
        raise ParameterError(
            f"value {_preview(label)} is not in the universe {self.spec}: its values are "
            f"the integers 1..{short_int(self._m)} in plain decimal (ASCII digits, no sign, "
            f"spaces or leading zeros)"
        )

    def decode(self, x: int) -> str:
        """``str(x)``.

        Raises:
            ParameterError: ``x`` outside ``[1, M]``.
        """
        return str(self._check_number(x))


def _utf8_offset(k: int) -> int:
    """``1 + (256^k - 1)/255``: the number of the first string of ``k`` bytes."""
    return 1 + ((1 << (8 * k)) - 1) // 255


class Utf8Universe(Universe):
    """``utf8:L``: every UTF-8 string of at most ``L`` bytes, numbered as the module says.

    Args:
        max_bytes: ``L``, in ``[1, MAX_UTF8_BYTES]``.

    Raises:
        ParameterError: ``max_bytes`` outside that range.
    """

    __slots__ = ("_max_bytes", "_size")

    def __init__(self, max_bytes: int) -> None:
        if (
            isinstance(max_bytes, bool)
            or not isinstance(max_bytes, int)
            or not 1 <= max_bytes <= MAX_UTF8_BYTES
        ):
            raise ParameterError(
                f"universe: utf8:L needs an integer L in [1, {MAX_UTF8_BYTES}]; got {max_bytes!r}"
            )
        self._max_bytes = max_bytes
        self._size = _utf8_offset(max_bytes + 1) - 1

    @property
    def spec(self) -> str:
        """``"utf8:L"``."""
        return f"utf8:{self._max_bytes}"

    @property
    def max_bytes(self) -> int:
        """``L``."""
        return self._max_bytes

    @property
    def size(self) -> int:
        """``(256^(L+1) - 1)/255``."""
        return self._size

    def encode(self, label: str) -> int:
        """``1 + (256^k - 1)/255 + int_be(label.encode("utf-8"))`` with ``k`` the byte length.

        Raises:
            ParameterError: ``label`` is longer than ``L`` bytes in UTF-8, or is
                not encodable (a lone surrogate, as undecodable bytes become).
        """
        try:
            raw = label.encode("utf-8")
        except UnicodeEncodeError:
            raise ParameterError(
                f"value {_preview(label)} is not valid UTF-8 text, so it is not in the "
                f"universe {self.spec}"
            ) from None
        if len(raw) > self._max_bytes:
            raise ParameterError(
                f"value {_preview(label)} has {len(raw)} bytes in UTF-8; the universe "
                f"{self.spec} holds the strings of at most {self._max_bytes} bytes"
            )
        return _utf8_offset(len(raw)) + int.from_bytes(raw, "big")

    def decode_bytes(self, x: int) -> bytes:
        """The byte string numbered ``x`` (any bytes, valid UTF-8 or not).

        Raises:
            ParameterError: ``x`` outside ``[1, |X|]``.
        """
        x = self._check_number(x)
        # offset(k) <= x < offset(k + 1); offset(k) ~ 256^k / 255, so the bit
        # length of 255 x gives k to within one step.
        k = max(0, ((255 * x).bit_length() - 1) // 8 - 1)
        while _utf8_offset(k + 1) <= x:
            k += 1
        while _utf8_offset(k) > x:
            k -= 1
        return (x - _utf8_offset(k)).to_bytes(k, "big")

    def decode(self, x: int) -> str:
        """The string numbered ``x``.

        Raises:
            ParameterError: ``x`` outside ``[1, |X|]``, or its bytes are not valid UTF-8.
        """
        raw = self.decode_bytes(x)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ParameterError(
                f"x: {short_int(x)} numbers the bytes {raw[:32].hex()}"
                f"{'...' if len(raw) > 32 else ''}, which are not valid UTF-8, so no "
                f"string of {self.spec} has it"
            ) from None


def parse_universe(spec: str) -> Universe:
    """Read a universe spec: ``"int:M"`` or ``"utf8:L"``.

    Args:
        spec: the spec; ``M`` and ``L`` in plain decimal.

    Returns:
        The :class:`IntUniverse` or :class:`Utf8Universe`.

    Raises:
        ParameterError: anything else (the message shows both forms).
    """
    kind, sep, number = spec.partition(":")
    limits = {"int": MAX_INT_DIGITS, "utf8": len(str(MAX_UTF8_BYTES))}
    if sep and kind in limits and len(number) <= limits[kind] and _DECIMAL.fullmatch(number):
        size = int(number)
        return IntUniverse(size) if kind == "int" else Utf8Universe(size)
    raise ParameterError(
        f"universe: got {_preview(spec)}; write int:M (the integers 1..M, M >= 1) or utf8:L "
        f"(the UTF-8 strings of at most L bytes, 1 <= L <= {MAX_UTF8_BYTES})"
    )
