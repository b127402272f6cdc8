"""The Bluesky target: one post announcing each article, with a link card, never two.

The post is written with `com.atproto.repo.putRecord` under a record key derived from the
article alone (`record_key`): a write whose answer was lost, or an executor killed right after
it, is followed by a write of the same record, never by a second post. The key is a valid TID,
as the `app.bsky.feed.post` collection requires (atproto.com/specs/tid, /specs/record-key).
- The post: the announcement's text (`announce.py`), with link and hashtag facets at their byte
  offsets; an `app.bsky.embed.external` card with the title, the description and, for a cover
  image in the repository, a thumbnail uploaded as a blob (`com.atproto.repo.uploadBlob`).
- The session comes from an app password (`com.atproto.server.createSession`, limited to 30 per
  5 minutes): one per run, made when first needed, made again if it expires. Its tokens are
  redacted like any secret.
- An edit of the article leaves the post by default: the Bluesky app shows a post as first
  indexed. `on_edit: edit` rewrites the record in place (its `createdAt` kept, and
  `swapRecord` so a concurrent change is not overwritten unseen).
- Unpublishing deletes the record (`com.atproto.repo.deleteRecord`).
Writes are paced under the documented 5,000 points an hour (a create costs 3); 429 waits for
the `ratelimit-reset` the server names. Documentation: docs.bsky.app (rate limits, "Posts"),
the lexicons com.atproto.repo.* and app.bsky.feed.post, app.bsky.embed.external.
"""

from __future__ import annotations

import hashlib
import mimetypes
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import requests

from steadypress.clock import Clock
from steadypress.errors import ConfigError, PermanentError, TransientError
from steadypress.options import http_url, one_of, text_settings
from steadypress.render import is_repository_reference
from steadypress.targets.announce import (
    DEFAULT_TEMPLATE,
    Announcement,
    announce,
    check_template,
    graphemes,
)
from steadypress.targets.base import Receipt, missing_secret
from steadypress.targets.http import Pace, Platform, PlatformApi, whole_number
from steadypress.targets.site.assets import find_image
from steadypress.timefmt import format_time

if TYPE_CHECKING:
    from steadypress.articles import Article
    from steadypress.ledger import PublishedRecord
    from steadypress.targets.context import TargetContext
    from steadypress.targets.site.assets import PublicLinks

__all__ = ["BlueskySettings", "BlueskyTarget", "build", "parse_settings", "record_key"]

COLLECTION = "app.bsky.feed.post"
MAX_GRAPHEMES = 300  # app.bsky.feed.post: text maxGraphemes
MAX_THUMB_BYTES = 1_000_000  # app.bsky.embed.external: thumb maxSize
_TID_ALPHABET = "234567abcdefghijklmnopqrstuvwxyz"
# A TID's time part: microseconds from 2020-09-13 over a span of about 4.5 years, so every key
# made here reads as a moment in the past (a key is an identifier, not the post's date).
_TID_EPOCH_US = 1_600_000_000_000_000
_TID_SPAN_US = 1 << 47


@dataclass(frozen=True)
class BlueskySettings:
    handle: str
    service: str = "https://bsky.social"
    password_env: str = "BLUESKY_APP_PASSWORD"  # noqa: S105 - the variable's name
    template: str = DEFAULT_TEMPLATE
    on_edit: str = "leave"
    web: str = "https://bsky.app"  # where a post is shown, for the URL recorded
    timeout: str = "30"


def parse_settings(name: str, options: Mapping[str, Any], source: str) -> BlueskySettings:
    prefix = f"targets.{name}."
    if "handle" not in options:
        raise ConfigError(source, f"{prefix}handle: required (the account, author.bsky.social)")
    settings = text_settings(BlueskySettings, options, prefix=prefix, source=source)
    for key in ("service", "web"):
        http_url(getattr(settings, key), key=f"{prefix}{key}", source=source)
    one_of(settings.on_edit, ("edit", "leave"), key=f"{prefix}on_edit", source=source)
    check_template(settings.template, key=f"{prefix}template", source=source)
    whole_number(settings.timeout, key=f"{prefix}timeout", source=source)
    return settings


