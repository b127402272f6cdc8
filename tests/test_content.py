"""Articles: front matter validated, versions read from commits, pushes diffed."""

import os
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from steadypress import content, contentdates, gitio
from steadypress.articles import Article, parse_article
from steadypress.content import ContentSource
from steadypress.contenttree import ContentTree
from steadypress.errors import ArticleError
from steadypress.gitio import ZERO_OID, Git
from tests.helpers import Repo, article, recorded_git


def test_front_matter_fields_are_read() -> None:
    """Title, description, tags, dates, draft and slug come from the front matter."""
    text = article(
        "Hello",
        description="'A greeting'",
        tags="[a, b, a]",
        date="2026-01-02",
        publish_at="'2030-01-01T10:00:00+02:00'",
        draft="false",
        slug="hi",
    )
    parsed = parse_article("content/hello.md", "blob", text.encode())
    assert (parsed.title, parsed.description, parsed.tags, parsed.slug) == (
        "Hello",
        "A greeting",
        ("a", "b"),
        "hi",
    )
    assert parsed.date == datetime(2026, 1, 2, tzinfo=UTC)
    assert parsed.not_before == datetime(2030, 1, 1, 8, tzinfo=UTC)
    assert not parsed.draft


def test_comma_separated_tags_are_accepted() -> None:
    """`tags: a, b` is a list too."""
    assert parse_article("p.md", "b", article("T", tags="'x, y'").encode()).tags == ("x", "y")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"no front matter at all", "no 'title'"),
        (article("").encode(), "no 'title'"),
        (b"---\ntitle: [unclosed\n---\nbody", "not valid YAML"),
        (b"---\n- a\n- list\n---\nbody", "mapping"),
        ("---\ntitle: ok\n---\ncaf\u00e9".encode("latin-1"), "not UTF-8"),
        (article("T", date="'someday'").encode(), "'date'"),
        (article("T", draft="'maybe'").encode(), "'draft'"),
        (article("T", tags="{a: 1}").encode(), "'tags'"),
    ],
)
def test_a_broken_article_is_an_error_naming_its_file(data: bytes, message: str) -> None:
    """Every parse problem is an ArticleError that says which file and what is wrong."""
    with pytest.raises(ArticleError, match=message) as caught:
        parse_article("content/broken.md", "blob", data)
    assert caught.value.path == "content/broken.md"
    assert str(caught.value).startswith("content/broken.md: ")


def test_articles_are_read_from_the_commit_not_the_working_tree(repo: Repo) -> None:
    """An uncommitted edit is invisible: what is published is what is committed."""
    commit = repo.commit(
        **{"content/a.md": article("Committed"), "content/notes.txt": "x", "README.md": "x"}
    )
    repo.write("content/a.md", article("Uncommitted"))
    source = ContentSource(Git(repo.root), "content")
    listing = source.list_articles(source.head())
    assert listing == {"content/a.md": repo.blob("content/a.md", commit)}
    assert source.read("content/a.md", listing["content/a.md"], commit=commit).title == "Committed"


def test_looking_for_uncommitted_articles_leaves_the_index_as_it_was(repo: Repo) -> None:
    """The run names articles not committed yet (`git status`), which would write the user's
    index back when a file's stat data changed since it was written; it does not."""
    repo.commit(**{"content/a.md": article("A"), "content/b.md": article("B")})
    repo.write("content/new.md", article("New"))
    later = time.time() + 60
    os.utime(repo.root / "content/a.md", (later, later))  # the same bytes, touched
    index = repo.root / ".git" / "index"
    before = index.read_bytes(), index.stat().st_mtime_ns
    source = ContentSource(Git(repo.root), "content")
    assert source.uncommitted() == ["content/new.md"]
    assert (index.read_bytes(), index.stat().st_mtime_ns) == before
    repo.git("status", "--porcelain")  # git's own refreshes it: what the test would have seen
    assert index.read_bytes() != before[0]


