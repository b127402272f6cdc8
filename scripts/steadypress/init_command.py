"""`steadypress init` as a command: the repository looked at (its generator, content folder,
branch, remote, visibility, committed CNAME), the setup chosen, written, and explained."""

from __future__ import annotations

import argparse
import os
from dataclasses import replace
from pathlib import Path

from steadypress import __version__
from steadypress.errors import UsageError
from steadypress.gitio import Git
from steadypress.init import (
    PRIVATE_SWEEP,
    PUBLIC_SWEEP,
    Setup,
    find_generator,
    next_steps,
    write_setup,
)
from steadypress.init_checks import (
    branch_to_publish,
    check_action,
    check_branch,
    check_content,
    check_content_holds_articles,
    check_environment,
    github_repository,
)
from steadypress.moving_in import old_site_settings, pages_outside

__all__ = ["init_blog"]


def init_blog(repo: Path, args: argparse.Namespace) -> None:
    """`steadypress init` in the repository `repo` (a checked path), as `args` ask."""
    git = Git(repo)
    action = check_action(args.action)
    generator, found = find_generator(repo, args.content)
    content = check_content(found)
    old_site = None
    outside: tuple[str, ...] = ()  # a moving Jekyll blog's pages beside its posts
    if args.own_site:
        if generator is None:
            raise UsageError("--own-site", "found no Jekyll or Hugo blog here to move")
        pages = pages_outside(repo) if generator == "jekyll" else []
        outside = tuple(page.path for page in pages)
        old_site, generator = old_site_settings(repo, generator, pages, content=content), None
    setup = Setup(
        content=content,
        branch=(
            check_branch(args.branch)
            if args.branch is not None
            else check_branch(branch_to_publish(git), found=True)
        ),
        action=(
            "./  # zizmor: ignore[self-repository]"
            if action == "./"
            else f"{action}  # steadypress {__version__}"
        ),
        environment=check_environment(args.environment),
        generator=generator,
        old_site=old_site,
        pages_outside=outside,
        sweep=args.sweep or PUBLIC_SWEEP,
    )
    setup = replace(setup, starter=check_content_holds_articles(repo, setup.content))
    repository = github_repository(git)
    private = None
    if args.sweep is None:  # by the minutes the repository's runs are billed
        private = None if repository is None else _is_private(repository)
        setup = replace(setup, sweep=PUBLIC_SWEEP if private is False else PRIVATE_SWEEP)
    written = write_setup(repo, setup, force=args.force)
    domain = None if generator or (old_site and "url" in old_site) else _committed_domain(git)
    print(next_steps(setup, written, repo, repository=repository, domain=domain,
                     private=private, sweep_chosen=args.sweep is not None))  # fmt: skip


def _is_private(repository: str) -> bool | None:
    # Imported here: the GitHub modules load PyGithub, which no other init step needs.
    from steadypress.github.visibility import is_private  # noqa: PLC0415

    return is_private(repository, os.environ)


def _committed_domain(git: Git) -> str | None:
    """The custom domain a CNAME file committed at the repository's root names (the site's
    address then: `with_committed_cname`), or None."""
    from steadypress.targets.site.settings import (  # noqa: PLC0415
        SiteSettings,
        with_committed_cname,
    )

    found = git.read_file("HEAD", "CNAME") if git.resolve("HEAD") else None
    if found is None:
        return None
    return with_committed_cname(SiteSettings(), found[2]).cname
