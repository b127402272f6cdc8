"""The state branch on GitHub, behind the same LedgerStore protocol as the local git store.

Why `createCommitOnBranch` (through GitHubBranch): it is an exact compare-and-swap in one call
and carries only the files that changed. The REST way needs three writes (tree, commit, ref),
and `PATCH /git/refs` without force only checks fast-forward, so two writers that build the same
commit both "succeed". A load is one GraphQL query (plus, for a file over GraphQL's text limit,
one REST blob fetch that is kept while the file is unchanged).
"""

from __future__ import annotations

import requests

from steadypress.codec import STATE_FILES, StateEncoder, decode_ledger
from steadypress.errors import (
    AmbiguousWrite,
    Conflict,
    GitHubError,
    GraphQLErrors,
    RateLimited,
    StateError,
)
from steadypress.github.branch import GitHubBranch
from steadypress.github.client import GitHubClient
from steadypress.ledger import Ledger
from steadypress.store.base import LastSnapshot, Snapshot

__all__ = ["GitHubStore"]


# What the API layer raises when GitHub cannot be used right now: the state is left as it was.
UNAVAILABLE = (GitHubError, GraphQLErrors, RateLimited, AmbiguousWrite, requests.RequestException)


class GitHubStore:
    def __init__(self, client: GitHubClient, *, repository: str, branch: str) -> None:
        self._branch = GitHubBranch(client, repository=repository, branch=branch)
        self._last = LastSnapshot()
        self._encoder = StateEncoder()

    @property
    def where(self) -> str:
        return f"state branch {self._branch.branch!r} of {self._branch.repository} on GitHub"

    def last_known(self) -> Snapshot | None:
        return self._last.snapshot

    def load(self) -> Snapshot:
        try:
            found = self._branch.read(texts=STATE_FILES)
        except UNAVAILABLE as failure:
            raise StateError(self.where, f"could not be read: {failure}") from None
        except (KeyError, TypeError, AttributeError) as garbage:
            raise StateError(self.where, f"GitHub's answer made no sense ({garbage!r})") from None
        if found.head is None:
            return Snapshot(version=None, ledger=Ledger())
        if (cached := self._last.at(found.head)) is not None:
            return cached
        ledger = decode_ledger(dict(found.texts))
        return self._last.keep(Snapshot(version=found.head, ledger=ledger, handles=found.oids))

    def save(self, ledger: Ledger, *, based_on: Snapshot, message: str) -> str:
        try:
            if based_on.version is None:
                files = {name: self._encoder.encode(name, ledger) for name in STATE_FILES}
                commit = self._branch.create(files, message=message)
            else:
                changed = {
                    name: self._encoder.encode(name, ledger)
                    for name in STATE_FILES
                    if self._encoder.touched(name, ledger, based_on.ledger)
                }
                commit = self._branch.commit(changed, expected=based_on.version, message=message)
        except Conflict as moved:
            raise Conflict(moved.expected, moved.actual) from None
        except UNAVAILABLE as failure:
            raise StateError(self.where, f"could not be written: {failure}") from None
        self._last.keep(Snapshot(version=commit, ledger=ledger))
        return commit
