"""The real pipeline under a chaos scenario: real stores (a local git repository, or the GitHub
fake), real targets (the site, and dev.to, Mastodon, Bluesky and Hashnode through their fakes,
all five at once), executors killed at the
design's dangerous points, and simulated time for everything that waits (leases, backoff, the
schedule, rate limits), so a day of publishing runs in minutes.

Executor runs follow each other in simulated time; concurrency is injected where it matters, at
the compare-and-swap: before a write, another executor may run and move the state branch, so
the write conflicts and is re-applied, exactly as between two real processes.
"""

from __future__ import annotations

import io
import os
import random
import re
import threading
import zlib
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from steadypress.alerts import LocalDeadLetters
from steadypress.alerts.base import AlertChannel, find_marker
from steadypress.articles import Article
from steadypress.claiming import claim, select
from steadypress.clock import Clock
from steadypress.config import Config, Timings
from steadypress.content import ContentSource
from steadypress.errors import PublishError, TransientError
from steadypress.executor import drain
from steadypress.github.branch import GitHubBranch
from steadypress.github.client import GitHubClient
from steadypress.github.issues import GitHubIssues
from steadypress.github.pages import BranchSiteFiles
from steadypress.github.store import GitHubStore
from steadypress.gitio import Git
from steadypress.ledger import Ledger, PublishedRecord
from steadypress.pipeline import Pipeline
from steadypress.planning import push_prepare, reconcile
from steadypress.report import Report
from steadypress.store import LedgerStore, Snapshot, transact
from steadypress.store.localgit import LocalGitStore
from steadypress.sweeper import sweep
from steadypress.targets.base import BatchTarget, Receipt, Target
from steadypress.targets.bluesky import BlueskySettings, BlueskyTarget, record_key
from steadypress.targets.devto import DevtoSettings, DevtoTarget
from steadypress.targets.hashnode import HashnodeSettings, HashnodeTarget
from steadypress.targets.hashnode import marker as hashnode_marker
from steadypress.targets.mastodon import MastodonSettings, MastodonTarget
from steadypress.targets.registry import TargetSpec
from steadypress.targets.site import DirectorySiteFiles, SiteFiles
from steadypress.targets.site.assets import PublicLinks
from steadypress.targets.site.index import INDEX_FOLDER
from steadypress.targets.site.settings import SiteSettings
from steadypress.targets.site.target import build_site
from steadypress.targets.webhook import WebhookSettings, WebhookTarget
from steadypress.timefmt import parse_time
from steadypress.worklease import WorkLease
from tests.chaos.scenario import GITHUB_ONLY, ROUTES, Kill, Push, Run, Scenario
from tests.fakes.bluesky import FakeBluesky
from tests.fakes.clock import ManualClock, SkewedClock
from tests.fakes.devto import FakeForem
from tests.fakes.faults import Faults
from tests.fakes.github import FakeGitHub, Fault
from tests.fakes.hashnode import FakeHashnode
from tests.fakes.mastodon import FakeMastodon
from tests.fakes.web import ServedEverything
from tests.fakes.webhook import WebhookReceiver
from tests.helpers import Repo, dying_after_renames, site_articles
from tests.schema import invalid_state_files

__all__ = ["Outcome", "run_scenario"]

STATE_BRANCH = "steadypress-state"
PAGES_BRANCH = "gh-pages"
TARGETS = ("site", "devto", "mastodon", "bluesky", "hashnode", "hook")
KINDS = {"hook": "webhook"}  # a target named otherwise than its kind
HOOK_SECRET = "chaos-hook-secret"


class Killed(BaseException):
    """SIGKILL, in-process: nothing of the run's code runs after it (no `except Exception`
    catches it, no outcome is recorded)."""


