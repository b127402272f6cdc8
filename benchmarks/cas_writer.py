"""One writer of the state branch: T enqueue transactions, then prints "COMMITS CONFLICTS".

Run by several processes at once against one repository, by benchmarks/contention.py and by the
test that proves no update is lost.

Usage: python benchmarks/cas_writer.py REPO WRITER_NAME TRANSACTIONS
"""

from __future__ import annotations

import functools
import hashlib
import sys
from datetime import UTC, datetime
from pathlib import Path

from steadypress.ledger import Ledger
from steadypress.store import TransactionStats, transact
from steadypress.store.localgit import LocalGitStore
from steadypress.transitions import Sighting, enqueue


def _oid(text: str) -> str:
    """A git object id made of `text`, as the state files hold (no repository has it)."""
    return hashlib.sha1(text.encode(), usedforsecurity=False).hexdigest()


def _enqueue(sighting: Sighting, ledger: Ledger) -> tuple[Ledger, list[str]]:
    return enqueue(ledger, [sighting], now=datetime.now(UTC))


def main(repo: Path, writer: str, count: int) -> None:
    store = LocalGitStore(repo, "steadypress-state")
    stats = TransactionStats()
    for n in range(count):
        sighting = Sighting(
            "site", f"content/{writer}-{n}.md", _oid(f"blob-{writer}-{n}"), _oid("c")
        )
        transact(
            store,
            functools.partial(_enqueue, sighting),
            message=f"{writer} {n}",
            stats=stats,
            max_conflicts=1000,
        )
    print(stats.commits, stats.conflicts)


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]))
