"""The site on a GitHub Pages branch: the site target's files, committed through the API.

Each `apply` reads the files it needs in one query (the manifest's text; the page, index and
.nojekyll as blob ids only, since comparing an id is enough to skip an unchanged file), runs the
change on staged copies, and commits what changed in one createCommitOnBranch. When another
executor moved the branch meanwhile, the change runs again on the new files. An unchanged
article makes no commit; the branch is created as an orphan on first use.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from steadypress.cas import retry_conflicts
from steadypress.clock import Clock, SystemClock
from steadypress.errors import AuthFailed, Conflict, GitHubError, PermanentError, TransientError
from steadypress.github.branch import Ahead, BranchRead, GitHubBranch
from steadypress.github.store import UNAVAILABLE
from steadypress.gitio import blob_oid
from steadypress.targets.site import SiteWriter

__all__ = ["BranchSiteFiles", "pages_url"]

R = TypeVar("R")


class BranchSiteFiles:
    confirms_writes = True  # createCommitOnBranch answers with the commit it made
    batches_leave_unfiled = False

    def __init__(
        self,
        branch: GitHubBranch,
        *,
        attempts: int = 8,
        clock: Clock | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self._branch = branch
        self._attempts = attempts
        self._clock = clock or SystemClock()
        self._rng = rng or random.Random()

    def holds(self, path: str) -> bool | None:
        """Known when it was read ahead (`read_ahead`, with the state's read); else None."""
        ahead = self._branch.peek()
        if ahead is None or path not in ahead.ids:
            return None
        return path in ahead.read.oids

    def apply(
        self,
        change: Callable[[SiteWriter], R],
        *,
        texts: Sequence[str] = (),
        oids: Sequence[str] = (),
    ) -> R:
        def attempt(number: int) -> R:
            if number > 1:  # the branch moved: what was read ahead is as stale as the rest
                self._branch.forget_ahead()
            at = self._branch.read(texts, oids)
            known_texts, known_ids = {*texts}, {*oids}
            if (ahead := self._branch.peek()) is not None and ahead.read.head == at.head:
                # Read ahead at this head, and so known: a read the change makes later asks
                # for what it lacks alone, not again for all it asks.
                at.texts.update(ahead.read.texts)
                at.oids.update(ahead.read.oids)
                known_texts |= ahead.texts
                known_ids |= ahead.ids
            staged = _Staged(self._branch.read, at, texts=known_texts, oids=known_ids)
            result = change(staged)
            if staged.changes or staged.deletions:
                self._commit(staged)
            return result

        try:
            return retry_conflicts(
                attempt,
                tries=self._attempts,
                sleep=self._clock.sleep,
                rng=self._rng,
                wait_initial=0.05,
                wait_max=2,
                gave_up=lambda _last: TransientError(
                    f"branch {self._branch.branch!r} kept moving; {self._attempts} tries"
                ),
            )
        except AuthFailed as refused:
            raise PermanentError(
                f"GitHub refused the token for {self._branch.branch!r}: {refused.message} "
                "(check GITHUB_TOKEN and the workflow's `contents: write` permission)"
            ) from None
        except UNAVAILABLE as failure:
            if isinstance(failure, GitHubError) and failure.status == 403:
                raise PermanentError(
                    f"GitHub forbade writing {self._branch.branch!r}: {failure.message}"
                ) from None
            raise TransientError(f"the Pages branch could not be updated: {failure}") from None
        finally:
            self._branch.forget_ahead()

    def read_ahead(
        self,
        plan: Callable[[], tuple[Sequence[str], Sequence[str]]],
        change: Callable[[SiteWriter], object] | None = None,
    ) -> None:
        """Ask for the first read ahead; when something was read ahead already (with the
        state's load), rehearse `change` on it, writing nothing, to learn what the write reads
        next, and ask for that too: with the claim's commit, the write needs no read of its
        own (`_Rehearsal`: it goes on past the files the write announces, as if absent, and
        stops at a read it did not announce)."""
        if not self._branch.reads_ahead:
            return
        texts, oids = plan()
        ahead = self._branch.peek()
        if ahead is not None and change is not None:
            rehearsal = _Rehearsal(ahead)
            try:
                change(rehearsal)
            except _Unannounced as read:
                rehearsal.note(read.texts, read.oids)
            except Exception:  # noqa: S110 (a saving lost: the write reads what it needs itself)
                pass
            texts, oids = [*texts, *rehearsal.texts], [*oids, *rehearsal.oids]
            texts = [path for path in dict.fromkeys(texts) if path not in ahead.texts]
            oids = [path for path in dict.fromkeys(oids) if path not in ahead.ids]
        self._branch.ask_ahead(texts, oids)

    def _commit(self, staged: _Staged) -> None:
        message = f"steadypress: update the site\n\ntransaction: {uuid.uuid4().hex}\n"
        head = staged.at.head
        changes = staged.changes
        if head is None:
            # Made whole, images and all. When the images followed the text in a commit of
            # their own and that commit failed, the index on the branch already named them, and
            # publishing again found nothing to do.
            self._branch.create(changes, message=message)
            return
        self._branch.commit(changes, expected=head, message=message, deletions=staged.deletions)


class _Unannounced(Exception):
    def __init__(self, texts: Sequence[str], oids: Sequence[str]) -> None:
        super().__init__("a read not announced")
        self.texts, self.oids = texts, oids


class _Staged:
    """The branch's files as read at one head, with the change's writes held back; `fetch`
    reads more files of the branch."""

    def __init__(
        self,
        fetch: Callable[..., BranchRead],
        at: BranchRead,
        *,
        texts: set[str],
        oids: set[str],
    ) -> None:
        self._fetch_files = fetch
        self.at = at
        self._texts_known = texts  # paths whose text was read (absent paths included)
        self._ids_known = texts | oids  # paths whose blob id was read
        # Wanted, not read yet: read with the next read the change needs (`want`).
        self._wanted_texts: dict[str, None] = {}
        self._wanted_ids: dict[str, None] = {}
        self.changes: dict[str, bytes] = {}
        self.deletions: set[str] = set()

    def read(self, path: str) -> bytes | None:
        if path in self.changes:
            return self.changes[path]
        if path in self.deletions:
            return None
        if path not in self._texts_known:
            self._fetch_unannounced([path])
        return self.at.texts.get(path)

    def at_hand(self, path: str) -> bool:
        return path in self._texts_known or path in self.changes or path in self.deletions

    def exists(self, path: str) -> bool:
        if path in self.changes:
            return True
        if path in self.deletions:
            return False
        return self._oid_at_head(path) is not None

    def put(self, path: str, data: bytes, *, unread: bool = False) -> None:
        self.deletions.discard(path)
        if unread and path not in self._ids_known:
            self.changes[path] = data
            return
        if self._oid_at_head(path) == blob_oid(data):
            self.changes.pop(path, None)
        else:
            self.changes[path] = data

    def remove(self, path: str) -> None:
        self.changes.pop(path, None)
        if self._oid_at_head(path) is not None:
            self.deletions.add(path)

    def differs(self, path: str, data: bytes) -> bool:
        if path in self.changes:
            return self.changes[path] != data
        return path in self.deletions or self._oid_at_head(path) != blob_oid(data)

    def _oid_at_head(self, path: str) -> str | None:
        """`path`'s blob id at the head read (None: absent), asked for when not known yet."""
        if path not in self._ids_known:
            self._fetch_unannounced((), [path])
        return self.at.oids.get(path)

    @property
    def may_change(self) -> bool:
        return bool(self.changes or self.deletions)

    def want(self, *, texts: Iterable[str] = (), oids: Iterable[str] = ()) -> None:
        """Files the change will read: read together with the next file it needs that is not
        known yet, so that what a write announces at different moments (a listing's sitemaps,
        then the page of an article beside a change) costs one request, and what it then
        finds it does not need, none."""
        texts = [path for path in texts if path not in self._texts_known]
        oids = [path for path in oids if path not in self._ids_known and path not in texts]
        if texts or oids:
            self._wanted(texts, oids)

    def _wanted(self, texts: Sequence[str], oids: Sequence[str]) -> None:
        self._wanted_texts.update(dict.fromkeys(texts))
        self._wanted_ids.update(dict.fromkeys(oids))

    def _fetch_unannounced(self, texts: Sequence[str], oids: Sequence[str] = ()) -> None:
        """Files the change needs now that were not read yet, with every file it wanted."""
        self._fetch([*self._wanted_texts, *texts], [*self._wanted_ids, *oids])

    def _fetch(self, texts: Sequence[str], oids: Sequence[str] = ()) -> None:
        """Files the caller did not ask for first: one more read, which must see the same head."""
        self._wanted_texts, self._wanted_ids = {}, {}
        extra = self._fetch_files(texts=texts, oids=oids)
        if extra.head != self.at.head:
            raise Conflict(self.at.head, extra.head)
        self._texts_known.update(texts)
        self._ids_known.update((*texts, *oids))
        self.at.texts.update(extra.texts)
        self.at.oids.update(extra.oids)


class _Rehearsal(_Staged):
    """A change run on what was read ahead, writing nothing and reading nothing: what it
    announces it will read (`want`) is noted and taken as absent, so that it goes on to what
    it reads next (a crowded month's parts, then a neighbour's page, asked at once); a read it
    did not announce ends it (what it reads there may follow from a file it lacks: a part
    taken as empty would have it walk every other part)."""

    def __init__(self, ahead: Ahead) -> None:
        super().__init__(self.note, ahead.read, texts={*ahead.texts}, oids={*ahead.ids})
        self.texts: list[str] = []
        self.oids: list[str] = []

    def note(self, texts: Sequence[str] = (), oids: Sequence[str] = ()) -> BranchRead:
        self.texts += texts
        self.oids += oids
        return BranchRead(head=self.at.head)

    def _wanted(self, texts: Sequence[str], oids: Sequence[str]) -> None:
        self._fetch(texts, oids)  # noted at once, as absent: the change goes on past it

    def _fetch_unannounced(self, texts: Sequence[str], oids: Sequence[str] = ()) -> None:
        raise _Unannounced(texts, oids)


def pages_url(repository: str) -> str:
    """Where GitHub Pages serves a repository's site: a project site under the owner's domain,
    or the domain itself for the repository named after it (docs.github.com/pages, "Types of
    GitHub Pages sites")."""
    owner, name = repository.split("/", 1)
    domain = f"{owner.lower()}.github.io"
    return f"https://{domain}/" if name.lower() == domain else f"https://{domain}/{name}/"
