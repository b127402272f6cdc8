"""How many waiting items one claim takes: the executor claims so, and a target told ahead of
a plan's reads learns from it how large the batches it will be handed are."""

from __future__ import annotations

__all__ = ["CLAIM_BATCH", "MAX_CLAIM", "claim_size"]

# How many items one claim takes: small enough that racing executors share a big push, large
# enough that a push of 100 articles is four claims.
CLAIM_BATCH = 25
# A claim grows with the work waiting, up to this: a target that publishes a batch at once
# rewrites its shared files once a batch (the site's listings), so a first build of 10,000
# articles does that about 30 times rather than 400.
MAX_CLAIM = 500


def claim_size(pending: int, *, earlier: int = 0) -> int:
    """Items one claim takes when `pending` are waiting: 25, or a quarter of them (others
    racing for a big push still find three quarters left), and never fewer than this drain's
    `earlier` claim took: one executor alone takes a first build in four claims, not a dozen
    shrinking ones (each claim rewrites the site's shared files once)."""
    return min(MAX_CLAIM, max(CLAIM_BATCH, pending // 4, earlier))
