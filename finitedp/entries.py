"""Registry entries: what the tools need to know about a mechanism, said once beside its code.

Each family package (``counting``, ``histograms``, ``compact``, ...) has a
``registry`` module whose entries say, for each user-level mechanism, its
command-line name and summary, which parameters build it, its release's JSON
``type`` and reader, how to audit it exactly on tiny parameters and how its
reference vectors are made and replayed.  :mod:`finitedp.registry` collects the
entries; the tools (:mod:`finitedp.cli`, :mod:`finitedp.audit`,
:mod:`finitedp.vectors`, :mod:`finitedp.plot`) iterate over it and never name a
mechanism.  Adding a mechanism is: its module(s), one entry in its family's
``registry``, its proof note, its tests.

The neighbour relation of each guarantee is part of the entry
(:attr:`MechanismEntry.neighbours`), so that every release can say which one
its privacy statement is for.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal, Protocol

from .checker.plan import AuditPlan, AuditRequest
from .guarantees import Accuracy, Privacy
from .jsonvalues import decimal
from .oracle import RandomSource

__all__ = [
    "JSON",
    "NOISE",
    "P_OPTION",
    "AuditTarget",
    "BasketMechanism",
    "ColumnEntry",
    "ColumnMechanism",
    "ColumnOutcome",
    "Counts",
    "Mechanism",
    "MechanismEntry",
    "Option",
    "RankedKeys",
    "ReleaseParameters",
    "ReleaseReader",
    "VectorCase",
    "VectorKind",
    "WeightedSums",
    "cache_key",
    "no_dataset",
    "no_derive",
    "rows_of",
    "user_params",
]

JSON = dict[str, Any]

#: BV's neighbour relation: one row replaced (two counts move by one each).
REPLACE_ONE_ROW = "replace one row (BV Def 2.1: two counts move by one each)"


@dataclass(frozen=True)
class Option:
    """A parameter that one mechanism's command takes and others do not.

    Attributes:
        name: the Python keyword (``"delta"``); the flag is ``--`` + name with dashes.
        help: one line for ``--help``.
        kind: ``"exact"`` (text read as an exact rational by the mechanism),
            ``"int"``, ``"flag"`` (a boolean switch) or ``"choice"`` (one of
            ``choices``; absent means the first).
        metavar: the placeholder in ``--help``.
        required: whether the command refuses to run without it.
        example: a valid value, for tools that need one to run the mechanism
            (the negative vectors' controls); required options have one.
    """

    name: str
    help: str
    kind: Literal["exact", "int", "flag", "choice"] = "exact"
    metavar: str | None = None
    required: bool = False
    example: str | None = None
    choices: tuple[str, ...] = ()

    @property
    def flag(self) -> str:
        """The command-line flag, e.g. ``--split-mixture``."""
        return "--" + self.name.replace("_", "-")


#: ``--p``: the error norm a column mechanism targets (``E||error||_p^p``), shared by
#: the vector sums (their budget split) and PLAN (its scaling).
P_OPTION = Option(
    "p", "the error norm p targeted, E||error||_p^p (1 or 2 usually)", "int", metavar="P"
)


@dataclass(frozen=True)
class ReleaseParameters:
    """The user's parameters for a release, as typed (the mechanism parses and checks them).

    Attributes:
        epsilon: the budget.
        beta: the accuracy statement's failure probability (the mechanism's ``beta0``).
        counter: ``"fast"`` or ``"geo"``.
        options: the mechanism's own options (:attr:`MechanismEntry.release_options`).
        value_bound: with a value column, ``B``: each row adds a value in ``[0, B]``
            to its key (the rows are then ``(key, value)`` pairs; ``None``: plain keys).
        value_step: the grid of the values (``1`` or ``1/q``).
    """

    epsilon: str
    beta: str
    counter: str
    options: Mapping[str, str | None] = field(default_factory=dict)
    value_bound: Fraction | None = None
    value_step: Fraction = Fraction(1)

    def option(self, name: str) -> str | None:
        """One of the mechanism's own options (``None`` if not given)."""
        return self.options.get(name)


