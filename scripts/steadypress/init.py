"""`steadypress init`: steadypress's workflows and configuration, written into an existing
repository, its content folder and default branch filled in.

The workflows are rendered from the templates in `workflows/`, from which this repository's own
`.github/workflows/` are rendered too (a test holds them equal): one source for both.
"""

from __future__ import annotations

import errno
import json
import os
import re
import textwrap
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from steadypress import __version__
from steadypress.errors import UsageError
from steadypress.moving_in import HUGO_CONFIGS, JEKYLL_CONFIGS
from steadypress.targets.generated.hugo import HUGO_VERSION

__all__ = [
    "PRIVATE_SWEEP",
    "PUBLIC_SWEEP",
    "SWEEPS",
    "Setup",
    "find_generator",
    "next_steps",
    "render_workflow",
    "write_setup",
]

WORKFLOWS = ("publish", "sweep", "retry", "check")
# How often the sweep may run: its schedule, and the minutes a month it bills a private
# repository (a run bills a whole minute; 30 days). A public repository's are free.
SWEEPS = {
    "10m": ("7-59/10 * * * *", "Every 10 minutes", 4320),
    "30m": ("7-59/30 * * * *", "Every 30 minutes", 1440),
    "1h": ("7 * * * *", "Every hour", 720),
    "3h": ("7 */3 * * *", "Every 3 hours", 240),
    "6h": ("7 */6 * * *", "Every 6 hours", 120),
    "1d": ("7 3 * * *", "Every day", 30),
}
# A public repository's minutes are free: the sweep catches up soon. A private one's count
# (2,000 a month on the free plan): hourly, 720, leaves the rest to its pushes.
PUBLIC_SWEEP, PRIVATE_SWEEP = "10m", "1h"
_PLACEHOLDER = re.compile(r"@[A-Z_]+@")


@dataclass(frozen=True)
class Setup:
    content: str  # the articles' folder, relative to the repository's root
    branch: str  # the branch whose pushes publish
    action: str  # how a workflow step names the action (`uses:`)
    prefix: str = "steadypress-"  # workflow file names, beside the repository's own
    # The deployment environment holding the target secrets, or None: repository secrets.
    environment: str | None = None
    # The blog's own generator, found in the repository (`find_generator`), at the version the
    # action installs; None: steadypress's own site.
    generator: str | None = None
    # A blog moving onto steadypress's own site from its generator: the site settings that
    # keep its title, address and old URLs (`moving_in.old_site_settings`).
    old_site: Mapping[str, Any] | None = None
    sweep: str = PUBLIC_SWEEP  # how often the sweep runs (`SWEEPS`)
    # A blog to begin (no article anywhere): a first article, a README and a .gitignore too.
    starter: bool = False
    # A moving Jekyll blog's pages beside its posts, which the content folder does not hold.
    pages_outside: tuple[str, ...] = ()


def _environment_lines(environment: str | None) -> str:
    if environment is None:
        return (
            "# Target secrets are repository secrets: no deployment environment, so a run "
            "records no\n    # deployment (a sweep every 10 minutes would make 144 a day) and "
            "private repositories on\n    # the free plan work. To guard the secrets with "
            "protection rules, see the README."
        )
    return (
        "# The target secrets are this environment's, guarded by its protection rules; every "
        "run\n    # records a deployment in it (the sweep: 144 a day).\n"
        f"    environment: {environment}"
    )


def render_workflow(name: str, setup: Setup) -> str:
    template = resources.files("steadypress").joinpath(f"workflows/{name}.yml").read_text()
    values = {
        "@ACTION@": setup.action,
        "@BRANCH@": _yaml_string(setup.branch),
        "@CONTENT@": setup.content,
        "@SWEEP@": f"{setup.prefix}sweep.yml",
        "@ENVIRONMENT@": _environment_lines(setup.environment),
        "@SWEEP_CRON@": SWEEPS[setup.sweep][0],
        "@SWEEP_EVERY@": SWEEPS[setup.sweep][1],
    }
    workflow = _PLACEHOLDER.sub(lambda match: values[match.group(0)], template)
    if setup.generator == "hugo":
        # Each step that publishes or checks builds the site: the action installs Hugo first.
        workflow = _BUILDING_STEP.sub(rf'\g<0>\g<indent>hugo-version: "{HUGO_VERSION}"\n', workflow)
    elif setup.generator == "jekyll" and name in _BUILDING_WORKFLOWS:
        # Jekyll and the blog's theme and plugins are the Gemfile's, installed after checkout.
        workflow = workflow.replace(_CHECKED_OUT, _CHECKED_OUT + _SETUP_RUBY, 1)
    return workflow


