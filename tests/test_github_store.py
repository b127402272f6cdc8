"""The state branch on GitHub, through the loopback fake: cost, races, lost answers, limits."""

import json
import threading
from collections.abc import Iterator, Mapping
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from steadypress import codec, shardtree
from steadypress.claiming import Completion, claim, complete
from steadypress.errors import StateError
from steadypress.github.branch import GitHubBranch
from steadypress.github.store import GitHubStore
from steadypress.ledger import Ledger, PublishedRecord
from steadypress.published import PublishedRecords, key_digest, shard_of
from steadypress.store import TransactionStats, transact
from steadypress.store.transaction import Change
from steadypress.transitions import Sighting, enqueue
from tests.fakes.clock import ManualClock
from tests.fakes.github import FakeGitHub, Fault
from tests.helpers import github_client, github_store, oid

NOW = datetime(2026, 11, 29, tzinfo=UTC)


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        yield fake


def add(path: str) -> Change[list[str]]:
    def change(ledger: Ledger) -> tuple[Ledger, list[str]]:
        return enqueue(ledger, [Sighting("site", path, oid(f"blob-{path}"), oid("c"))], now=NOW)

    return change


def branch_commits(github: FakeGitHub) -> list[str]:
    return github.repository.text("rev-list", "steadypress-state").split()


def state_file(github: FakeGitHub, name: str) -> bytes:
    return github.repository.git("show", f"steadypress-state:{name}")


def test_the_first_save_creates_an_orphan_branch_with_the_state_files(github: FakeGitHub) -> None:
    """Bootstrap: a root commit with pending and dead (no shard yet: nothing is published),
    then the ref (3 writes)."""
    store = github_store(github)
    with github.counting() as calls:
        transact(store, add("content/a.md"), message="first")
    assert calls == {
        "graphql LoadBranch": 1, "POST /repos/{repo}/git/trees": 1,
        "POST /repos/{repo}/git/commits": 1, "POST /repos/{repo}/git/refs": 1,
    }  # fmt: skip
    assert len(branch_commits(github)) == 1
    assert github.repository.text("ls-tree", "-r", "--name-only", "steadypress-state").split() == [
        "state/dead.json", "state/pending.json",
    ]  # fmt: skip
    assert "site:content/a.md" in github_store(github).load().ledger.pending


def test_a_transaction_costs_one_read_and_one_write(github: FakeGitHub) -> None:
    """After bootstrap, a change is one GraphQL query and one createCommitOnBranch, and one
    more query for the shard of the article it looks at (unless the load was told of it)."""
    transact(github_store(github), add("content/a.md"), message="first")
    store = github_store(github)
    with github.counting() as calls:
        transact(store, add("content/b.md"), message="second")
    assert calls == {"graphql LoadBranch": 1, "graphql ReadFiles": 1, "graphql CreateCommit": 1}
    store = github_store(github)
    with github.counting() as calls:
        store.load(hint=["site:content/c.md"])
        transact(store, add("content/c.md"), message="third", optimistic=True)
    assert calls == {"graphql LoadBranch": 1, "graphql CreateCommit": 1}
    with github.counting() as calls:
        transact(store, add("content/b.md"), message="nothing to do")
    assert calls == {"graphql LoadBranch": 1}, "an idle transaction reads once and writes nothing"


def test_only_the_files_that_changed_are_sent(github: FakeGitHub) -> None:
    """A claim sends pending.json alone; a completion pending.json and the article's shard."""
    store = github_store(github)
    transact(store, add("content/a.md"), message="add")
    transact(
        store,
        lambda ledger: claim(ledger, ["site:content/a.md"], holder="h", token="t", now=NOW,
                             lease_ttl=timedelta(minutes=1))[:2],
        message="claim",
    )  # fmt: skip
    assert sent(github) == ["state/pending.json"]
    done = Completion("site:content/a.md", oid("blob-content/a.md"), oid("c"), "t", url="/a/")
    transact(store, lambda ledger: complete(ledger, [done], now=NOW), message="done")
    assert sent(github) == sorted(["state/pending.json",
                                   codec.shard_file(shard_of("site:content/a.md"))])  # fmt: skip


