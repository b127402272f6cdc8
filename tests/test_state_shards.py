"""Published records in shards and the reconcile's marker: what a run reads and writes stays the
same however many articles were published, and a state branch of version 1 moves over by
itself."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import replace

import pytest

from steadypress import codec, shardtree
from steadypress.ledger import PublishedRecord
from steadypress.published import key_digest, shard_of
from steadypress.store import LedgerStore, localgit, transact
from steadypress.store.localgit import LocalGitStore
from steadypress.store.transaction import Change
from tests.fakes.github import FakeGitHub
from tests.helpers import (
    Repo,
    Result,
    article,
    github_store,
    recorded_git,
    run_cli,
    small_shard_tree,
)
from tests.schema import validate_state_file

ZERO = "0" * 40
STATE = "steadypress-state"


def record(n: int) -> dict[str, object]:
    return PublishedRecord(f"{n:040x}", "c" * 40, None, "2026-01-01T00:00:00Z", f"/p{n}/")._asdict()


def version_1_branch(repo: Repo, published: dict[str, dict[str, object]] | None) -> None:
    """A state branch as steadypress wrote it before shards (without its published file when
    `published` is None)."""
    files = {
        codec.PENDING_FILE: b'{\n  "pending": {},\n  "version": 1\n}\n',
        codec.DEAD_FILE: b'{\n  "dead": {},\n  "version": 1\n}\n',
    }
    if published is not None:
        files[codec.LEGACY_PUBLISHED_FILE] = json.dumps(
            {"published": published, "version": 1}, indent=2, sort_keys=True
        ).encode()
    entries = "".join(
        f"100644 blob {repo.git('hash-object', '-w', '--stdin', stdin=data)}\t{path[6:]}\n"
        for path, data in files.items()
    )
    state = repo.git("mktree", stdin=entries)
    root = repo.git("mktree", stdin=f"040000 tree {state}\tstate\n")
    repo.git("update-ref", f"refs/heads/{STATE}", repo.git("commit-tree", root, "-m", "v1"))


def test_a_version_1_state_branch_moves_to_shards_on_the_first_write(repo: Repo) -> None:
    """Nothing is lost: every record of the old single file is in its shard afterwards, the old
    file is gone, and what was published is not published again."""
    paths = [f"content/p{n}.md" for n in range(30)]
    repo.commit(**{path: article(f"P{n}") for n, path in enumerate(paths)})
    head = repo.head()
    old = {f"site:{path}": {**record(n), "blob": repo.blob(path, head), "commit": head}
           for n, path in enumerate(paths)}  # fmt: skip
    version_1_branch(repo, old)
    repo.commit(**{"content/new.md": article("New")})
    result = run_cli(repo, "run")
    assert result.code == 0, result.err
    assert "1 published" in result.out, "the 30 already published were not published again"
    names = repo.git("ls-tree", "-r", "--name-only", STATE).split()
    assert codec.LEGACY_PUBLISHED_FILE not in names
    assert len([n for n in names if codec.shard_name(n)]) == len(
        {shard_of(key) for key in [*old, "site:content/new.md"]}
    )
    published = dict(repo.ledger().published)
    assert {key: published[key]._asdict() for key in old} == old
    assert "site:content/new.md" in published


def test_a_version_1_branch_that_lost_its_published_file_is_refused(repo: Repo) -> None:
    """Reading it as version 2 would forget what was published: exit 3, the file named."""
    repo.commit(**{"content/a.md": article("A")})
    version_1_branch(repo, None)
    head = repo.state_head()
    result = run_cli(repo, "run")
    assert result.code == 3 and "state/published.json" in result.err and "missing" in result.err
    assert repo.state_head() == head, "nothing written over it"


def gh(repo: Repo, *args: str) -> Result:
    return run_cli(repo, *args, "--backend", "github")


def state_requests(github: FakeGitHub) -> dict[str, int]:
    return {call: n for call, n in github.requests.items() if "graphql" in call}


def test_the_reconcile_compares_only_what_changed_since_it_last_did(
    repo: Repo, github: FakeGitHub
) -> None:
    """A sweep with nothing new reads no published record: one request. A push that starts where
    the last reconcile left off moves its marker on, so the sweep after it is idle too. A push
    the workflow missed is found by the next sweep from the diff, reading one shard; a rewritten
    history, or a changed configuration, is compared in full."""
    repo.commit(**{f"content/p{n}.md": article(f"P{n}") for n in range(20)})
    assert gh(repo, "sweep").code == 0
    pending = json.loads(github.repository.git("show", f"{STATE}:{codec.PENDING_FILE}"))
    assert pending["reconciled"] == repo.head()

    with github.counting() as calls:
        assert gh(repo, "sweep").code == 0
    assert dict(calls) == {"graphql LoadBranch": 1}, "an idle sweep: one request"

    before = repo.head()
    repo.commit(**{"content/pushed.md": article("Pushed")})
    assert gh(repo, "drain", "--push", before, repo.head()).code == 0
    with github.counting() as calls:
        state_head = github.repository.head_of(STATE)
        assert gh(repo, "sweep").code == 0
    assert dict(calls) == {"graphql LoadBranch": 1}, "the push moved the marker on"
    assert github.repository.head_of(STATE) == state_head

    repo.commit(**{"content/missed.md": article("Missed")})  # its push event never came
    with github.counting() as calls:
        result = gh(repo, "sweep")
    assert result.code == 0 and "1 published" in result.out
    assert calls["graphql ReadFiles"] == 1, "one shard read: the missed article's"

    repo.git("reset", "-q", "--hard", "HEAD~1")  # history rewritten: missed.md is gone
    result = gh(repo, "sweep")
    assert result.code == 0 and "1 unpublished" in result.out, result.out + result.err
    assert "reconciling every article" in result.err

    repo.commit(**{"steadypress.yml": "targets:\n  site: {kind: site, title: Renamed}\n"})
    result = gh(repo, "sweep")
    assert result.code == 0 and "reconciling every article" in result.err


def renew(changes: dict[str, PublishedRecord]) -> Change[None]:
    return lambda ledger: (replace(ledger, published=ledger.published.renewed(changes)), None)


@pytest.fixture(params=["git", "github"])
def backend(
    request: pytest.FixtureRequest, repo: Repo
) -> Iterator[tuple[Callable[[], LedgerStore], Callable[[], dict[str, bytes]]]]:
    """A way to open the state store afresh (a new process), and the state branch's files."""
    if request.param == "git":
        repo.commit()

        def files() -> dict[str, bytes]:
            names = repo.git("ls-tree", "-r", "--name-only", STATE).split()
            return {name: repo.git("show", f"{STATE}:{name}").encode() for name in names}

        yield (lambda: LocalGitStore(repo.root, STATE)), files
        return
    with FakeGitHub() as github:

        def github_files() -> dict[str, bytes]:
            listing = github.repository.text("ls-tree", "-r", "--name-only", STATE).split()
            return {name: github.repository.git("show", f"{STATE}:{name}") for name in listing}

        yield (lambda: github_store(github)), github_files


