"""A Jekyll blog kept on Jekyll (`generator: jekyll`): the blog `jekyll new` makes, with its
default theme minima and jekyll-feed (Debian's `jekyll`, `jekyll-theme-minima` and
`ruby-jekyll-feed`, which .ci/run installs), published through steadypress as Jekyll builds it,
byte for byte, at Jekyll's addresses; a post Jekyll fails on is a dead letter alone."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
import yaml

from tests.fakes.github import FakeGitHub
from tests.helpers import Repo, lint_workflows, run_cli
from tests.schema import VALIDATORS

pytestmark = pytest.mark.skipif(
    shutil.which("jekyll") is None, reason="Debian's jekyll is not installed (.ci/run installs it)"
)
CONFIG = """\
content_dir: _posts
targets:
  site:
    kind: site
    generator: jekyll
"""
POST = "---\nlayout: post\ntitle: {title}\ndate: {day} 10:00:00 +0000\n---\n\n{body}\n"
# Beside Jekyll's output: GitHub Pages' switch that turns Jekyll off, steadypress's record of
# what made the output.
STEADYPRESS_FILES = {".nojekyll", ".steadypress/generated.json"}


@pytest.fixture
def blog(tmp_path: Path) -> Repo:
    """`jekyll new` (minima, jekyll-feed), its welcome post dated for good, and two posts of
    our own: one named `.md`, one `.markdown`, as Jekyll blogs have both."""
    subprocess.run(["jekyll", "new", "--skip-bundle", str(tmp_path / "blog")], check=True,
                   capture_output=True)  # fmt: skip
    repo = Repo(tmp_path / "blog")
    for welcome in (repo.root / "_posts").iterdir():
        welcome.rename(welcome.with_name("2020-02-02-welcome-to-jekyll.markdown"))
    repo.write("steadypress.yml", CONFIG)
    repo.write(".gitignore", "_site/\n.steadypress/\n.jekyll-cache/\n")  # as a blog keeps
    repo.write("_posts/2024-01-05-hello-world.md", post("Hello world", "2024-01-05", "Hi."))
    repo.write("_posts/2024-02-01-second.markdown", post("Second", "2024-02-01", "Again."))
    repo.commit("a Jekyll blog")
    return repo


def post(title: str, day: str, body: str) -> str:
    return POST.format(title=title, day=day, body=body)


def files_in(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


def jekyll_build(repo: Repo) -> dict[str, bytes]:
    """Jekyll's own build of the committed tree, as at the clock steadypress built at, from a
    folder as deep as steadypress's (minima's source map names the theme's files relative to
    the project folder)."""
    clock = json.loads((repo.root / "_site/.steadypress/generated.json").read_text())["clock"]
    work = Path(tempfile.mkdtemp(prefix="steadypress-build-"))
    try:
        project, output = work / "project", work / "output"
        project.mkdir()
        archive = subprocess.run(["git", "-C", str(repo.root), "archive", "HEAD"],
                                 check=True, capture_output=True).stdout  # fmt: skip
        subprocess.run(["tar", "-x", "-C", str(project)], input=archive, check=True)
        time = clock.replace("T", " ").replace("+00:00", " +0000")
        (work / "time.yml").write_text(f'time: "{time}"\n')
        subprocess.run(
            ["jekyll", "build", "--source", str(project), "--destination", str(output),
             "--config", f"{project / '_config.yml'},{work / 'time.yml'}"],
            check=True, capture_output=True, env={**os.environ, "JEKYLL_ENV": "production"},
        )  # fmt: skip
        return files_in(output)
    finally:
        shutil.rmtree(work)


def test_a_jekyll_blog_published_through_steadypress_is_jekylls_own_build_byte_for_byte(
    blog: Repo,
) -> None:
    first = run_cli(blog, "run")
    assert first.code == 0, first.err
    assert "3 published, 0 deferred, 0 dead-lettered" in first.out, first.out + first.err
    own = jekyll_build(blog)
    site = files_in(blog.root / "_site")
    assert set(site) - set(own) == STEADYPRESS_FILES
    assert {path: site[path] for path in own} == own
    # Jekyll's addresses (its default permalink: the date, then the name, with .html).
    published = blog.ledger().published
    assert published["site:_posts/2024-01-05-hello-world.md"].url == (
        "http://localhost:8000/2024/01/05/hello-world.html"
    )
    assert published["site:_posts/2024-02-01-second.markdown"].url == (
        "http://localhost:8000/2024/02/01/second.html"
    )
    VALIDATORS["generated-site"].validate(json.loads(site[".steadypress/generated.json"]))
    again = run_cli(blog, "run")
    assert "0 published" in again.out and again.code == 0


def test_a_post_jekyll_fails_on_is_a_dead_letter_alone(blog: Repo) -> None:
    """A Liquid tag Jekyll does not know stops its build, naming the file: that post is left
    out and fails alone. A front matter Jekyll cannot read it builds past, as a page of the
    wrong name: steadypress refuses that post, and leaves it out of the build."""
    assert run_cli(blog, "run").code == 0
    blog.commit(
        "three posts, two broken",
        **{
            "_posts/2024-03-01-liquid.md": post("Liquid", "2024-03-01", "A {% nope %} tag."),
            "_posts/2024-03-02-yaml.md": '---\ntitle: "unclosed\n---\n\nText.\n',
            "_posts/2024-03-03-fine.md": post("Fine", "2024-03-03", "Fine."),
        },
    )
    result = run_cli(blog, "run")
    assert result.code == 0, result.err
    assert "1 published, 0 deferred, 2 dead-lettered" in result.out, result.out + result.err
    assert "Unknown tag 'nope' in _posts/2024-03-01-liquid.md" in result.err
    site = files_in(blog.root / "_site")
    assert "2024/03/03/fine.html" in site
    assert not any("liquid" in path or "yaml" in path for path in site)

    blog.commit("fixed", **{"_posts/2024-03-01-liquid.md": post("Liquid", "2024-03-01", "Ok.")})
    fixed = run_cli(blog, "run")
    assert "1 published, 0 deferred, 0 dead-lettered" in fixed.out, fixed.out + fixed.err


def test_init_in_a_jekyll_blog_keeps_jekyll_and_installs_its_gemfile(tmp_path: Path) -> None:
    subprocess.run(["jekyll", "new", "--skip-bundle", str(tmp_path / "blog")], check=True,
                   capture_output=True)  # fmt: skip
    repo = Repo(tmp_path / "blog")
    repo.commit("a Jekyll blog")
    pinned = "acme/steadypress@0123456789abcdef0123456789abcdef01234567"
    result = run_cli(repo, "init", "--action", pinned)
    assert result.code == 0, result.err
    assert "This is a Jekyll blog" in result.out
    config = yaml.safe_load((repo.root / "steadypress.yml").read_text())
    assert config["content_dir"] == "_posts"
    assert config["targets"]["site"]["generator"] == "jekyll"
    folder = repo.root / ".github/workflows"
    for name in ("publish", "sweep", "retry", "check"):
        steps = [
            step
            for job in yaml.safe_load((folder / f"steadypress-{name}.yml").read_text())[
                "jobs"
            ].values()
            for step in job["steps"]
        ]
        uses = [step.get("uses", "").split("@")[0] for step in steps]
        # Ruby and the Gemfile's gems come after the checkout, before steadypress builds.
        assert uses.index("ruby/setup-ruby") == uses.index("actions/checkout") + 1, uses
    assert not lint_workflows(folder.glob("*.yml"))


def test_on_github_the_pages_branch_is_jekylls_build_and_a_push_commits_what_changed(
    blog: Repo, github: FakeGitHub
) -> None:
    """The GitHub backend: the Pages branch holds Jekyll's build byte for byte (at the clock
    recorded), and a pushed post costs the four requests of a push, its Pages commit only the
    files that changed."""
    first = run_cli(blog, "drain", "--push", "0" * 40, blog.head(), "--backend", "github")
    assert first.code == 0, first.err
    pages = branch_files(github)
    (blog.root / "_site/.steadypress").mkdir(parents=True)
    (blog.root / "_site/.steadypress/generated.json").write_bytes(pages[DEPLOYED])
    own = jekyll_build(blog)
    assert {path: pages[path] for path in own} == own
    assert set(pages) - set(own) == {".nojekyll", DEPLOYED}

    before = blog.head()
    blog.commit("a post", **{"_posts/2024-03-05-new.md": post("New", "2024-03-05", "New.")})
    requests = dict(github.requests_by_branch)
    pushed = run_cli(blog, "drain", "--push", before, blog.head(), "--backend", "github")
    assert pushed.code == 0 and "1 published" in pushed.out, pushed.out + pushed.err
    asked = {b: n - requests.get(b, 0) for b, n in github.requests_by_branch.items()}
    assert asked == {"steadypress-state": 3, "gh-pages": 1}
    changed = github.repository.text("diff", "--name-only", "gh-pages~1", "gh-pages").split()
    assert "2024/03/05/new.html" in changed and len(changed) < len(pages) / 2, changed


DEPLOYED = ".steadypress/generated.json"


def branch_files(github: FakeGitHub) -> dict[str, bytes]:
    names = github.repository.text("ls-tree", "-r", "--name-only", "gh-pages").split("\n")
    return {name: github.repository.git("show", f"gh-pages:{name}") for name in names if name}
