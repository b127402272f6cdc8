"""Every GraphQL document steadypress sends is valid against GitHub's published schema."""

import pytest
from graphql import parse, validate

from steadypress.github import queries
from steadypress.github.branch import commit_mutation, files_query, folder_query, read_query
from steadypress.github.readahead import Asked
from tests.fakes.github.graphql import github_schema


@pytest.mark.parametrize("name", sorted(queries.ALL))
def test_the_query_is_valid_against_githubs_schema(name: str) -> None:
    """Validated with graphql-core against @octokit/graphql-schema's schema.graphql."""
    assert validate(github_schema(), parse(queries.ALL[name])) == []


def test_the_validation_catches_a_field_github_does_not_have() -> None:
    """The check above can fail: a misspelt field is reported."""
    broken = read_query(["state/pending.json"], []).replace("isTruncated", "isTruncatd")
    errors = validate(github_schema(), parse(broken))
    assert [error.message for error in errors] == [
        "Cannot query field 'isTruncatd' on type 'Blob'. Did you mean 'isTruncated'?"
    ]


@pytest.mark.parametrize(
    ("texts", "oids"),
    [
        (["state/pending.json", "state/published.json", "state/dead.json"], []),
        ([".steadypress-site.json"], ["index.html", 'odd "path"/index.html']),
        ([], ["index.html"]),
        ([], []),
    ],
)
def test_the_generated_branch_query_is_valid(texts: list[str], oids: list[str]) -> None:
    """LoadBranch, built per call for the files asked, is valid for any paths (and defines
    only the fragments it uses, as GraphQL asks)."""
    assert validate(github_schema(), parse(read_query(texts, oids))) == []


@pytest.mark.parametrize(
    "riders",
    [
        {"gh-pages": Asked(texts=("summary.json", 'odd "path".html'), oids=("a.html",))},
        {"gh-pages": Asked(texts=(), oids=()), "docs": Asked(texts=("x",), oids=())},
    ],
)
def test_the_commit_that_reads_ahead_is_valid(riders: dict[str, Asked]) -> None:
    """CreateCommit whose answer also reads other branches' files is valid for any paths."""
    assert validate(github_schema(), parse(commit_mutation(riders))) == []
    assert commit_mutation({}) == queries.CREATE_COMMIT


@pytest.mark.parametrize("depth", [1, 3])
def test_the_folder_query_is_valid(depth: int) -> None:
    """ListFolder, which lists the state's shards and those of its folders (3 levels deep for a
    full reading), is valid at any depth."""
    assert validate(github_schema(), parse(folder_query("state/published", depth))) == []


def test_the_query_of_files_at_a_commit_is_valid() -> None:
    """ReadFiles, the texts of files at one commit, and the ids of others, is valid for any
    paths."""
    paths = ["state/published/0a.json", 'odd "path"/index.html']
    assert validate(github_schema(), parse(files_query(paths))) == []
    assert validate(github_schema(), parse(files_query(paths[:1], paths[1:]))) == []
    assert validate(github_schema(), parse(files_query((), paths))) == []


def test_what_every_write_and_read_sends_has_no_space_graphql_does_not_need() -> None:
    """A push's three state requests carry these documents, and a transaction that reads
    more shards the last: a line break is two bytes of the JSON body, and an indent as many
    as it is wide. Only the space between two names stays."""
    riders = {"gh-pages": Asked(texts=("a b.json",), oids=("c.html",))}
    documents = [
        read_query(["state/pending.json"], ["x"], riders), commit_mutation(riders),
        files_query(["state/published/0a.json"], ["c.html"]), queries.CREATE_COMMIT,
        queries.READ_HEAD,
    ]  # fmt: skip
    for document in documents:
        outside_strings = document.replace('"a b.json"', "")
        assert "\n" not in outside_strings and "  " not in outside_strings, document
        assert not {": ", ", ", " {", "{ ", " }", "} "} & {
            outside_strings[n : n + 2] for n in range(len(outside_strings) - 1)
        }, document
