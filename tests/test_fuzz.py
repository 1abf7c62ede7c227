"""Fuzzing: hostile parameters and files never give a traceback, a hang or a partial file.

Laws, stated for any input hypothesis can make up:

* a constructor either builds the object or raises a ``FiniteDPError`` (a
  ``ValueError`` or ``TypeError``), within a few seconds;
* a command exits with 0 or 2 (1 only for a failed audit claim), prints no
  traceback, writes nothing when it fails, and stays under a memory cap
  (each command runs in a subprocess limited by ``resource``).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from collections.abc import Callable
from contextlib import suppress
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from work import HANG_SECONDS, hang_guard

from finitedp import (
    BoundedGeometricHistogram,
    CompactHistogram,
    FastSample,
    FiniteDPError,
    GeoSample,
    PureSparseHistogram,
    StabilityHistogram,
)
from finitedp.alp import ALP

SECONDS = 10
MEMORY = 3 << 30  # the address-space cap of a fuzzed command (the default limit is 4 GiB of data)

# Numbers as a careless or hostile user types them.
number_texts = st.one_of(
    st.sampled_from(
        [
            "1",
            "1/2",
            "1/10",
            "0",
            "-1",
            "1/0",
            "0.5",
            "1e-3",
            "nan",
            "inf",
            "1/3.0",
            "",
            " ",
            "1_0",
            "\uff11/\uff12",
            "1/" + "1" + "0" * 60,
            "1/" + "1" + "0" * 5000,
            "99999999999",
            "1/1000",
            "1/20000",
            "2/3",
            "1e99999",
            "0x10",
            "1/10^48",
        ]
    ),
    st.fractions(min_value=Fraction(1, 10**6), max_value=10).map(str),
    # argv cannot hold NUL or lone surrogates; everything else is fair game.
    st.text(st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), max_size=8),
)
exact_values: st.SearchStrategy[object] = st.one_of(
    st.sampled_from([0, 1, 2, -1, True, 0.5, float("nan"), "1/2", "1/1000", None, [], "x"]),
    st.fractions(min_value=Fraction(-1), max_value=Fraction(4)),
    st.integers(-3, 10**6),
)


#: The memory limit of in-process builds: the default 4 GiB admits work (a 4-Gbit
#: FastSample d at n = 1900, eps = 2831/2^33) that takes longer than SECONDS, and the
#: law here is "build or refuse, within the time", not "how fast is the largest build".
IN_PROCESS_LIMIT = "256M"


def refuses_cleanly(build: Callable[[], object]) -> None:
    previous = os.environ.get("FINITEDP_MAX_MEMORY")
    os.environ["FINITEDP_MAX_MEMORY"] = IN_PROCESS_LIMIT
    try:
        with hang_guard(), suppress(FiniteDPError):
            build()
    finally:
        if previous is None:
            del os.environ["FINITEDP_MAX_MEMORY"]
        else:
            os.environ["FINITEDP_MAX_MEMORY"] = previous


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(-2, 10**4), exact_values, exact_values)
def test_counting_samplers_build_or_refuse(n: int, epsilon: object, gamma: object) -> None:
    refuses_cleanly(lambda: GeoSample(n, epsilon))
    refuses_cleanly(lambda: FastSample(n, epsilon, gamma))
    refuses_cleanly(lambda: FastSample(n, epsilon, gamma, noise="tight"))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(-1, 50),
    st.one_of(st.integers(-1, 10**6), st.sampled_from([2**64, 2**300, 0.5, "10"])),
    exact_values,
    exact_values,
)
def test_histogram_mechanisms_build_or_refuse(
    n: int, universe: object, epsilon: object, other: object
) -> None:
    refuses_cleanly(lambda: BoundedGeometricHistogram(n, universe, epsilon, other))
    refuses_cleanly(lambda: StabilityHistogram(n, universe, epsilon, other, "1/10"))
    refuses_cleanly(lambda: PureSparseHistogram(n, universe, epsilon, other))
    refuses_cleanly(lambda: CompactHistogram(n, universe, epsilon, other))
    refuses_cleanly(lambda: ALP(universe, epsilon, n, other))  # type: ignore[arg-type]
    refuses_cleanly(lambda: ALP(universe, epsilon, n, 30, alpha=other))  # type: ignore[arg-type]
    refuses_cleanly(lambda: ALP(universe, other, n, 30, variant="histogram"))  # type: ignore[arg-type]


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def finitedp(
    args: list[str], cwd: Path, stdin: bytes = b"", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    # The library's limits, set below the process caps: a refusal must come first, and
    # whatever the time estimate lets through must end within the timeout.
    limits = {"FINITEDP_MAX_MEMORY": "1G", "FINITEDP_MAX_SECONDS": str(SECONDS)}
    env = {**os.environ, "PYTHONHASHSEED": "0", **limits, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "finitedp", *args],
        cwd=cwd,
        input=stdin.decode("utf-8", "replace"),
        capture_output=True,
        text=True,
        timeout=HANG_SECONDS,  # against true hangs only: 10x SECONDS, never a measure
        preexec_fn=_limits,
        env=env,
        check=False,
    )


def assert_clean(result: subprocess.CompletedProcess[str], allowed: tuple[int, ...]) -> None:
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    assert result.returncode in allowed, (result.returncode, result.stderr[-500:])


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("fuzz")
    (path / "d.csv").write_text("v\n1\n2\n2\n", encoding="utf-8")
    return path


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    number_texts,
    st.sampled_from(["int:10", "int:1", "utf8:16", "utf8:300", "int:0", "int:" + "9" * 40, "x"]),
    st.sampled_from(["", "bounded-geometric", "stability", "pure-sparse", "compact"]),
    st.sampled_from([[], ["--delta", "1/100"], ["--counter", "geo"], ["--beta", "1/2"]]),
)
def test_release_exits_0_or_2_and_writes_nothing_on_error(
    workdir: Path, epsilon: str, universe: str, mechanism: str, extra: list[str]
) -> None:
    out = workdir / "out.json"
    out.unlink(missing_ok=True)
    args = ["release", "d.csv", "--column", "v", "--universe", universe, "--epsilon", epsilon]
    args += (["--mechanism", mechanism] if mechanism else []) + extra
    result = finitedp([*args, "--out", "out.json", "--quiet"], workdir)
    assert_clean(result, (0, 2))
    assert out.exists() == (result.returncode == 0)
    if result.returncode == 0:
        json.loads(out.read_text(encoding="utf-8"))


def _mutate(document: Any, path: list[Any], value: Any) -> Any:
    target = document
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return document


@pytest.fixture(scope="module")
def made() -> dict[str, str]:
    """The crafted-release test's releases, by mechanism."""
    return {}