def record_key(target: str, path: str) -> str:
    """The article's record key on this target: the same TID for the same article, always."""
    digest = int.from_bytes(hashlib.sha256(f"steadypress:{target}:{path}".encode()).digest()[:8])
    micros = _TID_EPOCH_US + (digest >> 10) % _TID_SPAN_US
    value = (micros << 10) | (digest & 0x3FF)
    return "".join(_TID_ALPHABET[(value >> shift) & 31] for shift in range(60, -1, -5))


class BlueskyTarget:
    def __init__(
        self,
        name: str,
        settings: BlueskySettings,
        *,
        password: str | None,
        clock: Clock,
        links: PublicLinks | None = None,
        learn_secret: Callable[..., None] = lambda *_: None,
        session: requests.Session | None = None,
    ) -> None:
        self._name = name
        self._settings = settings
        self._password = password
        self._clock = clock
        self._links = links
        self._learn_secret = learn_secret
        self._api = PlatformApi(
            Platform("Bluesky", settings.service, settings.password_env, float(settings.timeout)),
            clock=clock,
            headers={},
            session=session,
        )
        # 5,000 points an hour; a create costs 3: at most 1,666 creates an hour.
        self._writes = Pace(1666, 3600.0, clock=clock)
        self._session: tuple[str, str] | None = None  # (access token, did)

    @property
    def name(self) -> str:
        return self._name

    def unavailable_reason(self) -> str | None:
        return missing_secret(self._settings.password_env, self._password)

    def publish(self, article: Article, previous: PublishedRecord | None) -> Receipt:
        announcement = announce(article, self._links, self._settings.template)
        count = graphemes(announcement.text)
        if count > MAX_GRAPHEMES:
            raise PermanentError(
                f"the announcement is {count} characters and Bluesky takes {MAX_GRAPHEMES}: "
                "shorten the title or the template"
            )
        self._api.require_served("the article's page", announcement.url)
        rkey = previous.id if previous is not None and previous.id else None
        swap: str | None = None
        created_at = format_time(self._clock.now())
        if rkey is not None:
            if self._settings.on_edit == "leave":
                return self._receipt(rkey)
            kept = self._existing(rkey)
            if kept is not None:
                swap, created_at = kept
        rkey = rkey or record_key(self._name, article.path)
        card = self._card(article, announcement)
        record = {
            "$type": COLLECTION,
            "text": announcement.text,
            "createdAt": created_at,
            "facets": _facets(announcement),
            "embed": {"$type": "app.bsky.embed.external", "external": card},
        }
        body = {"repo": self._did(), "collection": COLLECTION, "rkey": rkey, "record": record}
        if swap is not None:
            body["swapRecord"] = swap
        self._write("com.atproto.repo.putRecord", body)
        return self._receipt(rkey)

    def verify(self, article: Article, receipt: Receipt) -> None:
        """putRecord answered with the record's CID; there is nothing more to read back."""

    def unpublish(self, path: str, previous: PublishedRecord | None) -> None:
        rkey = previous.id if previous is not None and previous.id else record_key(self._name, path)
        # Deleting a record that is not there succeeds: nothing to look up first.
        self._write(
            "com.atproto.repo.deleteRecord",
            {"repo": self._did(), "collection": COLLECTION, "rkey": rkey},
        )

    def _receipt(self, rkey: str) -> Receipt:
        return Receipt(url=f"{self._settings.web}/profile/{self._settings.handle}/post/{rkey}",
                       id=rkey)  # fmt: skip

    def _card(self, article: Article, announcement: Announcement) -> dict[str, Any]:
        card: dict[str, Any] = {"uri": announcement.url, "title": announcement.title,
                                "description": announcement.description}  # fmt: skip
        cover = article.cover_image
        if self._links is None or not cover or not is_repository_reference(cover):
            return card
        content = self._links.content
        found = find_image(content.asset, article, cover, content_dir=content.content_dir)
        if found is None:
            return card  # served from elsewhere: a card without a picture, rather than no post
        location, _oid, data = found
        if len(data) > MAX_THUMB_BYTES:
            return card  # a card without a picture, rather than no post
        mime = mimetypes.guess_type(location)[0] or "application/octet-stream"
        answer = self._call("POST", "com.atproto.repo.uploadBlob", data=data, mime=mime)
        card["thumb"] = answer.get("blob")
        return card

    def _existing(self, rkey: str) -> tuple[str, str] | None:
        """(CID, createdAt) of the record at `rkey`, or None when there is none."""
        query = {"repo": self._did(), "collection": COLLECTION, "rkey": rkey}
        found = self._call("GET", "com.atproto.repo.getRecord", params=query)
        if found is None:
            return None
        return str(found.get("cid")), str((found.get("value") or {}).get("createdAt"))

    def _write(self, method: str, body: dict[str, Any]) -> None:
        self._writes.wait()
        try:
            self._call("POST", method, json=body)
        finally:
            self._writes.record()

    def _did(self) -> str:
        return self._login()[1]

    def _login(self) -> tuple[str, str]:
        if self._session is None:
            answer = self._api.send(
                "POST",
                "/xrpc/com.atproto.server.createSession",
                json={"identifier": self._settings.handle, "password": self._password or ""},
                passing=(),
            )
            session = self._api.json(answer)
            try:
                access, refresh, did = session["accessJwt"], session["refreshJwt"], session["did"]
            except (KeyError, TypeError):
                raise TransientError("Bluesky answered a session without its tokens") from None
            self._learn_secret(access, refresh)
            self._session = (str(access), str(did))
        return self._session

    def _call(
        self,
        verb: str,
        method: str,
        *,
        json: Any = None,
        params: Mapping[str, str] | None = None,
        data: bytes | None = None,
        mime: str | None = None,
    ) -> Any:
        """One XRPC call's answer with the session's token (None for a record that is not
        there); an expired session is made again, once."""
        for attempt in (1, 2):
            headers = {"Authorization": f"Bearer {self._login()[0]}"}
            if mime is not None:
                headers["Content-Type"] = mime
            answer = self._api.send(verb, f"/xrpc/{method}", json=json, params=params, data=data,
                                    headers=headers, passing=(400,))  # fmt: skip
            if answer.status_code != 400:
                return self._api.json(answer)
            error = self._api.json(answer)
            if error.get("error") == "RecordNotFound":
                return None
            if error.get("error") == "ExpiredToken" and attempt == 1:
                self._session = None
                continue
            code, message = error.get("error"), error.get("message")
            raise PermanentError(f"Bluesky refused the post: {code}: {message}")
        raise AssertionError("unreachable: the second attempt returns or raises")


def _facets(announcement: Announcement) -> list[dict[str, Any]]:
    """The link and the hashtags as rich-text facets, at UTF-8 byte offsets in the text."""
    text = announcement.text
    wanted = [(re.escape(announcement.url),
               {"$type": "app.bsky.richtext.facet#link", "uri": announcement.url})]  # fmt: skip
    wanted += [
        (re.escape(tag) + r"(?!\w)", {"$type": "app.bsky.richtext.facet#tag", "tag": tag[1:]})
        for tag in announcement.tags
    ]
    facets = []
    for pattern, feature in wanted:
        found = re.search(pattern, text)
        if found is not None:
            start = len(text[: found.start()].encode())
            end = start + len(found.group(0).encode())
            facets.append({"index": {"byteStart": start, "byteEnd": end}, "features": [feature]})
    return facets


def build(name: str, settings: BlueskySettings, context: TargetContext) -> BlueskyTarget:
    return BlueskyTarget(
        name,
        settings,
        password=context.secrets.read(settings.password_env),
        clock=context.clock,
        links=context.links,
        learn_secret=context.secrets.redact.add,
    )
