"""The generator's build of the content at a commit, made once and kept for the run: every
batch of a run, and the platforms asking where an article's page is, share it.

An article whose file the generator's failure names is left out of the build, which is made
again without it: that article fails alone and the others publish."""

from __future__ import annotations

import os
import posixpath
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from steadypress.articles import Article
from steadypress.clock import Clock
from steadypress.content import ContentSource
from steadypress.errors import PermanentError, PublishError, TransientError
from steadypress.targets.generated.generator import BuildFailed, Generator, Page

__all__ = ["Build", "Builds"]

# Builds made again, each without the articles the last one's failure named, before the
# failures are taken for the site's own.
MAX_REBUILDS = 20
# How long a build stands for now: a run's batches share it, and a process that lives on
# (live mode) builds again for what fell due since.
FRESH = timedelta(minutes=5)
# Builds kept: the run's, and the one deployed before it, which a deploy compares with.
KEPT = 2


@dataclass(frozen=True)
class Build:
    commit: str
    clock: datetime  # the moment it was built as at (`Generator.build`)
    maker: str  # exactly what made it (`Made.maker`)
    output: Mapping[str, bytes]  # every file the generator wrote, by its path in the site
    pages: Mapping[str, Page]  # by the source file's path in the repository
    left_out: Mapping[str, str]  # articles left out: the failure that named each


