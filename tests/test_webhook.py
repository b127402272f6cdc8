"""The webhook target through the CLI: signed, idempotent deliveries, and the error classes."""

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
import requests

from steadypress.targets.webhook import SIGNATURE_HEADER, sign
from tests.fakes.webhook import WebhookReceiver
from tests.helpers import Repo, article, run_cli

SECRET = "s3cret-for-tests"


@pytest.fixture
def receiver(monkeypatch: pytest.MonkeyPatch) -> Iterator[WebhookReceiver]:
    monkeypatch.setenv("WEBHOOK_SECRET", SECRET)
    with WebhookReceiver(SECRET) as hook:
        yield hook


def config(receiver: WebhookReceiver, *, timings: str = "") -> str:
    return (
        f"{timings}targets:\n  site: {{kind: site}}\n"
        f"  hook: {{kind: webhook, url: '{receiver.url}', secret_env: WEBHOOK_SECRET}}\n"
    )


def test_a_new_article_reaches_the_site_and_the_webhook_once_signed(
    repo: Repo, receiver: WebhookReceiver
) -> None:
    """One delivery per version, with a valid signature and the whole article; the receiver's
    url and id are recorded; running again delivers nothing."""
    repo.commit(**{"steadypress.yml": config(receiver), "content/a.md": article("A", tags="[x]")})
    assert run_cli(repo, "run").code == 0
    ((key, delivery),) = receiver.deliveries.items()
    assert key == f"hook:content/a.md:{repo.blob('content/a.md')}"
    document = delivery["document"]
    assert document["front_matter"]["title"] == "A" and "<p>Some words.</p>" in document["html"]
    assert receiver.bad_signatures == 0
    record = repo.ledger().published["hook:content/a.md"]
    assert (record.url, record.id) == ("https://receiver.example/a", "1")
    assert "site:content/a.md" in repo.ledger().published
    run_cli(repo, "run")
    assert receiver.requests == 1


def test_a_replayed_delivery_is_harmless(receiver: WebhookReceiver) -> None:
    """The same Idempotency-Key twice (a crash before the record): one delivery, same answer."""
    body = b'{"path": "content/a.md"}'
    headers = {"Idempotency-Key": "hook:content/a.md:b1", SIGNATURE_HEADER: sign(SECRET, body)}
    first = requests.post(receiver.url, data=body, headers=headers, timeout=10).json()
    second = requests.post(receiver.url, data=body, headers=headers, timeout=10).json()
    assert first == second and len(receiver.deliveries) == 1


def test_a_server_error_defers_and_a_retry_after_is_honoured(
    repo: Repo, receiver: WebhookReceiver
) -> None:
    """503 and 429 are transient: the item waits, at least as long as Retry-After says."""
    repo.commit(**{"steadypress.yml": config(receiver, timings="timings: {backoff_initial: 1s}\n"),
                   "content/a.md": article("A")})  # fmt: skip
    receiver.script = [(429, {"Retry-After": "120"}, '{"message": "slow down"}')]
    before = datetime.now(UTC)
    result = run_cli(repo, "run")
    item = repo.ledger().pending["hook:content/a.md"]
    assert result.code == 1 and "webhook answered 429" in (item.last_error or "")
    assert item.next_attempt_at is not None and item.next_attempt_at >= before + timedelta(
        seconds=120
    )


def test_a_refusal_is_a_dead_letter_with_the_receivers_message(
    repo: Repo, receiver: WebhookReceiver
) -> None:
    """Any other 4xx cannot be fixed by waiting: dead at once, with what the receiver said."""
    repo.commit(**{"steadypress.yml": config(receiver), "content/a.md": article("A")})
    receiver.script = [(422, {}, '{"message": "title too long"}')]
    assert run_cli(repo, "run").code == 0
    dead = repo.ledger().dead["hook:content/a.md"]
    assert dead.permanent and "422" in dead.last_error and "title too long" in dead.last_error
    assert "site:content/a.md" in repo.ledger().published, "the other target is not held back"


def test_without_its_secret_the_target_is_skipped_not_failed(
    repo: Repo, receiver: WebhookReceiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An executor that lacks WEBHOOK_SECRET leaves the item pending for one that has it."""
    monkeypatch.delenv("WEBHOOK_SECRET")
    repo.commit(**{"steadypress.yml": config(receiver), "content/a.md": article("A")})
    result = run_cli(repo, "run")
    assert result.code == 0 and "target hook skipped by this executor" in result.err
    item = repo.ledger().pending["hook:content/a.md"]
    assert item.attempts == 0 and item.lease is None and receiver.requests == 0
    monkeypatch.setenv("WEBHOOK_SECRET", SECRET)
    assert run_cli(repo, "drain").code == 0 and "hook:content/a.md" in repo.ledger().published


def test_front_matter_can_keep_an_article_off_a_target(
    repo: Repo, receiver: WebhookReceiver
) -> None:
    """`targets: [site]` publishes to the site alone."""
    repo.commit(
        **{"steadypress.yml": config(receiver), "content/a.md": article("A", targets="[site]")}
    )
    run_cli(repo, "run")
    assert set(repo.ledger().published) == {"site:content/a.md"} and not repo.ledger().pending
    assert receiver.requests == 0
