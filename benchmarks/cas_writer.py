"""One writer of the state branch: T enqueue transactions, then prints "COMMITS CONFLICTS".

Run by several processes at once against one repository, by benchmarks/contention.py and by the
test that proves no update is lost.

Usage: python benchmarks/cas_writer.py REPO WRITER_NAME TRANSACTIONS
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

from steadypress.ledger import Sighting, enqueue
from steadypress.store import TransactionStats, transact
from steadypress.store.localgit import LocalGitStore


def main(repo: Path, writer: str, count: int) -> None:
    store = LocalGitStore(repo, "steadypress-state")
    stats = TransactionStats()
    for n in range(count):
        sighting = Sighting("site", f"content/{writer}-{n}.md", f"blob-{writer}-{n}", "c")
        transact(
            store,
            lambda ledger, s=sighting: enqueue(ledger, [s], now=datetime.now(UTC)),
            message=f"{writer} {n}",
            stats=stats,
            max_conflicts=1000,
        )
    print(stats.commits, stats.conflicts)


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]))
