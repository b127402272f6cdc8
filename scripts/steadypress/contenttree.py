"""What the content branch holds at each commit: its articles and other files, listed from
git's trees, and what a push changed of them, diffed. Nothing here reads an article's text
(`content.py` does)."""

from __future__ import annotations

import os
import tarfile
import tempfile
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path, PurePosixPath
from types import MappingProxyType

from steadypress.articles import ARTICLE_SUFFIXES
from steadypress.contenthistory import ContentHistory
from steadypress.errors import ArticleError
from steadypress.gitio import OBJECT_ID, ZERO_OID, Git

__all__ = ["Changes", "ContentTree"]

# A file whose name starts so is a generator's page of a section, not an article: Hugo's
# `_index.md` (a list page's text), and Jekyll's and Hugo's other underscored names.
_NOT_AN_ARTICLE = "_"


@dataclass
class Changes:
    """What a push did to the articles: new versions by path, and paths that are gone."""

    changed: dict[str, str] = field(default_factory=dict)
    removed: set[str] = field(default_factory=set)


def _copied(changes: Changes) -> Changes:
    """A copy for a caller to keep or change, where `changes` is kept too."""
    return Changes(dict(changes.changed), set(changes.removed))


class ContentTree:
    """The content branch of a git repository, commit by commit: what is in it, what changed."""

    def __init__(self, git: Git, content_dir: str, *, revision: str = "HEAD") -> None:
        self._git = git
        self._content_dir = content_dir.strip("/")
        self._revision = revision  # the content branch's ref, resolved afresh each time
        self._history = ContentHistory(git, self._content_dir, self.resolve)
        # Per commit id, the files of its content folder (path -> mode, blob), and the commits
        # found to exist: a run lists the same commit several times (to plan, to admit the next
        # window, to read ahead; an import's every window reads 500 of its articles).
        self._listings: dict[str, dict[str, tuple[str, str]]] = {}
        self._articles: dict[str, dict[str, str]] = {}  # of `_listings`, the articles
        # The last diff found, by its two commit ids: a plan compares a diff's articles, then
        # asks whether it changed any (`planning._covers`), of the same two commits.
        self._last_diff: tuple[tuple[str, str], Changes] | None = None
        self._commits: set[str] = set()
        self._lacking: set[str] = set()  # commit ids asked after that the repository lacks

    @property
    def content_dir(self) -> str:
        return self._content_dir

    @property
    def repository(self) -> Path:
        """The repository's folder (its working tree, where a workflow checked it out)."""
        return self._git.repo

    def head(self) -> str:
        """The newest commit of the content branch: what a run publishes."""
        commit = self._git.resolve(f"{self._revision}^{{commit}}")
        if commit is None:
            raise ArticleError(
                self._revision,
                f"{self._git.repo} has no commit to read articles from: commit your articles first",
            )
        return commit

    def resolve(self, revision: str) -> str | None:
        if revision in self._commits:
            return revision
        commit = self._git.resolve(f"{revision}^{{commit}}")
        if commit is not None and commit == revision:  # an id, not a name that may move
            self._commits.add(commit)
        return commit

    def _holds(self, commit: str) -> bool:
        """Whether the repository holds the commit object `commit`; one it lacks is asked
        after once (a foreign ledger names the same missing commit on every item)."""
        if commit in self._lacking:
            return False
        if self.resolve(commit) is None:
            self._lacking.add(commit)
            return False
        return True

    def is_article(self, path: str) -> bool:
        return (
            path.startswith(f"{self._content_dir}/")
            and path.endswith(ARTICLE_SUFFIXES)
            and not PurePosixPath(path).name.startswith(_NOT_AN_ARTICLE)
        )

    def list_articles(self, commit: str) -> Mapping[str, str]:
        """Every article path at `commit` with its blob id (read-only: the run's own copy,
        which a drain asks for at every claim: 100,000 entries at 10^5)."""
        if not OBJECT_ID.match(commit):
            return self._articles_in(self._files_at(commit))
        if commit not in self._articles:
            self._articles[commit] = self._articles_in(self._files_at(commit))
        return MappingProxyType(self._articles[commit])

    def other_files(self, commit: str) -> Mapping[str, str]:
        """The files of the content folder at `commit` that are not articles (images, a
        generator's section pages), with their blob ids."""
        return {path: oid for path, (_mode, oid) in self._files_at(commit).items()
                if not self.is_article(path)}  # fmt: skip

    def _articles_in(self, files: Mapping[str, tuple[str, str]]) -> dict[str, str]:
        # A symlinked article is listed like any other, so that reading it dead-letters it
        # with the reason (it is never followed).
        return {path: oid for path, (_mode, oid) in files.items() if self.is_article(path)}

    def _files_at(self, commit: str) -> dict[str, tuple[str, str]]:
        """The files of the content folder at `commit`: path -> (mode, blob)."""
        if not OBJECT_ID.match(commit):
            return self._listed(commit, [self._content_dir])
        if commit not in self._listings:
            self._listings[commit] = self._listed(commit, [self._content_dir])
        return self._listings[commit]

    def _listed(self, commit: str, where: Sequence[str]) -> dict[str, tuple[str, str]]:
        """The files at `commit` that these pathspecs name: path -> (mode, blob)."""
        listed = self._git.list_tree(commit, recursive=True, paths=where)
        return {path: (mode, oid) for path, (mode, kind, oid) in listed.items() if kind == "blob"}

    def changed_articles(self, before: str | None, after: str) -> Changes | None:
        """Articles added, modified, renamed or removed between two commits.

        None when `before` gives no usable diff (a first push, a force push, an unknown commit):
        the caller then reconciles every article against what was published.
        """
        if not before or before == ZERO_OID or (base := self.resolve(before)) is None:
            return None
        if self._last_diff is not None and self._last_diff[0] == (base, after):
            return _copied(self._last_diff[1])
        changes = self._diff(base, after)
        if changes is not None and OBJECT_ID.match(after):
            self._last_diff = ((base, after), _copied(changes))
        return changes

    def _diff(self, base: str, after: str) -> Changes | None:
        """`changed_articles` from the commit `base`, asked of git."""
        head, parents = self._history.commit_and_parents(after)
        if parents != [base] and not self._history.descends(after, base):
            return None
        raw = self._git.run(
            "diff-tree", "-r", "-z", "--no-commit-id", "-M", "--diff-filter=AMRD",
            base, after, "--", self._content_dir,
        )  # fmt: skip
        fields = [part.decode("utf-8", errors="surrogateescape") for part in raw.split(b"\0")]
        changes = Changes()
        added = set()  # of the articles changed, those added (a rename adds its new path)
        index = 0
        while index < len(fields) and fields[index]:
            _old_mode, _new_mode, _old_oid, new_oid, status = fields[index].split()
            if status.startswith("R"):  # a rename names the old path, then the new one
                old, path = fields[index + 1], fields[index + 2]
                index += 3
                if self.is_article(old):
                    changes.removed.add(old)
            else:
                path = fields[index + 1]
                index += 2
            if not self.is_article(path):
                continue
            if status == "D":
                changes.removed.add(path)
            else:
                changes.changed[path] = new_oid
                if status != "M":
                    added.add(path)
        if parents == [base]:
            self._history.dated_by(head, changes.changed, added=added)
        return changes

    def changed_since(self, since: str | None, commit: str) -> Mapping[str, str]:
        """The articles at `commit` (path -> blob) changed since the commit `since`; every
        article when there is no `since`, or no diff from it (a history rewritten since)."""
        changes = self.changed_articles(since, commit) if since is not None else None
        return self.list_articles(commit) if changes is None else changes.changed

    def uncommitted(self, *also: str) -> list[str]:
        """Files under the content folder (and the paths `also` names) whose changes are not
        committed, new files included: a fix there is not what a run publishes."""
        # Without optional locks: `git status` otherwise writes the user's index back when it
        # finds a file's stat data changed (the whole index: 2.5 MB at 30,000 articles).
        listing = self._git.run(
            "--no-optional-locks", "status", "--porcelain", "-z", "--untracked-files=all", "--",
            f"{self._content_dir}/", *also,
        )  # fmt: skip
        entries = [entry for entry in listing.decode("utf-8", "replace").split("\0") if entry]
        return [entry[3:] for entry in entries if len(entry) > 3 and entry[2] == " "]

    def versions(self, commit: str, paths: Collection[str]) -> dict[str, str]:
        """The git object id of each repository path at `commit` (a folder's is its tree id),
        git's null id where there is nothing: one `ls-tree`, however many paths."""
        wanted = sorted({path.strip("/") for path in paths} - {""})
        found = dict.fromkeys(wanted, ZERO_OID)
        # A path that leaves the repository (only a tampered ledger holds one) is nothing here.
        wanted = [path for path in wanted if ".." not in PurePosixPath(path).parts]
        if not wanted:
            return found
        listed = self._git.list_tree(commit, paths=wanted)
        found.update((path, oid) for path, (_mode, _kind, oid) in listed.items())
        return found

    def entries(self, commit: str, folder: str) -> dict[str, str]:
        """The git object id of each entry of a repository folder at `commit` (a subfolder's
        is its tree id), by its name; empty where there is no such folder. The root's, where
        `folder` is empty."""
        if ".." in PurePosixPath(folder).parts:
            return {}
        inside = folder.strip("/")
        listed = self._git.list_tree(commit, paths=[f"{inside}/"] if inside else [])
        return {PurePosixPath(path).name: oid for path, (_mode, _kind, oid) in listed.items()}

    def export(self, commit: str, folder: str, into: Path) -> None:
        """The files of `folder` (the repository's root where empty) at `commit`, written into
        the empty folder `into`, as a generator reads a checkout: nothing of the working tree,
        and no link that leads out of `into`."""
        tree = f"{commit}:{folder.strip('/')}" if folder.strip("/") else commit
        with tempfile.TemporaryDirectory() as folder_of_archive:
            archive = os.path.join(folder_of_archive, "tree.tar")
            self._git.run("archive", "--format=tar", "-o", archive, "--end-of-options", tree)
            with tarfile.open(archive) as files:
                files.extractall(into, filter="data")

    def commit_time(self, commit: str) -> datetime:
        """When `commit` was made (its committer's time)."""
        return self._history.commit_time(commit)

    def later(self, commit: str, time: datetime, *, than: str) -> bool:
        """Whether `commit`, made at `time`, came after `than` (`ContentHistory.later`)."""
        return self._history.later(commit, time, than=than)
