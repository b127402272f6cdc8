"""The articles of the content branch: found in a commit, read from git, dated by its history.

What is published is what is committed. Articles are read from a commit, never from a working
tree, and each version is known by its git blob id, so an unchanged article is recognised
without reading it.
"""

from __future__ import annotations

import contextlib
import os
import tarfile
import tempfile
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from types import MappingProxyType

from steadypress.articles import ARTICLE_SUFFIXES, Article, at_its_path_url, parse_article
from steadypress.errors import ArticleError, GitFailed, NotInContent, PermanentError
from steadypress.gitio import OBJECT_ID, SYMLINK_MODE, ZERO_OID, Git
from steadypress.importorder import filename_date, front_matter_date, newest_first

__all__ = ["Changes", "ContentSource", "ImportOrder"]

# A file whose name starts so is a generator's page of a section, not an article: Hugo's
# `_index.md` (a list page's text), and Jekyll's and Hugo's other underscored names.
_NOT_AN_ARTICLE = "_"
# Article versions read at once to learn their dates: a blog of 100,000 is never in memory whole.
_DATE_READS = 1000
# Articles read ahead that are listed by name, not by listing the content folder (`prefetch`).
_LISTED_BY_NAME = 25
# Additions a walk that found every last change leaves to be asked about alone (`git log
# --diff-filter=A` an article): the edit of an old article with no date of its own. At 50,000
# commits one such log for an article of the first commit takes 0.27 s, the walk to it 3.2 s.
_ADDITIONS_ASKED_ALONE = 8
# A record of the history walk (one commit's changed files) read before its end while it is
# this short: a push's commit. A first commit of 100,000 files is read whole, once.
_PARTIAL_RECORD = 64 * 1024
# Bytes of versions read for their dates kept for the read that publishes them (a first build of
# a thousand articles read each twice); beyond this, they are read again when published.
_KEEP_READ = 16 * 1024 * 1024


@dataclass
class Changes:
    """What a push did to the articles: new versions by path, and paths that are gone."""

    changed: dict[str, str] = field(default_factory=dict)
    removed: set[str] = field(default_factory=set)


def _copied(changes: Changes) -> Changes:
    """A copy for a caller to keep or change, where `changes` is kept too."""
    return Changes(dict(changes.changed), set(changes.removed))


@dataclass
class _History:
    """What a walk of a commit's history, newest first, found (`ContentSource._walk`): when
    each article it met last changed and was added. `complete`: it walked to the beginning;
    else it stopped once it had what it looked for, and what it did not find is asked about
    alone."""

    changed: dict[str, datetime] = field(default_factory=dict)
    added: dict[str, datetime] = field(default_factory=dict)
    complete: bool = False
    walked: bool = True  # False: known from one commit's diff (`changed_articles`), no walk

    def knows(self, path: str, *, added: bool = False) -> bool:
        """Whether it knows when `path` last changed (`added`: when it was added)."""
        return self.complete or path in (self.added if added else self.changed)

    def note(self, record: bytes, changes: set[str], additions: set[str]) -> None:
        """One commit of `git log -z --format=%x01%ct --name-status` (after its \\x01): the
        articles it changed taken out of `changes`, those it added out of `additions`."""
        stamp, _, files = record.partition(b"\0")
        if not stamp:
            return
        moment = datetime.fromtimestamp(int(stamp), UTC)
        fields = files.lstrip(b"\n").split(b"\0")
        for status, raw_path in zip(fields[0::2], fields[1::2], strict=False):
            if not raw_path:  # a record noted before its end (`_walk`): a status, no path yet
                continue
            path = raw_path.decode("utf-8", errors="surrogateescape")
            self.changed.setdefault(path, moment)
            changes.discard(path)
            if status == b"A":
                self.added.setdefault(path, moment)
                additions.discard(path)


@dataclass(frozen=True)
class ImportOrder:
    """Articles in the order an import takes them, with each one's place in it."""

    paths: tuple[str, ...]
    places: Mapping[str, int]

    def after(self, path: str) -> Sequence[str]:
        """The articles after `path`; all of them when `path` is not one."""
        place = self.places.get(path)
        return self.paths if place is None else self.paths[place + 1 :]


