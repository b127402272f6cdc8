"""The LedgerStore contract, on memory and on a real git repository, and the transaction loop."""

import random
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from steadypress.claiming import Completion, claim, complete
from steadypress.codec import shard_file
from steadypress.errors import Conflict, StateError
from steadypress.gitio import PACK_FROM, Git, blob_oid
from steadypress.ledger import Ledger, PublishedRecord
from steadypress.published import shard_of
from steadypress.store import LedgerStore, Snapshot, TransactionStats, transact
from steadypress.store.localgit import LocalGitStore
from steadypress.store.memory import MemoryStore
from steadypress.transitions import Sighting, enqueue
from tests.fakes.github import FakeGitHub
from tests.helpers import Repo, article, github_store, oid, recorded_git

NOW = datetime(2026, 11, 29, tzinfo=UTC)


def add(path: str) -> Callable[[Ledger], tuple[Ledger, list[str]]]:
    return lambda ledger: enqueue(
        ledger, [Sighting("site", path, oid(f"blob-{path}"), oid("c"))], now=NOW
    )


@pytest.fixture(params=["memory", "git", "github"])
def store(request: pytest.FixtureRequest, repo: Repo) -> Iterator[LedgerStore]:
    if request.param == "memory":
        yield MemoryStore()
    elif request.param == "git":
        repo.commit(**{"content/a.md": article("A")})
        yield LocalGitStore(repo.root, "steadypress-state")
    else:
        with FakeGitHub() as github:
            yield github_store(github)


def test_a_save_based_on_an_old_version_is_refused(store: LedgerStore) -> None:
    """Compare-and-swap: a writer that read before another wrote loses, and changes nothing."""
    first = store.load()
    store.save(add("content/a.md")(first.ledger)[0], based_on=first, message="one")
    with pytest.raises(Conflict):
        store.save(add("content/b.md")(first.ledger)[0], based_on=first, message="two")
    assert list(store.load().ledger.pending) == ["site:content/a.md"]


def test_transact_reapplies_the_change_after_losing_a_race(store: LedgerStore) -> None:
    """A lost race is re-read and re-applied: both writers' items survive, one conflict counted."""
    raced = False

    def change(ledger: Ledger) -> tuple[Ledger, None]:
        nonlocal raced
        if not raced:  # another executor commits between our read and our write
            raced = True
            transact(store, add("content/theirs.md"), message="theirs")
        return add("content/ours.md")(ledger)[0], None

    stats = TransactionStats()
    transact(store, change, message="ours", stats=stats, sleep=lambda _s: None)
    assert sorted(store.load().ledger.pending) == ["site:content/ours.md", "site:content/theirs.md"]
    assert (stats.conflicts, stats.commits) == (1, 1)


def test_a_change_that_changes_nothing_writes_nothing(store: LedgerStore) -> None:
    """No empty commits: an idle transaction leaves the version as it was."""
    transact(store, add("content/a.md"), message="add")
    before = store.load().version
    stats = TransactionStats()
    transact(store, add("content/a.md"), message="again", stats=stats)
    assert store.load().version == before and stats.commits == 0


def test_transact_gives_up_after_too_many_conflicts() -> None:
    """A store that always loses is a StateError after a bounded number of tries, not a hang."""

    class AlwaysMoved(MemoryStore):
        def save(self, ledger: Ledger, *, based_on: Snapshot, message: str) -> str:
            raise Conflict(based_on.version, "elsewhere")

    with pytest.raises(StateError, match="gave up after 3"):
        transact(
            AlwaysMoved(),
            add("content/a.md"),
            message="x",
            max_conflicts=3,
            sleep=lambda _s: None,
            rng=random.Random(0),
        )


def test_the_first_save_creates_an_orphan_branch_and_leaves_the_checkout_alone(repo: Repo) -> None:
    """The state branch has no parent and shares nothing with main; HEAD, index and files stay."""
    repo.commit(**{"content/a.md": article("A")})
    repo.write("content/draft.md", "uncommitted work")
    repo.git("add", "content/draft.md")
    status_before = repo.git("status", "--porcelain")
    head_before = repo.git("symbolic-ref", "HEAD"), repo.head()
    transact(LocalGitStore(repo.root, "steadypress-state"), add("content/a.md"), message="first")
    assert repo.git("rev-list", "--max-parents=0", "steadypress-state") == repo.state_head()
    assert repo.git("ls-tree", "-r", "--name-only", "steadypress-state").split() == [
        "state/dead.json",
        "state/pending.json",
    ], "nothing published yet: no shard"
    assert (repo.git("symbolic-ref", "HEAD"), repo.head()) == head_before
    assert repo.git("status", "--porcelain") == status_before


