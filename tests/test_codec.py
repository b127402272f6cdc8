"""The state files are read strictly: anything not fully understood is refused with its name."""

import json
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from steadypress import codec, statedecode
from steadypress.claiming import Completion, claim, complete
from steadypress.errors import StateError
from steadypress.ledger import Backlog, Ledger, Look, PublishedRecord, Reconciled
from steadypress.published import PublishedRecords, key_digest, shard_of
from steadypress.transitions import Sighting, enqueue

# Git object ids, as the state files hold them.
B1, B2, C1, C2 = "b1" * 20, "b2" * 20, "c1" * 20, "c2" * 20
B, C = "b" * 40, "c" * 40
NOW = datetime(2026, 11, 29, tzinfo=UTC)
A_SHARD = codec.shard_file(shard_of("site:content/a.md"))


def files_of(ledger: Ledger) -> dict[str, bytes]:
    return codec.encode_state(ledger)


def sample() -> Ledger:
    return enqueue(Ledger(), [Sighting("site", "content/a.md", B1, C1)], now=NOW)[0]


def published_sample() -> Ledger:
    ledger, _, _ = claim(
        sample(), ["site:content/a.md"], holder="h", token="t", now=NOW, lease_ttl=NOW - NOW
    )
    done = Completion("site:content/a.md", B1, C1, "t", url="/a/")
    return complete(ledger, [done], now=NOW)[0]


def test_files_are_sorted_indented_and_versioned() -> None:
    """Readable diffs: sorted keys, 2-space indent, a version, a final newline."""
    text = codec.encode_pending(sample()).decode()
    assert text.startswith(
        '{\n  "counts": {\n    "published": 0,\n    "unpublished": 0\n  },\n'
        '  "pending": {\n    "site:content/a.md": {\n      "attempts": 0,'
    )
    assert text.endswith('  "version": 4\n}\n')


def test_a_kept_pending_encoder_writes_what_a_fresh_one_writes() -> None:
    """Reusing renderings of unchanged items never changes the bytes, whatever the change."""
    encoder = codec.PendingEncoder()
    paths = [f"content/p{n}.md" for n in range(5)]
    ledger, _ = enqueue(Ledger(), [Sighting("site", p, B1, C1) for p in paths], now=NOW)
    assert encoder(ledger) == codec.encode_pending(ledger)
    ledger, _, _ = claim(
        ledger, ["site:content/p1.md"], holder="h", token="t", now=NOW, lease_ttl=timedelta(1)
    )
    ledger, _ = enqueue(ledger, [Sighting("site", "content/p2.md", B2, C2)], now=NOW)
    assert encoder(ledger) == codec.encode_pending(ledger)
    empty = {"counts": {"published": 0, "unpublished": 0}, "pending": {}, "version": 4}
    assert json.loads(encoder(Ledger())) == empty
    assert encoder(ledger) == codec.encode_pending(ledger)


def test_lapses_are_written_only_where_there_are_some_and_read_back() -> None:
    """A ledger without lapses is written byte for byte as before they were counted, so an
    older steadypress still reads it; one with them keeps them."""
    ledger = sample()
    assert b"lapses" not in codec.encode_pending(ledger)
    expired = NOW - timedelta(minutes=1)
    key = "site:content/a.md"
    ledger, _, _ = claim(
        ledger, [key], holder="h", token="t", now=expired, lease_ttl=expired - expired
    )
    ledger, items, _ = claim(
        ledger, [key], holder="h2", token="t2", now=NOW, lease_ttl=timedelta(1)
    )
    assert items[0].lapses == 1
    files = files_of(ledger)
    assert json.loads(files[codec.PENDING_FILE])["pending"][key]["lapses"] == 1
    assert statedecode.decode_state(files).pending == ledger.pending