def sent(github: FakeGitHub) -> list[str]:
    """The files the last state commit changed."""
    return github.repository.text(
        "diff-tree", "-r", "--name-only", "--no-commit-id", "steadypress-state"
    ).split()


def test_two_executors_bootstrapping_at_once_lose_nothing(github: FakeGitHub) -> None:
    """Both try to create the branch; 'Reference already exists' sends one back to re-read."""
    first, second = github_store(github), github_store(github)
    barrier = threading.Barrier(2)

    def race(store: GitHubStore, path: str) -> None:
        def change(ledger: Ledger) -> tuple[Ledger, list[str]]:
            barrier.wait(timeout=10) if ledger == Ledger() and not barrier.broken else None
            return add(path)(ledger)

        transact(store, change, message=path)

    threads = [threading.Thread(target=race, args=(s, p)) for s, p in
               [(first, "content/one.md"), (second, "content/two.md")]]  # fmt: skip
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert set(github_store(github).load().ledger.pending) == {
        "site:content/one.md", "site:content/two.md",
    }  # fmt: skip
    assert github.requests["POST /repos/{repo}/git/refs"] == 2


def test_a_502_after_the_commit_was_made_neither_duplicates_nor_loses_it(
    github: FakeGitHub,
) -> None:
    """The commit lands but its answer is lost: the store recognises its own transaction on the
    branch instead of applying the change again."""
    store = github_store(github)
    transact(store, add("content/a.md"), message="first")
    github.inject(Fault("graphql CreateCommit", status=502, apply_first=True))
    stats = TransactionStats()
    transact(store, add("content/b.md"), message="second", stats=stats)
    assert len(branch_commits(github)) == 2, "one commit for the second transaction, not two"
    assert (stats.commits, stats.conflicts) == (1, 0)
    assert github.requests["graphql CreateCommit"] == 1, "the mutation was not re-sent"
    assert set(github_store(github).load().ledger.pending) == {
        "site:content/a.md",
        "site:content/b.md",
    }


def test_a_502_before_the_commit_was_made_is_retried_once_through_the_loop(
    github: FakeGitHub,
) -> None:
    """A lost answer where nothing happened: the head has not moved, so the change is re-applied."""
    store = github_store(github)
    transact(store, add("content/a.md"), message="first")
    github.inject(Fault("graphql CreateCommit", status=502))
    transact(store, add("content/b.md"), message="second", sleep=lambda _s: None)
    assert len(branch_commits(github)) == 2
    assert github.requests["graphql CreateCommit"] == 2


def test_a_writer_that_moves_the_branch_between_read_and_write_forces_a_reread(
    github: FakeGitHub,
) -> None:
    """STALE_DATA from createCommitOnBranch is a conflict: re-read, re-apply, both changes kept."""
    store = github_store(github)
    transact(store, add("content/a.md"), message="first")
    github.before_write = lambda: transact(
        github_store(github), add("content/theirs.md"), message="theirs"
    )
    stats = TransactionStats()
    transact(store, add("content/ours.md"), message="ours", stats=stats, sleep=lambda _s: None)
    assert stats.conflicts == 1
    assert set(github_store(github).load().ledger.pending) == {
        "site:content/a.md", "site:content/theirs.md", "site:content/ours.md",
    }  # fmt: skip


