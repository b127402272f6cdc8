"""Every exchange with a platform or a webhook is bounded: a credential never follows a
redirect to another host, an answer dripped one byte at a time ends at the deadline, and an
answer too large is not read whole."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest

from steadypress.clock import SystemClock
from steadypress.errors import GitHubUnreachable, PermanentError, TransientError
from steadypress.exchange import AnswerTooLarge, bounded_session, exchange
from steadypress.github.client import GitHubClient
from steadypress.targets.http import Platform, PlatformApi
from tests.fakes.bluesky import FakeBluesky
from tests.fakes.bystander import Bystander
from tests.fakes.clock import ManualClock
from tests.fakes.devto import FakeForem
from tests.fakes.drip import DrippingServer
from tests.fakes.faults import Faults
from tests.fakes.hashnode import FakeHashnode
from tests.fakes.mastodon import FakeMastodon
from tests.fakes.web import ServedEverything
from tests.fakes.webhook import WebhookReceiver
from tests.helpers import Repo, article, run_cli

TIMINGS = "timings: {grace: 0s, backoff_initial: 0s, backoff_max: 0s}\nmax_attempts: 1\n"


@pytest.fixture
def bystander() -> Iterator[Bystander]:
    with Bystander() as host:
        yield host


@dataclass(frozen=True)
class Platformed:
    fake: Faults
    target: str  # its line in steadypress.yml
    secret: str  # what must not reach another host


def _devto(request: pytest.FixtureRequest) -> Platformed:
    forem: FakeForem = request.getfixturevalue("forem")
    return Platformed(forem, f"{{kind: devto, api_url: '{forem.api_url}'}}", forem.api_key)


def _mastodon(request: pytest.FixtureRequest) -> Platformed:
    fake: FakeMastodon = request.getfixturevalue("mastodon")
    return Platformed(fake, f"{{kind: mastodon, instance: '{fake.instance}'}}", fake.token)


def _bluesky(request: pytest.FixtureRequest) -> Platformed:
    fake: FakeBluesky = request.getfixturevalue("bluesky")
    line = f"{{kind: bluesky, handle: {fake.handle}, service: '{fake.service}'}}"
    return Platformed(fake, line, fake.password)


def _hashnode(request: pytest.FixtureRequest) -> Platformed:
    fake: FakeHashnode = request.getfixturevalue("hashnode")
    line = f"{{kind: hashnode, publication_id: {fake.publication_id}, api_url: '{fake.api_url}'}}"
    return Platformed(fake, line, fake.token)


PLATFORMS: dict[str, Callable[[pytest.FixtureRequest], Platformed]] = {
    "devto": _devto,
    "mastodon": _mastodon,
    "bluesky": _bluesky,
    "hashnode": _hashnode,
}


@pytest.mark.parametrize("platform", sorted(PLATFORMS))
def test_a_redirect_to_another_host_gets_no_credential_and_names_the_target(
    repo: Repo, bystander: Bystander, request: pytest.FixtureRequest, platform: str
) -> None:
    """The platform answers 307 to another host: nothing is sent there (not the key in a
    header, not the app password in a body), and the article is a dead letter that says where
    the redirect pointed."""
    with ServedEverything() as site:
        world = PLATFORMS[platform](request)
        elsewhere = f"{bystander.origin}/stolen"
        world.fake.script = [(307, {"Location": elsewhere})] * 5
        targets = f"targets:\n  site: {{kind: site, url: '{site.origin}/'}}\n"
        repo.commit(**{
            "steadypress.yml": TIMINGS + targets + f"  there: {world.target}\n",
            "content/a.md": article("A"),
        })  # fmt: skip
        assert run_cli(repo, "run").code == 0
    assert bystander.received == []
    dead = repo.ledger().dead["there:content/a.md"]
    assert dead.permanent and elsewhere in dead.last_error and "307" in dead.last_error
    assert world.secret not in dead.last_error


def test_a_webhook_redirect_is_not_followed(
    repo: Repo, bystander: Bystander, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 308 from the receiver would re-send the article and its signature elsewhere: refused,
    named, the version a dead letter."""
    monkeypatch.setenv("WEBHOOK_SECRET", "s3cret")
    with WebhookReceiver("s3cret") as hook:
        hook.script = [(308, {"Location": f"{bystander.origin}/hook"}, "")] * 5
        repo.commit(**{
            "steadypress.yml": TIMINGS + "targets:\n  site: {kind: site}\n"
                               f"  hook: {{kind: webhook, url: '{hook.url}'}}\n",
            "content/a.md": article("A"),
        })  # fmt: skip
        assert run_cli(repo, "run").code == 0
    assert bystander.received == []
    dead = repo.ledger().dead["hook:content/a.md"]
    assert dead.permanent and f"{bystander.origin}/hook" in dead.last_error


