"""The operator's loop through the real CLI: fix it, commit it, retry it; and a command line
that says what is wrong in words a person can act on."""

from __future__ import annotations

import argparse
import contextlib
import io
import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest

from steadypress.commandline import build_parser
from tests.fakes.clock import ManualClock
from tests.helpers import Repo, article, run_cli

IMAGE = b"\x89PNG\r\n\x1a\n a picture"


def test_committing_the_missing_image_is_what_the_retry_needs(repo: Repo) -> None:
    """Dead for a missing image; the image is committed (the article unchanged): the retry
    publishes it, reading the image where it now is, not where the article was first seen."""
    repo.commit(**{"content/post.md": "---\ntitle: P\n---\n\n![x](images/x.png)\n"})
    assert run_cli(repo, "run").code == 0
    assert "images/x.png" in repo.ledger().dead["site:content/post.md"].last_error
    repo.write("content/images/x.png", IMAGE)
    repo.commit()
    result = run_cli(repo, "retry", "content/post.md")
    assert result.code == 0, result.err
    assert "site:content/post.md" in repo.ledger().published
    letter = next((repo.root / ".steadypress/dead-letters").glob("*.md")).read_text()
    assert letter.startswith("Status: resolved")


def test_a_retry_with_the_fix_not_committed_says_so_and_changes_nothing(repo: Repo) -> None:
    repo.commit(**{"content/post.md": "---\ntitle: P\n---\n\n![x](images/x.png)\n"})
    run_cli(repo, "run")
    head = repo.state_head()
    repo.write("content/images/x.png", IMAGE)  # the fix, not committed
    result = run_cli(repo, "retry", "content/post.md")
    assert result.code == 2
    assert "not committed (content/images/x.png)" in result.err
    assert "commit the fix first" in result.err
    assert repo.state_head() == head, "no state commit"


def test_a_retry_of_an_article_with_nothing_to_retry_names_it(repo: Repo) -> None:
    repo.commit(**{"content/a.md": article("A")})
    run_cli(repo, "run")
    for path in ("content/a.md", "content/does-not-exist.md"):
        result = run_cli(repo, "retry", path)
        assert result.code == 2 and f"{path}: nothing to retry" in result.err
        assert "configuration error" not in result.err


def test_a_retry_of_a_scheduled_article_says_when_it_publishes(repo: Repo) -> None:
    clock = ManualClock(datetime(2030, 1, 1, tzinfo=UTC))
    due = clock.now() + timedelta(days=2)
    repo.commit(**{"content/later.md": article("Later", publish_at=f"'{due.isoformat()}'")})
    run_cli(repo, "run", clock=clock)
    result = run_cli(repo, "retry", "content/later.md", clock=clock)
    assert result.code == 0
    assert "is scheduled: it publishes at 2030-01-03T00:00:00Z" in result.err


def test_a_subfolder_of_the_repository_works_like_its_root(repo: Repo) -> None:
    """`cd content && steadypress run`: the site goes to the repository's _site/, as always."""
    repo.commit(**{"content/a.md": article("A")})
    result = run_cli(repo, "run", "--repo", str(repo.root / "content"))
    assert result.code == 0, result.err
    assert (repo.root / "_site/a/index.html").exists()
    assert not (repo.root / "content/_site").exists()


def test_plain_steadypress_prints_the_help_with_the_exit_codes() -> None:
    completed = subprocess.run([sys.executable, "-m", "steadypress"], capture_output=True,
                               text=True, check=False)  # fmt: skip
    assert completed.returncode == 2
    assert "retry" in completed.stdout and "exit codes:" in completed.stdout