def test_a_full_shard_splits_and_every_record_is_still_found(
    backend: tuple[Callable[[], LedgerStore], Callable[[], dict[str, bytes]]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A shard a write leaves with more than `SPLIT_ABOVE` records becomes a split marker, its
    records moved to the files one hex digit longer (every target of an article together); a
    new process finds each record there, a change and a removal land in the right file, a full
    reading finds every record once, and each file is valid against the schema. (16 shards to
    begin with, split above 3: a small blog does.)"""
    small_shard_tree(monkeypatch)
    open_store, files = backend
    records = {f"{target}:content/p{n}.md": PublishedRecord(f"{n:040x}", "c" * 40, None,
                                                            "2026-01-01T00:00:00Z", f"/p{n}/")
               for n in range(60) for target in ("site", "devto")}  # fmt: skip
    store = open_store()
    transact(store, renew(dict(list(records.items())[:40])), message="some")
    transact(store, renew(records), message="the rest, by the process that split the first")
    for url, by in (("/moved/", store), ("/again/", open_store())):
        changed = {"site:content/p7.md": records["site:content/p7.md"]._replace(url=url)}
        transact(by, renew(changed), message="one article: by the same process, another one")
        records |= changed

    _assert_laid_out(files(), targets=2)
    fresh = open_store().load().ledger.published
    assert all(fresh[key] == value for key, value in records.items()), "found one by one"
    assert dict(open_store().load().ledger.published) == records, "and all at once"


def test_a_store_that_split_shards_reads_none_of_what_it_wrote_again(
    backend: tuple[Callable[[], LedgerStore], Callable[[], dict[str, bytes]]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """After a write that split shards, the store knows them as it wrote them: the next
    transactions on the records it wrote read no shard (a first build of 10^5 splits shards in
    most of its windows, and read everything it looked at again after each), and what they
    write is filed where a new process finds it."""
    small_shard_tree(monkeypatch)
    open_store, files = backend
    records = {f"site:content/p{n}.md": PublishedRecord(f"{n:040x}", "c" * 40, None,
                                                        "2026-01-01T00:00:00Z", f"/p{n}/")
               for n in range(80)}  # fmt: skip
    transact(open_store(), renew(dict(list(records.items())[:10])), message="a few, no split")
    store = open_store()
    reads: list[tuple[object, ...]] = []
    read_shards = store._read_shards  # type: ignore[attr-defined]

    def counted(*args: object) -> object:
        reads.append(args)
        return read_shards(*args)

    monkeypatch.setattr(store, "_read_shards", counted)
    transact(store, renew(records), message="the rest: most shards split")
    assert reads, "the store read the shards of the records it had not seen"
    reads.clear()
    for n in (3, 40, 77):  # one at a time, each the records of one shard split by the last write
        changed = {f"site:content/p{n}.md": records[f"site:content/p{n}.md"]._replace(url="/m/")}
        transact(store, renew(changed), message=f"moved p{n}")
        records |= changed
    transact(store, renew({key: value._replace(url="/all/") for key, value in records.items()}),
             message="every record")  # fmt: skip
    assert reads == []
    _assert_laid_out(files(), targets=1)
    assert dict(open_store().load().ledger.published) == {
        key: value._replace(url="/all/") for key, value in records.items()
    }


def _assert_laid_out(written: dict[str, bytes], *, targets: int) -> None:
    """The state branch's shard files are as the shard tree says: each valid, each
    leaf below split markers only, holding only keys filed under its name, no more than it may
    hold, and every one of an article's `targets` records together. Some must have split."""
    split = {name for path, data in written.items()
             if (name := codec.shard_name(path)) and b'"split"' in data}  # fmt: skip
    assert split and {len(name) for name in split} <= set(range(1, shardtree.MAX_DIGITS))
    for path, data in written.items():
        validate_state_file(path, data)
        name = codec.shard_name(path)
        if name is None or name in split:
            continue
        assert all(name[:n] in split for n in range(1, len(name))), f"{path} is reachable"
        held = json.loads(data)["published"]
        assert len(held) <= shardtree.SPLIT_ABOVE or len(name) == shardtree.MAX_DIGITS
        assert all(key_digest(key).startswith(name) for key in held)
        assert len({key.split(":", 1)[1] for key in held}) * targets == len(held)


def _seeded_in_folders(
    repo: Repo, monkeypatch: pytest.MonkeyPatch, count: int
) -> dict[str, PublishedRecord]:
    """`count` records written to the local store with shards that split above 3 records (16
    to begin with), so that they fill folders below the top, as 10^5 records do."""
    small_shard_tree(monkeypatch)
    repo.commit()
    records = {f"site:content/p{n}.md": PublishedRecord(f"{n:040x}", "c" * 40, None,
                                                        "2026-01-01T00:00:00Z", f"/p{n}/")
               for n in range(count)}  # fmt: skip
    transact(LocalGitStore(repo.root, STATE), renew(records), message="seed: shards split")
    return records


def test_a_write_across_many_folders_of_shards_takes_a_git_process_a_level(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past a few thousand records the shards fill folders below the top (under split
    markers), and a first build's record of 500 changes hundreds of them at once: the folders
    are read and written a level at a time, not one git process each way per folder (at 10^5
    that was 4 s a write, the first build quadratic). What is written is the same tree as one
    write of them all into an empty branch."""
    records = _seeded_in_folders(repo, monkeypatch, 600)
    folders = {
        path.rsplit("/", 1)[0]
        for path in repo.git("ls-tree", "-r", "--name-only", STATE, "--", "state/published").split()
    }
    moved = {key: record._replace(url=f"/moved{record.url}") for key, record in records.items()}
    ran = recorded_git(monkeypatch)
    transact(LocalGitStore(repo.root, STATE), renew(moved), message="every record at once")
    git_processes = [args[0] for args in ran]
    assert len(folders) > 40, "the records are spread over many folders: the test shows a cost"
    # The load's reads (a level at a time), the blobs, a read and a write a level, the commit.
    assert len(git_processes) <= 20, " ".join(git_processes)

    fresh = LocalGitStore(repo.root, STATE).load(hint=list(moved)).ledger.published
    assert {key: fresh[key] for key in moved} == moved, "read back through the folders' listings"
    at_once = Repo(repo.root.parent / "at-once")
    at_once.commit()
    transact(LocalGitStore(at_once.root, STATE), renew(moved), message="from nothing")
    tree = f"{STATE}:state/published"
    assert repo.git("rev-parse", tree) == at_once.git("rev-parse", tree)


def test_the_folder_listings_a_store_keeps_may_be_let_go_of_while_it_lists(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The listings of `state/published/` a store keeps for its next write are bounded: a
    listing read while the bound lets go of the others is as read by a store that kept
    none (a first build at 10^5 failed so: the listings it had kept were gone)."""
    _seeded_in_folders(repo, monkeypatch, 300)
    tree = repo.git("rev-parse", f"{STATE}:state/published")
    folders = [line.split("\t")[1] for line in repo.git("ls-tree", tree).splitlines()
               if " tree " in line]  # fmt: skip
    store = LocalGitStore(repo.root, STATE)
    store._listings(tree, folders[:4])  # kept: the top's listing and four folders'
    monkeypatch.setattr(localgit, "_LISTED_ENTRIES_KEPT", 1)  # each listing read lets go
    assert store._listings(tree, folders) == LocalGitStore(repo.root, STATE)._listings(
        tree, folders
    )


@pytest.mark.parametrize("split_above", [3, 1000])
def test_a_load_for_many_articles_reads_their_shards_a_level_at_a_time(
    split_above: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Asking every file a record may be in triples the files a load asks for: for more
    records than one read holds, GitHub is asked for the first level with the small files,
    then a level at a time below the split markers found; without any, the load is all."""
    small_shard_tree(monkeypatch, split_above=split_above)
    records = {f"site:content/p{n}.md": PublishedRecord(f"{n:040x}", "c" * 40, None,
                                                        "2026-01-01T00:00:00Z", f"/p{n}/")
               for n in range(120)}  # fmt: skip
    with FakeGitHub() as github:
        transact(github_store(github), renew(records), message="seed")
        with github.counting() as calls:
            published = github_store(github).load(hint=list(records)).ledger.published
            found = {key: published[key] for key in records}
        assert found == records
        listing = github.repository.text("ls-tree", "-r", "--name-only", STATE).split()
        markers = {name for path in listing if (name := codec.shard_name(path))
                   and b'"split"' in github.repository.git("show", f"{STATE}:{path}")}  # fmt: skip
        levels = {len(name) for name in markers}  # a read for the level below each
        assert bool(markers) == (split_above == 3)
        assert calls == {"graphql LoadBranch": 1, **({"graphql ReadFiles": len(levels)}
                                                     if levels else {})}  # fmt: skip


def test_status_counts_from_the_pending_file_and_an_earlier_state_is_counted_by_its_next_write(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The published records' counts are kept in `pending.json`, moved by each change, so
    `status` reads no record; a state of version 2 (no counts) is counted by `status` from
    every record, and by the next write, which keeps the counts from then on."""
    repo.commit(**{f"content/p{n}.md": article(f"P{n}") for n in range(5)})
    assert run_cli(repo, "run").code == 0
    repo.git("rm", "-q", "content/p0.md")
    repo.commit("one goes")
    assert run_cli(repo, "run").code == 0
    pending = json.loads(repo.state_file(codec.PENDING_FILE))
    assert pending["version"] == 4 and pending["counts"] == {"published": 4, "unpublished": 1}

    # As 0.2.0 wrote it: `pending.json` of version 2, no counts; the marker's commit in
    # `reconciled.json`, of version 2 too.
    marker = json.loads(repo.state_file(codec.RECONCILED_FILE))["reconciled"]
    old_marker = {"reconciled": {**marker, "commit": pending["reconciled"]}, "version": 2}
    old = json.dumps({"pending": pending["pending"], "version": 2}, indent=2).encode() + b"\n"
    head = repo.git("rev-parse", STATE)
    blob = repo.git("hash-object", "-w", "--stdin", stdin=old)
    marker_blob = repo.git("hash-object", "-w", "--stdin", stdin=json.dumps(old_marker).encode())

    def replaced(tree: str, name: str, entry: str) -> str:
        listing = [line for line in repo.git("ls-tree", tree).splitlines()
                   if not line.endswith(f"\t{name}")]  # fmt: skip
        return repo.git("mktree", stdin="\n".join([*listing, f"{entry}\t{name}"]) + "\n")

    state = replaced(f"{head}:state", "pending.json", f"100644 blob {blob}")
    state = replaced(state, "reconciled.json", f"100644 blob {marker_blob}")
    root = replaced(f"{head}^{{tree}}", "state", f"040000 tree {state}")
    repo.git("update-ref", f"refs/heads/{STATE}", repo.git("commit-tree", root, "-p", head,
                                                           "-m", "as 0.2.0 wrote it"))  # fmt: skip
    assert "counts" not in json.loads(repo.state_file(codec.PENDING_FILE))
    assert "published: 4 (and 1 unpublished)" in run_cli(repo, "status").out

    repo.commit(**{"content/new.md": article("New")})
    assert run_cli(repo, "run").code == 0
    pending = json.loads(repo.state_file(codec.PENDING_FILE))
    assert pending["counts"] == {"published": 5, "unpublished": 1}
    # The marker's commit moved on into `pending.json`; the rest of the marker, unchanged, is
    # left as 0.2.0 wrote it, its own commit now the older.
    assert pending["version"] == 4 and pending["reconciled"] == repo.head()
    assert json.loads(repo.state_file(codec.RECONCILED_FILE)) == old_marker
    marker = repo.ledger().reconciled
    assert marker is not None and marker.commit == repo.head()
    state = repo.git("rev-parse", STATE)
    assert "0 published" in run_cli(repo, "sweep").out
    assert repo.git("rev-parse", STATE) == state, "the sweep after it had nothing to compare"

    def unread(*_args: object) -> None:
        raise AssertionError("status read a published record")

    monkeypatch.setattr(LocalGitStore, "_read_shards", unread)
    assert "published: 5 (and 1 unpublished)" in run_cli(repo, "status").out