@pytest.mark.parametrize(
    ("name", "mangle", "message"),
    [
        (codec.PENDING_FILE, lambda d: b"{not json", "not valid JSON"),
        (
            codec.PENDING_FILE,
            lambda d: d.replace(b'"version": 4', b'"version": 5'),
            "format version 5",
        ),
        (
            codec.PENDING_FILE,
            lambda d: d.replace(b'"unpublished": 0', b'"unpublished": -1'),
            "'counts' must be",
        ),
        (
            codec.PENDING_FILE,
            lambda d: d.replace(b'"version": 4', b'"version": 2'),
            "'counts' must be .* in a file of version 3 or 4",
        ),
        (
            codec.PENDING_FILE,
            lambda d: d.replace(b'"counts"', b'"tally"'),
            "must hold exactly 'version' and 'pending' \\(and 'counts'\\)",
        ),
        (
            codec.PENDING_FILE,
            lambda d: d.replace(b'"attempts": 0', b'"attempts": "0"'),
            "'attempts'",
        ),
        (codec.PENDING_FILE, lambda d: d.replace(b'"attempts": 0', b'"tries": 0'), "missing field"),
        (
            codec.PENDING_FILE,
            lambda d: d.replace(b'"issue": null', b'"owner": "workers"'),
            "unknown field",
        ),
        (
            codec.PENDING_FILE,
            lambda d: d.replace(b'"target": "site"', b'"target": "devto"'),
            "key does not match",
        ),
        (
            codec.PENDING_FILE,
            lambda d: d.replace(b'"2026-11-29T00:00:00Z"', b'"yesterday"'),
            "ISO-8601",
        ),
        (A_SHARD, lambda d: b"[]", "must hold a JSON object"),
        (A_SHARD, lambda d: d.replace(b'"version": 2', b'"version": 1'), "format version 1"),
        (codec.DEAD_FILE, lambda d: b"\xff\xfe", "not valid JSON"),
        (
            codec.RECONCILED_FILE,
            lambda d: d.replace(b'"targets": [', b'"targets": [7, '),
            "list of names",
        ),
    ],
)
def test_a_damaged_file_is_refused_with_its_name_and_the_problem(
    name: str, mangle: Callable[[bytes], bytes], message: str
) -> None:
    """Corruption is a StateError naming the file, never a partial ledger that could be saved."""
    ledger, _ = enqueue(published_sample(), [Sighting("site", "content/a.md", B2, C2)], now=NOW)
    files = files_of(replace(ledger, reconciled=Reconciled(C1, ("site",), "f" * 40)))
    files[name] = mangle(files[name])
    with pytest.raises(StateError, match=message) as caught:
        dict(statedecode.decode_state(files).published)
    assert caught.value.where == name


def test_a_record_in_the_wrong_shard_is_refused_naming_where_it_belongs() -> None:
    files = files_of(published_sample())
    elsewhere = codec.shard_file("fff" if codec.shard_file("fff") != A_SHARD else "000")
    files[elsewhere] = files.pop(A_SHARD)
    with pytest.raises(StateError, match=f"belongs in {A_SHARD}"):
        dict(statedecode.decode_state(files).published)


def test_a_shard_file_below_one_that_has_not_split_is_not_read_as_records() -> None:
    """A reader looks for a record in the first file its digest names that is not a split
    marker; a full reading counts what such lookups find, never a stray file below (nothing
    steadypress writes leaves one)."""
    files = files_of(published_sample())
    name = codec.shard_name(A_SHARD)
    assert name is not None
    stray = codec.shard_file(name + key_digest("site:content/a.md")[len(name)])
    files[stray] = files[A_SHARD]  # the same record, where no lookup looks
    published = statedecode.decode_state(files).published
    assert list(published) == ["site:content/a.md"] and len(published) == 1


def test_every_target_of_an_article_shares_its_shard_and_the_state_round_trips() -> None:
    paths = [f"content/p{n}.md" for n in range(50)]
    records = {f"{target}:{path}": PublishedRecord(B, C, None, "2026-01-01T00:00:00Z", None)
               for path in paths for target in ("site", "devto")}  # fmt: skip
    ledger = replace(
        Ledger(published=PublishedRecords.of(records)),
        reconciled=Reconciled(C, ("a", "b"), "f" * 40, Backlog("d" * 40, "content/p1.md")),
    )
    files = files_of(ledger)
    assert len([p for p in files if codec.shard_name(p)]) == len({shard_of(k) for k in records})
    decoded = statedecode.decode_state(files)
    assert dict(decoded.published) == records and decoded.reconciled == ledger.reconciled


def test_a_push_that_moves_the_marker_on_rewrites_the_pending_file_alone() -> None:
    """The marker's commit is in `pending.json`, which a push's writes carry anyway; the rest
    of the marker (`reconciled.json`) is written only when it changes (the targets, the
    configuration, a backlog, a look), and then with `pending.json`, so that the commit is
    written beside it whatever version the pending file read was."""
    encoder = codec.StateEncoder()
    marker = Reconciled(C1, ("site",), "f" * 40)
    before = replace(sample(), reconciled=marker)
    moved = replace(before, reconciled=replace(marker, commit=C2))
    assert set(encoder.small_files(moved, before)) == {codec.PENDING_FILE}
    written = encoder.small_files(moved, before)[codec.PENDING_FILE]
    assert written is not None and json.loads(written)["reconciled"] == C2
    reconfigured = replace(moved, reconciled=replace(marker, commit=C2, config="e" * 40))
    assert set(encoder.small_files(reconfigured, moved)) == {
        codec.PENDING_FILE, codec.RECONCILED_FILE,
    }, "with the commit: the pending file read may hold none"  # fmt: skip
    assert set(encoder.small_files(replace(moved, reconciled=None), moved)) == {
        codec.PENDING_FILE, codec.RECONCILED_FILE,
    }  # fmt: skip
    assert statedecode.decode_state(files_of(reconfigured)).reconciled == reconfigured.reconciled


