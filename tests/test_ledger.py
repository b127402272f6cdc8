"""Stories of the pure ledger: each transition, one behaviour at a time, time as a parameter."""

import random
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from steadypress.claiming import Completion, Failure, claim, complete, fail, release, renew, select
from steadypress.ledger import (
    ABSENT,
    LAPSED_BATCH,
    LAPSES_FATAL,
    Lease,
    Ledger,
    Reconciled,
    RetryPolicy,
)
from steadypress.transitions import (
    Sighting,
    enqueue,
    next_wake,
    record_alert,
    retire,
    retry,
    withdraw,
)

T0 = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
TTL = timedelta(minutes=10)
POLICY = RetryPolicy(max_attempts=3, backoff_initial=30, backoff_max=1800)
KEY = "site:content/a.md"


class NoJitter(random.Random):
    def random(self) -> float:
        return 0.0


def seen(blob: str, *, path: str = "content/a.md", not_before: datetime | None = None) -> Sighting:
    return Sighting(target="site", path=path, blob=blob, commit=f"c-{blob}", not_before=not_before)


def pending_with(blob: str = "b1") -> Ledger:
    return enqueue(Ledger(), [seen(blob)], now=T0)[0]


def claimed_by(holder: str, token: str, ledger: Ledger, now: datetime = T0) -> Ledger:
    ledger, items, _ = claim(ledger, [KEY], holder=holder, token=token, now=now, lease_ttl=TTL)
    assert items, "the item should have been claimable"
    return ledger


def with_dead_item() -> Ledger:
    """A ledger whose one item failed for good."""
    ledger = claimed_by("a", "t", pending_with())
    failure = Failure(KEY, "b1", "t", "x", permanent=True)
    return fail(ledger, [failure], now=T0, policy=POLICY, rng=NoJitter())[0]


def test_enqueue_twice_is_one_item_and_changes_nothing_the_second_time() -> None:
    """The same blob enqueued twice is one pending item; the second call returns the same ledger."""
    once, fresh = enqueue(Ledger(), [seen("b1")], now=T0)
    twice, again = enqueue(once, [seen("b1")], now=T0 + timedelta(minutes=1))
    assert fresh == [KEY] and again == []
    assert twice is once


def test_a_newer_blob_replaces_the_pending_one_and_keeps_its_lease() -> None:
    """A new version starts with fresh chances but waits for the holder of the old one."""
    ledger = claimed_by("workers", "t1", pending_with("b1"))
    ledger, _ = fail(
        ledger, [Failure(KEY, "b1", "t1", "timeout")], now=T0, policy=POLICY, rng=NoJitter()
    )
    ledger = claimed_by("workers", "t2", ledger, now=T0 + timedelta(hours=1))
    ledger, fresh = enqueue(ledger, [seen("b2")], now=T0 + timedelta(hours=1))
    item = ledger.pending[KEY]
    assert fresh == [KEY]
    assert (item.blob, item.attempts, item.last_error) == ("b2", 0, None)
    assert item.lease is not None and item.lease.token == "t2"


def test_an_already_published_blob_is_not_enqueued() -> None:
    """Reconciling an article whose current version is published adds no work."""
    ledger = claimed_by("a", "t", pending_with("b1"))
    ledger, _ = complete(ledger, [Completion(KEY, "b1", "c-b1", "t")], now=T0)
    after, fresh = enqueue(ledger, [seen("b1")], now=T0)
    assert fresh == [] and after is ledger and KEY not in after.pending


def test_a_dead_item_stays_dead_for_its_blob_but_a_new_blob_replaces_it() -> None:
    """Dead means dead for that version; a fix pushed as a new version is work again."""
    ledger = claimed_by("a", "t", pending_with("b1"))
    ledger, _ = fail(
        ledger,
        [Failure(KEY, "b1", "t", "bad", permanent=True)],
        now=T0,
        policy=POLICY,
        rng=NoJitter(),
    )
    ledger = record_alert(ledger, KEY, 7)
    same, fresh = enqueue(ledger, [seen("b1")], now=T0)
    assert fresh == [] and KEY in same.dead
    newer, fresh = enqueue(ledger, [seen("b2")], now=T0)
    assert fresh == [KEY] and KEY not in newer.dead
    assert newer.pending[KEY].alert == 7, "the alert number follows the item"


