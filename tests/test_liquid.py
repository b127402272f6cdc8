"""A Jekyll post's Liquid shows on every target what Jekyll showed: `{% raw %}` unwrapped,
`{% highlight %}` a code block, `{% post_url %}` and `{% link %}` the page's address,
`{{ site.baseurl }}` the site's root; any other tag is named by `check` at its line, and an
article outside `_posts/` keeps `{% ... %}` as text."""

from __future__ import annotations

from pathlib import Path

from steadypress.articles import Article
from steadypress.content import ContentSource
from steadypress.gitio import Git
from steadypress.liquid import jekyll_markdown, leftover_tags
from tests.fakes.devto import FakeForem
from tests.helpers import Repo, run_cli

CONFIG = "content_dir: _posts\ntargets:\n  site:\n    kind: site\n"


def test_the_common_tags_become_the_markdown_they_stand_for() -> None:
    body = (
        "![a]({{ site.baseurl }}/assets/a.png) [old]({% post_url 2010-07-21-first %}) "
        "[b]({% link _posts/notes/2016-07-26-b.md %}) [about]({%link about.md%})\n\n"
        "{% highlight ruby linenos %}\nputs 1\n{% endhighlight %}\n\n"
        "{% raw %}{{ kept }} {% post_url x %}{% endraw %}\n"
    )

    assert jekyll_markdown(body) == (
        "![a](/assets/a.png) [old](/2010-07-21-first/) [b](/notes/2016-07-26-b/) "
        "[about](/about/)\n\n```ruby\nputs 1\n```\n\n{{ kept }} {% post_url x %}\n"
    )
    assert leftover_tags(body) == []
    assert leftover_tags("{% include note.html %} {{ page.title }}\n") == [
        "{% include note.html %}",
        "{{ page.title }}",
    ]


def test_a_jekyll_posts_liquid_is_published_rendered_and_the_rest_named_by_check(
    tmp_path: Path,
) -> None:
    repo = Repo(tmp_path / "blog")
    repo.write("steadypress.yml", CONFIG)
    repo.write("_posts/2010-07-21-first.md", "---\ntitle: First\n---\nThe first.\n")
    repo.write("assets/a.png", b"\x89PNG a")
    repo.write(
        "_posts/2011-01-01-second.md",
        "---\ntitle: Second\n---\nSee [the first]({% post_url 2010-07-21-first %}).\n\n"
        "![a]({{ site.baseurl }}/assets/a.png)\n\n{% highlight python %}\nprint(1)\n"
        "{% endhighlight %}\n\n{% raw %}Write {{ name }} in a template.{% endraw %}\n",
    )
    repo.commit("a Jekyll blog")

    assert run_cli(repo, "check").code == 0
    assert run_cli(repo, "run").code == 0

    page = (repo.root / "_site/2011-01-01-second/index.html").read_text()
    assert 'href="/2010-07-21-first/"' in page
    assert (repo.root / "_site/2010-07-21-first/index.html").is_file()
    assert 'src="/assets/' in page and "{{ site.baseurl }}" not in page
    assert '<code class="language-python"><span class="nb">print</span>' in page
    assert "endhighlight" not in page and "Write {{ name }} in a template." in page

    repo.write("_posts/2012-01-01-third.md", "---\ntitle: Third\n---\nA\n\n{% include x.html %}\n")
    repo.write("notes.md", "---\ntitle: Not a post\n---\n{% include x.html %}\n")
    repo.commit("a tag no target renders")
    result = run_cli(repo, "check")
    assert result.code == 1
    assert (
        "_posts/2012-01-01-third.md:6: '{% include x.html %}': this Liquid is not rendered "
        "outside Jekyll" in result.out
    )


def test_an_article_outside_posts_keeps_its_braces_as_text(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "blog")
    repo.write(
        "content/jinja.md", "---\ntitle: Jinja\ndate: 2024-01-01\n---\nUse `{% raw %}` here.\n"
    )
    repo.commit("an article about templates")

    assert run_cli(repo, "check").code == 0
    assert run_cli(repo, "run").code == 0
    assert "{% raw %}" in (repo.root / "_site/jinja/index.html").read_text()


