"""Markdown bodies rendered on every core, and ahead of when they are needed.

A first build renders hundreds of bodies at once, and that part of rendering is pure
(`prerender`: text in, HTML out), so a pool of worker processes shares it. A few bodies (a push)
are rendered in this process: starting workers costs more than rendering them.

A `BodyPool` may be told bodies before they are asked for (`ahead`): the workers render them
while this process does the work that does not need them (the claim's write, the batch before's
pages and listings), and `rendered` hands them over as they come, in order, so this process
lays out each page while the workers render the next bodies.

The workers are forked, once, as soon as there is enough to render (`start`: when a plan finds
that many new articles, before it reads them), and each builds its renderer while this process
reads: a fork server or a fresh interpreter would import everything again (benchmarked: a pool
of fork-server workers rendered 1,000 bodies slower than one process). A process running other
threads then (live mode) renders here instead: a forked child could inherit a lock another
thread holds. The workers run at a lower priority than this process: it lays out and writes
the pages the workers' bodies go into, the longest chain of a first build, so when both want a
core it gets it first (measured on 2 cores, with the early start: a first build of 1,000 about
8% sooner).
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from steadypress.render import Prerendered, prerender

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

__all__ = ["POOL_FROM", "WORKER_NICENESS", "BodyPool"]

# Bodies in one call from which a pool pays for itself (a body takes about 0.7 ms on one core).
POOL_FROM = 100
# Bodies a worker is handed at a time: few enough that the first come back early (this process
# starts on their pages), enough that passing them costs little.
CHUNK = 25
# How much lower the workers' priority is than this process's (nice(2): 0 to 19, 19 the lowest).
WORKER_NICENESS = 10


class BodyPool:
    """`prerender` on `workers` processes (one per core the process may use, by default), for
    calls of POOL_FROM bodies or more; each body told `ahead` is rendered once, and handed over
    by `rendered` once."""

    def __init__(self, *, workers: int | None = None) -> None:
        self._workers = workers or len(os.sched_getaffinity(0))
        self._pool: ProcessPoolExecutor | None = None
        self._refused = False  # the pool cannot run here, or broke: everything is rendered here
        self._ahead: dict[str, tuple[Future[list[Prerendered]], int]] = {}

    def renders_ahead(self, count: int) -> bool:
        """Whether `count` bodies told `ahead` would be rendered by the workers (else nothing
        is gained by telling them)."""
        return count >= POOL_FROM and self._workers >= 2 and not self._refused

    def start(self) -> None:
        """Fork the workers now, where they can run, to get ready for bodies to come (a pool
        forks its workers for its first task: here, an empty one)."""
        from concurrent.futures.process import BrokenProcessPool  # noqa: PLC0415

        if self._pool is None and (pool := self._started()) is not None:
            try:
                pool.submit(_prerender_chunk, [])
            except BrokenProcessPool:
                self._refuse()

    def ahead(self, texts: Sequence[str]) -> None:
        """Start rendering these bodies in the workers, if there are enough to pay for them."""
        fresh = [text for text in dict.fromkeys(texts) if text not in self._ahead]
        if len(fresh) >= POOL_FROM and (pool := self._started()) is not None:
            self._submit(pool, fresh)

    def rendered(self, texts: Sequence[str]) -> Iterator[Prerendered | Exception]:
        """`prerender` of each text, in order, each as soon as it is ready; for a text that
        `prerender` fails on, what it raised: one text that breaks the renderer (a bug, here
        or in a library) fails alone, not the others it was rendered with."""
        self.ahead(texts)
        for text in texts:
            yield self._take(text)

    def close(self) -> None:
        """Stop the workers; bodies told ahead and never asked for are dropped."""
        self._ahead.clear()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def _take(self, text: str) -> Prerendered | Exception:
        found = self._ahead.pop(text, None)
        if found is not None:
            # Imported with the pool that made the future.
            from concurrent.futures.process import BrokenProcessPool  # noqa: PLC0415

            future, place = found
            try:
                return future.result()[place]
            except BrokenProcessPool:
                # A worker was killed (out of memory, say): the bodies are rendered here
                # instead, and a body that kills whatever renders it fails here, where the
                # executor sees it.
                self._refuse()
            except Exception:  # noqa: S110 - one of its chunk failed: each is rendered again here
                pass
        try:
            return prerender(text)
        except Exception as error:  # the text's own failure, handed to its caller alone
            return error

    def _started(self) -> ProcessPoolExecutor | None:
        """The pool, started at its first use where it can run."""
        if self._pool is None and not self._refused:
            if self._workers < 2 or _other_threads():
                self._refused = True
                return None
            # Imported here: a command that renders a few bodies, or none, does not pay for them.
            import multiprocessing  # noqa: PLC0415
            from concurrent.futures import ProcessPoolExecutor  # noqa: PLC0415

            # What waits in this process's buffers would be written again by each child.
            sys.stdout.flush()
            sys.stderr.flush()
            self._pool = ProcessPoolExecutor(
                max_workers=self._workers,
                mp_context=multiprocessing.get_context("fork"),
                initializer=_start_worker,
            )
        return self._pool

    def _submit(self, pool: ProcessPoolExecutor, texts: Sequence[str]) -> None:
        from concurrent.futures.process import BrokenProcessPool  # noqa: PLC0415

        for start in range(0, len(texts), CHUNK):
            chunk = list(texts[start : start + CHUNK])
            try:
                future = pool.submit(_prerender_chunk, chunk)
            except BrokenProcessPool:
                self._refuse()
                return
            for place, text in enumerate(chunk):
                self._ahead[text] = (future, place)

    def _refuse(self) -> None:
        self.close()
        self._refused = True


def _start_worker() -> None:
    os.nice(WORKER_NICENESS)
    prerender("")  # the renderer built (cmark-gfm and Pygments loaded) before any body comes


def _prerender_chunk(texts: list[str]) -> list[Prerendered]:
    return [prerender(text) for text in texts]


def _other_threads() -> bool:
    """Whether threads besides this one run: a forked child could inherit a lock one holds."""
    return threading.active_count() > 1
