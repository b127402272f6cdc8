"""Markdown bodies rendered on every core.

A first build renders hundreds of bodies at once, and that part of rendering is pure
(`prerender`: text in, HTML out), so a pool of worker processes shares it. A few bodies (a push)
are rendered in this process: starting workers costs more than rendering them.

The workers are forked: they start with the renderer this process built, in a few
milliseconds, where a fork server or a fresh interpreter imports it again (benchmarked: a pool
of fork-server workers rendered 1,000 bodies slower than one process). A process running other
threads (live mode) renders here instead: a forked child could inherit a lock another thread
holds.
"""

from __future__ import annotations

import math
import os
import sys
import threading
from collections.abc import Sequence

from steadypress.render import Prerendered, prerender

__all__ = ["POOL_FROM", "prerender_all"]

# Bodies in one call from which a pool pays for itself (a body takes about 0.7 ms on one core).
POOL_FROM = 100


def prerender_all(texts: Sequence[str], *, workers: int | None = None) -> list[Prerendered]:
    """`prerender` of each text, in order: on `workers` processes (one per core the process
    may use, by default) when there are enough texts and cores, else here."""
    workers = workers or len(os.sched_getaffinity(0))
    if len(texts) < POOL_FROM or workers < 2 or _other_threads():
        return [prerender(text) for text in texts]
    # Imported here: a command that renders a few bodies, or none, does not pay for them.
    import multiprocessing  # noqa: PLC0415
    from concurrent.futures import ProcessPoolExecutor  # noqa: PLC0415
    from concurrent.futures.process import BrokenProcessPool  # noqa: PLC0415

    prerender(texts[0])  # builds the renderer once, for every worker to inherit
    # What waits in this process's buffers would be written again by each child.
    sys.stdout.flush()
    sys.stderr.flush()
    context = multiprocessing.get_context("fork")
    chunk = math.ceil(len(texts) / (workers * 4))
    try:
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            return list(pool.map(prerender, texts, chunksize=chunk))
    except BrokenProcessPool:
        # A worker was killed (out of memory, say): the bodies are rendered here instead, and
        # a body that kills whatever renders it fails here, where the executor sees it.
        return [prerender(text) for text in texts]


def _other_threads() -> bool:
    """Whether threads besides this one run: a forked child could inherit a lock one holds."""
    return threading.active_count() > 1
