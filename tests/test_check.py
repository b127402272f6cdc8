"""`steadypress check`: every problem publishing would meet, named by file and line, found
before merging, with nothing written."""

from __future__ import annotations

import pickle
from typing import Any

import pytest

from steadypress import articles, content, renderpool
from steadypress.errors import ArticleError, TemplateFailed
from tests.helpers import Repo, article, run_cli


def test_each_problem_is_named_with_its_file_and_line_and_nothing_is_written(repo: Repo) -> None:
    repo.commit(
        **{
            "content/good.md": article("Good"),
            "content/yaml.md": "---\ntitle: Y\ntags: [a, b\n---\nText.\n",
            "content/image.md": "---\ntitle: I\n---\n\nIntro.\n\n![diagram](images/gone.png)\n",
            "content/same.md": article("Same", slug="good"),
        }
    )
    result = run_cli(repo, "check")
    assert result.code == 1
    lines = result.out.splitlines()
    assert any(
        line.startswith("content/yaml.md:3: front matter is not valid YAML") for line in lines
    )
    assert "content/image.md:7: image 'images/gone.png' not found" in result.out
    assert "content/same.md:3: URL /good/ is also the URL of content/good.md" in result.out
    assert not any(line.startswith("content/good.md:") for line in lines if "same.md" not in line)
    assert "4 article(s), the whole site built, 4 problem(s)" in result.out
    assert repo.state_head() is None and not (repo.root / "_site").exists()


def test_a_clean_blog_passes(repo: Repo) -> None:
    repo.commit(**{"content/a.md": article("A"), "content/b.md": article("B", tags="[x]")})
    result = run_cli(repo, "check")
    assert result.code == 0 and "2 article(s), the whole site built, 0 problem(s)" in result.out


def test_worktree_checks_what_is_not_committed_yet(repo: Repo) -> None:
    """--worktree: a new file, uncommitted; the index and HEAD stay as they were."""
    head = repo.commit(**{"content/a.md": article("A")})
    repo.write("content/draft.md", "---\ntitle: D\ntargets: [sitee]\n---\n")
    assert run_cli(repo, "check", "content/draft.md").code == 2, "not committed: bad usage"
    result = run_cli(repo, "check", "--worktree", "content/draft.md")
    assert result.code == 1
    assert "content/draft.md:3: front matter 'targets' names 'sitee'" in result.out
    assert repo.head() == head and repo.git("status", "--porcelain") == "?? content/draft.md"


def test_base_limits_the_check_to_what_changed(repo: Repo) -> None:
    base = repo.commit(**{"content/old.md": "not an article"})
    repo.commit(**{"content/new.md": article("New")})
    result = run_cli(repo, "check", "--base", base)
    assert result.code == 0 and "1 article(s), 0 problem(s)" in result.out


THEMED = {"steadypress.yml": "targets:\n  site: {kind: site, theme: theme}\n"}


def test_a_theme_fault_is_named_once_at_its_template_and_line(repo: Repo) -> None:
    """A misspelt variable in the article template: one problem, at the template's line, not
    one per article."""
    template = "<html><body>\n<h1>{{ article.title }}</h1>\n{{ artcle.html }}\n</body></html>\n"
    articles = {"content/a.md": article("A"), "content/b.md": article("B")}
    repo.commit(**THEMED, **articles, **{"theme/article.html": template})
    result = run_cli(repo, "check")
    assert result.code == 1
    problems = [line for line in result.out.splitlines() if line.startswith("theme/")]
    assert problems == ["theme/article.html:3: 'artcle' is undefined"], result.out
    assert "2 article(s), the whole site built, 1 problem(s)" in result.out


