"""The embedded default store: the state branch of a local git repository.

Written with plumbing only (hash-object, mktree, commit-tree), so the user's working tree, index
and current branch are never touched, and published with `git update-ref REF NEW OLD`, which
moves the branch only if it still points at OLD: an exact compare-and-swap on the head commit.
"""

from __future__ import annotations

from pathlib import Path

from steadypress.codec import STATE_FILES, StateEncoder, decode_ledger
from steadypress.errors import Conflict, GitFailed, StateError
from steadypress.gitio import ZERO_OID, Git
from steadypress.ledger import Ledger
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

    def load(self) -> Snapshot:
        try:
            head = self._git.resolve(f"{self._ref}^{{commit}}")
            if head is None:
                return Snapshot(version=None, ledger=Ledger())
            if (cached := self._last.at(head)) is not None:
                return cached
            objects = self._git.read_objects([f"{head}:{name}" for name in STATE_FILES])
        except GitFailed as failure:
            raise StateError(self.where, f"could not be read: {failure.stderr.strip()}") from None
        found = {name: obj for name, obj in zip(STATE_FILES, objects, strict=True) if obj}
        ledger = decode_ledger({name: data for name, (_oid, data) in found.items()})
        handles = {name: oid for name, (oid, _data) in found.items()}
        return self._last.keep(Snapshot(version=head, ledger=ledger, handles=handles))

    def save(self, ledger: Ledger, *, based_on: Snapshot, message: str) -> str:
        try:
            blobs = {name: self._blob(name, ledger, based_on) for name in STATE_FILES}
            state_tree = self._git.write_tree(
                [("100644", "blob", blobs[name], Path(name).name) for name in STATE_FILES]
            )
            root = self._git.write_tree([("040000", "tree", state_tree, "state")])
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
        self._last.keep(Snapshot(version=commit, ledger=ledger, handles=blobs))
        return commit

    def _blob(self, name: str, ledger: Ledger, based_on: Snapshot) -> str:
        handle = based_on.handles.get(name)
        if handle is not None and not self._encoder.touched(name, ledger, based_on.ledger):
            return handle
        return self._git.write_blob(self._encoder.encode(name, ledger))