@dataclass
class Outcome:
    """What a chaos run left behind, measured from the stores and the fakes, not from logs."""

    backend: str
    articles: int
    runs: int
    kills: Counter[str]  # kills that struck (a run with nothing to do dies unnoticed)
    api_faults: Counter[str]  # API faults a run actually ran into
    races: int
    lost: list[str]  # not published at their newest version in the end
    still_up: list[str]  # removed from content/, but still on a target
    unlisted: list[str]  # published to the site, but not once in its month's pages or sitemaps
    duplicate_posts: dict[str, int]
    redelivered: dict[str, int]  # webhook deliveries made again, by Idempotency-Key
    undelivered: list[str]  # never delivered to the webhook at their newest version
    dead: set[str]
    alerts: Counter[str]  # letters covering each dead item (and any stray letter)
    pending_at_end: int
    leases_at_end: int
    state_commits: int
    invalid_state_commits: list[str]
    # Seconds from push to published, by route, for articles never edited or removed (for the
    # others the record tells when their newest version went out, not their first).
    latency: dict[str, list[float]]
    github_requests: int
    seconds_simulated: float
    log: list[str] = field(default_factory=list)


class _ChaosStore:
    """The backend's store with two faults of its own: death before the first write (the claim),
    and a rival executor's transaction slipped in between a read and a write."""

    def __init__(self, inner: LedgerStore, world: _World, run: Run) -> None:
        self._inner, self._world, self._run = inner, world, run
        self._wrote = False

    @property
    def where(self) -> str:
        return self._inner.where

    def load(self, hint: Collection[str] = ()) -> Snapshot:
        return self._inner.load(hint)

    def last_known(self) -> Snapshot | None:
        return self._inner.last_known()

    def save(self, ledger: Ledger, *, based_on: Snapshot, message: str) -> str:
        if self._run.kill is Kill.BEFORE_CLAIM and not self._wrote:
            raise Killed
        self._world.maybe_race(self._run)
        version = self._inner.save(ledger, based_on=based_on, message=message)
        self._wrote = True
        return version


class _Dying:
    """A target in a run that dies at its first publication: before it reaches the target
    (after the claim), or right after the target accepted it (before `complete`); in a run
    that dies inside the site's write, the other targets publish as usual."""

    def __init__(self, inner: Target, kill: Kill) -> None:
        self._inner, self._kill = inner, kill

    @property
    def name(self) -> str:
        return self._inner.name

    def unavailable_reason(self) -> str | None:
        return self._inner.unavailable_reason()

    def publish(self, article: Article, previous: PublishedRecord | None) -> Receipt:
        if self._kill is Kill.AFTER_CLAIM:
            raise Killed
        receipt = self._inner.publish(article, previous)
        if self._kill is Kill.MID_WRITE:  # the site's write is where this run dies
            return receipt
        raise Killed

    def verify(self, article: Article, receipt: Receipt) -> None:
        self._inner.verify(article, receipt)

    def unpublish(self, path: str, previous: PublishedRecord | None) -> None:
        if self._kill is Kill.AFTER_CLAIM:
            raise Killed
        self._inner.unpublish(path, previous)
        if self._kill is not Kill.MID_WRITE:
            raise Killed


class _DyingBatch(_Dying):
    """The same death for a target that publishes a batch at once: before the write, right
    after it, or inside it (`Kill.MID_WRITE`, the site's write)."""

    def __init__(self, inner: BatchTarget, kill: Kill, *, landing: int) -> None:
        super().__init__(inner, kill)
        self._landing = landing  # files of a local write in place when MID_WRITE strikes
        self._batch = inner

    def publish_batch(
        self,
        work: Sequence[tuple[Article, PublishedRecord | None]],
        *,
        final: bool = True,
        keep_alive: Callable[[], None] | None = None,
    ) -> list[Receipt | PublishError]:
        if self._kill is Kill.AFTER_CLAIM:
            raise Killed
        with _dying_inside_local_writes(self._kill, self._landing):
            self._batch.publish_batch(work, final=final, keep_alive=keep_alive)
        raise Killed

    def read_ahead(
        self,
        articles: Callable[[], Sequence[Article]],
        removals: Sequence[tuple[str, PublishedRecord | None]] = (),
    ) -> None:
        self._batch.read_ahead(articles, removals)

    def expect(self, count: int) -> None:
        self._batch.expect(count)

    def render_ahead(self, count: int, articles: Callable[[], Sequence[Article]]) -> None:
        self._batch.render_ahead(count, articles)

    def finish(self) -> None:
        self._batch.finish()

    def verify_batch(self, work: Sequence[tuple[Article, Receipt]]) -> list[TransientError | None]:
        return self._batch.verify_batch(work)

    def unpublish_batch(self, work: Sequence[tuple[str, PublishedRecord | None]]) -> None:
        if self._kill is Kill.AFTER_CLAIM:
            raise Killed
        with _dying_inside_local_writes(self._kill, self._landing):
            self._batch.unpublish_batch(work)
        raise Killed


