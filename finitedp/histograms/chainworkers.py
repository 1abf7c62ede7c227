"""The blanket chain's thresholds from worker processes, block by block, in order.

Paper: none (finitedp's; ``proofs_notes/blanket_histogram.md``, "the chain").

The blocks of :meth:`BlanketChain.thresholds <finitedp.histograms.blanketchain.
BlanketChain.thresholds>` are independent: each starts its own bracket ``W`` steps
above its end.  So :func:`worker_blocks` starts ``P`` processes (``python -m
finitedp.histograms.chainworkers``, the interpreter running finitedp), hands each the
chain's five integers and every ``P``-th block, and reads the blocks back in order:
the same thresholds, every one of them whatever the outcome (the work still does not
follow ``|B|``), in about ``1/P`` of the time on ``P`` cores.  A worker that cannot be
started or stops early is not trusted further: its blocks are computed here.

Nothing here changes a threshold: a worker runs the same function on the same
integers, and a block that does not arrive whole is made again in this process.
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from collections.abc import Iterator
from typing import IO, Any

from .blanketchain import BLOCK, BlanketChain

__all__ = ["MAX_WORKERS", "MIN_WORKER_BLOCKS", "chain_blocks", "worker_blocks", "worker_count"]

#: Worker processes at most (one a core, up to this).
MAX_WORKERS = 4

#: Chains of fewer blocks are computed here: starting a process costs about 0.2 s.
MIN_WORKER_BLOCKS = 16


def worker_count(blocks: int) -> int:
    """Processes worth starting for ``blocks`` blocks: one a core the process may use, up
    to :data:`MAX_WORKERS`; 0 (compute here) for a short chain or a single core."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - macOS, Windows
        cores = os.cpu_count() or 1
    workers = min(MAX_WORKERS, cores)
    return workers if workers > 1 and blocks >= MIN_WORKER_BLOCKS else 0


def _command() -> list[str]:
    return [sys.executable, "-m", "finitedp.histograms.chainworkers"]


def _start(chain: BlanketChain, first: int, every: int, block: int) -> subprocess.Popen[bytes]:
    """A worker computing blocks ``first, first + every, ...`` of ``block`` steps."""
    package = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package, env.get("PYTHONPATH")) if p)
    job = {**{k: str(v) for k, v in chain.parameters().items()}, "first": first, "every": every}
    job["block"] = block
    worker = subprocess.Popen(
        _command(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    assert worker.stdin is not None
    worker.stdin.write(json.dumps(job).encode("ascii") + b"\n")
    worker.stdin.close()
    return worker


def _receive(stream: IO[bytes] | None, size: int) -> list[int] | None:
    """One block of ``size`` thresholds from a worker's output, or ``None`` if it broke."""
    try:
        assert stream is not None
        head = stream.read(8)
        if len(head) != 8:
            return None
        data = stream.read(int.from_bytes(head, "big"))
        found = pickle.loads(data)  # our own child's output, not a user's file
    except Exception:  # a broken worker: its blocks are made here
        return None
    if not (isinstance(found, list) and len(found) == size):
        return None
    if not all(type(a) is int for a in found):
        return None
    return found


def worker_blocks(chain: BlanketChain, block: int, workers: int) -> Iterator[tuple[int, list[int]]]:
    """``(start, thresholds)`` of consecutive blocks of ``block`` steps, in order, the
    blocks computed by ``workers`` processes (any that fails: here)."""
    steps = chain.steps
    starts = list(range(0, steps, block))
    procs: list[subprocess.Popen[bytes] | None] = []
    try:
        for first in range(workers):
            try:
                procs.append(_start(chain, first, workers, block))
            except OSError:  # no process can be started here: compute in this one
                procs.append(None)
        for i, start in enumerate(starts):
            stop = min(start + block, steps)
            worker = procs[i % workers]
            found = None if worker is None else _receive(worker.stdout, stop - start)
            if found is None:
                if worker is not None:
                    worker.kill()
                    worker.wait()
                procs[i % workers] = None
                found = chain.thresholds(start, stop)
            yield start, found
    finally:
        for worker in procs:
            if worker is not None:
                worker.kill()
                worker.wait()
                if worker.stdout is not None:
                    worker.stdout.close()


def chain_blocks(chain: BlanketChain) -> Iterator[tuple[int, list[int]]]:
    """:meth:`BlanketChain.blocks`, from worker processes where the chain is long
    (:func:`worker_count`) and here otherwise."""
    workers = worker_count(-(-chain.steps // BLOCK))
    if workers:
        return worker_blocks(chain, BLOCK, workers)
    return chain.blocks()


def _main() -> None:
    """A worker: the job on stdin (one JSON line), each block's thresholds on stdout (an
    8-byte length, then the pickled list)."""
    job: dict[str, Any] = json.loads(sys.stdin.readline())
    chain = BlanketChain.from_parameters(job)
    block, every = int(job["block"]), int(job["every"])
    out = sys.stdout.buffer
    for start in range(int(job["first"]) * block, chain.steps, every * block):
        data = pickle.dumps(chain.thresholds(start, min(start + block, chain.steps)))
        out.write(len(data).to_bytes(8, "big") + data)
        out.flush()


if __name__ == "__main__":
    _main()
