"""Rendering on every core, and ahead of when it is needed.

A first build renders hundreds of articles at once, and rendering one is a function of the
article alone (the site's pages: markdown in, the page through the theme out), so a pool of
worker processes shares it. A few (a push) are rendered in this process: starting workers costs
more than rendering them.

A `RenderPool` may be told items before they are asked for (`ahead`): the workers render them
while this process does the work that does not need them (the claim's write, the batch before's
index and listings), and `rendered` hands them over as they come, in order, so this process
writes each page while the workers render the next ones.

The workers are forked, once, as soon as there is enough to render (`start`: when a plan finds
that many new articles, before it reads them), and each warms its renderer while this process
reads: a fork server or a fresh interpreter would import everything again (benchmarked: a pool
of fork-server workers rendered 1,000 bodies slower than one process), and a forked worker
starts with what this process holds (the renderer given it is not pickled). A process running
other threads then (live mode) renders here instead: a forked child could inherit a lock another
thread holds. The workers run at a lower priority than this process: it writes the pages the
workers render, the longest chain of a first build, so when both want a core it gets it first
(measured on 2 cores, with the early start: a first build of 1,000 about 8% sooner).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

__all__ = ["POOL_FROM", "WORKER_NICENESS", "RenderPool"]

# Items in one call from which a pool pays for itself (a page takes about 0.3 ms on one core).
POOL_FROM = 100
# Items a worker is handed at a time: few enough that the first come back early (this process
# starts on writing them), enough that passing them costs little.
CHUNK = 25
# How much lower the workers' priority is than this process's (nice(2): 0 to 19, 19 the lowest).
WORKER_NICENESS = 10


T = TypeVar("T")
R = TypeVar("R")


class RenderPool(Generic[T, R]):
    """`render` on `workers` processes (one per core the process may use, by default), for
    calls of POOL_FROM items or more; each item told `ahead` (the same by `key`) is rendered
    once, and handed over by `rendered` once. `warm` readies a worker's renderer."""

    def __init__(
        self,
        render: Callable[[T], R],
        *,
        key: Callable[[T], Hashable],
        warm: Callable[[], object] = lambda: None,
        workers: int | None = None,
    ) -> None:
        self._render = render
        self._key = key
        self._warm = warm
        self._workers = workers or len(os.sched_getaffinity(0))
        self._pool: ProcessPoolExecutor | None = None
        self._refused = False  # the pool cannot run here, or broke: everything is rendered here
        self._ahead: dict[Hashable, tuple[Future[list[R]], int]] = {}

    def renders_ahead(self, count: int) -> bool:
        """Whether `count` items told `ahead` would be rendered by the workers (else nothing
        is gained by telling them)."""
        return count >= POOL_FROM and self._workers >= 2 and not self._refused

    def start(self) -> None:
        """Fork the workers now, where they can run, to get ready for items to come (a pool
        forks its workers for its first task: here, an empty one)."""
        from concurrent.futures.process import BrokenProcessPool  # noqa: PLC0415

        if self._pool is None and (pool := self._started()) is not None:
            try:
                pool.submit(_render_chunk, [])
            except BrokenProcessPool:
                self._refuse()

    def ahead(self, items: Sequence[T]) -> None:
        """Start rendering these items in the workers, if there are enough to pay for them."""
        fresh = list(
            {self._key(item): item for item in items if self._key(item) not in self._ahead}.values()
        )
        if len(fresh) >= POOL_FROM and (pool := self._started()) is not None:
            self._submit(pool, fresh)

    def rendered(self, items: Sequence[T]) -> Iterator[R | Exception]:
        """`render` of each item, in order, each as soon as it is ready; for an item that
        `render` fails on, what it raised: one item that breaks the renderer (a bug, here or
        in a library, or the item's own fault) fails alone, not the others rendered with it."""
        self.ahead(items)
        for item in items:
            yield self._take(item)

    def close(self) -> None:
        """Stop the workers; items told ahead and never asked for are dropped."""
        self._ahead.clear()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def _take(self, item: T) -> R | Exception:
        found = self._ahead.pop(self._key(item), None)
        if found is not None:
            # Imported with the pool that made the future.
            from concurrent.futures.process import BrokenProcessPool  # noqa: PLC0415

            future, place = found
            try:
                return future.result()[place]
            except BrokenProcessPool:
                # A worker was killed (out of memory, say): the items are rendered here
                # instead, and an item that kills whatever renders it fails here, where the
                # executor sees it.
                self._refuse()
            except Exception:  # noqa: S110 - its chunk came back broken: rendered again here
                pass
        try:
            return self._render(item)
        except Exception as error:  # the item's own failure, handed to its caller alone
            return error

    def _started(self) -> ProcessPoolExecutor | None:
        """The pool, started at its first use where it can run."""
        if self._pool is None and not self._refused:
            if self._workers < 2 or _other_threads():
                self._refused = True
                return None
            # Imported here: a command that renders a few items, or none, does not pay for them.
            import multiprocessing  # noqa: PLC0415
            from concurrent.futures import ProcessPoolExecutor  # noqa: PLC0415

            # What waits in this process's buffers would be written again by each child.
            sys.stdout.flush()
            sys.stderr.flush()
            self._pool = ProcessPoolExecutor(
                max_workers=self._workers,
                mp_context=multiprocessing.get_context("fork"),
                initializer=_start_worker,
                initargs=(self._render, self._warm),  # forked, not pickled
            )
        return self._pool

    def _submit(self, pool: ProcessPoolExecutor, items: Sequence[T]) -> None:
        from concurrent.futures.process import BrokenProcessPool  # noqa: PLC0415

        for start in range(0, len(items), CHUNK):
            chunk = list(items[start : start + CHUNK])
            try:
                future = pool.submit(_render_chunk, chunk)
            except BrokenProcessPool:
                self._refuse()
                return
            for place, item in enumerate(chunk):
                self._ahead[self._key(item)] = (future, place)

    def _refuse(self) -> None:
        self.close()
        self._refused = True


# A worker's renderer, set as it starts (`_start_worker`).
_render_in_worker: Callable[[Any], Any] | None = None


def _start_worker(render: Callable[[Any], Any], warm: Callable[[], object]) -> None:
    global _render_in_worker  # noqa: PLW0603 - one renderer a worker process, set once
    # ^C and a cancelled job signal the whole process group: the parent decides what stops
    # (it finishes the article in hand), and a worker dying under it would fail its items.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    os.nice(WORKER_NICENESS)
    _render_in_worker = render
    warm()  # the renderer built (libraries loaded, templates compiled) before any item comes


def _render_chunk(items: Sequence[object]) -> list[Any]:
    """Each item rendered, or what rendering it raised: one that fails (a page's missing image,
    a bug one text meets) fails alone, and the others come back with it."""
    render = _render_in_worker
    if render is None:
        raise RuntimeError("a chunk sent to a process that is not a worker")
    done: list[Any] = []
    for item in items:
        try:
            done.append(render(item))
        except Exception as error:  # handed to the item's caller, as raised here
            done.append(error)
    return done


def _other_threads() -> bool:
    """Whether threads besides this one run: a forked child could inherit a lock one holds."""
    return threading.active_count() > 1