def test_claim_sets_a_lease_that_expires_by_itself() -> None:
    """A claim leases the item for the TTL, with the token the executor gave."""
    _, items, _ = claim(
        pending_with(), [KEY], holder="actions:1", token="tok", now=T0, lease_ttl=TTL
    )
    assert items[0].lease == Lease(holder="actions:1", token="tok", expires_at=T0 + TTL)


def test_a_live_lease_blocks_a_claim() -> None:
    """While the lease runs, no other executor can take the item."""
    ledger = claimed_by("workers", "t1", pending_with())
    after, items, _ = claim(
        ledger, [KEY], holder="actions", token="t2", now=T0 + TTL / 2, lease_ttl=TTL
    )
    assert items == [] and after is ledger


def test_an_expired_lease_held_by_workers_does_not_stop_a_claim() -> None:
    """The holder's name is information, never a veto: once expired, anyone takes the item."""
    ledger = claimed_by("workers", "t1", pending_with())
    later = T0 + TTL + timedelta(seconds=1)
    after, items, _ = claim(ledger, [KEY], holder="actions", token="t2", now=later, lease_ttl=TTL)
    assert [item.lease.holder for item in items if item.lease] == ["actions"]
    assert after.pending[KEY].lease == Lease("actions", "t2", later + TTL)


def many_pending(count: int, folder: str = "content") -> tuple[Ledger, list[str]]:
    """`count` items, waiting; their keys in the order a claim takes them."""
    sightings = [seen(f"b{n}", path=f"{folder}/{n:03d}.md") for n in range(count)]
    ledger, _ = enqueue(Ledger(), sightings, now=T0)
    return ledger, sorted(ledger.pending)


def killed(ledger: Ledger, keys: list[str], now: datetime) -> tuple[Ledger, list[str], datetime]:
    """A claim of `keys` whose run then dies without a word; the keys it held, and a moment
    when their leases have run out."""
    ledger, items, buried = claim(ledger, keys, holder="doomed", token="t", now=now, lease_ttl=TTL)
    assert not buried
    return ledger, [item.key for item in items], now + TTL + timedelta(seconds=1)


def test_a_lease_that_ran_out_is_a_lapse_and_shrinks_the_claims_it_is_in() -> None:
    """A run killed mid-batch (out of memory, a crash, a timeout, perhaps by one of its
    articles) never says which article did it. A claim counts a lapse on each item it takes
    so, tells it in the item's history, and takes at most LAPSED_BATCH with any that lapsed
    once; an item that lapsed twice is claimed alone. What it leaves is left as it was: its
    holder may be alive, only slow, and may still renew it."""
    ledger, keys = many_pending(100)
    ledger, held, later = killed(ledger, keys, T0)
    assert len(held) == 100

    before = ledger
    ledger, items, _ = claim(ledger, keys, holder="next", token="t2", now=later, lease_ttl=TTL)
    assert [item.key for item in items] == keys[:LAPSED_BATCH]
    lapsed = ledger.pending[keys[0]]
    assert lapsed.lapses == 1 and lapsed.lease is not None and lapsed.lease.holder == "next"
    assert "doomed" in lapsed.history[-1].error
    assert "stopped before it finished" in (lapsed.last_error or "")
    assert all(ledger.pending[key] is before.pending[key] for key in keys[LAPSED_BATCH:])
    still = renew(ledger, keys[LAPSED_BATCH:], token="t", now=later, lease_ttl=TTL)
    assert all(still.pending[key].lease == Lease("doomed", "t", later + TTL)
               for key in keys[LAPSED_BATCH:])  # fmt: skip

    # That batch dies too: each of its items lapsed twice, and goes alone from now on.
    later += TTL * 2
    for number, key in enumerate(keys[:3]):
        ledger, items, _ = claim(ledger, keys, holder=f"alone-{number}", token="t3", now=later,
                                 lease_ttl=TTL)  # fmt: skip
        assert [item.key for item in items] == [key] and items[0].lapses == 2
        ledger = complete(ledger, [Completion(key, items[0].blob, "c", "t3")], now=later)[0]
    # Behind a lone item, untouched ones are claimed without it: a lapsed item never joins a
    # claim it would make larger than it may be.
    fresh, fresh_keys = many_pending(3, folder="content/new")
    joined = Ledger(pending={**ledger.pending, **fresh.pending})
    order = [keys[3], *fresh_keys]
    _, items, _ = claim(joined, order, holder="h", token="t4", now=later, lease_ttl=TTL)
    assert [item.key for item in items] == [keys[3]]
    _, items, _ = claim(joined, [*fresh_keys, keys[3]], holder="h", token="t4", now=later,
                        lease_ttl=TTL)  # fmt: skip
    assert [item.key for item in items] == fresh_keys


