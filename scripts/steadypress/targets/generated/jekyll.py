"""Jekyll (https://jekyllrb.com) as the site's generator. A plugin of steadypress's, loaded
from outside the project (`jekyll_pages.rb`), lists each page's source, address and output
file once the site is written; the clock is the configuration's `time`, which Jekyll builds
as at (what is due, `site.time`). Its errors name the file; a front matter it cannot read is
an error it builds on past, and is taken for a failure here."""

from __future__ import annotations

import json
import os
import shutil
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from urllib.parse import urlsplit

from steadypress.errors import TransientError
from steadypress.targets.generated.generator import (
    BuildFailed,
    Made,
    Page,
    failed,
    run_generator,
)

__all__ = ["Jekyll"]

_CONFIGS = ("_config.yml", "_config.yaml", "_config.toml")


class Jekyll:
    name = "jekyll"

    def __init__(
        self, *, base_url: str | None = None, site_url: str = "", checkout: Path | None = None
    ) -> None:
        # `base_url`: where steadypress is told the site is served, which overrides the
        # configuration's `url` and `baseurl`; `site_url`: the site's address where the
        # configuration names none (the repository's Pages address); `checkout`: the project's
        # folder in the working tree, where a workflow installed its bundle.
        self._base_url = base_url
        self._site_url = site_url
        self._command, self._extra = _jekyll_command(checkout)

    def missing(self) -> str | None:
        if not self._command:
            return (
                "jekyll is not installed on this machine (in a workflow, ruby/setup-ruby with "
                "`bundler-cache: true` installs the blog's Gemfile; `steadypress init` writes it)"
            )
        return None

    def build(self, project: Path, output: Path, clock: datetime) -> Made:
        if not self._command:
            raise TransientError(self.missing() or "jekyll is not installed")
        work = output.parent
        listing = work / "jekyll-pages.json"
        listing.unlink(missing_ok=True)
        ours = work / "steadypress-plugins"
        ours.mkdir(exist_ok=True)
        plugin = resources.files("steadypress.targets.generated").joinpath("jekyll_pages.rb")
        (ours / "steadypress_pages.rb").write_bytes(plugin.read_bytes())
        override = work / "steadypress-config.yml"
        override.write_text(json.dumps(self._settings(clock)))
        configs = [os.fspath(project / name) for name in _CONFIGS if (project / name).is_file()]
        done = run_generator(
            "jekyll",
            [
                *self._command, "build", "--source", os.fspath(project),
                "--destination", os.fspath(output),
                "--config", ",".join([*configs, os.fspath(override)]),
                "--plugins", ",".join([os.fspath(project / "_plugins"), os.fspath(ours)]),
            ],
            {**self._extra, "STEADYPRESS_PAGES": os.fspath(listing), "JEKYLL_ENV": "production"},
        )  # fmt: skip
        said = f"{done.stdout}\n{done.stderr}"
        if done.returncode != 0:
            raise failed("jekyll", said, project)
        # A file it could not read is reported and built past, as something else.
        warned = failed("jekyll", said, project)
        if warned.files and "Error" in warned.message:
            raise warned
        return self._made(listing, project)

    def _settings(self, clock: datetime) -> dict[str, str]:
        """What steadypress sets over the project's configuration: the time to build as at,
        and where the site is served when it is told."""
        settings = {"time": clock.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S +0000")}
        if self._base_url:
            parts = urlsplit(self._base_url)
            settings |= {
                "url": f"{parts.scheme}://{parts.netloc}",
                "baseurl": parts.path.rstrip("/"),
            }
        return settings

    def _made(self, listing: Path, project: Path) -> Made:
        try:
            found = json.loads(listing.read_text())
            configured = found["url"].rstrip("/")
            # Without a `url` of its own, the site is where steadypress serves it.
            root = (
                configured + found["baseurl"].rstrip("/")
                if configured
                else self._site_url.rstrip("/")
            )
            pages = {
                page["source"]: Page(
                    source=page["source"],
                    url=root + page["url"],
                    output=page["output"],
                    left_out=None,
                )
                for page in found["pages"]
            }
            maker = "jekyll " + " ".join(found["gems"])
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise BuildFailed(f"jekyll's list of pages could not be read: {error}", ()) from None
        return Made(maker, pages)


def _jekyll_command(checkout: Path | None) -> tuple[list[str], dict[str, str]]:
    """How Jekyll is run: with the project's bundle where one is installed in the checkout
    (its Gemfile.lock beside its Gemfile: the gems and theme the blog pins), else the
    `jekyll` on PATH; empty where neither is."""
    gemfile = checkout / "Gemfile" if checkout is not None else None
    bundle = shutil.which("bundle")
    if gemfile is not None and gemfile.with_name("Gemfile.lock").is_file() and bundle:
        return [bundle, "exec", "jekyll"], {"BUNDLE_GEMFILE": os.fspath(gemfile)}
    jekyll = shutil.which("jekyll")
    return ([jekyll] if jekyll else []), {}
