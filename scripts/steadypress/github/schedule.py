"""Keeping the sweep's schedule alive.

GitHub disables the scheduled workflows of a public repository after 60 days without activity,
without a word, and a later push does not turn them back on. The publish run, which every push
starts, reads the sweep workflow's state and re-enables it when, and only when, GitHub disabled
it for inactivity: a workflow a maintainer disabled by hand stays disabled. This needs the
`actions: write` permission; without it the check says so and changes nothing.
(docs.github.com/rest/actions/workflows: get a workflow, enable a workflow.)
"""

from __future__ import annotations

from steadypress.errors import GitHubError
from steadypress.github.client import GitHubClient

__all__ = ["keep_schedule_alive"]


def keep_schedule_alive(client: GitHubClient, *, repository: str, workflow: str) -> str:
    """Re-enable `workflow` if GitHub disabled it for inactivity; says what it found and did."""
    path = f"/repos/{repository}/actions/workflows/{workflow}"
    try:
        state = client.rest(
            "GET", path, endpoint="/repos/{repo}/actions/workflows/{workflow}"
        ).json()["state"]
        if state != "disabled_inactivity":
            return f"{workflow} is {state}: nothing to do"
        client.rest(
            "PUT", f"{path}/enable", endpoint="/repos/{repo}/actions/workflows/{workflow}/enable"
        )
    except GitHubError as error:
        if error.status in (403, 404):
            return f"could not check {workflow} ({error.message}); the job needs `actions: write`"
        raise
    return f"{workflow} had been disabled for inactivity: re-enabled"
