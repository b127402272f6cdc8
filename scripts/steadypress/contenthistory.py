"""When the articles of the content branch changed and were added, from its git history: a
walk of the content folder's log, newest first, that stops once it has what it looks for, and
the times and ancestry of commits."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from datetime import UTC, datetime

from steadypress.errors import GitFailed
from steadypress.gitio import Git

__all__ = ["ContentHistory"]

# Additions a walk that found every last change leaves to be asked about alone (`git log
# --diff-filter=A` an article): the edit of an old article with no date of its own. At 50,000
# commits one such log for an article of the first commit takes 0.27 s, the walk to it 3.2 s.
_ADDITIONS_ASKED_ALONE = 8
# A record of the history walk (one commit's changed files) read before its end while it is
# this short: a push's commit. A first commit of 100,000 files is read whole, once.
_PARTIAL_RECORD = 64 * 1024


@dataclass
class _History:
    """What a walk of a commit's history, newest first, found (`ContentHistory.walk`): when
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
            if not raw_path:  # a record noted before its end (`walk`): a status, no path yet
                continue
            path = raw_path.decode("utf-8", errors="surrogateescape")
            self.changed.setdefault(path, moment)
            changes.discard(path)
            if status == b"A":
                self.added.setdefault(path, moment)
                additions.discard(path)


class ContentHistory:
    """The history of the content folder `content_dir` of `git`'s repository, as far as it was
    walked: what each commit's walk found is kept for the run (a commit never changes)."""

    def __init__(self, git: Git, content_dir: str, resolve: Callable[[str], str | None]) -> None:
        """`resolve` names the commit a revision is, or None where the repository has none."""
        self._git = git
        self._content_dir = content_dir
        self._resolve = resolve
        self._commit_times: dict[str, datetime] = {}
        # Per commit, from one walk of its history: when each article last changed, was added.
        self._history: dict[str, _History] = {}

    def commit_and_parents(self, commit: str) -> tuple[str, list[str]]:
        """A commit's id and its parents' (its time kept for `commit_time`). (`git log`, not
        `git show`, which took 30 ms in a folder of 100,000 files where this takes 2.)"""
        line = self._git.text("log", "-1", "--format=%H %ct %P", "--end-of-options", commit)
        oid, stamp, *parents = line.split()
        self._commit_times[oid] = datetime.fromtimestamp(int(stamp), UTC)
        return oid, parents

    def dated_by(self, commit: str, changed: Collection[str], *, added: set[str]) -> None:
        """The articles one commit changed (`changed`, from its diff from its only parent) last
        changed then, those of `added` added then: what a walk of its history would find
        first, known without one (a walk waits on git diffing the commit again, 60 ms in a
        folder of 100,000 files). An article asked about beyond these still walks."""
        history = self._history.setdefault(commit, _History(walked=False))
        moment = self.commit_time(commit)
        for path in changed:
            history.changed.setdefault(path, moment)
            if path in added:
                history.added.setdefault(path, moment)

    def walk(
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

    def last_commit_time(self, commit: str, path: str, *options: str) -> datetime | None:
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
        if self._resolve(commit) is not None:
            if self.descends(commit, than):
                return True
            if self.descends(than, commit):
                return False
        return time > self.commit_time(than)

    def descends(self, commit: str, ancestor: str) -> bool:
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