class _Signalled:
    """A target in a run asked to stop (SIGTERM) as its first publication or removal begins:
    that call is finished, as the signal handler lets it be, and the executor records what
    finished and gives back the rest."""

    _STARTS = frozenset({"publish", "publish_batch", "unpublish", "unpublish_batch"})

    def __init__(self, inner: Target, stopping: threading.Event) -> None:
        self._inner, self._stopping = inner, stopping

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._inner, name)  # AttributeError: not a batch target, as the inner
        if name in self._STARTS:
            self._stopping.set()
        return found


def _landing(run: Run) -> int:
    """How many files of a local write a `Kill.MID_WRITE` lets land, 1 to 48: a push's write
    is some 10 to 50 files (its pages, then its listings, feed, index and sitemaps), so the
    kill falls anywhere in it, or after it. Derived from the run, not drawn, so that the
    story's other draws are what they were before this kill point existed."""
    return 1 + zlib.crc32(run.holder.encode()) % 48


@contextmanager
def _dying_inside_local_writes(kill: Kill, landing: int) -> Iterator[None]:
    """For `Kill.MID_WRITE`, death once `landing` files of a local write are in place; a write
    on GitHub is one commit, with no inside to die in, so that run dies right after it, as
    `AFTER_PUBLISH` does (and so does a local write of fewer files)."""
    if kill is not Kill.MID_WRITE:
        yield
        return
    with dying_after_renames(landing, Killed):
        yield


