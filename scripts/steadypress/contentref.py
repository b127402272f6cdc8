"""Which commits publishing reads: the content branch (`content_branch` in steadypress.yml, else
the repository's default branch), never whatever happens to be checked out. Publishing a feature
branch's articles and finding them unpublished back on main is a surprise; asking for another
ref is explicit (`--ref`), and said.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from steadypress.errors import GitFailed, UsageError
from steadypress.gitio import Git, SettledGit

__all__ = [
    "ContentRef",
    "checked_out_branch",
    "choose_ref",
    "default_branch",
    "elsewhere_notice",
    "remote_default_branch",
]


@dataclass(frozen=True)
class ContentRef:
    """A revision the content is read at, resolved afresh whenever the head is wanted (a live
    executor sees new commits), and how to name it to a person."""

    revision: str  # refs/heads/main, refs/remotes/origin/main, or a --ref as given
    name: str
    explicit: bool = False  # asked for with --ref


def remote_default_branch(git: Git) -> str | None:
    """The default branch of the remote `origin`, when a clone recorded it."""
    with contextlib.suppress(GitFailed):
        return git.text("symbolic-ref", "--quiet", "refs/remotes/origin/HEAD").removeprefix(
            "refs/remotes/origin/"
        )
    return None


def checked_out_branch(git: Git) -> str | None:
    """The branch checked out; None on a detached HEAD."""
    with contextlib.suppress(GitFailed):
        return git.text("symbolic-ref", "--quiet", "--short", "HEAD")
    return None


def default_branch(git: SettledGit) -> str:
    """The remote's default branch when there is a remote; else git's `init.defaultBranch`,
    `main` or `master`, whichever exists; else the branch checked out (a new repository's
    only one); else `main`."""
    # Its name asked only where a clone recorded one: a blog without a remote starts no git
    # process for it (the settled reader answers whether there is one).
    there = git.resolve("refs/remotes/origin/HEAD") is not None
    remote = remote_default_branch(git) if there else None
    if remote is not None:
        return remote
    configured = ""
    with contextlib.suppress(GitFailed):  # not set
        configured = git.text("config", "--get", "init.defaultBranch")
    for name in (configured, "main", "master"):
        if name and git.resolve(f"refs/heads/{name}^{{commit}}"):
            return name
    return checked_out_branch(git) or "main"


def _branch_revision(git: Git, branch: str) -> str | None:
    """The branch here, or as last fetched from the remote (a CI checkout may hold only that)."""
    for revision in (f"refs/heads/{branch}", f"refs/remotes/origin/{branch}"):
        if git.resolve(f"{revision}^{{commit}}"):
            return revision
    return None


def choose_ref(git: SettledGit, *, asked: str | None, configured: str | None) -> ContentRef:
    """The ref `--ref` asked for, else the configured content branch, else the default one."""
    if asked is not None:
        if asked.startswith("-") or git.resolve(f"{asked}^{{commit}}") is None:
            raise UsageError("--ref", f"{asked!r} names no commit in this repository")
        return ContentRef(revision=asked, name=asked, explicit=True)
    branch = configured or default_branch(git)
    revision = _branch_revision(git, branch)
    if revision is None:
        if git.resolve("HEAD^{commit}") is None:  # a repository with no commit yet
            return ContentRef(revision="HEAD", name=branch)
        why = "content_branch in steadypress.yml" if configured else "the default branch"
        raise UsageError(
            "content branch",
            f"no branch {branch!r} here ({why}); fetch it, set content_branch, or name a ref "
            "with --ref",
        )
    return ContentRef(revision=revision, name=branch)


def elsewhere_notice(git: Git, chosen: ContentRef) -> str | None:
    """What to say when the checkout is not what is published: an explicit --ref, or a branch
    checked out whose head is not the content branch's."""
    commit = git.resolve(f"{chosen.revision}^{{commit}}")
    shown = commit[:12] if commit else "no commit yet"
    if chosen.explicit:
        return f"publishing {chosen.name} ({shown}) as --ref asks, not the content branch"
    head = git.resolve("HEAD^{commit}")
    if head is None or head == commit:
        return None
    checked_out = checked_out_branch(git) or "a detached HEAD"
    return (
        f"publishing the content branch {chosen.name} ({shown}); the checkout is on "
        f"{checked_out}, whose articles are not published (--ref HEAD publishes them)"
    )
