"""The embedded default store: the state branch of a local git repository.

Written with plumbing only (unpack-objects or index-pack, commit-tree), so the user's working
tree, index and current branch are never touched, and published with `git update-ref REF NEW
OLD`, which moves the branch only if it still points at OLD: an exact compare-and-swap on the
head commit.

A load reads the small files; a shard of published records is read the first time it is
wanted, at the loaded commit. A save writes the small files and the shards the change touched,
and reuses every other blob and every tree of `state/published/` it did not touch.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Collection, Iterable, Mapping
from dataclasses import replace
from pathlib import Path, PurePosixPath

from steadypress.codec import (
    LEGACY_PUBLISHED_FILE,
    PUBLISHED_DIR,
    SMALL_FILES,
    StateEncoder,
    shard_file,
)
from steadypress.errors import Conflict, GitFailed, StateError
from steadypress.gitio import ZERO_OID, Git, Objects, entry_in
from steadypress.ledger import Ledger
from steadypress.published import Layout, PublishedRecords, Stored
from steadypress.statedecode import decode_ledger, decode_shards
from steadypress.store.base import LastSnapshot, Snapshot

__all__ = ["LocalGitStore"]

# Shard files from which a read finds them through their folders' listings (`_read_shards`):
# below, git finding each by its path costs less than listing the top folder here (8,192
# entries at 10^5: 7 ms).
_BY_LISTING_FROM = 100
# The entries of the tree listings a store keeps (`_listed`), some 10 MB: the top folder of
# `state/published/` (8,192 at 10^5) several times over, with the folders a write changed.
_LISTED_ENTRIES_KEPT = 50_000


# What git says when update-ref lost a race: the ref moved, or another writer holds its lock.
_RACE_SIGNS = ("but expected", "already exists", "unable to create", "cannot lock ref")
# The lock git could not take: "Unable to create '/repo/.git/refs/heads/x.lock': File exists."
_HELD_LOCK = re.compile(r"Unable to create '([^']+\.lock)': File exists")
# A git writing a ref holds its lock for milliseconds: one this old was left by a git stopped
# midway (killed, out of disk), and no retry will see it go.
_STALE_LOCK_SECONDS = 60.0
_STATE_DIR = str(PurePosixPath(PUBLISHED_DIR).parent)


def _subtree(folder: tuple[str, str, bytes] | None, name: str) -> str | None:
    """The id of the folder `name` in `folder` (read whole with its kind: a file by the
    folder's name holds none), None where it holds none."""
    entry = entry_in(folder, name)
    return entry[2] if entry is not None and entry[1] == "tree" else None


class LocalGitStore:
    def __init__(self, repo: Path, branch: str) -> None:
        self._git = Git(repo)
        self._ref = f"refs/heads/{branch}"
        self.branch = branch
        self._last = LastSnapshot()
        self._encoder = StateEncoder()
        # Listings of `state/published/` trees by id, read or written here: each write reads
        # again the folders the last one wrote (the top one holds 8,192 entries at 10^5).
        self._listed: dict[str, dict[str, tuple[str, str, str]]] = {}
        self._listed_entries = 0

    @property
    def where(self) -> str:
        return f"state branch {self.branch!r} in {self._git.repo}"

    def last_known(self) -> Snapshot | None:
        return self._last.snapshot

    def load(self, hint: Collection[str] = ()) -> Snapshot:
        names = [*SMALL_FILES, LEGACY_PUBLISHED_FILE]
        try:
            # The head, then the state's small files at it and its folder (for the folder's
            # `published/` entry), in one git process.
            with self._git.reader() as reader:
                found_head = reader.read(f"{self._ref}^{{commit}}")
                if found_head is None:
                    return Snapshot(version=None, ledger=Ledger())
                head = found_head[0]
                if (cached := self._last.at(head)) is not None:
                    cached.ledger.published.preload(hint)
                    return cached
                *read, folder = [reader.read(f"{head}:{name}") for name in [*names, _STATE_DIR]]
        except GitFailed as failure:
            raise self._unreadable(failure) from None
        shards_tree = _subtree(folder, PurePosixPath(PUBLISHED_DIR).name)
        found = {name: (obj[0], obj[2]) for name, obj in zip(names, read, strict=True) if obj}
        published = PublishedRecords.stored(
            lambda wanted: self._read_shards(head, shards_tree, wanted)
        )
        published.preload(hint)
        ledger = decode_ledger({name: data for name, (_oid, data) in found.items()}, published)
        handles = {name: oid for name, (oid, _data) in found.items()}
        if shards_tree is not None:
            handles[PUBLISHED_DIR] = shards_tree
        return self._last.keep(Snapshot(version=head, ledger=ledger, handles=handles))

    def _read_shards(self, head: str, tree: str | None, wanted: Collection[str] | None) -> Stored:
        """The shard files of `wanted` (None: every one) at `head`, whose `state/published/`
        is `tree`. Many are found through their folders' listings, a level at a time: git
        finds a `head:path` by reading each tree on the path from its first entry, and at 10^5
        the top folder holds 8,192, so a first build's reads of 500 took 0.2 s a window."""
        try:
            if wanted is None:
                listing = self._git.list_tree(tree, recursive=True) if tree else {}
                specs = {f"{PUBLISHED_DIR}/{path}": oid for path, (*_, oid) in listing.items()}
            elif len(wanted) < _BY_LISTING_FROM:
                specs = {path: f"{head}:{path}" for path in sorted(map(shard_file, wanted))}
            else:
                specs = self._blob_ids(tree, map(shard_file, wanted))
            objects = self._git.read_objects(list(specs.values()))
        except GitFailed as failure:
            raise self._unreadable(failure) from None
        found = zip(specs, objects, strict=True)
        return decode_shards({path: read[1] for path, read in found if read})

    def _blob_ids(self, tree: str | None, paths: Iterable[str]) -> dict[str, str]:
        """The blob id of each of these files of `state/published/` (`tree`) there is."""
        inside = {path: path.removeprefix(f"{PUBLISHED_DIR}/") for path in paths}
        listed = self._listings(tree, {name.rpartition("/")[0] for name in inside.values()})
        ids = {}
        for path, name in sorted(inside.items()):
            folder, _, file = name.rpartition("/")
            _mode, kind, oid = listed[folder].get(file, ("", "", ""))
            if kind == "blob":
                ids[path] = oid
        return ids

    def save(self, ledger: Ledger, *, based_on: Snapshot, message: str) -> str:
        layout = based_on.layout_of(ledger)
        try:
            root, written = self._root_tree(ledger, based_on, layout)
            commit = self._git.write_commit(root, based_on.version, message)
        except GitFailed as failure:
            raise StateError(
                self.where, f"could not be written: {failure.stderr.strip()}"
            ) from None
        try:
            self._git.run(
                "update-ref", "-m", "steadypress", self._ref, commit, based_on.version or ZERO_OID
            )
        except GitFailed as failure:
            if any(sign in failure.stderr.lower() for sign in _RACE_SIGNS):
                raise self._lost_race(failure.stderr, based_on.version) from None
            raise StateError(
                self.where, f"could not be written: {failure.stderr.strip()}"
            ) from None
        tree = written.get(PUBLISHED_DIR)
        published = ledger.published.as_written(
            layout, lambda wanted: self._read_shards(commit, tree, wanted)
        )
        self._last.keep(
            Snapshot(version=commit, ledger=replace(ledger, published=published), handles=written)
        )
        self._tidy()
        return commit

    def _lost_race(self, said: str, expected: str | None) -> Conflict | StateError:
        """The Conflict of a lost race; one whose lock a stopped git left behind is named, with
        the way out (at once where the lock is old: retrying cannot help)."""
        conflict = Conflict(expected, self._git.resolve(self._ref))
        held = _HELD_LOCK.search(said)
        if held is None:
            return conflict
        lock = held.group(1)
        conflict.reason = (
            f"git's lock {lock} is there; a git stopped while writing the branch leaves it: if "
            "no git is running in this repository, delete that file"
        )
        try:
            age = time.time() - os.lstat(lock).st_mtime  # the file's clock, not the run's
        except OSError:
            return conflict  # gone meanwhile: the writer holding it finished
        if age >= _STALE_LOCK_SECONDS:
            return StateError(self.where, f"cannot be written: {conflict.reason}")
        return conflict

    def _tidy(self) -> None:
        """What `git commit` does after each commit, which plumbing does not: `git gc --auto`,
        which packs the loose objects and merges the packs once there are many (git's own
        thresholds; a few milliseconds when there are not). Each state write leaves objects,
        and a large one a pack: without it, a year of runs leaves thousands of loose objects
        and dozens of packs that every later git command searches. The write has landed
        whatever this does: a failure here is the repository's to report, not the ledger's."""
        with contextlib.suppress(GitFailed):
            self._git.run("gc", "--auto", "--quiet")

    def _root_tree(
        self, ledger: Ledger, based_on: Snapshot, layout: Layout
    ) -> tuple[str, dict[str, str]]:
        """The root tree of `ledger`, whose shards `layout` lays out, and the ids it holds by
        path (the small files, and `state/published/`): `state/published/` is the previous one
        with the changed shards replaced (every shard, when moving from version 1), the trees
        and blobs nothing changed reused."""
        handles = based_on.handles
        previous = based_on.written_over
        small = self._encoder.small_files(ledger, previous)
        shards = self._encoder.shards(layout)
        objects = self._git.objects()
        oids = {path: objects.blob(data) for path, data in {**small, **shards}.items()
                if data is not None}  # fmt: skip
        kept = [name for name in SMALL_FILES if name in handles and name not in small]
        files = {name: handles[name] for name in kept}
        files |= {name: oids[name] for name in small if name in oids}
        state = [("100644", "blob", oid, PurePosixPath(name).name)
                 for name, oid in sorted(files.items())]  # fmt: skip
        written = dict(files)
        published, listings = self._tree_with(
            objects,
            None if previous is None else handles.get(PUBLISHED_DIR),
            {path.removeprefix(f"{PUBLISHED_DIR}/"): oids.get(path) for path in shards},
        )
        if published is not None:
            state.append(("040000", "tree", published, PurePosixPath(PUBLISHED_DIR).name))
            written[PUBLISHED_DIR] = published
        root = objects.tree([("040000", "tree", objects.tree(state), "state")])
        objects.write()
        self._remember(listings)  # only now: a listing kept must name a tree that is there
        return root, written

    def _tree_with(
        self, objects: Objects, tree: str | None, changes: Mapping[str, str | None]
    ) -> tuple[str | None, dict[str, dict[str, tuple[str, str, str]]]]:
        """`tree` (None: none yet) with `changes` made: a blob id by path from it, None to
        remove the file; None when nothing is left. Only the trees on a changed path are made
        again (a shard's folder of 16, the top's 4,096 to 8,192 entries), added to `objects`
        (a first build's record of 500 changes some 500 folders at 10^5: one process each took
        it 4 s), and their listings returned by id, to keep once they are written. The
        listings are read a level at a time, one git process a level."""
        if not changes:
            return tree, {}  # a claim changes no shard: nothing to list or write
        listed = self._listings(tree, {path.rpartition("/")[0] for path in changes})
        for path, oid in changes.items():
            folder, _, name = path.rpartition("/")
            if oid is None:
                listed[folder].pop(name, None)
            else:
                listed[folder][name] = ("100644", "blob", oid)
        made: dict[str, dict[str, tuple[str, str, str]]] = {}
        for depth in range(max(map(_depth, listed)), 0, -1):  # below the top, deepest first
            for folder in [folder for folder in listed if _depth(folder) == depth]:
                parent, _, name = folder.rpartition("/")
                if listed[folder]:
                    oid = objects.tree(_entries(listed[folder]))
                    made[oid] = listed[folder]
                    listed[parent][name] = ("040000", "tree", oid)
                else:
                    listed[parent].pop(name, None)
        if not listed[""]:
            return None, made
        top = objects.tree(_entries(listed[""]))
        made[top] = listed[""]
        return top, made

    def _listings(
        self, tree: str | None, folders: Collection[str]
    ) -> dict[str, dict[str, tuple[str, str, str]]]:
        """The listing of each of these folders of `tree` (None: none yet) and of every folder
        above them, {} for one that is not there; read a level at a time, one git process a
        level, and each folder once."""
        wanted = {""} | {
            "/".join(parts[:depth])
            for parts in (folder.split("/") for folder in folders if folder)
            for depth in range(1, len(parts) + 1)
        }
        listed: dict[str, dict[str, tuple[str, str, str]]] = {}
        for depth in range(max(map(_depth, wanted)) + 1):
            level = sorted(folder for folder in wanted if _depth(folder) == depth)
            where = {folder: _tree_at(listed, folder, tree) for folder in level}
            kept = {oid: self._listed[oid] for oid in where.values() if oid in self._listed}
            unread = sorted({oid for oid in where.values() if oid} - kept.keys())
            read = dict(zip(unread, self._git.read_trees(unread), strict=True))
            self._remember(read)
            known = kept | read
            listed.update({
                folder: dict(known[oid]) if oid else {} for folder, oid in where.items()
            })  # fmt: skip
        return listed

    def _remember(self, listings: Mapping[str, dict[str, tuple[str, str, str]]]) -> None:
        entries = sum(map(len, listings.values()))
        if self._listed_entries + entries > _LISTED_ENTRIES_KEPT:
            self._listed.clear()
            self._listed_entries = 0
        self._listed.update(listings)
        self._listed_entries += entries

    def _unreadable(self, failure: GitFailed) -> StateError:
        return StateError(self.where, f"could not be read: {failure.stderr.strip()}")


def _depth(folder: str) -> int:
    """How deep a folder of `_tree_with` is: the top ("") 0, "001" 1, "001/a" 2."""
    return folder.count("/") + 1 if folder else 0


def _tree_at(
    listed: Mapping[str, Mapping[str, tuple[str, str, str]]], folder: str, top: str | None
) -> str | None:
    """The tree id `folder` has before the change (None: no such folder yet), from the
    listing of its parent, which is read a level before it."""
    if not folder:
        return top
    parent, _, name = folder.rpartition("/")
    _mode, kind, oid = listed[parent].get(name, ("", "", ""))
    return oid if kind == "tree" else None


def _entries(listing: Mapping[str, tuple[str, str, str]]) -> list[tuple[str, str, str, str]]:
    """A folder's listing as `Objects.tree` takes it (in any order: it puts them in git's)."""
    return [(mode, kind, oid, name) for name, (mode, kind, oid) in listing.items()]
