"""The standing hostile suite of the command line (issue 27): one row per case found.

Each row is a command line run in a subprocess under a time and an address-space cap
(``test_fuzz.finitedp``): its exit status, a pattern its one-line message must match,
and whether it may write or replace a file.  A row that succeeds says what it must
produce instead.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_fuzz import _limits, assert_clean, finitedp

BIG = "1/" + "1" * 5000  # a 5000-digit denominator: past Python's 4300-digit str() limit
C = ["release", "c.csv", "--column", "c", "--universe", "utf8:1"]
PMG_AUDIT = ["audit", "pmg", "--n", "2", "--universe", "3", "--epsilon", "1", "--delta", "1/100"]
COMPARE = ["audit", "compare", "--reference", "geo", "--n", "5", "--count", "2"]
COMPARE += ["--epsilon", "1", "--samples", "50", "--quiet"]
ALP = ["release", "kv.csv", "--column", "k", "--universe", "int:5", "--mechanism", "alp"]

#: (name, argv, exit status, stderr pattern): every message is one line, no traceback.
CASES = [
    # item 4: refusals that format huge numbers
    (
        "epsilon 1e9999",
        [*C, "--epsilon", "1e9999"],
        2,
        r"--epsilon: got <a 33216-bit integer>; tight noise takes epsilon up to 64",
    ),
    (
        "epsilon with a 5000-digit denominator",
        [*C, "--epsilon", BIG],
        2,
        r"--epsilon|epsilon = 1/<a \d+-bit integer>",
    ),
    (
        "value bound 1e9999",
        [*ALP, "--epsilon", "1", "--value-column", "v", "--value-bound", "1e9999"],
        2,
        r"^finitedp release: --value-bound: got <a 33216-bit integer>; at most 2\^64",
    ),
    (
        "value column equal to the key column",
        [*ALP, "--epsilon", "1", "--value-column", "k", "--value-bound", "3"],
        2,
        r"--value-column: got 'k', the key column",
    ),
    # item 4: options read as numbers, ignored options, a folder named as a file, bytes
    *[
        (
            f"audit --k {text!r}",
            [*PMG_AUDIT, "--k", text],
            2,
            r"--k: got .*; write a whole number in ASCII digits",
        )
        for text in ("\u0661", "\uff11", "0_1")
    ],
    (
        "pmg --k beyond memory",
        [*ALP[:-1], "pmg", "--epsilon", "1", "--delta", "1/1000", "--k", "1000000000000"],
        2,
        r"k = 1000000000000: the sketch's 1000000000000 counters would need about 181\.8 TiB",
    ),
    (
        "pmg --k of 101 digits",
        [*ALP[:-1], "pmg", "--epsilon", "1", "--delta", "1/1000", "--k", "1" + "0" * 100],
        2,
        r"k = <a 333-bit integer>: the sketch's",
    ),
    ("audit pmg --k 10^18", [*PMG_AUDIT, "--k", "1" + "0" * 18], 2, r"k = 10{18}: the sketch"),
    (
        "audit compare --samples 10^12",
        [*COMPARE[:2], "user_one:draw", *COMPARE[2:-3], "--samples", "1" + "0" * 12, "--quiet"],
        2,
        r"--samples: got 1000000000000; at most 100,000,000 draws",
    ),
    (
        "audit pmg without --delta",
        PMG_AUDIT[:-2],
        2,
        r"--delta: the pmg audit needs it \(the delta of Private Misra-Gries",
    ),
    (
        "alp over utf8:65536",
        [
            "release",
            "c.csv",
            "--column",
            "c",
            "--universe",
            "utf8:65536",
            "--epsilon",
            "1",
            "--mechanism",
            "alp",
        ],
        2,
        r"a universe of 524289-bit keys needs hash words of 524352 bits; .* utf8:L with L <=",
    ),
    (
        "audit geo --slack with paper noise",
        ["audit", "geo", "--n", "3", "--epsilon", "1", "--slack", "1/10"],
        2,
        r"--slack: got 1/10; only tight noise has a slack",
    ),
    (
        "--out naming a folder that does not exist",
        [*C, "--epsilon", "1", "--out", "missing/newfile/"],
        2,
        r"--out: missing/newfile/ names a directory \(it ends with /\)",
    ),
    (
        "a Parquet BLOB that is not UTF-8",
        ["release", "blob.parquet", "--column", "k", "--universe", "utf8:4", "--epsilon", "1"],
        2,
        r"blob.parquet: cannot read it as Parquet: .*invalid UTF8",
    ),
    # item 6: a valid request refused
    (
        "the default mechanism with --noise tight",
        [*C, "--epsilon", "1", "--noise", "tight", "--out", "tight.json"],
        0,
        r"bounded-geometric",
    ),
    (
        "an option no default takes names every default",
        [*C, "--epsilon", "1", "--delta", "1/100"],
        2,
        r"only stability, alp, pmg take it, not the default mechanism "
        r"\(bounded-geometric, compact, blanket, pure-sparse\)",
    ),
    # item 5: user code in audit compare fails as an input error, with its exception
    *[
        (
            f"audit compare: {module}",
            [*COMPARE[:2], f"{module}:draw", *COMPARE[2:]],
            2,
            pattern,
        )
        for module, pattern in (
            ("user_syntax", r"importing 'user_syntax' failed: SyntaxError"),
            ("user_boom", r"importing 'user_boom' failed: RuntimeError: boom"),
            ("user_exit", r"importing 'user_exit' failed: SystemExit: 3"),
            ("user_quits", r"draw 0 raised SystemExit: 0"),
            ("user_huge", r"draw 0 returned <a 332193-bit integer>; draws of more than 4096"),
        )
    ],
    # item 7: a release saved under a picture's name is never replaced by the picture
    (
        "plot over its own release",
        ["plot", "release", "rel.png", "--out", "rel.png"],
        2,
        r"is the input file",
    ),
    (
        "plot over a link to its release",
        ["plot", "release", "rel.png", "--out", "link.png"],
        2,
        r"is the input file",
    ),
]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("hostile")
    (path / "c.csv").write_text("c\nA\nB\nA\n", encoding="utf-8")
    (path / "kv.csv").write_text("k,v\n1,2\n2,3\n", encoding="utf-8")
    import duckdb  # the Parquet file with a BLOB key holding the bytes FF FE

    target = str(path / "blob.parquet").replace("'", "''")
    duckdb.connect().execute(
        f"COPY (SELECT '\\xFF\\xFE'::BLOB AS k UNION ALL SELECT 'ab'::BLOB) TO '{target}' "
        "(FORMAT PARQUET)"
    )
    for module, text in (
        ("user_syntax", "def draw(:\n"),
        ("user_boom", "raise RuntimeError('boom')\n"),
        ("user_exit", "import sys\nsys.exit(3)\n"),
        ("user_quits", "def draw():\n    raise SystemExit(0)\n"),
        ("user_huge", "def draw():\n    return 10**100000\n"),
        ("user_one", "def draw():\n    return 1\n"),
    ):
        (path / f"{module}.py").write_text(text, encoding="utf-8")
    release = finitedp(
        [*C, "--epsilon", "1", "--quiet", "--out", "rel.png"],
        path,
    )
    assert release.returncode == 0, release.stderr
    os.symlink(path / "rel.png", path / "link.png")
    return path


@pytest.mark.parametrize(("name", "argv", "status", "pattern"), CASES, ids=[c[0] for c in CASES])
def test_hostile_command_line(
    workdir: Path, name: str, argv: list[str], status: int, pattern: str
) -> None:
    before = (workdir / "rel.png").read_bytes()
    result = finitedp([*argv, "--quiet"] if argv[0] == "release" else argv, workdir)
    assert_clean(result, (status,))
    assert (workdir / "rel.png").read_bytes() == before  # the release is never replaced
    if status == 2:
        assert result.stdout == "", result.stdout
        if "usage:" not in result.stderr:  # argparse's own refusals print the usage first
            assert result.stderr.count("\n") == 1, result.stderr
        assert re.search(pattern, result.stderr), result.stderr
    else:
        doc = json.loads((workdir / "tight.json").read_text(encoding="utf-8"))
        assert re.search(pattern, doc["mechanism"]) and doc["parameters"]["noise"] == "tight"


MILLION = ["release", "million.txt", "--universe", "utf8:8", "--epsilon", "1/2"]
TINY = [*C, "--epsilon", "1/1000000"]
PMF = ["plot", "pmf", "--n", "10"]
GEOMETRIC = [*COMPARE[:2], "user_one:draw", "--reference", "geometric"]
GEOMETRIC_TAIL = ["--count", "2", "--samples", "50", "--quiet"]

#: Issue 27 item 2: long work estimated and refused at once (name, argv, budget in
#: seconds or None for the default 10 minutes, stderr pattern).
TIME_CASES = [
    (
        "bounded-geometric --noise tight at epsilon 10^-6",
        [*TINY, "--mechanism", "bounded-geometric", "--noise", "tight"],
        None,
        r"epsilon = 1/1000000, gamma = 1/5140, n = 3: FastSample('s integers \(d = .* would "
        r"need about \d+\.\d GiB, above the limit| \(t = \d+\) over \d+-bit integers and 257 "
        r"samples would take about \d+ (min|h), above the time budget of 10 min)",
    ),
    (
        "plot pmf at epsilon 10^-6",
        [*PMF, "--epsilon", "1/1000000", "--gamma", "1/4", "--count", "3", "--out", "pmf.png"],
        None,
        r"22 exact probabilities over \d+-bit integers would take about [\d,]+ days",
    ),
    (
        "stability --counter geo at n = 10^6",
        [*MILLION, "--mechanism", "stability", "--counter", "geo", "--delta", "1/1000"],
        None,
        r"n = 1000000, epsilon = 1/2: GeoSample over \d+-bit integers and 1000000 "
        r"samples would take about \d+ (h|days)",
    ),
    (
        "pure-sparse at n = 10^6",
        [*MILLION, "--mechanism", "pure-sparse"],
        None,
        r"n = 1000000: the pure sparse histogram \(strict work pads to n values\) would take "
        r"about 94 min, above the time budget of 10 min; use fewer rows, or approximate DP",
    ),
    (
        "audit compare against a geometric law of 10^12 + 1 values",
        [*GEOMETRIC, "--n", "1" + "0" * 12, "--ratio", "2", *GEOMETRIC_TAIL],
        None,
        r"n = 1000000000000, ratio = 2: each exact probability of the geometric law would "
        r"need about 1\.8 TiB, above the limit",
    ),
    (
        "audit compare against a geometric law of ratio (10^50 + 1)/10^50",
        [*GEOMETRIC, "--n", "100000", "--ratio", f"{10**50 + 1}/{10**50}", *GEOMETRIC_TAIL],
        None,
        r"n = 100000, ratio = <a 167-bit integer>/<a 167-bit integer>: the geometric law's "
        r"table would need about [\d.]+ GiB",
    ),
    (
        "release /dev/zero (no line ends)",
        ["release", "/dev/zero", "--universe", "utf8:4", "--epsilon", "1"],
        None,
        r"/dev/zero: no line break in 64\.0 MiB; text input is lines of text",
    ),
    (
        "release /dev/urandom --column c (not text)",
        ["release", "/dev/urandom", "--column", "c", "--universe", "utf8:4", "--epsilon", "1"],
        None,
        r"/dev/urandom: byte [\d,]+ is not UTF-8 text; CSV and text input must be UTF-8",
    ),
    (
        "the default at n = 10^6 over a large universe, with a 20-second budget",
        MILLION,
        "20",
        r"no pure-DP default fits the limits for n = 1,000,000: compact: .* would need about "
        r"[\d.]+ GiB.*; blanket: .* would take about \d+ s.*; pure-sparse: .* would take about "
        r"94 min.*What works: with approximate DP, --mechanism stability --delta 1/1000000",
    ),
]


def test_the_default_releases_a_million_rows_over_a_large_universe(workdir: Path) -> None:
    """Issue 25 item 1: with the documented budget the default never fails on a valid file
    (compact would need GiB, pure-sparse an hour and a half; the blanket takes seconds)."""
    if not (workdir / "million.txt").exists():
        (workdir / "million.txt").write_bytes(b"A\n" * 10**6)
    result = finitedp(
        [*MILLION, "--out", "million.json"], workdir, env={"FINITEDP_MAX_SECONDS": "600"}
    )
    assert_clean(result, (0,))
    assert "default mechanism blanket" in result.stderr
    assert "pure-sparse" not in result.stderr.split("default mechanism blanket")[1].split(";")[0]
    document = json.loads((workdir / "million.json").read_text(encoding="utf-8"))
    assert document["mechanism"] == "blanket"
    # The one value with its noisy count near 10^6 (and, with probability below beta/2,
    # an empty value of the blanket beside it).
    counts = {b["value"]: int(b["count"]) for b in document["bins"]}
    assert 10**6 - 100 <= counts["A"] <= 10**6


@pytest.mark.parametrize(
    ("name", "argv", "budget", "pattern"), TIME_CASES, ids=[c[0] for c in TIME_CASES]
)
def test_long_work_is_estimated_and_refused_at_once(
    workdir: Path, name: str, argv: list[str], budget: str | None, pattern: str
) -> None:
    if not (workdir / "million.txt").exists():
        (workdir / "million.txt").write_bytes(b"A\n" * 10**6)
    env = {"FINITEDP_MAX_SECONDS": budget or "600"}  # None: the documented default
    result = finitedp([*argv, "--quiet"] if argv[0] == "release" else argv, workdir, env=env)
    # At once, before the work: the message is the estimate's ("would take about ..."),
    # and nothing was written; the subprocess's outer timeout only guards against hangs.
    assert_clean(result, (2,))
    assert result.stdout == "" and result.stderr.count("\n") == 1, result.stderr
    assert re.search(pattern, result.stderr), result.stderr
    assert not (workdir / "pmf.png").exists()


def test_pmg_at_a_tiny_epsilon_is_released_within_a_minute(workdir: Path) -> None:
    """pmg at epsilon 10^-6 was refused by the time estimate (each of GeoSample's
    searches computed powers of ~10^7 bits); its searches now decide from leading bits
    (tests/test_leading_bits.py), the estimate fits a budget of 60 s, and it releases."""
    argv = [*TINY, "--mechanism", "pmg", "--k", "2", "--delta", "1/1000", "--quiet"]
    result = finitedp(argv, workdir, env={"FINITEDP_MAX_SECONDS": "60"})
    assert_clean(result, (0,))
    assert json.loads(result.stdout)["mechanism"] == "pmg"


def test_an_edited_vector_fails_at_once(workdir: Path) -> None:
    """A counting vector edited to n = 10^9 would take minutes to recompute: it fails
    within the per-vector budget (exit 1, the vector named), not after two minutes."""
    vector = {
        "id": "edited",
        "kind": "counting",
        "finitedp": 1,
        "sampler": "GeoSample",
        "params": {"noise": "paper", "n": "1000000000", "epsilon": "1"},
        "derived": {"a": "2", "b": "3", "k": "1", "d": "5"},
        "c": "0",
        "u": "1",
        "output": "0",
        "F_below": "0",
        "F_at": "3",
    }
    (workdir / "edited.jsonl").write_text(json.dumps(vector) + "\n", encoding="utf-8")
    # The memory limit at 4G: the time estimate (4 min, 1.6 GB) is what refuses, before
    # the 2-Gbit d is built (the message says so).
    limit = {"FINITEDP_MAX_MEMORY": "4G"}
    result = finitedp(["vectors", "verify", "edited.jsonl"], workdir, env=limit)
    assert_clean(result, (1,))
    assert re.search(
        r"FAILED at line 1 \(id edited\): ResourceLimitError: n = 1000000000, epsilon = 1: "
        r"GeoSample over 2000000001-bit integers would take about \d+ (s|min), above the time "
        r"budget of 10 s",
        result.stdout + result.stderr,
    )


def test_one_long_value_in_a_vast_universe_is_released(workdir: Path) -> None:
    """One 60 KB value under utf8:65536 (|X| = 2^524289 - 1): DistinctSample and the
    fallback's uniform values take the draws' values, not 524,289-step searches."""
    (workdir / "long.csv").write_text("c\n" + "x" * 60_000 + "\n", encoding="utf-8")
    argv = ["release", "long.csv", "--column", "c", "--universe", "utf8:65536", "--epsilon", "1"]
    argv += ["--mechanism", "pure-sparse", "--quiet", "--out", "long.json"]
    # FINITEDP_MAX_SECONDS = 10: the release's own estimate let it through.
    result = finitedp(argv, workdir)
    assert_clean(result, (0,))
    assert json.loads((workdir / "long.json").read_text(encoding="utf-8"))["release"]


def test_out_dev_stdout_on_a_pipe_is_written_through(workdir: Path) -> None:
    """Issue 27 item 6: ``--out /dev/stdout`` when stdout is a pipe (``realpath`` gives
    ``pipe:[N]``) writes the release through it."""
    result = finitedp([*C, "--epsilon", "1", "--quiet", "--out", "/dev/stdout"], workdir)
    assert_clean(result, (0,))
    assert json.loads(result.stdout)["mechanism"] == "bounded-geometric"


def _run_streams(
    argv: list[str], cwd: Path, *, stdout: object = None, stderr: object = None, close: int = -1
) -> subprocess.CompletedProcess[bytes]:
    """``finitedp ARGV`` with its streams redirected (a path opened for writing) or one of
    the descriptors 0, 1, 2 closed, under the fuzz suite's caps."""

    def prepare() -> None:
        _limits()
        if close >= 0:
            os.close(close)

    env = {**os.environ, "FINITEDP_MAX_MEMORY": "1G"}
    handles = {
        name: (open(target, "wb") if isinstance(target, str) else subprocess.PIPE)  # noqa: SIM115
        for name, target in (("stdout", stdout), ("stderr", stderr))
    }
    try:
        return subprocess.run(
            [sys.executable, "-m", "finitedp", *argv],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=handles["stdout"],
            stderr=handles["stderr"],
            preexec_fn=prepare,
            env=env,
            timeout=60,
            check=False,
        )
    finally:
        for handle in handles.values():
            if handle is not subprocess.PIPE:
                handle.close()  # type: ignore[union-attr]