hostile_json_values = st.one_of(
    st.sampled_from([None, True, -1, 0, 2.7, 10**30, "1/1000", "1/20000", "x", [], {}, [1]]),
    st.integers(-(2**70), 2**70),
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=5),
)


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    st.sampled_from(["bounded-geometric", "compact"]),
    st.sampled_from(
        [
            ["universe_size"],
            ["release", "universe_size"],
            ["release", "bins"],
            ["release", "counter", "epsilon"],
            ["release", "counter", "n"],
            ["release", "counter", "noise"],
            ["release", "n"],
            ["release", "l"],
            ["parameters", "n"],
            ["universe"],
        ]
    ),
    hostile_json_values,
)
def test_query_on_crafted_releases_exits_0_or_2(
    workdir: Path, made: dict[str, str], mechanism: str, path: list[str], value: Any
) -> None:
    if mechanism not in made:  # one release per mechanism (its seed fixes it): made once
        made[mechanism] = finitedp(
            [
                "release",
                "d.csv",
                "--column",
                "v",
                "--universe",
                "int:10",
                "--epsilon",
                "1",
                "--mechanism",
                mechanism,
                "--seed",
                "00",
                "--quiet",
            ],
            workdir,
        ).stdout
    document = json.loads(made[mechanism])
    try:
        crafted = _mutate(document, path, value)
    except (KeyError, TypeError):
        return
    result = finitedp(["query", "-", "1", "2"], workdir, json.dumps(crafted).encode())
    assert_clean(result, (0, 2))


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.sampled_from(["geo", "fast"]), number_texts, number_texts, number_texts)
def test_audit_exits_0_1_or_2(workdir: Path, target: str, n: str, epsilon: str, gamma: str) -> None:
    args = ["audit", target, "--n", n, "--epsilon", epsilon, "--no-distributions", "--quiet"]
    if target == "fast":
        args += ["--gamma", gamma, "--beta", "3/4"]
    assert_clean(finitedp(args, workdir), (0, 1, 2))
