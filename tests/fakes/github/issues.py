"""The fake's issues and labels, in memory, answering as GitHub's REST reference documents:
- docs.github.com/rest/issues/issues: list repository issues (filters `labels`, `state`,
  `sort`, `direction`; `per_page` at most 100; the `Link` header of "Using pagination in the REST
  API" with rel next/prev/first/last), create (201), get (404 when missing), update (`state`,
  `state_reason`);
- docs.github.com/rest/issues/comments#create-an-issue-comment (201);
- docs.github.com/rest/issues/labels: get a label (404 when missing), create a label (201; an
  existing name is 422 "Validation Failed" with code `already_exists`, as recorded in
  tests/fixtures/github-recorded/octokit/errors.json for invalid fields).
Creating an issue with a label that does not exist creates the label (observed on GitHub).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlencode

DOCS = "https://docs.github.com/rest"


class IssueError(Exception):
    def __init__(self, status: int, body: dict[str, Any]) -> None:
        super().__init__(body.get("message"))
        self.status = status
        self.body = body


NOW = "2026-11-29T00:00:00Z"


def bot_user(api_url: str) -> dict[str, Any]:
    """The simple-user GitHub attaches to what a workflow's token creates."""
    login = "github-actions[bot]"
    base = f"{api_url}/users/{login}"
    return {
        "login": login,
        "id": 41898282,
        "node_id": "MDM6Qm90NDE4OTgyODI=",
        "type": "Bot",
        "avatar_url": "https://avatars.githubusercontent.com/in/15368?v=4",
        "gravatar_id": "",
        "url": base,
        "html_url": "https://github.com/apps/github-actions",
        "site_admin": False,
        "followers_url": f"{base}/followers",
        "following_url": f"{base}/following{{/other_user}}",
        "gists_url": f"{base}/gists{{/gist_id}}",
        "starred_url": f"{base}/starred{{/owner}}{{/repo}}",
        "subscriptions_url": f"{base}/subscriptions",
        "organizations_url": f"{base}/orgs",
        "repos_url": f"{base}/repos",
        "events_url": f"{base}/events{{/privacy}}",
        "received_events_url": f"{base}/received_events",
    }


def _not_found(docs: str) -> IssueError:
    return IssueError(404, {"message": "Not Found", "documentation_url": docs, "status": "404"})


