"""Where each mechanism and each release type lives: its family's registry module.

:mod:`finitedp.registry` imports every family to list them all (``--help``, the
vectors, the audits).  A question about one release (``finitedp query``: read it back,
say it in words) needs only that release's family: :func:`reader` and :func:`entry`
import one registry module, so a query does not load the other families' mechanisms.
``tests/test_architecture.py`` checks that these maps agree with the registry.
"""

from __future__ import annotations

import importlib
from typing import Any

from .entries import ReleaseReader
from .errors import ParameterError

__all__ = ["MECHANISM_FAMILIES", "RELEASE_FAMILIES", "entry", "reader"]

_HISTOGRAMS = "finitedp.histograms.registry"

#: A release's JSON ``"type"`` -> the registry module whose ``READERS`` reads it.
RELEASE_FAMILIES = {
    "partial_histogram": _HISTOGRAMS,
    "compact_histogram": "finitedp.compact.registry",
    "alp": "finitedp.alp.registry",
    "threshold_alp": "finitedp.alp.registry",
    "pmg": "finitedp.sketches.registry",
}

#: ``--mechanism`` name -> the registry module whose ``ENTRIES`` (or ``COLUMN_ENTRIES``)
#: describe it.
MECHANISM_FAMILIES = {
    "bounded-geometric": _HISTOGRAMS,
    "stability": _HISTOGRAMS,
    "pure-sparse": _HISTOGRAMS,
    "blanket": _HISTOGRAMS,
    "compact": "finitedp.compact.registry",
    "alp": "finitedp.alp.registry",
    "pmg": "finitedp.sketches.registry",
    "pmg-pure": "finitedp.sketches.registry",
    "vector-laplace": "finitedp.aggregation.registry",
    "vector-gaussian": "finitedp.aggregation.registry",
    "quantile-exponential": "finitedp.selection.registry",
    "quantile-binary": "finitedp.selection.registry",
    "plan-mean": "finitedp.mean.registry",
}


def reader(kind: object, name: str) -> ReleaseReader:
    """How to read a release whose JSON ``"type"`` is ``kind`` (its family imported now).

    Raises:
        ParameterError: a type finitedp does not know; the message names the file.
    """
    if not isinstance(kind, str) or kind not in RELEASE_FAMILIES:
        known = ", ".join(RELEASE_FAMILIES)
        raise ParameterError(
            f"{name}: release type {kind!r:.30} is not one finitedp can read ({known})"
        )
    readers = importlib.import_module(RELEASE_FAMILIES[kind]).READERS
    found: ReleaseReader = next(r for r in readers if r.type == kind)
    return found


def entry(mechanism: str) -> Any:
    """The registry entry of ``mechanism`` (a ``MechanismEntry`` or ``ColumnEntry``), or
    ``None`` for a name finitedp does not know (its family imported now)."""
    module = MECHANISM_FAMILIES.get(mechanism)
    if module is None:
        return None
    family = importlib.import_module(module)
    entries = (*getattr(family, "ENTRIES", ()), *getattr(family, "COLUMN_ENTRIES", ()))
    return next((e for e in entries if e.name == mechanism), None)
