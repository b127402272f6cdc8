"""The cost of one state transaction as the number of published articles grows.

For 10^3, 10^4 and 10^5 published records on the local git store, prints the median time of:
  cold load       a new process reads the small state files (the published shards are read
                  only when a transaction looks at their records)
  claim           a transaction leasing one item, in a running executor
  complete        a transaction recording one publication, in a running executor (the one
                  shard of its record read, re-encoded and stored)
  cold complete   the same from a new process
The goal: well under a second at 10^5; since the ledger's records are sharded, flat.

Usage: .venv/bin/python benchmarks/ledger_scale.py [--sizes 1000 10000 100000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from steadypress.claiming import Completion, claim, complete
from steadypress.ledger import Ledger, PublishedRecord
from steadypress.published import PublishedRecords
from steadypress.store import transact
from steadypress.store.localgit import LocalGitStore
from steadypress.transitions import Sighting, enqueue

NOW = datetime(2026, 11, 29, tzinfo=UTC)


def _oid(text: str) -> str:
    """A git object id made of `text`, as the state files hold (no repository has it)."""
    return hashlib.sha1(text.encode(), usedforsecurity=False).hexdigest()


def seeded_store(root: Path, size: int) -> LocalGitStore:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    store = LocalGitStore(root, "steadypress-state")
    published = {
        f"site:content/posts/post-{n:06d}.md": PublishedRecord(
            blob=f"{n:040x}",
            commit="c" * 40,
            id=f"posts/post-{n:06d}",
            published_at="2026-11-29T00:00:00Z",
            url=f"https://blog.example.org/posts/post-{n:06d}/",
        )
        for n in range(size)
    }
    store.save(
        Ledger(published=PublishedRecords.of(published)), based_on=store.load(), message="seed"
    )
    return store


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


class Round:
    """One new article taken through enqueue, claim and complete on a given store."""

    def __init__(self, name: str) -> None:
        self.sighting = Sighting("site", f"content/{name}.md", _oid(f"blob-{name}"), _oid("c"))
        self.key = self.sighting.key

    def enqueue(self, store: LocalGitStore) -> None:
        transact(store, lambda ledger: enqueue(ledger, [self.sighting], now=NOW), message="add")

    def claim(self, store: LocalGitStore) -> None:
        def take(ledger: Ledger) -> tuple[Ledger, object]:
            ledger, claimed, _buried = claim(
                ledger,
                [self.key],
                holder="bench",
                token="bench",
                now=NOW,
                lease_ttl=timedelta(minutes=10),
            )
            return ledger, claimed

        transact(store, take, message="claim")

    def complete(self, store: LocalGitStore) -> None:
        done = Completion(self.key, self.sighting.blob, _oid("c"), "bench")
        transact(store, lambda ledger: complete(ledger, [done], now=NOW), message="complete")


def measure(size: int, repeat: int) -> dict[str, float]:
    figures: dict[str, list[float]] = {name: [] for name in COLUMNS}
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        running = seeded_store(root, size)
        for number in range(repeat):
            warm = Round(f"warm-{number}")
            warm.enqueue(running)
            figures["claim"].append(timed(lambda: warm.claim(running)))  # noqa: B023 - called at once
            figures["complete"].append(timed(lambda: warm.complete(running)))  # noqa: B023
            cold = Round(f"cold-{number}")
            cold.enqueue(running)
            cold.claim(running)
            figures["cold load"].append(timed(LocalGitStore(root, "steadypress-state").load))
            fresh = LocalGitStore(root, "steadypress-state")
            figures["cold complete"].append(timed(lambda: cold.complete(fresh)))  # noqa: B023
            running = fresh
    return {name: statistics.median(values) for name, values in figures.items()}


COLUMNS = ("cold load", "claim", "complete", "cold complete")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"{'published':>10} " + " ".join(f"{name + ' (s)':>17}" for name in COLUMNS))
    for size in args.sizes:
        result = measure(size, args.repeat)
        print(f"{size:>10} " + " ".join(f"{result[name]:>17.3f}" for name in COLUMNS))


if __name__ == "__main__":
    main()