class Builds:
    """Builds by `generator` of the project folder `project` of the repository (its root where
    empty): the run's, and the one it is compared with (what was deployed before), kept."""

    def __init__(
        self, generator: Generator, content: ContentSource, project: str, clock: Clock
    ) -> None:
        self.generator = generator
        self._content = content
        self._project = project.strip("/")
        self._clock = clock
        self._kept: list[Build] = []  # the newest last; a build is the site's size in memory

    def at(self, commit: str, clock: datetime | None = None) -> Build:
        """The build of `commit` as at `clock`; as at now where not given (a build made
        within `FRESH` is now's: what falls due meanwhile is a later run's)."""
        (built,) = self.together([(commit, clock)])
        if isinstance(built, PublishError):
            raise built
        return built

    def kept(self, commit: str) -> Build | None:
        """The build of `commit` as at now, where it is made already."""
        return self._kept_as(commit, None, self._clock.now().replace(microsecond=0))

    def _kept_as(self, commit: str, clock: datetime | None, now: datetime) -> Build | None:
        return next((kept for kept in self._kept if _is(kept, commit, clock, now)), None)

    def together(self, wanted: Sequence[tuple[str, datetime | None]]) -> list[Build | PublishError]:
        """The builds of these commits as at these clocks (`at`), those not made yet made at
        the same time (each generator is a process of its own: two builds take the time of
        one on two cores); a build that fails is its error."""
        now = self._clock.now().replace(microsecond=0)
        found: list[Build | PublishError | None] = [
            self._kept_as(commit, clock, now) for commit, clock in wanted
        ]
        missing = [n for n, built in enumerate(found) if built is None]
        with ThreadPoolExecutor(max_workers=max(1, len(missing))) as workers:
            made = [workers.submit(self._build, wanted[n][0], wanted[n][1] or now) for n in missing]
            for n, future in zip(missing, made, strict=True):
                try:
                    found[n] = future.result()
                except PublishError as error:
                    found[n] = error
        builds = [built for built in found if isinstance(built, Build)]
        others = [kept for kept in self._kept if all(kept is not built for built in builds)]
        self._kept = [*others, *builds][-KEPT:]  # by identity: an output is megabytes
        return [built for built in found if built is not None]

    def source_of(self, path: str) -> str:
        """A repository path as the generator names it: from the project folder."""
        return path[len(self._project) + 1 :] if self._project else path

    def _in_repository(self, source: str) -> str:
        return posixpath.join(self._project, source) if self._project else source

    def url_of(self, article: Article) -> str:
        """Where the generator serves the article (for the platforms that link to it)."""
        build = self.at(article.commit or self._content.head())
        if article.path in build.left_out:
            raise TransientError(f"the site's build leaves it out: {build.left_out[article.path]}")
        return self.page(build, article.path).url

    def page(self, built: Build, path: str) -> Page:
        """The page `built` makes of the article at `path`; a PermanentError where the
        generator makes none, or leaves it out (a draft, a future date)."""
        page = built.pages.get(path)
        if page is None:
            raise PermanentError(
                f"{self.generator.name} makes no page of it (is it in the generator's content "
                "folder, and not ignored by its configuration?)"
            )
        if page.left_out is not None:
            raise PermanentError(f"no page on the site: {page.left_out}")
        return page

    def _build(self, commit: str, clock: datetime) -> Build:
        with tempfile.TemporaryDirectory(prefix="steadypress-build-") as work:
            project, output = Path(work, "project"), Path(work, "output")
            project.mkdir()
            self._content.export(commit, self._project, project)
            left_out: dict[str, str] = {}
            for _attempt in range(MAX_REBUILDS + 1):
                shutil.rmtree(output, ignore_errors=True)
                output.mkdir()
                try:
                    made = self.generator.build(project, output, clock)
                    break
                except BuildFailed as failed:
                    named = self._articles_named(failed, left_out)
                    # A failure that names a file of the site (a template, the configuration)
                    # is the site's, even where it names the page it was rendering too.
                    if not named or self._names_the_site(failed):
                        raise self._site_failure(failed) from None
                    for path in named:
                        left_out[path] = failed.message
                        _leave_out(project, self.source_of(path))
            else:
                raise TransientError(
                    f"{self.generator.name} failed on more than {MAX_REBUILDS} articles in one "
                    "build; it is tried again later"
                )
            return Build(
                commit=commit,
                clock=clock,
                maker=made.maker,
                output=_files_in(output),
                pages={self._in_repository(s): page for s, page in made.pages.items()},
                left_out=left_out,
            )

    def _site_failure(self, failed: BuildFailed) -> PermanentError | TransientError:
        """A failure of the site's own (a template, the configuration). Where it names files,
        a commit that changes one tries again (the site's files first: where the fault is);
        else it is tried later."""
        if not failed.files:
            return TransientError(failed.message)
        named = [self._in_repository(source) for source in failed.files]
        named.sort(key=self._content.is_article)  # False (the site's) before True, stably
        return PermanentError(failed.message, depends_on=named)

    def _names_the_site(self, failed: BuildFailed) -> bool:
        return any(not self._content.is_article(self._in_repository(f)) for f in failed.files)

    def _articles_named(self, failed: BuildFailed, left_out: Mapping[str, str]) -> list[str]:
        named = (self._in_repository(source) for source in failed.files)
        return [p for p in named if self._content.is_article(p) and p not in left_out]


def _is(build: Build, commit: str, clock: datetime | None, now: datetime) -> bool:
    """Whether `build` is that of `commit` as at `clock` (as at now: made within `FRESH`)."""
    if build.commit != commit:
        return False
    return build.clock == clock if clock is not None else now - build.clock < FRESH


def _leave_out(project: Path, source: str) -> None:
    """The article's file removed from the build's copy; a page bundle's whole folder (Hugo's
    `index.md` beside its images) where it is one."""
    file = project / source
    if file.name.startswith("index.") and file.parent != project:
        shutil.rmtree(file.parent, ignore_errors=True)
    else:
        file.unlink(missing_ok=True)


def _files_in(output: Path) -> dict[str, bytes]:
    """Every file of the output by its path there. A link is refused: the site's files are
    files, and a link could lead a deploy out of the output."""
    files: dict[str, bytes] = {}
    root = os.fspath(output)
    for folder, folders, names in os.walk(root):
        for name in names + [f for f in folders if os.path.islink(os.path.join(folder, f))]:
            full = os.path.join(folder, name)
            site_path = os.path.relpath(full, root).replace(os.sep, "/")
            if os.path.islink(full):
                raise PermanentError(f"the generator's output holds a link, {site_path}")
            with open(full, "rb") as stream:
                files[site_path] = stream.read()
    return files
