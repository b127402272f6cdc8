"""dev.to gets absolute image URLs: the site's for an article the site publishes, the file at
its commit on GitHub otherwise; an image not served yet makes the item wait."""

from __future__ import annotations

from dataclasses import replace

import pytest

from steadypress.content import ContentSource
from steadypress.gitio import Git
from steadypress.render import rewrite_image_references
from steadypress.targets.site.assets import PublicLinks
from tests.fakes.devto import FakeForem
from tests.helpers import Repo, run_cli

PICTURE = b"\x89PNG\r\n\x1a\n a picture"
POST = (
    "---\ntitle: Pictures\ncover_image: images/cover.png\n---\n\n"
    "![a picture](images/pic.png)\n\n![logo](https://example.org/logo.png)\n"
)


def config(forem: FakeForem, site_url: str, site_dir: str = "_site") -> str:
    return (
        "timings: {grace: 0s, backoff_initial: 0s, backoff_max: 0s}\n"
        f"targets:\n  site: {{kind: site, dir: {site_dir}, url: '{site_url}'}}\n"
        f"  devto: {{kind: devto, api_url: '{forem.api_url}', window: 2s}}\n"
    )


def test_relative_images_and_the_cover_go_to_devto_as_the_site_s_urls(
    repo: Repo, forem: FakeForem, served: str
) -> None:
    repo.commit(**{"steadypress.yml": config(forem, served), "content/post.md": POST})
    repo.write("content/images/pic.png", PICTURE)
    repo.write("content/images/cover.png", PICTURE + b"cover")
    repo.commit()
    result = run_cli(repo, "run")
    assert result.code == 0, result.err
    (post,) = forem.posts.values()
    pictures = sorted(
        p.relative_to(repo.root / "_site") for p in (repo.root / "_site").rglob("*.png")
    )
    urls = {path.name: f"{served}{path.as_posix()}" for path in pictures}
    assert f"![a picture]({urls['pic.png']})" in post["body_markdown"]
    assert "(https://example.org/logo.png)" in post["body_markdown"], "absolute URLs stay"
    assert "images/pic.png" not in post["body_markdown"]
    assert post["main_image"] == urls["cover.png"]


def test_an_image_not_served_yet_makes_the_item_wait_until_it_is(
    repo: Repo, forem: FakeForem, served: str
) -> None:
    """The site is written where the web server does not look (a Pages deploy still on its
    way): dev.to's item is deferred, not sent with a broken image; once served, it goes."""
    repo.commit(**{"steadypress.yml": config(forem, served, "_elsewhere"), "content/post.md": POST})
    repo.write("content/images/pic.png", PICTURE)
    repo.write("content/images/cover.png", PICTURE + b"cover")
    repo.commit()
    result = run_cli(repo, "run")
    assert result.code == 1 and "not served yet" in result.err
    assert not forem.posts and "devto:content/post.md" in repo.ledger().pending
    for path in (repo.root / "_elsewhere").rglob("*"):  # the deploy arrives
        if path.is_file():
            target = repo.root / "_site" / path.relative_to(repo.root / "_elsewhere")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
    assert run_cli(repo, "sweep").code == 0
    (post,) = forem.posts.values()
    assert served in post["body_markdown"]


def test_an_article_off_the_site_links_its_images_at_its_commit_on_github(repo: Repo) -> None:
    repo.write("content/images/pic.png", PICTURE)
    commit = repo.commit(**{"content/post.md": POST})
    content = ContentSource(Git(repo.root), "content")
    article = content.read("content/post.md", repo.blob("content/post.md", commit), commit=commit)
    images = PublicLinks(content, site="site", site_url="https://blog.example/",
                          raw_base="https://raw.githubusercontent.com/octo/blog")  # fmt: skip
    on_site = images.image_url(article, "images/pic.png")
    assert on_site is not None and on_site.startswith("https://blog.example/assets/")
    off_site = images.image_url(replace(article, targets=("devto",)), "images/pic.png")
    assert (
        off_site == f"https://raw.githubusercontent.com/octo/blog/{commit}/content/images/pic.png"
    )


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("![a](img/a.png)", "![a](U)"),
        ('![a](img/a.png "a title")', '![a](U "a title")'),
        ("![a](<img/a.png>)", "![a](<U>)"),
        ("![ref][1]\n\n[1]: img/a.png", "![ref][1]\n\n[1]: U"),
        ("![a](img/a.png.bak)", "![a](img/a.png.bak)"),
        ("[a link](img/a.png)", "[a link](img/a.png)"),
    ],
)
def test_image_references_are_rewritten_and_nothing_else(source: str, expected: str) -> None:
    assert rewrite_image_references(source, {"img/a.png": "U"}) == expected


def test_links_from_the_host_s_root_go_to_devto_as_the_site_s_urls(
    repo: Repo, forem: FakeForem
) -> None:
    """On dev.to's host `/about/` would lead nowhere: it goes as the site's URL, under a
    project site's path as the site's own page leads (a link under it already, or to another
    host or an anchor, is left as it leads)."""
    body = (
        "See [about](/about/), [kept](/blog/2024/x/), [news](/tags/новости/),\n"
        "[elsewhere](https://example.org/a/), [top](#top) and [the notes][n].\n\n"
        "[n]: /notes/\n"
    )
    repo.commit(**{
        "steadypress.yml": config(forem, "https://octo.github.io/blog/"),
        "content/post.md": f"---\ntitle: Links\n---\n\n{body}",
    })  # fmt: skip

    assert run_cli(repo, "run").code == 0

    (post,) = forem.posts.values()
    sent = post["body_markdown"]
    assert "[about](https://octo.github.io/blog/about/)" in sent
    assert "[kept](https://octo.github.io/blog/2024/x/)" in sent
    assert (
        "[news](https://octo.github.io/blog/tags/%D0%BD%D0%BE%D0%B2%D0%BE%D1%81%D1%82%D0%B8/)"
        in sent
    )
    assert "[elsewhere](https://example.org/a/)" in sent and "[top](#top)" in sent
    assert "[n]: https://octo.github.io/blog/notes/" in sent
    page = (repo.root / "_site/post/index.html").read_text()
    assert 'href="/blog/about/"' in page  # where the site's own page leads
