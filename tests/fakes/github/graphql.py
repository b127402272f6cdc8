"""The fake's GraphQL endpoint: GitHub's real schema, executed by graphql-core.

Queries are parsed and validated against `schema.graphql` from the npm package
@octokit/graphql-schema (fetched by `make schemas`), so a query GitHub would reject is rejected
here with the same kind of message. Only the fields steadypress reads have resolvers.

Behaviour follows GitHub's GraphQL reference (docs.github.com/graphql/reference):
- `Blob.text` is "UTF8 text data or null if the Blob is binary"; GitHub truncates it at
  512,000 bytes and sets `isTruncated` (observed; the limit is undocumented);
- `createCommitOnBranch` "creates a commit whose parent is the HEAD of the provided branch and
  also updates that branch to point to the new commit"; when `expectedHeadOid` does not match,
  GitHub answers HTTP 200 with `data.createCommitOnBranch: null` and an error whose top-level
  `type` is STALE_DATA (observed, see DESIGN.md);
- errors carry GitHub's top-level `type` (NOT_FOUND, STALE_DATA, ...), not `extensions`.
"""

from __future__ import annotations

import base64
import functools
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphql import (
    DocumentNode,
    ExecutionResult,
    GraphQLError,
    GraphQLSchema,
    build_schema,
    execute_sync,
    parse,
    validate,
)

if TYPE_CHECKING:
    from tests.fakes.github.server import FakeGitHub

SCHEMA_PATH = Path(__file__).resolve().parents[3] / ".cache" / "octokit" / "schema.graphql"
TEXT_LIMIT = 512_000


@functools.cache
def github_schema() -> GraphQLSchema:
    if not SCHEMA_PATH.exists():
        raise RuntimeError(
            f"GitHub's GraphQL schema is not at {SCHEMA_PATH}: run `make schemas` "
            "(it fetches @octokit/graphql-schema from the npm registry)"
        )
    # GitHub's published SDL defines two enterprise fields twice; nothing steadypress queries.
    return build_schema(SCHEMA_PATH.read_text(encoding="utf-8"), assume_valid_sdl=True)


class GitHubGraphQLError(GraphQLError):
    def __init__(self, message: str, github_type: str) -> None:
        super().__init__(message)
        self.github_type = github_type


@functools.lru_cache(maxsize=256)
def _parsed(document: str) -> DocumentNode | GraphQLError:
    """A document parsed once: a request's label and its execution both need it."""
    try:
        return parse(document)
    except GraphQLError as error:
        return error


def operation_name(document: str) -> str:
    parsed = _parsed(document)
    if isinstance(parsed, GraphQLError):
        return "invalid"
    for definition in parsed.definitions:
        name = getattr(definition, "name", None)
        if getattr(definition, "operation", None) is not None:
            return name.value if name else "anonymous"
    return "anonymous"


# A string literal: a block string, or a quoted one on one line with its escapes.
_STRING_LITERAL = re.compile(r'"""(?:\\"""|[^"]|"(?!""))*"""|"(?:[^"\\\n]|\\.)*"')


def _shape(document: str) -> str:
    """The document with each distinct string literal replaced by a numbered one: the same
    literal by the same number, so that fields the schema asks to merge still differ or agree."""
    numbers: dict[str, int] = {}
    return _STRING_LITERAL.sub(
        lambda literal: f'"{numbers.setdefault(literal.group(), len(numbers))}"', document
    )


@functools.lru_cache(maxsize=1024)
def _shape_is_valid(shape: str) -> bool:
    return not validate(github_schema(), parse(shape))


def _checked(document: str) -> DocumentNode | list[GraphQLError]:
    """The parsed document, or why the schema rejects it. A client reads files by naming their
    paths in the query, so a document is rarely sent twice, but its shape is: whether a string
    literal is valid depends on its type alone (this schema's custom scalars take any string),
    so the shape is validated against GitHub's large schema once, and a document whose shape is
    not valid is validated itself, for the errors GitHub would name."""
    parsed = _parsed(document)
    if isinstance(parsed, GraphQLError):
        return [parsed]
    if _shape_is_valid(_shape(document)):
        return parsed
    errors = validate(github_schema(), parsed)
    return errors if errors else parsed


def execute(fake: FakeGitHub, body: dict[str, Any]) -> dict[str, Any]:
    checked = _checked(body.get("query", ""))
    if isinstance(checked, list):
        result = ExecutionResult(data=None, errors=checked)
    else:
        executed = execute_sync(
            github_schema(),
            checked,
            root_value=_Root(fake).fields(),
            variable_values=body.get("variables") or {},
            operation_name=body.get("operationName"),
        )
        assert isinstance(executed, ExecutionResult)
        result = executed
    answer: dict[str, Any] = {}
    if result.errors:
        answer["errors"] = [_formatted(error) for error in result.errors]
    if result.data is not None or not result.errors:
        answer["data"] = result.data
    return answer


def _formatted(error: GraphQLError) -> dict[str, Any]:
    formatted = dict(error.formatted)
    original = error.original_error
    github_type = getattr(original, "github_type", None) or getattr(error, "github_type", None)
    if github_type:
        formatted["type"] = github_type
    formatted.pop("extensions", None)
    return formatted


