"""Unpublishing through the CLI: an article removed from content/, or made a draft, leaves every
target that supports it; `unpublish: false` keeps it; an article that comes back returns to its
old place."""

import pytest

from steadypress.ledger import ABSENT
from tests.fakes.devto import FakeForem
from tests.fakes.webhook import WebhookReceiver
from tests.helpers import Repo, article, local_site_articles, run_cli

FAST = "timings: {grace: 0s, backoff_initial: 0s, backoff_max: 0s}\n"
SECRET = "s3cret-for-tests"


def index(repo: Repo) -> str:
    return (repo.root / "_site/index.html").read_text()


def manifest(repo: Repo) -> set[str]:
    return set(local_site_articles(repo.root / "_site"))


def test_a_pushed_removal_takes_the_page_and_its_index_entry_off_the_site(repo: Repo) -> None:
    before = repo.commit(
        **{"steadypress.yml": FAST, "content/a.md": article("Alpha"),
           "content/b.md": article("Beta")}
    )  # fmt: skip
    assert run_cli(repo, "run").code == 0
    assert (repo.root / "_site/a/index.html").exists() and "Alpha" in index(repo)
    repo.git("rm", "-q", "content/a.md")
    after = repo.commit("remove a")
    result = run_cli(repo, "drain", "--push", before, after)
    assert result.code == 0, result.err
    assert "1 unpublished" in result.out
    assert not (repo.root / "_site/a").exists()
    assert "Alpha" not in index(repo) and "Beta" in index(repo)
    assert manifest(repo) == {"content/b.md"}
    record = repo.ledger().published["site:content/a.md"]
    assert record.unpublished and record.url is None
    assert not repo.ledger().pending
    status = run_cli(repo, "status").out
    assert "published: 1 (and 1 unpublished)" in status
    commits = repo.state_commits()
    assert run_cli(repo, "sweep").code == 0 and repo.state_commits() == commits, "done is done"


def test_an_article_made_a_draft_is_unpublished_by_the_sweep_and_comes_back_when_ready(
    repo: Repo,
) -> None:
    """No push event needed: the sweep sees the draft at the head, and later its return."""
    repo.commit(**{"steadypress.yml": FAST, "content/a.md": article("Alpha")})
    run_cli(repo, "run")
    repo.commit(**{"content/a.md": article("Alpha", draft="true")})
    assert run_cli(repo, "sweep").code == 0
    assert not (repo.root / "_site/a").exists() and "Alpha" not in index(repo)
    repo.commit(**{"content/a.md": article("Alpha again")})
    assert run_cli(repo, "sweep").code == 0
    assert "Alpha again" in (repo.root / "_site/a/index.html").read_text()
    assert not repo.ledger().published["site:content/a.md"].unpublished


def test_unpublish_false_keeps_what_was_published(repo: Repo) -> None:
    config = FAST + "targets:\n  site: {kind: site, unpublish: false}\n"
    repo.commit(**{"steadypress.yml": config, "content/a.md": article("Alpha")})
    run_cli(repo, "run")
    repo.git("rm", "-q", "content/a.md")
    repo.commit("remove a")
    assert run_cli(repo, "sweep").code == 0
    assert (repo.root / "_site/a/index.html").exists() and "Alpha" in index(repo)
    assert not repo.ledger().published["site:content/a.md"].unpublished
    assert not repo.ledger().pending


def test_unpublish_must_be_true_or_false(repo: Repo) -> None:
    repo.commit(**{"steadypress.yml": "targets:\n  site: {kind: site, unpublish: sometimes}\n"})
    result = run_cli(repo, "run")
    assert result.code == 2 and "targets.site.unpublish" in result.err


def test_removing_a_dead_article_closes_its_dead_letter(repo: Repo) -> None:
    """The letter was about a version nobody wants any more."""
    repo.commit(**{"steadypress.yml": FAST, "content/a.md": "---\ntitle: [unclosed\n---\n"})
    run_cli(repo, "run")
    assert "site:content/a.md" in repo.ledger().dead
    repo.git("rm", "-q", "content/a.md")
    repo.commit("remove a")
    assert run_cli(repo, "sweep").code == 0
    (letter,) = (repo.root / ".steadypress/dead-letters").glob("*.md")
    assert letter.read_text().startswith("Status: resolved\n\n`site:content/a.md` was unpublished")
    assert not repo.ledger().dead and not repo.ledger().pending


def devto_config(forem: FakeForem) -> str:
    return FAST + f"targets:\n  devto: {{kind: devto, api_url: '{forem.api_url}', window: 2s}}\n"


def test_devto_hides_a_removed_article_and_republishes_the_same_post(
    repo: Repo, forem: FakeForem
) -> None:
    """dev.to deletes nothing through its API: the post becomes `published: false`, and when the
    article comes back the same post is published again. One create, ever."""
    repo.commit(**{"steadypress.yml": devto_config(forem), "content/a.md": article("Alpha")})
    run_cli(repo, "run")
    repo.git("rm", "-q", "content/a.md")
    repo.commit("remove a")
    assert run_cli(repo, "sweep").code == 0
    assert forem.posts[1]["published"] is False and forem.posts[1]["title"] == "Alpha"
    assert repo.ledger().published["devto:content/a.md"].id == "1"
    repo.commit(**{"content/a.md": article("Alpha returns")})
    assert run_cli(repo, "sweep").code == 0
    assert forem.posts[1]["published"] is True and forem.posts[1]["title"] == "Alpha returns"
    assert forem.creates == {"content/a.md": 1} and len(forem.posts) == 1


def test_devto_hides_a_post_whose_create_answer_was_lost(repo: Repo, forem: FakeForem) -> None:
    """The ledger never learned the post's id; the unpublish finds the post by its marker."""
    repo.commit(**{"steadypress.yml": devto_config(forem), "content/a.md": article("Alpha")})
    forem.drop_after_create = 1
    assert run_cli(repo, "run").code == 1
    repo.git("rm", "-q", "content/a.md")
    repo.commit("remove a")
    assert run_cli(repo, "sweep").code == 0
    assert forem.posts[1]["published"] is False and forem.creates == {"content/a.md": 1}
    assert repo.ledger().pending == {}


def test_a_webhook_receives_one_signed_unpublish_notice(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WEBHOOK_SECRET", SECRET)
    with WebhookReceiver(SECRET) as receiver:
        config = FAST + f"targets:\n  hook: {{kind: webhook, url: '{receiver.url}'}}\n"
        repo.commit(**{"steadypress.yml": config, "content/a.md": article("Alpha")})
        blob = repo.blob("content/a.md")
        run_cli(repo, "run")
        repo.git("rm", "-q", "content/a.md")
        repo.commit("remove a")
        assert run_cli(repo, "sweep").code == 0
        assert run_cli(repo, "sweep").code == 0
        notice = receiver.deliveries[f"hook:content/a.md:unpublish:{blob}"]["document"]
        assert notice["event"] == "unpublish" and notice["path"] == "content/a.md"
        assert notice["previous"]["blob"] == blob and notice["previous"]["url"]
        assert receiver.requests == 2 and receiver.bad_signatures == 0
        assert repo.ledger().published["hook:content/a.md"].blob == ABSENT