@dataclass(frozen=True)
class _Platforms:
    """The fakes of the platforms an article is syndicated to, and the web that serves the
    site (the announcements link to pages that must be served)."""

    forem: FakeForem
    mastodon: FakeMastodon
    bluesky: FakeBluesky
    hashnode: FakeHashnode
    hook: WebhookReceiver
    web: ServedEverything

    @staticmethod
    def start(stack: ExitStack, clock: ManualClock) -> _Platforms:
        return _Platforms(
            forem=stack.enter_context(FakeForem(clock=clock.monotonic)),
            mastodon=stack.enter_context(FakeMastodon(clock=clock.monotonic)),
            bluesky=stack.enter_context(FakeBluesky(clock=clock.monotonic)),
            hashnode=stack.enter_context(FakeHashnode(clock=clock.monotonic)),
            hook=stack.enter_context(WebhookReceiver(HOOK_SECRET)),
            web=stack.enter_context(ServedEverything()),
        )

    @property
    def faults(self) -> dict[str, FakeForem | FakeMastodon | FakeBluesky | FakeHashnode]:
        return {"dev.to": self.forem, "Mastodon": self.mastodon, "Bluesky": self.bluesky,
                "Hashnode": self.hashnode}  # fmt: skip

    def targets(self, content: ContentSource, clock: Clock, lease: WorkLease) -> dict[str, Target]:
        links = PublicLinks(content, site="site", site_url=self.web.origin + "/")
        mastodon = MastodonSettings(instance=self.mastodon.instance)
        bluesky = BlueskySettings(handle=self.bluesky.handle, service=self.bluesky.service)
        hashnode = HashnodeSettings(
            publication_id=self.hashnode.publication_id, api_url=self.hashnode.api_url
        )
        return {
            "devto": DevtoTarget(
                "devto", DevtoSettings(api_url=self.forem.api_url), api_key=self.forem.api_key,
                clock=clock, lease=lease,
            ),
            "mastodon": MastodonTarget(
                "mastodon", mastodon, token=self.mastodon.token, clock=clock, links=links,
                lease=lease,
            ),
            "bluesky": BlueskyTarget(
                "bluesky", bluesky, password=self.bluesky.password, clock=clock, links=links
            ),
            "hashnode": HashnodeTarget(
                "hashnode", hashnode, token=self.hashnode.token, clock=clock,
                content_dir="content", links=links, lease=lease,
            ),
            "hook": WebhookTarget(
                "hook", WebhookSettings(url=self.hook.url), secret=HOOK_SECRET, clock=clock
            ),
        }  # fmt: skip

    def duplicates(self) -> dict[str, int]:
        """Articles posted more than once, by platform and what identifies the article there."""
        counts = {f"devto:{path}": n for path, n in self.forem.creates.items()}
        counts |= {f"mastodon:{url}": n for url, n in self.mastodon.creates.items()}
        counts |= {f"bluesky:{rkey}": n for rkey, n in self.bluesky.creates.items()}
        counts |= {f"hashnode:{path}": n for path, n in self.hashnode.created.items()}
        return {key: n for key, n in counts.items() if n > 1}

    def redelivered(self) -> dict[str, int]:
        """Webhook deliveries made more than once, by Idempotency-Key: at least once is what a
        webhook can promise (a run killed after the receiver answered delivers again), and the
        key lets the receiver keep one."""
        return {key: n for key, n in self.hook.posts.items() if n > 1}

    def shown(self, path: str, page: str) -> list[str]:
        """The platforms still showing the article at `path` (its site page at `page`)."""
        up = []
        if any(self.forem.path_of(p) == path and p["published"] for p in self.forem.posts.values()):
            up.append("devto")
        if self.mastodon.statuses_linking(page):
            up.append("mastodon")
        if record_key("bluesky", path) in self.bluesky.records:
            up.append("bluesky")
        mark = hashnode_marker(path)
        if any(mark in p["content"]["markdown"] for p in self.hashnode.posts.values()):
            up.append("hashnode")
        events = [d["document"] for d in self.hook.deliveries.values()]
        last = [event["event"] for event in events if event["path"] == path][-1:]
        if last == ["publish"]:
            up.append("hook")
        return up


