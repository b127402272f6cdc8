"""What the embedded default keeps of the work: the state branch of the local repository and
the dead letters beside it. `status` reads them with nothing else: no target, no content."""

from __future__ import annotations

from pathlib import Path

from steadypress.alerts import LocalDeadLetters
from steadypress.config import Config
from steadypress.store.localgit import LocalGitStore

__all__ = ["local_state"]


def local_state(repo: Path, config: Config) -> tuple[LocalGitStore, LocalDeadLetters]:
    """The ledger's store and the dead-letter channel of the repository at `repo`."""
    return (
        LocalGitStore(repo, config.state_branch),
        LocalDeadLetters(repo / config.dead_letter_dir, root=repo),
    )
