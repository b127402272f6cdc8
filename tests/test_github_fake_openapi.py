"""Every JSON answer of the GitHub fake matches the response schema in GitHub's OpenAPI
description (@octokit/openapi) for its operation and status."""

from collections.abc import Iterator
from typing import Any

import pytest
import requests

from tests.fakes.github import FakeGitHub
from tests.fakes.github.openapi import response_validator


@pytest.fixture(scope="module")
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        yield fake


def call(github: FakeGitHub, method: str, path: str, body: Any = None) -> requests.Response:
    return requests.request(
        method, f"{github.api_url}/repos/{github.full_name}{path}", json=body,
        headers={"Authorization": f"token {github.token}"}, timeout=10,
    )  # fmt: skip


def check(response: requests.Response, path: str, method: str) -> None:
    validator = response_validator(path, method, response.status_code)
    errors = sorted(validator.iter_errors(response.json()), key=str)
    where = f"{method} {path} {response.status_code}"
    assert not errors, f"{where}: {errors[0].message} at {list(errors[0].absolute_path)}"


def test_git_data_answers_match_the_description(github: FakeGitHub) -> None:
    """Trees, commits, refs and blobs: created, read, and the documented errors."""
    tree = call(
        github,
        "POST",
        "/git/trees",
        {"tree": [{"path": "a.txt", "mode": "100644", "type": "blob", "content": "a"}]},
    )
    check(tree, "/repos/{owner}/{repo}/git/trees", "POST")
    commit = call(
        github, "POST", "/git/commits", {"message": "m", "tree": tree.json()["sha"], "parents": []}
    )
    check(commit, "/repos/{owner}/{repo}/git/commits", "POST")
    ref = call(github, "POST", "/git/refs", {"ref": "refs/heads/main", "sha": commit.json()["sha"]})
    check(ref, "/repos/{owner}/{repo}/git/refs", "POST")
    check(
        call(github, "POST", "/git/refs", {"ref": "refs/heads/main", "sha": commit.json()["sha"]}),
        "/repos/{owner}/{repo}/git/refs",
        "POST",
    )
    check(call(github, "GET", "/git/ref/heads/main"), "/repos/{owner}/{repo}/git/ref/{ref}", "GET")
    check(call(github, "GET", "/git/ref/heads/nope"), "/repos/{owner}/{repo}/git/ref/{ref}", "GET")
    blob = tree.json()["tree"][0]["sha"]
    check(
        call(github, "GET", f"/git/blobs/{blob}"),
        "/repos/{owner}/{repo}/git/blobs/{file_sha}",
        "GET",
    )
    made = call(github, "POST", "/git/blobs", {"content": "AAEC", "encoding": "base64"})
    check(made, "/repos/{owner}/{repo}/git/blobs", "POST")
    assert made.status_code == 201
    assert call(github, "GET", f"/git/blobs/{made.json()['sha']}").json()["content"] == "AAEC\n"
    # Its 422 is described as oneOf a validation error and a repository rule violation, whose
    # schema requires nothing: every validation error matches both, so none can pass `check`.
    refused = call(github, "POST", "/git/blobs", {"content": "not base64!", "encoding": "base64"})
    assert (refused.status_code, refused.json()["message"]) == (422, "Validation Failed")


def test_issue_and_label_answers_match_the_description(github: FakeGitHub) -> None:
    """Labels, issues (created, listed, read, updated), comments, and their errors."""
    check(call(github, "GET", "/labels/dead-letter"), "/repos/{owner}/{repo}/labels/{name}", "GET")
    label = call(github, "POST", "/labels", {"name": "dead-letter", "color": "b60205"})
    check(label, "/repos/{owner}/{repo}/labels", "POST")
    check(
        call(github, "POST", "/labels", {"name": "dead-letter"}),
        "/repos/{owner}/{repo}/labels",
        "POST",
    )
    check(call(github, "GET", "/labels/dead-letter"), "/repos/{owner}/{repo}/labels/{name}", "GET")
    issue = call(github, "POST", "/issues", {"title": "t", "body": "b", "labels": ["dead-letter"]})
    check(issue, "/repos/{owner}/{repo}/issues", "POST")
    number = issue.json()["number"]
    check(
        call(github, "GET", "/issues?labels=dead-letter&state=all"),
        "/repos/{owner}/{repo}/issues",
        "GET",
    )
    check(
        call(github, "GET", f"/issues/{number}"),
        "/repos/{owner}/{repo}/issues/{issue_number}",
        "GET",
    )
    check(call(github, "GET", "/issues/999"), "/repos/{owner}/{repo}/issues/{issue_number}", "GET")
    check(
        call(
            github, "PATCH", f"/issues/{number}", {"state": "closed", "state_reason": "completed"}
        ),
        "/repos/{owner}/{repo}/issues/{issue_number}",
        "PATCH",
    )
    check(
        call(github, "POST", f"/issues/{number}/comments", {"body": "c"}),
        "/repos/{owner}/{repo}/issues/{issue_number}/comments",
        "POST",
    )


def test_workflow_answers_match_the_description(github: FakeGitHub) -> None:
    """Getting a workflow answers the documented object; enabling one answers 204 and no body."""
    check(
        call(github, "GET", "/actions/workflows/sweep.yml"),
        "/repos/{owner}/{repo}/actions/workflows/{workflow_id}",
        "GET",
    )
    enabled = call(github, "PUT", "/actions/workflows/sweep.yml/enable")
    assert enabled.status_code == 204 and enabled.content == b""


def test_the_check_can_fail() -> None:
    """A git ref without its object is not what GitHub documents."""
    validator = response_validator("/repos/{owner}/{repo}/git/refs", "POST", 201)
    assert list(validator.iter_errors({"ref": "refs/heads/x", "node_id": "n", "url": "u"}))


def test_a_repositorys_answer_matches_the_description_with_a_token_and_without(
    github: FakeGitHub,
) -> None:
    """`GET /repos/{owner}/{repo}`: anyone may read a public repository; a private one is "Not
    Found" to a caller without a token."""
    path = "/repos/{owner}/{repo}"
    url = f"{github.api_url}/repos/{github.full_name}"
    check(call(github, "GET", ""), path, "GET")
    anonymous = requests.get(url, timeout=10)
    check(anonymous, path, "GET")
    assert anonymous.json()["private"] is False
    github.private = True
    try:
        hidden = requests.get(url, timeout=10)
        check(hidden, path, "GET")
        assert hidden.status_code == 404
        assert call(github, "GET", "").json()["private"] is True
    finally:
        github.private = False
