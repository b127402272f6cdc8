"""Every GraphQL document steadypress sends is valid against GitHub's published schema."""

import pytest
from graphql import parse, validate

from steadypress.github import queries
from tests.fakes.github.graphql import github_schema


@pytest.mark.parametrize("name", sorted(queries.ALL))
def test_the_query_is_valid_against_githubs_schema(name: str) -> None:
    """Validated with graphql-core against @octokit/graphql-schema's schema.graphql."""
    assert validate(github_schema(), parse(queries.ALL[name])) == []


def test_the_validation_catches_a_field_github_does_not_have() -> None:
    """The check above can fail: a misspelt field is reported."""
    broken = queries.LOAD_STATE.replace("isTruncated", "isTruncatd")
    errors = validate(github_schema(), parse(broken))
    assert [error.message for error in errors] == [
        "Cannot query field 'isTruncatd' on type 'Blob'. Did you mean 'isTruncated'?"
    ]
