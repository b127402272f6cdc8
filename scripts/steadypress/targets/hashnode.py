"""The Hashnode target: each article a post in one publication, never two, never a copy.

Hashnode's own publishing action warns that re-publishing creates another post and that a taken
slug yields a silently suffixed copy. Here a post is created only after a look for it:
- by the id the ledger recorded (an update; a post deleted by hand is created again);
- else by its slug in the publication: a post there carrying this article's marker (an HTML
  comment at the end of the markdown) is ours and is updated; one without it means the slug is
  taken, a dead letter that says so, never a suffixed copy;
- else by the marker, with `searchPostsOfPublication` (for a post whose slug has changed since);
- and should Hashnode still answer a create with another slug than asked (a post took the slug
  meanwhile), the copy is removed and the article dead-lettered.
Unpublishing removes the post (`removePost`). Front matter maps to the post: `description` to
the subtitle, tags (five at most), a cover image (a relative one by its public URL, checked to be
served first), `series` to the publication's series of that slug, and the canonical URL (the
article's `canonical_url`, else its page on the site) to `originalArticleURL`.
The API is GraphQL at gql.hashnode.com, with the personal access token in `Authorization`;
errors come as GraphQL errors with an `extensions.code` (apidocs.hashnode.com: "Status and
Error Codes"). Mutations are paced under the documented 500 a minute.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import requests

from steadypress.clock import Clock
from steadypress.errors import ConfigError, PermanentError, TransientError
from steadypress.options import http_url, text_settings
from steadypress.render import is_repository_reference
from steadypress.slugs import slugify, tag_slug, transliterated
from steadypress.targets.base import Receipt, missing_secret
from steadypress.targets.http import Pace, Platform, PlatformApi, whole_number
from steadypress.targets.images import served_images
from steadypress.targets.site.manifest import path_slug_source
from steadypress.targets.sitelinked import SiteLinked
from steadypress.worklease import WorkLease

if TYPE_CHECKING:
    from steadypress.articles import Article
    from steadypress.ledger import PublishedRecord
    from steadypress.targets.context import TargetContext
    from steadypress.targets.site.assets import PublicLinks

__all__ = ["QUERIES", "HashnodeSettings", "HashnodeTarget", "build", "marker", "parse_settings"]

MAX_TAGS = 5
_POST = "id slug url content { markdown }"
FIND = f"""
query Find($publication: ObjectId!, $slug: String!, $series: String!, $withSeries: Boolean!) {{
  publication(id: $publication) {{
    id
    post(slug: $slug) {{ {_POST} }}
    series(slug: $series) @include(if: $withSeries) {{ id }}
  }}
}}"""
SEARCH = f"""
query Search($publication: ObjectId!, $query: String!) {{
  searchPostsOfPublication(first: 20, filter: {{publicationId: $publication, query: $query}}) {{
    edges {{ node {{ {_POST} }} }}
  }}
}}"""
PUBLISH = """
mutation Publish($input: PublishPostInput!) {
  publishPost(input: $input) { post { id slug url } }
}"""
UPDATE = """
mutation Update($input: UpdatePostInput!) {
  updatePost(input: $input) { post { id slug url } }
}"""
REMOVE = """
mutation Remove($input: RemovePostInput!) {
  removePost(input: $input) { post { id } }
}"""
QUERIES = (FIND, SEARCH, PUBLISH, UPDATE, REMOVE)
_MARKER = re.compile(r"<!-- steadypress:(\S+) -->")


def marker(path: str) -> str:
    return f"<!-- steadypress:{path} -->"


@dataclass(frozen=True)
class HashnodeSettings:
    publication_id: str
    api_url: str = "https://gql.hashnode.com"
    token_env: str = "HASHNODE_TOKEN"  # noqa: S105 - the variable's name
    timeout: str = "30"


def parse_settings(name: str, options: Mapping[str, Any], source: str) -> HashnodeSettings:
    prefix = f"targets.{name}."
    if "publication_id" not in options:
        raise ConfigError(
            source,
            f"{prefix}publication_id: required (the id in your blog dashboard's address, "
            "hashnode.com/<id>/dashboard)",
        )
    settings = text_settings(HashnodeSettings, options, prefix=prefix, source=source)
    if not re.fullmatch(r"[0-9a-f]{24}", settings.publication_id):
        raise ConfigError(
            source,
            f"{prefix}publication_id: 24 hexadecimal digits, got {settings.publication_id!r}",
        )
    http_url(settings.api_url, key=f"{prefix}api_url", source=source)
    whole_number(settings.timeout, key=f"{prefix}timeout", source=source)
    return settings


@dataclass(frozen=True)
class _Post:
    id: str
    slug: str
    url: str
    markdown: str

    @staticmethod
    def of(node: Mapping[str, Any]) -> _Post:
        content = node.get("content") or {}
        return _Post(str(node["id"]), str(node["slug"]), str(node["url"]),
                     str(content.get("markdown") or ""))  # fmt: skip


class _NotFound(Exception):
    """Hashnode's NOT_FOUND: the post named no longer exists."""