def test_files_a_change_did_not_touch_are_not_rewritten(repo: Repo) -> None:
    """A claim rewrites pending.json only; a completion pending.json and the article's shard,
    and every other shard keeps its blob id."""
    repo.commit()
    store = LocalGitStore(repo.root, "steadypress-state")
    record = PublishedRecord(oid("b"), oid("c"), None, "2026-01-01T00:00:00Z", None)
    others = {f"site:content/o{n}.md": record for n in range(20)}
    transact(store, lambda ledger: (replace(ledger, published=ledger.published.renewed(others)),
                                    None), message="others")  # fmt: skip
    transact(store, add("content/a.md"), message="add")

    def take(ledger: Ledger) -> tuple[Ledger, None]:
        claimed, _, _ = claim(
            ledger, ["site:content/a.md"], holder="h", token="t", now=NOW, lease_ttl=timedelta(1)
        )
        return claimed, None

    transact(store, take, message="claim")
    assert repo.ledger().pending["site:content/a.md"].lease is not None
    assert changed_files(repo) == ["state/pending.json"]
    shards = repo.git("rev-parse", "steadypress-state:state/published")
    done = Completion("site:content/a.md", oid("blob-content/a.md"), oid("c"), "t", url="/a/")
    transact(store, lambda ledger: complete(ledger, [done], now=NOW), message="done")
    assert changed_files(repo) == sorted(["state/pending.json",
                                          shard_file(shard_of("site:content/a.md"))])  # fmt: skip
    assert repo.ledger().published["site:content/a.md"].url == "/a/"
    assert shards != repo.git("rev-parse", "steadypress-state:state/published")
    assert dict(repo.ledger().published).keys() == {*others, "site:content/a.md"}


