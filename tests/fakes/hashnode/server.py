"""A loopback Hashnode, answering its GraphQL API (gql.hashnode.com) as apidocs.hashnode.com
documents it, executed by graphql-core on the schema subset beside this file:
- POST / with `{query, variables}`; the personal access token in `Authorization`. Errors are
  GraphQL errors with `extensions.code` ("Status and Error Codes"): UNAUTHENTICATED without a
  valid token, NOT_FOUND for a post that is not there, BAD_USER_INPUT for input it refuses;
  a query the schema rejects is HTTP 400 with GRAPHQL_VALIDATION_FAILED (Apollo Server's way);
- `publishPost` with a slug already used in the publication makes the post under a suffixed
  slug, as Hashnode does; at most five tags; a `seriesId` must be a series of the publication;
- `updatePost` (the fields given), `removePost`, `publication(id) { post(slug) series(slug) }`
  and `searchPostsOfPublication` (a text match on title and markdown);
- mutations limited to 500 a minute ("Rate Limits"), answered HTTP 429 past that (the answer's
  shape is not documented; this is a guess that steadypress reads as any 429).
Faults as every fake has them (`faults.py`), for `publishPost`."""

from __future__ import annotations

import functools
import json
import re
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from graphql import (
    GraphQLError,
    GraphQLSchema,
    OperationDefinitionNode,
    OperationType,
    build_schema,
    execute_sync,
    parse,
    validate,
)

from tests.fakes.faults import Faults
from tests.fakes.loopback import Answer, LoopbackServer

SCHEMA_PATH = Path(__file__).with_name("schema.graphql")
PUBLICATION = "65f1a2b3c4d5e6f7a8b9c0d1"


@functools.cache
def hashnode_schema() -> GraphQLSchema:
    return build_schema(SCHEMA_PATH.read_text(encoding="utf-8"))


def _error(message: str, code: str) -> GraphQLError:
    return GraphQLError(message, extensions={"code": code})


class FakeHashnode(LoopbackServer, Faults):
    def __init__(
        self, *, token: str = "hashnode-token", clock: Callable[[], float] = time.monotonic
    ) -> None:
        LoopbackServer.__init__(self)
        Faults.__init__(self)
        self.token = token
        self.clock = clock
        self.publication_id = PUBLICATION
        self.host = "author.hashnode.dev"
        self.posts: dict[str, dict[str, Any]] = {}
        self.series: dict[str, str] = {}  # slug -> id
        self.creates = 0
        self.created: Counter[str] = Counter()  # by the article in each post's marker
        # A slug someone takes on Hashnode between steadypress's look and its create.
        self.taken_meanwhile: str | None = None
        self.operations: Counter[str] = Counter()  # by operation name
        self._mutations: deque[float] = deque()
        self._next = 0x100
        self._lock = threading.Lock()

    def __exit__(self, *exc: object) -> None:
        self.release()
        super().__exit__(*exc)

    @property
    def api_url(self) -> str:
        return self.origin + "/"

    def post_by_hand(self, slug: str, title: str = "Someone else's") -> dict[str, Any]:
        """A post the publication already has, written on Hashnode."""
        with self._lock:
            return self._make({"title": title, "slug": slug, "contentMarkdown": "Words."})

    def add_series(self, slug: str) -> str:
        self.series[slug] = self._id()
        return self.series[slug]

    def answer(self, method: str, path: str, headers: dict[str, str], body: bytes) -> Answer:
        if method != "POST" or path != "/":
            return self._json(404, {"errors": [{"message": "Not found"}]})
        request = json.loads(body or b"{}")
        try:
            document = parse(str(request.get("query", "")))
        except GraphQLError as error:
            return self._json(400, {"errors": [self._formatted(error, "GRAPHQL_PARSE_FAILED")]})
        problems = validate(hashnode_schema(), document)
        if problems:
            failed = [self._formatted(error, "GRAPHQL_VALIDATION_FAILED") for error in problems]
            return self._json(400, {"errors": failed})
        with self._lock:
            scripted = self.scripted()
            if scripted is not None:
                echoed = {"message": self.scripted_text()}
                return self._json(scripted[0], {"errors": [echoed]}, scripted[1])
            operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
            mutation = any(d.operation == OperationType.MUTATION for d in operations)
            if mutation and self._limited():
                failure = {"message": "Too many requests",
                           "extensions": {"code": "TOO_MANY_REQUESTS"}}  # fmt: skip
                return self._json(429, {"errors": [failure]})
            before = self.creates
            root = _Root(self, authenticated=headers.get("authorization") == self.token)
            result = execute_sync(hashnode_schema(), document, root_value=root,
                                  variable_values=request.get("variables") or {})  # fmt: skip
            for operation in operations:
                self.operations[operation.name.value if operation.name else "?"] += 1
            created = self.creates > before
        payload: dict[str, Any] = {"data": result.data}
        if result.errors:
            payload["errors"] = [
                self._formatted(error, "INTERNAL_SERVER_ERROR") for error in result.errors
            ]
        answer = self._json(200, payload)
        return self.after_create(answer) if created else answer

    def _limited(self) -> bool:
        now = self.clock()
        while self._mutations and self._mutations[0] <= now - 60:
            self._mutations.popleft()
        if len(self._mutations) >= 500:
            return True
        self._mutations.append(now)
        return False

    def _id(self) -> str:
        self._next += 1
        return f"{self._next:024x}"

    def _make(self, fields: dict[str, Any]) -> dict[str, Any]:
        slug = self._free_slug(str(fields.get("slug") or fields["title"]).lower())
        post_id = self._id()
        post = {"id": post_id, "publishedAt": "2026-01-01T00:00:00.000Z"}
        self.posts[post_id] = post
        self._apply(post, {**fields, "slug": slug})
        return post

    def _free_slug(self, wanted: str, *, mine: str | None = None) -> str:
        taken = {post["slug"] for post in self.posts.values() if post["id"] != mine}
        slug, n = wanted, 0
        while slug in taken:
            n += 1
            slug = f"{wanted}-{n}"
        return slug

    def _apply(self, post: dict[str, Any], fields: dict[str, Any]) -> None:
        if "slug" in fields:
            post["slug"] = self._free_slug(str(fields["slug"]), mine=post["id"])
        for key, name in (("title", "title"), ("subtitle", "subtitle"),
                          ("originalArticleURL", "canonicalUrl")):  # fmt: skip
            if key in fields:
                post[name] = fields[key]
        if "contentMarkdown" in fields:
            post["content"] = {"markdown": fields["contentMarkdown"], "html": ""}
        if "tags" in fields:
            post["tags"] = [{"id": tag.get("slug"), "name": tag.get("name") or tag.get("slug"),
                             "slug": tag.get("slug")} for tag in fields["tags"] or []]  # fmt: skip
        if "coverImageOptions" in fields:
            post["cover"] = (fields["coverImageOptions"] or {}).get("coverImageURL")
        if fields.get("seriesId"):
            post["seriesId"] = fields["seriesId"]
        post["url"] = f"https://{self.host}/{post['slug']}"

    @staticmethod
    def _formatted(error: GraphQLError, default_code: str) -> dict[str, Any]:
        formatted = error.formatted
        formatted.setdefault("extensions", {}).setdefault("code", default_code)
        return dict(formatted)

    @staticmethod
    def _json(status: int, document: Any, extra: dict[str, str] | None = None) -> Answer:
        headers = {"Content-Type": "application/json; charset=utf-8", **(extra or {})}
        return status, headers, json.dumps(document).encode()


