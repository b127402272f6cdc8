"""Who steadypress is on GitHub: the job's `GITHUB_TOKEN` (the default), any token in its place
(a fine-grained personal access token), or a GitHub App's installation.

An App is named by `STEADYPRESS_APP_ID` and the secret `STEADYPRESS_APP_PRIVATE_KEY` (its PEM
key), with `STEADYPRESS_APP_INSTALLATION_ID` optional (not GITHUB_*: GitHub reserves that
prefix); without it the installation on the repository is looked up with the app's JWT (one
request). PyGithub's `AppInstallationAuth` signs the JWT and trades it for an installation
token; the first trade is made here, through the client, so that it is counted and classified
like every request, and the token is taught to the redactor. `keep-schedule` builds its
client here, without the backend's modules (the content, the store, the site).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jwt
from github import Auth

from steadypress.clock import Clock
from steadypress.credentials import Secrets
from steadypress.errors import ConfigError
from steadypress.github.client import GitHubClient

__all__ = ["github_client_from"]

_KEY = "STEADYPRESS_APP_PRIVATE_KEY"


def _required(environ: Mapping[str, str], name: str, why: str) -> str:
    value = environ.get(name, "").strip()
    if not value:
        raise ConfigError(name, f"not set: {why}")
    return value


def github_client_from(
    environ: Mapping[str, str], *, clock: Clock, secrets: Secrets
) -> tuple[GitHubClient, str]:
    """The API client and OWNER/NAME, from the environment GitHub Actions provides."""
    repository = _required(environ, "GITHUB_REPOSITORY", "the GitHub backend needs OWNER/NAME")
    api_url = environ.get("GITHUB_API_URL") or "https://api.github.com"
    graphql_url = environ.get("GITHUB_GRAPHQL_URL") or f"{api_url}/graphql"
    client = _client_for(
        environ, secrets, repository=repository, api_url=api_url, graphql_url=graphql_url,
        clock=clock,
    )  # fmt: skip
    return client, repository


def _client_for(
    environ: Mapping[str, str], secrets: Secrets, *, repository: str, **settings: Any
) -> GitHubClient:
    """The client the environment asks for: an App's installation when `STEADYPRESS_APP_ID` is set,
    else `GITHUB_TOKEN`."""
    app_id = environ.get("STEADYPRESS_APP_ID", "").strip()
    if not app_id:
        token = secrets.read("GITHUB_TOKEN")
        if token is None:
            raise ConfigError(
                "GITHUB_TOKEN",
                "not set: the GitHub backend needs a token with contents: write and issues: "
                "write (or STEADYPRESS_APP_ID and STEADYPRESS_APP_PRIVATE_KEY for a GitHub App)",
            )
        return GitHubClient(token=token, **settings)
    if not app_id.isdigit():
        raise ConfigError("STEADYPRESS_APP_ID", f"{app_id!r} is not an app id (a number)")
    key = secrets.read_key(_KEY)
    if key is None:
        raise ConfigError(_KEY, "not set: STEADYPRESS_APP_ID names an app")
    app = _signing(int(app_id), key)
    installation = environ.get("STEADYPRESS_APP_INSTALLATION_ID", "").strip()
    if not installation:
        as_app = GitHubClient(token="", auth=app, **settings)
        found = as_app.rest(
            "GET", f"/repos/{repository}/installation", endpoint="/repos/{repo}/installation"
        ).json()
        installation, settings = (
            str(found["id"]),
            {**settings, "requests_made": as_app.requests_made},
        )
    if not installation.isdigit():
        raise ConfigError("STEADYPRESS_APP_INSTALLATION_ID", f"{installation!r} is not a number")
    auth = app.get_installation_auth(int(installation))
    client = GitHubClient(token="", auth=auth, **settings)
    token = client.call(
        lambda: auth.token,
        write=False,  # a new token each time: asking again is harmless
        label="POST /app/installations/{installation_id}/access_tokens",
    )
    secrets.redact.add(token)
    return client


def _signing(app_id: int, key: str) -> Auth.AppAuth:
    """The app's credentials, once its key has signed a JWT: a key that cannot (cut short, a
    pasted `\\n` for each line break, not RSA) is a configuration error saying so, not a
    traceback from the first request."""
    app = Auth.AppAuth(app_id, key)
    try:
        app.create_jwt()
    except jwt.PyJWTError as error:
        pasted = (
            " (it holds a literal \\n: paste the line breaks themselves)" if "\\n" in key else ""
        )
        raise ConfigError(
            _KEY,
            f"cannot sign with this key ({error}): paste the app's .pem file whole, the RSA "
            f"key GitHub gives{pasted}",
        ) from None
    return app