def test_an_item_that_lapses_alone_once_more_is_buried_for_a_maintainer() -> None:
    """The third lapse, the last two alone: the article itself stops its runs. It is buried
    (permanent: trying again would only kill another run) with the story of each lapse, and
    a newer version of the article starts with none."""
    ledger = pending_with()
    now = T0
    for _ in range(LAPSES_FATAL):
        ledger, _held, now = killed(ledger, [KEY], now)
    ledger, items, buried = claim(ledger, [KEY], holder="h", token="t", now=now, lease_ttl=TTL)
    assert items == []
    assert ledger.pending == {} and [corpse.key for corpse in buried] == [KEY]
    (corpse,) = buried
    assert ledger.dead[KEY] == corpse and corpse.permanent
    assert len(corpse.history) == LAPSES_FATAL
    assert "stopped before it finished" in corpse.last_error

    ledger = pending_with()
    ledger, _held, now = killed(ledger, [KEY], T0)
    ledger, _ = enqueue(ledger, [seen("b2")], now=now)
    assert ledger.pending[KEY].lapses == 0, "a new version is not the one that stopped the runs"


def test_a_release_or_a_recorded_outcome_is_no_lapse() -> None:
    """Only a lease that ran out with its run gone is a lapse: work given back, failed or
    renewed leaves none."""
    ledger = claimed_by("a", "t", pending_with())
    ledger = release(ledger, [KEY], token="t")
    later = T0 + TTL * 2
    ledger, items, _ = claim(ledger, [KEY], holder="b", token="t2", now=later, lease_ttl=TTL)
    assert items[0].lapses == 0
    ledger, _ = fail(ledger, [Failure(KEY, "b1", "t2", "boom")], now=later, policy=POLICY,
                     rng=NoJitter())  # fmt: skip
    later += timedelta(hours=1)
    _, items, _ = claim(ledger, [KEY], holder="c", token="t3", now=later, lease_ttl=TTL)
    assert items[0].lapses == 0 and items[0].attempts == 1


def test_a_completion_is_recorded_even_after_the_lease_was_lost() -> None:
    """The result is the truth: a slow executor's success counts although another took over."""
    ledger = claimed_by("slow", "t1", pending_with())
    ledger = claimed_by("fast", "t2", ledger, now=T0 + TTL * 2)
    ledger, _ = complete(ledger, [Completion(KEY, "b1", "c-b1", "t1", url="/a/")], now=T0 + TTL * 3)
    assert ledger.published[KEY].url == "/a/" and KEY not in ledger.pending


def test_completing_an_old_blob_keeps_the_newer_one_pending_and_frees_it() -> None:
    """An edit during publication is not lost: the new version stays pending, lease released."""
    ledger = claimed_by("a", "t1", pending_with("b1"))
    ledger, _ = enqueue(ledger, [seen("b2")], now=T0)
    ledger, _ = complete(ledger, [Completion(KEY, "b1", "c-b1", "t1")], now=T0)
    assert ledger.published[KEY].blob == "b1"
    assert ledger.pending[KEY].blob == "b2" and ledger.pending[KEY].lease is None


