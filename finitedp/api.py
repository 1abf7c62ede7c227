"""One Python entry point over the data where it lies: :func:`release` (issue 52).

``finitedp.release(data, mechanism=..., column=... | columns=..., universe=...,
epsilon=... | rho=..., nulls=..., seed=...)`` runs exactly what ``finitedp release``
runs and returns its document as a :class:`Release`: the same bytes for the same seed
(tested), read the same way, checked the same way, with the same errors raised (as
exceptions, not exit codes).  ``data`` is:

* a path (``str`` or ``os.PathLike``): CSV, Parquet or a text file, as the command line
  reads it;
* a pandas or Polars DataFrame, a pyarrow Table or a DuckDB relation: written once by
  DuckDB to a temporary Parquet file (a column's values keep their type; numbers are
  read exactly through their text, as the command line reads Parquet), then read as a
  path.  pandas, Polars and pyarrow are optional: only the caller's own kind is needed;
* a Spark DataFrame: written by its own session to one temporary Parquet file (one
  task writes it) and released by the Spark engine (``engine="duckdb"`` reads the
  same file with DuckDB: the same document but for ``"engine"``).

Keys are the user's own values, numbers the user's own numbers.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from .errors import ParameterError, ParameterTypeError
from .resources import check_limits

__all__ = ["Release", "release"]


def release(
    data: Any,
    *,
    mechanism: str | None = None,
    column: str | None = None,
    columns: Sequence[str] | None = None,
    universe: str | None = None,
    epsilon: object = None,
    rho: object = None,
    nulls: str | None = None,
    seed: str | bytes | None = None,
    engine: str | None = None,
    **options: object,
) -> Release:
    """A private release of ``data``: ``finitedp release``'s document, as a :class:`Release`.

    Paper: the mechanism's own (``finitedp.registry``: BV's histograms, Lebeda's
    sketches, sums, quantiles and PLAN); each document names it and its neighbours.

    Args:
        data: a path, or a pandas / Polars DataFrame, a pyarrow Table, a DuckDB relation,
            or a Spark DataFrame (written by its own session as one Parquet file, then
            released by the Spark engine unless ``engine`` says otherwise).
        mechanism: as ``--mechanism`` (the default rule without it, as on the command line).
        column: the key column of a histogram or sketch.
        columns: the numeric columns of a sum, quantile or mean.
        universe: as ``--universe`` (``"utf8:16"``, ``"int:0..59"``, ``"keys=A,B"``...).
        epsilon, rho: the budget (exact: ``int``, ``Fraction`` or ``"a/b"``; a float is
            refused).
        nulls: as ``--nulls``.
        seed: as ``--seed`` (hex text or bytes): reproducible and NOT private.
        engine: ``"duckdb"`` (default; ``"spark"`` for a Spark DataFrame) or ``"spark"``.
        **options: any other option of ``finitedp release``, by its name (``delta``, ``k``,
            ``bounds``, ``grid``, ``beta``, ``clamp=True``, ``other=True``...).

    Returns:
        The release.

    Raises:
        ParameterError, ParameterTypeError, FloatParameterError: as the command line's
            refusals (nothing is released).
    """
    from .cli import _parser  # the command line's own reading of every option

    flags: dict[str, object] = {
        "mechanism": mechanism,
        "column": column,
        "columns": None if columns is None else _joined(columns, "columns"),
        "universe": universe,
        "epsilon": epsilon,
        "rho": rho,
        "nulls": nulls,
        "seed": seed.hex() if isinstance(seed, bytes) else seed,
        "engine": engine,
        **options,
    }
    if engine is None and _kind(data) == "pyspark":  # a Spark DataFrame stays with Spark
        flags["engine"] = "spark"
    with _as_path(data) as path, tempfile.TemporaryDirectory(prefix="finitedp-api-") as folder:
        out = os.path.join(folder, "release.json")
        argv = ["release", path, *_argv(flags), "--out", out, "--quiet"]
        args = _parser(argv).parse_args(argv)
        check_limits()  # a malformed FINITEDP_MAX_SECONDS or _MEMORY, as the command says
        with open(os.devnull, "w") as sink, contextlib.redirect_stderr(sink):
            args.run(args)
        text = Path(out).read_text(encoding="utf-8")
    return Release(json.loads(text), text)


def _joined(values: Sequence[str], name: str) -> str:
    if isinstance(values, str):
        return values
    if not all(isinstance(v, str) for v in values):
        raise ParameterTypeError(f"{name}: got {values!r}; give the column names as strings")
    return ",".join(values)


def _argv(flags: Mapping[str, object]) -> list[str]:
    """The command line's flags for keyword arguments (``None`` left out)."""
    from .params import exact_fraction

    argv: list[str] = []
    for name, value in flags.items():
        if value is None or value is False:
            continue
        flag = "--" + name.replace("_", "-")
        if value is True:
            argv.append(flag)
            continue
        if isinstance(value, float):
            exact_fraction(value, name)  # refused with the library's message
        if isinstance(value, Fraction):
            value = f"{value.numerator}/{value.denominator}"
        argv.append(f"{flag}={value}")
    return argv


