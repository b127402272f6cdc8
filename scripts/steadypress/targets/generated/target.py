"""The site target when the blog's own generator makes the pages (`generator: hugo`).

A batch's articles are published by building the site at their commit (once a run: `Builds`)
and deploying what changed of its output (`deploy`). Each article's receipt is its page's
address as the generator gives it, once the page is in the output. An article the generator's
failure names is left out of the build and fails alone. A change to anything of the project but
its articles (the theme, the configuration) is a change of the site's look, and rebuilds it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import asdict
from datetime import datetime

from steadypress.articles import Article
from steadypress.clock import Clock
from steadypress.content import ContentSource
from steadypress.errors import PermanentError, PublishError, TransientError
from steadypress.ledger import Look, PublishedRecord, look_digest
from steadypress.targets.base import OneByBatches, Receipt, Refreshed
from steadypress.targets.context import TargetContext
from steadypress.targets.generated.builds import Build, Builds
from steadypress.targets.generated.deploy import (
    DEPLOYED,
    Deployed,
    deploy,
    read_deployed,
    with_site_files,
)
from steadypress.targets.generated.generator import Generator
from steadypress.targets.generated.hugo import Hugo
from steadypress.targets.generated.jekyll import Jekyll
from steadypress.targets.site.files import SiteFiles, SiteWriter
from steadypress.targets.site.settings import SiteSettings, site_address

__all__ = ["GeneratedSite", "build", "builds_for"]


def builds_for(
    settings: SiteSettings, content: ContentSource, clock: Clock, *, site_url: str
) -> Builds:
    """The builds of the site these settings name (shared by the target and by the platforms
    that link to its pages); `site_url`: where the site is served, unless its generator's
    configuration says."""
    generator: Generator
    if settings.generator == "jekyll":
        checkout = content.repository / settings.source.strip("/")
        generator = Jekyll(base_url=settings.url or None, site_url=site_url, checkout=checkout)
    else:
        generator = Hugo(base_url=settings.url or None)
    return Builds(generator, content, settings.source, clock)


def build(name: str, settings: SiteSettings, context: TargetContext) -> GeneratedSite:
    shared = context.links.pages if context.links is not None else None
    address = site_address(settings, default_url=context.default_site_url).url
    builds = (
        shared
        if isinstance(shared, Builds)
        else builds_for(settings, context.content, context.clock, site_url=address)
    )
    return GeneratedSite(
        name, context.site_files(settings), builds, content=context.content, settings=settings
    )


class GeneratedSite(OneByBatches):
    def __init__(
        self,
        name: str,
        files: SiteFiles,
        builds: Builds,
        *,
        content: ContentSource,
        settings: SiteSettings,
    ) -> None:
        self._name = name
        self._files = files
        self._builds = builds
        self._content = content
        self._settings = settings
        self._deployed: Build | None = None  # the build this process deployed last

    @property
    def name(self) -> str:
        return self._name

    def unavailable_reason(self) -> str | None:
        return self._builds.generator.missing()

    # The look (`StyledTarget`): what the pages depend on besides the articles.

    def look(self, commit: str) -> Look:
        """Every page on the generator and the settings; the rest of the project (its theme,
        configuration, static files, the content folder's files that are not articles: a
        section's `_index.md`, an image) is `singles`, whose change rebuilds the site once
        (`refresh`) rather than publishing every article again."""
        entries = self._content.entries(commit, self._settings.source)
        # The articles' folder, where it is one of the project's own: its articles are not the
        # look (a deeper one, content/posts, is in its folder's digest, and a push of an
        # article then refreshes too: the run's one build, deployed once).
        content_folder = self._builds.source_of(self._content.content_dir)
        outside = {name: oid for name, oid in entries.items() if name != content_folder}
        pages = {"generator": self._builds.generator.name, "settings": asdict(self._settings)}
        singles = {"project": outside, "content": dict(self._content.other_files(commit))}
        return Look(
            pages=look_digest(pages), listings=look_digest({}), singles=look_digest(singles)
        )

    def showing(self, part: str) -> str:
        return f"pages {self._builds.generator.name} makes of the project's theme and configuration"

    def built_at(self, commit: str) -> Build:
        """The site built at `commit`, as a publish would build it, deployed nowhere."""
        return self._builds.at(commit)

    def refresh(self, parts: Collection[str]) -> Refreshed:
        if self._deploy(self._content.head()) is None:
            return Refreshed.OVERTAKEN
        return Refreshed.WRITTEN

    def overtaken(self, commit: str) -> bool:
        deployed = self._files.apply(self._read_deployed, texts=[DEPLOYED])
        return deployed is not None and self._later(deployed, commit)

    def lost(self) -> bool:
        return self._files.holds(DEPLOYED) is False

    def ask_lost(self) -> None:
        self._files.read_ahead(lambda: ((DEPLOYED,), ()))  # what a deploy reads first

    # Publishing (one article at a time: `OneByBatches`).

    def publish_batch(
        self,
        work: Sequence[tuple[Article, PublishedRecord | None]],
        *,
        final: bool = True,
        keep_alive: Callable[[], None] | None = None,
    ) -> list[Receipt | PublishError]:
        commit = self._commit_of([article for article, _ in work])
        # Where a later commit's build is deployed, its pages are the newer: this commit's
        # build still says where each article is.
        built = self._deploy(commit) or self._builds.at(commit)
        if keep_alive is not None:
            keep_alive()  # a build of a large site takes seconds
        return [self._receipt(built, article) for article, _ in work]

    def _receipt(self, built: Build, article: Article) -> Receipt | PublishError:
        """Where the article's page is in this build, or why it has none."""
        if article.path in built.left_out:
            return PermanentError(
                f"the site's generator failed on it, so the site is built without it: "
                f"{built.left_out[article.path]}"
            )
        try:
            page = self._builds.page(built, article.path)
        except PermanentError as error:
            return error
        if page.output not in built.output:
            return PermanentError(f"{self._builds.generator.name} gives its address as "
                                  f"{page.url}, but wrote no {page.output}")  # fmt: skip
        return Receipt(url=page.url, id=None)

    def _commit_of(self, articles: Sequence[Article]) -> str:
        """The commit a batch's articles were read from; the content's head where they differ
        (its articles are the newest of each)."""
        commits = {article.commit for article in articles}
        if len(commits) == 1 and (commit := commits.pop()) is not None:
            return commit
        return self._content.head()

    def _deploy(self, commit: str) -> Build | None:
        """The site built at `commit` and deployed: that build; None where a build of a later
        commit was deployed meanwhile (its pages are the newer, and stay)."""
        built = self._builds.kept(commit)
        if built is not None and self._deployed is built:
            return built
        deployed = self._files.apply(self._deploying(commit), texts=[DEPLOYED])
        if deployed is not None:
            self._deployed = deployed
        return deployed

    def _deploying(self, commit: str) -> Callable[[SiteWriter], Build | None]:
        """The write that builds `commit` and deploys it (None where a later commit's build is
        deployed). The output deployed before is built again beside it, to compare with."""

        def change(files: SiteWriter) -> Build | None:
            before = self._read_deployed(files)
            if before is not None and self._later(before, commit):
                return None
            wanted: list[tuple[str, datetime | None]] = [(commit, None)]
            if before is not None and self._content.resolve(before.commit) is not None:
                wanted.append((before.commit, before.clock))
            built, *previous = self._builds.together(wanted)
            if isinstance(built, PublishError):
                raise built
            now = Deployed(
                generator=self._builds.generator.name,
                version=built.maker,
                settings=look_digest({"settings": asdict(self._settings)}),
                commit=commit,
                made=self._content.commit_time(commit),
                clock=built.clock,
            )
            output = with_site_files(built.output)
            made_before = previous[0] if previous and isinstance(previous[0], Build) else None
            # Its bytes are the deployed ones where the same generator and settings made them;
            # else only its paths are, and each file is compared with the site's. A site with
            # a record is steadypress's: where what it deployed cannot be made again, a file
            # of the output already there is taken for its own.
            deploy(
                files, output, now,
                before=with_site_files(made_before.output) if made_before else None,
                exact=made_before is not None and before is not None and before.same_maker(now),
                ours=() if before is None else output.keys(),
            )  # fmt: skip
            return built

        return change

    @staticmethod
    def _read_deployed(files: SiteWriter) -> Deployed | None:
        return read_deployed(files.read(DEPLOYED))

    def _later(self, deployed: Deployed, commit: str) -> bool:
        return self._content.later(deployed.commit, deployed.made, than=commit)

    def verify_batch(self, work: Sequence[tuple[Article, Receipt]]) -> list[TransientError | None]:
        """Nothing to read back where the site's files confirm their writes (a folder, a
        commit GitHub answered); elsewhere each page is looked for."""
        if self._files.confirms_writes:
            return [None] * len(work)
        built = self._builds.at(self._commit_of([article for article, _ in work]))
        pages = [built.pages[article.path].output for article, _ in work]
        there = self._files.apply(lambda files: [files.exists(p) for p in pages], oids=pages)
        return [
            None if found else TransientError(f"{page} is not on the site yet")
            for page, found in zip(pages, there, strict=True)
        ]

    def unpublish_batch(self, work: Sequence[tuple[str, PublishedRecord | None]]) -> None:
        """The site built again at the content's head, where these articles are gone (or
        drafts), and deployed: their pages go with the rest of what changed."""
        self._deploy(self._content.head())

    # What the executor tells a batch target ahead.

    def finish(self) -> None:
        pass

    def read_ahead(
        self,
        articles: Callable[[], Sequence[Article]],
        removals: Sequence[tuple[str, PublishedRecord | None]] = (),
    ) -> None:
        """The record of what was deployed read with the state's read; then, once it is (the
        claim's turn), the deploy rehearsed on it, which builds the site, so that the files
        the deploy looks at ride on the claim too and the Pages branch costs its commit."""

        def deploying(files: SiteWriter) -> Build | None:
            read = articles()
            return self._deploying(self._commit_of(read) if read else self._content.head())(files)

        self._files.read_ahead(lambda: ((DEPLOYED,), ()), deploying)

    def expect(self, count: int) -> None:
        pass

    def render_ahead(self, count: int, articles: Callable[[], Sequence[Article]]) -> None:
        pass