@dataclass
class IssueTracker:
    base_url: str
    labels: dict[str, dict[str, Any]] = field(default_factory=dict)
    issues: list[dict[str, Any]] = field(default_factory=list)
    comments: dict[int, list[str]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def get_label(self, name: str) -> dict[str, Any]:
        if name not in self.labels:
            raise _not_found(f"{DOCS}/issues/labels#get-a-label")
        return self.labels[name]

    def create_label(self, request: dict[str, Any]) -> dict[str, Any]:
        name = str(request.get("name", ""))
        with self.lock:
            if not name or name in self.labels:
                raise IssueError(
                    422,
                    {
                        "message": "Validation Failed",
                        "errors": [
                            {
                                "resource": "Label",
                                "code": "already_exists" if name else "missing_field",
                                "field": "name",
                            }
                        ],
                        "documentation_url": f"{DOCS}/issues/labels#create-a-label",
                        "status": "422",
                    },
                )
            return self._label(name, request.get("color", "ededed"), request.get("description"))

    def _label(
        self, name: str, color: str = "ededed", description: str | None = None
    ) -> dict[str, Any]:
        label = {
            "id": len(self.labels) + 1,
            "node_id": f"LA_{name}",
            "url": f"{self.base_url}/labels/{name}",
            "name": name,
            "color": color,
            "default": False,
            "description": description,
        }
        self.labels[name] = label
        return label

    def create_issue(self, request: dict[str, Any]) -> dict[str, Any]:
        if not request.get("title"):
            raise IssueError(
                422,
                {
                    "message": "Validation Failed",
                    "errors": [{"resource": "Issue", "code": "missing_field", "field": "title"}],
                    "documentation_url": f"{DOCS}/issues/issues#create-an-issue",
                    "status": "422",
                },
            )
        with self.lock:
            number = len(self.issues) + 1
            labels = [
                self.labels.get(name) or self._label(name) for name in request.get("labels", [])
            ]
            url = f"{self.base_url}/issues/{number}"
            issue = {
                "id": 1000 + number,
                "node_id": f"I_{number}",
                "number": number,
                "url": url,
                "repository_url": self.base_url,
                "labels_url": f"{url}/labels{{/name}}",
                "comments_url": f"{url}/comments",
                "events_url": f"{url}/events",
                "html_url": self._html(f"issues/{number}"),
                "title": request["title"],
                "body": request.get("body"),
                "state": "open",
                "state_reason": None,
                "labels": labels,
                "comments": 0,
                "locked": False,
                "assignee": None,
                "assignees": [],
                "milestone": None,
                "user": bot_user(self._api_root()),
                "author_association": "NONE",
                "created_at": NOW,
                "updated_at": NOW,
                "closed_at": None,
            }
            self.issues.append(issue)
            return issue

    def get_issue(self, number: int) -> dict[str, Any]:
        if not 1 <= number <= len(self.issues):
            raise _not_found(f"{DOCS}/issues/issues#get-an-issue")
        return self.issues[number - 1]

    def update_issue(self, number: int, request: dict[str, Any]) -> dict[str, Any]:
        issue = self.get_issue(number)
        with self.lock:
            for key in ("title", "body", "state", "state_reason"):
                if key in request:
                    issue[key] = request[key]
            if request.get("state") == "open":
                issue["state_reason"] = "reopened"
            issue["closed_at"] = NOW if issue["state"] == "closed" else None
        return issue

    def add_label(self, number: int, name: str) -> None:
        """What a person does in the web interface: label an issue."""
        issue = self.get_issue(number)
        with self.lock:
            issue["labels"].append(self.labels.get(name) or self._label(name))

    def remove_label(self, number: int, name: str) -> list[dict[str, Any]]:
        """docs.github.com/rest/issues/labels#remove-a-label-from-an-issue: 200 with the labels
        left, 404 "Label does not exist" when the issue does not carry it."""
        issue = self.get_issue(number)
        with self.lock:
            if name not in {label["name"] for label in issue["labels"]}:
                raise IssueError(
                    404,
                    {
                        "message": "Label does not exist",
                        "status": "404",
                        "documentation_url": f"{DOCS}/issues/labels#remove-a-label-from-an-issue",
                    },
                )
            issue["labels"] = [label for label in issue["labels"] if label["name"] != name]
            return list(issue["labels"])

    def comment(self, number: int, request: dict[str, Any]) -> dict[str, Any]:
        issue = self.get_issue(number)
        with self.lock:
            self.comments.setdefault(number, []).append(str(request.get("body", "")))
            issue["comments"] += 1
            comment_id = number * 100 + issue["comments"]
        return {
            "id": comment_id,
            "node_id": f"IC_{comment_id}",
            "body": request.get("body"),
            "url": f"{self.base_url}/issues/comments/{comment_id}",
            "issue_url": issue["url"],
            "html_url": f"{issue['html_url']}#issuecomment-{comment_id}",
            "user": bot_user(self._api_root()),
            "author_association": "NONE",
            "created_at": NOW,
            "updated_at": NOW,
        }

    def _api_root(self) -> str:
        return self.base_url.split("/repos/")[0]

    def _html(self, suffix: str) -> str:
        return f"https://github.example/{self.base_url.split('/repos/')[1]}/{suffix}"

    def list_issues(self, query: str) -> tuple[list[dict[str, Any]], str | None]:
        """One page of issues and the Link header value."""
        params = {key: values[-1] for key, values in parse_qs(query).items()}
        state = params.get("state", "open")
        wanted = [name for name in params.get("labels", "").split(",") if name]
        per_page = min(int(params.get("per_page", 30)), 100)
        page = max(int(params.get("page", 1)), 1)
        chosen = [
            issue
            for issue in self.issues
            if (state == "all" or issue["state"] == state)
            and all(name in {label["name"] for label in issue["labels"]} for name in wanted)
        ]
        if params.get("direction", "desc") == "desc":
            chosen.reverse()
        last = max(1, -(-len(chosen) // per_page))

        def link(number: int) -> str:
            return f"{self.base_url}/issues?{urlencode({**params, 'page': number})}"

        rels = []
        if page < last:
            rels += [f'<{link(page + 1)}>; rel="next"', f'<{link(last)}>; rel="last"']
        if page > 1:
            rels += [f'<{link(page - 1)}>; rel="prev"', f'<{link(1)}>; rel="first"']
        return chosen[(page - 1) * per_page : page * per_page], ", ".join(rels) or None