@contextlib.contextmanager
def _as_path(data: Any) -> Iterator[str]:
    """``data`` as a file path: itself, or a temporary Parquet copy of a frame."""
    if isinstance(data, str | os.PathLike):
        yield os.fspath(data)
        return
    kind = _kind(data)
    if kind == "pyspark":
        with tempfile.TemporaryDirectory(prefix="finitedp-frame-") as folder:
            yield _spark_parquet(data, folder)
        return
    if kind not in ("pandas", "polars", "pyarrow", "duckdb"):
        raise ParameterTypeError(
            f"data: got a {type(data).__name__}; give a path, a pandas or Polars DataFrame, "
            "a pyarrow Table or a DuckDB relation"
        )
    import duckdb

    with tempfile.TemporaryDirectory(prefix="finitedp-frame-") as folder:
        path = os.path.join(folder, "data.parquet")
        if kind == "duckdb":
            data.write_parquet(path)
        else:
            con = duckdb.connect()
            try:
                con.register("frame", data)
            except Exception as error:  # pragma: no cover - a frame DuckDB cannot scan
                raise ParameterError(f"data: DuckDB cannot read it ({error})") from None
            con.execute(f"COPY frame TO '{path}' (FORMAT parquet)")
            con.close()
        yield path


def _kind(data: Any) -> str:
    """The library a frame comes from (``pyspark``, ``pandas``, ...), by its type's module."""
    return type(data).__module__.split(".")[0]


def _spark_parquet(frame: Any, folder: str) -> str:
    """A Spark DataFrame written by Spark itself as one Parquet file in ``folder`` (its
    columns' types kept; one task writes it, as the release then reads one file)."""
    written = os.path.join(folder, "spark")
    try:
        frame.coalesce(1).write.parquet(written)
    except Exception as error:  # Spark's own errors: one line, not a Py4J traceback
        from .engines.spark.session import spark_refusal

        refusal = spark_refusal(error)
        said = refusal or error
        raise ParameterError(f"data: Spark could not write the DataFrame: {said}") from None
    parts = sorted(n for n in os.listdir(written) if n.endswith(".parquet"))
    if len(parts) != 1:  # pragma: no cover - coalesce(1) writes one part (or one empty)
        raise ParameterError(f"data: Spark wrote {len(parts)} Parquet parts; expected one")
    path = os.path.join(folder, "data.parquet")
    os.replace(os.path.join(written, parts[0]), path)
    return path


class Release:
    """A release document: the exact JSON, its words, and its table.

    Attributes:
        document: the parsed JSON document (exact fractions as strings).
        text: the JSON text, byte for byte what ``finitedp release`` writes.
    """

    __slots__ = ("document", "text")

    def __init__(self, document: dict[str, Any], text: str) -> None:
        self.document, self.text = document, text

    @property
    def mechanism(self) -> str:
        """The mechanism's registry name."""
        return str(self.document["mechanism"])

    @property
    def guarantee(self) -> dict[str, Any]:
        """The privacy statement (``epsilon``, ``delta`` or ``rho``, as exact strings)."""
        return dict(self.document["privacy"])

    def explain(self) -> str:
        """The release in words: what ``finitedp query RELEASE`` prints."""
        from .cli.describe import describe_release

        return "\n".join(describe_release(self.document, "release"))

    def rows(self) -> list[dict[str, Any]]:
        """The table: one row per released key (``value``, ``count``) or per column
        (``column``, ``estimate``, and where stated ``noise_variance`` in the data's units
        and ``in_range``, the estimate moved into its public range), figures as exact
        ``Fraction``/``int``."""
        if "estimates" in self.document:
            out = []
            for e in self.document["estimates"]:
                row: dict[str, Any] = {"column": e["column"], "estimate": Fraction(str(e["value"]))}
                if "noise_variance" in e:
                    row["noise_variance"] = Fraction(str(e["noise_variance"]))
                if "value_in_range" in e:
                    row["in_range"] = Fraction(str(e["value_in_range"]))
                for key in ("present_count", "mean_of_present"):
                    if key in e:
                        row[key] = Fraction(str(e[key]))
                out.append(row)
            return out
        return [
            {"value": b.get("value"), "count": Fraction(str(b["count"]))}
            for b in self.document.get("bins", [])
        ]

    def to_pandas(self) -> Any:
        """:meth:`rows` as a pandas DataFrame, figures as readable floats (display only:
        the exact figures stay in :attr:`document`).

        Raises:
            ParameterError: pandas is not installed.
        """
        try:
            import pandas
        except ImportError:
            raise ParameterError(
                "to_pandas: pandas is not installed; pip install 'finitedp[frames]'"
            ) from None
        rows = self.rows()
        for row in rows:
            for key in (
                "count",
                "estimate",
                "noise_variance",
                "in_range",
                "present_count",
                "mean_of_present",
            ):
                if key in row:
                    row[key] = float(row[key])
        return pandas.DataFrame(rows)

    def _repr_html_(self) -> str:
        from html import escape

        rows = "".join(
            "<tr>" + "".join(f"<td>{escape(str(v))}</td>" for v in row.values()) + "</tr>"
            for row in self.rows()[:50]
        )
        head = "".join(f"<th>{escape(k)}</th>" for k in (self.rows() or [{}])[0])
        return f"<pre>{escape(self.explain())}</pre><table><tr>{head}</tr>{rows}</table>"

    def __repr__(self) -> str:
        return f"<finitedp Release {self.mechanism}: {len(self.rows())} rows>"
