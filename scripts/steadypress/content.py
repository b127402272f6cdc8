"""The articles of the content branch read: their text parsed from git, their dates from its
history (what each commit holds, and what a push changed, is `contenttree.py`).

What is published is what is committed. Articles are read from a commit, never from a working
tree, and each version is known by its git blob id, so an unchanged article is recognised
without reading it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import PurePosixPath

from cachetools import LRUCache

from steadypress import pageplaces
from steadypress.articles import (
    ARTICLE_SUFFIXES,
    Article,
    at_its_path_url,
    parse_article,
    slug_source,
)
from steadypress.contentdates import WrittenDates
from steadypress.contenttree import Changes, ContentTree
from steadypress.errors import ArticleError, GitFailed, NotInContent, PermanentError
from steadypress.gitio import OBJECT_ID, SYMLINK_MODE, Git

__all__ = ["Changes", "ContentSource", "ImportOrder"]

# Articles read ahead that are listed by name, not by listing the content folder (`prefetch`).
_LISTED_BY_NAME = 25
# Article versions kept as read, and as parsed: four of the largest claims (`MAX_CLAIM`), so
# that a first build's window, read to plan it, rendered ahead and published, is read once.
_KEPT = 2000


@dataclass(frozen=True)
class ImportOrder:
    """Articles in the order an import takes them, with each one's place in it."""

    paths: tuple[str, ...]
    places: Mapping[str, int]

    def after(self, path: str) -> Sequence[str]:
        """The articles after `path`; all of them when `path` is not one."""
        place = self.places.get(path)
        return self.paths if place is None else self.paths[place + 1 :]