class ContentSource:
    """The articles of the content branch, read from commits of a git repository."""

    def __init__(
        self, git: Git, content_dir: str, *, revision: str = "HEAD", pages: Collection[str] = ()
    ) -> None:
        self._git = git
        self._content_dir = content_dir.strip("/")
        # The files and folders of pages beside the articles (`Config.pages`), from the root.
        self._pages = tuple(f"{self._content_dir}/{page}" for page in pages)
        self._revision = revision  # the content branch's ref, resolved afresh each time
        self._commit_times: dict[str, datetime] = {}
        # What was read at a commit, kept for the run: a commit never changes, and a run reads
        # an article twice (to plan, to publish).
        self._files: dict[tuple[str, str], tuple[str, str, bytes] | None] = {}
        self._parsed: dict[tuple[str, str], Article] = {}  # (path, blob) -> as parsed
        # Per commit, from one walk of its history: when each article last changed, was added.
        self._history: dict[str, _History] = {}
        self._dates: dict[str, str | None] = {}  # blob -> the date its front matter writes
        self._read_for_dates: dict[str, bytes] = {}  # blob -> its bytes, up to _KEEP_READ
        self._kept = 0  # bytes ever kept there: what is taken out does not make room again
        # Per commit id, the files of its content folder (path -> mode, blob), and the commits
        # found to exist: a run lists the same commit several times (to plan, to admit the next
        # window, to read ahead; an import's every window reads 500 of its articles).
        self._listings: dict[str, dict[str, tuple[str, str]]] = {}
        self._articles: dict[str, dict[str, str]] = {}  # of `_listings`, the articles
        # The last import order made, by what it was made of (100,000 to sort at 10^5): a
        # reconcile's first window and the backlog after it (`import_order`) ask for one order.
        self._last_order: tuple[tuple[str, frozenset[tuple[str, str]]], list[str]] | None = None
        self._import_order: tuple[tuple[str, str | None], ImportOrder] | None = None
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
        head, parents = self._commit_and_parents(after)
        if parents != [base] and not self._descends(after, base):
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
            self._dated_by(head, changes, added=added)
        return changes

    def _commit_and_parents(self, commit: str) -> tuple[str, list[str]]:
        """A commit's id and its parents' (its time kept for `commit_time`). (`git log`, not
        `git show`, which took 30 ms in a folder of 100,000 files where this takes 2.)"""
        line = self._git.text("log", "-1", "--format=%H %ct %P", "--end-of-options", commit)
        oid, stamp, *parents = line.split()
        self._commit_times[oid] = datetime.fromtimestamp(int(stamp), UTC)
        return oid, parents

    def _dated_by(self, commit: str, changes: Changes, *, added: set[str]) -> None:
        """The articles one commit changed (`changes`, its diff from its only parent) last
        changed then, those of `added` added then: what a walk of its history would find
        first, known without one (a walk waits on git diffing the commit again, 60 ms in a
        folder of 100,000 files). An article asked about beyond these still walks."""
        history = self._history.setdefault(commit, _History(walked=False))
        moment = self.commit_time(commit)
        for path in changes.changed:
            history.changed.setdefault(path, moment)
            if path in added:
                history.added.setdefault(path, moment)

    def read(self, path: str, blob: str, *, commit: str, newest: str | None = None) -> Article:
        """Parse one article version as of `commit`, or as of `newest` when the article still
        is that version there: what it depends on (images, via `Article.commit`) is then read
        where a fix committed since the version was seen is found. Its history gives what the
        front matter may leave out: `updated` is when the file last changed, and an article
        with no `date` (nor one in its file name, `parse_article`) is dated by the commit
        that added it."""
        if not self.is_article(path) or ".." in PurePosixPath(path).parts:
            # Only a tampered ledger names such a path; the item is dead-lettered, not run.
            raise ArticleError(path, f"not an article path under {self._content_dir}/")
        for name, oid in (("blob", blob), ("commit", commit)):
            if not OBJECT_ID.match(oid):  # git would read "--output=..." as an option
                raise ArticleError(path, f"the ledger's {name} {oid!r} is not a git object id")
        at_head = at_commit = self._read_file(newest, path) if newest else None
        if at_commit is not None and at_commit[1] == blob:
            commit = newest or commit  # the same version, read where everything is newest
        else:
            # A commit the repository lacks (a foreign ledger's) holds no file: it is not git's
            # failure, which would stop the run at every item that names it.
            at_commit = self._read_file(commit, path) if self._holds(commit) else None
            if at_commit is None and at_head is None:
                raise NotInContent(path, "the ledger names it, but the content holds no such file")
        if at_commit is not None and at_commit[1] == blob:
            if at_commit[0] == SYMLINK_MODE:
                raise ArticleError(
                    path, "is a symlink; steadypress reads no article through one (commit the file)"
                )
            data = at_commit[2]
        else:  # a version the ledger holds from another commit: its blob names it all the same
            found = self._git.read_objects([blob])[0]
            if found is None:
                raise ArticleError(path, f"blob {blob} is not in the repository")
            data = found[1]
        article = self._parse(path, blob, data)
        updated = self._last_commit_time(commit, path) or self.commit_time(commit)
        date = article.date or self._last_commit_time(commit, path, "--diff-filter=A") or updated
        return replace(article, date=date, updated=updated, commit=commit)

    def prefetch(self, commit: str, paths: Collection[str]) -> None:
        """Make reading these articles at `commit` cheap: their bytes in one git process, and
        their dates from one walk of the content folder's history, instead of three processes
        an article (a first build of 10,000 articles spawned 30,000)."""
        entries = self._read_files(commit, paths)
        if entries is None:
            return
        # An article's addition is looked for only where it dates the article: an edit of an
        # old article with a date of its own is found at the top of the history.
        undated = [path for path, oid, data in entries if not self._written_date(path, oid, data)]
        self._walk(commit, [path for path, _oid, _data in entries], undated)

    def parse_at(self, commit: str, paths: Collection[str]) -> dict[str, Article | ArticleError]:
        """Each of these articles that is a regular file at `commit`, parsed from two git
        processes and read there (`Article.commit`), with no history: no `updated`, and a `date`
        only where the version writes one. What a page shows of an article's text, not of its
        dates."""
        self._read_files(commit, paths)
        parsed: dict[str, Article | ArticleError] = {}
        for path in paths:
            file = self._files.get((commit, path))
            if file is None or file[0] == SYMLINK_MODE:
                continue
            try:
                parsed[path] = replace(self._parse(path, file[1], file[2]), commit=commit)
            except ArticleError as error:
                parsed[path] = error
        return parsed

    def _parse(self, path: str, blob: str, data: bytes) -> Article:
        """A version parsed once: a write's rehearsal and the write itself, or a run's
        batches, ask for the same articles again."""
        article = self._parsed.get((path, blob))
        if article is None:
            article = self._parsed[path, blob] = self._marked(parse_article(path, blob, data))
        return article

    def _marked(self, article: Article) -> Article:
        """The article as a page where its place says it is one (`Config.pages`), whatever
        its front matter says."""
        path = article.path
        if article.page or not any(path == p or path.startswith(p + "/") for p in self._pages):
            return article
        return replace(article, page=True)

    def _read_files(
        self, commit: str, paths: Collection[str]
    ) -> list[tuple[str, str, bytes | None]] | None:
        """Read those of these files at `commit` not read before into `_files`, in one git
        process; returns (path, blob, bytes) of each found there, None when there was nothing
        to read (or `commit` is not an object id)."""
        wanted = {path for path in paths if (commit, path) not in self._files}
        if not wanted or not OBJECT_ID.match(commit):
            return None
        # A push's few articles are listed by name: the whole folder's listing is as long as
        # the blog (10,000 articles: 720 KB to parse), and git matches many names slowly. More
        # are found in the folder's listing, made once a commit.
        listed = (
            self._listed(commit, [f":(literal){path}" for path in sorted(wanted)])
            if len(wanted) <= _LISTED_BY_NAME
            else self._files_at(commit)
        )
        entries = [(path, *listed[path]) for path in sorted(wanted) if path in listed]
        read: dict[str, bytes | None] = {}
        for _path, _mode, oid in entries:
            if (data := self._read_for_dates.pop(oid, None)) is not None:
                read[oid] = data
        unread = [oid for _path, _mode, oid in entries if oid not in read]
        for oid, found in zip(unread, self._git.read_objects(unread), strict=True):
            read[oid] = None if found is None else found[1]
        for path, mode, oid in entries:
            data = read[oid]
            self._files[commit, path] = None if data is None else (mode, oid, data)
        for path in wanted - {path for path, _mode, _oid in entries}:
            self._files[commit, path] = None
        return [(path, oid, read[oid]) for path, _mode, oid in entries]

    def changed_since(self, since: str | None, commit: str) -> Mapping[str, str]:
        """The articles at `commit` (path -> blob) changed since the commit `since`; every
        article when there is no `since`, or no diff from it (a history rewritten since)."""
        changes = self.changed_articles(since, commit) if since is not None else None
        return self.list_articles(commit) if changes is None else changes.changed

    def import_order(self, commit: str, since: str | None) -> ImportOrder:
        """The articles at `commit` changed since `since` (`changed_since`) in import order
        (`newest_first`), made once a run: a drain importing a blog asks at each claim, and at
        10^5 articles making it again (the mapping compared, the order copied, the place of
        the last one imported searched) took 70 ms a claim."""
        key = (commit, since)
        if self._import_order is not None and self._import_order[0] == key:
            return self._import_order[1]
        paths = tuple(self.newest_first(commit, self.changed_since(since, commit)))
        made = ImportOrder(paths, {path: place for place, path in enumerate(paths)})
        if OBJECT_ID.match(commit) and (since is None or OBJECT_ID.match(since)):
            self._import_order = (key, made)  # a name may move: ids name one order for good
        return made

    def newest_first(self, commit: str, articles: Mapping[str, str]) -> list[str]:
        """These article versions (path -> blob, at `commit`) in the order a large import
        takes them (`importorder`): by the date their front matter writes, or their file
        name's (Jekyll's way), else the one `commit`'s history added them on, newest first.
        Each version is read once a run."""
        made_of = (commit, frozenset(articles.items()))
        if self._last_order is not None and self._last_order[0] == made_of:
            return list(self._last_order[1])
        order = self._newest_first(commit, articles)
        self._last_order = (made_of, order)
        return list(order)

    def _newest_first(self, commit: str, articles: Mapping[str, str]) -> list[str]:
        unread = sorted(set(articles.values()) - self._dates.keys())
        for start in range(0, len(unread), _DATE_READS):
            part = unread[start : start + _DATE_READS]
            for blob, found in zip(part, self._git.read_objects(part), strict=True):
                self._dates[blob] = front_matter_date(found[1]) if found is not None else None
                if found is not None and self._kept + len(found[1]) <= _KEEP_READ:
                    self._read_for_dates[blob] = found[1]
                    self._kept += len(found[1])
        dates = {path: self._written_date(path, blob) for path, blob in articles.items()}
        undated = [path for path, written in dates.items() if written is None]
        added: Mapping[str, datetime] = {}
        if undated and OBJECT_ID.match(commit):
            added = self._walk(commit, (), undated).added
        return newest_first({
            path: written or (
                added[path].strftime("%Y-%m-%dT%H:%M:%S") if path in added else ""
            )
            for path, written in dates.items()
        })  # fmt: skip

    def _written_date(self, path: str, blob: str, data: bytes | None = None) -> str | None:
        """The date a version writes for itself (`importorder`): its front matter's, looked
        at once a version (`data`, its bytes, where it was not looked at yet), else its file
        name's, Jekyll's way; None where it writes none."""
        if blob not in self._dates:
            self._dates[blob] = front_matter_date(data) if data is not None else None
        return self._dates[blob] or filename_date(path)

    def _read_file(self, commit: str, path: str) -> tuple[str, str, bytes] | None:
        if (commit, path) not in self._files:
            self._files[commit, path] = self._git.read_file(commit, path)
        return self._files[commit, path]

    def _walk(
        self, commit: str, changes: Collection[str], additions: Collection[str] = ()
    ) -> _History:
        """When articles last changed and were added up to `commit`, from one `git log` of the
        content folder, newest first, that stops once it has found the last change of each of
        `changes` and the addition of each of `additions`, the first time, or of all but a few
        (`_ADDITIONS_ASKED_ALONE`, each then found by a `git log` of its own) (renames are not
        followed: an article moved is a new one, as `read` sees it). A push's articles are
        found in its own commits, and an edited one's last change at its top: walked to its
        beginning, the history of a blog of 5,000 commits took 3.2 s, on every push."""
        history = self._history.get(commit)
        if (
            history is not None
            and all(history.knows(path) for path in changes)
            and all(history.knows(path, added=True) for path in additions)
        ):
            return history
        # A commit's second walk goes to the beginning: each window of a large import would
        # otherwise walk again, deeper than the one before.
        stops = history is None or not history.walked
        history = self._history[commit] = _History()
        # Only a walk for last changes (a push's) leaves a few additions to be asked alone: an
        # import order takes the additions it finds, and asks for none.
        alone = _ADDITIONS_ASKED_ALONE if changes else 0
        changes, additions = set(changes), set(additions)
        log = self._git.stream(
            "log", "-z", "--format=%x01%ct", "--name-status", "--no-renames",
            "--end-of-options", commit, "--", self._content_dir,
        )  # fmt: skip
        with contextlib.closing(log):
            last = b""  # the newest commit's record, whole only once the next one begins
            for chunk in log:
                *whole, last = (last + chunk).split(b"\x01")
                for record in whole:
                    history.note(record, changes, additions)
                if stops and len(last) <= _PARTIAL_RECORD:
                    # Git ends a commit's record only once it has diffed the next commit (40
                    # ms a commit in a folder of 100,000 files): what is looked for may be in
                    # what has come of it, each file's line final once it ends.
                    history.note(last[: last.rfind(b"\0") + 1], changes, additions)
                if stops and not changes and len(additions) <= alone:
                    return history
            history.note(last, changes, additions)
        history.complete = True
        return history

    def uncommitted(self, *also: str) -> list[str]:
        """Files under the content folder (and the paths `also` names) whose changes are not
        committed, new files included: a fix there is not what a run publishes."""
        listing = self._git.run(
            "status", "--porcelain", "-z", "--untracked-files=all", "--",
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

    def text_at(self, commit: str, path: str) -> str | None:
        """An article's text at `commit` as it is stored (for showing where a problem is)."""
        found = self._read_file(commit, path)
        return None if found is None else found[2].decode("utf-8", errors="replace")

    def parse_many(
        self, articles: Mapping[str, str], *, unless_at_path_url: bool = False
    ) -> dict[str, Article | ArticleError | None]:
        """Many versions parsed from one read of git (no history looked up): what a check
        needs to know of every other article, such as its URL. With `unless_at_path_url`, a
        version surely at its path's URL if published (`at_its_path_url`) is not parsed: None."""
        paths = sorted(articles)
        found = self._git.read_objects([articles[path] for path in paths])
        parsed: dict[str, Article | ArticleError | None] = {}
        for path, entry in zip(paths, found, strict=True):
            try:
                if entry is None:
                    raise ArticleError(path, "not in the repository")
                if unless_at_path_url and at_its_path_url(entry[1]):
                    parsed[path] = None
                    continue
                parsed[path] = self._marked(parse_article(path, articles[path], entry[1]))
            except ArticleError as error:
                parsed[path] = error
        return parsed

    def asset(self, path: str, *, commit: str) -> tuple[str, bytes] | None:
        """A file of the repository at `commit` (an image an article shows, a theme file): its
        blob id and bytes, or None when there is no such file. A committed symlink is refused:
        it names a file outside what git holds (`/proc/self/environ`), never to be published."""
        found = self._git.read_file(commit, path)
        if found is None:
            return None
        mode, oid, data = found
        if mode == SYMLINK_MODE:
            raise PermanentError(f"{path} is a symlink; steadypress publishes nothing through one")
        return oid, data

    def _last_commit_time(self, commit: str, path: str, *options: str) -> datetime | None:
        """When the newest commit up to `commit` that changed `path` (and matches `options`)
        was made; git stops at the first one it finds."""
        history = self._history.get(commit)
        if (
            history is not None
            and options in ((), ("--diff-filter=A",))
            and history.knows(path, added=bool(options))
        ):
            return (history.added if options else history.changed).get(path)
        # A literal pathspec: a file name with `*` or `?` is a name, not a glob.
        stamp = self._git.text(
            "log", "-1", "--format=%ct", *options, "--end-of-options", commit, "--",
            f":(literal){path}",
        )  # fmt: skip
        return datetime.fromtimestamp(int(stamp), UTC) if stamp else None

    def later(self, commit: str, time: datetime, *, than: str) -> bool:
        """Whether `commit`, made at `time`, came after `than` (a commit here): it descends
        from it. One this repository lacks (pushed after this copy was fetched, or rewritten
        away) or on another line of history came after it when it was made later."""
        if commit == than:
            return False
        if self.resolve(commit) is not None:
            if self._descends(commit, than):
                return True
            if self._descends(than, commit):
                return False
        return time > self.commit_time(than)

    def _descends(self, commit: str, ancestor: str) -> bool:
        try:
            self._git.run("merge-base", "--is-ancestor", ancestor, commit)
        except GitFailed:
            return False
        return True

    def commit_time(self, commit: str) -> datetime:
        """When `commit` was made (its committer's time)."""
        if commit not in self._commit_times:
            stamp = self._git.text("log", "-1", "--format=%ct", "--end-of-options", commit)
            self._commit_times[commit] = datetime.fromtimestamp(int(stamp), UTC)
        return self._commit_times[commit]
