"""Dead letters as GitHub issues: one per article (or per cause, for many), found again by
its hidden marker.

An issue is looked up by listing the `dead-letter` issues (all states), not by search: the
search index lags behind, and an issue it has not indexed yet would be created twice. The list is
read once per process. A create whose answer was lost is followed by a fresh look before any
second create. A second death reopens the issue; a success comments with the URL and closes it.
Writes are a second apart, as GitHub asks.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from functools import partial
from typing import TypeVar

from steadypress.alerts.base import Identity, find_marker, identity_key
from steadypress.alerts.letter import Letter
from steadypress.errors import AmbiguousWrite, GitHubError
from steadypress.github.client import GitHubClient
from steadypress.ledger import DeadItem

__all__ = ["DEAD_LETTER_LABEL", "RETRY_LABEL", "WRITE_INTERVAL", "GitHubIssues"]

WRITE_INTERVAL = 1.0  # seconds between issue writes
T = TypeVar("T")

DEAD_LETTER_LABEL = "dead-letter"
RETRY_LABEL = "retry"
_LABELS = {
    DEAD_LETTER_LABEL: ("b60205", "steadypress could not publish an article; see the issue"),
    RETRY_LABEL: ("0e8a16", "Add to a dead-letter issue to have steadypress retry it"),
}


class GitHubIssues:
    def __init__(
        self,
        client: GitHubClient,
        *,
        repository: str,
        run_url: str | None = None,
        server_url: str = "https://github.com",
    ) -> None:
        self._client = client
        self._repo = f"/repos/{repository}"
        self._repository = client.github.get_repo(repository)  # lazy: no request
        self._run_url = run_url
        self._issues_url = f"{server_url.rstrip('/')}/{repository}/issues"
        self._labels_ready = False
        self._known: dict[str, int] | None = None
        self._last_write: datetime | None = None

    def open(self, letter: Letter, number: int | None = None) -> int:
        self._ensure_labels()
        number = number or self._find(letter.identity)
        title, body = letter.title(), self._body(letter)
        if number is not None:
            issue = self._repository.get_issue(number)
            self._write(lambda: issue.edit(title=title, body=body, state="open"),
                        "PATCH /repos/{repo}/issues/{number}")  # fmt: skip
            return number
        try:
            created = self._create(title, body)
        except AmbiguousWrite:
            self._known = None  # it may exist now: look before creating again
            found = self._find(letter.identity)
            created = found if found is not None else self._create(title, body)
        if self._known is not None:  # listed by _find above
            self._known[identity_key(letter.identity)] = created
        return created

    def close(self, issue: int, *, text: str, completed: bool) -> None:
        lazy = self._repository.get_issue(issue)
        self._write(lambda: lazy.create_comment(text),
                    "POST /repos/{repo}/issues/{number}/comments")  # fmt: skip
        reason = "completed" if completed else "not_planned"
        self._write(lambda: lazy.edit(state="closed", state_reason=reason),
                    "PATCH /repos/{repo}/issues/{number}")  # fmt: skip

    def acknowledge_retry(self, issue: int) -> None:
        """Remove the `retry` label, so adding it again asks again."""
        lazy = self._repository.get_issue(issue)
        try:
            self._write(lambda: lazy.remove_from_labels(RETRY_LABEL),
                        "DELETE /repos/{repo}/issues/{number}/labels/{name}")  # fmt: skip
        except GitHubError as error:
            if error.status != 404:  # 404: the label was not on the issue; nothing to withdraw
                raise

    def where(self, issue: int) -> str:
        return f"{self._issues_url}/{issue}"

    def retry_hint(self, item: DeadItem) -> str:
        return (
            "push the fix: the publish run retries it (by hand: add the label "
            f"`{RETRY_LABEL}` to the issue)"
        )

    def article_of(self, issue: int) -> str | None:
        lazy = self._repository.get_issue(issue)
        try:
            body = self._client.call(lambda: lazy.complete().body, write=False,
                                     label="GET /repos/{repo}/issues/{number}")  # fmt: skip
        except GitHubError as error:
            if error.status in (404, 410):
                return None
            raise
        found = find_marker(body or "")
        return None if found is None else found.get("path")

    def _body(self, letter: Letter) -> str:
        by_hand = (
            f"run the sweep workflow by hand with `retry: {letter.paths[0]}`"
            if not letter.is_summary
            else "run the sweep workflow by hand with `retry_all_dead` ticked"
        )
        retry = (
            "Push the fix: a commit that changes what this depended on (the article, an image "
            "it shows, the theme, `steadypress.yml`) retries it in that push's run, and this "
            f"issue closes when it is published. To retry by hand, add the label `{RETRY_LABEL}` "
            f"to this issue (every item it lists is retried), or {by_hand}."
        )
        return letter.body(how_to_retry=retry, run_url=self._run_url)

    def _create(self, title: str, body: str) -> int:
        return self._write(
            lambda: (
                self._repository.create_issue(
                    title=title, body=body, labels=[DEAD_LETTER_LABEL]
                ).number
            ),
            "POST /repos/{repo}/issues",
        )

    def _write(self, perform: Callable[[], T], label: str) -> T:
        """An issue write, at least `WRITE_INTERVAL` after the one before: GitHub asks for a
        second between content-creating requests ("Best practices for using the REST API"),
        and a burst of issues is what its secondary rate limits stop."""
        clock = self._client.clock
        if self._last_write is not None:
            wait = WRITE_INTERVAL - (clock.now() - self._last_write).total_seconds()
            if wait > 0:
                clock.sleep(wait)
        try:
            return self._client.call(perform, write=True, label=label)
        finally:
            self._last_write = clock.now()

    def _ensure_labels(self) -> None:
        """Create the labels if missing: issue creation does not reliably create them."""
        if self._labels_ready:
            return
        for name, (color, description) in _LABELS.items():
            label = self._repository.get_label(name)
            try:
                self._client.call(label.complete, write=False,
                                  label="GET /repos/{repo}/labels/{name}")  # fmt: skip
                continue
            except GitHubError as error:
                if error.status != 404:
                    raise
            try:
                self._client.call(
                    partial(self._repository.create_label, name, color, description),
                    write=True,
                    label="POST /repos/{repo}/labels",
                )
            except GitHubError as error:
                if error.status != 422:  # 422 already_exists: another executor made it first
                    raise
        self._labels_ready = True

    def _find(self, identity: Identity) -> int | None:
        if self._known is None:
            known: dict[str, int] = {}
            url: str | None = (
                f"{self._repo}/issues?labels={DEAD_LETTER_LABEL}&state=all&per_page=100"
                "&sort=created&direction=asc"
            )
            while url:
                response = self._client.rest("GET", url, endpoint="/repos/{repo}/issues")
                for issue in response.json():
                    found = find_marker(str(issue.get("body") or ""))
                    if found is not None:  # the oldest one wins
                        known.setdefault(identity_key(found), int(issue["number"]))
                url = response.links.get("next", {}).get("url")
            self._known = known
        return self._known.get(identity_key(identity))