def test_a_failure_counts_an_attempt_and_schedules_the_next_with_backoff() -> None:
    """First failure: attempts 1, due again after backoff_initial, lease released, error kept."""
    ledger = claimed_by("a", "t", pending_with())
    ledger, newly_dead = fail(
        ledger, [Failure(KEY, "b1", "t", "HTTP 503")], now=T0, policy=POLICY, rng=NoJitter()
    )
    item = ledger.pending[KEY]
    assert newly_dead == []
    assert (item.attempts, item.next_attempt_at, item.lease) == (
        1,
        T0 + timedelta(seconds=30),
        None,
    )
    assert item.last_error == "HTTP 503" and [a.error for a in item.history] == ["HTTP 503"]


def test_a_retry_after_hint_is_honoured() -> None:
    """A server's Retry-After longer than the backoff sets the next attempt."""
    ledger = claimed_by("a", "t", pending_with())
    failure = Failure(KEY, "b1", "t", "HTTP 429", retry_after=600)
    ledger, _ = fail(ledger, [failure], now=T0, policy=POLICY, rng=NoJitter())
    assert ledger.pending[KEY].next_attempt_at == T0 + timedelta(seconds=600)


def test_attempts_reaching_the_maximum_bury_the_item() -> None:
    """The third failure of three allowed moves the item to dead with its whole history."""
    ledger = pending_with()
    now = T0
    for attempt in range(1, 4):
        ledger = claimed_by("a", f"t{attempt}", ledger, now=now)
        ledger, newly_dead = fail(
            ledger,
            [Failure(KEY, "b1", f"t{attempt}", f"err {attempt}")],
            now=now,
            policy=POLICY,
            rng=NoJitter(),
        )
        now += timedelta(hours=1)
    assert [item.key for item in newly_dead] == [KEY]
    assert KEY not in ledger.pending
    corpse = ledger.dead[KEY]
    assert corpse.attempts == 3 and not corpse.permanent
    assert [a.error for a in corpse.history] == ["err 1", "err 2", "err 3"]


def test_a_permanent_error_buries_at_once() -> None:
    """Retrying a broken article cannot help: one permanent failure is enough."""
    ledger = claimed_by("a", "t", pending_with())
    ledger, newly_dead = fail(
        ledger,
        [Failure(KEY, "b1", "t", "no title", permanent=True)],
        now=T0,
        policy=POLICY,
        rng=NoJitter(),
    )
    assert [item.key for item in newly_dead] == [KEY]
    assert ledger.dead[KEY].permanent and ledger.dead[KEY].attempts == 1


def test_a_failure_reported_under_a_lost_lease_changes_nothing() -> None:
    """News from an executor whose lease was taken over does not punish the new holder."""
    ledger = claimed_by("slow", "t1", pending_with())
    ledger = claimed_by("fast", "t2", ledger, now=T0 + TTL * 2)
    after, _ = fail(
        ledger, [Failure(KEY, "b1", "t1", "late")], now=T0 + TTL * 2, policy=POLICY, rng=NoJitter()
    )
    assert after is ledger


def test_retry_brings_a_dead_item_back_with_attempts_reset_and_its_alert() -> None:
    """Retry moves dead to pending, fresh attempts, same alert number; success resolves it."""
    ledger = with_dead_item()
    ledger = record_alert(ledger, KEY, 4)
    ledger, retried = retry(ledger, [KEY], now=T0)
    assert retried == [KEY] and KEY not in ledger.dead
    assert (ledger.pending[KEY].attempts, ledger.pending[KEY].alert) == (0, 4)
    ledger = claimed_by("a", "t2", ledger)
    ledger, resolutions = complete(ledger, [Completion(KEY, "b1", "c-b1", "t2", url="/a/")], now=T0)
    assert [(r.key, r.alert) for r in resolutions] == [(KEY, 4)]