def test_a_marker_of_version_2_holds_its_commit_until_the_pending_file_holds_a_newer_one() -> None:
    """A state an earlier steadypress wrote: `reconciled.json` of version 2 with its commit,
    beside a `pending.json` without one. Once a write moved the commit into `pending.json`,
    that one is read, the old file's left as it was (not written again: nothing else of it
    changed)."""
    marker = Reconciled(C1, ("site",), "f" * 40)
    files = files_of(replace(sample(), reconciled=marker))
    old = json.loads(files[codec.RECONCILED_FILE])
    old_marker = {"version": 2, "reconciled": {**old["reconciled"], "commit": C1}}
    pending = json.loads(files[codec.PENDING_FILE])
    files[codec.RECONCILED_FILE] = json.dumps(old_marker).encode()
    older = {name: value for name, value in pending.items() if name != "reconciled"}
    files[codec.PENDING_FILE] = json.dumps({**older, "version": 3}).encode()
    assert statedecode.decode_state(files).reconciled == marker
    files[codec.PENDING_FILE] = json.dumps({**pending, "reconciled": C2}).encode()
    assert statedecode.decode_state(files).reconciled == replace(marker, commit=C2)


def test_a_marker_of_version_2_whose_look_alone_changes_is_written_with_its_commit() -> None:
    """A state as an earlier steadypress wrote it (`pending.json` without the marker's
    commit, `reconciled.json` of version 2 with it): a change of the marker's look alone
    writes both files, and the state reads back whole."""
    marker = Reconciled(C1, ("site",), "f" * 40)
    ledger = replace(sample(), reconciled=marker)
    files = files_of(ledger)
    old = json.loads(files[codec.RECONCILED_FILE])
    files[codec.RECONCILED_FILE] = json.dumps(
        {"version": 2, "reconciled": {**old["reconciled"], "commit": C1}}
    ).encode()
    pending = json.loads(files[codec.PENDING_FILE])
    del pending["reconciled"]
    files[codec.PENDING_FILE] = json.dumps({**pending, "version": 3}).encode()
    read = statedecode.decode_state(files)
    assert read.reconciled == marker
    looked = replace(read, reconciled=replace(marker, looks=(("site", Look("p", "l", "s")),)))
    for name, data in codec.StateEncoder().small_files(looked, read).items():
        assert data is not None
        files[name] = data
    assert statedecode.decode_state(files).reconciled == looked.reconciled


@pytest.mark.parametrize(
    ("change", "where", "message"),
    [
        ({codec.RECONCILED_FILE: None}, codec.PENDING_FILE, "reconciled.json is missing"),
        ({"reconciled": "not a commit"}, codec.PENDING_FILE, "'reconciled' must be a git commit"),
        ({"version": 3}, codec.PENDING_FILE, "'reconciled' must be .* version 4"),
        ({"reconciled": None}, codec.PENDING_FILE, "'reconciled' must be a git commit"),
        ({"drop": True}, codec.RECONCILED_FILE, "holds no commit, and state/pending.json names"),
    ],
)
def test_a_marker_split_wrongly_between_its_two_files_is_refused(
    change: dict[str, object], where: str, message: str
) -> None:
    """Each file names its own problem; nothing is guessed (and nothing then written)."""
    files = files_of(replace(sample(), reconciled=Reconciled(C1, ("site",), "f" * 40)))
    pending = json.loads(files[codec.PENDING_FILE])
    if codec.RECONCILED_FILE in change:
        del files[codec.RECONCILED_FILE]
    elif change.get("drop"):
        del pending["reconciled"]
    else:
        pending.update(change)
    files[codec.PENDING_FILE] = json.dumps(pending).encode()
    with pytest.raises(StateError, match=message) as caught:
        statedecode.decode_state(files)
    assert caught.value.where == where


def test_version_1_s_single_published_file_is_still_read() -> None:
    """The layout before shards: `state/published.json` with every record, version 1."""
    record = {"blob": B, "commit": C, "id": None, "url": "/a/",
              "published_at": "2026-01-01T00:00:00Z"}  # fmt: skip
    old = {
        codec.PENDING_FILE: b'{"pending": {}, "version": 1}',
        codec.DEAD_FILE: b'{"dead": {}, "version": 1}',
        codec.LEGACY_PUBLISHED_FILE: json.dumps(
            {"version": 1, "published": {"site:content/a.md": record}}
        ).encode(),
    }
    ledger = statedecode.decode_state(old)
    assert ledger.published["site:content/a.md"].url == "/a/" and ledger.reconciled is None


