"""Work, not wall-clock time: how a test says "refused at once" (issue 40 item 3).

A loaded machine stretches every duration, so no test compares one with a limit.  A
refusal that comes "before any large integer, table or array is made" is checked by
the work done until it: the number of function calls (Python and C) the call makes,
counted by :func:`sys.setprofile`, which is the same on a quiet and a busy machine.
Hangs are still caught, by an outer alarm ten times the hostile suite's 10 s.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

#: The outer guard against true hangs: 10x the 10 s a hostile case may take.
HANG_SECONDS = 100

#: Function calls a refusal may make: the parsing and the estimates of a constructor take
#: thousands to tens of thousands; a table, a sampling loop or a search over a large
#: range takes millions.
REFUSAL_CALLS = 400_000


@contextmanager
def hang_guard(seconds: int = HANG_SECONDS) -> Iterator[None]:
    """Fail (not hang the suite) if the body runs longer than ``seconds``."""

    def expired(signum: int, frame: object) -> None:
        raise TimeoutError(f"no answer in {seconds} s: a hang")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def calls_made(call: Callable[[], Any]) -> tuple[BaseException | None, int]:
    """Run ``call``; return what it raised (``None`` if it returned) and its function calls."""
    count = 0

    def profile(frame: FrameType, event: str, arg: object) -> None:
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    raised: BaseException | None = None
    with hang_guard():
        sys.setprofile(profile)
        try:
            call()
        except Exception as error:
            raised = error
        finally:
            sys.setprofile(None)
    return raised, count


def refused_within(
    call: Callable[[], Any], error: type[BaseException], *, calls: int = REFUSAL_CALLS
) -> BaseException:
    """``call`` raises ``error`` after at most ``calls`` function calls; returns the error."""
    raised, count = calls_made(call)
    assert isinstance(raised, error), f"expected {error.__name__}, got {raised!r}"
    assert count <= calls, f"refused after {count:,} calls (at most {calls:,}): {raised}"
    return raised
