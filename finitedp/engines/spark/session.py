"""The Spark session finitedp reads with, and Spark's errors as one-line refusals.

Spark is a JVM behind a Py4J gateway; left alone it prints start-up warnings, log
lines and progress bars on the terminal's standard error, hangs for ever on a
``java`` that never answers, and surfaces every problem as 100-300 lines of Java
(issue 54).  Here:

* Java is checked before the session starts: ``java -version`` must answer within
  :data:`JAVA_SECONDS`, else the refusal says what to install or set;
* the JVM is started with its standard error sent to a log file
  (:func:`spark_log`), so no Spark line reaches the terminal, under ``--quiet`` or
  not, and Spark's console progress bar is off (finitedp's own progress is on stderr);
* any error from Spark (a Py4J Java error, an analysis or PySpark error, a gateway
  that exited) becomes one line naming what Spark said (:func:`spark_refusal`);
* a gateway that starts but never answers is refused after :data:`GATEWAY_SECONDS`
  (PySpark itself waits for ever), and Py4J's and PySpark's Python loggers write to
  the same log file, so an interrupted job (Ctrl-C) leaves the one line the command
  line prints, not the tracebacks Py4J logs when its connection is cut.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import warnings
from collections.abc import Callable, Iterator
from typing import Any

from ...errors import ParameterError

__all__ = [
    "GATEWAY_SECONDS",
    "JAVA_SECONDS",
    "check_java",
    "map_in_arrow",
    "spark_log",
    "spark_refusal",
    "spark_session",
]

#: How long ``java -version`` may take before Java is called unusable.
JAVA_SECONDS = 60

#: How long the Spark gateway (the JVM behind Py4J) may take to start and answer.
GATEWAY_SECONDS = 300


def spark_log() -> str:
    """The file the JVM's standard error goes to (Spark's logs, for a post-mortem)."""
    return os.path.join(tempfile.gettempdir(), f"finitedp-spark-{os.getuid()}.log")


def check_java() -> None:
    """Refuse before Spark starts when Java is missing or does not answer.

    Raises:
        ParameterError: no ``java`` (on ``JAVA_HOME`` when set, else on ``PATH``), or one
            that fails or takes longer than :data:`JAVA_SECONDS`.
    """
    home = os.environ.get("JAVA_HOME")
    java = os.path.join(home, "bin", "java") if home else shutil.which("java")
    where = f"JAVA_HOME={home}" if home else "PATH"
    if not java or not os.access(java, os.X_OK):
        raise ParameterError(
            f"--engine spark: no java found on {where}; Spark needs Java 17 or later "
            "(install a JDK, or set JAVA_HOME to one)"
        )
    try:
        done = subprocess.run(
            [java, "-version"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=JAVA_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise ParameterError(
            f"--engine spark: {java} -version did not answer in {JAVA_SECONDS} s; "
            "check the Java installation"
        ) from None
    except OSError as error:
        raise ParameterError(f"--engine spark: cannot run {java}: {error.strerror}") from None
    if done.returncode != 0:
        said = (done.stderr or done.stdout).decode(errors="replace").strip().splitlines()
        raise ParameterError(
            f"--engine spark: {java} -version failed"
            + (f": {said[0][:160]}" if said else f" (exit {done.returncode})")
        )


@contextlib.contextmanager
def _stderr_to(path: str) -> Iterator[None]:
    """File descriptor 2 sent to ``path`` meanwhile: a process started now keeps it."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(path, "ab") as log:
            os.dup2(log.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def spark_session() -> Any:
    """The session ``SparkSession.builder`` gives (``local[*]`` unless a master is
    configured), its JVM logging to :func:`spark_log`, its executors running this
    Python (``PYSPARK_PYTHON`` if set); an active session is taken as it is.

    Raises:
        ParameterError: pyspark is not installed, or Java is missing or broken.
    """
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise ParameterError(
            "--engine spark: pyspark is not installed; pip install 'finitedp[spark]'"
        ) from None
    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    check_java()
    _quiet_loggers()
    # The executors' Python is this interpreter (unless PYSPARK_PYTHON says another): the
    # default, the first python3 on PATH, may lack finitedp, numpy or pyarrow, which the
    # executors' functions import.  PySpark reads it from the environment, not the conf.
    if not os.environ.get("PYSPARK_PYTHON"):
        os.environ["PYSPARK_PYTHON"] = sys.executable
    builder = SparkSession.builder.appName("finitedp").config(
        "spark.ui.showConsoleProgress", "false"
    )
    with _stderr_to(spark_log()):
        return _within(GATEWAY_SECONDS, builder.getOrCreate)


def _quiet_loggers() -> None:
    """Py4J's and PySpark's Python log records to the log file, not the terminal.

    Py4J also logs through the root logger (``logging.exception`` when Ctrl-C cuts a
    command), which with no handler would configure itself to print on stderr: a root
    without handlers gets :class:`_SparkRecords`, which files Py4J's and PySpark's
    records and prints any other as Python's last resort would.
    """
    path = os.path.abspath(spark_log())
    for name in ("py4j", "pyspark"):
        logger = logging.getLogger(name)
        logger.propagate = False
        if not any(getattr(h, "baseFilename", None) == path for h in logger.handlers):
            logger.addHandler(logging.FileHandler(path))
    root = logging.getLogger()
    if not root.handlers:
        root.addHandler(_SparkRecords(path))


class _SparkRecords(logging.Handler):
    """The root's handler while Spark runs: Spark's records to its log, others to stderr."""

    def __init__(self, path: str) -> None:
        super().__init__(logging.WARNING)
        self.path = path

    def emit(self, record: logging.LogRecord) -> None:
        if any(part in record.pathname for part in ("/py4j/", "/pyspark/")):
            with contextlib.suppress(OSError), open(self.path, "a", encoding="utf-8") as log:
                log.write(logging.Formatter().format(record) + "\n")
            return
        if logging.lastResort is not None:
            logging.lastResort.handle(record)


def _within(seconds: float, start: Callable[[], Any]) -> Any:
    """``start()`` in a daemon thread, refused if it has not returned in ``seconds``."""
    done: dict[str, Any] = {}

    def run() -> None:
        try:
            done["value"] = start()
        except BaseException as error:  # handed to the caller's thread
            done["error"] = error

    worker = threading.Thread(target=run, name="finitedp-spark-start", daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise ParameterError(
            f"--engine spark: the Spark gateway did not answer in {seconds:g} s (Java "
            f"started; its log: {spark_log()}); check the Spark and Java installation"
        )
    if "error" in done:
        raise done["error"]
    return done["value"]


#: What Spark's message says of a CSV row FAILFAST refused.
_MALFORMED = "Malformed CSV record: "
#: Spark's own error types, by module.
_SPARK_MODULES = ("py4j", "pyspark")


def spark_refusal(error: BaseException) -> ParameterError | None:
    """An error raised by Spark, as one line (``None``: not Spark's).

    A CSV row that ``FAILFAST`` refused (:func:`finitedp.engines.spark.columns.read_frame`)
    surfaces from whichever job read it; any other Spark error (a corrupt file, a
    file that is not Parquet, a gateway that exited) is named by the first line of
    Spark's own explanation, its deepest ``Caused by`` when there is one.
    """
    module = type(error).__module__ or ""
    if not module.startswith(_SPARK_MODULES):
        return None
    text = str(error)
    if _MALFORMED in text:
        record = text.split(_MALFORMED, 1)[1].split("\n", 1)[0]
        record = record.split(" SQLSTATE", 1)[0]
        return ParameterError(
            f"a CSV row with more or fewer fields than the header: {record[:80]!r} (Spark)"
        )
    return ParameterError(f"Spark cannot read it: {_explanation(text)}")


def _explanation(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    causes = [line[len("Caused by: ") :] for line in lines if line.startswith("Caused by: ")]
    told = [line[2:] for line in lines if line.startswith(": ")]
    first = (causes[-1:] or told[:1] or lines[:1] or ["no reason given"])[0]
    if ": " in first and first.split(": ", 1)[0].rsplit(".", 1)[-1].endswith(
        ("Exception", "Error")
    ):
        first = first.split(": ", 1)[1]  # the Java class name says nothing to a user
    first = first.split(" SQLSTATE", 1)[0]
    return first[:240]


def map_in_arrow(frame: Any, task: Callable[..., Any], schema: str) -> Any:
    """``frame.mapInArrow(task, schema)``, without PySpark's warning about pandas
    versions (the executors' functions use pyarrow and numpy only: not ours to show)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "PySpark does not yet", FutureWarning)
        return frame.mapInArrow(task, schema)
