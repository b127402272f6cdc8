"""The whole command line on the GitHub backend, against the loopback fake of GitHub."""

import json
import os
import re
from collections import Counter
from pathlib import Path
from typing import Any

import feedparser
import pytest

from steadypress import feeds, planning
from steadypress.github.store import GitHubStore
from steadypress.ledger import Ledger
from steadypress.targets.site import parts as parts_module
from steadypress.targets.site.index import STYLED
from steadypress.targets.site.target import SiteTarget
from tests.fakes.github import FakeGitHub, Fault
from tests.helpers import (
    Repo,
    Result,
    article,
    github_client,
    github_environment,
    publications,
    run_cli,
    spawn_cli,
)

ZERO = "0" * 40
STATE = "steadypress-state"
FAST = "timings: {lease: 10m, grace: 0s, backoff_initial: 0s, backoff_max: 0s}\nmax_attempts: 2\n"


def gh(repo: Repo, *args: str) -> Result:
    return run_cli(repo, *args, "--backend", "github")


def remote(github: FakeGitHub) -> Ledger:
    return (
        GitHubStore(github_client(github), repository=github.full_name, branch="steadypress-state")
        .load()
        .ledger
    )


def pages(github: FakeGitHub) -> set[str]:
    return set(github.repository.text("ls-tree", "-r", "--name-only", "gh-pages").split())


def push_requests(repo: Repo, github: FakeGitHub, before: str, after: str) -> Counter[str]:
    """The requests of the push from `before` to `after` (`drain --push`), which succeeds."""
    with github.counting() as counted:
        assert gh(repo, "drain", "--push", before, after).code == 0
    return counted


def test_a_pushed_article_is_published_on_the_pages_branch_in_the_same_run(
    repo: Repo, github: FakeGitHub, tmp_path: Path
) -> None:
    """drain --push: the article is on gh-pages and in published.json, and the summary links it."""
    repo.commit(**{"content/hello.md": article("Hello")})
    result = gh(repo, "drain", "--push", ZERO, repo.head())
    assert result.code == 0, result.err
    assert "hello/index.html" in pages(github)
    assert (
        remote(github).published["site:content/hello.md"].url
        == "https://octo.github.io/blog/hello/"
    )
    assert (
        "| `site:content/hello.md` | published "
        "| [https://octo.github.io/blog/hello/](https://octo.github.io/blog/hello/) |"
        in (tmp_path / "summary.md").read_text()
    )
    assert repo.state_head() is None, "nothing written to the local repository"
    status = json.loads(gh(repo, "status", "--json").out)
    assert status["published"]["site:content/hello.md"]["url"] == (
        "https://octo.github.io/blog/hello/"
    )


def test_a_failing_target_gives_exactly_one_dead_letter_issue_and_retry_closes_it(
    repo: Repo, github: FakeGitHub
) -> None:
    """Attempts run out, one issue opens; more sweeps reuse it; retry publishes and closes it."""
    repo.commit(**{"steadypress.yml": FAST, "content/a.md": article("A")})
    assert gh(repo, "enqueue", "--push", ZERO, repo.head()).code == 0
    github.inject(Fault("POST /repos/{repo}/git/trees", status=500, times=10_000))  # no gh-pages
    assert gh(repo, "drain").code == 1
    for _ in range(3):
        assert gh(repo, "sweep").code == 0
    assert len(github.tracker.issues) == 1
    issue = github.tracker.get_issue(1)
    assert issue["state"] == "open" and "content/a.md" in issue["body"]
    assert "https://github.example/octo/blog/actions/runs/42" in issue["body"]
    assert remote(github).dead["site:content/a.md"].alert == 1
    github.clear_faults()
    github.tracker.add_label(1, "retry")  # a maintainer asks for a retry
    result = gh(repo, "retry", "--issue", "1")
    assert result.code == 0 and "1 published" in result.out
    assert (issue["state"], issue["state_reason"]) == ("closed", "completed")
    assert "/a/" in github.tracker.comments[1][-1]
    assert not remote(github).dead and len(github.tracker.issues) == 1
    assert [label["name"] for label in issue["labels"]] == ["dead-letter"], "retry label withdrawn"


def test_a_lost_answer_to_a_state_commit_duplicates_nothing(repo: Repo, github: FakeGitHub) -> None:
    """A 502 after createCommitOnBranch succeeded: recognised as ours, published once."""
    repo.commit(**{"content/a.md": article("A")})
    github.inject(Fault("graphql CreateCommit", status=502, apply_first=True, times=2))
    assert gh(repo, "drain", "--push", ZERO, repo.head()).code == 0
    ledger = remote(github)
    assert set(ledger.published) == {"site:content/a.md"} and not ledger.pending


def test_a_rate_limited_run_stops_cleanly_and_the_next_run_finishes(
    repo: Repo, github: FakeGitHub
) -> None:
    """An hour's rate limit: exit 3 at once with nothing changed; the next run publishes."""
    repo.commit(**{"content/a.md": article("A")})
    github.inject(Fault.primary_rate_limit("graphql LoadBranch", reset_in=3600))
    stopped = gh(repo, "drain", "--push", ZERO, repo.head())
    assert stopped.code == 3 and "rate limit" in stopped.err
    assert github.repository.head_of("steadypress-state") is None
    assert gh(repo, "sweep").code == 0
    assert "site:content/a.md" in remote(github).published


def test_the_push_path_costs_three_state_requests_plus_the_targets(
    repo: Repo, github: FakeGitHub
) -> None:
    """One new article: one read and two writes of state (the claim starts from the read the
    enqueue was planned on), and the Pages commit. The site's two reads ride on the state's
    requests: what the pushed article's paths name on the state's read (planned from the
    push before the ledger is read), then what that answer says the write needs (the page of
    the article that was the newest, to link it to the new one, and the new page's sitemap,
    which of them the first read says) on the claim's commit. No read back: the commit's
    answer is GitHub's word that the branch now holds it."""
    before = repo.commit(**{"content/a.md": article("A")})
    gh(repo, "drain", "--push", ZERO, before)
    after = repo.commit(**{"content/b.md": article("B")})
    with github.counting() as calls:
        assert gh(repo, "drain", "--push", before, after).code == 0
    assert calls == {"graphql LoadBranch": 1, "graphql CreateCommit": 2 + 1}