def test_post_url_leads_to_the_page_of_a_post_with_a_slug_of_its_own(tmp_path: Path) -> None:
    """Jekyll's `post_url` names the other post by its file; the page is where its `slug` (or
    its `permalink`) puts it, in a folder of `_posts/` or not."""
    repo = Repo(tmp_path / "blog")
    repo.write("steadypress.yml", CONFIG)
    repo.write("_posts/2010-07-21-first.md", "---\ntitle: First\nslug: the-first\n---\nA.\n")
    repo.write("_posts/old/2009-01-01-older.markdown",
               "---\ntitle: Older\npermalink: /kept/older.html\n---\nB.\n")  # fmt: skip
    repo.write(
        "_posts/2011-01-01-second.md",
        "---\ntitle: Second\n---\n[first]({% post_url 2010-07-21-first %}), "
        "[older]({% post_url old/2009-01-01-older %}), [none]({% post_url 2000-01-01-none %}), "
        "[linked]({% link _posts/2010-07-21-first.md %})\n",
    )
    repo.commit("a Jekyll blog")

    assert run_cli(repo, "run").code == 0

    page = (repo.root / "_site/2011-01-01-second/index.html").read_text()
    assert '<a href="/the-first/">first</a>' in page and '<a href="/kept/older/">older' in page
    assert '<a href="/2000-01-01-none/">none' in page  # no such post: the address of its name
    assert '<a href="/the-first/">linked</a>' in page
    assert (repo.root / "_site/the-first/index.html").is_file()
    assert (repo.root / "_site/kept/older/index.html").is_file()


def test_a_post_read_again_at_a_later_commit_leads_to_the_slug_the_linked_post_has_there(
    tmp_path: Path,
) -> None:
    """One run reading the same version of a post at two commits: its `post_url` leads where
    the linked post is at each, though the linking post did not change between them."""
    repo = Repo(tmp_path / "blog")
    repo.write("_posts/2011-01-01-second.md", "---\ntitle: Second\n---\n"
               "[first]({% post_url 2010-07-21-first %})\n")  # fmt: skip
    repo.write("_posts/2010-07-21-first.md", "---\ntitle: First\nslug: one\n---\nA.\n")
    before = repo.commit("a Jekyll blog")
    repo.write("_posts/2010-07-21-first.md", "---\ntitle: First\nslug: two\n---\nA.\n")
    after = repo.commit("the first post moves")
    source = ContentSource(Git(repo.root), "_posts")
    blob = repo.blob("_posts/2011-01-01-second.md")

    def link(commit: str) -> str:
        parsed = source.parse_at(commit, ["_posts/2011-01-01-second.md"])
        second = parsed["_posts/2011-01-01-second.md"]
        assert isinstance(second, Article)
        return second.body

    assert "(/one/)" in link(before)
    assert "(/two/)" in link(after)
    assert "(/one/)" in source.read("_posts/2011-01-01-second.md", blob, commit=before).body


def test_a_post_whose_slug_changes_has_the_posts_linking_it_published_again(
    repo: Repo, forem: FakeForem, served: str
) -> None:
    """A post's `post_url` leads to the linked post's address: when that post's `slug` moves
    it, the posts linking it are published again with the run, on the site and on dev.to,
    though they did not change; a post that does not link it is left alone."""
    repo.write("steadypress.yml", (
        "content_dir: _posts\ntimings: {grace: 0s, backoff_initial: 0s, backoff_max: 0s}\n"
        f"targets:\n  site: {{kind: site, url: '{served}'}}\n"
        f"  devto: {{kind: devto, api_url: '{forem.api_url}', window: 2s}}\n"
    ))  # fmt: skip
    repo.write("_posts/2010-07-21-first.md", "---\ntitle: First\nslug: one\n---\nA.\n")
    repo.write("_posts/2011-01-01-second.md", "---\ntitle: Second\n---\n"
               "[first]({% post_url 2010-07-21-first %})\n")  # fmt: skip
    repo.write("_posts/2012-01-01-third.md", "---\ntitle: Third\n---\nNo link.\n")
    repo.commit("a Jekyll blog")
    assert run_cli(repo, "run").code == 0
    third = (repo.root / "_site/2012-01-01-third/index.html").stat().st_mtime_ns

    repo.write("_posts/2010-07-21-first.md", "---\ntitle: First\nslug: two\n---\nA.\n")
    repo.commit("the first post moves")
    result = run_cli(repo, "run")

    assert result.code == 0, result.err
    page = (repo.root / "_site/2011-01-01-second/index.html").read_text()
    assert 'href="/two/"' in page and 'href="/one/"' not in page
    (second,) = [post for post in forem.posts.values() if post["title"] == "Second"]
    assert "/two/" in second["body_markdown"] and "/one/" not in second["body_markdown"]
    assert (repo.root / "_site/2012-01-01-third/index.html").stat().st_mtime_ns == third
    assert "2012-01-01-third" not in result.out
