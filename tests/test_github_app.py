"""A GitHub App as the credential: JWT, installation token, then the run as usual."""

from __future__ import annotations

import time
from collections.abc import Iterator

import jwt
import pytest
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from tests.fakes.github import FakeGitHub
from tests.fakes.github.apps import FakeApp, key_pair
from tests.fakes.github.openapi import response_validator
from tests.helpers import Repo, article, run_cli

APP_ID = 424242


@pytest.fixture
def github(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        for name, value in {
            "GITHUB_REPOSITORY": fake.full_name, "GITHUB_API_URL": fake.api_url,
            "GITHUB_GRAPHQL_URL": fake.graphql_url,
        }.items():  # fmt: skip
            monkeypatch.setenv(name, value)
        monkeypatch.delenv("GITHUB_TOKEN", raising=False)
        yield fake


def test_a_run_as_a_github_app_installation_publishes(
    github: FakeGitHub, repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """App id and private key only (a trailing newline, as a pasted secret has): the app's JWT
    finds the installation and buys an installation token; the run publishes with it, and
    never with any other token."""
    private, public = key_pair()
    github.app = FakeApp(app_id=APP_ID, public_key_pem=public)
    monkeypatch.setenv("STEADYPRESS_APP_ID", str(APP_ID))
    monkeypatch.setenv("STEADYPRESS_APP_PRIVATE_KEY", private + "\n")
    repo.commit(**{"content/a.md": article("A")})
    with github.counting() as calls:
        result = run_cli(repo, "run", "--backend", "github")
    assert result.code == 0, result.err
    assert "a/index.html" in github.repository.text("ls-tree", "-r", "--name-only", "gh-pages")
    assert calls["GET /repos/{repo}/installation"] == 1
    assert calls["POST /app/installations/{installation_id}/access_tokens"] == 1
    assert len(github.app.tokens) == 1
    assert "PRIVATE KEY" not in result.out + result.err
    assert next(iter(github.app.tokens)) not in result.out + result.err


def test_a_key_that_is_not_the_app_s_is_refused_clearly(
    github: FakeGitHub, repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    _private, public = key_pair()
    other, _ = key_pair()
    github.app = FakeApp(app_id=APP_ID, public_key_pem=public)
    monkeypatch.setenv("STEADYPRESS_APP_ID", str(APP_ID))
    monkeypatch.setenv("STEADYPRESS_APP_PRIVATE_KEY", other)
    monkeypatch.setenv("STEADYPRESS_APP_INSTALLATION_ID", "7")
    repo.commit(**{"content/a.md": article("A")})
    result = run_cli(repo, "run", "--backend", "github")
    assert result.code == 3 and "A JSON web token could not be decoded" in result.err
    assert not github.app.tokens


def test_the_app_answers_match_the_description(github: FakeGitHub) -> None:
    """The installation and the token, as GitHub's OpenAPI description says they look."""
    private, public = key_pair()
    github.app = FakeApp(app_id=APP_ID, public_key_pem=public)
    now = int(time.time())
    signed = jwt.encode({"iat": now - 60, "exp": now + 540, "iss": str(APP_ID)}, private, "RS256")
    headers = {"Authorization": f"Bearer {signed}"}
    found = requests.get(
        f"{github.api_url}/repos/{github.full_name}/installation", headers=headers, timeout=10
    )
    created = requests.post(
        f"{github.api_url}/app/installations/7/access_tokens", headers=headers, timeout=10
    )
    for answer, path, method in (
        (found, "/repos/{owner}/{repo}/installation", "GET"),
        (created, "/app/installations/{installation_id}/access_tokens", "POST"),
    ):
        validator = response_validator(path, method, answer.status_code)
        errors = sorted(validator.iter_errors(answer.json()), key=str)
        assert not errors, f"{method} {path}: {errors[0].message}"
    assert (found.status_code, created.status_code) == (200, 201)


def _ec_key() -> str:
    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    return pem.decode()


MALFORMED_KEYS = {
    "PEM around garbage": lambda: (
        "-----BEGIN RSA PRIVATE KEY-----\nnot a key at all\n-----END RSA PRIVATE KEY-----"
    ),
    "pasted with literal \\n": lambda: key_pair()[0].replace("\n", "\\n"),
    "half a key": lambda: key_pair()[0][:800] + "\n-----END PRIVATE KEY-----",
    "an EC key": _ec_key,
}


@pytest.mark.parametrize("kind", sorted(MALFORMED_KEYS))
def test_a_malformed_app_key_is_one_line_naming_the_secret(
    github: FakeGitHub, repo: Repo, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    """Configuration, not a crash: exit 2, one line that names the secret and what to paste,
    no traceback, and nothing asked of GitHub."""
    monkeypatch.setenv("STEADYPRESS_APP_ID", str(APP_ID))
    monkeypatch.setenv("STEADYPRESS_APP_PRIVATE_KEY", MALFORMED_KEYS[kind]())
    repo.commit(**{"content/a.md": article("A")})
    with github.counting() as calls:
        result = run_cli(repo, "run", "--backend", "github")
    assert result.code == 2, result.err
    assert "STEADYPRESS_APP_PRIVATE_KEY" in result.err and ".pem file whole" in result.err
    assert "Traceback" not in result.err and len(result.err.strip().splitlines()) == 1
    assert ("literal \\n" in result.err) == (kind == "pasted with literal \\n")
    assert not calls