def test_retry_makes_a_waiting_item_due_now() -> None:
    """A pending item waiting for its backoff can be pushed forward by hand."""
    ledger = claimed_by("a", "t", pending_with())
    ledger, _ = fail(ledger, [Failure(KEY, "b1", "t", "x")], now=T0, policy=POLICY, rng=NoJitter())
    assert select(ledger, now=T0) == []
    ledger, _ = retry(ledger, [KEY], now=T0)
    assert select(ledger, now=T0) == [KEY]


def test_select_respects_grace_except_for_exempt_keys() -> None:
    """The sweeper leaves fresh items to their executor, but takes the ones it enqueued itself."""
    ledger = pending_with()
    assert select(ledger, now=T0 + timedelta(minutes=1), grace=timedelta(minutes=5)) == []
    assert select(
        ledger, now=T0 + timedelta(minutes=1), grace=timedelta(minutes=5), exempt={KEY}
    ) == [KEY]
    assert select(ledger, now=T0 + timedelta(minutes=5), grace=timedelta(minutes=5)) == [KEY]


def test_a_push_s_own_articles_are_selected_before_older_work() -> None:
    """Thousands of older items waiting do not starve the article a push just enqueued."""
    old = [seen("b1", path=f"content/old-{n}.md") for n in range(50)]
    ledger, _ = enqueue(Ledger(), old, now=T0)
    ledger, fresh = enqueue(ledger, [seen("b2", path="content/new.md")], now=T0 + TTL)
    later = T0 + 2 * TTL
    assert select(ledger, now=later, limit=3) == [f"site:content/old-{n}.md" for n in (0, 1, 10)]
    assert select(ledger, now=later, first=fresh, limit=3)[0] == "site:content/new.md"


def test_a_scheduled_item_is_not_selected_before_its_time() -> None:
    """not_before holds a future-dated article back until it is due."""
    ledger, _ = enqueue(Ledger(), [seen("b1", not_before=T0 + timedelta(days=1))], now=T0)
    assert select(ledger, now=T0) == []
    assert select(ledger, now=T0 + timedelta(days=1)) == [KEY]
    assert next_wake(ledger, now=T0) == T0 + timedelta(days=1)


def test_select_takes_the_oldest_first_and_honours_the_limit() -> None:
    """Work is taken in the order it became due, a batch at a time."""
    ledger = Ledger()
    for minute, name in enumerate(["c", "a", "b"]):
        ledger, _ = enqueue(
            ledger, [seen(name, path=f"content/{name}.md")], now=T0 + timedelta(minutes=minute)
        )
    assert select(ledger, now=T0 + timedelta(hours=1), limit=2) == [
        "site:content/c.md",
        "site:content/a.md",
    ]


def test_renew_and_release_touch_only_our_own_leases() -> None:
    """An executor extends or gives back its own leases, never someone else's."""
    ledger = claimed_by("a", "mine", pending_with())
    renewed = renew(ledger, [KEY], token="mine", now=T0 + TTL / 2, lease_ttl=TTL)
    lease = renewed.pending[KEY].lease
    assert lease is not None and lease.expires_at == T0 + TTL / 2 + TTL
    assert renew(ledger, [KEY], token="theirs", now=T0, lease_ttl=TTL) is ledger
    assert release(ledger, [KEY], token="theirs") is ledger
    assert release(ledger, [KEY], token="mine").pending[KEY].lease is None


def test_transitions_share_the_sections_they_do_not_touch() -> None:
    """A claim copies no published records: the store then skips re-encoding published.json."""
    ledger = claimed_by("a", "t", pending_with())
    ledger, _ = complete(ledger, [Completion(KEY, "b1", "c-b1", "t")], now=T0)
    ledger, _ = enqueue(ledger, [seen("x", path="content/x.md")], now=T0)
    claimed, _, _ = claim(
        ledger, ["site:content/x.md"], holder="a", token="t", now=T0, lease_ttl=TTL
    )
    assert claimed.published is ledger.published and claimed.dead is ledger.dead


