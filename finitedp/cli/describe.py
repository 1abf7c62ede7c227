"""``finitedp query RELEASE`` with no values: the release in words, for people.

What it protects (the neighbour relation), its guarantee in decimals (every figure
rounded up, so still a bound), the data's public shape, the accuracy at the stated
``beta`` as a ``±`` figure, and the estimates: what a teacher or an auditor reads
first.  Every figure comes from the document, checked as it is read (a tampered
figure is refused by name); the mechanism's paper reference from the registry.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ..accounting import Guarantee
from ..errors import ParameterError
from ..jsonvalues import parse_count, parse_signed_rational
from ..params import decimal_nearest, sqrt_display

__all__ = ["describe_release"]


def _rational(value: Any, field: str, name: str) -> Fraction:
    """A figure of the document: an int or a (signed) ``"p/q"`` string."""
    try:
        return parse_signed_rational(value, field)
    except ValueError as error:
        raise ParameterError(f"{name}: {error}") from None


def _guarantee(privacy: Any, name: str) -> str:
    """The ``privacy`` object as :meth:`Guarantee.summary` words."""
    if not isinstance(privacy, dict):
        raise ParameterError(f"{name}: privacy: missing; not a finitedp release")

    def figure(key: str) -> Fraction | None:
        value = privacy.get(key)
        return None if value is None else _rational(value, f"privacy.{key}", name)

    epsilon, rho = figure("epsilon"), figure("rho")
    if epsilon is None and rho is None:
        raise ParameterError(f"{name}: privacy: states neither epsilon nor rho")
    try:
        stated = Guarantee(
            "release",
            epsilon=epsilon,
            delta=figure("delta") or Fraction(0),
            rho=rho,
            rho_delta=figure("rho_delta") or Fraction(0),
        )
    except ParameterError as error:
        raise ParameterError(f"{name}: privacy: {error}") from None
    at = privacy.get("at_delta")
    converted = None
    if isinstance(at, dict):
        converted = (
            _rational(at.get("delta"), "privacy.at_delta.delta", name),
            _rational(at.get("epsilon"), "privacy.at_delta.epsilon", name),
        )
    return stated.summary(converted)


def _accuracy(accuracy: Any, name: str) -> list[str]:
    """The accuracy statement: ``±`` figures at ``beta``, or the exact moment."""
    if not isinstance(accuracy, dict):
        return []
    lines = []
    beta = accuracy.get("beta")
    if beta is not None:
        confidence = decimal_nearest(1 - _rational(beta, "accuracy.beta", name), 4)
        for key, words in (("per_query", "each count"), ("simultaneous", "every count at once")):
            if accuracy.get(key) is not None:
                bound = parse_count(accuracy[key], f"accuracy.{key}")
                lines.append(f"  {words}: within ±{bound:,} with probability >= {confidence}")
        if accuracy.get("threshold") is not None:
            threshold = parse_count(accuracy["threshold"], "accuracy.threshold")
            lines.append(f"  counts below {threshold:,} may be left out (the threshold)")
        if accuracy.get("absent_listed") is not None:
            listed = _rational(accuracy["absent_listed"], "accuracy.absent_listed", name)
            lines.append(
                f"  keys absent from the data: {decimal_nearest(listed, 3)} listed per release "
                "on average, each with a count just above the threshold"
            )
        if accuracy.get("absent_beyond") is not None:
            beyond = _rational(accuracy["absent_beyond"], "accuracy.absent_beyond", name)
            lines.append(
                f"  an absent key listed beyond the bound for every count: probability <= "
                f"{decimal_nearest(beyond, 2)}"
            )
        if accuracy.get("noise_floor") is not None:
            floor = parse_count(accuracy["noise_floor"], "accuracy.noise_floor")
            lines.append(
                f"  a listed key with an estimate at most {floor:,} may be absent from the data "
                "(the noise of an absent key is at most that): the top k over the universe "
                "lists such keys when fewer than k stand out"
            )
    if accuracy.get("moment") is not None:
        p = accuracy.get("p", 2)
        moment = _rational(accuracy["moment"], "accuracy.moment", name)
        lines.append(
            f"  E ||estimate - true||_{p}^{p} = {decimal_nearest(moment, 4)} (exact in JSON)"
        )
    if accuracy.get("relative_to"):
        lines.append(f"  relative to {str(accuracy['relative_to'])[:400]}")
    if accuracy.get("source"):
        lines.append(f"  source: {str(accuracy['source'])[:200]}")
    elif accuracy.get("statement"):
        lines.append(f"  {str(accuracy['statement'])[:1000]}")
    return lines


def _optional(entry: dict[str, Any], key: str, name: str) -> Fraction | None:
    """An estimate's optional field ``key``, read exactly, or ``None`` if absent."""
    value = entry.get(key)
    return None if value is None else _rational(value, f"estimates.{key}", name)


