"""The index of user-level mechanisms: every family's registry entries, in one place.

The tools (``finitedp.cli``, ``finitedp.audit``, ``finitedp.vectors``,
``finitedp.plot``) find mechanisms here and nowhere else.  Each family package
describes its own mechanisms in its ``registry`` module
(:mod:`finitedp.histograms.registry`, :mod:`finitedp.compact.registry`,
:mod:`finitedp.alp.registry`, :mod:`finitedp.sketches.registry`); this
module only collects them, fixes the order in which ``--help`` lists them and in
which the reference vectors are generated, and holds the rule for the default
mechanism.

>>> [entry.name for entry in MECHANISMS.values()]
['bounded-geometric', 'stability', 'pure-sparse', 'blanket', 'compact', 'alp', 'pmg', 'pmg-pure']
>>> list(COLUMNS)
['vector-laplace', 'vector-gaussian', 'quantile-exponential', 'quantile-binary', 'plan-mean']
>>> sorted(READERS)
['alp', 'compact_histogram', 'partial_histogram', 'pmg', 'threshold_alp']
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from .aggregation import registry as aggregation
from .aggregation import vectorcases as aggregation_vectors
from .alp import registry as alp
from .alp import vectorcases as alp_vectors
from .compact import registry as compact
from .compact import vectorcases as compact_vectors
from .counting import convolvedvectors, gaussianvectors
from .counting.registry import COUNTERS, CounterEntry
from .entries import JSON, ColumnEntry, MechanismEntry, ReleaseReader, VectorCase, VectorKind
from .errors import ParameterError
from .histograms import blanketvectors
from .histograms import registry as histograms
from .histograms import vectorcases as histogram_vectors
from .mean import registry as mean
from .mean import vectorcases as mean_vectors
from .selection import registry as selection
from .selection import vectorcases as selection_vectors
from .sketches import registry as sketches
from .sketches import vectorcases as sketch_vectors

__all__ = [
    "COLUMNS",
    "COUNTERS",
    "DEFAULT_CHOICES",
    "DENSE_DEFAULT_LIMIT",
    "MECHANISMS",
    "READERS",
    "VECTOR_KINDS",
    "CounterEntry",
    "default_mechanism",
    "default_mechanisms",
    "default_reason",
    "mechanism",
    "random_pool",
    "reader",
    "vector_cases",
]

#: ``--mechanism`` name -> entry, in the order ``--help`` lists them.
MECHANISMS: dict[str, MechanismEntry] = {
    entry.name: entry
    for entry in (*histograms.ENTRIES, *compact.ENTRIES, *alp.ENTRIES, *sketches.ENTRIES)
}

#: ``--mechanism`` name -> entry, for mechanisms over numeric columns (``--columns``).
COLUMNS: dict[str, ColumnEntry] = {
    entry.name: entry
    for entry in (*aggregation.COLUMN_ENTRIES, *selection.COLUMN_ENTRIES, *mean.COLUMN_ENTRIES)
}

#: A release's JSON ``"type"`` -> how to read it.
READERS: dict[str, ReleaseReader] = {
    reader.type: reader
    for reader in (*histograms.READERS, *compact.READERS, *alp.READERS, *sketches.READERS)
}

#: Every kind of reference vector but the counting ones, by its ``"mechanism"`` name:
#: the user-level mechanisms', then the paper-layer functions' and the primitives'.
VECTOR_KINDS: dict[str, VectorKind] = {
    kind.name: kind
    for kind in (
        *(entry.vectors for entry in MECHANISMS.values() if entry.vectors is not None),
        *compact_vectors.PAPER_LAYER,
        *histogram_vectors.PAPER_LAYER,
        *histogram_vectors.PRIMITIVES,
        *alp_vectors.PRIMITIVES,
        *alp_vectors.PAPER_LAYER,
        *gaussianvectors.PRIMITIVES,
        *selection_vectors.PRIMITIVES,
        *aggregation_vectors.PRIMITIVES,
        *mean_vectors.PRIMITIVES,
        *blanketvectors.PRIMITIVES,
        *convolvedvectors.PRIMITIVES,
    )
}

#: The sources of histogram and primitive vector cases, in the order of the vector file.
_CASES: tuple[Callable[[], Iterator[VectorCase]], ...] = (
    histogram_vectors.user_cases,
    compact_vectors.cases,
    histogram_vectors.paper_cases,
    histogram_vectors.primitive_cases,
    alp_vectors.cases,
    sketch_vectors.cases,
    # Appended in this order; each new source goes last, so earlier vectors keep their places.
    gaussianvectors.cases,
    selection_vectors.cases,
    aggregation_vectors.cases,
    selection_vectors.later_cases,
    mean_vectors.cases,
    alp_vectors.later_cases,
    blanketvectors.cases,
    aggregation_vectors.later_cases,
    selection_vectors.spec_cases,
    blanketvectors.later_cases,
    convolvedvectors.cases,
    aggregation_vectors.convolved_cases,
    selection_vectors.convolved_cases,
    mean_vectors.convolved_cases,
    convolvedvectors.later_cases,
)

#: Up to this many bins, the default mechanism adds noise to every bin.
DENSE_DEFAULT_LIMIT = 10_000

#: The mechanisms :func:`default_mechanisms` chooses between, all pure ``(eps, 0)``-DP:
#: an option all of them take (``--noise``) may be given without ``--mechanism``.
DEFAULT_CHOICES = ("bounded-geometric", "compact", "blanket", "pure-sparse")


def mechanism(name: str) -> MechanismEntry:
    """The entry of ``--mechanism name``.

    Raises:
        ParameterError: no such mechanism (the message lists the names).
    """
    if name not in MECHANISMS:
        names = ", ".join([*MECHANISMS, *COLUMNS])
        raise ParameterError(f"--mechanism: got {name!r}; choose one of {names}")
    return MECHANISMS[name]


def reader(kind: object, name: str) -> ReleaseReader:
    """How to read a release whose JSON ``"type"`` is ``kind``.

    Raises:
        ParameterError: a type finitedp does not know; the message names the file.
    """
    if not isinstance(kind, str) or kind not in READERS:
        raise ParameterError(
            f"{name}: release type {kind!r:.30} is not one finitedp can read ({', '.join(READERS)})"
        )
    return READERS[kind]  # the same as finitedp.families.reader, with every family loaded


def default_mechanisms(n: int, universe_size: int) -> tuple[str, ...]:
    """The mechanisms ``finitedp release`` tries without ``--mechanism``, in order.

    The first whose memory and time estimates fit the limits
    (:mod:`finitedp.resources`) is used.  Small universes (``|X| <= 10^4``, or
    ``|X| <= 2n`` where no sparse mechanism applies) start with
    ``bounded-geometric``: every bin is listed with a noisy count whose per-query
    error holds for every count.  Larger ones start with ``compact``: per-query
    error of the same order for every value, with no threshold.  ``blanket`` and
    ``pure-sparse`` come last: they only report counts above a threshold that grows
    with ``ln |X|``, but need memory that follows ``n`` alone; ``blanket``'s
    threshold is about half of ``pure-sparse``'s and its work is linear in ``n``
    (10^7 rows in minutes), but it needs ``n`` above that threshold
    (a :class:`~finitedp.errors.NotApplicableError` otherwise, and the default moves
    on).  All are pure ``(eps, 0)``-DP, so the default never changes the kind of
    guarantee.

    Args:
        n: the number of rows.
        universe_size: ``|X|``.

    Returns:
        Keys of :data:`MECHANISMS`, most preferred first.

    >>> default_mechanisms(200, 7)
    ('bounded-geometric', 'compact', 'blanket', 'pure-sparse')
    >>> default_mechanisms(200, 10**6)
    ('compact', 'blanket', 'pure-sparse')
    """
    if universe_size <= max(DENSE_DEFAULT_LIMIT, 2 * n):
        return DEFAULT_CHOICES
    return DEFAULT_CHOICES[1:]


def default_mechanism(n: int, universe_size: int) -> str:
    """The first of :func:`default_mechanisms`: the default when every estimate fits."""
    return default_mechanisms(n, universe_size)[0]


def default_reason(n: int, universe_size: int) -> str:
    """Why :func:`default_mechanisms` starts where it does, for a message."""
    if universe_size <= max(DENSE_DEFAULT_LIMIT, 2 * n):
        return f"|X| <= max({DENSE_DEFAULT_LIMIT:,}, 2n): every bin gets a noisy count"
    return f"|X| > max({DENSE_DEFAULT_LIMIT:,}, 2n): a sparse universe"


def vector_cases() -> Iterator[VectorCase]:
    """Every histogram and primitive vector configuration, in the order of the file."""
    for source in _CASES:
        yield from source()


def random_pool() -> tuple[tuple[str, JSON], ...]:
    """Cheap configurations for property tests of the vectors (small integers, short tapes)."""
    return (*histogram_vectors.RANDOM_POOL, *compact_vectors.RANDOM_POOL, *alp_vectors.RANDOM_POOL)
