"""The dev.to target (the Forem API, self-hostable: the API root is configurable).

The failure other tools share: the post is created, the run dies before its id is written back,
and the next run creates a duplicate. Here a create can only follow a look for the post:
- the claim in the ledger is the recorded intent (target, article, blob) before any request;
- every post carries an invisible marker naming its article (an HTML comment at the end of the
  markdown), so the post is found again in the user's articles;
- `publish` updates the post whose id the ledger recorded; without one it looks for the marker
  (or the article's canonical URL) and updates what it finds; only when nothing is found does it
  create. A create whose answer was lost is a transient failure, and the retry finds the post.
Images: a relative image in the body, and a relative cover, go as absolute URLs (the site's
when the article is on the site, else the file at its commit on GitHub; `site/assets.py`), each
checked to be served first: dev.to keeps what it first fetched, a 404 too, so an image not
served yet makes the item wait (a transient failure) instead of posting it broken.
Requests are paced under dev.to's documented limits (10 creates and 30 updates per 30 seconds);
429 is transient and honours Retry-After; 401/403 mean the API key is wrong (a dead letter that
names the secret); 422 is dev.to refusing this article (a dead letter with its message).
Forem API v1: POST /api/articles, PUT /api/articles/{id}, GET /api/articles/me/all, header
`api-key`, `Accept: application/vnd.forem.api-v1+json`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import requests

from steadypress.clock import Clock
from steadypress.durations import parse_duration
from steadypress.errors import PublishError, TransientError
from steadypress.options import text_settings
from steadypress.targets.base import Receipt, missing_secret
from steadypress.targets.http import Pace, Platform, PlatformApi, whole_number
from steadypress.targets.images import served_images
from steadypress.targets.sitelinked import SiteLinked
from steadypress.worklease import WorkLease

if TYPE_CHECKING:
    from steadypress.articles import Article
    from steadypress.ledger import PublishedRecord
    from steadypress.targets.context import TargetContext
    from steadypress.targets.site.assets import PublicLinks

__all__ = ["DevtoSettings", "DevtoTarget", "build", "marker", "parse_settings"]

_ACCEPT = "application/vnd.forem.api-v1+json"
_MARKER = re.compile(r"<!-- steadypress:(\S+) -->")


def marker(path: str) -> str:
    return f"<!-- steadypress:{path} -->"


@dataclass(frozen=True)
class DevtoSettings:
    api_url: str = "https://dev.to/api"
    api_key_env: str = "DEVTO_API_KEY"
    # dev.to's documented limits; a self-hosted Forem may set others.
    window: str = "30s"
    creates_per_window: str = "10"
    updates_per_window: str = "30"
    timeout: str = "30"


def parse_settings(name: str, options: Mapping[str, Any], source: str) -> DevtoSettings:
    prefix = f"targets.{name}."
    settings = text_settings(DevtoSettings, options, prefix=prefix, source=source)
    parse_duration(settings.window, key=f"{prefix}window", source=source)
    for key in ("creates_per_window", "updates_per_window", "timeout"):
        whole_number(getattr(settings, key), key=f"{prefix}{key}", source=source)
    return settings


def _tags(tags: tuple[str, ...]) -> str:
    """dev.to accepts at most four tags of lowercase letters and digits."""
    cleaned = [re.sub(r"[^a-z0-9]", "", tag.lower()) for tag in tags]
    return ",".join(list(dict.fromkeys(tag for tag in cleaned if tag))[:4])


class DevtoTarget(SiteLinked):
    def __init__(
        self,
        name: str,
        settings: DevtoSettings,
        *,
        api_key: str | None,
        clock: Clock,
        session: requests.Session | None = None,
        links: PublicLinks | None = None,
        lease: WorkLease | None = None,
    ) -> None:
        self._name = name
        self._links = links
        self._settings = settings
        self._api_key = api_key
        self._api = PlatformApi(
            Platform("dev.to", settings.api_url, settings.api_key_env, float(settings.timeout)),
            clock=clock,
            headers={"api-key": api_key or "", "Accept": _ACCEPT},
            session=session,
        )
        window = parse_duration(settings.window, key="window", source=name).total_seconds()
        self._creates = Pace(int(settings.creates_per_window), window, clock=clock)
        self._updates = Pace(int(settings.updates_per_window), window, clock=clock)
        self._lease = lease or WorkLease.unbounded(clock)
        self._mine: dict[str, tuple[str, str]] | None = None  # marker or canonical URL -> (id, url)
        self._mine_looked = 0.0  # when `_mine` was listed (the lease's monotonic moment)

    @property
    def name(self) -> str:
        return self._name

    def unavailable_reason(self) -> str | None:
        return missing_secret(self._settings.api_key_env, self._api_key)

    def publish(self, article: Article, previous: PublishedRecord | None) -> Receipt:
        payload = {"article": self._fields(article)}
        known = previous.id if previous is not None and previous.id else None
        found = (
            (known, previous.url or "")
            if known and previous
            else self._find(article.path, article.canonical_url)
        )
        if found is None and self._lease.stale(self._mine_looked):
            self._mine = None  # looked again: another run may have posted it since
            found = self._find(article.path, article.canonical_url)
        if found is not None:
            post_id, _url = found
            self._updates.wait()
            try:
                response = self._send("PUT", f"/articles/{post_id}", payload)
            finally:
                self._updates.record()
            if response.status_code != 404:  # a post deleted by hand is created again
                return self._receipt(response)
        self._creates.wait()
        self._lease.before_create()
        try:
            response = self._send("POST", "/articles", payload)
        finally:
            self._creates.record()  # a failed create may still have counted against the limit
        receipt = self._receipt(response)
        if self._mine is not None and receipt.id and receipt.url:
            self._mine[marker(article.path)] = (receipt.id, receipt.url)
        return receipt

    def verify(self, article: Article, receipt: Receipt) -> None:
        """dev.to answered with the post it holds; there is nothing more to read back."""

    def _fields(self, article: Article) -> dict[str, Any]:
        images = served_images(article, self._links, self._api)
        fields_: dict[str, Any] = {
            "title": article.title,
            "body_markdown": f"{images.body.rstrip()}\n\n{marker(article.path)}\n",
            "published": True,
            "tags": _tags(article.tags),
        }
        # Each field is sent, blank when the front matter has none: an update sets what it
        # names and keeps the rest (Forem's Articles::Attributes#for_update), so a description,
        # series or cover removed from the article would be left on the post; a blank `series`
        # takes the post out of its series.
        for key, source in (("description", "description"), ("series", "series"),
                            ("main_image", "cover_image")):  # fmt: skip
            value = article.metadata.get(source)
            fields_[key] = value.strip() if isinstance(value, str) and value.strip() else ""
        # Readers and search engines are sent to the original: the article's `canonical_url`,
        # else its page on the site (as the site's generator addresses it), as Hashnode's is.
        fields_["canonical_url"] = self._original(article) or None
        cover = str(fields_["main_image"])
        if cover in images.urls:
            fields_["main_image"] = images.urls[cover]
        # dev.to takes a cover image by URL only; one with none to give is none.
        if not str(fields_["main_image"]).startswith(("https://", "http://")):
            fields_["main_image"] = None
        return fields_

    def _original(self, article: Article) -> str | None:
        if self._links is None:
            return article.canonical_url
        try:
            return self._links.article_url(article)
        except PublishError:  # the site's build leaves it out: the post goes without a link
            return article.canonical_url

    def unpublish(self, path: str, previous: PublishedRecord | None) -> None:
        """Set the post to `published: false` (the Forem API deletes nothing): it leaves the
        feed, and an article that comes back republishes the same post."""
        known = previous.id if previous is not None and previous.id else None
        found = self._find(path, None) if known is None else None
        post_id = known or (found[0] if found else None)
        if post_id is None:
            return  # never reached dev.to
        self._updates.wait()
        try:
            # A 404 means the post was deleted by hand: nothing is left to hide.
            self._send("PUT", f"/articles/{post_id}", {"article": {"published": False}})
        finally:
            self._updates.record()

    def _find(self, path: str, canonical: str | None) -> tuple[str, str] | None:
        """The user's post for this article, by marker or canonical URL; listed once per run."""
        if self._mine is None:
            mine: dict[str, tuple[str, str]] = {}
            page = 1
            while True:
                response = self._send("GET", f"/articles/me/all?page={page}&per_page=1000", None)
                posts = self._api.json(response)
                if not isinstance(posts, list):
                    raise TransientError("dev.to listed the posts as something not a list")
                for post in posts:
                    ident = (str(post["id"]), str(post.get("url") or ""))
                    found = _MARKER.search(str(post.get("body_markdown") or ""))
                    if found:
                        mine.setdefault(marker(found.group(1)), ident)
                    if post.get("canonical_url"):
                        mine.setdefault(str(post["canonical_url"]), ident)
                if len(posts) < 1000:
                    break
                page += 1
            self._mine = mine
            self._mine_looked = self._lease.looked()
        return self._mine.get(marker(path)) or (self._mine.get(canonical) if canonical else None)

    def _send(self, method: str, path: str, payload: dict[str, Any] | None) -> requests.Response:
        return self._api.send(method, path, json=payload)

    def _receipt(self, response: requests.Response) -> Receipt:
        try:
            post = self._api.json(response)
            return Receipt(url=str(post["url"]), id=str(post["id"]))
        except (ValueError, KeyError, TypeError):
            raise TransientError(f"dev.to answered {response.status_code} without a post") from None


def build(name: str, settings: DevtoSettings, context: TargetContext) -> DevtoTarget:
    return DevtoTarget(
        name,
        settings,
        api_key=context.secrets.read(settings.api_key_env),
        clock=context.clock,
        links=context.links,
        lease=context.lease,
    )
