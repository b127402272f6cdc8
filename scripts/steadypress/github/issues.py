"""Dead letters as GitHub issues: one issue per dead item, found again by its hidden marker.

An issue is looked up by listing the `dead-letter` issues (all states), not by search: the
search index lags behind, and an issue it has not indexed yet would be created twice. The list is
read once per process. A create whose answer was lost is followed by a fresh look before any
second create. A second death reopens the item's issue; a success comments with the URL and
closes it.
"""

from __future__ import annotations

from steadypress.alerts.base import find_marker
from steadypress.alerts.letter import letter_body, letter_title, resolution_text
from steadypress.errors import AmbiguousWrite, GitHubError
from steadypress.github.client import GitHubClient
from steadypress.ledger import DeadItem, PublishedRecord

__all__ = ["DEAD_LETTER_LABEL", "RETRY_LABEL", "GitHubIssues"]

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
        self._run_url = run_url
        self._issues_url = f"{server_url.rstrip('/')}/{repository}/issues"
        self._labels_ready = False
        self._known: dict[str, int] | None = None

    def open(self, item: DeadItem) -> int:
        self._ensure_labels()
        number = item.alert or self._find(item.key)
        fields = {"title": letter_title(item), "body": self._body(item)}
        if number is not None:
            self._client.rest(
                "PATCH", f"{self._repo}/issues/{number}", json={**fields, "state": "open"},
                endpoint="/repos/{repo}/issues/{number}",
            )  # fmt: skip
            return number
        try:
            created = self._create(fields)
        except AmbiguousWrite:
            self._known = None  # it may exist now: look before creating again
            found = self._find(item.key)
            created = found if found is not None else self._create(fields)
        if self._known is not None:  # listed by _find above
            self._known[item.key] = created
        return created

    def resolve(self, issue: int, key: str, record: PublishedRecord) -> None:
        self._comment(issue, resolution_text(key, record))
        self._close(issue, "completed")

    def withdraw(self, issue: int, *, reason: str) -> None:
        self._comment(issue, f"Withdrawn: {reason}")
        self._close(issue, "not_planned")

    def discard(self, issue: int, *, duplicate_of: int) -> None:
        self._comment(issue, f"Duplicate of #{duplicate_of}: two executors opened this at once.")
        self._close(issue, "not_planned")

    def acknowledge_retry(self, issue: int) -> None:
        """Remove the `retry` label, so adding it again asks again."""
        try:
            self._client.rest(
                "DELETE", f"{self._repo}/issues/{issue}/labels/{RETRY_LABEL}",
                endpoint="/repos/{repo}/issues/{number}/labels/{name}",
            )  # fmt: skip
        except GitHubError as error:
            if error.status != 404:  # 404: the label was not on the issue; nothing to withdraw
                raise

    def where(self, issue: int) -> str:
        return f"{self._issues_url}/{issue}"

    def retry_hint(self, item: DeadItem) -> str:
        return f"commit the fix, then add the label `{RETRY_LABEL}` to the issue"

    def key_of(self, issue: int) -> str | None:
        try:
            response = self._client.rest(
                "GET", f"{self._repo}/issues/{issue}", endpoint="/repos/{repo}/issues/{number}"
            )
        except GitHubError as error:
            if error.status in (404, 410):
                return None
            raise
        return find_marker(str(response.json().get("body") or ""))

    def _body(self, item: DeadItem) -> str:
        retry = (
            f"Fix the cause, then add the label `{RETRY_LABEL}` to this issue, or run the sweep "
            f"workflow by hand with `retry: {item.path}`. Pushing a new version of the article "
            "retries it too."
        )
        return letter_body(item, how_to_retry=retry, run_url=self._run_url)

    def _create(self, fields: dict[str, str]) -> int:
        response = self._client.rest(
            "POST", f"{self._repo}/issues", json={**fields, "labels": [DEAD_LETTER_LABEL]},
            endpoint="/repos/{repo}/issues",
        )  # fmt: skip
        number: int = response.json()["number"]
        return number

    def _comment(self, issue: int, text: str) -> None:
        self._client.rest(
            "POST", f"{self._repo}/issues/{issue}/comments", json={"body": text},
            endpoint="/repos/{repo}/issues/{number}/comments",
        )  # fmt: skip

    def _close(self, issue: int, reason: str) -> None:
        self._client.rest(
            "PATCH",
            f"{self._repo}/issues/{issue}",
            json={"state": "closed", "state_reason": reason},
            endpoint="/repos/{repo}/issues/{number}",
        )

    def _ensure_labels(self) -> None:
        """Create the labels if missing: issue creation does not reliably create them."""
        if self._labels_ready:
            return
        for name, (color, description) in _LABELS.items():
            try:
                self._client.rest(
                    "GET", f"{self._repo}/labels/{name}", endpoint="/repos/{repo}/labels/{name}"
                )
                continue
            except GitHubError as error:
                if error.status != 404:
                    raise
            try:
                self._client.rest(
                    "POST", f"{self._repo}/labels", endpoint="/repos/{repo}/labels",
                    json={"name": name, "color": color, "description": description},
                )  # fmt: skip
            except GitHubError as error:
                if error.status != 422:  # 422 already_exists: another executor made it first
                    raise
        self._labels_ready = True

    def _find(self, key: str) -> int | None:
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
                    if found is not None:
                        known.setdefault(found, int(issue["number"]))  # the oldest one wins
                url = response.links.get("next", {}).get("url")
            self._known = known
        return self._known.get(key)