def test_reading_ahead_that_fails_costs_the_saving_never_the_publish(
    repo: Repo, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading ahead is a saving: when it fails, the claim is written all the same and the
    site reads for itself, one request more."""

    def broken(*_args: object) -> None:
        raise RuntimeError("the theme could not be read ahead")

    monkeypatch.setattr(SiteTarget, "read_ahead", broken)
    before = repo.commit(**{"content/a.md": article("A")})
    gh(repo, "drain", "--push", ZERO, before)
    after = repo.commit(**{"content/b.md": article("B")})
    with github.counting() as calls:
        result = gh(repo, "drain", "--push", before, after)
    assert result.code == 0 and "b/index.html" in pages(github)
    assert "reading ahead failed, read when written" in result.err
    assert calls == {"graphql LoadBranch": 1 + 2, "graphql CreateCommit": 2 + 1}


def test_a_push_of_five_articles_is_one_commit_on_the_pages_branch(
    repo: Repo, github: FakeGitHub
) -> None:
    """The site publishes a claimed batch in one write (and reads the page of the newest
    article before, to link it to the first of them); the commit's answer verifies it."""
    before = repo.commit(**{"content/a.md": article("A")})
    gh(repo, "drain", "--push", ZERO, before)
    after = repo.commit(**{f"content/n{n}.md": article(f"N{n}") for n in range(5)})
    pages_before = github.requests_by_branch["gh-pages"]
    with github.counting() as calls:
        assert gh(repo, "drain", "--push", before, after).code == 0
    assert github.requests_by_branch["gh-pages"] - pages_before == 1, "the commit alone"
    assert calls == {"graphql LoadBranch": 1, "graphql CreateCommit": 2 + 1}
    assert all(f"n{n}/index.html" in pages(github) for n in range(5))


def test_a_push_of_nothing_steadypress_reads_writes_nothing(repo: Repo, github: FakeGitHub) -> None:
    """Every push wakes publish.yml (no path filter): one that changes no article, theme or
    configuration reads the state and writes nothing, not even the reconcile's marker, which
    stays behind; the next push of an article moves it on past both, and the sweeps between
    and after are idle, one request each."""
    before = repo.commit(**{"content/a.md": article("A"), "README.md": "A blog."})
    gh(repo, "drain", "--push", ZERO, before)
    state = github.repository.head_of("steadypress-state")
    after = repo.commit(**{"README.md": "A blog about things."})
    with github.counting() as calls:
        assert gh(repo, "drain", "--push", before, after).code == 0
    assert calls == {"graphql LoadBranch": 1}
    assert github.repository.head_of("steadypress-state") == state
    with github.counting() as calls:
        assert gh(repo, "sweep").code == 0
    assert calls == {"graphql LoadBranch": 1}
    assert github.repository.head_of("steadypress-state") == state
    pushed = repo.commit(**{"content/b.md": article("B")})
    assert gh(repo, "drain", "--push", after, pushed).code == 0
    reconciled = remote(github).reconciled
    assert reconciled is not None and reconciled.commit == pushed
    with github.counting() as calls:
        assert gh(repo, "sweep").code == 0
    assert calls == {"graphql LoadBranch": 1}


def test_an_idle_sweep_reads_the_state_once(repo: Repo, github: FakeGitHub) -> None:
    """Nothing to do costs one request: the reconciliation's read serves the claim and the
    look for dead letters without an alert."""
    repo.commit(**{"content/a.md": article("A")})
    assert gh(repo, "sweep").code == 0
    with github.counting() as calls:
        assert gh(repo, "sweep").code == 0
    assert calls == {"graphql LoadBranch": 1}


@pytest.mark.slow
def test_four_executors_racing_over_fifty_articles_publish_each_once(
    repo: Repo, github: FakeGitHub
) -> None:
    """Four drains of the same push at once: every article published by exactly one of them."""
    repo.commit(**{f"content/p{n:02d}.md": article(f"P{n}") for n in range(50)})
    env = {**os.environ, **github_environment(github)}
    drains = [
        spawn_cli(repo, "drain", "--push", ZERO, "HEAD", "--backend", "github", env=env)
        for _ in range(4)
    ]
    outputs = [drain.communicate(timeout=300) for drain in drains]
    assert all(drain.returncode == 0 for drain in drains), [err for _out, err in outputs]
    published = publications(outputs)
    assert len(published) == 50 and set(published.values()) == {1}
    assert len(remote(github).published) == 50
    assert {f"p{n:02d}/index.html" for n in range(50)} <= pages(github)


def test_a_state_error_after_a_commit_does_not_say_nothing_was_changed(
    repo: Repo, github: FakeGitHub
) -> None:
    """The claim is committed, then the state branch stops taking writes: exit 3, and the
    message says what this run's commits did, not that nothing changed."""
    repo.commit(**{"steadypress.yml": FAST, "content/a.md": article("A")})
    assert gh(repo, "run").code == 0
    repo.commit(**{"content/b.md": article("B")})

    def fail_after_the_claim() -> None:
        # The fake calls this once, inside the claim's write (already past its fault check):
        # the claim goes through, every later write of the state branch fails.
        github.inject(Fault("graphql CreateCommit", status=500, times=50, branch=STATE))

    github.before_write = fail_after_the_claim
    result = gh(repo, "run")
    assert result.code == 3, result.err
    assert "nothing was changed" not in result.err
    assert "after 1 state commit(s) of this run" in result.err


def test_a_push_removing_ten_articles_costs_no_more_than_one_adding_ten(
    repo: Repo, github: FakeGitHub
) -> None:
    """Removals are batched like publications: the ten pages leave gh-pages in one commit, and
    the push costs no more requests than the one that added them to a blog already there: the
    Pages commit alone, its reads riding on the state's read and claim (the index's files that
    the pushed versions name; the removed ones', from their versions before the push)."""
    repo.commit(**{"content/first.md": article("First")})
    base = repo.head()
    assert gh(repo, "drain", "--push", ZERO, base).code == 0
    added = repo.commit(**{f"content/{n}.md": article(f"Article {n}") for n in range(10)})
    adding = push_requests(repo, github, base, added)
    for n in range(10):
        repo.git("rm", "-q", f"content/{n}.md")
    removed = repo.commit("remove all ten")
    removing = push_requests(repo, github, added, removed)
    assert not any(name.endswith("/index.html") and name != "index.html" for name in pages(github)
                   if name.split("/")[0].isdigit())  # fmt: skip
    assert sum(removing.values()) <= sum(adding.values()), (dict(removing), dict(adding))
    assert removing == {"graphql LoadBranch": 1, "graphql CreateCommit": 2 + 1}
    commits = github.repository.text("rev-list", "--count", "gh-pages")
    assert commits == "3", "the first article's, one adding the ten, one removing them"


def test_a_blog_of_a_few_articles_a_year_pushes_and_removes_in_four_requests(
    repo: Repo, github: FakeGitHub
) -> None:
    """Where articles are months and years apart, a neighbour is found in the months read
    together in one request: a push, or a removal, of articles between them costs what it
    costs in a busy blog (the months read one by one as the search went cost a request
    each: eight in all for one article)."""
    dates = [f"20{10 + n:02}-{1 + (5 * n) % 12:02}-15" for n in range(12)]
    repo.commit(**{f"content/old{n}.md": article(f"Old {n}", date=day)
                   for n, day in enumerate(dates)})  # fmt: skip
    base = repo.head()
    assert gh(repo, "drain", "--push", ZERO, base).code == 0
    one = repo.commit(**{"content/new.md": article("New", date="2015-08-01")})
    pushing = push_requests(repo, github, base, one)
    ten = repo.commit(**{f"content/n{n}.md": article(f"N {n}", date=f"20{11 + n:02}-09-09")
                         for n in range(10)})  # fmt: skip
    pushing_ten = push_requests(repo, github, one, ten)
    for n in range(10):
        repo.git("rm", "-q", f"content/n{n}.md")
    removed = repo.commit("the ten go")
    removing = push_requests(repo, github, ten, removed)
    for counted in (pushing, pushing_ten, removing):
        assert counted == {"graphql LoadBranch": 1, "graphql CreateCommit": 3}, dict(counted)
    page = github.repository.text("show", "gh-pages:new/index.html")
    assert 'rel="prev" href="/blog/old5/"' in page and 'rel="next" href="/blog/old6/"' in page


def test_the_article_that_gives_a_tag_pages_of_its_years_is_pushed_and_removed_in_four_requests(
    repo: Repo, github: FakeGitHub
) -> None:
    """A tag's page lists its 20 newest, and a tag of more has a page a year: the 21st article
    brings them all (of years it is not of too), and its removal takes them away, each push
    in four requests, the pages' reads riding on the state's read and claim. (The oldest
    article: the removal of one the front page lists reads the months that refill it, a
    request more, whatever its tags.)"""
    dates = [f"20{20 + n % 4}-{1 + n % 12:02}-15" for n in range(20)]
    repo.commit(**{f"content/old{n}.md": article(f"Old {n}", date=day, tags="[go]")
                   for n, day in enumerate(dates)})  # fmt: skip
    base = repo.head()
    assert gh(repo, "drain", "--push", ZERO, base).code == 0
    years = {f"tags/go/{year}/index.html" for year in range(2020, 2024)}
    assert not years & pages(github)
    added = repo.commit(**{"content/new.md": article("New", date="2020-01-01", tags="[go]")})
    pushing = push_requests(repo, github, base, added)
    assert years <= pages(github)
    repo.git("rm", "-q", "content/new.md")
    removed = repo.commit("the new one goes")
    removing = push_requests(repo, github, added, removed)
    assert not years & pages(github)
    for counted in (pushing, removing):
        assert counted == {"graphql LoadBranch": 1, "graphql CreateCommit": 3}, dict(counted)


def test_removing_the_newest_of_a_sparse_blog_reads_the_months_that_refill_them_together(
    repo: Repo, github: FakeGitHub
) -> None:
    """The front page and the feed show the 20 newest: when the newest go, the next ones are
    found in the months before, read together (one request beside the push's own: 5 in all,
    where a month a request made 31); the front page lists them after."""
    days = [f"20{n // 2:02}-{1 + n % 12:02}-03" for n in range(30)]  # two a year
    repo.commit(**{f"content/p{n:02}.md": article(f"P {n}", date=d) for n, d in enumerate(days)})
    base = repo.head()
    assert gh(repo, "drain", "--push", ZERO, base).code == 0
    for n in range(24, 30):
        repo.git("rm", "-q", f"content/p{n:02}.md")
    removed = repo.commit("the six newest go")
    removing = push_requests(repo, github, base, removed)
    assert removing == {"graphql LoadBranch": 2, "graphql CreateCommit": 3}, dict(removing)
    front = github.repository.text("show", "gh-pages:index.html")
    assert ">P 23<" in front and ">P 29<" not in front


def test_an_import_in_windows_publishes_everything_on_github(
    repo: Repo, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The GitHub backend takes a large import a window at a time like the local one: one
    sweep publishes every article; the state branch's pending.json never holds more than a
    window; the listing pages the batches left are rendered by the drain's `finish` (the
    backlog's last window held only drafts), on the Pages branch, in one more commit."""
    monkeypatch.setattr(planning, "ADMISSION", 10)
    articles = {f"content/p{n:02}.md": article(f"Article {n}") for n in range(20)}
    drafts = {f"content/q{n:02}.md": article(f"Draft {n}", draft="true") for n in range(10)}
    repo.commit(**articles, **drafts)
    result = gh(repo, "sweep")
    assert result.code == 0 and "20 published" in result.out, result.out + result.err
    commits = github.repository.text("rev-list", STATE).split()
    sizes = [
        len(json.loads(github.repository.text("show", f"{c}:state/pending.json"))["pending"])
        for c in commits
    ]
    assert max(sizes) == 10 and sizes[0] == 0
    summary = json.loads(github.repository.text("show", "gh-pages:.steadypress/summary.json"))
    assert "stale" not in summary
    (month,) = [p for p in pages(github) if p.startswith("archive/") and p.count("/") == 3]
    listed = github.repository.text("show", f"gh-pages:{month}")
    assert all(f">Article {n}<" in listed for n in range(20)) and ">Draft" not in listed


def test_a_new_site_title_reaches_every_page_on_the_pages_branch(
    repo: Repo, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The site's look on GitHub as locally: a sweep after the title's commit publishes every
    article again, a window at a time, and every page on the Pages branch has the new title."""
    monkeypatch.setattr(planning, "ADMISSION", 4)
    repo.commit(**{f"content/p{n}.md": article(f"P{n}", tags="[news]") for n in range(6)})
    assert "6 published" in gh(repo, "sweep").out
    repo.commit(**{"steadypress.yml": "targets:\n  site: {kind: site, title: My Blog}\n"})
    result = gh(repo, "sweep")
    assert result.code == 0 and "6 published" in result.out, result.out + result.err
    html = sorted(page for page in pages(github) if page.endswith(".html"))
    assert {"index.html", "tags/news/index.html", "p0/index.html"} <= set(html)
    for page in html:
        text = github.repository.text("show", f"gh-pages:{page}")
        assert "My Blog</title>" in text and "· steadypress" not in text, page
    assert "0 published" in gh(repo, "sweep").out


def test_a_site_published_again_whole_reads_its_listings_together(
    repo: Repo, github: FakeGitHub
) -> None:
    """A new title on a site of 40 tags: each batch's write asks for the tags' counts and the
    listing pages it rewrites in one read, not in one request each."""
    repo.commit(**{f"content/p{n}.md": article(f"P{n}", tags=f"[t{n}]") for n in range(40)})
    assert "40 published" in gh(repo, "sweep").out
    repo.commit(**{"steadypress.yml": "targets:\n  site: {kind: site, title: My Blog}\n"})
    before = github.requests_by_branch["gh-pages"]
    result = gh(repo, "sweep")
    assert "40 published" in result.out, result.out + result.err
    pages_requests = github.requests_by_branch["gh-pages"] - before
    # 109 when each tag's count and each listing page the writes rewrote was a request of its
    # own.
    assert pages_requests <= 12, pages_requests
    assert "My Blog</title>" in github.repository.text("show", "gh-pages:tags/t7/index.html")


_FRONT = '{% extends "base.html" %}{% block main %}FRONT{{ entries | length }}{% endblock %}\n'
_GONE = '{% extends "base.html" %}{% block main %}GONE{% endblock %}\n'


@pytest.mark.parametrize(
    ("template", "texts"),
    [
        ("style.css", ("p {}", "p { color: teal }")),
        ("index.html", (_FRONT.replace("FRONT", "Newest: "), _FRONT.replace("FRONT", "teal "))),
        ("404.html", (_GONE.replace("GONE", "Gone"), _GONE.replace("GONE", "teal gone"))),
    ],
)  # fmt: skip
def test_a_pushed_stylesheet_or_front_page_is_one_pages_commit_of_that_file_alone(
    repo: Repo, github: FakeGitHub, template: str, texts: tuple[str, str]
) -> None:
    """A stylesheet, front page or 404 page template edit (`texts`: before, after) on GitHub
    costs its push run a read and a commit of the Pages branch, which changes that file and
    nothing else, beside the state's load and marker: 4 requests at any size of the blog,
    where every article was published again before."""
    first, edit = texts
    written = template  # each is served at its template's name
    config = "targets:\n  site: {kind: site, theme: theme}\n"
    articles = {f"content/p{n}.md": article(f"P{n}") for n in range(5)}
    before = repo.commit(**articles, **{"steadypress.yml": config, f"theme/{template}": first})
    assert "5 published" in gh(repo, "sweep").out
    head = github.repository.text("rev-parse", "gh-pages").strip()
    after = repo.commit(**{f"theme/{template}": edit})
    with github.counting() as calls:
        result = gh(repo, "drain", "--push", before, after)
    assert result.code == 0 and "0 published" in result.out, result.out + result.err
    changed = github.repository.text("diff", "--name-only", head, "gh-pages").split()
    assert changed == [STYLED, written]  # and the site's record of its look
    assert "teal" in github.repository.text("show", f"gh-pages:{written}")
    # The state, then the Pages branch's single files and what the front page shows; the
    # Pages commit, then the state's marker, on to the push's commit.
    assert calls == {"graphql LoadBranch": 2, "graphql CreateCommit": 2}
    marker = remote(github).reconciled
    assert marker is not None and marker.commit == after


_MONTH_PAGE = '{% extends "base.html" %}{% block main %}MONTH{{ entries | length }}{% endblock %}\n'


def _month_template_edited(repo: Repo, articles: dict[str, str]) -> tuple[str, str]:
    """A blog of `articles` with a month page template of its own, published on GitHub by a
    sweep; then an edit of that template (its pages say "teal") committed: the commit before
    the edit, and the edit's."""
    config = "targets:\n  site: {kind: site, theme: theme}\n"
    before = repo.commit(
        **articles,
        **{"steadypress.yml": config, "theme/month.html": _MONTH_PAGE.replace("MONTH", "")},
    )
    assert f"{len(articles)} published" in gh(repo, "sweep").out
    return before, repo.commit(**{"theme/month.html": _MONTH_PAGE.replace("MONTH", "teal ")})


def test_a_pushed_month_template_rewrites_the_listing_pages_in_a_few_requests(
    repo: Repo, github: FakeGitHub
) -> None:
    """A month page's template edited on GitHub: the listing pages are written again, the
    articles' are not, in a few requests: the state's load; the single files' write, whose
    first read tells the years and tags, and a second their months and years (it changes
    nothing here, they show no month, and commits nothing: the site's record of its look goes
    with the first listing write, where it had a commit of its own); one write for the listing
    pages (its read, with the months' files, and its commit: 200 pages a write); the state's
    marker."""
    before, after = _month_template_edited(repo, {
        f"content/p{n}.md": article(f"P{n}", date=f"2025-{1 + n % 3:02d}-1{n}") for n in range(6)
    })  # fmt: skip
    head = github.repository.text("rev-parse", "gh-pages").strip()
    with github.counting() as calls:
        result = gh(repo, "drain", "--push", before, after)
    assert result.code == 0 and "0 published" in result.out, result.out + result.err
    changed = github.repository.text("diff", "--name-only", head, "gh-pages").split()
    assert changed == [STYLED, *(f"archive/2025/{m:02d}/index.html" for m in (1, 2, 3))]
    assert github.repository.text("rev-list", "--count", f"{head}..gh-pages").strip() == "1"
    assert calls == {"graphql LoadBranch": 4, "graphql CreateCommit": 2}, calls


def test_a_refresh_that_records_its_look_late_puts_the_single_files_again(
    repo: Repo, github: FakeGitHub
) -> None:
    """When the single files' write of a refresh changes nothing, the site's record of its
    look goes with the first listing write, which puts them again: a run of an older look may
    write them in between, the record still saying its look, and the refresh leaves them as
    its own theme makes them."""
    before, after = _month_template_edited(repo, {
        f"content/p{n}.md": article(f"P{n}", date=f"2025-0{1 + n % 3}-1{n}") for n in range(6)
    })  # fmt: skip
    front = github.repository.text("show", "gh-pages:index.html")

    def an_older_run_writes_the_front_page() -> None:
        assert github.repository.edit("gh-pages", {"index.html": b"older"}, "older")

    github.before_write = an_older_run_writes_the_front_page  # before the listings' commit
    assert gh(repo, "drain", "--push", before, after).code == 0
    assert github.before_write is None, "the older run wrote"
    assert github.repository.text("show", "gh-pages:index.html") == front
    assert "teal " in github.repository.text("show", "gh-pages:archive/2025/01/index.html")


def test_a_pushed_month_template_rewrites_a_crowded_months_every_part_page(
    repo: Repo, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On the Pages branch too, a month page's template edit rewrites the month's page and the
    page of each of its older parts (in parts of at most 8 rows), and nothing else."""
    monkeypatch.setattr(parts_module, "PART_ROWS", 8)
    monkeypatch.setattr(parts_module, "PART_KEEP", 6)
    crowded = {f"content/c{n:02d}.md": article(f"C{n}", date=f"2025-03-{1 + n % 28:02d}")
               for n in range(30)}  # fmt: skip
    before, after = _month_template_edited(repo, crowded)
    head = github.repository.text("rev-parse", "gh-pages").strip()
    assert gh(repo, "drain", "--push", before, after).code == 0
    changed = github.repository.text("diff", "--name-only", head, "gh-pages").split()
    files = github.repository.text("ls-tree", "-r", "--name-only", "gh-pages").split()
    parts = [path for path in files if re.fullmatch(r"archive/2025/03/p\d+/index\.html", path)]
    assert len(parts) >= 2
    assert changed == sorted([STYLED, "archive/2025/03/index.html", *parts])
    for path in set(changed) - {STYLED}:
        assert "teal " in github.repository.text("show", f"gh-pages:{path}")


def test_a_deleted_pages_branch_is_published_again_whole_by_the_next_sweep(
    repo: Repo, github: FakeGitHub
) -> None:
    """Whether the Pages branch holds the site's index is asked with the sweep's one read of the
    state: a branch deleted (a site reset by hand) is published again whole, and an idle sweep
    still costs that one request."""
    repo.commit(**{f"content/p{n}.md": article(f"P{n}", tags="[news]") for n in range(5)})
    assert "5 published" in gh(repo, "sweep").out
    before = pages(github)
    github.repository.text("update-ref", "-d", "refs/heads/gh-pages")
    result = gh(repo, "sweep")
    assert "5 published" in result.out and "holds no index" in result.err, result.out + result.err
    assert pages(github) == before
    with github.counting() as calls:
        assert "0 published" in gh(repo, "sweep").out
    assert calls == {"graphql LoadBranch": 1}


def test_a_run_of_an_older_theme_leaves_the_pages_branch_to_a_newer_ones(
    repo: Repo, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Each push has its run, and they overlap: the run of an article's push, overtaken between
    its claim and its write by the run of a stylesheet edit pushed after it, commits nothing
    to the Pages branch (the older stylesheet would be back for good) and lets its article go;
    the next sweep publishes it beside the newer stylesheet."""
    config = f"targets:\n  site: {{kind: site, theme: theme}}\n{FAST}"
    before = repo.commit(**{
        "content/a.md": article("A"), "steadypress.yml": config, "theme/style.css": "/* first */",
    })  # fmt: skip
    assert "1 published" in gh(repo, "sweep").out
    older = repo.commit(**{"content/new.md": article("New")})
    real = SiteTarget.publish_batch
    raced: list[str] = []  # the newer commit, once made

    def overtaken(self: SiteTarget, work: Any, **options: Any) -> Any:
        if not raced:
            raced.append(repo.commit(**{"theme/style.css": "/* second */"}))
            newer = gh(repo, "drain", "--push", older, raced[0])
            assert newer.code == 0 and "0 published" in newer.out, newer.out + newer.err
        return real(self, work, **options)

    monkeypatch.setattr(SiteTarget, "publish_batch", overtaken)
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = gh(repo, "drain", "--push", before, older, "--ref", older)
    assert raced and result.code == 0 and "0 published" in result.out, result.out + result.err
    left = "| `site:content/new.md` | left to a newer run | content/new.md: the site was written"
    assert left in summary.read_text()
    assert "left to a newer run: site:content/new.md" in result.err
    assert github.repository.text("show", "gh-pages:style.css").strip() == "/* second */"
    assert "new/index.html" not in pages(github)
    (item,) = remote(github).pending.values()
    assert item.lease is None and item.attempts == 0

    monkeypatch.setattr(SiteTarget, "publish_batch", real)
    assert "1 published" in gh(repo, "sweep").out
    assert "new/index.html" in pages(github)
    assert github.repository.text("show", "gh-pages:style.css").strip() == "/* second */"


def _feed_texts(github: FakeGitHub) -> dict[str, str]:
    """The feed on the Pages branch: each entry's whole text by its title, newest first."""
    feed = feedparser.parse(github.repository.git("show", "gh-pages:feed.xml"))
    return {entry.title: entry.content[0].value for entry in feed.entries}


def _pushed(repo: Repo, github: FakeGitHub, before: str, **files: str) -> int:
    """Commit `files` and run the push's drain on GitHub: how many times it read the feed."""
    after = repo.commit(**files)
    read = github.texts_read["feed.xml"]
    result = gh(repo, "drain", "--push", before, after)
    assert result.code == 0, result.out + result.err
    return github.texts_read["feed.xml"] - read


@pytest.fixture
def whole_feed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A feed with the whole text of each of its 20 articles (it carries 10 by default): how a
    publish keeps the texts it does not render itself is seen on each of them."""
    monkeypatch.setattr(feeds, "FEED_TEXTS", feeds.FEED_ENTRIES)


def _twenty_two(repo: Repo, github: FakeGitHub) -> str:
    """A blog of 22 articles with text of their own, published on GitHub: the commit."""
    commit = repo.commit(**{
        f"content/p{n:02d}.md": article(f"P{n}", f"Text **{n}**.", date=f"2025-01-{n + 1:02d}")
        for n in range(22)
    })  # fmt: skip
    assert "22 published" in gh(repo, "sweep").out
    return commit


@pytest.mark.usefixtures("whole_feed")
def test_a_pushed_article_renders_the_feeds_others_again_instead_of_reading_it_back(
    repo: Repo, github: FakeGitHub
) -> None:
    """The feed shows its 20 articles' whole text, which a push needs for the 19 it keeps: it
    renders them again from the content (the summary keeps a digest of each text), and reads
    none of the feed back, in the same four requests."""
    before = _twenty_two(repo, github)
    texts = _feed_texts(github)
    assert texts["P21"] == "<p>Text <strong>21</strong>.</p>" and len(texts) == 20
    new = {"content/new.md": article("New", "A *new* one.", date="2025-02-01")}
    with github.counting() as calls:
        assert _pushed(repo, github, before, **new) == 0
    assert calls == {"graphql LoadBranch": 1, "graphql CreateCommit": 3}, calls
    assert _feed_texts(github) == {"New": "<p>A <em>new</em> one.</p>", **dict(
        list(texts.items())[:19]
    )}  # fmt: skip


def test_a_pushed_article_s_feed_carries_ten_whole_texts_and_reads_none_back(
    repo: Repo, github: FakeGitHub
) -> None:
    """The feed as it is by default: 20 entries, the 10 newest with their whole text; a push
    renders what it needs again from the content, reading nothing of the feed."""
    before = _twenty_two(repo, github)
    new = {"content/new.md": article("New", "A *new* one.", date="2025-02-01")}
    assert _pushed(repo, github, before, **new) == 0
    feed = feedparser.parse(github.repository.git("show", "gh-pages:feed.xml"))
    assert len(feed.entries) == 20
    assert [e.title for e in feed.entries if "content" in e] == ["New"] + [
        f"P{n}" for n in range(21, 12, -1)
    ]


@pytest.mark.usefixtures("whole_feed")
def test_a_summary_without_the_feeds_digests_reads_the_feed_once(
    repo: Repo, github: FakeGitHub
) -> None:
    """A site written before the summary kept the digests of the feed's texts: the next push
    reads them from the feed, as before, and records their digests, so that the push after it
    reads the feed no more; every text is kept."""
    before = _twenty_two(repo, github)
    newest = json.loads(github.repository.git("show", "gh-pages:.steadypress/newest.json"))
    for _path, row in newest["newest"]:
        del row["body"]
    written = {".steadypress/newest.json": json.dumps(newest).encode()}
    assert github.repository.edit("gh-pages", written, "older")
    texts = _feed_texts(github)
    pushed = {"content/new.md": article("New", "New.", date="2025-02-01")}
    assert _pushed(repo, github, before, **pushed) == 1
    assert _pushed(repo, github, repo.head(), **{
        "content/newer.md": article("Newer", "Newer.", date="2025-02-02")
    }) == 0  # fmt: skip
    assert list(_feed_texts(github).items())[2:] == list(texts.items())[:18]


@pytest.mark.usefixtures("whole_feed")
def test_the_feeds_digests_are_64_bits_and_128_written_before_still_spare_reading_it(
    repo: Repo, github: FakeGitHub
) -> None:
    """`newest.json` keeps 64 bits of the digest of each text the feed shows (20 of them, in
    the file nearly every push reads and rewrites); one written with 128 bits each, as
    before, is read as their first 64: the next push reads nothing of the feed."""
    before = _twenty_two(repo, github)
    newest = json.loads(github.repository.git("show", "gh-pages:.steadypress/newest.json"))
    bodies = [row["body"] for _path, row in newest["newest"]]
    assert len(bodies) == 20 and all(re.fullmatch("[0-9a-f]{16}", body) for body in bodies)
    for _path, row in newest["newest"]:
        row["body"] += "0123456789abcdef"  # what 128 bits held beyond the first 64
    written = {".steadypress/newest.json": json.dumps(newest).encode()}
    assert github.repository.edit("gh-pages", written, "older")
    texts = _feed_texts(github)
    pushed = {"content/new.md": article("New", "New.", date="2025-02-01")}
    assert _pushed(repo, github, before, **pushed) == 0
    assert list(_feed_texts(github).items())[1:] == list(texts.items())[:19]


@pytest.mark.usefixtures("whole_feed")
def test_an_edit_that_cannot_be_published_leaves_the_feed_its_published_text(
    repo: Repo, github: FakeGitHub
) -> None:
    """One of the feed's articles edited to show an image that is not there (its publish dies)
    in the push of a new one: the content no longer renders the text the feed shows, which is
    read from the feed instead and kept."""
    before = _twenty_two(repo, github)
    texts = _feed_texts(github)
    edit = {"content/p21.md": article("P21", "Now ![a](gone.png).", date="2025-01-22")}
    new = {"content/new.md": article("New", "New.", date="2025-02-01")}
    assert _pushed(repo, github, before, **edit, **new) == 1
    assert _feed_texts(github) == {"New": "<p>New.</p>", **dict(list(texts.items())[:19])}


@pytest.mark.usefixtures("whole_feed")
def test_a_removal_from_the_feed_brings_in_the_next_article_with_its_text(
    repo: Repo, github: FakeGitHub
) -> None:
    """No row of the index keeps the summary of the text (only the feed shows it, made from
    the text): the article that comes into the feed from its month when a newer one is
    removed is rendered from the content, its text and summary both there, and the feed is
    not read: its other articles are rendered again too, each with its summary."""
    before = _twenty_two(repo, github)
    month = json.loads(github.repository.git("show", "gh-pages:.steadypress/months/2025-01.json"))
    newest = json.loads(github.repository.git("show", "gh-pages:.steadypress/newest.json"))
    assert not any("summary" in row for row in month["articles"].values())
    assert not any("summary" in row for _path, row in newest["newest"])
    repo.git("rm", "-q", "content/p21.md")
    assert _pushed(repo, github, before) == 0, "the feed is not read"
    feed = feedparser.parse(github.repository.git("show", "gh-pages:feed.xml"))
    assert [entry.title for entry in feed.entries] == [f"P{n}" for n in range(20, 0, -1)]
    assert feed.entries[-1].content[0].value == "<p>Text <strong>1</strong>.</p>"
    assert [entry.summary for entry in feed.entries] == [f"Text {n} ." for n in range(20, 0, -1)]


def test_an_article_coming_into_the_feed_is_shown_as_published_not_as_pending(
    repo: Repo, github: FakeGitHub
) -> None:
    """The article that comes into the feed from its month when a newer one is removed is
    rendered from the content; where that is not the version its page shows (an edit in the
    same push that cannot be published: its new URL is taken), the feed shows neither the
    edit's text nor its summary, only its title and link, as its page shows it."""
    before = _twenty_two(repo, github)
    repo.git("rm", "-q", "content/p21.md")
    taken = article("P1", "Not published.", date="2025-01-02", slug="p05")
    result = gh(repo, "drain", "--push", before, repo.commit(**{"content/p01.md": taken}))
    assert "1 dead-lettered" in result.out, result.out + result.err
    feed = feedparser.parse(github.repository.git("show", "gh-pages:feed.xml"))
    assert [entry.title for entry in feed.entries] == [f"P{n}" for n in range(20, 0, -1)]
    assert feed.entries[-1].link == "https://octo.github.io/blog/p01/"
    assert "content" not in feed.entries[-1] and "Not published" not in str(feed.entries[-1])
    assert "Not published" not in _page(github, "p01")


def _page(github: FakeGitHub, slug: str) -> str:
    return github.repository.text("show", f"gh-pages:{slug}/index.html")


def _article_pages(github: FakeGitHub) -> dict[str, str]:
    """Every article's page on the Pages branch, by its path there."""
    names = github.repository.text("ls-tree", "-r", "--name-only", "gh-pages").split()
    return {name: github.repository.text("show", f"gh-pages:{name}") for name in names
            if re.fullmatch(r"p\d+/index\.html|back/index\.html", name)}  # fmt: skip


def test_a_back_dated_article_inside_a_crowded_month_costs_four_requests_and_reads_no_page(
    repo: Repo, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An article dated inside a crowded month (parts of at most 8 rows here) lands in one of
    its older parts, beside articles known only once that part is read. Their pages, whose
    links to it change, are rendered again from the content (a month's row keeps its page's
    digest) instead of read: that read would come after the two the state's requests carry.
    The push costs the four requests of one at the end of the blog, and leaves the pages a
    whole build makes."""
    monkeypatch.setattr(parts_module, "PART_ROWS", 8)
    monkeypatch.setattr(parts_module, "PART_KEEP", 6)
    before = repo.commit(**{
        f"content/p{n:02d}.md": article(f"P{n}", f"Text {n}.", date=f"2025-01-{1 + n // 2:02d}")
        for n in range(40)
    })  # fmt: skip
    assert "40 published" in gh(repo, "sweep").out
    after = repo.commit(**{"content/back.md": article("Back", "Late.", date="2025-01-05")})
    read = github.texts_read.copy()
    with github.counting() as calls:
        result = gh(repo, "drain", "--push", before, after)
    assert result.code == 0 and "1 published" in result.out, result.out + result.err
    assert calls == {"graphql LoadBranch": 1, "graphql CreateCommit": 3}, calls
    assert not [path for path in github.texts_read - read if re.fullmatch(r"p\d+/.*", path)]
    # Dated the 5th like p08 and p09, and before them by its slug: between p07 and p08.
    assert "<span>Newer</span> Back" in _page(github, "p07")
    assert "<span>Older</span> Back" in _page(github, "p08")
    pushed = _article_pages(github)
    github.repository.text("update-ref", "-d", "refs/heads/gh-pages")
    assert "41 published" in gh(repo, "sweep").out
    assert _article_pages(github) == pushed


def test_an_edit_that_keeps_an_articles_title_and_date_leaves_its_neighbours_pages_alone(
    repo: Repo, github: FakeGitHub
) -> None:
    """The pages beside an article link to it by its title, in date order: an edit of its text
    alone changes neither, so its push neither reads nor writes their pages."""
    before = repo.commit(**{
        f"content/p{n}.md": article(f"P{n}", date=f"2025-01-0{n}") for n in (1, 2, 3)
    })  # fmt: skip
    assert "3 published" in gh(repo, "sweep").out
    head = github.repository.text("rev-parse", "gh-pages").strip()
    read = github.texts_read.copy()
    after = repo.commit(**{"content/p2.md": article("P2", "Other words.", date="2025-01-02")})
    assert "1 published" in gh(repo, "drain", "--push", before, after).out
    changed = github.repository.text("diff", "--name-only", head, "gh-pages").split()
    assert "p2/index.html" in changed
    assert not {"p1/index.html", "p3/index.html"} & {*changed, *(github.texts_read - read)}


def test_a_neighbour_whose_page_the_content_no_longer_makes_is_read_and_relinked(
    repo: Repo, github: FakeGitHub
) -> None:
    """Where rendering a neighbour again does not give the page its month's row records, its
    page is read, as before, and only its links change: a row written before rows kept the
    digest (which it keeps from then on, its month's file being written anyway), and a
    neighbour edited since in a way that cannot be published (an image gone), whose page
    keeps its published text."""
    before = repo.commit(**{
        f"content/p{n}.md": article(f"P{n}", f"Text {n}.", date=f"2025-01-0{n}") for n in (1, 2)
    })  # fmt: skip
    assert "2 published" in gh(repo, "sweep").out
    month_file = ".steadypress/months/2025-01.json"
    month = json.loads(github.repository.git("show", f"gh-pages:{month_file}"))
    digests = {path: row.pop("page") for path, row in month["articles"].items()}
    assert github.repository.edit("gh-pages", {month_file: json.dumps(month).encode()}, "older")
    read = github.texts_read["p2/index.html"]
    after = repo.commit(**{"content/p3.md": article("P3", date="2025-01-03")})
    assert "1 published" in gh(repo, "drain", "--push", before, after).out
    assert github.texts_read["p2/index.html"] == read + 1
    assert "<span>Newer</span> P3" in _page(github, "p2")
    rows = json.loads(github.repository.git("show", f"gh-pages:{month_file}"))["articles"]
    assert rows["content/p2.md"]["page"] == digests["content/p2.md"]
    assert "page" not in rows["content/p1.md"]  # its page was not read

    read = github.texts_read["p3/index.html"]
    pushed = repo.commit(**{
        "content/p3.md": article("P3", "Now ![a](gone.png).", date="2025-01-03"),
        "content/p4.md": article("P4", date="2025-01-04"),
    })  # fmt: skip
    result = gh(repo, "drain", "--push", after, pushed)
    assert "1 published, 0 deferred, 1 dead-lettered" in result.out, result.out + result.err
    assert github.texts_read["p3/index.html"] == read + 1
    page = _page(github, "p3")
    assert "<span>Newer</span> P4" in page and "Some words." in page and "gone.png" not in page


def test_a_project_site_links_everything_under_its_path_by_default(
    repo: Repo, github: FakeGitHub
) -> None:
    """octo/blog is served at https://octo.github.io/blog/: with no `url` or `base_url` set,
    every link of every page on the Pages branch, and its stylesheet, is under /blog/ (they
    pointed at the owner's domain root, a site with no style and dead links)."""
    repo.commit(**{"content/a.md": article("A", tags="[news]"), "content/b.md": article("B")})
    assert gh(repo, "run").code == 0
    html = [name for name in pages(github) if name.endswith(".html")]
    assert "index.html" in html and "a/index.html" in html
    for name in html:
        page = github.repository.text("show", f"gh-pages:{name}")
        links = re.findall(r'(?:href|src)="(/[^"]*)"', page)
        assert links, name
        outside = [link for link in links if not link.startswith("/blog/")]
        assert not outside, (name, outside)
    assert '<link rel="stylesheet" href="/blog/style.css' in github.repository.text(
        "show", "gh-pages:index.html"
    )


@pytest.mark.parametrize("named_by", ["setting", "committed file"])
def test_a_custom_domain_is_the_site_s_address_and_its_root(
    repo: Repo, github: FakeGitHub, named_by: str
) -> None:
    """`cname: blog.example.org` with no `url`, or a `CNAME` file committed at the repository's
    root (where GitHub Pages reads it when it builds a Jekyll blog): the feed, the sitemaps and
    the records name that host, links start at its root (a project site's /blog/ would be dead
    there), and the site holds the CNAME GitHub Pages reads."""
    if named_by == "setting":
        files = {"steadypress.yml": "targets:\n  site: {kind: site, cname: blog.example.org}\n"}
    else:
        files = {"CNAME": "Blog.Example.org\n"}
    repo.commit(**files, **{"content/a.md": article("A")})
    assert gh(repo, "run").code == 0
    assert remote(github).published["site:content/a.md"].url == "https://blog.example.org/a/"
    feed = github.repository.text("show", "gh-pages:feed.xml")
    assert "https://blog.example.org/a/" in feed and "github.io" not in feed
    sitemaps = [n for n in pages(github) if n.startswith("sitemap")]
    assert all("github.io" not in github.repository.text("show", f"gh-pages:{n}") for n in sitemaps)
    page = github.repository.text("show", "gh-pages:a/index.html")
    assert '<link rel="stylesheet" href="/style.css' in page and 'href="/blog/' not in page
    assert github.repository.text("show", "gh-pages:CNAME") == "blog.example.org"