def test_a_load_reads_the_state_in_one_git_process_and_finds_every_record(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The head, then the small files at it with the state's folder (whose `published/` entry
    names the shards' folder), through one `cat-file`: what `status` costs of git besides the
    setup (three processes until 33fd716, then two)."""
    repo.commit()
    record = PublishedRecord(oid("b"), oid("c"), None, "2026-01-01T00:00:00Z", None)
    records = {f"site:content/o{n}.md": record for n in range(20)}

    def seed(ledger: Ledger) -> tuple[Ledger, None]:
        return replace(ledger, published=ledger.published.renewed(records)), None

    transact(LocalGitStore(repo.root, "steadypress-state"), seed, message="seed")
    ran = recorded_git(monkeypatch)
    snapshot = LocalGitStore(repo.root, "steadypress-state").load()
    assert ran == [("cat-file", "--batch")]
    assert snapshot.version == repo.git("rev-parse", "steadypress-state")
    assert snapshot.handles["state/published"] == repo.git(
        "rev-parse", "steadypress-state:state/published"
    )
    assert dict(snapshot.ledger.published) == records


def changed_files(repo: Repo) -> list[str]:
    return repo.git("diff-tree", "-r", "--name-only", "--no-commit-id", "steadypress-state").split()


@pytest.mark.parametrize("files", [{}, {"state": "a file where the state's folder would be\n"}])
def test_a_branch_without_state_files_is_never_overwritten(
    repo: Repo, files: dict[str, str]
) -> None:
    """Pointing state_branch at someone else's branch is refused, not clobbered."""
    repo.commit(**{"content/a.md": article("A")}, **files)
    store = LocalGitStore(repo.root, "main")
    with pytest.raises(StateError, match=r"state/pending\.json: missing"):
        transact(store, add("content/a.md"), message="x")
    assert repo.git("ls-tree", "-r", "--name-only", "main").split() == sorted(["content/a.md",
                                                                               *files])  # fmt: skip


def test_a_corrupt_state_file_on_the_branch_is_reported_by_name(repo: Repo) -> None:
    """A hand-edited pending.json that is not JSON stops the store before any write."""
    repo.commit()
    store = LocalGitStore(repo.root, "steadypress-state")
    transact(store, add("content/a.md"), message="add")
    repo.overwrite_state_file("state/pending.json", b"{ this is not json")
    head = repo.state_head()
    with pytest.raises(StateError, match=r"state/pending\.json: not valid JSON"):
        transact(store, add("content/b.md"), message="x")
    assert repo.state_head() == head


def written_blobs(git: Git, contents: list[bytes]) -> list[str]:
    """Blobs of `contents` written by one write, their ids in order."""
    objects = git.objects()
    ids = [objects.blob(data) for data in contents]
    objects.write()
    return ids


def test_a_large_write_is_one_pack_and_a_small_one_loose_objects(repo: Repo) -> None:
    """Creating a file per object is most of the time a large write takes: from PACK_FROM
    objects, one pack (`index-pack`), as git keeps a push. Either way each id is the blob's."""
    repo.commit()
    git = Git(repo.root)
    packs = repo.root / ".git" / "objects" / "pack"

    def pack_count() -> int:
        return len(list(packs.glob("*.pack")))

    def loose() -> set[Path]:
        return set((repo.root / ".git" / "objects").glob("??/*"))

    loose_before = loose()
    many = [f"shard {n}\n".encode() * (n % 7 + 1) for n in range(PACK_FROM - 1)] + [b""]
    before = pack_count()
    ids = written_blobs(git, many)
    assert pack_count() == before + 1
    assert loose() == loose_before, "none left loose"
    assert ids == [blob_oid(data) for data in many]
    assert [found and found[1] for found in git.read_objects(ids)] == many

    few = [b"pending\n", b"dead\n"]
    assert written_blobs(git, few) == [blob_oid(data) for data in few]
    assert pack_count() == before + 1


def test_the_objects_state_writes_leave_are_packed_as_git_commit_would(repo: Repo) -> None:
    """`git gc --auto` after each write, at the repository's own thresholds: here more than
    one pack (and gc in the foreground, so that the test sees it done). Git's default is 50
    packs or some 6,700 loose objects; under them it does nothing."""
    repo.commit()
    store = LocalGitStore(repo.root, "steadypress-state")
    git, packs = Git(repo.root), repo.root / ".git" / "objects" / "pack"
    for batch in range(2):  # two large writes: a pack each
        written_blobs(git, [f"{batch} shard {n}\n".encode() for n in range(PACK_FROM + 1)])
    transact(store, add("content/a.md"), message="add")
    assert len(list(packs.glob("*.pack"))) >= 2 and _is_loose(repo, repo.state_head())
    repo.git("config", "gc.autoPackLimit", "1")
    repo.git("config", "gc.autoDetach", "false")
    transact(store, add("content/b.md"), message="add")
    assert len(list(packs.glob("*.pack"))) == 1
    assert not _is_loose(repo, repo.state_head())  # the state's objects are in the pack
    assert set(store.load().ledger.pending) == {"site:content/a.md", "site:content/b.md"}


def _is_loose(repo: Repo, oid: str | None) -> bool:
    assert oid is not None
    return (repo.root / ".git" / "objects" / oid[:2] / oid[2:]).exists()


def test_a_tree_is_written_as_git_mktree_writes_it(repo: Repo) -> None:
    """The same object id as `git mktree` for entries in any order, names that sort by byte
    and a folder sorting as if its name ended in "/"; computed before git writes it, and a
    folder named by its parent before either is written."""
    git = Git(repo.root)
    blob = written_blobs(git, [b"x"])[0]
    objects = git.objects()
    folder = objects.tree([("100644", "blob", blob, "0.json")])
    entries = [("040000", "tree", folder, "a"), ("100644", "blob", blob, "a.json"),
               ("100644", "blob", blob, "a-b"), ("100755", "blob", blob, "Z"),
               ("100644", "blob", blob, "é.json"), ("040000", "tree", folder, "a0")]  # fmt: skip
    listing = "".join(f"{mode} {kind} {oid}\t{name}\n" for mode, kind, oid, name in entries)
    made = objects.tree(entries)
    assert made == objects.tree(entries[::-1])
    objects.write()
    assert made == repo.git("mktree", stdin=listing)
    assert repo.git("cat-file", "-t", folder) == "tree"