@dataclass(frozen=True)
class WeightedSums:
    """A value column, summed per key: what a weighted mechanism needs of ``n`` rows.

    Each of the ``n`` rows added one exact value in ``[0, B]`` (on the grid of the
    release) to its key; the reader checked every value before summing, so memory
    follows the distinct keys.  A weighted entry's ``release`` takes this as well as
    the ``(key, value)`` rows, with the same result.

    Attributes:
        n: the number of rows (public under BV's replacement of one row).
        sums: ``{key: sum of its values}``.
    """

    n: int
    sums: Mapping[int, Fraction]


@dataclass(frozen=True, eq=False)
class RankedKeys:
    """A stream of keys given as ranks into its distinct keys, sorted, in chunks.

    What ``finitedp release`` hands a stream mechanism (``public_n = False``) for
    a CSV or Parquet file: DuckDB numbers the values in file order, so no Python
    object is made per row.  Iterating gives the keys themselves, in stream order,
    so any consumer of an ``Iterable[int]`` takes it; the Misra-Gries sketch reads
    the ranks directly (:func:`finitedp.sketches.misragries.misra_gries`).

    Attributes:
        keys: the distinct keys, strictly increasing; rank ``r`` is ``keys[r - 1]``.
        n: the number of elements.
        chunks: called once (the file is read as it is called): lists of ranks in
            ``[1, len(keys)]``, in stream order, ``n`` in all.
    """

    keys: tuple[int, ...]
    n: int
    chunks: Callable[[], Iterator[list[int]]]

    def __iter__(self) -> Iterator[int]:
        keys = self.keys
        for chunk in self.chunks():
            for rank in chunk:
                yield keys[rank - 1]


class Mechanism(Protocol):
    """What ``finitedp release`` needs of a user-level mechanism."""

    @property
    def privacy(self) -> Privacy: ...

    def accuracy(self, beta: object) -> Accuracy: ...

    def release(self, data: Iterable[object], rng: RandomSource | None = None) -> Any: ...


class Counts(Protocol):
    """A parsed release: a universe size and a count (or an exact estimate) for every bin."""

    @property
    def universe_size(self) -> int: ...

    def __getitem__(self, x: int) -> int | Fraction: ...


@dataclass(frozen=True)
class ReleaseReader:
    """How ``finitedp query`` and ``finitedp plot`` read one JSON release ``type``.

    Attributes:
        type: the release's JSON ``"type"``.
        load: the parsed JSON object -> the release (``from_json``).
        lists_bins: whether the release lists its bins (a partial histogram) rather
            than answering every value (a compact one).
    """

    type: str
    load: Callable[[Any], Counts]
    lists_bins: bool


@dataclass(frozen=True)
class AuditTarget:
    """How ``finitedp audit NAME`` explores a mechanism exactly.

    Attributes:
        summary: one line for ``finitedp audit --help``.
        known_sizes: instances measured to work, for ``--help`` and refusals.
        plan: the user's parameters -> an :class:`~finitedp.checker.plan.AuditPlan`.
        options: the target's own options (paper-layer switches and the like).
        help_extra: a paragraph for the target's ``--help``.
    """

    summary: str
    known_sizes: str
    plan: Callable[[AuditRequest], AuditPlan]
    options: tuple[Option, ...] = ()
    help_extra: str = ""


#: One configuration of reference vectors: (vector kind name, parameters, runs per dataset).
VectorCase = tuple[str, JSON, int]


@dataclass(frozen=True)
class VectorKind:
    """How vectors of one mechanism or primitive are made and replayed.

    Attributes:
        name: the vector's ``"mechanism"`` field (a class or function name).
        kind: ``"histogram"`` (takes a dataset) or ``"primitive"`` (does not).
        derive: the values the parameters determine (``d``, ``s``, thresholds...).
        run: ``run(params, dataset, rng)`` -> the output's JSON form.
    """

    name: str
    kind: Literal["histogram", "primitive"]
    derive: Callable[[Mapping[str, Any]], JSON]
    run: Callable[[Mapping[str, Any], tuple[int, ...] | None, RandomSource], Any]