_BUILDING_WORKFLOWS = ("publish", "sweep", "retry", "check")
_CHECKED_OUT = "          persist-credentials: false\n"
_SETUP_RUBY = """
      - name: Set up Ruby and the blog's Gemfile (its Jekyll, theme and plugins)
        uses: ruby/setup-ruby@0dafeac902942906541bc140009cdbf32665b601  # v1.315.0
        with:
          ruby-version: "3.3"
          bundler-cache: true  # bundle install, cached on Gemfile.lock
"""


# A step of the action that may build the site (publishing, or checking a pull request), by
# its `command:` line.
_BUILDING_STEP = re.compile(
    r"^(?P<indent> +)command: (?:drain-push|sweep|retry|retry-issue|check)\n", re.MULTILINE
)


def find_generator(repo: Path, content: str | None) -> tuple[str | None, str]:
    """The generator the repository's blog is built with, and its articles' folder (`content`
    where given): Jekyll where its configuration is at the root beside `_posts/`, Hugo where
    its configuration is beside `content/`; None for a blog steadypress's own site serves."""
    jekyll = any((repo / name).is_file() for name in JEKYLL_CONFIGS)
    if jekyll and (repo / (content or "_posts")).is_dir():
        return "jekyll", content or "_posts"
    folder = content or "content"
    if (repo / folder).is_dir() and any((repo / name).is_file() for name in HUGO_CONFIGS):
        return "hugo", folder
    return None, folder


def _config(setup: Setup) -> str:
    gen = _generator_line(setup) + _old_site_lines(setup.old_site or {})
    title_line = "" if setup.old_site and "title" in setup.old_site else "    # title: My blog\n"
    url_line = "" if setup.old_site and "url" in setup.old_site else (
        "    # url: https://example.org/   # where the site is served, when not "
        "OWNER.github.io/REPO\n"
    )  # fmt: skip
    return f"""# steadypress configuration: every key is optional; the comments give the defaults.
content_dir: {_yaml_string(setup.content)}
# state_branch: steadypress-state   # the pending ledger (an orphan branch)
# max_attempts: 5
# timings: {{lease: 10m, grace: 5m, backoff_initial: 30s, backoff_max: 30m}}
targets:
  site:
    kind: site
{gen}    branch: gh-pages     # GitHub Pages: Settings > Pages > Deploy from a branch > gh-pages
{title_line}{url_line}  # devto: {{kind: devto, api_key_env: DEVTO_API_KEY}}
  # hashnode: {{kind: hashnode, publication_id: YOUR_PUBLICATION_ID, token_env: HASHNODE_TOKEN}}
  # mastodon: {{kind: mastodon, instance: https://mastodon.social, token_env: MASTODON_TOKEN}}
  # bluesky: {{kind: bluesky, handle: you.bsky.social, password_env: BLUESKY_APP_PASSWORD}}
  # hook: {{kind: webhook, url: https://example.org/publish, secret_env: WEBHOOK_SECRET}}
"""


def _generator_line(setup: Setup) -> str:
    if setup.generator is None:
        return ""
    return (
        f"    generator: {setup.generator}      # the blog's own generator builds the pages "
        "(the workflows install it)\n"
    )


def _old_site_lines(settings: Mapping[str, Any]) -> str:
    """The site settings that keep a moving blog's title, address and old URLs."""
    if not settings:
        return ""
    notes = {
        "moved_from": "every URL the blog had answers: its page, or a redirect to it",
        "old_permalinks": f"where {settings['moved_from']} put the articles",
    }
    lines = []
    for key, value in settings.items():
        text = _yaml_string(value) if isinstance(value, str) else json.dumps(value)
        note = f"  # {notes[key]}" if key in notes else ""
        lines.append(f"    {key}: {text}{note}\n")
    return "".join(lines)


def _yaml_string(value: str) -> str:
    """`value` as YAML reads it back: plain where it would be the same string, else quoted
    (`1.0`, `true` or `null` plain are a number, a boolean, nothing)."""
    try:
        plain_reads_as = yaml.safe_load(f"[{value}]")
    except yaml.YAMLError:
        plain_reads_as = None
    return value if plain_reads_as == [value] else json.dumps(value, ensure_ascii=False)


