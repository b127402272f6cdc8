"""What `steadypress init` is told and finds, checked before anything is written: the content
folder (a name the workflows and steadypress.yml can hold, and one holding the articles), the
branch (one a workflow's filter matches as itself), the deployment environment, the action's
pinned reference; and the repository's GitHub name and branch to publish, found."""

from __future__ import annotations

import os
import re
from collections import Counter
from pathlib import Path, PurePosixPath

from steadypress.articles import ARTICLE_SUFFIXES
from steadypress.contentref import checked_out_branch, remote_default_branch
from steadypress.errors import GitFailed, UsageError
from steadypress.gitio import Git

__all__ = [
    "branch_to_publish",
    "check_action",
    "check_branch",
    "check_content",
    "check_content_holds_articles",
    "check_environment",
    "github_repository",
]

# A release of the action, pinned: a commit id, never a tag that can move.
_ACTION = re.compile(r"^[\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40}$")
_ENVIRONMENT = re.compile(r"^[A-Za-z0-9._-]{1,255}$")
# A branch a workflow's `branches:` filter matches as itself: git allows `*`, `?`, `+`, `[`,
# `]`, `!`, `{`, `,` in a name, which the filter reads as patterns (or YAML as syntax).
_BRANCH = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._/-]*$")
# A content folder's parts: letters of any script, digits, spaces and a few marks; no quote,
# backslash, colon, `#` or control character (the folder is named in YAML and in comments).
_FOLDER_PART = re.compile(r"^\w[\w .+@-]*$")


# origin on GitHub, as git remote get-url prints it: https://github.com/OWNER/REPO(.git) or
# git@github.com:OWNER/REPO(.git).
_GITHUB_REMOTE = re.compile(
    r"^(?:https://github\.com/|git@github\.com:)([\w.-]+/[\w.-]+?)(?:\.git)?/?$"
)


def github_repository(git: Git) -> str | None:
    """OWNER/REPO of the remote `origin` when it is on github.com."""
    try:
        found = _GITHUB_REMOTE.match(git.text("remote", "get-url", "origin"))
    except GitFailed:
        return None
    return found.group(1) if found else None


def branch_to_publish(git: Git) -> str:
    """The branch init wires the workflows to: the remote's default branch when there is a
    remote, else the branch checked out (init runs where the blog is being set up), else
    `main`."""
    return remote_default_branch(git) or checked_out_branch(git) or "main"


def check_content(content: str) -> str:
    path = PurePosixPath(content.strip("/"))
    if not str(path) or path.is_absolute() or ".." in path.parts or str(path) == ".":
        raise UsageError("--content", f"{content!r} must be a folder inside the repository")
    if not all(_FOLDER_PART.match(part) and part == part.strip() for part in path.parts):
        raise UsageError(
            "--content",
            f"{content!r}: a folder named with letters, digits, spaces, '.', '+', '@', '-' "
            "and '_' (it is written into steadypress.yml and the workflows)",
        )
    return str(path)


def check_branch(name: str, *, found: bool = False) -> str:
    """A branch name a workflow's filter matches exactly, and git allows."""
    valid_for_git = ".." not in name and "//" not in name and not name.endswith(("/", ".lock", "."))
    if _BRANCH.match(name) and valid_for_git:
        return name
    where = f"the branch found, {name!r}" if found else repr(name)
    raise UsageError(
        "--branch",
        f"{where}: letters, digits, '.', '_', '-' and '/' only; a workflow's branch filter "
        "reads '*', '?', '+', '!', ',', '[' and '{' as patterns (name the branch with --branch)",
    )


# Folders never searched for articles: git's, what tools install or build.
_NOT_CONTENT = frozenset({".git", "node_modules", "_site", "public", "vendor", ".venv"})


def check_content_holds_articles(repo: Path, content: str) -> bool:
    """Refuse a content folder with no article when other folders have some, naming them (a
    blog whose posts are in `_posts/` would otherwise publish nothing, and `check` call it
    healthy). A repository with no article anywhere is a blog to begin: accepted, and True."""
    folder = repo / content
    if folder.is_dir() and any(path.name.endswith(ARTICLE_SUFFIXES) for path in folder.rglob("*")):
        return False
    counts: Counter[str] = Counter()
    for root, folders, files in os.walk(repo):
        folders[:] = sorted(f for f in folders if f not in _NOT_CONTENT and not f.startswith("."))
        where = Path(root).relative_to(repo)
        if where.parts and any(name.endswith(ARTICLE_SUFFIXES) for name in files):
            counts[where.parts[0]] += sum(name.endswith(ARTICLE_SUFFIXES) for name in files)
    if counts:
        found = ", ".join(f"{name}/ ({n})" for name, n in counts.most_common(3))
        raise UsageError(
            "--content", f"{content}/ holds no article (.md file); these folders do: {found}"
        )
    return True


def check_environment(name: str | None) -> str | None:
    """A deployment environment's name as GitHub allows it, and as plain YAML needs it."""
    if name is not None and not _ENVIRONMENT.match(name):
        raise UsageError(
            "--environment", f"{name!r}: letters, digits, '.', '-' and '_' only (at most 255)"
        )
    return name


def check_action(action: str) -> str:
    if action != "./" and not _ACTION.match(action):
        raise UsageError(
            "--action",
            f"{action!r}: name the action as OWNER/REPO@<40-hex commit> (pinned: a tag can move)",
        )
    return action
