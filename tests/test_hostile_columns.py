"""The standing hostile suite of the column mechanisms and basket files (issue 40 item 2).

Every row is a command line a careless or hostile user could type against
``vector-laplace``, ``vector-gaussian``, ``quantile-exponential``, ``quantile-binary``
or ``plan-mean``: huge or tiny bounds, grids and budgets, malformed numbers, options
of the wrong mechanism, shapes nobody meant.  Each runs in-process under the hostile
limits (10 s of estimated work, 1 GiB) and must end clean: exit 0 with a release, or
exit 2 with one line on stderr that names a flag, file or variable the user gave,
never a traceback.  Work, not time, is what a test reads (``tests/work.py``): a hang
is caught by the outer guard.
"""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pytest
from cli_run import run
from work import hang_guard

from finitedp.io.baskets import MAX_ITEMS

HUGE = "1e9999"
DIGITS = "7" * 5000  # past Python's 4,300-digit str() limit
TINY = "1e-9999"

#: (mechanism, its budget flag, the options it needs besides --columns/--bounds)
MECHANISMS = [
    ("vector-laplace", "--epsilon", []),
    ("vector-gaussian", "--rho", []),
    ("quantile-exponential", "--epsilon", ["--quantile", "1/2"]),
    ("quantile-binary", "--epsilon", ["--quantile", "1/2"]),
    ("plan-mean", "--rho", []),
]

#: Values of the budget flag: extreme, malformed, or of another form.
BUDGETS = [
    "0", "-1", "1e9", "1000000000", HUGE, TINY, "1/" + DIGITS, DIGITS, "nan", "inf",
    "1/3.0", "half", "", "0x10", "1_0", "\u0661", "1e-9", "1/0",
]  # fmt: skip

#: --bounds values (with --grid 1 unless the row says otherwise).
BOUNDS = [
    "0:" + HUGE, "-" + HUGE + ":" + HUGE, "5:1", "1:1", "0:" + DIGITS, "a:b", "0", "0:1:2",
    "0:100,0:100,0:100", ":", "0:1e15", "-1e15:1e15", "nan:1",
]  # fmt: skip

#: --grid values (with --bounds 0:100).
GRIDS = ["0", "-1", TINY, "1/" + DIGITS, HUGE, "1e-15", "3", "200", "1/3,1/3,1/3", "x"]

#: Other flags, one at a time.
OTHERS = [
    ["--beta", "0"], ["--beta", "1"], ["--beta", "2"], ["--beta", "1/" + DIGITS],
    ["--p", "1000000000"], ["--p", "0"], ["--p", DIGITS], ["--p", "1/2"],
    ["--quantile", "2"], ["--quantile", "-1"], ["--quantile", "1/" + DIGITS],
    ["--rounds", DIGITS], ["--rounds", "0"], ["--rounds", "17"],
    ["--columns", "zz"], ["--columns", "a,a"], ["--columns", ""],
    ["--universe", "int:5"], ["--column", "a"], ["--items", "5"], ["--k", "3"],
    ["--clamp"], ["--seed", "zz"], ["--delta", "1/100"],
]  # fmt: skip

#: The limits' variables, malformed.
ENVIRONMENTS = ["0", "-5", "abc", "1.5", "", "9" * 40]


def _cases() -> list[tuple[str, list[str], dict[str, str]]]:
    cases: list[tuple[str, list[str], dict[str, str]]] = []
    for (name, budget, extra), value in itertools.product(MECHANISMS, BUDGETS):
        argv = ["--columns", "a", "--bounds", "0:100", *extra, budget, value]
        cases.append((f"{name} {budget} {value[:12]!r}", [name, *argv], {}))
    for (name, budget, extra), bounds in itertools.product(MECHANISMS, BOUNDS):
        argv = ["--columns", "a,b", f"--bounds={bounds}", *extra, budget, "1"]
        cases.append((f"{name} --bounds {bounds[:16]!r}", [name, *argv], {}))
    for (name, budget, extra), grid in itertools.product(MECHANISMS, GRIDS):
        argv = ["--columns", "a,b", "--bounds", "0:100", f"--grid={grid}", *extra, budget, "1"]
        cases.append((f"{name} --grid {grid[:16]!r}", [name, *argv], {}))
    for (name, budget, extra), other in itertools.product(MECHANISMS, OTHERS):
        argv = ["--columns", "a,b", "--bounds", "0:100", *extra, budget, "1", *other]
        cases.append((f"{name} {' '.join(other)[:20]}", [name, *argv], {}))
    for (name, budget, extra), text in itertools.product(MECHANISMS, ENVIRONMENTS):
        argv = ["--columns", "a", "--bounds", "0:100", *extra, budget, "1"]
        cases.append((f"{name} SECONDS={text[:8]!r}", [name, *argv], {"SECONDS": text}))
        cases.append((f"{name} MEMORY={text[:8]!r}", [name, *argv], {"MEMORY": text}))
    return cases