class _World:
    def __init__(
        self,
        scenario: Scenario,
        root: Path,
        clock: ManualClock,
        platforms: _Platforms,
        github: FakeGitHub | None,
    ) -> None:
        self.scenario = scenario
        self.clock = clock
        self.rng = random.Random(scenario.settings.seed * 7919)
        self.repo = Repo(root / "blog")
        self.repo.commit("a blog with no articles yet", **{"README.md": "A blog.\n"})
        self.platforms = platforms
        self.forem = platforms.forem
        self.github = github
        self.config = Config(
            source="chaos",
            timings=Timings(
                lease=timedelta(minutes=10),
                grace=timedelta(minutes=5),
                backoff_initial=timedelta(seconds=30),
                backoff_max=timedelta(minutes=30),
            ),
            targets={name: TargetSpec(name, KINDS.get(name, name), {}) for name in TARGETS},
        )
        self.races = 0
        self.kills: Counter[str] = Counter()  # kills that struck, by where
        self.faults_met: Counter[str] = Counter()  # API faults a run ran into, by kind
        self.racing = False
        self.log: list[str] = []
        self.reports: dict[int, Report] = {}
        self.live_head: str | None = None
        self.commits: list[str] = []

    # -- the backend ------------------------------------------------------------------------

    def client(self) -> GitHubClient:
        assert self.github is not None
        return GitHubClient(
            token=self.github.token,
            api_url=self.github.api_url,
            graphql_url=self.github.graphql_url,
            clock=self.clock,
            wait_budget=600,
        )

    def store(self, client: GitHubClient | None) -> LedgerStore:
        if client is None:
            return LocalGitStore(self.repo.root, STATE_BRANCH)
        assert self.github is not None
        return GitHubStore(client, repository=self.github.full_name, branch=STATE_BRANCH)

    def _site_files(self, client: GitHubClient | None) -> SiteFiles:
        if client is None:
            return DirectorySiteFiles(self.repo.root / "_site")
        assert self.github is not None
        branch = GitHubBranch(client, repository=self.github.full_name, branch=PAGES_BRANCH)
        return BranchSiteFiles(branch, clock=self.clock, rng=random.Random(self.rng.random()))

    def _alerts(self, client: GitHubClient | None) -> AlertChannel:
        if client is None:
            return LocalDeadLetters(
                self.repo.root / ".steadypress/dead-letters",
                root=self.repo.root,
                stream=io.StringIO(),
            )
        assert self.github is not None
        return GitHubIssues(client, repository=self.github.full_name)

    def pipeline(self, run: Run) -> Pipeline:
        """A fresh process for `run`: its own client, caches and targets, as on a runner."""
        client = self.client() if self.github is not None else None
        site = build_site(
            "site",
            self._site_files(client),
            SiteSettings(),
            content=ContentSource(Git(self.repo.root), "content"),
            default_url="https://octo.github.io/blog/",
        )
        content = ContentSource(Git(self.repo.root), "content")
        clock = SkewedClock(self.clock, run.skew) if run.skew else self.clock
        lease = WorkLease(clock=clock, ttl=self.config.timings.lease)
        targets: dict[str, Target] = {
            "site": site,
            **self.platforms.targets(content, clock, lease),
        }
        stopping = threading.Event()
        if run.kill is Kill.SIGTERM:
            targets = {name: _Signalled(target, stopping) for name, target in targets.items()}
        if run.kill in (Kill.AFTER_CLAIM, Kill.AFTER_PUBLISH, Kill.MID_WRITE):
            targets = {
                name: _DyingBatch(target, run.kill, landing=_landing(run))
                if isinstance(target, BatchTarget)
                else _Dying(target, run.kill)
                for name, target in targets.items()
            }
        return Pipeline(
            config=self.config,
            store=_ChaosStore(self.store(client), self, run),
            content=ContentSource(Git(self.repo.root), "content"),
            targets=targets,
            alerts=self._alerts(client),
            holder=run.holder,
            lease=lease,
            clock=clock,
            rng=random.Random(self.rng.random()),
            log=self.log.append,
            stopping=stopping,
        )

    # -- faults -----------------------------------------------------------------------------

    def maybe_race(self, run: Run) -> None:
        """Sometimes another executor (live mode's role) writes first."""
        if self.racing or run.role == "rival" or self.rng.random() >= self.scenario.settings.race:
            return
        self.racing = True
        try:
            self.races += 1
            rival = Run(at=self.clock.seconds, role="rival", holder="live")
            drain(self.pipeline(rival), Report())
        finally:
            self.racing = False

    @contextmanager
    def api_fault(self, fault: str | None) -> Iterator[None]:
        """Inject `fault` for the length of a run; count it if the run met it."""
        injected = fault is not None and not (fault in GITHUB_ONLY and self.github is None)
        if injected:
            assert fault is not None
            self._inject(fault)
        try:
            yield
        finally:
            met = self.github.clear_faults() if self.github is not None else 0
            for platform, fake in self.platforms.faults.items():
                if fault is not None and fault.startswith(platform):
                    met += fake.drop_after_create == 0 and not fake.script
                fake.script.clear()
                fake.drop_after_create = 0
            if injected and met:
                self.faults_met[str(fault)] += 1

    def _inject(self, fault: str) -> None:
        state_write = "graphql CreateCommit"
        injections: dict[str, Callable[[], None]] = {
            "dev.to 500": lambda: self.forem.script.append((500, {})),
            "dev.to 429": lambda: self.forem.script.append((429, {"Retry-After": "30"})),
            "dev.to create answer lost": lambda: setattr(self.forem, "drop_after_create", 1),
            "Mastodon 429": lambda: self.platforms.mastodon.script.append((429, {})),
        }
        for platform, fake in self.platforms.faults.items():
            injections.setdefault(f"{platform} create answer lost", _lose_an_answer(fake))
        if self.github is not None:
            github = self.github
            injections |= {
                "state write 502": lambda: github.inject(
                    Fault(state_write, 502, branch=STATE_BRANCH)
                ),
                "state write 502 after the write": lambda: github.inject(
                    Fault(state_write, 502, apply_first=True, branch=STATE_BRANCH)
                ),
                "state write timeout after the write": lambda: github.inject(
                    Fault.lost_answer(state_write, branch=STATE_BRANCH)
                ),
                "state read 500": lambda: github.inject(
                    Fault("graphql LoadBranch", 500, branch=STATE_BRANCH)
                ),
                "secondary rate limit 429": lambda: github.inject(
                    Fault.secondary_rate_limit("graphql", retry_after=30)
                ),
                "primary rate limit 403": lambda: github.inject(
                    Fault.primary_rate_limit("graphql", reset_in=60)
                ),
                "pages write 502 after the write": lambda: github.inject(
                    Fault(state_write, 502, apply_first=True, branch=PAGES_BRANCH)
                ),
            }
        injections[fault]()

    # -- the story --------------------------------------------------------------------------

    def push(self, push: Push) -> str:
        version = len(self.commits)
        files = {
            path: f"---\ntitle: {self.scenario.titles[path]}\ntags: [chaos]\n---\n\n"
            f"Words of {path}, as of push {version}.\n"
            for path in (*push.paths, *push.edits)
        }
        for path in push.removals:
            (self.repo.root / path).unlink()
        head = self.repo.commit(f"push {version}", **files)
        self.commits.append(head)
        return head

    def execute(self, run: Run) -> None:
        pipeline = self.pipeline(run)
        report = Report()
        with self.api_fault(run.api_fault):
            try:
                if run.role == "push":
                    assert run.push is not None
                    before = self.commits[run.push - 1] if run.push > 0 else "0" * 40
                    drain(
                        pipeline,
                        report,
                        prepare=push_prepare(pipeline, before, self.commits[run.push]),
                    )
                    self.reports[run.push] = report
                elif run.role == "sweep":
                    sweep(pipeline, report, grace=self.config.timings.grace)
                else:
                    head = pipeline.content.head()
                    drain(
                        pipeline,
                        report,
                        prepare=reconcile(pipeline) if head != self.live_head else None,
                    )
                    self.live_head = head
            except Killed:
                self.kills[run.kill.value] += 1
                if run.role == "live":
                    self.live_head = None  # the next session is a new process
        if pipeline.stopping.is_set():
            self.kills[run.kill.value] += 1  # a stop that struck
            if run.role == "live":
                self.live_head = None

    def leave_stale_lease(self, holder: str) -> None:
        """A claim by an executor that died with it: up to three due items, any holder name."""
        run = Run(at=self.clock.seconds, role="stale", holder=holder)
        pipeline = self.pipeline(run)

        def take(ledger: Ledger) -> tuple[Ledger, None]:
            now = self.clock.now()
            keys = select(ledger, now=now, limit=3)
            token = f"stale-{self.rng.random()}"
            ledger, _, _ = claim(
                ledger, keys, holder=holder, token=token, now=now, lease_ttl=pipeline.lease_ttl
            )
            return ledger, None

        transact(pipeline.store, take, message=f"steadypress: claim ({holder})")


