"""The command line's words: every command with its description, an example and the exit
codes, so `steadypress COMMAND --help` explains itself."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from steadypress import __version__

__all__ = [
    "EXIT_CODES",
    "EXIT_OK",
    "EXIT_PENDING",
    "EXIT_STATE",
    "EXIT_USAGE",
    "build_parser",
    "default_backend",
]

EXIT_OK, EXIT_PENDING, EXIT_USAGE, EXIT_STATE = 0, 1, 2, 3

EXIT_CODES = """exit codes:
  0  done (dead letters are reported, not failures)
  1  an item failed this run and stays pending for a later one (check: problems found)
  2  usage or configuration error; nothing was done
  3  the state could not be read or written (the message says what this run had committed)"""

_SUMMARY = "Publish the markdown articles pushed to content/: at once, every time, nothing lost."


# What add_subparsers returns: the commands, each added as a parser of its own.
_Commands = argparse._SubParsersAction


def _command(
    commands: _Commands[argparse.ArgumentParser],
    name: str,
    *,
    summary: str,
    description: str,
    example: str,
    parents: list[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    return commands.add_parser(
        name,
        parents=parents,
        help=summary,
        description=description,
        epilog=f"example:\n  {example}\n\n{EXIT_CODES}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def default_backend(environ: Mapping[str, str]) -> str:
    """The backend a command runs on when `--backend` names none (its help says which)."""
    return "github" if environ.get("GITHUB_ACTIONS") == "true" else "local"


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The command line's parser. Given the arguments, a parser for the command they start
    with alone: `status` does not build the nine others (each an argparse parser of its own,
    some 4 ms of its start); anything else (`--help`, a mistyped command) gets them all."""
    parents = _parents()
    parser = argparse.ArgumentParser(
        prog="steadypress",
        description=_SUMMARY,
        epilog=f"`steadypress COMMAND --help` explains each command.\n\n{EXIT_CODES}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"steadypress {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    asked = argv[0] if argv else None
    for name, add in _COMMANDS.items():
        if asked not in _COMMANDS or asked == name:
            add(commands, parents)
    return parser


class _Parents(NamedTuple):
    """The sets of options several commands share."""

    repo: list[argparse.ArgumentParser]
    both: list[argparse.ArgumentParser]
    publishing: list[argparse.ArgumentParser]


def _parents() -> _Parents:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--config",
        type=Path,
        help="configuration file (default: steadypress.yml as committed on the content branch)",
    )
    common.add_argument(
        "--backend",
        choices=["local", "github"],
        help="where state and targets live: local (the state branch of --repo, local output) or "
        "github (the repository on GitHub); default: github inside GitHub Actions, else local",
    )
    repo = argparse.ArgumentParser(add_help=False)
    repo.add_argument(
        "--repo",
        type=Path,
        default=Path(),
        help="any folder of the git repository; its root is used (default: .)",
    )
    reading = argparse.ArgumentParser(add_help=False)
    reading.add_argument(
        "--ref",
        metavar="REF",
        help="publish the articles of this branch or commit instead of the content branch "
        "(content_branch in steadypress.yml, else the repository's default branch)",
    )
    return _Parents(repo=[repo], both=[common, repo], publishing=[common, repo, reading])


def _run(commands: _Commands[argparse.ArgumentParser], parents: _Parents) -> None:
    _command(
        commands,
        "run",
        parents=parents.publishing,
        summary="enqueue every unpublished article, then publish (the default job)",
        description="Reconcile the articles of the content branch with the ledger, then "
        "publish every article that is not published at its newest version.",
        example="steadypress run",
    )


def _enqueue(commands: _Commands[argparse.ArgumentParser], parents: _Parents) -> None:
    enqueue = _command(
        commands,
        "enqueue",
        parents=parents.publishing,
        summary="record articles as pending, publishing nothing",
        description="Record articles as pending work without publishing them.",
        example="steadypress enqueue content/hello.md",
    )
    enqueue.add_argument(
        "--push",
        nargs=2,
        metavar=("BEFORE", "AFTER"),
        help="the articles changed between two commits of a push",
    )
    enqueue.add_argument(
        "paths", nargs="*", metavar="PATH", help="articles at the content branch's head"
    )


def _drain(commands: _Commands[argparse.ArgumentParser], parents: _Parents) -> None:
    drain = _command(
        commands,
        "drain",
        parents=parents.publishing,
        summary="claim and publish what is claimable now",
        description="Claim and publish pending items that are due and unleased.",
        example='steadypress drain --push "$BEFORE" "$AFTER"',
    )
    drain.add_argument(
        "--push",
        nargs=2,
        metavar=("BEFORE", "AFTER"),
        help="first enqueue the articles a push changed, in the same write as the first claim",
    )


def _sweep(commands: _Commands[argparse.ArgumentParser], parents: _Parents) -> None:
    sweep = _command(
        commands,
        "sweep",
        parents=parents.publishing,
        summary="reconcile, publish stale or due items, re-open missing alerts",
        description="The insurance run: reconcile content against the ledger, take stale "
        "and due work whoever last held it, re-open dead letters that could not be opened.",
        example="steadypress sweep",
    )
    sweep.add_argument(
        "--repair-site",
        action="store_true",
        help="then write again, from the site's index, every sitemap and listing page that "
        "disagrees with it (reads the whole site; `status --site` shows them)",
    )


def _retry(commands: _Commands[argparse.ArgumentParser], parents: _Parents) -> None:
    retry = _command(
        commands,
        "retry",
        parents=parents.publishing,
        summary="retry dead or waiting items now",
        description="Give dead or waiting items a fresh start and publish them, "
        "from what is committed now.",
        example="steadypress retry content/hello.md",
    )
    chosen = retry.add_mutually_exclusive_group(required=True)
    chosen.add_argument("paths", nargs="*", default=[], metavar="PATH")
    chosen.add_argument("--all-dead", action="store_true", help="every dead item")
    chosen.add_argument("--issue", type=int, metavar="N", help="the item named by dead letter N")


def _status(commands: _Commands[argparse.ArgumentParser], parents: _Parents) -> None:
    status = _command(
        commands,
        "status",
        parents=parents.both,
        summary="what is pending, published, dead",
        description="Show the ledger: what is pending and why, what is dead and "
        "how to retry it, how much is published.",
        example="steadypress status --json",
    )
    status.add_argument("--json", action="store_true", help="the whole ledger as JSON")
    status.add_argument(
        "--site",
        action="store_true",
        help="also check each site's sitemaps and listing pages against its index, writing "
        "nothing (reads the whole site); exit 1 when any disagrees",
    )


def _keep_schedule(commands: _Commands[argparse.ArgumentParser], parents: _Parents) -> None:
    keep = _command(
        commands,
        "keep-schedule",
        parents=parents.both,
        summary="re-enable the sweep if GitHub disabled it for inactivity",
        description="Re-enable the sweep workflow when GitHub disabled it for "
        "inactivity, never when a maintainer did (GitHub backend).",
        example="steadypress keep-schedule --workflow sweep.yml",
    )
    keep.add_argument(
        "--workflow", default="sweep.yml", help="the workflow file (default: sweep.yml)"
    )


def _check(commands: _Commands[argparse.ArgumentParser], parents: _Parents) -> None:
    check = _command(
        commands,
        "check",
        parents=parents.both,
        summary="check articles and the theme as publishing would, writing nothing",
        description="Check articles exactly as publishing would (front matter, "
        "dates, URLs, images, targets, the render) and, without PATHs, build the whole "
        "site with the theme in a throwaway folder; report each problem with its file "
        "and line (a theme template's, when the fault is there). Writes nothing and "
        "needs no token.",
        example="steadypress check --worktree content/draft.md",
    )
    check.add_argument("paths", nargs="*", metavar="PATH", help="articles (default: all)")
    check.add_argument(
        "--base",
        metavar="REV",
        help="only the articles changed since REV (the whole site when the theme or "
        "steadypress.yml changed)",
    )
    check.add_argument(
        "--worktree", action="store_true", help="the working tree, uncommitted files included"
    )


def _init(commands: _Commands[argparse.ArgumentParser], parents: _Parents) -> None:
    init = _command(
        commands,
        "init",
        parents=parents.repo,
        summary="write steadypress's workflows and steadypress.yml into a repository",
        description="Write the publish, sweep, retry and check workflows (using the "
        "steadypress action, pinned) and a commented steadypress.yml; nothing else "
        "changes.",
        example="steadypress init --content posts --action OWNER/steadypress@<sha>",
    )
    init.add_argument(
        "--content",
        help="the articles' folder (default: content, or _posts in a Jekyll blog)",
    )
    init.add_argument(
        "--branch", help="the branch whose pushes publish (default: the repository's)"
    )
    init.add_argument(
        "--action",
        required=True,
        metavar="OWNER/REPO@COMMIT",
        help="the steadypress action, pinned to a full commit id (./ for this repository's own)",
    )
    init.add_argument(
        "--environment",
        metavar="NAME",
        help="run the publishing jobs in this deployment environment, whose protection rules "
        "guard the target secrets (default: none; repository secrets)",
    )
    init.add_argument(
        "--sweep",
        choices=["10m", "30m", "1h", "3h", "6h", "1d"],
        help="how often the sweep runs (default: every 10 minutes on a public repository, "
        "whose minutes are free; every hour on a private one or one GitHub did not say of)",
    )
    init.add_argument(
        "--own-site",
        action="store_true",
        help="in a Jekyll or Hugo blog: publish with steadypress's own site instead of the "
        "blog's generator, every old URL kept (the configuration's title, address and "
        "permalinks read into steadypress.yml)",
    )
    init.add_argument("--force", action="store_true", help="overwrite files that exist")


def _live(commands: _Commands[argparse.ArgumentParser], parents: _Parents) -> None:
    live = _command(
        commands,
        "live",
        parents=parents.publishing,
        summary="poll and publish until stopped (an optional accelerator)",
        description="Poll the content branch and publish as soon as work appears; "
        "nothing depends on it.",
        example="steadypress live --interval 30",
    )
    live.add_argument("--interval", type=float, default=30.0, metavar="SECONDS")
    live.add_argument("--ticks", type=int, metavar="N", help="stop after N polls")


# Every command, in the order `--help` lists them.
_COMMANDS: dict[str, Callable[[_Commands[argparse.ArgumentParser], _Parents], None]] = {
    "run": _run,
    "enqueue": _enqueue,
    "drain": _drain,
    "sweep": _sweep,
    "retry": _retry,
    "status": _status,
    "keep-schedule": _keep_schedule,
    "check": _check,
    "init": _init,
    "live": _live,
}