@dataclass(frozen=True)
class MechanismEntry:
    """A user-level mechanism, as every tool sees it.

    Attributes:
        name: the command-line name (``--mechanism NAME``, ``finitedp audit NAME``).
        summary: one line for ``--help``.
        paper: where it comes from (``BV Alg 5.1, Thm 5.3``).
        neighbours: the neighbour relation its privacy guarantee is for.
        build: ``(n, |X|, parameters)`` -> the mechanism.
        release_type: the JSON ``type`` of its releases (a :class:`ReleaseReader`).
        release_options: the options of ``finitedp release`` only it takes.
        audit: how to audit it exactly, or ``None``.
        vectors: how its reference vectors are made, or ``None``.
        public_n: whether the number of rows is public under its neighbour relation
            (BV's replacement of a row: yes; adding or removing one: no, and the
            release document then does not state it).
        weighted: whether it takes a value column (rows ``(key, value)``, the
            values in ``[0, value_bound]``); others take keys only.
        dense: whether a release lists every bin of the universe (its size follows
            ``|X|``); others list at most ``n`` bins.
    """

    name: str
    summary: str
    paper: str
    neighbours: str
    build: Callable[[int, int, ReleaseParameters], Mechanism]
    release_type: str
    release_options: tuple[Option, ...] = ()
    audit: AuditTarget | None = None
    vectors: VectorKind | None = None
    public_n: bool = True
    weighted: bool = False
    dense: bool = False


@dataclass(frozen=True)
class ColumnOutcome:
    """What a column mechanism released: its JSON part and one estimate per column.

    Attributes:
        release: the release's JSON part.
        estimates: one per column.
        noise_variances: each estimate's noise variance in the data's units, exactly
            (``None``: not stated, a quantile's error is a rank).
        ranges: the public interval each estimated quantity lies in (a mean's bounds,
            ``n`` times them for a sum); an estimate outside is also stated moved into
            it, a post-processing (``None``: every estimate lies in it already).
        noise_within: each estimate's noise bound in the data's units, all of them at
            once with probability ``>= 1 - beta`` (the mechanism's accuracy ``beta``;
            ``None``: not stated).
        extras: more figures of each column's estimate, by name (a sum's count of values
            present and their mean under ``--nulls drop``); ``None``: none.
    """

    release: JSON
    estimates: tuple[Fraction, ...]
    noise_variances: tuple[Fraction, ...] | None = None
    ranges: tuple[tuple[Fraction, Fraction], ...] | None = None
    noise_within: tuple[Fraction, ...] | None = None
    extras: tuple[JSON, ...] | None = None


class ColumnMechanism(Protocol):
    """What ``finitedp release`` needs of a mechanism over numeric columns on grids.

    :meth:`release_from` gets what its entry :attr:`~ColumnEntry.reads`.
    """

    @property
    def guarantee(self) -> Any: ...

    def epsilon_for(self, delta: object) -> Fraction: ...

    def parameters(self) -> JSON: ...

    def accuracy(self, beta: object) -> JSON: ...

    def release_from(self, data: Any, rng: RandomSource | None = None) -> ColumnOutcome: ...


class BasketMechanism(ColumnMechanism, Protocol):
    """A column mechanism that also takes 0/1 rows as the sets of their 1s (``--format
    baskets``): ``sets[j]`` is row ``j``'s sorted ``int64`` array of column indices."""

    def release_from_sets(
        self, sets: list[Any], rng: RandomSource | None = None
    ) -> ColumnOutcome: ...


