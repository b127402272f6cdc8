"""Where the site's files go, behind one interface: a directory for the embedded default (here),
the Pages branch on GitHub (`github/pages.py`). The site's logic sees only `SiteFiles`."""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import stat
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Protocol, TypeVar

from steadypress.errors import PermanentError
from steadypress.filelock import exclusive_lock

__all__ = ["DirectorySiteFiles", "SiteFiles", "SiteWriter"]

R = TypeVar("R")


class SiteWriter(Protocol):
    def read(self, path: str) -> bytes | None: ...

    def exists(self, path: str) -> bool:
        """Whether `path` holds a file, known without reading it where possible."""
        ...

    def put(self, path: str, data: bytes, *, new: bool = False) -> None:
        """Make `path` hold `data`; nothing is written when it already does. `new`: the
        caller knows no file is there, so there is nothing to compare with (no read)."""
        ...

    def remove(self, path: str) -> None: ...

    def want(self, *, texts: Iterable[str] = (), oids: Iterable[str] = ()) -> None:
        """Files about to be read (`texts`), or put and removed (`oids`): a remote backend
        fetches together those it has not read yet."""
        ...


class SiteFiles(Protocol):
    @property
    def confirms_writes(self) -> bool:
        """Whether `apply` returning means its writes landed whole, as given: a commit GitHub
        answered is the branch's new head, built from exactly those changes, and a folder's
        `apply` returns once each file is in place, so reading the files back proves nothing
        more (it cost a request a write on GitHub, and 3% of a first build in a folder)."""
        ...

    def apply(
        self,
        change: Callable[[SiteWriter], R],
        *,
        texts: Sequence[str] = (),
        oids: Sequence[str] = (),
    ) -> R:
        """Run `change` with exclusive, consistent access to the site; its writes land together.

        A backend that detects a concurrent writer runs `change` again on fresh files. `texts`
        and `oids` name the files `change` will read and put, so a remote backend can fetch
        what it needs in one request.
        """
        ...

    def read_ahead(
        self,
        plan: Callable[[], tuple[Sequence[str], Sequence[str]]],
        change: Callable[[SiteWriter], object] | None = None,
    ) -> None:
        """The next `apply` will name the files `plan` gives (texts, oids) and run `change`:
        a remote backend may read them with a request it makes before (the state's load or
        claim), which saves one, and rehearse `change` on them, writing nothing, to read ahead
        what it wants next. Both are called only by a backend that can."""
        ...


SITE_FILE_MODE = 0o644


class DirectorySiteFiles:
    """A site in a local directory; a lock file serialises executors on this machine."""

    confirms_writes = True

    def __init__(self, root: Path) -> None:
        self.root = root

    def apply(
        self,
        change: Callable[[SiteWriter], R],
        *,
        texts: Sequence[str] = (),
        oids: Sequence[str] = (),
    ) -> R:
        if self.root.is_symlink():  # not even the lock file is written through it
            raise PermanentError(f"refusing to write through the symlink {self.root}")
        with exclusive_lock(self.root / ".steadypress-site.lock"):
            return change(_DirectoryWriter(self.root))

    def read_ahead(
        self,
        plan: Callable[[], tuple[Sequence[str], Sequence[str]]],
        change: Callable[[SiteWriter], object] | None = None,
    ) -> None:
        pass  # a local file is read when it is wanted, at no extra cost


class _DirectoryWriter:
    """The site's folder, never left: every path is checked to stay inside it, and no symlink
    on the way is followed (a committed `_site/x -> /etc` must not be written through).

    The folders on a path are checked once a write (a first build names the same few folders
    thousands of times); a file itself is never followed where it is: it is read with
    O_NOFOLLOW, and written by renaming a new file over it, which replaces a symlink rather
    than writing where it points. Paths are handled as strings: a first build handles
    thousands, and pathlib's objects made this a tenth of the build's time in this process."""

    def __init__(self, root: Path) -> None:
        self._root = os.fspath(root)
        # Folders found not to be symlinks, checked once a write; a write holds the site's lock.
        self._real_folders: set[str] = {self._root}
        self._checked: dict[str, str] = {}  # site path -> where it is, its folders checked
        self._made: set[str] = set()  # folders this write made or found there
        self._temporary = itertools.count()

    def _inside(self, path: str) -> str:
        if (checked := self._checked.get(path)) is not None:
            return checked
        # As a POSIX path reads: empty and `.` parts are nothing; `..` would leave the folder.
        parts = [part for part in path.split("/") if part not in ("", ".")]
        if path.startswith("/") or not parts or ".." in parts:
            raise PermanentError(f"refusing site path {path!r}: it would leave {self._root}")
        folder = self._root
        for part in parts[:-1]:
            folder = f"{folder}/{part}"
            if folder in self._real_folders:
                continue
            if os.path.islink(folder):
                raise PermanentError(f"refusing to write through the symlink {folder}")
            self._real_folders.add(folder)
        target = self._checked[path] = f"{folder}/{parts[-1]}"
        return target

    def read(self, path: str) -> bytes | None:
        target = self._inside(path)
        try:
            handle = os.open(target, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except FileNotFoundError:
            return None
        except OSError as error:
            if error.errno == errno.ELOOP:  # the file is a symlink
                raise PermanentError(f"refusing to read through the symlink {target}") from None
            raise
        with os.fdopen(handle, "rb") as stream:
            return stream.read()

    def exists(self, path: str) -> bool:
        try:
            return stat.S_ISREG(os.lstat(self._inside(path)).st_mode)
        except FileNotFoundError:
            return False

    def put(self, path: str, data: bytes, *, new: bool = False) -> None:
        if not new and self.read(path) == data:
            return
        # Write then rename: a process killed mid-write leaves the old file or the new, never half.
        target = self._inside(path)
        folder = os.path.dirname(target)
        if folder not in self._made:
            os.makedirs(folder, exist_ok=True)
            self._made.add(folder)
        # The lock makes this process the folder's only writer: its own names cannot collide,
        # and a file (or symlink) of that name left by a process killed earlier is removed.
        temporary = f"{folder}/.tmp-{os.getpid()}-{next(self._temporary)}"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
        try:
            handle = os.open(temporary, flags, SITE_FILE_MODE)
        except FileExistsError:
            os.unlink(temporary)
            handle = os.open(temporary, flags, SITE_FILE_MODE)
        try:
            # A site is read by a web server that may run as another user, so it gets what a
            # published file has whatever this process's umask: world-readable (0644).
            os.fchmod(handle, SITE_FILE_MODE)
            with os.fdopen(handle, "wb") as stream:
                stream.write(data)
            os.replace(temporary, target)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
            raise

    def want(self, *, texts: Iterable[str] = (), oids: Iterable[str] = ()) -> None:
        pass  # a local file is read when it is wanted, at no extra cost

    def remove(self, path: str) -> None:
        target = self._inside(path)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(target)  # a symlink is removed, not what it points to
        with contextlib.suppress(OSError):
            folder = os.path.dirname(target)
            os.rmdir(folder)  # only when empty
            self._made.discard(folder)