def test_a_file_read_whole_comes_without_its_id_which_is_worked_out(
    github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A text GitHub gives whole is known by its id without the answer carrying it (40 hex
    digits a file, which compress poorly); a binary file and one past GraphQL's text limit
    cost one query for their ids, then the REST blob each, kept for the next read. All come
    back byte for byte, with git's own ids."""
    files = {
        "a.json": '{"caf\u00e9": 1}\n'.encode(), "b.bin": b"\x00\x01\xff",
        "c.txt": b"x" * 600_000,
    }  # fmt: skip
    client = github_client(github)
    answers: list[object] = []
    asked = client.graphql

    def recorded(query: str, variables: Mapping[str, Any], *, mutation: bool) -> Any:
        answers.append(data := asked(query, variables, mutation=mutation))
        return data

    monkeypatch.setattr(client, "graphql", recorded)
    branch = GitHubBranch(client, repository=github.full_name, branch="files")
    branch.create(files, message="three files")
    ids = {path: github.repository.text("rev-parse", f"files:{path}").strip() for path in files}
    with github.counting() as calls:
        read = branch.read(texts=[*files, "absent.json"])
    assert read.texts == files and read.oids == ids
    assert calls == {
        "graphql LoadBranch": 1, "graphql ReadFiles": 1, "GET /repos/{repo}/git/blobs/{sha}": 2
    }  # fmt: skip
    assert ids["a.json"] not in json.dumps(answers), "the text's id was not sent"
    with github.counting() as calls:
        assert branch.read(texts=list(files)).texts == files
    assert calls == {"graphql LoadBranch": 1}, "ids and blobs kept: read again, asked once"


def record(n: int) -> PublishedRecord:
    return PublishedRecord(f"{n:040x}", "c" * 40, None, "2026-01-01T00:00:00Z", f"/p{n}/")


def test_a_version_1_branch_moves_to_shards_in_its_first_write(github: FakeGitHub) -> None:
    """A state branch written before shards: one `state/published.json` past GraphQL's text
    limit (read over REST). The first transaction writes every shard and deletes the old
    file; from then on a load reads none of the published records, and a transaction that
    touches one article reads and writes one shard."""
    records = {f"site:content/p{n:05d}.md": record(n) for n in range(5000)}
    old = {
        codec.PENDING_FILE: b'{"pending": {}, "version": 1}\n',
        codec.DEAD_FILE: b'{"dead": {}, "version": 1}\n',
        codec.LEGACY_PUBLISHED_FILE: json.dumps(
            {"version": 1, "published": {key: r._asdict() for key, r in records.items()}}
        ).encode(),
    }
    assert len(old[codec.LEGACY_PUBLISHED_FILE]) > 512_000
    GitHubBranch(github_client(github), repository=github.full_name,
                 branch="steadypress-state").create(old, message="version 1")  # fmt: skip
    transact(github_store(github), add("content/new.md"), message="the first write")
    names = github.repository.text("ls-tree", "-r", "--name-only", "steadypress-state").split()
    assert codec.LEGACY_PUBLISHED_FILE not in names
    by_shard: dict[str, dict[str, PublishedRecord]] = {}
    for key, value in records.items():
        by_shard.setdefault(shard_of(key), {})[key] = value
    laid_out = [shardtree.split(name, held, key_digest) for name, held in by_shard.items()]
    assert {codec.shard_name(name) for name in names if codec.shard_name(name)} == {
        name for markers, leaves in laid_out for name in (*markers, *leaves)
    }, "every shard, each split as a write splits it"
    with github.counting() as calls:
        ledger = github_store(github).load().ledger
    assert calls == {"graphql LoadBranch": 1} and "site:content/new.md" in ledger.pending
    assert dict(ledger.published) == records, "every record moved, none lost"
    with github.counting() as calls:
        store = github_store(github)
        transact(store, publish_one("content/p00042.md"), message="one article")
    assert calls == {"graphql LoadBranch": 1, "graphql ReadFiles": 1, "graphql CreateCommit": 1}
    assert github_store(github).load().ledger.published["site:content/p00042.md"].url == "/new/"


def publish_one(path: str) -> Change[None]:
    def change(ledger: Ledger) -> tuple[Ledger, None]:
        key = f"site:{path}"
        return replace(ledger, published=ledger.published.renewed(
            {key: ledger.published[key]._replace(url="/new/")})), None  # fmt: skip

    return change


def test_a_secondary_rate_limit_is_waited_out_as_github_asks(github: FakeGitHub) -> None:
    """429 with retry-after: wait that long, then ask again."""
    clock = ManualClock()
    client = github_client(github, clock=clock)
    store = GitHubStore(client, repository=github.full_name, branch="steadypress-state")
    github.inject(Fault.secondary_rate_limit("graphql LoadBranch", retry_after=7))
    assert store.load().version is None
    assert clock.sleeps == [7.0]


def test_a_rate_limit_longer_than_the_budget_stops_cleanly_and_writes_nothing(
    github: FakeGitHub,
) -> None:
    """x-ratelimit-remaining 0 with a reset an hour away: a StateError now, not an hour's hang."""
    transact(github_store(github), add("content/a.md"), message="first")
    head = branch_commits(github)[0]
    github.inject(Fault.primary_rate_limit("graphql CreateCommit", reset_in=3600))
    with pytest.raises(StateError, match="rate limit"):
        transact(github_store(github), add("content/b.md"), message="second")
    assert branch_commits(github) == [head]


@pytest.mark.parametrize(
    ("token", "message"), [("wrong", "Bad credentials"), ("", "Requires authentication")]
)
def test_bad_credentials_are_a_clear_state_error(
    github: FakeGitHub, token: str, message: str
) -> None:
    """A wrong or missing token says so, with GitHub's own words."""
    client = github_client(github, token=token)
    store = GitHubStore(client, repository=github.full_name, branch="steadypress-state")
    with pytest.raises(StateError, match=message):
        store.load()


def test_corrupt_state_on_github_is_refused_and_never_overwritten(github: FakeGitHub) -> None:
    """A pending.json that is not JSON stops the store before any write."""
    transact(github_store(github), add("content/a.md"), message="first")
    repo = github.repository
    assert repo.edit("steadypress-state", {"state/pending.json": b"{not json"}, "hand edit")
    moved = repo.head_of("steadypress-state")
    with pytest.raises(StateError, match=r"state/pending\.json: not valid JSON"):
        transact(github_store(github), add("content/b.md"), message="x")
    assert repo.head_of("steadypress-state") == moved


def test_a_graphql_rate_limit_inside_a_200_is_waited_out(github: FakeGitHub) -> None:
    """GraphQL reports its limit as an error of type RATE_LIMITED in a 200, with the headers."""
    clock = ManualClock()
    client = github_client(github, clock=clock)
    store = GitHubStore(client, repository=github.full_name, branch="steadypress-state")
    github.inject(Fault("graphql LoadBranch", status=200, headers={"retry-after": "3"}, body={
        "errors": [{"type": "RATE_LIMITED", "message": "API rate limit exceeded for user ID 1."}],
    }))  # fmt: skip
    assert store.load().version is None
    assert clock.sleeps == [3.0]


def test_a_github_that_does_not_answer_in_time_fails_cleanly(github: FakeGitHub) -> None:
    """Every request has a timeout: reads are retried a few times, then a StateError, no hang."""
    client = github_client(github, timeout=1, read_attempts=2)
    store = GitHubStore(client, repository=github.full_name, branch="steadypress-state")
    github.latency = 1.5
    with pytest.raises(StateError, match="could not be read"):
        store.load()
    assert github.requests["graphql LoadBranch"] == 2


def test_a_state_without_counts_is_counted_once_by_its_first_write(github: FakeGitHub) -> None:
    """A state branch 0.2.0 wrote keeps no counts of its published records: the first write
    reads every shard once to count them and writes them with the work; from then on a
    write reads no shard it does not change, and `status` none."""
    records = {f"site:content/p{n:04d}.md": record(n) for n in range(700)}
    files = codec.encode_state(Ledger(published=PublishedRecords.of(records)))
    pending = json.loads(files[codec.PENDING_FILE])
    files[codec.PENDING_FILE] = json.dumps({"pending": pending["pending"], "version": 2}).encode()
    GitHubBranch(github_client(github), repository=github.full_name,
                 branch="steadypress-state").create(files, message="as 0.2.0 wrote it")  # fmt: skip
    assert github_store(github).load().ledger.published.tally is None

    with github.counting() as first:
        transact(github_store(github), add("content/new.md"), message="the first write")
    counts = json.loads(state_file(github, codec.PENDING_FILE))["counts"]
    assert counts == {"published": 699, "unpublished": 1}  # record(0) is of blob 0: unpublished
    assert first["graphql ReadFiles"] >= 2, dict(first)  # every shard, a few hundred a request
    with github.counting() as second:
        transact(github_store(github), add("content/other.md"), message="the next write")
    # As any write: the state, the shard of the article it looks at, the commit.
    assert second == {"graphql LoadBranch": 1, "graphql ReadFiles": 1, "graphql CreateCommit": 1}
