"""An exclusive lock on a file, for the local directories several executors may write at once."""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

__all__ = ["exclusive_lock", "folder_lock"]


@contextlib.contextmanager
def exclusive_lock(path: Path) -> Iterator[None]:
    """Hold an advisory lock on `path` (created if missing) for the duration of the block."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@contextlib.contextmanager
def folder_lock(folder: Path) -> Iterator[None]:
    """Hold an advisory lock on the folder itself (made if missing) for the duration of the
    block: no lock file is left among the files the folder serves."""
    folder.mkdir(parents=True, exist_ok=True)
    # O_NOFOLLOW: a symlink in the folder's place is refused, not locked through.
    handle = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)  # closing the last descriptor releases the lock
