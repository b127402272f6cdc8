"""The Mastodon target: one status announcing each article (`announce.py`), never two.

A status is posted only after a look for it, and with a key that makes the post itself safe:
- `POST /api/v1/statuses` carries an `Idempotency-Key` made from the article version: Mastodon
  answers a repeat of the key with the status it already made, for one hour;
- after that hour the key is forgotten, so without a recorded id the target first looks among
  the account's own statuses of the last `lookback` (posted by this same application, checked
  with `GET /api/v1/apps/verify_credentials`) for one linking to the article;
- an edit of the article edits the status (`PUT /api/v1/statuses/:id`, when its text changed:
  `GET /api/v1/statuses/:id/source`), or leaves it (`on_edit: leave`);
- unpublishing deletes the status.
Requests are paced under the documented limits (300 per 5 minutes, deletions 30 per 30
minutes); 429 honours the reset time Mastodon names. The access token needs the scopes
`read:accounts`, `read:statuses` and `write:statuses`.
Documentation: docs.joinmastodon.org/methods/statuses, /methods/accounts, /methods/apps,
/api/rate-limits.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from html import unescape
from typing import TYPE_CHECKING, Any

import requests

from steadypress.clock import Clock
from steadypress.durations import parse_duration
from steadypress.errors import ConfigError, PermanentError, TransientError
from steadypress.options import http_url, one_of, text_settings
from steadypress.targets.announce import DEFAULT_TEMPLATE, announce, check_template, graphemes
from steadypress.targets.base import Receipt, missing_secret
from steadypress.targets.http import Pace, Platform, PlatformApi, whole_number
from steadypress.worklease import WorkLease

if TYPE_CHECKING:
    from steadypress.articles import Article
    from steadypress.ledger import PublishedRecord
    from steadypress.targets.context import TargetContext
    from steadypress.targets.site.assets import PublicLinks

__all__ = ["MastodonSettings", "MastodonTarget", "build", "parse_settings"]

VISIBILITIES = ("public", "unlisted", "private", "direct")
ON_EDIT = ("edit", "leave")
# Mastodon counts every link as 23 characters, whatever its length.
_URL_WEIGHT = 23
_URL = re.compile(r"https?://\S+")
# What ends a link in a text is not part of it (Mastodon's URL pattern, from twitter-text, ends
# a path on a letter, digit or one of `/=_-+#&%~@`): a full stop or a closing bracket after it.
_NOT_LINK_END = ".,:;!?'\")]}"
# A mention of an account elsewhere counts as its name alone (@name@instance is @name).
_MENTION = re.compile(r"(?<![\w/])@(\w+)@[\w.-]+\w")


def status_length(text: str) -> int:
    """A status's length as Mastodon counts it (`StatusLengthValidator`): graphemes, each link
    23 whatever its length, and a remote mention as its name."""
    countable = _URL.sub(_link_weight, _MENTION.sub(r"@\1", text))
    return graphemes(countable)


def _link_weight(found: re.Match[str]) -> str:
    link = found.group(0)
    kept = link.rstrip(_NOT_LINK_END)
    return "x" * _URL_WEIGHT + link[len(kept) :]


_LINK = re.compile(r'href="([^"]+)"')


@dataclass(frozen=True)
class MastodonSettings:
    instance: str
    token_env: str = "MASTODON_TOKEN"  # noqa: S105 - the name of the variable, not a secret
    visibility: str = "public"
    template: str = DEFAULT_TEMPLATE
    on_edit: str = "edit"
    lookback: str = "30d"
    max_characters: str = "500"  # the instance's limit; 500 unless its admins changed it
    timeout: str = "30"


def parse_settings(name: str, options: Mapping[str, Any], source: str) -> MastodonSettings:
    prefix = f"targets.{name}."
    if "instance" not in options:
        raise ConfigError(
            source, f"{prefix}instance: required (the server's address, https://mastodon.social)"
        )
    settings = text_settings(MastodonSettings, options, prefix=prefix, source=source)
    http_url(settings.instance, key=f"{prefix}instance", source=source)
    one_of(settings.visibility, VISIBILITIES, key=f"{prefix}visibility", source=source)
    one_of(settings.on_edit, ON_EDIT, key=f"{prefix}on_edit", source=source)
    check_template(settings.template, key=f"{prefix}template", source=source)
    parse_duration(settings.lookback, key=f"{prefix}lookback", source=source)
    for key in ("max_characters", "timeout"):
        whole_number(getattr(settings, key), key=f"{prefix}{key}", source=source)
    return settings


def idempotency_key(target: str, article: Article) -> str:
    """The same article version always posts under the same key."""
    version = f"steadypress:{target}:{article.path}:{article.blob}"
    return hashlib.sha256(version.encode()).hexdigest()


@dataclass(frozen=True)
class _Status:
    id: str
    url: str


class MastodonTarget:
    def __init__(
        self,
        name: str,
        settings: MastodonSettings,
        *,
        token: str | None,
        clock: Clock,
        links: PublicLinks | None = None,
        session: requests.Session | None = None,
        lease: WorkLease | None = None,
    ) -> None:
        self._name = name
        self._settings = settings
        self._token = token
        self._clock = clock
        self._links = links
        self._api = PlatformApi(
            Platform("Mastodon", settings.instance, settings.token_env, float(settings.timeout)),
            clock=clock,
            headers={"Authorization": f"Bearer {token or ''}"},
            session=session,
        )
        self._requests = Pace(300, 300.0, clock=clock)
        self._deletions = Pace(30, 1800.0, clock=clock)
        self._lease = lease or WorkLease.unbounded(clock)
        self._mine: dict[str, _Status] | None = None  # the article's link -> our status
        self._mine_looked = 0.0  # when `_mine` was listed (the lease's monotonic moment)

    @property
    def name(self) -> str:
        return self._name

    def unavailable_reason(self) -> str | None:
        return missing_secret(self._settings.token_env, self._token)

    def publish(self, article: Article, previous: PublishedRecord | None) -> Receipt:
        announcement = announce(article, self._links, self._settings.template)
        self._check_length(announcement.text)
        self._api.require_served("the article's page", announcement.url)
        known = (
            _Status(previous.id, previous.url or "")
            if previous is not None and previous.id
            else self._find(announcement.url)
        )
        if known is None and self._lease.stale(self._mine_looked):
            self._mine = None  # looked again: another run may have posted it since
            known = self._find(announcement.url)
        if known is not None:
            if self._settings.on_edit == "leave":
                return Receipt(url=known.url, id=known.id)
            edited = self._edit(known, announcement.text)
            if edited is not None:  # else it was deleted by hand: post it again
                return edited
        self._lease.before_create()
        answer = self._call(
            "POST",
            "/api/v1/statuses",
            json={"status": announcement.text, "visibility": self._settings.visibility},
            headers={"Idempotency-Key": idempotency_key(self._name, article)},
        )
        status = self._status(answer)
        if self._mine is not None:
            self._mine[announcement.url] = status
        return Receipt(url=status.url, id=status.id)

    def verify(self, article: Article, receipt: Receipt) -> None:
        """Mastodon answered with the status it holds; there is nothing more to read back."""

    def unpublish(self, path: str, previous: PublishedRecord | None) -> None:
        status_id = previous.id if previous is not None and previous.id else None
        if status_id is None and self._links is not None:
            link = self._links.page_url_of_path(path)
            found = self._find(link) if link else None
            status_id = found.id if found else None
        if status_id is None:
            return  # never announced
        self._deletions.wait()
        try:
            self._call("DELETE", f"/api/v1/statuses/{status_id}")  # 404: already gone
        finally:
            self._deletions.record()

    def _check_length(self, text: str) -> None:
        weight = status_length(text)
        limit = int(self._settings.max_characters)
        if weight > limit:
            raise PermanentError(
                f"the announcement is {weight} characters and {self._settings.instance} takes "
                f"{limit}: shorten the title or the template"
            )

    def _edit(self, status: _Status, text: str) -> Receipt | None:
        source = self._call("GET", f"/api/v1/statuses/{status.id}/source")
        if source.status_code == 404:
            return None
        if str(self._api.json(source).get("text")) == text:
            return Receipt(url=status.url, id=status.id)
        answer = self._call("PUT", f"/api/v1/statuses/{status.id}", json={"status": text})
        if answer.status_code == 404:
            return None
        edited = self._status(answer)
        return Receipt(url=edited.url, id=edited.id)

    def _find(self, link: str) -> _Status | None:
        """Our status linking to `link`, among the account's statuses of the last `lookback`
        that this application posted; listed once per run."""
        if self._mine is None:
            self._mine = self._list_mine()
            self._mine_looked = self._lease.looked()
        return self._mine.get(link)

    def _list_mine(self) -> dict[str, _Status]:
        account = self._api.json(self._call("GET", "/api/v1/accounts/verify_credentials"))
        app = self._api.json(self._call("GET", "/api/v1/apps/verify_credentials"))
        since = self._clock.now() - parse_duration(
            self._settings.lookback, key="lookback", source=self._name
        )
        mine: dict[str, _Status] = {}
        params: dict[str, str | int] = {"limit": 40, "exclude_reblogs": "true"}
        while True:
            page = self._call("GET", f"/api/v1/accounts/{account['id']}/statuses", params=params)
            statuses = self._api.json(page)
            for status in statuses:
                if (status.get("application") or {}).get("name") != app.get("name"):
                    continue
                for link in _LINK.findall(str(status.get("content") or "")):
                    mine.setdefault(unescape(link), _Status(str(status["id"]), str(status["url"])))
            older = page.links.get("next", {}).get("url")
            if not statuses or older is None or _created(statuses[-1]) < since:
                return mine
            params = {**params, "max_id": str(statuses[-1]["id"])}

    def _call(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: Mapping[str, str | int] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> requests.Response:
        self._requests.wait()
        try:
            return self._api.send(method, path, json=json, params=params, headers=headers)
        finally:
            self._requests.record()

    def _status(self, answer: requests.Response) -> _Status:
        status = self._api.json(answer)
        try:
            return _Status(str(status["id"]), str(status["url"]))
        except (KeyError, TypeError):
            raise TransientError(
                f"Mastodon answered {answer.status_code} without a status"
            ) from None


def _created(status: Mapping[str, Any]) -> datetime:
    try:
        return datetime.fromisoformat(str(status["created_at"]).replace("Z", "+00:00"))
    except (KeyError, ValueError):
        return datetime.min.replace(tzinfo=UTC)  # unreadable: as if old, so listing stops


def build(name: str, settings: MastodonSettings, context: TargetContext) -> MastodonTarget:
    return MastodonTarget(
        name,
        settings,
        token=context.secrets.read(settings.token_env),
        clock=context.clock,
        links=context.links,
        lease=context.lease,
    )