def test_a_pull_request_that_only_edits_the_theme_builds_the_whole_site(repo: Repo) -> None:
    """The listings are built only when the whole site is: a fault in the front page's
    template, pushed alone, is found against the base (no article changed), with the template
    it extends named where the fault is; a change to nothing a page shows builds nothing, and
    one to steadypress.yml builds it again."""
    base = repo.commit(**THEMED, **{"content/a.md": article("A")})
    broken = repo.commit(
        **{"theme/index.html": "{% extends 'base.html' %}\n{% block main %}{% endblock %}\n",
           "theme/base.html": "<html>\n\n{{ site.missing.field }}\n</html>\n"}
    )  # fmt: skip
    result = run_cli(repo, "check", "--base", base)
    assert result.code == 1
    assert "theme/base.html:3: 'dict object' has no attribute 'missing' (rendering" in result.out
    assert "0 article(s), the whole site built, 1 problem(s)" in result.out
    readme = repo.commit(**{"README.md": "A blog."})
    assert "0 article(s), 0 problem(s)" in run_cli(repo, "check", "--base", broken).out
    repo.commit(**{"steadypress.yml": THEMED["steadypress.yml"] + "    # a comment\n"})
    result = run_cli(repo, "check", "--base", readme)
    assert "0 article(s), the whole site built, 1 problem(s)" in result.out, "a new configuration"


def test_a_theme_syntax_error_and_a_missing_template_name_their_file(repo: Repo) -> None:
    repo.commit(**THEMED, **{"content/a.md": article("A"), "theme/style.css": "a {\n{% if %}\n"})
    result = run_cli(repo, "check")
    assert result.code == 1 and "theme/style.css:2: Expected an expression" in result.out
    repo.commit(**{"theme/style.css": "a {}\n", "theme/tag.html": "{% include 'gone.html' %}\n"})
    result = run_cli(repo, "check")
    assert "theme/tag.html:1: no template 'gone.html'" not in result.out, "no tag: no tag page"
    repo.commit(**{"content/a.md": article("A", tags="[x]")})
    result = run_cli(repo, "check")
    assert result.code == 1 and "theme/tag.html:1: no template 'gone.html'" in result.out


def test_a_broken_theme_checked_from_the_worktree_before_it_is_committed(repo: Repo) -> None:
    head = repo.commit(**THEMED, **{"content/a.md": article("A")})
    repo.write("theme/404.html", "{{ nothing }}\n")
    assert run_cli(repo, "check").code == 0, "committed, the theme is the shipped one"
    result = run_cli(repo, "check", "--worktree")
    assert result.code == 1 and "theme/404.html:1: 'nothing' is undefined" in result.out
    assert repo.head() == head


