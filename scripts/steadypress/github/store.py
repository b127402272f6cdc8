"""The state branch on GitHub, behind the same LedgerStore protocol as the local git store.

Why `createCommitOnBranch` (through GitHubBranch): it is an exact compare-and-swap in one call
and carries only the files that changed. The REST way needs three writes (tree, commit, ref),
and `PATCH /git/refs` without force only checks fast-forward, so two writers that build the same
commit both "succeed". A load is one GraphQL query (plus, for a file over GraphQL's text limit,
one REST blob fetch that is kept while the file is unchanged).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

import requests

from steadypress import shardtree
from steadypress.codec import (
    LEGACY_PUBLISHED_FILE,
    PUBLISHED_DIR,
    SMALL_FILES,
    StateEncoder,
    shard_file,
    shard_name,
)
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
from steadypress.github.readahead import ReadAhead
from steadypress.ledger import Ledger
from steadypress.published import PublishedRecords, Shard, Stored, first_reads, key_digest
from steadypress.statedecode import decode_ledger, decode_shards
from steadypress.store.base import LastSnapshot, Snapshot

__all__ = ["GitHubStore"]


# What the API layer raises when GitHub cannot be used right now: the state is left as it was.
UNAVAILABLE = (GitHubError, GraphQLErrors, RateLimited, AmbiguousWrite, requests.RequestException)


class GitHubStore:
    def __init__(
        self,
        client: GitHubClient,
        *,
        repository: str,
        branch: str,
        read_ahead: ReadAhead | None = None,
    ) -> None:
        """`read_ahead`: shared with the site's branch, whose reads the state's carry."""
        self._branch = GitHubBranch(
            client, repository=repository, branch=branch, read_ahead=read_ahead
        )
        self._last = LastSnapshot()
        self._encoder = StateEncoder()

    @property
    def where(self) -> str:
        return f"state branch {self._branch.branch!r} of {self._branch.repository} on GitHub"

    def last_known(self) -> Snapshot | None:
        return self._last.snapshot

    def load(self, hint: Collection[str] = ()) -> Snapshot:
        # The files the hinted records may be in (`first_reads`): one that is not there costs
        # nothing, a split marker a few bytes.
        hinted = sorted(map(shard_file, first_reads({key_digest(key) for key in hint})))
        try:
            found = self._branch.read(texts=[*SMALL_FILES, LEGACY_PUBLISHED_FILE, *hinted])
        except UNAVAILABLE as failure:
            raise StateError(self.where, f"could not be read: {failure}") from None
        except (KeyError, TypeError, AttributeError) as garbage:
            raise StateError(self.where, f"GitHub's answer made no sense ({garbage!r})") from None
        head = found.head
        if head is None:
            return Snapshot(version=None, ledger=Ledger())
        if (cached := self._last.at(head)) is not None:
            cached.ledger.published.preload(hint)
            return cached
        # The hinted shards came with the small files; a shard absent there has no records.
        read = decode_shards({path: found.texts[path] for path in hinted if path in found.texts})
        absent: dict[str, Shard] = {
            str(shard_name(path)): {} for path in hinted if path not in found.texts
        }
        known = Stored({**absent, **read.shards}, read.split)
        published = PublishedRecords.stored(lambda wanted: self._read_shards(head, wanted), known)
        published.preload(hint)  # below the split markers read, when the hint was too many
        small = {path: data for path, data in found.texts.items() if shard_name(path) is None}
        ledger = decode_ledger(small, published)
        return self._last.keep(Snapshot(version=head, ledger=ledger, handles=found.oids))

    def _read_shards(self, head: str, wanted: Collection[str] | None) -> Stored:
        try:
            if wanted is None:
                depth = shardtree.MAX_DIGITS - shardtree.BASE_DIGITS + 1
                files = self._branch.files_at(head, PUBLISHED_DIR, depth)
                paths = sorted(f"{PUBLISHED_DIR}/{path}" for path in files)
            else:
                paths = sorted(map(shard_file, wanted))
            texts = self._branch.read_at(head, paths)
        except UNAVAILABLE as failure:
            raise StateError(self.where, f"could not be read: {failure}") from None
        except (KeyError, TypeError, AttributeError) as garbage:
            raise StateError(self.where, f"GitHub's answer made no sense ({garbage!r})") from None
        return decode_shards(texts)

    def save(self, ledger: Ledger, *, based_on: Snapshot, message: str) -> str:
        layout = based_on.layout_of(ledger)
        changed = {
            **self._encoder.small_files(ledger, based_on.written_over),
            **self._encoder.shards(layout),
        }
        additions = {path: data for path, data in changed.items() if data is not None}
        deletions = [path for path, data in changed.items() if data is None]
        try:
            if based_on.version is None:
                commit = self._branch.create(additions, message=message)
            else:
                if LEGACY_PUBLISHED_FILE in based_on.handles:
                    deletions.append(LEGACY_PUBLISHED_FILE)
                present = [path for path in deletions if path in based_on.handles
                           or shard_name(path) is not None]  # fmt: skip
                commit = self._branch.commit(
                    additions, expected=based_on.version, message=message, deletions=present
                )
        except Conflict as moved:
            raise Conflict(moved.expected, moved.actual) from None
        except UNAVAILABLE as failure:
            raise StateError(self.where, f"could not be written: {failure}") from None
        published = ledger.published.as_written(
            layout, lambda wanted: self._read_shards(commit, wanted)
        )
        self._last.keep(Snapshot(version=commit, ledger=replace(ledger, published=published)))
        return commit
