"""The GitHub backend: the state branch and dead letters through GitHub's REST and GraphQL APIs."""