@dataclass(frozen=True)
class ColumnEntry:
    """A user-level mechanism over numeric columns on public grids (``--columns``).

    Attributes:
        name: the command-line name (``--mechanism NAME``).
        summary: one line for ``--help``.
        paper: where it comes from.
        neighbours: the neighbour relation its guarantee is for.
        budget: ``"epsilon"`` or ``"rho"``: the flag that carries its budget.
        build: ``(n, [(lower, upper, step), ...], budget, options)`` -> the mechanism;
            ``options`` maps each of :attr:`options`' names to its text or ``None``,
            and ``"beta"`` to ``--beta`` (the accuracy statements' failure probability).
        options: its own flags (``--p``, ``--quantile``, ...).
        reads: what the mechanism's ``release_from`` gets: a
            :class:`~finitedp.statistics.ColumnStatistics` of which it asks each column's
            sum in grid units (``"sums"``) or each column's counts on its grid
            (``"counts"``), or (``"rows"``) a :class:`~finitedp.statistics.RowStatistics`
            (PLAN's questions of whole rows); the engine computes them where the data lies.
        baskets: whether it reads basket files (``--format baskets``: 0/1 rows given as
            the sets of their 1s); its mechanism is then a :class:`BasketMechanism`.
        drops: how ``--nulls drop`` leaves a missing value out (``None``: it cannot):
            ``"zero"``, a sum adds nothing for it (0 read in its place); ``"skip"``, the
            column's counts leave it out and :attr:`build` gets ``options["dropped"]``,
            the dropped columns' indices (``"0,2"``), to take each one's rank from its
            count of values present (:mod:`finitedp.io.missing`).
        check: ``(columns, budget, options)``: whatever :attr:`build` refuses that
            needs no data, run before the file is read (``None``: nothing more than
            the grids and flags every entry checks).
    """

    name: str
    summary: str
    paper: str
    neighbours: str
    budget: Literal["epsilon", "rho"]
    build: Callable[
        [int, list[tuple[Fraction, Fraction, Fraction]], str, Mapping[str, str | None]],
        ColumnMechanism,
    ]
    options: tuple[Option, ...] = ()
    reads: Literal["sums", "counts", "rows"] = "sums"
    baskets: bool = False
    drops: Literal["zero", "skip"] | None = None
    check: (
        Callable[[list[tuple[Fraction, Fraction, Fraction]], str, Mapping[str, str | None]], None]
        | None
    ) = None


# -- helpers for writing vector kinds --------------------------------------------------


def rows_of(dataset: tuple[int, ...] | None) -> tuple[int, ...]:
    """The dataset of a ``"histogram"`` vector.

    Raises:
        ValueError: the vector has none.
    """
    if dataset is None:
        raise ValueError("dataset: this mechanism needs one")
    return dataset


def no_dataset(dataset: tuple[int, ...] | None) -> None:
    """Check that a ``"primitive"`` vector has no dataset.

    Raises:
        ValueError: it has one.
    """
    if dataset is not None:
        raise ValueError("dataset: this primitive takes none")


def cache_key(params: Mapping[str, Any]) -> str:
    """A hashable key for parameters (to build each mechanism once)."""
    return json.dumps(params, sort_keys=True)


def no_derive(params: Mapping[str, Any]) -> JSON:
    """The ``derived`` of a vector kind whose parameters determine nothing more."""
    return {}


def user_params(n: int, m: int, eps: str, *, pad: bool | None = None, **extra: str) -> JSON:
    """User-level parameters in a fixed key order (the order shows in vector ids)."""
    params: JSON = {"n": decimal(n), "universe_size": decimal(m), "epsilon": eps}
    for key in ("delta", "beta", "beta0", "counter"):
        if key in extra:
            params[key] = extra[key]
    if pad is not None:
        params["pad"] = pad
    elif "delta" in extra or "beta" in extra:  # StabilityHistogram, PureSparseHistogram
        params["pad"] = True
    return params


#: ``--noise``: the tight ratio (``release``'s default, 2-3x smaller errors) or BV's
#: (the classes' and ``audit``'s default, the paper's constants; README: which to pick).
NOISE = Option(
    "noise",
    "tight: a ratio within one percent of e^(-eps/2), thresholds and accuracy from the "
    "exact distribution (release's default); paper: BV's ratio 2^k/(2^k+1) and Figs 3-6 "
    "(the default of audit and of the Python classes)",
    kind="choice",
    choices=("tight", "paper"),
)
