"""Images as Hugo and Jekyll bloggers write them, root-absolute (`/images/a.png`): looked for in
the content folder, the repository's root and Hugo's `static/`, published like a relative one;
one the repository does not hold is left as written (the site may serve it from elsewhere),
sent to platforms as an absolute URL on the site's host, and named by `check`."""

from __future__ import annotations

import re

from tests.fakes.devto import FakeForem
from tests.helpers import Repo, run_cli

PICTURE = b"\x89PNG\r\n\x1a\n a picture"
POST = (
    "---\ntitle: Pictures\ndate: 2026-01-02\ncover_image: /static-cover.png\n---\n\n"
    "![in content](/images/shared.png)\n\n![at the root](/assets/jekyll.png)\n\n"
    "![in static](/img/hugo.png)\n\n![old site](/uploads/old.png)\n"
)
FILES = {
    "content/images/shared.png": PICTURE + b"1",
    "assets/jekyll.png": PICTURE + b"2",
    "static/img/hugo.png": PICTURE + b"3",
    "static/static-cover.png": PICTURE + b"4",
}


def committed(repo: Repo, config: str) -> None:
    repo.commit(**{"steadypress.yml": config, "content/post.md": POST})
    for path, data in FILES.items():
        repo.write(path, data)
    repo.commit()


def test_root_absolute_images_are_found_published_and_linked_under_a_project_site(
    repo: Repo,
) -> None:
    site = "targets:\n  site: {kind: site, url: 'https://octo.github.io/blog/'}\n"
    committed(repo, site)
    assert run_cli(repo, "run").code == 0
    page = (repo.root / "_site/post/index.html").read_text()
    sources = re.findall(r'<img src="([^"]+)"', page)
    served = [src for src in sources if src.startswith("/blog/assets/")]
    assert len(served) == 3, sources
    for src in served:
        published = repo.root / "_site" / src.removeprefix("/blog/")
        assert published.read_bytes() in FILES.values()
    covers = list((repo.root / "_site/assets").glob("*/static-cover.png"))
    assert [cover.read_bytes() for cover in covers] == [FILES["static/static-cover.png"]]
    assert "/uploads/old.png" in sources, "not in the repository: left as written"


def test_platforms_get_absolute_urls_for_root_absolute_images(
    repo: Repo, forem: FakeForem, served: str
) -> None:
    """dev.to (and Hashnode, through the same code) get the site's URL of each image found,
    and the address on the site's host of one served from elsewhere."""
    config = (
        "timings: {grace: 0s, backoff_initial: 0s, backoff_max: 0s}\n"
        f"targets:\n  site: {{kind: site, url: '{served}'}}\n"
        f"  devto: {{kind: devto, api_url: '{forem.api_url}', window: 2s}}\n"
    )
    committed(repo, config)
    (repo.root / "_site/uploads").mkdir(parents=True)
    (repo.root / "_site/uploads/old.png").write_bytes(PICTURE)  # an old blog's file
    assert run_cli(repo, "run").code == 0
    (post,) = forem.posts.values()
    body = post["body_markdown"]
    assert f"![old site]({served}uploads/old.png)" in body
    for alt in ("in content", "at the root", "in static"):
        assert re.search(rf"!\[{alt}\]\({re.escape(served)}assets/[0-9a-f]{{16}}/", body), alt
    assert post["main_image"].startswith(f"{served}assets/")


def test_check_names_a_root_absolute_image_the_repository_does_not_hold(repo: Repo) -> None:
    committed(repo, "targets:\n  site: {kind: site}\n")
    result = run_cli(repo, "check")
    assert result.code == 1
    assert (
        "content/post.md:13: image '/uploads/old.png' is not in the repository (looked for "
        "content/uploads/old.png, uploads/old.png, static/uploads/old.png in commit"
    ) in result.out
    assert "write its full URL" in result.out


def test_links_from_the_hosts_root_are_under_a_project_sites_path(repo: Repo) -> None:
    """A link to `/b/`, and a Jekyll post's `{{ site.baseurl }}{% post_url %}`, lead under a
    project site's `/blog/`, on the page and in the feed; one under it already, to another
    host, or to an anchor is left as written."""
    repo.commit(**{
        "steadypress.yml": (
            "content_dir: _posts\ntargets:\n  site: {kind: site, url: 'https://octo.github.io/blog/'}\n"
        ),
        "_posts/2024-01-01-b.md": "---\ntitle: B\n---\nThe b post.\n",
        "_posts/2024-01-02-a.md": (
            "---\ntitle: A\n---\n[root](/b/) "
            "[jekyll]({{ site.baseurl }}{% post_url 2024-01-01-b %}) "
            "[kept](/blog/b/) [host](//cdn.example/x) [far](https://x.example/) [here](#top)\n"
        ),
    })  # fmt: skip
    assert run_cli(repo, "run").code == 0
    page = (repo.root / "_site/2024-01-02-a/index.html").read_text()
    words = "root|jekyll|kept|host|far|here"
    links = {text: href for href, text in re.findall(rf'<a href="([^"]+)">({words})</a>', page)}
    assert links == {
        "root": "/blog/b/", "jekyll": "/blog/2024-01-01-b/", "kept": "/blog/b/",
        "host": "//cdn.example/x", "far": "https://x.example/", "here": "#top",
    }  # fmt: skip
    assert 'href="/blog/2024-01-01-b/"' in (repo.root / "_site/feed.xml").read_text()