class _Root:
    """Resolvers for the schema's root fields (graphql-core calls them with `info` and the
    arguments); a publication is a dict whose callables resolve its own fields."""

    def __init__(self, fake: FakeHashnode, *, authenticated: bool) -> None:
        self._fake = fake
        self._authenticated = authenticated

    def _check(self) -> None:
        if not self._authenticated:
            raise _error("You are not authenticated.", "UNAUTHENTICATED")

    def _publication(self) -> dict[str, Any]:
        fake = self._fake

        def post(_info: Any, slug: str) -> dict[str, Any] | None:
            return next((p for p in fake.posts.values() if p["slug"] == slug), None)

        def series(_info: Any, slug: str) -> dict[str, Any] | None:
            found = fake.series.get(slug)
            return {"id": found, "name": slug, "slug": slug} if found else None

        return {"id": fake.publication_id, "title": "A blog", "url": f"https://{fake.host}",
                "post": post, "series": series}  # fmt: skip

    def publication(self, _info: Any, id: str | None = None, host: str | None = None) -> Any:
        self._check()
        wanted = id == self._fake.publication_id or host == self._fake.host
        return self._publication() if wanted else None

    def searchPostsOfPublication(
        self, _info: Any, first: int, filter: dict[str, Any], after: str | None = None
    ) -> Any:
        self._check()
        query = str(filter.get("query") or "").lower()
        found = [p for p in self._fake.posts.values()
                 if query in (p["title"] + p["content"]["markdown"]).lower()]  # fmt: skip
        edges = [{"node": post, "cursor": post["id"]} for post in found[:first]]
        return {"edges": edges, "pageInfo": {"hasNextPage": len(found) > first, "endCursor": None}}

    def publishPost(self, _info: Any, input: dict[str, Any]) -> Any:
        self._check()
        if input["publicationId"] != self._fake.publication_id:
            raise _error("You are not allowed to publish in this publication.", "FORBIDDEN")
        self._refuse(input)
        if self._fake.taken_meanwhile:
            self._fake._make({"title": "Meanwhile", "slug": self._fake.taken_meanwhile})
            self._fake.taken_meanwhile = None
        self._fake.creates += 1
        marked = re.search(r"<!-- steadypress:(\S+) -->", str(input["contentMarkdown"]))
        self._fake.created[marked.group(1) if marked else "?"] += 1
        return {"post": self._fake._make(input)}

    def updatePost(self, _info: Any, input: dict[str, Any]) -> Any:
        self._check()
        post = self._fake.posts.get(input["id"])
        if post is None:
            raise _error("Post not found", "NOT_FOUND")
        self._refuse(input)
        self._fake._apply(post, input)
        return {"post": post}

    def removePost(self, _info: Any, input: dict[str, Any]) -> Any:
        self._check()
        post = self._fake.posts.pop(input["id"], None)
        if post is None:
            raise _error("Post not found", "NOT_FOUND")
        return {"post": post}

    def _refuse(self, fields: dict[str, Any]) -> None:
        if "title" in fields and not str(fields["title"]).strip():
            raise _error("Title is required", "BAD_USER_INPUT")
        if len(fields.get("tags") or []) > 5:
            raise _error("A post can have at most 5 tags", "BAD_USER_INPUT")
        if fields.get("seriesId") and fields["seriesId"] not in self._fake.series.values():
            raise _error("Series not found", "BAD_USER_INPUT")