def test_a_missing_file_on_an_existing_branch_is_refused() -> None:
    """A branch without the three files is not ours to overwrite."""
    files = files_of(sample())
    del files[codec.DEAD_FILE]
    with pytest.raises(StateError, match="missing"):
        statedecode.decode_state(files)


def test_status_json_document_is_plain_json() -> None:
    """The whole ledger as one JSON document, for scripts."""
    document = codec.ledger_document(sample())
    assert json.loads(json.dumps(document))["pending"]["site:content/a.md"]["blob"] == B1


def test_a_shard_is_exactly_the_standard_librarys_rendering() -> None:
    """The fast shard writer gives the bytes json.dumps(indent=2, sort_keys=True) would."""
    data = files_of(published_sample())[A_SHARD]
    assert data == (json.dumps(json.loads(data), indent=2, sort_keys=True) + "\n").encode()
    assert json.loads(data)["published"]["site:content/a.md"] == {
        "blob": B1,
        "commit": C1,
        "id": None,
        "published_at": "2026-11-29T00:00:00Z",
        "url": "/a/",
    }


def test_an_unusual_published_record_is_still_read_strictly() -> None:
    """Records off the fast path (missing optional fields, wrong types) get the strict reader."""
    files = files_of(sample())
    files[A_SHARD] = json.dumps(
        {
            "version": 2,
            "published": {
                "site:content/a.md": {
                    "blob": B,
                    "commit": C,
                    "published_at": "2026-01-01T00:00:00Z",
                },
            },
        }
    ).encode()
    assert statedecode.decode_state(files).published["site:content/a.md"].url is None
    files[A_SHARD] = files[A_SHARD].replace(f'"blob": "{B}"'.encode(), b'"blob": 7')
    with pytest.raises(StateError, match="'blob' must be a git object id"):
        dict(statedecode.decode_state(files).published)


@pytest.mark.parametrize(
    "stamp", ["2026-13-01T00:00:00Z", "2026-01-01T00:00:00+02:00", "2026-01-01"]
)
def test_a_published_time_that_we_would_not_have_written_is_refused(stamp: str) -> None:
    """published_at is kept as text, so it must be a real UTC time in the written shape."""
    files = files_of(sample())
    files[A_SHARD] = json.dumps(
        {
            "version": 2,
            "published": {
                "site:content/a.md": {
                    "blob": B,
                    "commit": C,
                    "id": None,
                    "url": None,
                    "published_at": stamp,
                },
            },
        }
    ).encode()
    with pytest.raises(StateError, match="published_at"):
        dict(statedecode.decode_state(files).published)


def test_a_split_marker_is_read_however_it_is_spelt_and_a_near_miss_is_refused() -> None:
    """A marker indented by hand is still a marker; a file saying split beside records, or
    split false, is neither a marker nor a shard: refused by name, never written over."""
    files = files_of(published_sample())
    name = codec.shard_name(A_SHARD)
    assert name is not None
    deeper = codec.shard_file(name + key_digest("site:content/a.md")[len(name)])
    files[deeper] = files.pop(A_SHARD)
    files[A_SHARD] = b'{\n    "split": true,\n    "version": 2\n}\n'
    assert list(statedecode.decode_state(files).published) == ["site:content/a.md"]
    for near_miss in (b'{"version": 2, "split": false}', b'{"version": 2, "split": true, "x": 1}'):
        files[A_SHARD] = near_miss
        with pytest.raises(StateError, match=A_SHARD):
            dict(statedecode.decode_state(files).published)


@pytest.mark.parametrize("field", ["blob", "commit"])
@pytest.mark.parametrize("value", ["not-a-git-id", "B" * 40, "b" * 39, "--output=x"])
def test_a_record_whose_blob_or_commit_is_no_git_id_is_refused(field: str, value: str) -> None:
    """Pending, dead and published items hold git object ids: a hand edit that puts anything
    else there is refused by name, never kept (nor handed to git as an option)."""
    files = files_of(published_sample())
    document = json.loads(files[A_SHARD])
    document["published"]["site:content/a.md"][field] = value
    files[A_SHARD] = json.dumps(document).encode()
    with pytest.raises(StateError, match=f"'{field}' must be a git object id"):
        dict(statedecode.decode_state(files).published)
    pending = codec.encode_state(sample())
    document = json.loads(pending[codec.PENDING_FILE])
    document["pending"]["site:content/a.md"][field] = value
    pending[codec.PENDING_FILE] = json.dumps(document).encode()
    with pytest.raises(StateError, match=f"'{field}' must be a git object id"):
        statedecode.decode_state(pending)
