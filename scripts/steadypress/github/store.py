"""The state branch on GitHub, behind the same LedgerStore protocol as the local git store.

Why `createCommitOnBranch`: it is an exact compare-and-swap in one call (the branch moves only if
it still points at `expectedHeadOid`; otherwise GitHub answers 200 with an error of type
STALE_DATA) and it carries only the files that changed. The REST way needs three writes (tree,
commit, ref), and `PATCH /git/refs` without force only checks fast-forward, so two writers that
build the same commit both "succeed".

A load is one GraphQL query: the head and the three files. A file longer than GraphQL's text limit
(512,000 bytes, `isTruncated`) is fetched from the REST blob endpoint and kept by blob id, so an
unchanged large published.json is fetched once per process.

The mutation creates no branch: the first save builds a root commit through REST (a tree with the
files inline, a commit without parents) and creates the ref; "Reference already exists" means
another executor bootstrapped first, an ordinary conflict.

A write whose answer is lost is never re-sent blindly. The head is read again: if it carries this
transaction's id the write happened; if it has not moved, the transaction loop applies the change
again; if it moved, that is a conflict like any other.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from typing import Any

import requests

from steadypress.codec import (
    DEAD_FILE,
    PENDING_FILE,
    PUBLISHED_FILE,
    decode_ledger,
    encode_dead,
    encode_pending,
    encode_published,
)
from steadypress.errors import LedgerConflict, StateError
from steadypress.github.client import (
    AmbiguousWrite,
    GitHubClient,
    GitHubError,
    GraphQLErrors,
    RateLimited,
)
from steadypress.github.queries import CREATE_COMMIT, LOAD_STATE, READ_HEAD
from steadypress.ledger import Ledger
from steadypress.store.base import Snapshot

__all__ = ["GitHubStore"]

_FILES: dict[str, tuple[str, str, Callable[[Ledger], bytes]]] = {
    PENDING_FILE: ("pending", "pending", encode_pending),
    PUBLISHED_FILE: ("published", "published", encode_published),
    DEAD_FILE: ("dead", "dead", encode_dead),
}
_TRANSACTION = re.compile(r"^transaction: (\S+)$", re.MULTILINE)

# Everything the API layer raises when GitHub cannot be used right now.
_UNAVAILABLE = (GitHubError, GraphQLErrors, RateLimited, AmbiguousWrite, requests.RequestException)


class GitHubStore:
    def __init__(self, client: GitHubClient, *, repository: str, branch: str) -> None:
        owner, _, name = repository.partition("/")
        if not owner or not name:
            raise ValueError(f"repository must be OWNER/NAME, got {repository!r}")
        self._client = client
        self._repository = repository
        self._owner = owner
        self._name = name
        self._branch = branch
        self._variables = {"owner": owner, "name": name, "ref": f"refs/heads/{branch}"}
        self._last: Snapshot | None = None
        self._blobs: dict[str, bytes] = {}

    @property
    def where(self) -> str:
        return f"state branch {self._branch!r} of {self._repository} on GitHub"

    def load(self) -> Snapshot:
        try:
            data = self._client.graphql(LOAD_STATE, self._variables, mutation=False)
            ref = self._ref(data)
            if ref is None:
                return Snapshot(version=None, ledger=Ledger())
            target = ref["target"]
            head = target["oid"]
            if self._last is not None and self._last.version == head:
                return self._last
            files: dict[str, bytes | None] = {}
            handles: dict[str, str] = {}
            for name, (alias, _section, _encode) in _FILES.items():
                entry = target.get(alias)
                blob = entry.get("object") if entry else None
                if not blob:
                    continue
                handles[name] = blob["oid"]
                if blob.get("isTruncated") or blob.get("text") is None:
                    files[name] = self._fetch_blob(blob["oid"])
                else:
                    files[name] = blob["text"].encode("utf-8")
        except _UNAVAILABLE as failure:
            raise StateError(self.where, f"could not be read: {failure}") from None
        except (KeyError, TypeError, AttributeError) as garbage:
            raise StateError(self.where, f"GitHub's answer made no sense ({garbage!r})") from None
        self._blobs = {oid: self._blobs[oid] for oid in handles.values() if oid in self._blobs}
        self._last = Snapshot(version=head, ledger=decode_ledger(files), handles=handles)
        return self._last

    def save(self, ledger: Ledger, *, based_on: Snapshot, message: str) -> str:
        try:
            if based_on.version is None:
                commit = self._bootstrap(ledger, message)
            else:
                commit = self._commit(ledger, based_on, message)
        except _UNAVAILABLE as failure:
            raise StateError(self.where, f"could not be written: {failure}") from None
        self._last = Snapshot(version=commit, ledger=ledger)
        return commit

    def _ref(self, data: object) -> dict[str, Any] | None:
        repository = data.get("repository") if isinstance(data, dict) else None
        if repository is None:
            raise StateError(self.where, f"repository {self._repository} not found (or no access)")
        ref = repository.get("ref")
        return ref if isinstance(ref, dict) else None

    def _fetch_blob(self, oid: str) -> bytes:
        if oid not in self._blobs:
            response = self._client.rest(
                "GET", f"/repos/{self._repository}/git/blobs/{oid}",
                accept="application/vnd.github.raw+json", endpoint="/repos/{repo}/git/blobs/{sha}",
            )  # fmt: skip
            self._blobs[oid] = response.content
        return self._blobs[oid]

    def _commit(self, ledger: Ledger, based_on: Snapshot, message: str) -> str:
        additions = [
            {"path": name, "contents": base64.b64encode(encode(ledger)).decode("ascii")}
            for name, (_alias, section, encode) in _FILES.items()
            if getattr(ledger, section) is not getattr(based_on.ledger, section)
        ]
        headline, _, body = message.partition("\n")
        change = {
            "branch": {"repositoryNameWithOwner": self._repository, "branchName": self._branch},
            "expectedHeadOid": based_on.version,
            "message": {"headline": headline, "body": body.strip()},
            "fileChanges": {"additions": additions},
        }
        try:
            data = self._client.graphql(CREATE_COMMIT, {"input": change}, mutation=True)
            oid: str = data["createCommitOnBranch"]["commit"]["oid"]
        except GraphQLErrors as errors:
            if "STALE_DATA" not in errors.types:
                raise
            return self._after_lost_race(based_on.version, message)
        except AmbiguousWrite:
            return self._after_lost_race(based_on.version, message)
        return oid

    def _after_lost_race(self, expected: str | None, message: str) -> str:
        """The branch moved, or our answer was lost: was it our own write?"""
        data = self._client.graphql(READ_HEAD, self._variables, mutation=False)
        ref = self._ref(data)
        head = ref["target"] if ref else None
        ours = _TRANSACTION.search(message)
        if isinstance(head, dict) and ours and ours.group(0) in str(head.get("message", "")):
            return str(head["oid"])
        raise LedgerConflict(expected, head.get("oid") if isinstance(head, dict) else None)

    def _bootstrap(self, ledger: Ledger, message: str) -> str:
        try:
            commit = self._root_commit(ledger, message)
        except AmbiguousWrite:
            # An unreferenced tree or commit is harmless: start over from a fresh read.
            raise LedgerConflict(None, None) from None
        try:
            self._client.rest(
                "POST", f"/repos/{self._repository}/git/refs", endpoint="/repos/{repo}/git/refs",
                json={"ref": f"refs/heads/{self._branch}", "sha": commit},
            )  # fmt: skip
        except GitHubError as failure:
            if failure.status == 422 and "already exists" in failure.message.lower():
                raise LedgerConflict(None, "created by another executor") from None
            raise
        except AmbiguousWrite:
            return self._after_lost_race(None, message)
        return commit

    def _root_commit(self, ledger: Ledger, message: str) -> str:
        tree = self._client.rest(
            "POST", f"/repos/{self._repository}/git/trees", endpoint="/repos/{repo}/git/trees",
            json={"tree": [
                {"path": name, "mode": "100644", "type": "blob", "content": encode(ledger).decode()}
                for name, (_alias, _section, encode) in _FILES.items()
            ]},
        ).json()["sha"]  # fmt: skip
        commit = self._client.rest(
            "POST", f"/repos/{self._repository}/git/commits", endpoint="/repos/{repo}/git/commits",
            json={"message": message, "tree": tree, "parents": []},
        ).json()["sha"]  # fmt: skip
        sha: str = commit
        return sha
