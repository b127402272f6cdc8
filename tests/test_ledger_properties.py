"""Properties of the ledger under arbitrary sequences of transitions (hypothesis, stateful)."""

import random
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from steadypress import codec, statedecode
from steadypress.claiming import Completion, Failure, claim, complete, fail, select
from steadypress.ledger import (
    ABSENT,
    LAPSES_FATAL,
    Ledger,
    Reconciled,
    RetryPolicy,
    item_key,
    split_key,
)
from steadypress.published import Tally
from steadypress.transitions import Sighting, enqueue, retry, withdraw
from tests.schema import validate_state_file

PATHS = ["content/a.md", "content/b.md", "content/sub/c.md"]
BLOBS = ["b1" * 20, "b2" * 20, "b3" * 20]  # git object ids, as the state files hold
TTL = timedelta(minutes=10)
POLICY = RetryPolicy(max_attempts=3, backoff_initial=30, backoff_max=1800)
MARKER = Reconciled(commit="c0" * 20, targets=("devto", "site"), config="cf" * 20)


class LedgerMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.ledger = Ledger(reconciled=MARKER)
        self.encoder = codec.PendingEncoder()  # kept across steps, as a store keeps it
        self.now = datetime(2026, 1, 1, tzinfo=UTC)
        self.rng = random.Random(0)
        self.latest: dict[str, str] = {}  # the newest version of each article seen
        self.completed: dict[str, str] = {}  # the last version recorded as published
        self.post_ids: dict[str, str] = {}  # the remote id of the last version put on the target
        self.held: list[tuple[str, str, str]] = []  # claims an executor is still working on
        self.tokens = 0

    def _token(self) -> str:
        self.tokens += 1
        return f"t{self.tokens}"

    @rule(
        path=st.sampled_from(PATHS),
        blob=st.sampled_from([*BLOBS, ABSENT]),
        publisher=st.sampled_from(["site", "devto"]),
    )
    def push(self, path: str, blob: str, publisher: str) -> None:
        """A new version of an article, or (ABSENT) its removal from content/."""
        sighting = Sighting(target=publisher, path=path, blob=blob, commit=f"c{blob[1:]}")
        self.ledger, _ = enqueue(self.ledger, [sighting], now=self.now)
        self.latest[sighting.key] = blob

    @rule(holder=st.sampled_from(["workers", "actions", "live"]))
    def claim_what_is_claimable(self, holder: str) -> None:
        token = self._token()
        keys = select(self.ledger, now=self.now)
        before = self.ledger
        self.ledger, items, buried = claim(
            self.ledger, keys, holder=holder, token=token, now=self.now, lease_ttl=TTL
        )
        taken = [item.key for item in items]
        assert taken == [key for key in keys if key in taken], "taken in the order chosen"
        # A claim is as large as its lapsed items allow, and leaves out nothing but what would
        # make it larger than that.
        most = min([len(keys), *filter(None, (item.claimed_with_at_most for item in items))])
        assert len(items) <= most
        for key in set(keys) - set(taken):
            if key in {corpse.key for corpse in buried}:
                assert before.pending[key].lapses == LAPSES_FATAL - 1
                continue
            left = self.ledger.pending[key]
            assert left is before.pending[key], "what a claim leaves, it leaves as it was"
            cap = replace(left, lapses=left.lapses + (left.lease is not None)).claimed_with_at_most
            assert len(items) == most or (cap is not None and len(items) + 1 > cap)
        self.held.extend((item.key, item.blob, token) for item in items)

    @rule(path=st.sampled_from(PATHS), publisher=st.sampled_from(["site", "devto"]))
    def claim_one(self, path: str, publisher: str) -> None:
        """An expired lease never blocks a claim and a live one always does."""
        key = item_key(publisher, path)
        item = self.ledger.pending.get(key)
        token = self._token()
        self.ledger, items, _ = claim(
            self.ledger, [key], holder="anyone", token=token, now=self.now, lease_ttl=TTL
        )
        if item is None or not item.is_due(self.now):
            assert items == []
            return
        live = item.lease is not None and item.lease.expires_at > self.now
        # A lease that ran out is a lapse: the third buries the item rather than claim it.
        fatal = not live and item.lease is not None and item.lapses == LAPSES_FATAL - 1
        assert (items == []) == (live or fatal)
        assert (key in self.ledger.dead) == fatal
        self.held.extend((claimed.key, claimed.blob, token) for claimed in items)

    @rule(data=st.data())
    def finish(self, data: st.DataObject) -> None:
        if not self.held:
            return
        key, blob, token = self.held.pop(data.draw(st.integers(0, len(self.held) - 1)))
        post_id = None if blob == ABSENT else f"{key}@{blob}"
        self.ledger, _ = complete(
            self.ledger, [Completion(key, blob, f"c{blob[1:]}", token, id=post_id)], now=self.now
        )
        self.completed[key] = blob
        if post_id is not None:
            self.post_ids[key] = post_id
        still = self.ledger.pending.get(key)
        assert still is None or still.blob != blob, "a finished version must leave pending"
        assert still is None or still.lease is None or still.lease.token != token

    @rule(data=st.data(), permanent=st.booleans(), retry_after=st.none() | st.floats(0, 10**6))
    def break_down(self, data: st.DataObject, permanent: bool, retry_after: float | None) -> None:
        if not self.held:
            return
        key, blob, token = self.held.pop(data.draw(st.integers(0, len(self.held) - 1)))
        failure = Failure(key, blob, token, "boom", permanent=permanent, retry_after=retry_after)
        self.ledger, _ = fail(self.ledger, [failure], now=self.now, policy=POLICY, rng=self.rng)

    @rule(path=st.sampled_from(PATHS), publisher=st.sampled_from(["site", "devto"]))
    def retry_by_hand(self, path: str, publisher: str) -> None:
        self.ledger, _ = retry(self.ledger, [item_key(publisher, path)], now=self.now)

    @rule(path=st.sampled_from(PATHS), publisher=st.sampled_from(["site", "devto"]))
    def delete_article_without_unpublishing(self, path: str, publisher: str) -> None:
        """The article leaves content/ for a target configured not to unpublish: its waiting
        work is dropped, work in progress is not."""
        key = item_key(publisher, path)
        self.ledger, dropped = withdraw(self.ledger, [key], now=self.now)
        if dropped:
            assert key not in self.ledger.pending
            self.latest.pop(key, None)

    @rule()
    def sweep(self) -> None:
        """The sweeper's reconcile: nothing when the marker says the content head was compared;
        every article as it is now when the marker is gone."""
        if self.ledger.reconciled is not None:
            return
        sightings = []
        for key, blob in self.latest.items():
            target, path = split_key(key)
            sightings.append(Sighting(target=target, path=path, blob=blob, commit=f"c{blob[1:]}"))
        self.ledger, _ = enqueue(self.ledger, sightings, now=self.now)
        self.ledger = replace(self.ledger, reconciled=MARKER)

    @rule(seconds=st.integers(0, 4000))
    def time_passes(self, seconds: int) -> None:
        self.now += timedelta(seconds=seconds)

    @rule()
    def the_runs_die(self) -> None:
        """Every run holding leases is killed: none of its work is finished or failed, and its
        leases run out (the next claims count lapses, and bury what lapses alone)."""
        self.held.clear()
        self.now += TTL + timedelta(seconds=1)

    @invariant()
    def every_key_is_in_exactly_one_place(self) -> None:
        """The newest version of every article is unfinished (pending), parked for a human
        (dead), or finished (published, and neither pending nor dead): exactly one.

        A version can be published and dead at once: re-published as insurance against a newer
        write that may have overwritten it, it failed for good; the alert must stay open. The
        newest version of a removed article is ABSENT, finished when the target holds nothing
        of it (a tombstone, or no record at all). Without a reconcile marker, the next sweep
        compares every article: nothing is stranded that it would not find."""
        assert not set(self.ledger.pending) & set(self.ledger.dead)
        if self.ledger.reconciled is None:
            return
        for key, blob in self.latest.items():
            pending = key in self.ledger.pending and self.ledger.pending[key].blob == blob
            published = self.ledger.published.get(key)
            on_target = published.blob if published is not None else ABSENT
            dead = key in self.ledger.dead and self.ledger.dead[key].blob == blob
            finished = not pending and not dead and on_target == blob
            assert [pending, finished, dead].count(True) == 1, (key, blob, self.ledger)

    @invariant()
    def the_counts_moved_by_each_change_are_the_records_counted(self) -> None:
        """`status` shows the counts kept beside the records: never other than a recount."""
        assert self.ledger.published.tally == Tally.of(self.ledger.published.values())

    @invariant()
    def only_the_newest_version_is_dead(self) -> None:
        """An alert about a version nobody is publishing any more would stay open forever."""
        for key, corpse in self.ledger.dead.items():
            if key in self.latest:
                assert corpse.blob == self.latest[key]

    @invariant()
    def no_completion_is_lost(self) -> None:
        """What was last recorded as published for a key stays recorded."""
        for key, blob in self.completed.items():
            assert self.ledger.published[key].blob == blob

    @invariant()
    def an_unpublished_article_keeps_its_post_id(self) -> None:
        """So that an article coming back updates its old post instead of making another."""
        for key, post_id in self.post_ids.items():
            assert self.ledger.published[key].id == post_id

    @invariant()
    def backoff_never_exceeds_its_cap(self) -> None:
        for item in self.ledger.pending.values():
            if item.next_attempt_at is not None and item.history:
                wait = item.next_attempt_at - item.history[-1].at
                assert timedelta(0) <= wait <= timedelta(seconds=POLICY.backoff_max)

    @invariant()
    def the_state_files_round_trip_and_match_the_schema(self) -> None:
        files = codec.encode_state(self.ledger)
        assert statedecode.decode_state(files) == self.ledger
        assert self.encoder(self.ledger) == files[codec.PENDING_FILE]
        for path, data in files.items():
            validate_state_file(path, data)


_PROFILE = settings()  # the loaded profile (conftest: HYPOTHESIS_PROFILE)
LedgerMachine.TestCase.settings = settings(
    _PROFILE, max_examples=max(150, _PROFILE.max_examples), deadline=None
)
TestLedgerProperties = LedgerMachine.TestCase
