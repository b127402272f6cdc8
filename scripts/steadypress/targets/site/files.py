"""Where the site's files go, behind one interface: a directory for the embedded default (here),
the Pages branch on GitHub (`github/pages.py`). The site's logic sees only `SiteFiles`."""

from __future__ import annotations

import contextlib
import errno
import itertools
import json
import os
import re
import shutil
import stat
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Protocol, TypeVar

from steadypress.errors import PermanentError, TransientError
from steadypress.filelock import folder_lock

__all__ = [
    "JOURNAL",
    "LOCK",
    "SET_ASIDE_JOURNAL",
    "STAGED",
    "DirectorySiteFiles",
    "SiteFiles",
    "SiteWriter",
    "unreadable",
]

R = TypeVar("R")


def unreadable(name: str, error: object) -> TransientError:
    """A file steadypress keeps in the site (its index, a sitemap) that cannot be read: the
    publish stops, and the site is left as it is, since rewriting a file it could not read
    would forget pages. Deleting that file alone would too (the articles it listed would be
    missing until they change); what is kept beside the pages, deleted together, is made anew
    by the next run, which publishes every article again (`SiteTarget.lost`)."""
    return TransientError(
        f"{name} in the site cannot be read ({error}); restore it from the site's history, or "
        "delete .steadypress/ and the sitemaps (sitemap*.xml, sitemaps/) from the site together: "
        "the next run then publishes every article again and writes them anew"
    )


class SiteWriter(Protocol):
    def read(self, path: str) -> bytes | None: ...

    def at_hand(self, path: str) -> bool:
        """Whether reading `path` costs nothing more: a folder's file, or a file of the
        branch this write has read already."""
        ...

    def exists(self, path: str) -> bool:
        """Whether `path` holds a file, known without reading it where possible."""
        ...

    def put(self, path: str, data: bytes, *, unread: bool = False) -> None:
        """Make `path` hold `data`; nothing is written when it already does. `unread`: the
        caller knows no file is there, or that the one there differs, so it is written
        without comparing (no read)."""
        ...

    def remove(self, path: str) -> None: ...

    def differs(self, path: str, data: bytes) -> bool:
        """Whether putting `data` at `path` would change the site (a branch compares blob
        ids, and need not read the file)."""
        ...

    @property
    def may_change(self) -> bool:
        """Whether what this write put and removed so far may change the site: False only
        where it surely changes nothing (a branch on GitHub compares each file as it is put;
        a folder, when the write lands)."""
        ...

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

    @property
    def batches_leave_unfiled(self) -> bool:
        """Whether a run's batches leave the entries of articles and URLs they change unfiled,
        for its last write to file (`unfiled.py`): a folder's do, where each file of them
        rewritten costs a disk block or two; a branch's on GitHub do not, since their last
        write would carry all those files in one request."""
        ...

    def holds(self, path: str) -> bool | None:
        """Whether the site holds `path`, where that is known without a request (a folder);
        None where it would cost one (a branch on GitHub)."""
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
# What a local write is about to change, written whole before any of it: a write stopped midway
# (the process killed, ^C) is finished from it by the next, under the site's lock.
JOURNAL = ".steadypress-site.journal"
# Where a local write of several files puts each one's new bytes before the journal names them
# and they are moved into place: each byte is written once (a journal holding them was twice).
STAGED = ".steadypress-site.staged"
# The file that made one process at a time a local site's writer, before the folder itself was
# locked (`folder_lock`): removed where it is left.
LOCK = ".steadypress-site.lock"
# Where a journal that cannot be replayed is moved, so that it is not tried again on every write.
SET_ASIDE_JOURNAL = f"{JOURNAL}.set-aside"
# 1: the journal held the changed files' bytes; 2: it names their files in `STAGED`.
_JOURNAL_VERSION = 2


