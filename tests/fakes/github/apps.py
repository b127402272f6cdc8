"""A GitHub App installed on the fake's repository, authenticating as GitHub documents it:

- "Generating a JSON Web Token (JWT) for a GitHub App" (docs.github.com/apps/creating-github-apps/
  authenticating-with-a-github-app/generating-a-json-web-token-jwt-for-a-github-app): the app
  signs a JWT with its private key, RS256, `iss` its app id (or client id), `iat` at most 60 s
  in the future, `exp` at most 10 minutes after `iat`; it is sent as `Authorization: Bearer`.
  A JWT that cannot be verified answers 401 "A JSON web token could not be decoded".
- "Get a repository installation for the authenticated app" (docs.github.com/rest/apps/apps
  #get-a-repository-installation-for-the-authenticated-app): `GET /repos/{owner}/{repo}/
  installation`, with the JWT, answers the installation (its `id`).
- "Create an installation access token for an app" (docs.github.com/rest/apps/apps
  #create-an-installation-access-token-for-an-app): `POST /app/installations/{id}/access_tokens`,
  with the JWT, answers 201 `{"token", "expires_at"}` (one hour); that token then works as any
  token on the installation's repositories.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

__all__ = ["FakeApp", "JWTRejected", "key_pair"]


class JWTRejected(Exception):
    """The JWT is not the app's, or not valid now: GitHub's 401."""


@dataclass
class FakeApp:
    app_id: int
    public_key_pem: str
    installation_id: int = 7
    tokens: dict[str, float] = field(default_factory=dict)  # installation token -> expiry

    def verify(self, authorization: str) -> None:
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer":
            raise JWTRejected("A JSON web token could not be decoded")
        try:
            claims = jwt.decode(
                token, self.public_key_pem, algorithms=["RS256"], leeway=60,
                options={"require": ["iat", "exp", "iss"]},
            )  # fmt: skip
        except jwt.PyJWTError:
            raise JWTRejected("A JSON web token could not be decoded") from None
        if str(claims["iss"]) != str(self.app_id):
            raise JWTRejected("A JSON web token could not be decoded")
        if claims["exp"] - claims["iat"] > 11 * 60:  # ten minutes, with the clock's drift
            raise JWTRejected("'Expiration time' claim ('exp') is too far in the future")

    def issue_token(self) -> dict[str, Any]:
        token = f"ghs_{secrets.token_hex(18)}"
        expires = datetime.now(UTC) + timedelta(hours=1)
        self.tokens[token] = time.time() + 3600
        return {
            "token": token,
            "expires_at": expires.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "permissions": {"contents": "write", "issues": "write", "actions": "write"},
            "repository_selection": "selected",
        }

    def accepts(self, token: str) -> bool:
        return self.tokens.get(token, 0.0) > time.time()

    def installation(self, api_url: str, owner: str) -> dict[str, Any]:
        account = {
            "login": owner, "id": 1, "node_id": "MDQ6VXNlcjE=", "type": "User",
            "site_admin": False, "gravatar_id": "", "url": f"{api_url}/users/{owner}",
            "avatar_url": "https://avatars.example/u/1", "html_url": f"https://github.example/{owner}",
            **{
                name: f"{api_url}/users/{owner}/{name.removesuffix('_url')}"
                for name in ("events_url", "followers_url", "following_url", "gists_url",
                             "organizations_url", "received_events_url", "repos_url",
                             "starred_url", "subscriptions_url")
            },
        }  # fmt: skip
        installation = f"{api_url}/app/installations/{self.installation_id}"
        return {
            "id": self.installation_id,
            "app_id": self.app_id,
            "app_slug": "steadypress-test",
            "target_id": 1,
            "target_type": "User",
            "single_file_name": None,
            "repository_selection": "selected",
            "access_tokens_url": f"{installation}/access_tokens",
            "html_url": f"https://github.example/settings/installations/{self.installation_id}",
            "repositories_url": f"{api_url}/installation/repositories",
            "events": [],
            "account": account,
            "permissions": {"contents": "write", "issues": "write", "actions": "write"},
            "created_at": "2026-11-01T00:00:00Z",
            "updated_at": "2026-11-01T00:00:00Z",
            "suspended_by": None,
            "suspended_at": None,
        }


def key_pair() -> tuple[str, str]:
    """A new RSA key: the private one (PEM, PKCS#8) for the app, the public one for GitHub."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    public = (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    return private, public