def write_setup(repo: Path, setup: Setup, *, force: bool) -> list[Path]:
    """Write the workflows and steadypress.yml; an existing file is kept unless `force`. No
    file or folder is written through a symlink (a dangling one included), so nothing lands
    outside the repository; what would be is refused before anything is written."""
    files = {
        repo / ".github" / "workflows" / f"{setup.prefix}{name}.yml": render_workflow(name, setup)
        for name in WORKFLOWS
    }
    files[repo / "steadypress.yml"] = _config(setup)
    linked = sorted({link for path in files for link in _symlinks_on_the_way(repo, path)})
    if linked:
        names = ", ".join(str(path.relative_to(repo)) for path in linked)
        raise UsageError(
            "init", f"{names}: a symlink; init writes nothing through one, and nothing was written"
        )
    running = _publishing_workflows(repo, exclude=files)
    if running and not force:
        names = ", ".join(str(path.relative_to(repo)) for path in running)
        raise UsageError(
            "init",
            f"this repository runs steadypress already ({names}): a second set of workflows "
            "would publish every push twice; nothing was written (--force to add them anyway)",
        )
    existing = [path for path in files if path.exists()]
    if existing and not force:
        names = ", ".join(str(path.relative_to(repo)) for path in existing)
        raise UsageError("init", f"would overwrite {names}; nothing was written (--force to)")
    # A blog to begin gets what a blog holds besides; a file of its own is kept, even with force.
    starting = {path: text for path, text in _starter_files(repo, setup).items()
                if not path.exists() and not _symlinks_on_the_way(repo, path)}  # fmt: skip
    for path, text in {**files, **starting}.items():
        _write_inside(repo, path, text)
    return [*files, *starting]


def _starter_files(repo: Path, setup: Setup) -> dict[Path, str]:
    """A new blog's first article, README and .gitignore (`Setup.starter`)."""
    if not setup.starter:
        return {}
    tool = setup.action.split("@")[0] if "@" in setup.action else "steadypress"
    return {
        repo / setup.content / "hello-world.md": _FIRST_ARTICLE,
        repo / "README.md": _BLOG_README.format(
            content=setup.content, branch=setup.branch, tool=tool, version=__version__
        ),
        repo / ".gitignore": "# What `steadypress run` makes locally: the site and its records.\n"
        "_site/\n.steadypress/\n",
    }


_FIRST_ARTICLE = """---
title: Hello, world
description: The first article of this blog.
tags: [meta]
---

This blog is published by steadypress: every Markdown file in this folder is an article, and a
push publishes it in the same run.

## What an article holds

- a `title` in its front matter (and, if you like, `description`, `tags`, `date`);
- Markdown: headings, lists, tables, images beside it, and code:

```python
print("hello, world")
```

Edit this one, or remove it: a push publishes the change, or takes it off the site.
"""

_BLOG_README = """# A blog

Published with steadypress {version} ({tool}): every Markdown file under `{content}/` is an
article, and a push to `{branch}` publishes it (the site on the `gh-pages` branch: Settings >
Pages > Deploy from a branch > gh-pages).

- Write: add `{content}/my-article.md`, with a `title` in its front matter, and push.
- Check a change before it is published: `steadypress check` (a pull request is checked too).
- See what is published, pending or failed: `steadypress status`; a failure is also an issue
  labelled `dead-letter`, which the label `retry` retries.
- Settings (the site's title and address, dev.to, Mastodon...): `steadypress.yml`.
- The workflows in `.github/workflows/` run it; `steadypress-sweep.yml` catches up anything a
  run missed.
"""


# The push path's step of a workflow that publishes with steadypress (the action's command).
_PUBLISHES = re.compile(r"^\s*command:\s*[\"']?drain-push\b", re.MULTILINE)


def _publishing_workflows(repo: Path, *, exclude: Collection[Path]) -> list[Path]:
    """The repository's workflows, other than those init writes, that publish its pushes with
    steadypress already (a blog made from the template has its own set)."""
    folder = repo / ".github" / "workflows"
    if not folder.is_dir() or folder.is_symlink():
        return []
    found = []
    for path in sorted(folder.iterdir()):
        if path in exclude or path.suffix not in (".yml", ".yaml") or not path.is_file():
            continue
        if not path.is_symlink() and _PUBLISHES.search(path.read_text(errors="replace")):
            found.append(path)
    return found


def _symlinks_on_the_way(repo: Path, path: Path) -> list[Path]:
    """The folders below `repo` on the way to `path`, and `path` itself, that are symlinks."""
    parts = path.relative_to(repo).parts
    steps = [repo.joinpath(*parts[:n]) for n in range(1, len(parts) + 1)]
    return [step for step in steps if step.is_symlink()]


def _write_inside(repo: Path, path: Path, text: str) -> None:
    """`text` into `path`, each folder made and the file opened without following a symlink:
    one put there since the check is refused, not followed."""
    folder = repo
    for part in path.relative_to(repo).parts[:-1]:
        folder = folder / part
        folder.mkdir(exist_ok=True)
        if folder.is_symlink():
            raise UsageError("init", f"{folder.relative_to(repo)} became a symlink; stopped")
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        handle = os.open(path, flags, 0o644)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise UsageError(
                "init", f"{path.relative_to(repo)} became a symlink; stopped"
            ) from None
        raise
    with os.fdopen(handle, "w", encoding="utf-8") as written:
        written.write(text)