def _lose_an_answer(fake: Faults) -> Callable[[], None]:
    def inject() -> None:
        fake.drop_after_create = 1

    return inject


def _state_commits(world: _World) -> list[str]:
    git = world.github.repository.text if world.github is not None else world.repo.git
    return git("rev-list", "--reverse", STATE_BRANCH).split()


def _invalid_commits(world: _World) -> list[str]:
    root = world.github.repository.path if world.github is not None else world.repo.root
    return invalid_state_files(root, STATE_BRANCH)


def _still_up(world: _World, ledger: Ledger) -> list[str]:
    """Removed articles that a target still shows: a page in the site's manifest, a dev.to post
    still published, or a ledger record that is not a tombstone."""
    on_site = set(site_articles(_site_files(world, _INDEX_ARTICLES).values()))
    up = []
    for path in sorted(world.scenario.removed):
        records = [ledger.published.get(f"{target}:{path}") for target in TARGETS]
        page = f"{world.platforms.web.origin}/{path.removeprefix('content/').removesuffix('.md')}/"
        if (
            path in on_site
            or world.platforms.shown(path, page)
            or any(r and not r.unpublished for r in records)
        ):
            up.append(path)
    return up


def _site_files(world: _World, wanted: re.Pattern[str]) -> dict[str, bytes]:
    """The files of the site whose path `wanted` matches whole: in the local folder, or on
    the Pages branch."""
    if world.github is None:
        root = world.repo.root / "_site"
        names = [str(path.relative_to(root)) for path in root.rglob("*") if path.is_file()]
        return {name: (root / name).read_bytes() for name in names if wanted.fullmatch(name)}
    repository = world.github.repository
    head = repository.head_of(PAGES_BRANCH)
    names = repository.text("ls-tree", "-r", "--name-only", head).split() if head else []
    return {
        name: repository.git("show", f"{head}:{name}") for name in names if wanted.fullmatch(name)
    }