CASES = _cases()

#: Basket files: --format baskets with hostile --items and files.
BASKETS = [
    ("items 0", ["--items", "0"], "b.txt"),
    ("items max", ["--items", str(MAX_ITEMS)], "b.txt"),
    ("items above max", ["--items", str(MAX_ITEMS + 1)], "b.txt"),
    ("items digits", ["--items", DIGITS], "b.txt"),
    ("items fraction", ["--items", "5/2"], "b.txt"),
    ("items missing", [], "b.txt"),
    ("an id past items", ["--items", "3"], "b.txt"),
    ("a negative id", ["--items", "10"], "neg.txt"),
    ("a word as id", ["--items", "10"], "word.txt"),
    ("a huge id", ["--items", "10"], "hugeid.txt"),
    ("an empty file", ["--items", "10"], "empty.txt"),
    ("with --columns", ["--items", "10", "--columns", "a"], "b.txt"),
    ("with --bounds", ["--items", "10", "--bounds", "0:1"], "b.txt"),
    ("a folder", ["--items", "10"], "folder"),
    ("a missing file", ["--items", "10"], "missing.txt"),
]


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("hostile-columns")
    rows = [f"{i % 11},{(7 * i) % 101},{i % 5 - 2}" for i in range(40)]
    (path / "num.csv").write_text("a,b,c\n" + "\n".join(rows) + "\n", encoding="utf-8")
    (path / "b.txt").write_text("".join(f"{i % 7} {(i * 3) % 10}\n" for i in range(60)))
    (path / "neg.txt").write_text("1 2\n-3\n")
    (path / "word.txt").write_text("1 2\nthree\n")
    (path / "hugeid.txt").write_text("1 " + "9" * 5000 + "\n")
    (path / "empty.txt").write_text("")
    (path / "folder").mkdir()
    return path


@pytest.fixture(autouse=True)
def hostile_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hostile suite's limits: 10 s of estimated work, 1 GiB."""
    monkeypatch.setenv("FINITEDP_MAX_SECONDS", "10")
    monkeypatch.setenv("FINITEDP_MAX_MEMORY", "1G")


def _clean(
    argv: list[str], data: Path, capsys: pytest.CaptureFixture[str], mp: pytest.MonkeyPatch
) -> tuple[int, str, str]:
    mp.chdir(data)
    with hang_guard():
        code, out, err = run(argv, capsys)
    assert code in (0, 2), (code, err[-500:])
    assert "Traceback" not in err
    lines = err.splitlines()
    if code == 2:
        assert out == "" and len(lines) == 1, err
        message = lines[0]
        assert message.startswith("finitedp release: "), message
        named = [a for a in argv if a.startswith("--")] + ["FINITEDP_MAX_", ".txt", ".csv"]
        named += ["folder", "d: PLAN's steps"]
        assert any(flag.split("=")[0] in message for flag in named), message
        assert max(len(word) for word in message.split()) < 200, message  # no 5000-digit echo
        assert not re.search(r"[0-9]{31}", message), message  # issue 42: at most 30 digits
    else:
        json.loads(out)  # a whole release document
    return code, out, err