def test_a_fault_met_by_the_render_workers_is_named_once(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole site's pages render on every core: the fault each worker meets comes back
    whole (pickled), one problem at the template's line."""
    monkeypatch.setattr(renderpool, "POOL_FROM", 2)
    base = repo.commit(**THEMED, **{f"content/a{n}.md": article(f"A{n}") for n in range(4)})
    page = "{% extends 'base.html' %}\n{% block main %}\n{{ article.nope }}\n{% endblock %}\n"
    repo.commit(**{"theme/article.html": page})
    result = run_cli(repo, "check", "--base", base)
    assert result.code == 1
    assert result.out.splitlines()[0].startswith("theme/article.html:3: ")
    assert "0 article(s), the whole site built, 1 problem(s)" in result.out
    fault = TemplateFailed("theme template t.html, line 2: x", file="t.html", line=2,
                           depends_on=("theme",))  # fmt: skip
    back = pickle.loads(pickle.dumps(fault))  # noqa: S301 - what this process made
    assert (type(back), str(back), back.file, back.line, back.depends_on) == (
        TemplateFailed,
        str(fault),
        "t.html",
        2,
        ("theme",),
    )


def test_a_theme_template_that_is_not_text_is_named_at_its_line(repo: Repo) -> None:
    """A template whose bytes are not UTF-8: a problem at the line of the first bad byte, not a
    crash; a run meets it as a dead letter naming the file."""
    repo.commit(**THEMED, **{"content/a.md": article("A")})
    repo.write("theme/index.html", b"<html>\n\xff\xfe\n</html>\n")
    repo.commit()
    result = run_cli(repo, "check")
    assert result.code == 1 and "theme/index.html:2: not UTF-8 text" in result.out
    run = run_cli(repo, "run")
    assert "1 dead-lettered" in run.out and "theme template theme/index.html, line 2" in run.err


def test_a_broken_configuration_is_a_problem_on_its_line(repo: Repo) -> None:
    """A pull request's steadypress.yml with a misspelt key, a wrong value, or broken YAML: a
    problem on the line that sets it (an annotation there on GitHub), exit 1 as for an article."""
    repo.commit(**{"content/a.md": article("A")})
    cases = {
        "targets:\n  site:\n    kind: site\n    titl: A\n": (4, "unknown key 'targets.site.titl'"),
        "max_attempts: 5\ntargets:\n  site: {kind: site, theme: [x]}\n": (3, "targets.site.theme"),
        "targets:\n  site: {kind: site\n": (2, "not valid YAML"),  # where the mapping opens
    }  # fmt: skip
    for text, (line, message) in cases.items():
        repo.commit(**{"steadypress.yml": text})
        result = run_cli(repo, "check")
        assert result.code == 1, result
        assert result.out.startswith(f"steadypress.yml:{line}: {message}"), result.out
        assert "0 article(s), 1 problem(s)" in result.out
    repo.write("other.yml", "targets: []\n")
    assert run_cli(repo, "check", "--config", "other.yml").code == 2, "a file named: bad usage"


def test_checking_one_article_parses_only_the_others_that_may_share_its_url(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The others' URLs are their paths' unless their front matter may say otherwise (`slug`,
    `permalink`, `draft`, or a key spelled with an escape): only those are parsed, and those
    whose path's URL is the checked article's. Whichever way, a clash is found as a parse of
    every article finds it: a draft, or an article that does not parse, takes no URL."""
    plain = {f"content/p{n}.md": article(f"P{n}") for n in range(40)}
    repo.commit(**plain, **{
        "content/good.md": article("Good"),
        "content/Good.md": article("Good, the same path but for a capital"),
        "content/GOOD.md": "---\ntitle: [not closed\n---\nIt does not parse: on no URL.\n",
        "content/escaped.md": '---\ntitle: E\n"sl\\u0075g": good\n---\nText.\n',
        "content/drafted.md": article("D", slug="good", draft="true"),
        "content/moved.md": article("M", slug="elsewhere"),
    })  # fmt: skip
    parsed: list[str] = []

    def counted(path: str, blob: str, data: bytes, **options: Any) -> articles.Article:
        parsed.append(path)
        return articles.parse_article(path, blob, data, **options)

    # As the content's reader calls it: the name it imported.
    monkeypatch.setattr(content, "parse_article", counted)
    result = run_cli(repo, "check", "content/good.md")
    assert result.code == 1
    clashes = [line for line in result.out.splitlines() if "is also the URL of" in line]
    assert clashes == [
        "content/good.md:1: URL /good/ is also the URL of content/Good.md (set `slug:` on one "
        "of them)",
        "content/good.md:1: URL /good/ is also the URL of content/escaped.md (set `slug:` on "
        "one of them)",
    ]
    assert not set(parsed) & set(plain), "no article at its own path's URL alone was parsed"
    assert {"content/escaped.md", "content/drafted.md", "content/moved.md"} <= set(parsed)


@pytest.mark.parametrize(
    ("text", "at_path_url"),
    [
        (b"---\ntitle: T\n---\nA body that says slug, draft and permalink.\n", True),
        (b"No front matter at all.\n", True),
        (b"---\ntitle: T\nslug: s\n---\n", False),
        (b"\xef\xbb\xbf---\ntitle: T\npermalink: /p/\n---\n", False),
        (b"---\ntitle: T\ndraft: true\n---\n", False),
        (b'---\ntitle: T\n"sl\\u0075g": s\n---\n', False),
        (b"---\ntitle: \xff\n---\n", False),
    ],
)
def test_what_may_move_an_article_off_its_path_url_is_told_without_parsing(
    text: bytes, at_path_url: bool
) -> None:
    assert articles.at_its_path_url(text) is at_path_url
    if at_path_url:
        try:
            parsed = articles.parse_article("content/x.md", "0" * 40, text)
        except ArticleError:
            return  # on no URL at all: a check parses it when its path's URL is shared
        assert parsed.slug is None and not parsed.draft
