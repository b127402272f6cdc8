"""The GitHub fake answers like the real API: held against exchanges recorded from GitHub
(tests/fixtures/github-recorded: PyGithub's ReplayData and octokit/fixtures)."""

import ast
import gzip
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.fakes.github import FakeGitHub
from tests.fakes.github.openapi import required_fields

RECORDED = Path(__file__).resolve().parent / "fixtures" / "github-recorded"


def pygithub_exchanges(name: str) -> list[dict[str, Any]]:
    """A PyGithub ReplayData file: per exchange, 10 lines (scheme, method, host, port, path,
    request headers, request body, status, response headers, response body)."""
    lines = (RECORDED / "pygithub" / name).read_text().split("\n")
    exchanges = []
    for start in range(0, len(lines) - 9, 11):
        block = lines[start : start + 10]
        exchanges.append({
            "method": block[1], "path": block[4], "status": int(block[7]),
            "headers": {k.lower(): v for k, v in ast.literal_eval(block[8])},
            "body": json.loads(block[9]) if block[9].strip() else None,
        })  # fmt: skip
    return exchanges


def recorded(name: str, method: str, path_end: str) -> dict[str, Any]:
    return next(
        e
        for e in pygithub_exchanges(name)
        if e["method"] == method and e["path"].endswith(path_end)
    )


@pytest.fixture
def github() -> Any:
    with FakeGitHub() as fake:
        yield fake


def call(
    github: FakeGitHub, method: str, path: str, body: Any = None, token: str | None = None
) -> requests.Response:
    headers = {"Authorization": f"token {github.token if token is None else token}"}
    return requests.request(
        method, f"{github.api_url}{path}", json=body, headers=headers, timeout=10
    )


def create_root(github: FakeGitHub) -> tuple[requests.Response, requests.Response]:
    """POST a tree with one file, then a commit without parents: the two answers."""
    tree = call(
        github,
        "POST",
        f"/repos/{github.full_name}/git/trees",
        {"tree": [{"path": "a.txt", "mode": "100644", "type": "blob", "content": "a"}]},
    )
    commit = call(
        github,
        "POST",
        f"/repos/{github.full_name}/git/commits",
        {"message": "m", "tree": tree.json()["sha"], "parents": []},
    )
    return tree, commit


def root_commit(github: FakeGitHub) -> tuple[str, str]:
    tree, commit = create_root(github)
    return tree.json()["sha"], commit.json()["sha"]


def test_creating_a_ref_answers_like_github(github: FakeGitHub) -> None:
    """201 with the fields GitHub sends (ref, url, object.sha/type/url) and a Location header."""
    real = recorded("Repository.testCreateGitRef.txt", "POST", "/git/refs")
    _tree, commit = root_commit(github)
    fake = call(
        github,
        "POST",
        f"/repos/{github.full_name}/git/refs",
        {"ref": "refs/heads/x", "sha": commit},
    )
    assert fake.status_code == real["status"] == 201
    assert set(real["body"]) <= set(fake.json())
    assert set(real["body"]["object"]) <= set(fake.json()["object"])
    octokit = json.loads((RECORDED / "octokit" / "git-refs.json").read_text())
    created = next(e for e in octokit if e["method"] == "post")
    assert "location" in {k.lower() for k in created["headers"]} and "Location" in fake.headers


def test_creating_an_existing_ref_is_422_reference_already_exists(github: FakeGitHub) -> None:
    """The documented 422, with GitHub's error body shape (message, documentation_url)."""
    real_error = json.loads((RECORDED / "octokit" / "errors.json").read_text())[0]["response"]
    _tree, commit = root_commit(github)
    call(
        github,
        "POST",
        f"/repos/{github.full_name}/git/refs",
        {"ref": "refs/heads/x", "sha": commit},
    )
    again = call(
        github,
        "POST",
        f"/repos/{github.full_name}/git/refs",
        {"ref": "refs/heads/x", "sha": commit},
    )
    assert again.status_code == 422 and again.json()["message"] == "Reference already exists"
    assert {"message", "documentation_url"} <= set(real_error) & set(again.json())