def test_an_undated_article_takes_its_commit_time(repo: Repo) -> None:
    """Without `date`, the commit's time dates the article: the same bytes on every rebuild."""
    commit = repo.commit(**{"content/a.md": article("A")})
    source = ContentSource(Git(repo.root), "content")
    stamp = int(repo.git("show", "-s", "--format=%ct", commit))
    read = source.read("content/a.md", repo.blob("content/a.md"), commit=commit)
    assert read.date == datetime.fromtimestamp(stamp, UTC)


def test_dates_come_from_the_articles_history_not_the_commit_it_is_read_at(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`date` (when the front matter has none) is when the file was added, `updated` when it
    last changed: reading the same version at a later commit (a sweep) gives the same dates."""
    source = ContentSource(Git(repo.root), "content")

    def at(day: str, **files: str) -> str:
        monkeypatch.setenv("GIT_COMMITTER_DATE", f"{day}T12:00:00Z")
        return repo.commit(**files)

    at("2026-01-01", **{"content/a.md": article("A")})
    edited = at("2026-02-01", **{"content/a.md": article("A, edited")})
    later = at("2026-03-01", **{"content/b.md": article("B")})
    blob = repo.blob("content/a.md")
    for commit in (edited, later):
        read = source.read("content/a.md", blob, commit=commit)
        assert (read.date, read.updated) == (
            datetime(2026, 1, 1, 12, tzinfo=UTC), datetime(2026, 2, 1, 12, tzinfo=UTC)
        )  # fmt: skip


def test_a_push_diff_lists_added_modified_and_renamed_articles(repo: Repo) -> None:
    """A push's new versions (added, modified, renamed) and its removed articles; other files
    are not articles."""
    before = repo.commit(
        **{
            "content/keep.md": article("Keep"),
            "content/edit.md": article("Edit"),
            "content/old-name.md": article(
                "Moved", body="long enough body to be detected as a rename"
            ),
            "content/gone.md": article("Gone"),
        }
    )
    repo.git("mv", "content/old-name.md", "content/new-name.md")
    repo.git("rm", "-q", "content/gone.md")
    after = repo.commit(
        **{"content/edit.md": article("Edited"), "content/new.md": article("New"), "other.md": "x"}
    )
    source = ContentTree(Git(repo.root), "content")
    changes = source.changed_articles(before, after)
    assert changes is not None
    assert changes.changed == {
        path: repo.blob(path)
        for path in ["content/edit.md", "content/new-name.md", "content/new.md"]
    }
    assert changes.removed == {"content/old-name.md", "content/gone.md"}


def test_the_tree_lists_and_diffs_without_reading_an_article(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a commit holds and what a push changed come from git's trees alone: a blog's
    articles are listed, and diffed, without reading one (`ContentSource` reads them)."""
    before = repo.commit(**{"content/a.md": article("A"), "content/_index.md": "x", "b.png": "x"})
    after = repo.commit(**{"content/a.md": article("A, edited"), "content/img.png": "x"})

    def refused(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("an article's bytes were read")

    monkeypatch.setattr(Git, "read_objects", refused)
    monkeypatch.setattr(Git, "read_file", refused)
    tree = ContentTree(Git(repo.root), "content")
    assert tree.list_articles(after) == {"content/a.md": repo.blob("content/a.md")}
    assert tree.other_files(after).keys() == {"content/_index.md", "content/img.png"}
    assert tree.changed_since(before, after) == {"content/a.md": repo.blob("content/a.md")}
    assert tree.changed_since(None, after) == tree.list_articles(after)
    assert tree.versions(after, ["content/a.md", "nothing.md"]) == {
        "content/a.md": repo.blob("content/a.md"),
        "nothing.md": ZERO_OID,
    }


def test_the_same_diff_asked_again_is_not_made_again(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plan compares a diff's articles, then asks whether it changed any: one `diff-tree`
    for both, and each caller gets a copy of its own to change."""
    before = repo.commit(**{"content/a.md": article("A")})
    after = repo.commit(**{"content/b.md": article("B")})
    ran = recorded_git(monkeypatch)
    source = ContentTree(Git(repo.root), "content")
    first = source.changed_articles(before, after)
    assert first is not None
    first.changed.clear()
    again = source.changed_articles(before, after)
    assert again is not None and again.changed == {"content/b.md": repo.blob("content/b.md")}
    assert [args[0] for args in ran if args[0] == "diff-tree"] == ["diff-tree"]
    assert source.changed_articles(ZERO_OID, after) is None
    source.changed_articles(after, after)
    assert [args[0] for args in ran if args[0] == "diff-tree"] == ["diff-tree", "diff-tree"]


@pytest.mark.parametrize("before", [None, "", ZERO_OID, "f" * 40])
def test_a_push_without_a_usable_before_falls_back_to_reconciling(
    repo: Repo, before: str | None
) -> None:
    """A first push (zero before) or an unknown commit gives no diff: the caller reconciles all."""
    after = repo.commit(**{"content/a.md": article("A")})
    assert ContentSource(Git(repo.root), "content").changed_articles(before, after) is None


def test_a_force_push_falls_back_to_reconciling(repo: Repo) -> None:
    """When before is not an ancestor of after (history rewritten), the diff is not trusted."""
    repo.commit(**{"content/a.md": article("A")})
    before = repo.commit(**{"content/b.md": article("B")})
    repo.git("reset", "-q", "--hard", "HEAD~1")
    after = repo.commit(**{"content/c.md": article("C")})
    assert ContentSource(Git(repo.root), "content").changed_articles(before, after) is None


def _daily_commits(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> Callable[..., str]:
    """`repo.commit`, each commit a day after the one before (the first at 1,700,000,000)."""
    clock = iter(range(1_700_000_000, 1_800_000_000, 86_400))

    def commit(**files: str) -> str:
        stamp = f"@{next(clock)} +0000"
        monkeypatch.setenv("GIT_AUTHOR_DATE", stamp)
        monkeypatch.setenv("GIT_COMMITTER_DATE", stamp)
        return repo.commit(**files)

    return commit


def test_commits_are_ordered_by_history_then_by_their_time(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`later`: a descendant came after its ancestor whatever the clocks said; a commit this
    copy lacks (pushed after it was fetched) or on another line (a history rewritten) by its
    commit time."""
    commit = _daily_commits(repo, monkeypatch)
    first = commit(**{"content/a.md": article("A")})
    second = commit(**{"content/b.md": article("B")})
    source = ContentSource(Git(repo.root), "content")
    day = source.commit_time(first)
    assert source.later(second, day, than=first)  # a descendant, told to be as old
    assert not source.later(first, source.commit_time(second), than=second)
    assert not source.later(first, day, than=first)
    unknown = "0123456789abcdef" * 2 + "01234567"
    assert source.later(unknown, source.commit_time(second) + timedelta(seconds=1), than=second)
    assert not source.later(unknown, source.commit_time(second), than=second)
    repo.git("reset", "-q", "--hard", first)
    rewritten = commit(**{"content/c.md": article("C")})  # a day after `second`
    assert source.later(rewritten, source.commit_time(rewritten), than=second)
    assert not source.later(second, source.commit_time(second), than=rewritten)


def test_articles_prefetched_together_read_exactly_as_one_by_one(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run reads its articles from one `cat-file` and one walk of the history: the same
    articles, dates and all, as reading each with its own git processes. Covered: an article
    with no `date` (dated by the commit that added it), one edited since (`updated`), one
    moved (a new article where it now is), one removed and added again, one whose name
    reads as a pattern; read few at a time (listed by name) and all at once."""
    commit = _daily_commits(repo, monkeypatch)
    commit(**{"content/a.md": article("A"), "content/b.md": article("B", date="2020-01-01"),
              "content/c.md": article("C"), "content/d.md": article("D"),
              "content/:(glob)*[e].md": article("E")})  # fmt: skip
    commit(**{f"content/more/{n:02d}.md": article(f"More {n}") for n in range(30)})
    commit(**{"content/a.md": article("A", body="Edited.")})
    repo.git("mv", "content/c.md", "content/moved.md")
    commit()
    repo.git("rm", "-q", "content/d.md")
    commit()
    head = commit(**{"content/d.md": article("D", body="Back.")})
    one_by_one = ContentSource(Git(repo.root), "content")
    paths = one_by_one.list_articles(head)
    assert len(paths) > content._LISTED_BY_NAME
    for prefetched in ([*paths][:5], list(paths)):
        together = ContentSource(Git(repo.root), "content")
        together.prefetch(head, prefetched)
        for path in prefetched:
            alone = one_by_one.read(path, paths[path], commit=head)
            assert together.read(path, paths[path], commit=head) == alone
    edited = together.read("content/a.md", paths["content/a.md"], commit=head)
    assert edited.date is not None and edited.updated is not None and edited.updated > edited.date


def test_articles_parsed_at_a_commit_are_its_regular_files_without_their_history(
    repo: Repo,
) -> None:
    """What the site renders the feed's articles again from: each file as it is at the commit
    asked (its blob, its text, read there), parsed as a version of it is anywhere; none for a
    file not there or a symlink (whose bytes are a path); one that does not parse, its error;
    and not one walk of the history."""
    first = repo.commit(**{"content/a.md": article("A"), "content/b.md": article("B")})
    (repo.root / "content" / "link.md").symlink_to("a.md")
    head = repo.commit(**{"content/a.md": article("A", body="Edited."),
                          "content/bad.md": "---\ntitle: [\n---\n"})  # fmt: skip
    source = ContentSource(Git(repo.root), "content")
    wanted = ["content/a.md", "content/b.md", "content/link.md", "content/none.md"]
    assert source.parse_at(first, wanted) == {
        path: replace(
            parse_article(path, repo.blob(path, first), article(title).encode()), commit=first
        )
        for path, title in (("content/a.md", "A"), ("content/b.md", "B"))
    }
    at_head = source.parse_at(head, [*wanted, "content/bad.md"])
    edited = at_head["content/a.md"]
    assert isinstance(edited, Article) and edited.blob == repo.blob("content/a.md")
    assert edited.body == "Edited." and edited.commit == head and edited.updated is None
    assert set(at_head) == {"content/a.md", "content/b.md", "content/bad.md"}
    assert isinstance(at_head["content/bad.md"], ArticleError)
    assert source._history._history == {}, "no history walked"


def test_a_run_keeps_the_articles_it_read_last_not_every_one(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first build reads each article to plan, render and publish it, a window apart at most:
    the versions read and parsed last are kept for that, no more (kept for the whole run, a
    first build of 100,000 articles as people write them held some 800 MB of their text), and
    one let go is read again when asked, the same."""
    head = repo.commit(**{f"content/{n}.md": article(f"A{n}") for n in range(8)})
    every = ContentSource(Git(repo.root), "content")
    monkeypatch.setattr(content, "_KEPT", 3)
    source = ContentSource(Git(repo.root), "content")
    paths = source.list_articles(head)
    assert source.parse_at(head, list(paths)) == every.parse_at(head, list(paths))
    assert len(source._files) == len(source._parsed) == 3
    first = "content/0.md"
    assert source.read(first, paths[first], commit=head) == every.read(
        first, paths[first], commit=head
    )
    assert (head, first) in source._files and len(source._files) == 3


def _streamed_history(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> tuple[list[int], int]:
    """The bytes of each chunk git streams from now on, in small reads (where a walk of the
    history stops shows), and the length of the content folder's whole history."""
    monkeypatch.setattr(gitio, "_STREAMED", 64)
    streamed: list[int] = []
    real_stream = Git.stream

    def counted(git: Git, *args: str) -> Iterator[bytes]:
        for chunk in real_stream(git, *args):
            streamed.append(len(chunk))
            yield chunk

    monkeypatch.setattr(Git, "stream", counted)
    return streamed, len(
        repo.git("log", "-z", "--format=%x01%ct", "--name-status", "--", "content")
    )


def test_an_edit_of_an_old_undated_article_reads_only_the_push_s_history(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An article with no date of its own is dated by the commit that added it: for an edit
    of an old one, the walk stops at the push's own commit, and the addition is found by a
    `git log` of its own (at 50,000 commits 0.27 s, where walking there took 3.2 s)."""
    commit = _daily_commits(repo, monkeypatch)
    for n in range(30):
        commit(**{f"content/old-{n:02d}.md": article(f"Old {n}")})
    head = commit(**{"content/old-00.md": article("Old 0", body="Edited.")})
    streamed, whole = _streamed_history(repo, monkeypatch)
    source = ContentSource(Git(repo.root), "content")
    blob = repo.blob("content/old-00.md", head)
    source.prefetch(head, ["content/old-00.md"])
    assert 0 < sum(streamed) < whole / 4, (streamed, whole)
    edited = source.read("content/old-00.md", blob, commit=head)
    assert edited == ContentSource(Git(repo.root), "content").read(
        "content/old-00.md", blob, commit=head
    )
    assert edited.date == datetime.fromtimestamp(1_700_000_000, UTC), "the day it was added"
    assert edited.updated is not None and edited.updated > edited.date


def test_a_push_s_article_is_dated_from_its_commit_before_git_has_ended_that_commit(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Git ends a commit's record of the walk only once it has diffed the commit before (40
    ms in a folder of 100,000 files): the walk stops where the article's own line of the
    push's commit ends, not after the rest of the commit's files and the next commit."""
    commit = _daily_commits(repo, monkeypatch)
    commit(**{f"content/old-{n:02d}.md": article(f"Old {n}") for n in range(10)})
    others = {f"content/z-other-{n:02d}.md": article(f"Other {n}") for n in range(20)}
    head = commit(**{"content/a-pushed.md": article("Pushed"), **others})
    streamed, _whole = _streamed_history(repo, monkeypatch)
    newest = repo.git("log", "-1", "-z", "--format=%x01%ct", "--name-status", "--", "content")
    source = ContentSource(Git(repo.root), "content")
    source.prefetch(head, ["content/a-pushed.md"])
    assert 0 < sum(streamed) < len(newest) / 2, (streamed, len(newest))
    blob = repo.blob("content/a-pushed.md", head)
    pushed = source.read("content/a-pushed.md", blob, commit=head)
    assert pushed == ContentSource(Git(repo.root), "content").read(
        "content/a-pushed.md", blob, commit=head
    )
    assert pushed.date == datetime.fromtimestamp(1_700_000_000 + 86_400, UTC)


def test_the_diff_of_a_push_of_one_commit_dates_its_articles_with_no_walk(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A push of one commit is diffed from its parent to plan it: what it added and changed
    is dated by that commit, and the history is not walked for them (the walk waits on git
    diffing the commit again: 60 ms in a folder of 100,000 files). An edit of an old article
    with no date of its own still walks, for the day it was added."""
    commit = _daily_commits(repo, monkeypatch)
    commit(**{f"content/old-{n:02d}.md": article(f"Old {n}") for n in range(5)})
    parent = commit(**{"content/moved.md": article("Moved")})
    repo.git("mv", "content/moved.md", "content/moved-here.md")
    head = commit(**{
        "content/new.md": article("New"),
        "content/old-01.md": article("Old 1", date="2020-01-01", body="Edited."),
    })  # fmt: skip
    streamed, _whole = _streamed_history(repo, monkeypatch)
    source = ContentSource(Git(repo.root), "content")
    changes = source.changed_articles(parent, head)
    assert changes is not None
    assert set(changes.changed) == {"content/new.md", "content/old-01.md", "content/moved-here.md"}
    source.prefetch(head, sorted(changes.changed))
    assert streamed == [], "no walk of the history"
    walked = ContentSource(Git(repo.root), "content")
    for path, blob in changes.changed.items():
        assert source.read(path, blob, commit=head) == walked.read(path, blob, commit=head)

    edit = commit(**{"content/old-02.md": article("Old 2", body="Edited.")})
    changes = source.changed_articles(head, edit)
    assert changes is not None
    source.prefetch(edit, ["content/old-02.md"])
    assert streamed, "its addition is walked for"
    blob = changes.changed["content/old-02.md"]
    assert source.read("content/old-02.md", blob, commit=edit) == walked.read(
        "content/old-02.md", blob, commit=edit
    )


def test_the_content_folder_is_listed_and_sorted_once_a_commit_whatever_reads_it(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An import reads its commit's articles a window at a time, and the plan lists them: the
    folder is listed once for all of it (at 10^5 a listing is 100,000 entries, and it was made
    again for each window of 500), a few articles still by name; and its windows' import
    order is made once (100,000 articles sorted again for each window)."""
    head = repo.commit(**{f"content/p{n:02d}.md": article(f"P{n}") for n in range(60)})
    ran = recorded_git(monkeypatch)
    source = ContentSource(Git(repo.root), "content")
    paths = sorted(source.list_articles(head))
    for start in range(0, 60, 30):  # two windows
        source.prefetch(head, paths[start : start + 30])
    source.prefetch(head, ["content/p00.md"])  # read already: nothing to list
    ContentSource(Git(repo.root), "content").prefetch(head, paths[:2])
    listed = [args[args.index("--") + 1 :] for args in ran if args[0] == "ls-tree"]
    assert listed == [("content",), (":(literal)content/p00.md", ":(literal)content/p01.md")]

    # Each window asks for the commit's articles in the import's order: sorted once.
    sorts: list[int] = []

    def newest_first(dates: dict[str, str]) -> list[str]:
        sorts.append(len(dates))
        return sorted(dates)

    monkeypatch.setattr(contentdates, "newest_first", newest_first)
    for _window in range(3):
        source.newest_first(head, source.list_articles(head))
    source.newest_first(head, dict(list(source.list_articles(head).items())[:10]))
    assert sorts == [60, 10]


def test_a_push_reads_the_history_only_back_to_where_its_articles_were_added(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The walk of the history that dates a push's articles stops at the commits that added
    them, or for an edited article with a date of its own at its last change: a blog's older
    history is not read on every push (walked whole, a history of 5,000 commits took 3.2 s).
    An article the walk did not reach is read with its own `git log`, dated all the same."""
    commit = _daily_commits(repo, monkeypatch)
    commit(**{"content/dated.md": article("Dated", date="2019-01-01")})
    for n in range(30):
        commit(**{f"content/old-{n:02d}.md": article(f"Old {n}")})
    commit(**{"content/old-03.md": article("Old 3", body="Edited.")})
    edited = article("Dated", date="2019-01-01", body="Edited.")
    head = commit(**{"content/pushed.md": article("Pushed"), "content/dated.md": edited})
    streamed, whole = _streamed_history(repo, monkeypatch)
    source = ContentSource(Git(repo.root), "content")
    alone = ContentSource(Git(repo.root), "content")
    paths = source.list_articles(head)
    source.prefetch(head, ["content/pushed.md", "content/dated.md"])
    # The push's commit and the start of the one before it: about a tenth of the history.
    assert 0 < sum(streamed) < whole / 4, (streamed, whole)
    for path in ("content/pushed.md", "content/dated.md", "content/old-03.md", "content/old-00.md"):
        assert source.read(path, paths[path], commit=head) == alone.read(
            path, paths[path], commit=head
        )
    # The walk never reached the commit that added old-00 (the day after dated's): its own log.
    first_old = source.read("content/old-00.md", paths["content/old-00.md"], commit=head)
    assert first_old.date == datetime.fromtimestamp(1_700_000_000 + 86_400, UTC)
    # A second walk at one commit (the next window of an import) goes to the beginning, once,
    # not deeper each window: then no article, of that window or any, needs its own `git log`.
    older = [path for path in paths if path.startswith("content/old-1")]
    every_old = [path for path in paths if path.startswith("content/old-")]
    expected = [alone.read(path, paths[path], commit=head) for path in every_old]
    logs: list[tuple[str, ...]] = []
    real_text = Git.text

    def text(git: Git, *args: str, stdin: bytes | None = None) -> str:
        logs.append(args)
        return real_text(git, *args, stdin=stdin)

    monkeypatch.setattr(Git, "text", text)
    source.prefetch(head, older)
    assert [source.read(path, paths[path], commit=head) for path in every_old] == expected
    assert not [args for args in logs if args[0] == "log"]


def test_versions_read_to_order_an_import_are_not_read_again_to_publish(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plan reads every version of a large import for its date; the read that publishes
    them takes the same bytes instead of asking git for them again, and reads the same."""
    head = repo.commit(**{f"content/{n}.md": article(f"A{n}", date=f"2026-01-{n + 1:02d}")
                          for n in range(5)})  # fmt: skip
    source = ContentSource(Git(repo.root), "content")
    asked: list[str] = []
    read_objects = Git.read_objects

    def counted(git: Git, specs: list[str]) -> list[tuple[str, bytes] | None]:
        asked.extend(specs)
        return read_objects(git, specs)

    monkeypatch.setattr(Git, "read_objects", counted)
    paths = source.list_articles(head)
    assert source.newest_first(head, paths)[0] == "content/4.md"
    source.prefetch(head, list(paths))
    fresh = ContentSource(Git(repo.root), "content")
    for path, blob in paths.items():
        assert source.read(path, blob, commit=head) == fresh.read(path, blob, commit=head)
    assert sorted(asked[:5]) == sorted(paths.values())
    assert len(asked) == 5 + len(paths)  # then only `fresh`, reading them one by one


def test_a_jekyll_post_without_a_date_is_dated_by_its_file_name(repo: Repo) -> None:
    """A Jekyll blog adopted in one commit keeps its posts' dates: the day a name begins with
    dates a post whose front matter has no `date` (which wins where it has one), and orders
    the import; other names are dated by the commit that added them."""
    posts = {
        "content/2019-05-01-hello.md": article("Hello"),
        "content/2021-03-02-later.md": article("Later"),
        "content/2020-01-01-dated.md": article("Dated", date="2018-07-01T10:00:00Z"),
        "content/plain.md": article("Plain"),
    }
    head = repo.commit(**posts)
    source = ContentSource(Git(repo.root), "content")
    paths = source.list_articles(head)
    dates = {path: source.read(path, blob, commit=head).date for path, blob in paths.items()}
    added = datetime.fromtimestamp(int(repo.git("show", "-s", "--format=%ct", head)), UTC)
    assert dates == {
        "content/2019-05-01-hello.md": datetime(2019, 5, 1, tzinfo=UTC),
        "content/2021-03-02-later.md": datetime(2021, 3, 2, tzinfo=UTC),
        "content/2020-01-01-dated.md": datetime(2018, 7, 1, 10, tzinfo=UTC),
        "content/plain.md": added,
    }
    assert ContentSource(Git(repo.root), "content").newest_first(head, paths) == [
        "content/plain.md",
        "content/2021-03-02-later.md",
        "content/2019-05-01-hello.md",
        "content/2020-01-01-dated.md",
    ]


def test_a_jekyll_post_named_for_a_day_to_come_waits_for_it() -> None:
    """As Jekyll leaves a post of a future day out of the site, steadypress schedules it."""
    parsed = parse_article("_posts/2999-01-01-later.md", "blob", article("Later").encode())
    assert parsed.not_before == datetime(2999, 1, 1, tzinfo=UTC)
