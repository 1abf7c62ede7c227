"""Spark as well-behaved as DuckDB before it starts (issue 54 item 2), without pyspark.

Laws: a missing, failing or silent ``java`` is refused in one line naming what to fix,
before any JVM starts; a gateway that starts but never answers is refused after its
stated time (the start runs in a thread; its errors and value reach the caller); Py4J's
and PySpark's Python loggers write to the log file, never to the terminal.
"""

from __future__ import annotations

import logging
import os
import tempfile
import threading
from pathlib import Path

import pytest

from finitedp.engines.spark import session
from finitedp.errors import ParameterError


def _java(folder: Path, body: str) -> Path:
    bin_dir = folder / "bin"
    bin_dir.mkdir(parents=True)
    java = bin_dir / "java"
    java.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    java.chmod(0o755)
    return folder


def test_java_is_checked_before_spark_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "nowhere"))
    with pytest.raises(ParameterError, match=r"no java found on JAVA_HOME=.*nowhere"):
        session.check_java()
    failing = _java(tmp_path / "failing", "echo 'Error: broken JVM' >&2; exit 3")
    monkeypatch.setenv("JAVA_HOME", str(failing))
    with pytest.raises(ParameterError, match="-version failed: Error: broken JVM"):
        session.check_java()
    silent = _java(tmp_path / "silent", "exec sleep 30")
    monkeypatch.setenv("JAVA_HOME", str(silent))
    monkeypatch.setattr(session, "JAVA_SECONDS", 1)
    with pytest.raises(ParameterError, match="did not answer in 1 s"):
        session.check_java()
    working = _java(tmp_path / "working", "echo 'openjdk version \"17\"' >&2")
    monkeypatch.setenv("JAVA_HOME", str(working))
    session.check_java()  # answers: accepted


def test_a_gateway_that_never_answers_is_refused() -> None:
    release = threading.Event()
    with pytest.raises(ParameterError, match=r"gateway did not answer in 0\.2 s"):
        session._within(0.2, lambda: release.wait(30))
    release.set()  # the hung start ends; nothing waits for it
    assert session._within(5, lambda: 42) == 42

    def broken() -> None:
        raise KeyError("from the start")

    with pytest.raises(KeyError, match="from the start"):
        session._within(5, broken)


def test_py4j_and_pyspark_log_to_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    saved = {
        n: (logging.getLogger(n).handlers[:], logging.getLogger(n).propagate)
        for n in ("py4j", "pyspark")
    }
    try:
        session._quiet_loggers()
        session._quiet_loggers()  # once is enough: no second handler
        logging.getLogger("py4j").error("Exception while sending command", exc_info=False)
        for name in ("py4j", "pyspark"):
            logger = logging.getLogger(name)
            assert not logger.propagate
            files = [h for h in logger.handlers if isinstance(h, logging.FileHandler)]
            assert [h.baseFilename for h in files] == [os.path.abspath(session.spark_log())]
            for handler in files:
                handler.flush()
        assert "Exception while sending command" in Path(session.spark_log()).read_text()
        assert capsys.readouterr().err == ""
    finally:
        for name, (handlers, propagate) in saved.items():
            logger = logging.getLogger(name)
            for handler in logger.handlers:
                if handler not in handlers:
                    handler.close()
            logger.handlers[:] = handlers
            logger.propagate = propagate


def test_a_root_record_of_py4j_goes_to_the_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Py4J logs a cut command through the root logger (logging.exception); the root's
    # handler while Spark runs files it and prints anything else as the last resort does.
    handler = session._SparkRecords(str(tmp_path / "spark.log"))
    py4j = logging.LogRecord("root", logging.ERROR, "/x/py4j/java_gateway.py", 1, "cut", None, None)
    mine = logging.LogRecord("root", logging.ERROR, "/x/mine.py", 1, "mine", None, None)
    handler.handle(py4j)
    handler.handle(mine)
    assert (
        "cut" in (tmp_path / "spark.log").read_text()
        and "mine" not in (tmp_path / "spark.log").read_text()
    )
    assert capsys.readouterr().err == "mine\n"


def _spark_release(tmp_path: Path, rows: int, keys: int, *flags: str) -> tuple[list[str], Path]:
    """The command line of a Spark release of a key file, in its own process (skipped
    without pyspark or Java), and the path of its document."""
    pytest.importorskip("pyspark")
    import shutil
    import sys

    if not (os.environ.get("JAVA_HOME") or shutil.which("java")):
        pytest.skip("no java")
    data = tmp_path / "keys.csv"
    data.write_text("key\n" + "".join(f"k{i % keys}\n" for i in range(rows)), encoding="utf-8")
    out = tmp_path / "r.json"
    argv = [sys.executable, "-m", "finitedp", "release", str(data), "--column", "key"]
    argv += ["--universe", "utf8:8", "--epsilon", "1", *flags]
    return [*argv, "--engine", "spark", "--quiet", "--out", str(out)], out


def test_ctrl_c_in_a_spark_release_is_one_line(tmp_path: Path) -> None:
    # SIGINT while Spark starts or runs a job: exit 130 and one line (Py4J's tracebacks
    # go to the Spark log), or, if the release ended first, its usual output.
    import signal
    import subprocess
    import time

    flags = ("--mechanism", "stability", "--delta", "1/1000000")
    argv, out = _spark_release(tmp_path, 400_000, 997, *flags)

    def default_sigint() -> None:  # a background job may inherit SIGINT ignored
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    process = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=default_sigint
    )
    time.sleep(6)  # inside Spark's start or its job on most machines; either is tested
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=300)
    lines = err.decode().splitlines()
    if process.returncode == 0:  # it finished first: nothing to interrupt
        assert out.exists() and lines == []
        return
    assert process.returncode == 130, err.decode()[-2000:]
    assert lines == ["finitedp release: interrupted; nothing was written"], lines
    assert not out.exists()


def test_the_executors_run_the_drivers_python(tmp_path: Path) -> None:
    # Without PYSPARK_PYTHON, Spark's executors would run the first python3 on PATH,
    # which may lack finitedp and pyarrow: a stream mechanism's ranks are computed there.
    import subprocess

    flags = ("--mechanism", "pmg", "--k", "3", "--delta", "1/1000")
    argv, out = _spark_release(tmp_path, 500, 7, *flags)
    env = {k: v for k, v in os.environ.items() if k != "PYSPARK_PYTHON"}
    decoy = tmp_path / "bin" / "python3"  # the first python3 on PATH cannot run anything
    decoy.parent.mkdir()
    decoy.write_text("#!/bin/sh\nexit 3\n", encoding="utf-8")
    decoy.chmod(0o755)
    env["PATH"] = f"{decoy.parent}{os.pathsep}{env.get('PATH', '')}"
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert out.exists() and done.stderr == ""