def _address(repository: str | None, domain: str | None) -> str:
    if domain is not None:
        return f"\nThe site will be at https://{domain}/ (the domain the committed CNAME names)."
    if repository is None:
        return ""
    # Imported here: the GitHub modules load PyGithub, which no command needs to load init.
    from steadypress.github.pages import pages_url  # noqa: PLC0415

    return (
        f"\nThe site will be at {pages_url(repository)} (every link under its path); on a "
        "custom domain, set `cname:` on the site target, or commit a CNAME file."
    )


def next_steps(
    setup: Setup,
    written: list[Path],
    repo: Path,
    *,
    repository: str | None = None,
    domain: str | None = None,
    private: bool | None = None,
    sweep_chosen: bool = True,
) -> str:
    """What to do next; `domain`: the custom domain a committed CNAME names; `private`: the
    repository's visibility as GitHub said it (None: not said), by which the sweep's interval
    was chosen unless `sweep_chosen`."""
    wrote = "\n".join(f"  {path.relative_to(repo)}" for path in written)
    secrets = "repository secrets"
    environment = ""
    if setup.environment is not None:
        secrets = f"secrets of the environment {setup.environment}"
        environment = (
            f"\n  5. Settings > Environments > New environment: {setup.environment} (its "
            "protection rules guard the secrets).\n     An environment needs a public "
            "repository, or a paid plan for a private one; every run in it\n     records a "
            "deployment (the sweep alone: 144 a day)."
        )
    generator, address = _generator_note(setup), _address(repository, domain)
    return f"""steadypress {__version__} set up in {repo}:
{wrote}

Next:
  1. Commit these files and push them to {setup.branch}.
  2. Settings > Pages > Deploy from a branch > gh-pages (created by the first publish run).
  3. Settings > Actions > General > Workflow permissions: read and write.
  4. For dev.to, Hashnode, Mastodon, Bluesky or a webhook: add DEVTO_API_KEY /
     HASHNODE_TOKEN / MASTODON_TOKEN / BLUESKY_APP_PASSWORD / WEBHOOK_SECRET as {secrets}
     and the target in steadypress.yml.{environment}
Articles are the .md files under {setup.content}/; a push to {setup.branch} publishes them (the
first push, step 1, publishes every article already there).{generator}{address}
{_sweep_note(setup, private, chosen=sweep_chosen, asked=repository is not None)}"""


def _sweep_note(setup: Setup, private: bool | None, *, chosen: bool, asked: bool) -> str:
    _cron, every, minutes = SWEEPS[setup.sweep]
    cost = f"{every} the sweep catches up what a run missed: {minutes:,} runner minutes a month"
    if chosen:
        note = f"{cost} on a private repository (--sweep)."
    elif private is False:
        note = f"{cost}, free on this public repository (--sweep to change it)."
    else:
        why = (
            "this private repository" if private
            else "a private repository (GitHub did not say which this is)" if asked
            else "a private repository (no GitHub remote to ask which this is)"
        )  # fmt: skip
        note = (
            f"{cost} of the 2,000 the free plan gives {why}; pushes publish at once whatever "
            "it is (--sweep 10m for sooner)."
        )
    return textwrap.fill(note, width=95)


def _generator_note(setup: Setup) -> str:
    if setup.old_site:
        moved_from = setup.old_site["moved_from"].capitalize()
        note = (
            f"\nThis {moved_from} blog moves onto steadypress's own site: every URL "
            f"{moved_from} gave an article\nanswers, as the page or a redirect to it "
            "(`moved_from` in steadypress.yml)."
        )
        if setup.pages_outside:
            named = ", ".join(setup.pages_outside)
            note += "\n" + textwrap.fill(
                f"Its pages beside {setup.content}/ ({named}) are not read: steadypress "
                f"publishes what {setup.content}/ holds. `git mv {setup.pages_outside[0]} "
                f"{setup.content}/` keeps one at its URL (its `permalink`), a page beside the "
                "articles (`layout: page`), linked in the header (`menu` in steadypress.yml).",
                width=95,
            )
        return note
    if setup.generator == "hugo":
        return (
            f"\nThis is a Hugo blog: Hugo {HUGO_VERSION} builds its pages with its own theme "
            "and addresses\n(`generator: hugo` in steadypress.yml); steadypress deploys what "
            "changed."
        )
    if setup.generator == "jekyll":
        return (
            "\nThis is a Jekyll blog: Jekyll builds its pages with its own theme and addresses"
            "\n(`generator: jekyll` in steadypress.yml), from the Gemfile's gems (commit its "
            "Gemfile.lock);\nsteadypress deploys what changed."
        )
    return ""