def test_the_parser_built_for_one_command_reads_and_explains_it_as_the_whole_one() -> None:
    """`steadypress status` builds the parser of `status` alone: for every command, the same
    namespace from the same words, the same help and the same refusal of a wrong option as
    the parser of every command gives; `--help` and a mistyped command get them all."""
    whole = build_parser()
    assert len(subcommands(whole)) == 10
    for name, explained in subcommands(whole).items():
        alone = build_parser([name])
        assert list(subcommands(alone)) == [name]
        assert subcommands(alone)[name].format_help() == explained.format_help(), name
        words = [name, "--repo", "x"] if name != "init" else [name, "--action", "./"]
        words += ["--all-dead"] if name == "retry" else []
        assert alone.parse_args(words) == whole.parse_args(words), name
        for parser in (alone, whole):
            with pytest.raises(SystemExit) as refused, contextlib.redirect_stderr(io.StringIO()):
                parser.parse_args([name, "--no-such-option"])
            assert refused.value.code == 2
    assert build_parser(["--help"]).format_help() == whole.format_help()
    assert build_parser(["statsu"]).format_help() == whole.format_help()


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(commands.choices)


def test_a_closed_stdout_ends_quietly(repo: Repo) -> None:
    """`steadypress status --json | head -c 10`: no BrokenPipeError traceback."""
    repo.commit(**{"content/a.md": article("A")})
    run_cli(repo, "run")
    process = subprocess.Popen(
        [sys.executable, "-m", "steadypress", "status", "--json", "--repo", str(repo.root)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert process.stdout is not None and process.stderr is not None
    process.stdout.read(10)
    process.stdout.close()
    errors = process.stderr.read().decode()
    assert process.wait() == 0 and "Traceback" not in errors, errors


def test_letters_of_a_target_removed_from_the_configuration_are_closed_as_withdrawn(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hook target refuses the article (dead, one letter); the hook is then removed from
    steadypress.yml: the next sweep forgets the item and closes its letter, saying why."""
    monkeypatch.setenv("WEBHOOK_SECRET", "a secret for the hook")
    hook = "targets:\n  site: {kind: site}\n  hook: {kind: webhook, url: 'http://127.0.0.1:9/'}\n"
    repo.commit(**{"steadypress.yml": "max_attempts: 1\n" + hook, "content/a.md": article("A")})
    run_cli(repo, "run", clock=ManualClock(datetime(2030, 1, 1, tzinfo=UTC)))
    assert "hook:content/a.md" in repo.ledger().dead
    repo.commit(**{"steadypress.yml": "max_attempts: 1\ntargets:\n  site: {kind: site}\n"})
    result = run_cli(repo, "sweep")
    assert result.code == 0, result.err
    assert not repo.ledger().dead
    letter = next((repo.root / ".steadypress/dead-letters").glob("*.md")).read_text()
    assert letter.startswith(
        "Status: withdrawn\n\nWithdrawn: the target `hook` is no longer in the configuration"
    )


def test_a_retried_letter_of_a_target_then_removed_is_closed_as_withdrawn(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hook's item died, was retried, and waits for its next attempt (pending, carrying its
    letter) when the hook is removed: the sweep takes it out of the ledger and closes the
    letter, instead of leaving it open forever."""
    monkeypatch.setenv("WEBHOOK_SECRET", "a secret for the hook")
    hook = "targets:\n  site: {kind: site}\n  hook: {kind: webhook, url: 'http://127.0.0.1:9/'}\n"
    clock = ManualClock(datetime(2030, 1, 1, tzinfo=UTC))
    repo.commit(**{"steadypress.yml": "max_attempts: 1\n" + hook, "content/a.md": article("A")})
    run_cli(repo, "run", clock=clock)
    repo.commit(**{"steadypress.yml": "max_attempts: 3\n" + hook})
    run_cli(repo, "retry", "content/a.md", clock=clock)
    waiting = repo.ledger().pending["hook:content/a.md"]
    assert waiting.alert == 1 and waiting.attempts == 1
    repo.commit(**{"steadypress.yml": "targets:\n  site: {kind: site}\n"})
    result = run_cli(repo, "sweep", clock=clock)
    assert result.code == 0, result.err
    assert "hook:content/a.md" not in repo.ledger().pending
    letter = next((repo.root / ".steadypress/dead-letters").glob("*.md")).read_text()
    assert letter.startswith("Status: withdrawn\n\nWithdrawn: the target `hook`")
