"""Decimal displays beside the exact figures of a release document: one rule for every kind.

A release document keeps every figure exact (``"349122/44597"``; an integer past
``2^53`` as a decimal string).  People read decimals, so each exact figure that is
not a short plain number gets a sibling whose key ends in ``_display``:

- a value ``"p/q"`` (or ``"-p/q"``), or an integer string of more than 15 digits,
  under key ``k`` gets ``k_display``: 6 significant digits
  (:func:`finitedp.params.decimal_nearest`), **rounded up** inside ``privacy`` (a
  stated epsilon, delta or rho stays a bound when read as a decimal) and to nearest
  elsewhere;
- a list of such values gets a list of displays, in order;
- the mechanism's own object ``release`` (read back by the release readers) and the
  listed ``bins`` are left as they are, and a key that already has its display keeps it.

Nothing is ever read from a display: ``finitedp query``, ``plot`` and the readers use
the exact figures.  SPEC.md ("Release documents") and
``finitedp/schemas/release.schema.json`` state the same rule.

>>> with_displays({"privacy": {"rho": "1/3"}, "n": 5})   # a bound: rounded up
{'privacy': {'rho': '1/3', 'rho_display': '0.333334'}, 'n': 5}
>>> with_displays({"estimates": [{"value": "-2/3"}]})   # an estimate: to nearest
{'estimates': [{'value': '-2/3', 'value_display': '-0.666667'}]}
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from ..jsonvalues import decimal_int
from ..params import decimal_nearest

__all__ = ["DISPLAY_SUFFIX", "display", "with_displays"]

#: The suffix of a display key.
DISPLAY_SUFFIX = "_display"

_EXACT = re.compile(r"-?[0-9]+/[0-9]+|-?[0-9]{16,}")

#: Objects left as written: read back by machines only.
_UNTOUCHED = frozenset({"release", "bins"})


def display(text: str, *, bound: bool = False) -> str | None:
    """The display of an exact figure ``text``, or ``None`` if it needs none."""
    if not _EXACT.fullmatch(text):
        return None
    sign = "-" if text.startswith("-") else ""
    top, _, bottom = text.removeprefix("-").partition("/")
    value = Fraction(decimal_int(top), decimal_int(bottom) if bottom else 1)  # any size
    if sign:
        value = -value
    if bound and value >= 0:
        return decimal_nearest(value, 6, up=True)
    return decimal_nearest(value, 6)


def with_displays(document: Any, *, bound: bool = False) -> Any:
    """``document`` with a ``k_display`` beside every exact figure ``k`` (the rule above).

    Returns new dicts and lists; values of other types (numbers, streams) are kept.
    """
    if isinstance(document, list):
        return [with_displays(item, bound=bound) for item in document]
    if not isinstance(document, dict):
        return document
    out: dict[str, Any] = {}
    for key, value in document.items():
        if key in _UNTOUCHED:
            out[key] = value
            continue
        inner = bound or key == "privacy"
        out[key] = with_displays(value, bound=inner)
        name = f"{key}{DISPLAY_SUFFIX}"
        if name in document or key.endswith(DISPLAY_SUFFIX):
            continue
        if isinstance(value, str):
            shown = display(value, bound=inner)
            if shown is not None:
                out[name] = shown
        elif isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            shown_all = [display(v, bound=inner) for v in value]
            if any(s is not None for s in shown_all):
                out[name] = [
                    s if s is not None else v for s, v in zip(shown_all, value, strict=True)
                ]
    return out