RELEASE = [*C, "--epsilon", "1", "--quiet"]


@pytest.mark.parametrize(
    ("case", "argv", "streams", "status", "message"),
    [
        ("stdout on a full device", RELEASE, {"stdout": "/dev/full"}, 2, b"No space left"),
        ("stdout closed", RELEASE, {"close": 1}, 2, b"standard output is closed"),
        ("query with stdout closed", ["query", "rel.png", "A"], {"close": 1}, 2, b"closed"),
        (
            "stdin closed",
            ["release", "-", "--column", "c", "--universe", "utf8:1", "--epsilon", "1"],
            {"close": 0},
            2,
            b"standard input is closed",
        ),
        ("stderr full, input error", [*C, "--epsilon", "1/3.0"], {"stderr": "/dev/full"}, 2, b""),
        (
            "stderr full, release written",
            [*RELEASE[:-1], "--out", "full.json"],
            {"stderr": "/dev/full"},
            0,
            b"",
        ),
    ],
)
def test_streams_end_cleanly(
    workdir: Path, case: str, argv: list[str], streams: dict[str, Any], status: int, message: bytes
) -> None:
    """Issue 27 item 3: full or closed streams give the documented status, a clean message
    on stderr when it can take one, and never a traceback."""
    result = _run_streams(argv, workdir, **streams)
    err = result.stderr if isinstance(result.stderr, bytes) else b""
    assert result.returncode == status, (case, err)
    assert b"Traceback" not in err and message in err, err


def test_with_stderr_closed_stdout_holds_the_json_alone(workdir: Path) -> None:
    result = _run_streams([*C, "--epsilon", "1", "--seed", "00"], workdir, close=2)
    assert result.returncode == 0
    assert json.loads(result.stdout)["mechanism"] == "bounded-geometric"


def test_vectors_verify_of_a_non_utf8_file_is_an_input_error(workdir: Path) -> None:
    (workdir / "latin.jsonl").write_bytes(b"\xff\xfe\n")
    result = finitedp(["vectors", "verify", "latin.jsonl"], workdir)
    assert_clean(result, (2,))
    assert "not UTF-8 text" in result.stderr