def test_a_late_completion_of_an_older_version_puts_the_current_one_back_to_work() -> None:
    """A slow executor finishing v1 after v2 was published may have overwritten v2 on the
    target: v1 is recorded (it happened) and v2 is pending again, so nothing is lost."""
    ledger = claimed_by("slow", "t1", pending_with("b1"))
    ledger, _ = enqueue(ledger, [seen("b2")], now=T0)
    ledger = claimed_by("fast", "t2", ledger, now=T0 + TTL * 2)
    ledger, _ = complete(ledger, [Completion(KEY, "b2", "c-b2", "t2")], now=T0 + TTL * 2)
    assert KEY not in ledger.pending
    ledger, _ = complete(ledger, [Completion(KEY, "b1", "c-b1", "t1")], now=T0 + TTL * 3)
    assert ledger.published[KEY].blob == "b1"
    assert (ledger.pending[KEY].blob, ledger.pending[KEY].commit) == ("b2", "c-b2")


def test_withdraw_drops_waiting_work_but_not_work_in_progress() -> None:
    """A removed article's pending item goes away, unless a live lease says someone is writing."""
    ledger = pending_with()
    gone, dropped = withdraw(ledger, [KEY, "site:content/unknown.md"], now=T0)
    assert dropped == [KEY] and KEY not in gone.pending
    leased = claimed_by("a", "t", ledger)
    assert withdraw(leased, [KEY], now=T0) == (leased, [])
    assert withdraw(leased, [KEY], now=T0 + TTL)[1] == [KEY], "an expired lease protects nothing"


def test_a_late_write_of_withdrawn_work_has_the_next_sweep_compare_everything() -> None:
    """Work withdrawn after its lease ran out (the article removed under a target that left
    posts up) is written anyway by its slow holder. The write is recorded, and since only the
    content can tell whether the article still wants it (the target may unpublish by now), the
    reconcile's marker goes: the next sweep compares every article, not just what changed."""
    marker = Reconciled(commit="c9", targets=("site",), config="cfg")
    ledger = replace(claimed_by("slow", "t1", pending_with("b1")), reconciled=marker)
    ledger, dropped = withdraw(ledger, [KEY], now=T0 + TTL)
    assert dropped == [KEY] and ledger.reconciled == marker
    ledger, _ = complete(ledger, [Completion(KEY, "b1", "c-b1", "t1")], now=T0 + TTL * 2)
    assert ledger.published[KEY].blob == "b1"
    assert ledger.reconciled is None
    # A late write the ledger still tracks settles by itself: the marker stays.
    tracked = replace(claimed_by("slow", "t1", pending_with("b1")), reconciled=marker)
    tracked, _ = enqueue(tracked, [seen("b2")], now=T0)
    tracked, _ = complete(tracked, [Completion(KEY, "b1", "c-b1", "t1")], now=T0 + TTL * 2)
    assert tracked.reconciled == marker and tracked.pending[KEY].blob == "b2"


def test_the_first_alert_number_recorded_for_a_dead_item_stays() -> None:
    """Two executors racing to open an alert: the ledger keeps the first number it was given."""
    ledger = with_dead_item()
    first = record_alert(ledger, KEY, 3)
    assert record_alert(first, KEY, 4) is first and first.dead[KEY].alert == 3


def published_with(blob: str = "b1", post_id: str | None = "42") -> Ledger:
    ledger = claimed_by("a", "t", pending_with(blob))
    return complete(ledger, [Completion(KEY, blob, f"c-{blob}", "t", id=post_id)], now=T0)[0]


def test_a_removed_article_is_unpublished_and_leaves_a_tombstone_with_its_post_id() -> None:
    """Removal is a version like any other: pending, claimed, completed; the record that stays
    says the article is unpublished and still names its post, for an article that comes back."""
    ledger, fresh = enqueue(published_with(), [seen(ABSENT)], now=T0)
    assert fresh == [KEY] and ledger.pending[KEY].unpublishes
    ledger = claimed_by("b", "t2", ledger)
    ledger, _ = complete(ledger, [Completion(KEY, ABSENT, "c-gone", "t2")], now=T0)
    record = ledger.published[KEY]
    assert KEY not in ledger.pending
    assert record.unpublished and (record.id, record.url) == ("42", None)
    assert enqueue(ledger, [seen(ABSENT)], now=T0) == (ledger, []), "removed once is enough"
    back, fresh = enqueue(ledger, [seen("b2")], now=T0)
    assert fresh == [KEY] and back.pending[KEY].blob == "b2"


