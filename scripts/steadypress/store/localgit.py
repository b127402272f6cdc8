"""The embedded default store: the state branch of a local git repository.

Written with plumbing only (hash-object, mktree, commit-tree), so the user's working tree, index
and current branch are never touched, and published with `git update-ref REF NEW OLD`, which
moves the branch only if it still points at OLD: an exact compare-and-swap on the head commit.

A load reads the small files; a shard of published records is read the first time it is
wanted, at the loaded commit. A save writes the small files and the shards the change touched,
and reuses every other blob and every tree of `state/published/` it did not touch.
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection, Mapping
from pathlib import Path, PurePosixPath

from steadypress.codec import (
    LEGACY_PUBLISHED_FILE,
    PUBLISHED_DIR,
    SMALL_FILES,
    SPLIT_MARKER,
    StateEncoder,
    decode_ledger,
    decode_shards,
    shard_file,
)
from steadypress.errors import Conflict, GitFailed, StateError
from steadypress.gitio import ZERO_OID, Git
from steadypress.ledger import Ledger
from steadypress.published import PublishedRecords, Stored
from steadypress.store.base import LastSnapshot, Snapshot

__all__ = ["LocalGitStore"]


# What git says when update-ref lost a race: the ref moved, or another writer holds its lock.
_RACE_SIGNS = ("but expected", "already exists", "unable to create", "cannot lock ref")


class LocalGitStore:
    def __init__(self, repo: Path, branch: str) -> None:
        self._git = Git(repo)
        self._ref = f"refs/heads/{branch}"
        self.branch = branch
        self._last = LastSnapshot()
        self._encoder = StateEncoder()

    @property
    def where(self) -> str:
        return f"state branch {self.branch!r} in {self._git.repo}"

    def last_known(self) -> Snapshot | None:
        return self._last.snapshot

    def load(self, hint: Collection[str] = ()) -> Snapshot:
        try:
            head = self._git.resolve(f"{self._ref}^{{commit}}")
            if head is None:
                return Snapshot(version=None, ledger=Ledger())
            if (cached := self._last.at(head)) is not None:
                cached.ledger.published.preload(hint)
                return cached
            names = [*SMALL_FILES, LEGACY_PUBLISHED_FILE]
            objects = self._git.read_objects([f"{head}:{name}" for name in names])
            shards_tree = self._git.resolve(f"{head}:{PUBLISHED_DIR}")
        except GitFailed as failure:
            raise self._unreadable(failure) from None
        found = {name: obj for name, obj in zip(names, objects, strict=True) if obj}
        published = PublishedRecords.stored(lambda wanted: self._read_shards(head, wanted))
        published.preload(hint)
        ledger = decode_ledger({name: data for name, (_oid, data) in found.items()}, published)
        handles = {name: oid for name, (oid, _data) in found.items()}
        if shards_tree is not None:
            handles[PUBLISHED_DIR] = shards_tree
        return self._last.keep(Snapshot(version=head, ledger=ledger, handles=handles))

    def _read_shards(self, head: str, wanted: Collection[str] | None) -> Stored:
        try:
            if wanted is None:
                tree = self._git.resolve(f"{head}:{PUBLISHED_DIR}")
                listing = self._git.list_tree(tree, recursive=True) if tree else {}
                paths = sorted(f"{PUBLISHED_DIR}/{path}" for path in listing)
            else:
                paths = sorted(map(shard_file, wanted))
            objects = self._git.read_objects([f"{head}:{path}" for path in paths])
        except GitFailed as failure:
            raise self._unreadable(failure) from None
        found = zip(paths, objects, strict=True)
        return decode_shards({path: read[1] for path, read in found if read})

    def save(self, ledger: Ledger, *, based_on: Snapshot, message: str) -> str:
        try:
            root, written, split = self._root_tree(ledger, based_on)
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
                raise Conflict(based_on.version, self._git.resolve(self._ref)) from None
            raise StateError(
                self.where, f"could not be written: {failure.stderr.strip()}"
            ) from None
        if split:  # `ledger` still files the records of a shard that split there: read again
            self._last.forget()
        else:
            self._last.keep(Snapshot(version=commit, ledger=ledger, handles=written))
        self._tidy()
        return commit

    def _tidy(self) -> None:
        """What `git commit` does after each commit, which plumbing does not: `git gc --auto`,
        which packs the loose objects and merges the packs once there are many (git's own
        thresholds; a few milliseconds when there are not). Each state write leaves objects,
        and a large one a pack: without it, a year of runs leaves thousands of loose objects
        and dozens of packs that every later git command searches. The write has landed
        whatever this does: a failure here is the repository's to report, not the ledger's."""
        with contextlib.suppress(GitFailed):
            self._git.run("gc", "--auto", "--quiet")

    def _root_tree(self, ledger: Ledger, based_on: Snapshot) -> tuple[str, dict[str, str], bool]:
        """The root tree of `ledger`, the ids it holds by path (the small files, and
        `state/published/`), and whether a shard split: `state/published/` is the previous one
        with the changed shards replaced (every shard, when moving from version 1), the trees
        and blobs nothing changed reused."""
        handles = based_on.handles
        moving = based_on.version is None or LEGACY_PUBLISHED_FILE in handles
        previous = None if moving else based_on.ledger
        small = self._encoder.small_files(ledger, previous)
        shards = self._encoder.shards(ledger, previous)
        contents = {path: data for path, data in {**small, **shards}.items() if data is not None}
        oids = dict(zip(contents, self._git.write_blobs(list(contents.values())), strict=True))
        kept = [name for name in SMALL_FILES if name in handles and name not in small]
        files = {name: handles[name] for name in kept}
        files |= {name: oids[name] for name in small if name in oids}
        state = [("100644", "blob", oid, PurePosixPath(name).name)
                 for name, oid in sorted(files.items())]  # fmt: skip
        written = dict(files)
        published = self._tree_with(
            None if moving else handles.get(PUBLISHED_DIR),
            {path.removeprefix(f"{PUBLISHED_DIR}/"): oids.get(path) for path in shards},
        )
        if published is not None:
            state.append(("040000", "tree", published, PurePosixPath(PUBLISHED_DIR).name))
            written[PUBLISHED_DIR] = published
        root = self._git.write_tree([("040000", "tree", self._git.write_tree(state), "state")])
        return root, written, SPLIT_MARKER in shards.values()

    def _tree_with(self, tree: str | None, changes: Mapping[str, str | None]) -> str | None:
        """`tree` (None: none yet) with `changes` made: a blob id by path from it, None to
        remove the file; None when nothing is left. Only the trees on a changed path are
        written again (a shard's folder of 16, the top's 4,096 to 8,192 entries)."""
        if not changes:
            return tree  # a claim changes no shard: nothing to list or write
        entries = {} if tree is None else self._git.list_tree(tree)
        below: dict[str, dict[str, str | None]] = {}
        for path, oid in changes.items():
            name, inside, rest = path.partition("/")
            if inside:
                below.setdefault(name, {})[rest] = oid
            elif oid is None:
                entries.pop(name, None)
            else:
                entries[name] = ("100644", "blob", oid)
        for name, inner in below.items():
            _mode, kind, oid = entries.get(name, ("", "", ""))
            subtree = self._tree_with(oid if kind == "tree" else None, inner)
            if subtree is None:
                entries.pop(name, None)
            else:
                entries[name] = ("040000", "tree", subtree)
        if not entries:
            return None
        # In any order: `write_tree` puts them in git's.
        return self._git.write_tree(
            [(mode, kind, oid, name) for name, (mode, kind, oid) in entries.items()]
        )

    def _unreadable(self, failure: GitFailed) -> StateError:
        return StateError(self.where, f"could not be read: {failure.stderr.strip()}")