@pytest.mark.parametrize(("argv", "env"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_column_mechanisms_end_clean(
    argv: list[str],
    env: dict[str, str],
    data: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for key, value in env.items():
        monkeypatch.setenv(f"FINITEDP_MAX_{key}", value)
    code, _, err = _clean(["release", "num.csv", "--mechanism", *argv], data, capsys, monkeypatch)
    if env and env.get("SECONDS", env.get("MEMORY")) != "9" * 40:
        assert code == 2 and f"FINITEDP_MAX_{next(iter(env))}" in err  # refused, not ignored


@pytest.mark.parametrize(("argv", "name"), [b[1:] for b in BASKETS], ids=[b[0] for b in BASKETS])
def test_basket_files_end_clean(
    argv: list[str],
    name: str,
    data: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    base = ["release", name, "--format", "baskets", "--mechanism", "plan-mean", "--rho", "1"]
    _clean([*base, *argv], data, capsys, monkeypatch)


def test_the_suite_is_large_enough() -> None:
    assert len(CASES) + len(BASKETS) >= 300


#: Issue 40 item 2, the histogram side: commands that ran unbounded or could not be
#: acted on.  Each must end under the hostile limits with one line naming what to change.
SMALL = ["release", "small.csv", "--column", "a", "--universe", "utf8:4", "--quiet"]
HISTOGRAMS = [
    ("stability at eps 10^-6", [*SMALL, "--mechanism", "stability", "--delta", "1/10",
                                "--epsilon", "1/1000000"], "epsilon"),
    ("pure-sparse at eps 10^-6", [*SMALL, "--mechanism", "pure-sparse", "--epsilon",
                                  "1/1000000"], "epsilon"),
    ("the default at eps 10^-6", [*SMALL, "--epsilon", "1/1000000"], "epsilon"),
    ("pmg k 10^7", [*SMALL, "--mechanism", "pmg", "--k", "10000000", "--delta", "1/10",
                    "--epsilon", "1"], "k = 10000000"),
    ("bounded-geometric over 10^7 bins", ["release", "small.csv", "--column", "a",
     "--universe", "int:10000000", "--mechanism", "bounded-geometric", "--epsilon", "1"],
     "10,000,000 bins"),
    ("alp over utf8:65536", [*SMALL[:5], "utf8:65536", "--mechanism", "alp", "--epsilon", "1"],
     "utf8:L"),
    ("pmg-pure audit at n = 3", ["audit", "pmg-pure", "--n", "3", "--universe-size", "3",
     "--epsilon", "1", "--k", "1", "--max-length", "3"], "FINITEDP_MAX_SECONDS"),
    ("pmg-pure k 10^8", [*SMALL, "--mechanism", "pmg-pure", "--k", "100000000",
                         "--max-length", "10", "--epsilon", "1"], "--k: got 100000000"),
    ("pmg-pure max-length 10^11", [*SMALL, "--mechanism", "pmg-pure", "--k", "2",
                                   "--max-length", "100000000000", "--epsilon", "1"],
     "max_length: got 100000000000"),
    ("10^4 columns", ["release", "wide.csv", "--mechanism", "vector-laplace", "--bounds", "0:9",
                      "--epsilon", "1", "--columns", ",".join(f"c{i}" for i in range(10_000))],
     "--columns: got 10,000 columns"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("argv", "named"), [h[1:] for h in HISTOGRAMS], ids=[h[0] for h in HISTOGRAMS]
)
def test_histogram_extremes_are_refused_by_name(
    argv: list[str],
    named: str,
    data: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (data / "small.csv").write_text("a\n1\n2\n1\n", encoding="utf-8")
    header = ",".join(f"c{i}" for i in range(10_000))
    (data / "wide.csv").write_text(header + "\n" + ",".join("1" * 10_000) + "\n")
    monkeypatch.chdir(data)
    with hang_guard():
        code, out, err = run(argv, capsys)
    assert code == 2 and out == "" and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and named in err, err


def test_compact_beyond_its_fields_is_a_size_limit_and_the_default_moves_on() -> None:
    from finitedp.compact.histogram import CompactHistogram
    from finitedp.errors import ResourceLimitError

    # A size limit, not a bad parameter: the default mechanism moves on past it.
    with pytest.raises(ResourceLimitError, match=r"epsilon = 1, n = 1000000, .*3\^13"):
        CompactHistogram(10**6, 10_000, 1, counter="geo")