def test_removing_an_article_the_ledger_never_knew_is_no_work() -> None:
    assert enqueue(Ledger(), [seen(ABSENT)], now=T0) == (Ledger(), [])


def test_removing_an_article_before_it_was_published_still_asks_the_target() -> None:
    """An attempt that failed may have reached the target anyway (a create whose answer was
    lost), so the waiting work becomes an unpublish rather than vanishing."""
    ledger = claimed_by("a", "t", pending_with("b1"))
    ledger, _ = fail(
        ledger, [Failure(KEY, "b1", "t", "lost answer")], now=T0, policy=POLICY, rng=NoJitter()
    )
    ledger, fresh = enqueue(ledger, [seen(ABSENT)], now=T0)
    assert fresh == [KEY] and ledger.pending[KEY].unpublishes
    assert ledger.pending[KEY].attempts == 0, "removal starts with fresh chances"


def test_removing_a_dead_article_carries_its_alert_to_the_unpublish() -> None:
    """The dead version is obsolete: finishing the removal closes its alert."""
    ledger = record_alert(with_dead_item(), KEY, 9)
    ledger, fresh = enqueue(ledger, [seen(ABSENT)], now=T0)
    assert fresh == [KEY] and KEY not in ledger.dead
    assert ledger.pending[KEY].alert == 9
    ledger = claimed_by("b", "t2", ledger)
    ledger, resolutions = complete(ledger, [Completion(KEY, ABSENT, "c", "t2")], now=T0)
    assert [(r.key, r.alert, r.record.unpublished) for r in resolutions] == [(KEY, 9, True)]


def test_going_back_to_the_published_version_replaces_a_newer_dead_one() -> None:
    """A revert to what the target holds makes the dead newer version obsolete too."""
    ledger = claimed_by("a", "t", enqueue(published_with("b1"), [seen("b2")], now=T0)[0])
    ledger, _ = fail(
        ledger, [Failure(KEY, "b2", "t", "bad", permanent=True)], now=T0, policy=POLICY,
        rng=NoJitter(),
    )  # fmt: skip
    ledger, fresh = enqueue(record_alert(ledger, KEY, 5), [seen("b1")], now=T0)
    assert fresh == [KEY] and KEY not in ledger.dead
    assert (ledger.pending[KEY].blob, ledger.pending[KEY].alert) == ("b1", 5)


def test_a_late_write_after_the_unpublish_is_undone() -> None:
    """A slow executor publishing v1 finishes after the article was removed and unpublished:
    its write happened, so the removal is pending again."""
    ledger = claimed_by("slow", "t1", pending_with("b1"))
    ledger, _ = enqueue(ledger, [seen(ABSENT)], now=T0)
    ledger = claimed_by("fast", "t2", ledger, now=T0 + TTL * 2)
    ledger, _ = complete(ledger, [Completion(KEY, ABSENT, "c", "t2")], now=T0 + TTL * 2)
    ledger, _ = complete(ledger, [Completion(KEY, "b1", "c-b1", "t1")], now=T0 + TTL * 3)
    assert ledger.published[KEY].blob == "b1"
    assert ledger.pending[KEY].unpublishes


def test_retire_forgets_only_the_dead_items_named_and_returns_them() -> None:
    """Dead work of a removed target leaves the ledger; everything else stays as it was."""
    ledger = with_dead_item()
    assert retire(ledger, ["hook:content/other.md"], now=T0) == (ledger, [])
    after, retired = retire(ledger, [KEY], now=T0)
    assert [item.key for item in retired] == [KEY] and KEY not in after.dead
    assert after.pending is ledger.pending and after.published is ledger.published