def test_a_request_off_the_platforms_root_is_refused_before_it_is_sent(
    bystander: Bystander,
) -> None:
    """A path that would change the host (`@host` after a root with no path: the root becomes
    user information) is a refusal, not a request."""
    api = PlatformApi(
        Platform("dev.to", "http://127.0.0.1:9", "DEVTO_API_KEY", 5.0),
        clock=SystemClock(),
        headers={"api-key": "k"},
    )
    with pytest.raises(PermanentError, match="refusing to send a request off"):
        api.send("GET", f"@{bystander.origin.removeprefix('http://')}/x")
    assert bystander.received == []


@pytest.mark.parametrize("drip_headers", [False, True], ids=["body", "headers"])
def test_an_answer_dripped_a_byte_at_a_time_ends_at_the_deadline(drip_headers: bool) -> None:
    """Each byte comes well within the timeout; the whole answer would take minutes. The
    request ends as weather soon after its deadline (bounded generously: this is the real
    network's clock, on a machine that may be loaded)."""
    with DrippingServer(headers=drip_headers) as server:
        api = PlatformApi(
            Platform("Mastodon", server.url, "MASTODON_TOKEN", 1.0),
            clock=SystemClock(),
            headers={},
        )
        started = time.monotonic()
        slow = r"Mastodon not reached: no whole answer within 1 s"
        with pytest.raises(TransientError, match=slow):
            api.send("GET", "/api/v1/statuses")
        assert time.monotonic() - started < 20


def test_a_webhook_that_drips_its_answer_is_weather_at_the_deadline(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WEBHOOK_SECRET", "s3cret")
    with DrippingServer() as server:
        repo.commit(**{
            "steadypress.yml": TIMINGS + "targets:\n  site: {kind: site}\n"
                               f"  hook: {{kind: webhook, url: '{server.url}/', timeout: '1'}}\n",
            "content/a.md": article("A"),
        })  # fmt: skip
        started = time.monotonic()
        run_cli(repo, "run")
        assert time.monotonic() - started < 30
    record = repo.ledger()
    failed = record.dead.get("hook:content/a.md") or record.pending.get("hook:content/a.md")
    assert failed is not None and "no whole answer within 1 s" in (failed.last_error or "")


def test_an_answer_over_the_cap_is_not_read_whole() -> None:
    """Refused by its declared length before its body is read, or counted as it arrives when
    it declares none; under the cap it is read as it is."""
    session = bounded_session()
    with ServedEverything() as server:
        with pytest.raises(AnswerTooLarge, match="an answer of 14 bytes, over 8"):
            exchange(session, "GET", f"{server.origin}/", seconds=5, max_bytes=8)
        assert exchange(session, "GET", f"{server.origin}/", seconds=5).text == "<p>A page.</p>"
    with DrippingServer(gap=0, declare_length=False) as endless:
        with pytest.raises(AnswerTooLarge, match="an answer over 65536 bytes"):
            exchange(session, "GET", endless.url, seconds=5, max_bytes=65536)
        assert len(exchange(session, "GET", endless.url, seconds=5).content) == 100_002


def test_the_deadline_of_one_exchange_does_not_reach_the_next() -> None:
    """A kept-alive connection serves the next exchange after one that ended in time: the
    watchdog of an exchange that is over never shuts the connection down."""
    with ServedEverything() as server:
        session = bounded_session()
        for _ in range(3):
            answer = exchange(session, "GET", f"{server.origin}/", seconds=0.2)
            assert answer.status_code == 200
            time.sleep(0.3)  # past that exchange's deadline, on the real clock it is kept on
        assert server.connections == 1
    # No watchdog outlives its exchange: a thread left would keep the render pool from forking.
    assert not [t for t in threading.enumerate() if isinstance(t, threading.Timer)]


def test_a_github_answer_dripped_a_byte_at_a_time_ends_at_the_deadline() -> None:
    """PyGithub times each read only; the client's connections are bounded as the platforms'
    are: each try ends at the deadline, the read is tried again as for any lost answer, and
    the run is told GitHub was not reached, not held."""
    with DrippingServer() as server:
        client = GitHubClient(
            token="t", api_url=server.url, graphql_url=f"{server.url}/graphql", timeout=1,
            clock=ManualClock(),
        )  # fmt: skip
        started = time.monotonic()
        with pytest.raises(GitHubUnreachable, match=r"4 tries \(AnswerTooSlow\)"):
            client.rest("GET", "/repos/o/r")
        assert time.monotonic() - started < 30
