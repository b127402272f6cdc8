"""Exactly once on every platform: the same two stories, through the CLI, against each fake.

A create whose answer is lost is found (or rewritten in place) on the retry; an executor
SIGKILLed right after its create leaves one post once the sweep has run. And a missing secret
skips the target for that executor, leaving the work pending for one that has it."""

from __future__ import annotations

import signal
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

import pytest

from tests.fakes.bluesky import FakeBluesky
from tests.fakes.clock import ManualClock
from tests.fakes.devto import FakeForem
from tests.fakes.hashnode import FakeHashnode
from tests.fakes.mastodon import FakeMastodon
from tests.helpers import Repo, article, run_cli, spawn_cli


@dataclass(frozen=True)
class Platform:
    kind: str
    fake: Any  # offers drop_after_create and hang_after_create
    options: str  # the target's settings, as YAML flow-mapping entries
    secret: tuple[str, str]  # the variable and its value
    created: Callable[[], int]  # creates the platform applied
    posts: Callable[[], int]  # posts it shows now


def _mastodon(fake: FakeMastodon) -> Platform:
    return Platform("mastodon", fake, f"instance: '{fake.instance}'",
                    ("MASTODON_TOKEN", fake.token),
                    fake.creates.total, lambda: len(fake.statuses))  # fmt: skip


def _bluesky(fake: FakeBluesky) -> Platform:
    return Platform("bluesky", fake, f"handle: {fake.handle}, service: '{fake.service}'",
                    ("BLUESKY_APP_PASSWORD", fake.password),
                    lambda: fake.writes["create"], lambda: len(fake.records))  # fmt: skip


def _devto(fake: FakeForem) -> Platform:
    return Platform("devto", fake, f"api_url: '{fake.api_url}', window: 2s",
                    ("DEVTO_API_KEY", fake.api_key),
                    fake.creates.total, lambda: len(fake.posts))  # fmt: skip


def _hashnode(fake: FakeHashnode) -> Platform:
    options = f"publication_id: {fake.publication_id}, api_url: '{fake.api_url}'"
    return Platform("hashnode", fake, options,
                    ("HASHNODE_TOKEN", fake.token),
                    lambda: fake.creates, lambda: len(fake.posts))  # fmt: skip


PLATFORMS: dict[str, Callable[[ExitStack], Platform]] = {
    "mastodon": lambda stack: _mastodon(stack.enter_context(FakeMastodon())),
    "bluesky": lambda stack: _bluesky(stack.enter_context(FakeBluesky())),
    "devto": lambda stack: _devto(stack.enter_context(FakeForem(window=2.0))),
    "hashnode": lambda stack: _hashnode(stack.enter_context(FakeHashnode())),
}


@pytest.fixture(params=sorted(PLATFORMS))
def platform(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Platform]:
    with ExitStack() as stack:
        made = PLATFORMS[request.param](stack)
        monkeypatch.setenv(*made.secret)
        yield made


def config(platform: Platform, site_url: str) -> str:
    return (
        "timings: {lease: 2s, grace: 0s, backoff_initial: 0s, backoff_max: 0s}\n"
        f"targets:\n  site: {{kind: site, url: '{site_url}'}}\n"
        f"  out: {{kind: {platform.kind}, {platform.options}}}\n"
    )


def test_a_create_whose_answer_was_lost_leaves_one_post(
    repo: Repo, platform: Platform, served: str
) -> None:
    repo.commit(**{"steadypress.yml": config(platform, served), "content/a.md": article("A")})
    platform.fake.drop_after_create = 1
    assert run_cli(repo, "run").code == 1, "the lost answer is a transient failure"
    assert "out:content/a.md" in repo.ledger().pending
    assert run_cli(repo, "sweep").code == 0
    assert (platform.created(), platform.posts()) == (1, 1)
    assert "out:content/a.md" in repo.ledger().published


def test_an_executor_killed_right_after_its_create_leaves_one_post_after_the_sweep(
    repo: Repo, platform: Platform, served: str
) -> None:
    """The platform applies the create; the executor is SIGKILLed waiting for the answer, its
    lease left behind. Once the lease expires by itself, a sweep takes the item: one post."""
    repo.commit(**{"steadypress.yml": config(platform, served), "content/a.md": article("A")})
    platform.fake.hang_after_create = 1
    executor = spawn_cli(repo, "run")
    deadline = time.monotonic() + 60
    while not platform.created() and time.monotonic() < deadline and executor.poll() is None:
        time.sleep(0.01)
    executor.send_signal(signal.SIGKILL)
    executor.wait()
    assert executor.returncode == -signal.SIGKILL and platform.created() == 1
    item = repo.ledger().pending["out:content/a.md"]
    assert item.lease is not None and "out:content/a.md" not in repo.ledger().published
    sweep = run_cli(repo, "sweep", clock=ManualClock(item.lease.expires_at))
    assert sweep.code == 0, sweep.err
    assert (platform.created(), platform.posts()) == (1, 1)
    assert "out:content/a.md" in repo.ledger().published


def test_without_its_secret_the_target_is_skipped_and_the_work_stays(
    repo: Repo, platform: Platform, served: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(platform.secret[0])
    repo.commit(**{"steadypress.yml": config(platform, served), "content/a.md": article("A")})
    result = run_cli(repo, "run")
    assert platform.secret[0] in result.err
    assert "out:content/a.md" in repo.ledger().pending and platform.posts() == 0
    assert "site:content/a.md" in repo.ledger().published


def test_front_matter_targets_opts_an_article_out(
    repo: Repo, platform: Platform, served: str
) -> None:
    repo.commit(**{"steadypress.yml": config(platform, served),
                   "content/a.md": article("A", targets="[site]"),
                   "content/b.md": article("B", targets="[site, out]")})  # fmt: skip
    assert run_cli(repo, "run").code == 0
    ledger = repo.ledger()
    assert "out:content/a.md" not in ledger.published and "out:content/a.md" not in ledger.pending
    assert "out:content/b.md" in ledger.published and platform.posts() == 1
