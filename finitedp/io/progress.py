"""A transient progress display on stderr for long runs (``rich``, optional)."""

from __future__ import annotations

import threading
from types import TracebackType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.progress import Progress as RichProgressType
    from rich.progress import TaskID

__all__ = ["DELAY_SECONDS", "Progress"]

#: The display appears only once a run has lasted this long (seconds; wall-clock
#: time for the display only, never used in a computation).
DELAY_SECONDS = 1.0


class Progress:
    """A transient progress display on stderr, shown only once the run has lasted a while.

    A timer thread starts the display after ``delay`` seconds, so quick runs
    print nothing.  The display never touches stdout (which may carry the
    JSON), and is absent with ``--quiet``, when stderr is not a terminal (rich
    draws nothing there), or when ``rich`` is not installed.
    """

    def __init__(self, enabled: bool, delay: float) -> None:
        """Prepare the display and start the timer that will show it.

        Args:
            enabled: ``False`` for ``--quiet``.
            delay: seconds before the display appears.
        """
        self._lock = threading.Lock()
        self._closed = False
        self._shown = False
        self._display: RichProgressType | None = None
        self._task: TaskID | None = None
        self._timer: threading.Timer | None = None
        if not enabled:
            return
        try:
            from rich.console import Console
            from rich.progress import BarColumn, SpinnerColumn, TextColumn, TimeElapsedColumn
            from rich.progress import Progress as RichProgress
        except ImportError:  # a missing display must not stop a release
            return
        console = Console(stderr=True)
        if not console.is_terminal:  # a log or a pipe would keep an empty line of the bar
            return
        self._display = RichProgress(
            SpinnerColumn(),
            TextColumn("{task.description}", markup=False),  # file names may contain [brackets]
            BarColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
            redirect_stdout=False,
            redirect_stderr=False,
        )
        self._task = self._display.add_task("starting", total=None)
        self._timer = threading.Timer(delay, self._show)
        self._timer.daemon = True
        self._timer.start()

    def _show(self) -> None:
        with self._lock:
            if self._display is not None and not self._closed:
                self._display.start()
                self._shown = True

    def phase(self, description: str, total: int | None = None) -> None:
        """Start a new step: a bar if ``total`` is known, else a pulsing bar."""
        if self._display is None or self._task is None:
            return
        # A fresh task resets both the bar and its total (update(total=None) keeps the old one).
        self._display.remove_task(self._task)
        self._task = self._display.add_task(description, total=total)

    def advance(self, amount: int) -> None:
        """Move the current bar on by ``amount`` steps."""
        if self._display is not None and self._task is not None:
            self._display.advance(self._task, amount)

    def close(self) -> None:
        """Stop the timer and remove the display (idempotent)."""
        with self._lock:
            self._closed = True
            if self._timer is not None:
                self._timer.cancel()
            if self._display is not None and self._shown:
                self._display.stop()
                self._shown = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