class ContentSource(ContentTree):
    """The articles of the content branch, read from commits of a git repository."""

    def __init__(
        self, git: Git, content_dir: str, *, revision: str = "HEAD", pages: Collection[str] = ()
    ) -> None:
        super().__init__(git, content_dir, revision=revision)
        # The files and folders of pages beside the articles (`Config.pages`).
        self.pages = tuple(pages)
        self._pages = tuple(f"{self._content_dir}/{page}" for page in pages)  # from the root
        # What was read at a commit, and parsed, the most recent kept: a commit never changes,
        # and a run reads an article twice (to plan, to publish; a write's rehearsal and the
        # write), a window of a first build apart at most. Kept for the whole run, a first
        # build of 100,000 articles as people write them held some 800 MB of their text.
        self._files: LRUCache[tuple[str, str], tuple[str, str, bytes] | None] = LRUCache(_KEPT)
        # By (path, blob), with the slugs of the posts its `post_url`s named, as they were.
        self._parsed: LRUCache[tuple[str, str], tuple[Article, dict[str, str | None]]] = LRUCache(
            _KEPT
        )
        self._dates = WrittenDates(git, self._history)
        self._import_order: tuple[tuple[str, str | None], ImportOrder] | None = None

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
        article = self._parse(path, blob, data, commit)
        updated = self._history.last_commit_time(commit, path) or self.commit_time(commit)
        date = (
            article.date
            or self._history.last_commit_time(commit, path, "--diff-filter=A")
            or updated
        )
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
        undated = [path for path, oid, data in entries if not self._dates.written(path, oid, data)]
        self._history.walk(commit, [path for path, _oid, _data in entries], undated)

    def parse_at(self, commit: str, paths: Collection[str]) -> dict[str, Article | ArticleError]:
        """Each of these articles that is a regular file at `commit`, parsed from two git
        processes and read there (`Article.commit`), with no history: no `updated`, and a `date`
        only where the version writes one. What a page shows of an article's text, not of its
        dates."""
        self._read_files(commit, paths)
        parsed: dict[str, Article | ArticleError] = {}
        for path in paths:
            file = self._read_file(commit, path)  # read alone only where it was not kept
            if file is None or file[0] == SYMLINK_MODE:
                continue
            try:
                parsed[path] = replace(self._parse(path, file[1], file[2], commit), commit=commit)
            except ArticleError as error:
                parsed[path] = error
        return parsed

    def _parse(self, path: str, blob: str, data: bytes, commit: str) -> Article:
        """A version parsed once: a write's rehearsal and the write itself, or a run's
        batches, ask for the same articles again. A Jekyll post's `post_url` leads to the
        other post's `slug` as it is at `commit`: a version parsed before is parsed again where
        one of those slugs differs at `commit`."""
        kept = self._parsed.get((path, blob))
        if kept is not None and all(
            self._post_slug(commit, path, name) == slug for name, slug in kept[1].items()
        ):
            return kept[0]
        named: dict[str, str | None] = {}

        def slug_of_post(name: str) -> str | None:
            named[name] = self._post_slug(commit, path, name)
            return named[name]

        article = self._marked(parse_article(path, blob, data, slug_of_post=slug_of_post))
        self._parsed[path, blob] = (article, named)
        return article

    def _post_slug(self, commit: str, post: str, name: str) -> str | None:
        """The `slug` the Jekyll post `name` sets at `commit` (as `post_url` in `post` names
        it: from the `_posts/` folder `post` is in, no suffix), None where it sets none or is
        not there."""
        posts = _posts_folder(post)
        if ".." in name.split("/") or posts is None:
            return None
        for suffix in ARTICLE_SUFFIXES:
            found = self._read_file(commit, f"{posts}/{name}{suffix}")
            if found is not None and found[0] != SYMLINK_MODE:
                return slug_source(f"{posts}/{name}{suffix}", found[2])
        return None

    def slugs_set(self, path: str, blobs: Collection[str]) -> dict[str, str | None]:
        """The `slug` (or `permalink`) each of these versions of the article at `path` sets in
        its front matter, by blob, read in one git process; None where one sets none, or is
        not in the repository."""
        wanted = sorted(blob for blob in blobs if OBJECT_ID.match(blob))
        found = dict(zip(wanted, self._git.read_objects(wanted), strict=True))
        return {blob: None if (entry := found.get(blob)) is None else slug_source(path, entry[1])
                for blob in blobs}  # fmt: skip

    def posts_linking(self, commit: str, post: str) -> list[str]:
        """The other Jekyll posts at `commit` that may link the post at `post` by a `post_url`
        or `link` tag: those whose text names it as those tags do (its path from its `_posts`
        folder, without the suffix), found by one `git grep`. A post that names it otherwise
        (in its words) is found too: publishing it again changes nothing."""
        posts = _posts_folder(post)
        if posts is None or not OBJECT_ID.match(commit):
            return []
        name = PurePosixPath(post[len(posts) + 1 :]).with_suffix("").as_posix()
        try:
            found = self._git.run("grep", "-l", "-F", "-e", name, commit, "--", f"{posts}/")
        except GitFailed as failure:
            if failure.returncode == 1:  # git grep found nothing
                return []
            raise
        paths = [line.split(":", 1)[1] for line in found.decode("utf-8", "replace").splitlines()]
        return sorted(path for path in paths if path != post and self.is_article(path))

    def placed_as_page(self, path: str) -> bool:
        """Whether the file's place makes it a page (`Config.pages`), whatever it says."""
        return pageplaces.placed_as_page(path, self._pages)

    def _marked(self, article: Article) -> Article:
        """The article as a page where its place says it is one, whatever its front matter
        says."""
        if article.page or not self.placed_as_page(article.path):
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
            if (data := self._dates.take_bytes(oid)) is not None:
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
        """These article versions (path -> blob, at `commit`) in import order
        (`WrittenDates.newest_first`)."""
        return self._dates.newest_first(commit, articles)

    def _read_file(self, commit: str, path: str) -> tuple[str, str, bytes] | None:
        if (commit, path) not in self._files:
            self._files[commit, path] = self._git.read_file(commit, path)
        return self._files[commit, path]

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


def _posts_folder(post: str) -> str | None:
    """The `_posts` folder the Jekyll post at `post` is in (the innermost), None for any other
    article."""
    parts = PurePosixPath(post).parts
    if "_posts" not in parts[:-1]:
        return None
    return "/".join(parts[: len(parts) - 1 - parts[-2::-1].index("_posts")])