class _Root:
    def __init__(self, fake: FakeGitHub) -> None:
        self.fake = fake
        self.repo = fake.repository

    def fields(self) -> dict[str, Any]:
        return {"repository": self.repository, "createCommitOnBranch": self.create_commit}

    def repository(self, _info: Any, owner: str, name: str, **_: Any) -> dict[str, Any]:
        if f"{owner}/{name}" != self.fake.full_name:
            raise GitHubGraphQLError(
                f"Could not resolve to a Repository with the name '{owner}/{name}'.", "NOT_FOUND"
            )
        return self.repository_fields()

    def repository_fields(self) -> dict[str, Any]:
        return {"name": self.fake.full_name.split("/", 1)[1], "nameWithOwner": self.fake.full_name,
                "ref": self.ref, "object": self.object}  # fmt: skip

    def object(
        self, _info: Any, oid: str | None = None, expression: str | None = None
    ) -> dict[str, Any] | None:
        """`Repository.object`: a commit by its id (what steadypress asks); null for anything
        this fake does not hold."""
        if oid is not None and self.repo.exists(oid, "commit"):
            return self.commit(oid)
        return None

    def ref(self, _info: Any, qualifiedName: str) -> dict[str, Any] | None:
        branch = qualifiedName.removeprefix("refs/heads/")
        head = self.repo.head_of(branch)
        if head is None:
            return None
        return {"name": branch, "prefix": "refs/heads/", "target": self.commit(head)}

    def commit(self, oid: str) -> dict[str, Any]:
        return {
            "__typename": "Commit",
            "oid": oid,
            "message": self.repo.commit_message(oid),
            "file": lambda _info, path: self.tree_entry(oid, path),
            # `Commit.repository` (RepositoryNode): what a mutation's answer reads further.
            "repository": self.repository_fields(),
        }

    def tree_entry(self, commit: str, path: str) -> dict[str, Any] | None:
        found = self.repo.blob_at(commit, path)
        if found is None:
            listed = self.repo.tree_entries(commit, path)
            if listed is None:
                return None
            # TreeEntry (https://docs.github.com/en/graphql/reference/objects#treeentry): its
            # `object` is the blob or tree it names, resolved only when selected.
            entries = [
                {"name": name, "type": kind, "path": f"{path}/{name}",
                 "object": lambda _info, inner=f"{path}/{name}", kind=kind: self._object_at(
                     commit, inner, kind)}
                for name, kind in listed
            ]  # fmt: skip
            return {"name": path.rsplit("/", 1)[-1], "path": path,
                    "object": {"__typename": "Tree", "entries": entries}}  # fmt: skip
        oid, data = found
        # A cut inside a multi-byte character drops that character, as a byte limit would.
        binary = b"\0" in data
        text = None if binary else data[:TEXT_LIMIT].decode("utf-8", errors="ignore")
        blob = {
            "__typename": "Blob",
            "oid": oid,
            # Resolved only when selected, so that a test learns which texts a read asked for.
            "text": lambda _info: self._text_read(path, text),
            "byteSize": len(data),
            "isTruncated": len(data) > TEXT_LIMIT,
            "isBinary": binary,
        }
        return {"name": path.rsplit("/", 1)[-1], "path": path, "oid": oid, "object": blob}

    def _object_at(self, commit: str, path: str, kind: str) -> dict[str, Any] | None:
        """A tree entry's object; a blob's fields read only when selected (a listing that
        looks into folders selects none of a file's, and reading each would take a process)."""
        if kind == "blob":
            fields = ("oid", "text", "byteSize", "isTruncated", "isBinary")
            return {"__typename": "Blob", **{
                name: lambda _info, name=name: self._blob_field(commit, path, name)
                for name in fields
            }}  # fmt: skip
        entry = self.tree_entry(commit, path)
        return None if entry is None else entry["object"]

    def _blob_field(self, commit: str, path: str, name: str) -> Any:
        entry = self.tree_entry(commit, path)
        if entry is None:
            return None
        field = entry["object"][name]
        return field(None) if callable(field) else field

    def _text_read(self, path: str, text: str | None) -> str | None:
        self.fake.texts_read[path] += 1
        return text

    def create_commit(self, _info: Any, input: dict[str, Any]) -> dict[str, Any]:
        branch_spec = input["branch"]
        if branch_spec.get("repositoryNameWithOwner") != self.fake.full_name:
            raise GitHubGraphQLError("Could not resolve to a Repository.", "NOT_FOUND")
        branch = str(branch_spec.get("branchName", "")).removeprefix("refs/heads/")
        expected = input["expectedHeadOid"]
        self.fake.run_before_write()
        with self.repo.lock:
            head = self.repo.head_of(branch)
            if head is None:
                raise GitHubGraphQLError(
                    f'A ref named "refs/heads/{branch}" does not exist.', "NOT_FOUND"
                )
            if head != expected:
                raise _stale(expected)
            changes = input.get("fileChanges") or {}
            removed = [deletion["path"] for deletion in changes.get("deletions") or []]
            additions = changes.get("additions") or []
            oids = self.repo.write_blobs(base64.b64decode(a["contents"]) for a in additions)
            files = {addition["path"]: oid for addition, oid in zip(additions, oids, strict=True)}
            tree = self.repo.write_tree(files, base_tree=self.repo.tree_of(head), removed=removed)
            message = input["message"]["headline"]
            if input["message"].get("body"):
                message += "\n\n" + input["message"]["body"]
            commit = self.repo.write_commit(tree, [head], message + "\n")
            if not self.repo.move_branch(branch, commit, head):
                raise _stale(expected)
        return {"commit": self.commit(commit)}


def _stale(expected: str) -> GitHubGraphQLError:
    # Two spaces before "Pull", as GitHub sends it (DESIGN.md).
    return GitHubGraphQLError(
        f'Expected branch to point to "{expected}" but it did not.  Pull and try again.',
        "STALE_DATA",
    )
