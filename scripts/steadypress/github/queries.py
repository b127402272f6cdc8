"""Every GraphQL document steadypress sends; tests validate each against GitHub's schema."""

from __future__ import annotations

__all__ = ["ALL", "CREATE_COMMIT", "READ_HEAD"]

# After an ambiguous write: where does the branch point now, and whose commit is it?
READ_HEAD = (
    "query ReadHead($owner:String!,$name:String!,$ref:String!){"
    "repository(owner:$owner,name:$name){"
    "ref(qualifiedName:$ref){target{oid ...on Commit{message}}}}}"
)

# The compare-and-swap: one call that commits only if the branch still points at expectedHeadOid.
# Sent with every write, so spelt without the spaces GraphQL does not need (`github/branch.py`).
CREATE_COMMIT = (
    "mutation CreateCommit($input:CreateCommitOnBranchInput!){"
    "createCommitOnBranch(input:$input){commit{oid}}}"
)

# LoadBranch is built per call by github.branch.read_query; its test validates generated ones.
ALL = {"ReadHead": READ_HEAD, "CreateCommit": CREATE_COMMIT}
