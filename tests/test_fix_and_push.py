"""Fixing the cause is enough: a dead item records what it depended on, and the next run that
sees one of those change retries it by itself and closes its letter. Letters come one per
article, and one summary for many articles dead of one cause."""

from __future__ import annotations

import pytest

from steadypress.alerts.lifecycle import SUMMARY_AT
from steadypress.ledger import ABSENT
from tests.helpers import Repo, article, run_cli

IMAGE = b"\x89PNG\r\n\x1a\n a picture"
LETTERS = ".steadypress/dead-letters"


def letters(repo: Repo) -> dict[str, str]:
    return {path.name: path.read_text() for path in sorted((repo.root / LETTERS).glob("*.md"))}


def test_committing_only_the_missing_image_publishes_the_article_with_no_retry(
    repo: Repo,
) -> None:
    """Dead for images/x.png; a commit that adds only the image (the article untouched): the
    next `run` retries it by itself, publishes it and closes the letter with the URL."""
    repo.commit(**{"content/post.md": "---\ntitle: P\n---\n\n![x](images/x.png)\n"})
    assert run_cli(repo, "run").code == 0
    dead = repo.ledger().dead["site:content/post.md"]
    assert dict(dead.depends)["content/images/x.png"] == ABSENT
    assert {"content/post.md", "steadypress.yml"} <= dict(dead.depends).keys()
    repo.write("content/images/x.png", IMAGE)
    repo.commit("add the image")
    result = run_cli(repo, "run")
    assert result.code == 0, result.err
    assert "retrying site:content/post.md: content/images/x.png changed" in result.err
    assert "site:content/post.md" in repo.ledger().published and not repo.ledger().dead
    (letter,) = letters(repo).values()
    assert letter.startswith("Status: resolved\n\n`site:content/post.md` was published at http")


def test_a_sweep_revives_an_article_whose_image_came_in_a_commit_changing_no_article(
    repo: Repo,
) -> None:
    """The image's push run was missed: the sweep's reconcile, finding no article in the diff
    from its marker, still retries what died for the image, and records the new commit."""
    repo.commit(
        **{"content/other.md": article("Other"),
           "content/post.md": "---\ntitle: P\n---\n\n![x](images/x.png)\n"}
    )  # fmt: skip
    assert run_cli(repo, "run").code == 0
    assert "site:content/post.md" in repo.ledger().dead
    repo.write("content/images/x.png", IMAGE)
    fixed = repo.commit("add the image")
    result = run_cli(repo, "sweep")
    assert result.code == 0, result.err
    assert "retrying site:content/post.md: content/images/x.png changed" in result.err
    ledger = repo.ledger()
    assert "site:content/post.md" in ledger.published and not ledger.dead
    assert ledger.reconciled is not None and ledger.reconciled.commit == fixed


def test_a_dead_item_whose_dependencies_did_not_change_stays_dead(repo: Repo) -> None:
    """Another article's commit changes nothing it depended on: no retry, no state commit."""
    repo.commit(**{"content/post.md": "---\ntitle: P\n---\n\n![x](images/x.png)\n"})
    run_cli(repo, "run")
    repo.commit(**{"content/other.md": article("Other")})
    result = run_cli(repo, "run")
    assert "retrying" not in result.err
    assert "site:content/post.md" in repo.ledger().dead
    assert "site:content/other.md" in repo.ledger().published


def test_a_broken_theme_makes_one_summary_letter_and_fixing_it_publishes_them_all(
    repo: Repo,
) -> None:
    """A theme template with a misspelt variable kills every article: one summary letter for
    them all, not one each; the theme is fixed in a commit: the next run publishes every one
    and closes the summary."""
    count = 2 * SUMMARY_AT + 2
    broken = "{% extends 'base.html' %}{% block main %}{{ article.titel }}{% endblock %}\n"
    fixed = "{% extends 'base.html' %}{% block main %}{{ article.title }}{% endblock %}\n"
    config = "targets:\n  site: {kind: site, theme: theme}\n"
    repo.commit(
        **{"steadypress.yml": config, "theme/article.html": broken},
        **{f"content/{n:02}.md": article(f"Article {n}") for n in range(count)},
    )
    result = run_cli(repo, "run")
    assert result.code == 0, result.err
    assert len(repo.ledger().dead) == count
    (summary,) = letters(repo).values()
    assert f"# Dead letters: {count} articles failed: theme template theme/article.html" in summary
    assert all(f"`content/{n:02}.md`" in summary for n in range(count))
    assert {item.alert for item in repo.ledger().dead.values()} == {1}
    repo.commit(**{"theme/article.html": fixed})
    result = run_cli(repo, "run")
    assert result.code == 0, result.err
    assert not repo.ledger().dead and len(repo.ledger().published) == count
    (summary,) = letters(repo).values()
    assert summary.startswith("Status: resolved")


@pytest.mark.parametrize("together", [True, False], ids=["same-run", "later-run"])
def test_an_article_failing_on_two_targets_has_one_letter_naming_both(
    repo: Repo, monkeypatch: pytest.MonkeyPatch, together: bool
) -> None:
    """A missing image kills the site; the webhook refuses (nothing listens): one letter for
    the article, naming both targets and each error."""
    monkeypatch.setenv("WEBHOOK_SECRET", "a secret for the hook")
    hook = "  hook: {kind: webhook, url: 'http://127.0.0.1:9/'}\n"
    site_only = "max_attempts: 1\ntargets:\n  site: {kind: site}\n"
    post = "---\ntitle: P\n---\n\n![x](images/x.png)\n"
    repo.commit(
        **{"steadypress.yml": site_only + (hook if together else ""), "content/post.md": post}
    )
    run_cli(repo, "run")
    if not together:
        repo.commit(**{"steadypress.yml": site_only + hook})
        run_cli(repo, "run")
    assert set(repo.ledger().dead) == {"site:content/post.md", "hook:content/post.md"}
    (letter,) = letters(repo).values()
    assert "# Dead letter: content/post.md on hook, site" in letter
    assert "## Target `hook`" in letter and "## Target `site`" in letter
    assert "images/x.png" in letter and "webhook not reached" in letter


def test_a_new_configuration_retries_what_died_under_the_old_one(repo: Repo) -> None:
    """An article names a target that is not configured (dead); the target is added to
    steadypress.yml: that commit alone retries it."""
    repo.commit(**{"content/a.md": article("A", targets=["site", "blog"])})
    run_cli(repo, "run")
    assert "site:content/a.md" in repo.ledger().dead
    repo.commit(
        **{"steadypress.yml": "targets:\n  site: {kind: site}\n  blog: {kind: site, dir: _blog}\n"}
    )
    result = run_cli(repo, "run")
    assert result.code == 0, result.err
    assert "retrying site:content/a.md: steadypress.yml changed" in result.err
    assert {"site:content/a.md", "blog:content/a.md"} <= repo.ledger().published.keys()