_INDEX_ARTICLES = re.compile(rf"{re.escape(INDEX_FOLDER)}/articles/.+\.json")
_LISTING = re.compile(r"archive/[0-9]{4}/[0-9]{2}/(p[0-9]+/)?index\.html|sitemap-.+\.xml")


def _unlisted(world: _World, ledger: Ledger) -> list[str]:
    """Articles the site's record says are up that the site does not show once each where a
    reader and a crawler find them: its month's pages and its sitemaps. A site write stopped
    midway must leave none behind (the ledger alone would not tell)."""
    texts = {name: data.decode() for name, data in _site_files(world, _LISTING).items()}
    months = "".join(text for name, text in texts.items() if name.startswith("archive/"))
    sitemaps = "".join(text for name, text in texts.items() if name.startswith("sitemap-"))
    unlisted = []
    for key, record in sorted(ledger.published.items()):
        target, _, path = key.partition(":")
        if target != "site" or record.unpublished or record.id is None:
            continue
        # Listed by the page's address under the site's base; in a sitemap by its whole URL.
        listed = months.count(f'/{record.id}/">')
        if listed != 1 or sitemaps.count(f"<loc>{record.url}</loc>") != 1:
            unlisted.append(path)
    return unlisted


def _alerts(world: _World, ledger: Ledger) -> Counter[str]:
    """Per dead item, the letters covering it: its alert number must name a letter that exists
    (one per item, however many items share it). An open letter no dead item names is counted
    under its own name: a stray, or a duplicate that was not retired."""
    if world.github is None:
        folder = world.repo.root / ".steadypress/dead-letters"
        letters = {
            int(path.stem): path.read_text().startswith("Status: open")
            for path in folder.glob("*.md")
        }
    else:
        # A duplicate opened in a race is closed as not planned; every other issue counts.
        letters = {
            int(issue["number"]): issue.get("state") == "open"
            for issue in world.github.tracker.issues
            if issue.get("state_reason") != "not_planned"
            and find_marker(str(issue.get("body") or ""))
        }
    counts: Counter[str] = Counter()
    for item in ledger.dead.values():
        if item.alert in letters:
            counts[item.key] += 1
    named = {item.alert for item in ledger.dead.values()}
    for number, is_open in letters.items():
        if is_open and number not in named:
            counts[f"stray letter #{number}"] += 1
    return counts