class DirectorySiteFiles:
    """A site in a local directory; a lock on the folder serialises executors on this machine.

    A write's files land together: `change` runs on a writer that keeps them, and only when it
    returns are they written, after a journal of all of them. The site's index, its listings and
    its sitemaps are many files each write changes together, and a publish stopped after some of
    them would otherwise leave the others behind: the executor publishes the batch again, but
    the index it meets already names the batch's versions, so nothing is redone, and only a
    later write that happens to rewrite those files brings them back."""

    confirms_writes = True
    batches_leave_unfiled = True

    def __init__(self, root: Path) -> None:
        self.root = root

    def holds(self, path: str) -> bool:
        return os.path.lexists(self.root / path)

    def apply(
        self,
        change: Callable[[SiteWriter], R],
        *,
        texts: Sequence[str] = (),
        oids: Sequence[str] = (),
    ) -> R:
        if self.root.is_symlink():  # not even the lock file is written through it
            raise PermanentError(f"refusing to write through the symlink {self.root}")
        with folder_lock(self.root):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.root / LOCK)  # the lock file of steadypress 0.2.0 and before
            _finish_journal(self.root)
            writer = _DirectoryWriter(self.root)
            result = change(writer)
            writer.land()
            return result

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
    thousands, and pathlib's objects made this a tenth of the build's time in this process.

    What a change puts and removes is kept (and read back from here) until it `land`s."""

    def __init__(self, root: Path) -> None:
        self._root = os.fspath(root)
        # Folders found not to be symlinks, checked once a write; a write holds the site's lock.
        self._real_folders: set[str] = {self._root}
        self._checked: dict[str, str] = {}  # site path -> where it is, its folders checked
        self._made: set[str] = set()  # folders this write made or found there
        self._temporary = itertools.count()
        self._changes: dict[str, bytes | None] = {}  # site path -> its bytes (None: removed)
        self._unread: set[str] = set()  # of `_changes`, those put unread (`put`)
        # Whether a new file needs its mode set after it is made: only where the umask
        # takes a bit of SITE_FILE_MODE away (a chmod costs a first build more than the
        # writes of its small files do).
        self._widen = (umask := _umask()) is None or bool(umask & SITE_FILE_MODE)

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
        if path in self._changes:
            return self._changes[path]
        return self._on_disk(self._inside(path))

    def at_hand(self, path: str) -> bool:
        return True

    def exists(self, path: str) -> bool:
        if path in self._changes:
            return self._changes[path] is not None
        try:
            return stat.S_ISREG(os.lstat(self._inside(path)).st_mode)
        except FileNotFoundError:
            return False

    def put(self, path: str, data: bytes, *, unread: bool = False) -> None:
        self._inside(path)  # a path that may not be written is refused now, within the change
        self._changes[path] = data
        if unread:
            self._unread.add(path)

    def differs(self, path: str, data: bytes) -> bool:
        return self.read(path) != data

    @property
    def may_change(self) -> bool:
        return bool(self._changes)

    def want(self, *, texts: Iterable[str] = (), oids: Iterable[str] = ()) -> None:
        pass  # a local file is read when it is wanted, at no extra cost

    def remove(self, path: str) -> None:
        self._inside(path)
        self._changes[path] = None
        self._unread.discard(path)

    def land(self) -> None:
        """Write what the change made that the site does not hold yet. One file is renamed
        into place; several are first written into `STAGED`, then the journal naming them,
        then each is moved into place, and the journal is removed. A file that may not be
        written (a symlink) is refused before anything is."""
        changes = self._differing(self._changes)
        if len(changes) <= 1:
            self._apply(changes)
            return
        staged = self._stage(changes)
        journal = f"{self._root}/{JOURNAL}"
        self._write(journal, _journal(staged))
        self.move_staged(staged)
        os.unlink(journal)

    def replay(self, changes: Mapping[str, bytes | None]) -> None:
        """Make the site hold `changes` (a version 1 journal's), rewriting only what a write
        stopped midway did not reach."""
        self._apply(self._differing(changes))

    def _stage(self, changes: Mapping[str, bytes | None]) -> dict[str, str | None]:
        """Each change's bytes in a file of `STAGED` (path -> its name there; None: removed),
        which is made anew."""
        staging = _clear_staging(self._root)
        os.mkdir(staging)
        staged: dict[str, str | None] = {}
        for number, (path, data) in enumerate(changes.items()):
            self._inside(path)  # refused before anything is written
            staged[path] = None if data is None else str(number)
            if data is not None:
                _write_new(f"{staging}/{number}", data, widen=self._widen)
        return staged

    def move_staged(self, staged: Mapping[str, str | None]) -> None:
        """Move the files of `STAGED` into place (a journal's `staged`), and remove those
        removed; a staged file already moved (by a write stopped midway) is not there."""
        staging = f"{self._root}/{STAGED}"
        for path, name in staged.items():
            target = self._inside(path)
            if name is None:
                self._remove(target)
            elif os.path.lexists(source := f"{staging}/{name}"):
                self._make_folder(os.path.dirname(target))
                os.replace(source, target)
        _clear_staging(self._root)

    def _differing(self, changes: Mapping[str, bytes | None]) -> dict[str, bytes | None]:
        """The changes the site does not hold yet (a file `put` as `new` is not looked at)."""
        differing: dict[str, bytes | None] = {}
        for path, data in changes.items():
            target = self._inside(path)
            if data is None:
                if os.path.lexists(target):
                    differing[path] = None
            elif path in self._unread or self._on_disk(target) != data:
                differing[path] = data
        return differing

    def _apply(self, changes: Mapping[str, bytes | None]) -> None:
        for path, data in changes.items():
            target = self._inside(path)
            if data is None:
                self._remove(target)
            else:
                self._write(target, data)

    @staticmethod
    def _on_disk(target: str) -> bytes | None:
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

    def _make_folder(self, folder: str) -> None:
        if folder not in self._made:
            os.makedirs(folder, exist_ok=True)
            self._made.add(folder)

    def _write(self, target: str, data: bytes) -> None:
        """`target` made to hold `data`."""
        # Write then rename: a process killed mid-write leaves the old file or the new, never half.
        folder = os.path.dirname(target)
        self._make_folder(folder)
        # The lock makes this process the folder's only writer: its own names cannot collide,
        # and a file (or symlink) of that name left by a process killed earlier is removed.
        temporary = f"{folder}/.tmp-{os.getpid()}-{next(self._temporary)}"
        try:
            _write_new(temporary, data, widen=self._widen)
            os.replace(temporary, target)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
            raise

    def _remove(self, target: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(target)  # a symlink is removed, not what it points to
        # Its folders left empty go too, as a branch on GitHub holds no empty folder.
        folder = os.path.dirname(target)
        with contextlib.suppress(OSError):
            while folder.startswith(f"{self._root}/"):  # never the site's own folder
                os.rmdir(folder)  # only when empty
                self._made.discard(folder)
                folder = os.path.dirname(folder)


def _write_new(path: str, data: bytes, *, widen: bool) -> None:
    """A new file at `path` holding `data`; a file (or symlink) there, left by a process
    killed earlier, is removed first. `widen`: its mode set to SITE_FILE_MODE after, where the
    umask kept some of it from the file as made."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
    try:
        handle = os.open(path, flags, SITE_FILE_MODE)
    except FileExistsError:
        os.unlink(path)
        handle = os.open(path, flags, SITE_FILE_MODE)
    try:
        # A site is read by a web server that may run as another user, so it gets what a
        # published file has whatever this process's umask: world-readable (0644).
        if widen:
            os.fchmod(handle, SITE_FILE_MODE)
        left = memoryview(data)
        while left:
            left = left[os.write(handle, left) :]
    finally:
        os.close(handle)


def _umask() -> int | None:
    """This process's umask as Linux shows it (`/proc/self/status`, since 4.7), without
    setting it (`os.umask` sets it for every thread at once); None where it is not shown."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return None


def _clear_staging(root: str) -> str:
    """`STAGED` removed with what it holds: what a write stopped before its journal had
    staged, which it never landed (a symlink there is removed, never followed)."""
    staging = f"{root}/{STAGED}"
    if os.path.islink(staging):
        os.unlink(staging)
    elif os.path.isdir(staging):
        shutil.rmtree(staging)
    return staging


def _journal(staged: Mapping[str, str | None]) -> bytes:
    """A write's changes: each path, and the name of its staged file (null: removed)."""
    changes = [[path, name] for path, name in staged.items()]
    return json.dumps({"version": _JOURNAL_VERSION, "changes": changes}).encode()


def _finish_journal(root: Path) -> None:
    """Land what a write stopped midway left in its journal, before anything else is written;
    without one, what a write stopped before its journal staged is removed, never landed. A
    journal that cannot be read or replayed (a write of a path the site cannot hold) is set
    aside, once, with a message: the site is not written from a guess, nor stopped for good."""
    journal = root / JOURNAL
    try:
        raw = _DirectoryWriter._on_disk(os.fspath(journal))  # never through a symlink
        if raw is None:
            _clear_staging(os.fspath(root))
            return
        writer = _DirectoryWriter(root)
        line, _newline, body = raw.partition(b"\n")
        try:
            head = json.loads(line)
            listed = head["changes"]
            if not isinstance(listed, list):
                raise TypeError("its changes are not a list")
            if head.get("version") == 1:  # of steadypress 0.2.0 and before: the bytes in it
                writer.replay(_changes_of(listed, body))
            elif head.get("version") == _JOURNAL_VERSION and not body:
                writer.move_staged(_staged_of(listed))
            else:
                raise ValueError(f"not a journal of version 1 or {_JOURNAL_VERSION}")
        except (ValueError, TypeError, KeyError) as error:
            raise ValueError(f"{journal} cannot be read: {error}") from None
    except (ValueError, OSError, PermanentError) as error:
        os.replace(journal, root / SET_ASIDE_JOURNAL)
        _clear_staging(os.fspath(root))
        raise TransientError(
            f"the site's journal of a write stopped midway could not be replayed ({error}); it "
            f"is set aside as {root / SET_ASIDE_JOURNAL} and the next write goes on (what that "
            "write left undone returns as its articles change; delete the file once read)"
        ) from None
    journal.unlink()


def _staged_of(listed: list[object]) -> dict[str, str | None]:
    """A journal's changes (path -> its staged file; None: removed)."""
    staged: dict[str, str | None] = {}
    for change in listed:
        path, name = change if isinstance(change, list) and len(change) == 2 else (None, None)
        if not isinstance(path, str) or not (name is None or _STAGED_NAME.fullmatch(str(name))):
            raise ValueError(f"a change is not [path, staged file]: {change!r}")
        staged[path] = None if name is None else str(name)
    return staged


# A staged file's name: its change's number (a journal naming another path is not followed).
_STAGED_NAME = re.compile(r"[0-9]+")


def _changes_of(listed: list[object], body: bytes) -> dict[str, bytes | None]:
    """A version 1 journal's changes: each path and its size (null: removed) listed, their
    bytes one after the other in `body`."""
    changes: dict[str, bytes | None] = {}
    at = 0
    for change in listed:
        path, size = change if isinstance(change, list) and len(change) == 2 else (None, None)
        if not isinstance(path, str) or not (size is None or (isinstance(size, int) and size >= 0)):
            raise ValueError(f"a change is not [path, size]: {change!r}")
        changes[path] = None if size is None else body[at : at + size]
        at += size or 0
    if at != len(body):
        raise ValueError(f"it names {at:,} bytes and holds {len(body):,}")
    return changes