class HashnodeTarget(SiteLinked):
    def __init__(
        self,
        name: str,
        settings: HashnodeSettings,
        *,
        token: str | None,
        clock: Clock,
        content_dir: str,
        links: PublicLinks | None = None,
        session: requests.Session | None = None,
        lease: WorkLease | None = None,
    ) -> None:
        self._name = name
        self._settings = settings
        self._token = token
        self._content_dir = content_dir
        self._links = links
        self._lease = lease or WorkLease.unbounded(clock)
        self._api = PlatformApi(
            Platform("Hashnode", settings.api_url, settings.token_env, float(settings.timeout)),
            clock=clock,
            headers={"Authorization": token or ""},
            session=session,
        )
        self._mutations = Pace(500, 60.0, clock=clock)

    @property
    def name(self) -> str:
        return self._name

    def unavailable_reason(self) -> str | None:
        return missing_secret(self._settings.token_env, self._token)

    def publish(self, article: Article, previous: PublishedRecord | None) -> Receipt:
        slug = self._slug(article.slug, article.path)
        series = str(article.metadata.get("series") or "").strip()
        fields = self._fields(article, slug)
        if previous is not None and previous.id:
            with_series = self._find(slug, series) if series else None
            try:
                return self._update(previous.id, fields, with_series)
            except _NotFound:
                pass  # deleted on Hashnode by hand: created again below
        publication = self._find(slug, series)
        post = publication.get("post")
        if post is not None:
            found = _Post.of(post)
            if marker(article.path) not in found.markdown:
                raise PermanentError(
                    f"the slug {slug!r} is taken on Hashnode by another post ({found.url}): "
                    "give the article another `slug`"
                )
            return self._update(found.id, fields, publication)
        mine = self._search(article.path)
        if mine is not None:
            return self._update(mine.id, fields, publication)
        return self._create(fields, publication, slug)

    def verify(self, article: Article, receipt: Receipt) -> None:
        """Hashnode answered with the post it holds; there is nothing more to read back."""

    def unpublish(self, path: str, previous: PublishedRecord | None) -> None:
        post_id = previous.id if previous is not None and previous.id else None
        if post_id is None:
            post = self._find(self._slug(None, path), "").get("post")
            if post is None or marker(path) not in _Post.of(post).markdown:
                found = self._search(path)
                post_id = found.id if found else None
            else:
                post_id = str(post["id"])
        if post_id is None:
            return  # never reached Hashnode
        with contextlib.suppress(_NotFound):  # removed already
            self._mutate(REMOVE, {"id": post_id})

    def _slug(self, chosen: str | None, path: str) -> str:
        """The post's slug: the article's `slug`, else its file's path under content/, as the
        site makes its URL (one name for the article everywhere); a name ASCII spells nothing
        of (`Привет мир`) in Latin letters (`privet-mir`), as Hashnode's slugs are."""
        source = chosen or path_slug_source(path, self._content_dir)
        flat = source.replace("/", "-")
        slug = slugify(flat) or transliterated(flat)
        if not slug:
            raise PermanentError(f"cannot make a Hashnode slug from {source!r}")
        return slug

    def _fields(self, article: Article, slug: str) -> dict[str, Any]:
        images = served_images(article, self._links, self._api)
        fields: dict[str, Any] = {
            "title": article.title,
            "contentMarkdown": f"{images.body.rstrip()}\n\n{marker(article.path)}\n",
            "slug": slug,
            "tags": _tags(article.tags),
        }
        if article.description:
            fields["subtitle"] = article.description.strip()
        link = self._links.article_url(article) if self._links else article.canonical_url
        if link:
            fields["originalArticleURL"] = link
        cover = article.cover_image
        if cover and is_repository_reference(cover):
            cover = images.urls.get(cover)  # the repository's only by the URL it is served at
        if cover:
            fields["coverImageOptions"] = {"coverImageURL": cover}
        return fields

    def _find(self, slug: str, series: str) -> dict[str, Any]:
        wanted = {"publication": self._settings.publication_id, "slug": slug,
                  "series": slugify(series), "withSeries": bool(series)}  # fmt: skip
        data = self._query(FIND, wanted)
        publication = data.get("publication")
        if not publication:
            raise PermanentError(
                f"Hashnode has no publication {self._settings.publication_id} (publication_id)"
            )
        if series and not publication.get("series"):
            raise PermanentError(
                f"no series {slugify(series)!r} in the Hashnode publication: create it there first"
            )
        return dict(publication)

    def _search(self, path: str) -> _Post | None:
        """The post carrying this article's marker, by Hashnode's search (its index may lag a
        post made moments ago; the slug lookup before it does not)."""
        data = self._query(SEARCH, {"publication": self._settings.publication_id,
                                    "query": f"steadypress:{path}"})  # fmt: skip
        edges = (data.get("searchPostsOfPublication") or {}).get("edges") or []
        for edge in edges:
            post = _Post.of(edge["node"])
            found = _MARKER.search(post.markdown)
            if found and found.group(1) == path:
                return post
        return None

    def _create(self, fields: dict[str, Any], publication: Mapping[str, Any], slug: str) -> Receipt:
        wanted = self._input(fields, publication, publicationId=publication["id"])
        self._lease.before_create()
        created = self._mutate(PUBLISH, wanted)
        post = created["publishPost"]["post"]
        if post["slug"] != slug:
            # The slug was taken between the look and the create: never leave a suffixed copy.
            self._mutate(REMOVE, {"id": post["id"]})
            raise PermanentError(
                f"the slug {slug!r} is taken on Hashnode (it answered {post['slug']!r}): "
                "give the article another `slug`"
            )
        return Receipt(url=str(post["url"]), id=str(post["id"]))

    def _update(
        self, post_id: str, fields: dict[str, Any], publication: Mapping[str, Any] | None
    ) -> Receipt:
        updated = self._mutate(UPDATE, self._input(fields, publication, id=post_id))
        post = updated["updatePost"]["post"]
        return Receipt(url=str(post["url"]), id=str(post["id"]))

    @staticmethod
    def _input(
        fields: dict[str, Any], publication: Mapping[str, Any] | None, **extra: str
    ) -> dict[str, Any]:
        series = (publication or {}).get("series")
        return {**fields, **extra, **({"seriesId": series["id"]} if series else {})}

    def _mutate(self, document: str, variables: dict[str, Any]) -> dict[str, Any]:
        self._mutations.wait()
        try:
            return self._query(document, {"input": variables})
        finally:
            self._mutations.record()

    def _query(self, document: str, variables: dict[str, Any]) -> dict[str, Any]:
        answer = self._api.send("POST", "", json={"query": document, "variables": variables})
        if answer.status_code == 404:
            raise PermanentError(f"Hashnode's API is not at {self._settings.api_url} (404)")
        result = self._api.json(answer)
        errors = result.get("errors") if isinstance(result, dict) else None
        if errors:
            _raise(errors, self._settings.token_env)
        data = result.get("data") if isinstance(result, dict) else None
        if not isinstance(data, dict):
            raise TransientError("Hashnode answered without data")
        return data


