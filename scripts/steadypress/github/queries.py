"""Every GraphQL document steadypress sends; tests validate each against GitHub's schema."""

from __future__ import annotations

__all__ = ["ALL", "CREATE_COMMIT", "LOAD_STATE", "READ_HEAD"]

# One request reads the branch head and the three state files (text up to 512,000 bytes each;
# a longer file comes back with isTruncated and is fetched from the REST blob endpoint).
LOAD_STATE = """
query LoadState($owner: String!, $name: String!, $ref: String!) {
  repository(owner: $owner, name: $name) {
    ref(qualifiedName: $ref) {
      target {
        oid
        ... on Commit {
          pending: file(path: "state/pending.json") { ...stateFile }
          published: file(path: "state/published.json") { ...stateFile }
          dead: file(path: "state/dead.json") { ...stateFile }
        }
      }
    }
  }
}

fragment stateFile on TreeEntry {
  object { ... on Blob { oid text isTruncated } }
}
"""

# After an ambiguous write: where does the branch point now, and whose commit is it?
READ_HEAD = """
query ReadHead($owner: String!, $name: String!, $ref: String!) {
  repository(owner: $owner, name: $name) {
    ref(qualifiedName: $ref) {
      target { oid ... on Commit { message } }
    }
  }
}
"""

# The compare-and-swap: one call that commits only if the branch still points at expectedHeadOid.
CREATE_COMMIT = """
mutation CreateCommit($input: CreateCommitOnBranchInput!) {
  createCommitOnBranch(input: $input) {
    commit { oid }
  }
}
"""

ALL = {"LoadState": LOAD_STATE, "ReadHead": READ_HEAD, "CreateCommit": CREATE_COMMIT}
