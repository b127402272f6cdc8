"""The built site in a real browser: Debian's headless Chromium, driven by Playwright (which
never downloads a browser of its own here), opening the sample blog from a loopback server.

Skipped only where /usr/bin/chromium is not installed; `.ci/run` installs it. Screenshots go
to $STEADYPRESS_SCREENSHOTS, else to the test's temporary folder; the path is printed."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import ConsoleMessage, Response, sync_playwright

from tests.fakes.loopback import serving_folder
from tests.helpers import CHROMIUM, NO_CHROMIUM, Repo, run_cli

# The sample blog the tests publish: their own copy, never the repository's content/ (yours).
SAMPLES = Path(__file__).resolve().parent / "fixtures" / "blog"
# As root in a closed network: no sandbox, and no background calls to Google's services.
ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=NO_CHROMIUM),
]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The samples published by `steadypress run`, served at the root of a loopback server."""
    repo = Repo(tmp_path_factory.mktemp("blog"))
    shutil.copytree(SAMPLES, repo.root / "content")
    repo.commit("samples")
    result = run_cli(repo, "run")
    assert result.code == 0, result.err
    with serving_folder(repo.root / "_site") as url:
        yield url


@pytest.fixture(scope="module")
def screenshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = Path(os.environ.get("STEADYPRESS_SCREENSHOTS") or tmp_path_factory.mktemp("shots"))
    folder.mkdir(parents=True, exist_ok=True)
    print(f"\nscreenshots: {folder}")
    return folder


def _failed_responses(failures: list[str]) -> Callable[[Response], None]:
    def note(response: Response) -> None:
        if response.status >= 400:
            failures.append(response.url)

    return note


def _console_errors(failures: list[str]) -> Callable[[ConsoleMessage], None]:
    def note(message: ConsoleMessage) -> None:
        if message.type == "error":
            failures.append(message.text)

    return note


def _luminance(css_color: str) -> float:
    red, green, blue = (int(part) for part in css_color.removeprefix("rgb(").rstrip(")").split(","))
    return (0.2126 * red + 0.7152 * green + 0.0722 * blue) / 255


def test_the_site_reads_well_in_light_and_dark(served: str, screenshots: Path) -> None:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            for scheme in ("light", "dark"):
                page = browser.new_page(color_scheme=scheme, viewport={"width": 420, "height": 900})
                failures: list[str] = []
                page.on("response", _failed_responses(failures))
                page.on("console", _console_errors(failures))

                page.goto(served)
                assert page.title() == "steadypress"
                links = page.locator("ol.articles li a")
                assert links.count() == 4
                assert links.first.inner_text() == "Images, code and tables", "newest first"
                page.screenshot(path=screenshots / f"index-{scheme}.png", full_page=True)
                background = page.evaluate(
                    "getComputedStyle(document.documentElement).backgroundColor"
                )
                brightness = _luminance(background)
                assert brightness < 0.2 if scheme == "dark" else brightness > 0.8, background

                links.first.click()
                page.wait_for_load_state()
                assert page.locator("article h1").inner_text() == "Images, code and tables"
                sizes = page.eval_on_selector_all(
                    "article img", "imgs => imgs.map(i => i.complete && i.naturalWidth)"
                )
                assert sizes == [480, 480], "the cover and the diagram loaded"
                keyword = page.locator("pre code .k").first
                assert keyword.inner_text() == "def"
                assert page.evaluate("document.documentElement.scrollWidth") <= 420, (
                    "nothing wider than a phone's screen"
                )
                page.screenshot(path=screenshots / f"article-{scheme}.png", full_page=True)

                page.locator("a.tag", has_text="#guide").click()
                page.wait_for_load_state()
                assert page.locator("h1").inner_text() == "Tagged #guide"
                assert page.locator("ol.articles li").count() == 3
                page.screenshot(path=screenshots / f"tag-{scheme}.png", full_page=True)
                assert failures == [], failures
                page.close()
        finally:
            browser.close()
