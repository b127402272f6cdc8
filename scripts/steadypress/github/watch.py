"""Live mode's poll on GitHub: one conditional request per branch (`If-None-Match` with the
last ETag). GitHub answers 304 while nothing moved, which does not count against the rate limit
("Use conditional requests if appropriate", Best practices for using the REST API), so an idle
live executor costs nothing but those polls. A content branch that moved is fetched into the
checkout, where the articles are read.
"""

from __future__ import annotations

from steadypress.errors import GitHubError
from steadypress.github.client import GitHubClient
from steadypress.gitio import Git
from steadypress.watch import Heads

__all__ = ["GitHubWatch"]


class GitHubWatch:
    """Both branches on GitHub, each polled with its last ETag; the content branch fetched
    into `refs/remotes/origin/BRANCH` (what the content source reads) when it moved."""

    def __init__(
        self, client: GitHubClient, git: Git, *, repository: str, content: str, state: str
    ) -> None:
        self._client = client
        self._git = git
        self._repository = repository
        self._branches = {"content": content, "state": state}
        self._etags: dict[str, str] = {}
        self._heads: dict[str, str | None] = {"content": None, "state": None}

    def heads(self) -> Heads:
        interval = None
        for role, branch in self._branches.items():
            moved, asked = self._poll(role, branch)
            interval = max(interval or 0.0, asked) if asked is not None else interval
            if moved and role == "content":
                self._git.run("fetch", "--quiet", "origin",
                              f"+refs/heads/{branch}:refs/remotes/origin/{branch}")  # fmt: skip
        return Heads(self._heads["content"], self._heads["state"], interval)

    def _poll(self, role: str, branch: str) -> tuple[bool, float | None]:
        """Whether `branch` moved since the last poll, and the poll interval GitHub asked for."""
        etag = self._etags.get(role)
        try:
            answer = self._client.rest(
                "GET", f"/repos/{self._repository}/git/ref/heads/{branch}",
                headers={"If-None-Match": etag} if etag else None,
                endpoint="/repos/{repo}/git/ref/heads/{branch}",
            )  # fmt: skip
        except GitHubError as error:
            if error.status != 404:  # 404: no such branch yet (the state before a first write)
                raise
            return False, None
        asked = answer.headers.get("x-poll-interval", "")
        interval = float(asked) if asked.isdigit() else None
        if answer.status_code == 304:
            return False, interval
        self._etags[role] = answer.headers.get("etag", "")
        head = str(answer.json()["object"]["sha"])
        moved = head != self._heads[role]
        self._heads[role] = head
        return moved, interval
