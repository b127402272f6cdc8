"""Whether a repository is private, as GitHub tells anyone who asks: `init` chooses how often
the sweep runs by it, since a private repository's runner minutes are counted."""

from __future__ import annotations

from collections.abc import Mapping

from steadypress.errors import GitHubError, RateLimited
from steadypress.github.client import GitHubClient

__all__ = ["is_private"]


def is_private(repository: str, environ: Mapping[str, str]) -> bool | None:
    """True or False as GitHub's API says (`GITHUB_API_URL`, else api.github.com), asked with no
    token, so that none is sent anywhere: a private repository is then "Not Found", and so
    counted as private. None when GitHub does not answer (offline, rate-limited)."""
    client = GitHubClient(
        token="",
        api_url=environ.get("GITHUB_API_URL") or "https://api.github.com",
        timeout=5,
        read_attempts=1,
        wait_budget=0.0,
    )
    try:
        return bool(client.rest("GET", f"/repos/{repository}").json().get("private"))
    except RateLimited:
        return None
    except GitHubError as error:
        return True if error.status == 404 else None
    except ValueError:  # not JSON: not the API that was meant
        return None