def _measure(world: _World, github_requests: int) -> Outcome:
    scenario = world.scenario
    store = world.store(world.client() if world.github is not None else None)
    ledger = store.load().ledger
    head = world.repo.head()
    lost: list[str] = []
    undelivered: list[str] = []
    latency: dict[str, list[float]] = {route: [] for route in ROUTES}
    routes = scenario.routes(github=world.github is not None)
    edited = {path for push in scenario.pushes for path in push.edits}
    for push in scenario.pushes:
        for path in push.paths:
            if path in scenario.removed:
                continue
            blob = world.repo.blob(path, head)
            # dev.to refuses a poison article for good; every other platform takes it.
            wanted = tuple(t for t in TARGETS if t != "devto" or path not in scenario.poison)
            records = [ledger.published.get(f"{target}:{path}") for target in wanted]
            if any(record is None or record.blob != blob for record in records):
                lost.append(path)
                continue
            if f"hook:{path}:{blob}" not in world.platforms.hook.deliveries:
                undelivered.append(path)  # recorded, yet the receiver never had it
            if path not in edited:
                done = max(parse_time(record.published_at) for record in records if record)
                latency[routes[path]].append((done - world.clock.start).total_seconds() - push.at)
    duplicates = world.platforms.duplicates()
    commits = _state_commits(world)
    return Outcome(
        backend="github" if world.github is not None else "local",
        articles=len(scenario.pushed_at),
        runs=len(scenario.runs),
        kills=world.kills,
        api_faults=world.faults_met,
        races=world.races,
        lost=lost,
        still_up=_still_up(world, ledger),
        unlisted=_unlisted(world, ledger),
        duplicate_posts=duplicates,
        redelivered=world.platforms.redelivered(),
        undelivered=undelivered,
        dead=set(ledger.dead),
        alerts=_alerts(world, ledger),
        pending_at_end=len(ledger.pending),
        leases_at_end=sum(item.lease is not None for item in ledger.pending.values()),
        state_commits=len(commits),
        invalid_state_commits=_invalid_commits(world),
        latency=latency,
        github_requests=github_requests,
        seconds_simulated=world.clock.seconds,
        log=world.log,
    )


def run_scenario(scenario: Scenario, root: Path, *, backend: str) -> Outcome:
    """Play `scenario` on `backend` ("local" or "github") in folder `root`."""
    with ExitStack() as stack:
        clock = ManualClock(datetime.now(UTC).replace(microsecond=0))
        platforms = _Platforms.start(stack, clock)
        github = stack.enter_context(FakeGitHub()) if backend == "github" else None
        world = _World(scenario, root, clock, platforms, github)
        forem = platforms.forem
        forem.failing_titles = {scenario.titles[path] for path in scenario.poison}
        previous_key = os.environ.get("DEVTO_API_KEY")
        os.environ["DEVTO_API_KEY"] = forem.api_key
        try:
            _play(world)
            requests = sum(github.requests.values()) if github is not None else 0
            return _measure(world, requests)
        finally:
            if previous_key is None:
                os.environ.pop("DEVTO_API_KEY", None)
            else:
                os.environ["DEVTO_API_KEY"] = previous_key


def _play(world: _World) -> None:
    scenario = world.scenario
    events: list[tuple[float, int, Any]] = []
    events += [(push.at, 0, push) for push in scenario.pushes]
    events += [(lease.at, 1, lease) for lease in scenario.stale_leases]
    events += [(run.at, 2, run) for run in scenario.runs]
    events.sort(key=lambda event: (event[0], event[1]))
    for at, kind, event in events:
        world.clock.advance_to(at)
        if kind == 0:
            world.push(event)
        elif kind == 1:
            world.leave_stale_lease(event.holder)
        else:
            world.execute(event)
    world.clock.advance_to(scenario.end)
