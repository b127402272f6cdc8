"""Chaos with real processes on the local backend, beside the simulated executors of
tests/chaos/: four drains at once, whose claims and site writes interleave batch by batch,
two of them with clocks skewed within the bound docs/how-it-works.md states (libfaketime:
their UTC time off by 15 s either way), one stopped by SIGTERM midway; then the sweeps a
schedule would run. Counted at each fake before its own deduplication: every article
once on every target, and every page in the sitemaps and the month's listing."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.fakes.devto import FakeForem
from tests.fakes.webhook import WebhookReceiver
from tests.helpers import Repo, article, cli_process, publications
from tests.test_sitemaps import check_sitemaps, locations

pytestmark = [pytest.mark.chaos, pytest.mark.slow]

FAKETIME = shutil.which("faketime")
ARTICLES = 30
SECRET = "chaos-hook-secret"
# Leases of 30 s are renewed every 10 s: clocks may disagree by 20 s
# (docs/how-it-works.md, "Clocks").
SKEWS = ["+15s", "-15s", None, None]


@pytest.fixture
def forem() -> Iterator[FakeForem]:
    """dev.to's limits at a fifth of their window: ten creates per 0.2 s."""
    with FakeForem(window=0.2) as fake:
        yield fake


def _when(condition: Callable[[], bool], *, seconds: float = 120.0) -> None:
    ends = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < ends, "timed out waiting"
        time.sleep(0.02)


def _drain(repo: Repo, skew: str | None, env: dict[str, str]) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "steadypress", "drain", "--repo", str(repo.root)]
    if skew is not None:
        assert FAKETIME is not None
        command = [FAKETIME, "-f", skew, *command]
    return subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # libfaketime moves the monotonic clock by the same offset (its sleeps fail with it
        # left alone): no interval steadypress measures changes.
        env={**os.environ, **env},
    )