def _raise(errors: list[Any], token_env: str) -> None:
    first = errors[0] if isinstance(errors[0], dict) else {}
    code = str((first.get("extensions") or {}).get("code") or "")
    message = str(first.get("message") or errors[0])[:500]
    if code == "NOT_FOUND":
        raise _NotFound(message)
    if code in ("UNAUTHENTICATED", "FORBIDDEN"):
        raise PermanentError(
            f"Hashnode refused the token in {token_env} ({code}): check the secret ({message})"
        )
    if code in ("INTERNAL_SERVER_ERROR", ""):
        raise TransientError(f"Hashnode failed: {message}")
    raise PermanentError(f"Hashnode refused the article ({code}): {message}")


def build(name: str, settings: HashnodeSettings, context: TargetContext) -> HashnodeTarget:
    return HashnodeTarget(
        name,
        settings,
        token=context.secrets.read(settings.token_env),
        clock=context.clock,
        content_dir=context.content.content_dir,
        links=context.links,
        lease=context.lease,
    )


def _tags(tags: Sequence[str]) -> list[dict[str, str]]:
    """The article's tags as Hashnode names them: by an ASCII slug, as the site's pages do
    (`C++` is `cpp`, `C#` `csharp`, as on Hashnode); one ASCII cannot spell is left out."""
    slugs = {tag: tag_slug(tag) for tag in tags}
    return [{"slug": slugs[t], "name": t} for t in tags if slugs[t].isascii() and slugs[t]][
        :MAX_TAGS
    ]