def test_creating_trees_and_commits_answers_like_github(github: FakeGitHub) -> None:
    """201 and the recorded fields steadypress reads (sha, url, tree, message, parents)."""
    real_tree = recorded("Repository.testCreateGitTreeWithBaseTree.txt", "POST", "/git/trees")
    real_commit = recorded("Repository.testCreateGitCommit.txt", "POST", "/git/commits")
    tree, commit = create_root(github)
    assert tree.status_code == real_tree["status"] == 201
    assert commit.status_code == real_commit["status"] == 201
    assert {"sha", "url", "tree"} <= set(real_tree["body"]) & set(tree.json())
    assert {"sha", "url", "tree", "message", "parents"} <= set(real_commit["body"]) & set(
        commit.json()
    )
    # The recording is from 2012: what the fake adds must be what GitHub requires today.
    newer = set(commit.json()) - set(real_commit["body"])
    required_now = required_fields("/repos/{owner}/{repo}/git/commits", "POST", 201)
    assert newer <= required_now, newer - required_now


def test_what_the_fake_stores_git_itself_reads_back(github: FakeGitHub) -> None:
    """The fake writes blobs itself (as loose objects) and reads through one `cat-file`
    process: git's own check finds the repository whole, and names with spaces or outside
    ASCII are read back as they were written, and as missing when they are."""
    files = {"a b.txt": "spaced", "café.md": "accented", "d/e.txt": "nested"}
    tree = call(
        github,
        "POST",
        f"/repos/{github.full_name}/git/trees",
        {"tree": [{"path": p, "mode": "100644", "type": "blob", "content": c}
                  for p, c in files.items()]},
    ).json()["sha"]  # fmt: skip
    blob = call(
        github, "POST", f"/repos/{github.full_name}/git/blobs", {"content": "alone"}
    ).json()["sha"]
    commit = call(
        github,
        "POST",
        f"/repos/{github.full_name}/git/commits",
        {"message": "m", "tree": tree, "parents": []},
    ).json()["sha"]
    stored = github.repository
    subprocess.run(["git", "--git-dir", str(stored.path), "fsck", "--strict"], check=True)
    shown = ["git", "--git-dir", str(stored.path), "cat-file", "blob", blob]
    assert subprocess.run(shown, capture_output=True, check=True).stdout == b"alone"
    assert sorted(stored.tree_entries(commit, "") or []) == [
        ("a b.txt", "blob"), ("café.md", "blob"), ("d", "tree"),
    ]  # fmt: skip
    for path, content in files.items():
        assert (stored.blob_at(commit, path) or ("", b""))[1] == content.encode()
    assert stored.blob_at(commit, "no such file.txt") is None
    assert stored.blob_at(commit, "d") is None  # a folder
    assert stored.exists(commit, "commit") and not stored.exists(commit, "tree")
    assert stored.commit_message(commit) == "m"


def test_a_wrong_token_is_401_bad_credentials(github: FakeGitHub) -> None:
    """GitHub's recorded answer to a bad token."""
    real = pygithub_exchanges("Exceptions.testBadAuthentication.txt")[0]
    fake = call(github, "GET", f"/repos/{github.full_name}/git/ref/heads/main", token="nope")
    assert fake.status_code == real["status"] == 401
    assert fake.json()["message"] == real["body"]["message"] == "Bad credentials"


def test_every_answer_carries_the_rate_limit_headers(github: FakeGitHub) -> None:
    """The x-ratelimit-* headers GitHub sends with every response, REST and GraphQL."""
    real = {
        k
        for k in recorded("GraphQl.testMutation.txt", "POST", "/graphql")["headers"]
        if k.startswith("x-ratelimit")
    }
    rest = call(github, "GET", f"/repos/{github.full_name}/git/ref/heads/main")
    graphql = requests.post(
        github.graphql_url,
        json={"query": "{ viewer { login } }"},
        headers={"Authorization": f"bearer {github.token}"},
        timeout=10,
    )
    for response in (rest, graphql):
        assert real <= {k.lower() for k in response.headers if k.lower().startswith("x-ratelimit")}
    assert graphql.headers["x-ratelimit-resource"] == "graphql"