@pytest.mark.skipif(
    FAKETIME is None, reason="libfaketime is not installed (apt-get install faketime)"
)
def test_interleaved_skewed_and_stopped_drains_publish_every_article_once_everywhere(
    repo: Repo, forem: FakeForem
) -> None:
    env = {"DEVTO_API_KEY": forem.api_key, "WEBHOOK_SECRET": SECRET}
    with WebhookReceiver(SECRET) as hook:
        files = {f"content/p{n:02d}.md": article(f"P{n}", body=f"Body {n}. " * 40)
                 for n in range(ARTICLES)}  # fmt: skip
        config = (
            "timings: {lease: 30s, grace: 0s, backoff_initial: 0s, backoff_max: 0s}\n"
            "targets:\n  site: {kind: site}\n"
            f"  devto: {{kind: devto, api_url: '{forem.api_url}', window: 1s}}\n"
            f"  hook: {{kind: webhook, url: '{hook.url}', secret_env: WEBHOOK_SECRET}}\n"
        )
        repo.commit(**files, **{"steadypress.yml": config})
        assert cli_process(repo, "enqueue", "--push", "0" * 40, "HEAD", env=env).code == 0
        hook.delay = 0.05  # deliveries take a moment: the drains overlap
        drains = [_drain(repo, skew, env) for skew in SKEWS]
        _when(lambda: hook.requests >= ARTICLES // 3)
        drains[3].send_signal(signal.SIGTERM)
        outputs = [(*drain.communicate(timeout=300), drain.returncode) for drain in drains]
        assert all("Traceback" not in err for _out, err, _code in outputs), outputs
        # 0, or 1 where dev.to's limits deferred some; 143 for the one stopped
        assert {code for _out, _err, code in outputs} <= {0, 1, 128 + signal.SIGTERM}, outputs
        hook.delay = 0.0
        # What the stopped drain gave back, and what dev.to's limits deferred: due at once, or
        # by the clock of the drain that deferred it, up to 15 s ahead (a generous bound).
        ends = time.monotonic() + 90
        while repo.ledger().pending and time.monotonic() < ends:
            outputs.append(_sweep(repo, env))
            time.sleep(0.5)
    ledger = repo.ledger()
    assert not ledger.pending and not ledger.dead, outputs[-1]
    assert len(ledger.published) == 3 * ARTICLES
    paths = sorted(files)
    assert forem.creates == Counter(paths), "each article created once on dev.to"
    assert sorted(hook.posts.values()) == [1] * ARTICLES, "each article delivered once"
    site = publications([(out, err) for out, err, *_code in outputs])
    assert {key: n for key, n in site.items() if key.startswith("site:")} == {
        f"site:{path}": 1 for path in paths
    }
    check_sitemaps(repo.root / "_site", ARTICLES, url="http://localhost:8000/")
    months = "".join(
        page.read_text() for page in (repo.root / "_site").glob("archive/*/*/index.html")
    )
    listed = set(re.findall(r'href="/(p\d\d)/"', months))
    assert listed == {f"p{n:02d}" for n in range(ARTICLES)}, "every article in its month"


def _sweep(repo: Repo, env: dict[str, str]) -> tuple[str, str, int]:
    result = cli_process(repo, "sweep", env=env)
    assert result.code in (0, 1), result.err  # 1: dev.to deferred some again
    return result.out, result.err, result.code


@pytest.mark.skipif(
    FAKETIME is None, reason="libfaketime is not installed (apt-get install faketime)"
)
def test_site_writes_of_drains_interleaved_batch_by_batch_leave_every_page_listed(
    tmp_path: Path,
) -> None:
    """200 articles of one month, the site alone: the four drains' batches are the site's
    writes, interleaved, each but a drain's last leaving the sitemaps behind for it; every
    page ends in the sitemaps and its month's listing, each article published once. On a
    loaded machine one drain may finish before the others start, which proves nothing: the
    story is told again, up to three times, until two drains wrote the site."""
    count = 200
    files = {f"content/q{n:03d}.md": article(f"Q{n}") for n in range(count)}
    for attempt in range(3):
        repo = Repo(tmp_path / f"blog-{attempt}")
        outputs = _drains_racing(repo, files)
        if len([err for _out, err, _code in outputs if "published site:" in err]) >= 2:
            break
    else:
        pytest.fail("in three stories the drains' site writes never interleaved")
    ends = time.monotonic() + 90  # what the stopped drain gave back is due at once
    while repo.ledger().pending and time.monotonic() < ends:
        outputs.append(_sweep(repo, {}))
    published = publications([(out, err) for out, err, *_code in outputs])
    assert published == Counter({f"site:{path}": 1 for path in files})
    # Every article's page once in the sitemaps. (A crowded month's older parts, archive/
    # YYYY/MM/pN/, are in none, a run alone or not: their articles are listed all the same.)
    site = repo.root / "_site"
    in_sitemaps = [
        loc for sitemap in site.glob("sitemap-*.xml") for loc in locations(sitemap.read_bytes())
    ]
    assert len(in_sitemaps) == len(set(in_sitemaps))
    assert {f"http://localhost:8000/q{n:03d}/" for n in range(count)} <= set(in_sitemaps)
    months = site.glob("archive/*/*/**/index.html")
    in_months = set(re.findall(r'href="/(q\d{3})/"', "".join(p.read_text() for p in months)))
    assert in_months == {f"q{n:03d}" for n in range(count)}, "every article in its month"


def _drains_racing(repo: Repo, files: dict[str, str]) -> list[tuple[str, str, int]]:
    """Four drains of the articles `files`, the last stopped by SIGTERM once the site has a
    page: what each printed, and how it ended."""
    timings = "timings: {lease: 30s, grace: 0s, backoff_initial: 0s, backoff_max: 0s}\n"
    repo.commit(**files, **{"steadypress.yml": timings + "targets:\n  site: {kind: site}\n"})
    assert cli_process(repo, "enqueue", "--push", "0" * 40, "HEAD").code == 0
    drains = [_drain(repo, skew, {}) for skew in SKEWS]
    _when(lambda: "published site:" in _site_log(repo))
    drains[3].send_signal(signal.SIGTERM)
    outputs = [(*drain.communicate(timeout=300), drain.returncode) for drain in drains]
    assert {code for _out, _err, code in outputs} <= {0, 128 + signal.SIGTERM}, outputs
    return outputs


def _site_log(repo: Repo) -> str:
    """What the drains have published so far, as the index under _site/ names it (its files
    of articles, or, in a batch before a drain's last, an unfiled file)."""
    index = repo.root / "_site/.steadypress"
    folders = [index / "articles", index / "unfiled"]
    return "published site:" if any(any(f.rglob("*.json")) for f in folders) else ""