def _estimate_line(entry: dict[str, Any], name: str, rank_error: Any, n: int | None) -> str:
    """``column ≈ value``, with the noise's standard deviation (sums, means), the value
    moved into its public range where the noise carried it out, or the rank error."""
    value = decimal_nearest(_rational(entry.get("value"), "estimates", name))
    line = f"  {entry.get('column')} ≈ {value}"
    if (within := _optional(entry, "noise_within", name)) is not None:
        line += f" ± {decimal_nearest(within, 3)}"
    if (variance := _optional(entry, "noise_variance", name)) is not None:
        line += f" (noise sd {sqrt_display(variance)})"
    if rank_error is not None:
        error = parse_count(rank_error, "accuracy.rank_errors")
        line += f" (rank error at most {error:,}"
        if n is not None and n > 0:
            line += f", {decimal_nearest(Fraction(100 * error, n), 2)}% of n = {n:,}"
        line += ")"
    if (count := _optional(entry, "present_count", name)) is not None:
        line += f"; {decimal_nearest(count)} values present"
        if (within := _optional(entry, "present_within", name)) is not None:
            line += f" ± {decimal_nearest(within, 3)}"
        if (mean := _optional(entry, "mean_of_present", name)) is not None:
            line += f", their mean ≈ {decimal_nearest(mean)} (post-processing)"
    if (moved := _optional(entry, "value_in_range", name)) is not None:
        line += (
            f"; in its public range: {decimal_nearest(moved)} (post-processing: the true "
            "value lies there)"
        )
    return line


def _rows(parameters: dict[str, Any]) -> int | None:
    """The public ``n`` of a column release, if stated."""
    n = parameters.get("n")
    return n if type(n) is int else None


def describe_release(document: Any, name: str) -> list[str]:
    """The lines ``finitedp query RELEASE`` prints for ``document``.

    Raises:
        ParameterError: not a release document, or a figure that is malformed.
    """
    if not isinstance(document, dict) or "mechanism" not in document:
        raise ParameterError(
            f"{name}: not a document of finitedp release (no mechanism); give VALUEs to query "
            "a bare release"
        )
    mechanism = str(document["mechanism"])
    from ..families import entry as family_entry  # its family only: to say its summary

    entry = family_entry(mechanism)
    paper = document.get("paper") or (entry.paper if entry is not None else "")
    lines = [f"release: {mechanism}" + (f" ({paper})" if paper else "")]
    if entry is not None:
        lines.append(f"  {entry.summary}")
    lines.append(f"neighbours (what it protects): {document.get('neighbours', '?')}")
    lines.append(f"guarantee: {_guarantee(document.get('privacy'), name)}")
    found = document.get("parameters")
    parameters: dict[str, Any] = found if isinstance(found, dict) else {}
    if "universe" in document:
        size = str(document.get("universe_size"))
        shown_size = size if len(size) <= 30 else f"a {len(size)}-digit number"
        rows = f"n = {parameters['n']} rows" if "n" in parameters else "a stream (n not public)"
        lines.append(f"data: {rows} over the universe {document['universe']} (|X| = {shown_size})")
    elif isinstance(parameters.get("columns"), list):
        columns = [c for c in parameters["columns"] if isinstance(c, dict)]
        shown = ", ".join(
            f"{c.get('name')} in [{c.get('lower')}, {c.get('upper')}] step {c.get('step')}"
            for c in columns[:8]
        )
        more = f" and {len(columns) - 8:,} more" if len(columns) > 8 else ""
        lines.append(f"data: n = {parameters.get('n', '?')} rows; {shown}{more}")
    accuracy = _accuracy(document.get("accuracy"), name)
    if accuracy:
        stated = document.get("accuracy")
        beta = stated.get("beta") if isinstance(stated, dict) else None
        lines.append("accuracy" + (f" (beta = {beta})" if beta else "") + ":")
        lines.extend(accuracy)
    estimates = document.get("estimates")
    if isinstance(estimates, list):
        stated = document.get("accuracy")
        errors = stated.get("rank_errors") if isinstance(stated, dict) else None
        lines.append("estimates (in the data's units):")
        for i, e in enumerate(estimates[:12]):
            if isinstance(e, dict):
                error = errors[i] if isinstance(errors, list) and i < len(errors) else None
                lines.append(_estimate_line(e, name, error, _rows(parameters)))
        if len(estimates) > 12:
            lines.append(f"  and {len(estimates) - 12:,} more (finitedp query RELEASE COLUMN)")
    else:
        lines.append("counts: finitedp query RELEASE VALUE... prints the count of each VALUE")
    if document.get("seeded"):
        lines.append("seeded: yes; NOT private against anyone who knows or can guess the seed")
    return lines