def test_answers_are_gzipped_when_the_client_accepts_it_as_github_does(
    github: FakeGitHub,
) -> None:
    """GitHub's recorded GraphQL answers came gzipped to a client sending `Accept-Encoding:
    gzip` (as requests does); one that does not ask gets the bytes as they are. The fake counts
    the compressed bytes, what the wire carried."""
    real = recorded("GraphQl.testQuery.txt", "POST", "/graphql")["headers"]
    assert real["content-encoding"] == "gzip" and "Accept-Encoding" in real["vary"]
    query = {"query": '{ repository(owner: "octo", name: "blog") { id } }'}
    auth = {"Authorization": f"bearer {github.token}"}
    answers = {}
    for encoding in ("gzip, deflate", "identity"):
        answer = requests.post(
            github.graphql_url, json=query, headers={**auth, "Accept-Encoding": encoding},
            timeout=10, stream=True,
        )  # fmt: skip
        answers[encoding] = (answer.headers, answer.raw.read(decode_content=False))
    gzipped, plain = answers["gzip, deflate"], answers["identity"]
    assert gzipped[0]["content-encoding"] == "gzip"
    assert "Accept-Encoding" in gzipped[0]["vary"]
    assert "content-encoding" not in plain[0]
    assert json.loads(gzip.decompress(gzipped[1])) == json.loads(plain[1])
    assert "data" in json.loads(plain[1])


def test_a_query_github_would_reject_is_rejected_with_a_graphql_error(github: FakeGitHub) -> None:
    """Validation against the real schema: an unknown field is an error, not an empty answer."""
    answer = requests.post(
        github.graphql_url,
        json={"query": '{ repository(owner: "octo", name: "blog") { nope } }'},
        headers={"Authorization": f"bearer {github.token}"},
        timeout=10,
    ).json()
    assert answer["errors"][0]["message"].startswith(
        "Cannot query field 'nope' on type 'Repository'"
    )


def test_a_query_is_judged_on_its_own_literals_after_one_of_its_shape_passed(
    github: FakeGitHub,
) -> None:
    """The fake validates a query's shape once for every set of paths; two fields under one
    alias with different arguments still cannot be merged, as GraphQL's rules say."""

    def errors(first: str, second: str) -> list[str]:
        query = (
            f'{{ repository(owner: "octo", name: "blog") {{ a: object(expression: "{first}") '
            f'{{ oid }} a: object(expression: "{second}") {{ oid }} }} }}'
        )
        answer = requests.post(
            github.graphql_url,
            json={"query": query},
            headers={"Authorization": f"bearer {github.token}"},
            timeout=10,
        ).json()
        return [error["message"] for error in answer.get("errors", [])]

    assert errors("main:x", "main:x") == []
    assert errors("main:y", "main:y") == []
    assert errors("main:x", "main:y") == [
        "Fields 'a' conflict because they have differing arguments."
        " Use different aliases on the fields to fetch both if this was intentional."
    ]


def test_listing_issues_paginates_with_links_like_github(github: FakeGitHub) -> None:
    """The Link header names the same relations GitHub's recorded pages do: next and last on
    the first page, all four in the middle, prev and first on the last."""
    recorded_pages = json.loads((RECORDED / "octokit" / "paginate-issues.json").read_text())
    real = [
        {part.split('rel="')[1].rstrip('"') for part in page["headers"]["link"].split(", ")}
        for page in recorded_pages
    ]
    for n in range(13):
        github.tracker.create_issue({"title": f"issue {n}"})
    fake = []
    url: str | None = f"{github.api_url}/repos/{github.full_name}/issues?per_page=3"
    while url:
        response = requests.get(url, headers={"Authorization": f"token {github.token}"}, timeout=10)
        assert response.status_code == 200 and len(response.json()) <= 3
        fake.append(set(response.links))
        url = response.links.get("next", {}).get("url")
    assert len(fake) == len(real) == 5
    assert fake == real
