"""The webhook target: each article version POSTed as JSON to a URL of the user's.

The receiver can trust and deduplicate what it gets:
- `X-Steadypress-Signature-256: sha256=<hex>`, an HMAC-SHA256 of the exact body with the shared
  secret, in the style of GitHub's own `X-Hub-Signature-256`;
- `Idempotency-Key: <target>:<path>:<blob>`: the same article version always carries the same
  key, so a delivery repeated after a crash (published, but not yet recorded) is recognisable;
- `event`: "publish", or "unpublish" for an article removed from content/ (or made a draft),
  keyed `<target>:<path>:unpublish:<the blob last delivered>`.
A 2xx answer is success, and a JSON body's `url` and `id` are recorded; 408, 429 and 5xx are
transient (a `Retry-After` is honoured); any other 4xx, or a redirect (not followed: it would
re-send the article elsewhere), is permanent for that version.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping
from dataclasses import dataclass, fields
from datetime import date, datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

import requests

from steadypress.backoff import retry_after_seconds
from steadypress.clock import Clock
from steadypress.errors import ConfigError, PermanentError, TransientError
from steadypress.exchange import Redirected, bounded_session, describe, exchange
from steadypress.options import text_settings
from steadypress.render import render_markdown
from steadypress.targets.base import Receipt, missing_secret

if TYPE_CHECKING:
    from steadypress.articles import Article
    from steadypress.ledger import PublishedRecord
    from steadypress.targets.context import TargetContext

__all__ = [
    "SIGNATURE_HEADER",
    "WebhookSettings",
    "WebhookTarget",
    "build",
    "parse_settings",
    "sign",
]

SIGNATURE_HEADER = "X-Steadypress-Signature-256"
TRANSIENT_STATUS = frozenset({408, 429}) | frozenset(range(500, 600))


@dataclass(frozen=True)
class WebhookSettings:
    url: str
    secret_env: str = "WEBHOOK_SECRET"  # noqa: S105 - the name of the variable, not a secret
    timeout: str = "30"


def parse_settings(name: str, options: Mapping[str, Any], source: str) -> WebhookSettings:
    prefix = f"targets.{name}."
    if "url" not in options and set(options) <= {field.name for field in fields(WebhookSettings)}:
        raise ConfigError(source, f"{prefix}url: required (where to POST the articles)")
    settings = text_settings(WebhookSettings, options, prefix=prefix, source=source)
    if urlparse(settings.url).scheme not in ("http", "https"):
        raise ConfigError(source, f"{prefix}url: must be an http(s) URL, got {settings.url!r}")
    try:
        float(settings.timeout)
    except ValueError:
        raise ConfigError(source, f"{prefix}timeout: seconds, got {settings.timeout!r}") from None
    return settings


def sign(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def _plain(value: Any) -> Any:
    """Front matter as JSON: dates and times as ISO-8601 text."""
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


class WebhookTarget:
    def __init__(
        self,
        name: str,
        settings: WebhookSettings,
        *,
        secret: str | None,
        clock: Clock,
        session: requests.Session | None = None,
    ) -> None:
        self._name = name
        self._settings = settings
        self._secret = secret
        self._clock = clock
        self._session = session or bounded_session()

    @property
    def name(self) -> str:
        return self._name

    def unavailable_reason(self) -> str | None:
        return missing_secret(self._settings.secret_env, self._secret)

    def publish(self, article: Article, previous: PublishedRecord | None) -> Receipt:
        document = {
            "event": "publish",
            "target": self._name,
            "path": article.path,
            "blob": article.blob,
            "front_matter": _plain(dict(article.metadata)),
            "markdown": article.body,
            "html": render_markdown(article.body),
            "previous": _previous(previous),
        }
        return self._deliver(document, key=f"{self._name}:{article.path}:{article.blob}")

    def verify(self, article: Article, receipt: Receipt) -> None:
        """A 2xx is the receiver's word that it has the version; there is nothing to read back."""

    def unpublish(self, path: str, previous: PublishedRecord | None) -> None:
        document = {
            "event": "unpublish",
            "target": self._name,
            "path": path,
            "previous": _previous(previous),
        }
        last = f":{previous.blob}" if previous is not None else ""
        self._deliver(document, key=f"{self._name}:{path}:unpublish{last}")

    def _deliver(self, document: Mapping[str, Any], *, key: str) -> Receipt:
        body = json.dumps(document, sort_keys=True).encode()
        headers = {
            "Content-Type": "application/json",
            "User-Agent": "steadypress",
            "Idempotency-Key": key,
            SIGNATURE_HEADER: sign(self._secret or "", body),
        }
        try:
            response = exchange(
                self._session,
                "POST",
                self._settings.url,
                seconds=float(self._settings.timeout),
                data=body,
                headers=headers,
            )
        except Redirected as redirect:  # a redirect re-sends the article and its signature
            raise PermanentError(
                f"webhook {redirect}; set the target's url to the address that answers"
            ) from None
        except requests.RequestException as error:
            raise TransientError(f"webhook not reached: {describe(error)}") from None
        if response.status_code in TRANSIENT_STATUS:
            raise TransientError(
                f"webhook answered {response.status_code}",
                retry_after=retry_after_seconds(
                    response.headers.get("Retry-After"), now=self._clock.now()
                ),
            )
        if not 200 <= response.status_code < 300:
            raise PermanentError(
                f"webhook refused it: {response.status_code} {response.text[:200]}"
            )
        return _receipt(response)


def _previous(record: PublishedRecord | None) -> dict[str, Any] | None:
    """What the receiver was last sent for this article (nothing, after an unpublish)."""
    if record is None or record.unpublished:
        return None
    return {"blob": record.blob, "url": record.url, "id": record.id}


def _receipt(response: requests.Response) -> Receipt:
    try:
        answer = response.json()
    except ValueError:
        return Receipt(url=None, id=None)
    if not isinstance(answer, dict):
        return Receipt(url=None, id=None)
    url, id_ = answer.get("url"), answer.get("id")
    return Receipt(
        url=str(url) if url is not None else None, id=str(id_) if id_ is not None else None
    )


def build(name: str, settings: WebhookSettings, context: TargetContext) -> WebhookTarget:
    return WebhookTarget(
        name, settings, secret=context.secrets.read(settings.secret_env), clock=context.clock
    )
