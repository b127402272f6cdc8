"""The Liquid a Jekyll post is written with, turned into the Markdown it stands for, so that
every target shows what Jekyll showed: `{% raw %}` unwrapped, `{% highlight %}` a fenced code
block, `{% post_url %}` and `{% link %}` the page's address, `{{ site.baseurl }}` and
`{{ site.url }}` the site's root. Any other tag is left as written, and `check` names it.

Only a post in a `_posts/` folder is read so: elsewhere `{% ... %}` is text (an article about
Jinja or Liquid itself).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import PurePosixPath

from steadypress.slugs import path_slug

__all__ = ["is_jekyll_post", "jekyll_markdown", "leftover_tags"]

_RAW = re.compile(r"\{%-?\s*raw\s*-?%\}(.*?)\{%-?\s*endraw\s*-?%\}", re.DOTALL)
_HIGHLIGHT = re.compile(
    r"\{%-?\s*highlight\s+([\w+#.-]+)[^%]*?-?%\}\n?(.*?)\n?\{%-?\s*endhighlight\s*-?%\}",
    re.DOTALL,
)
_POST_URL = re.compile(r"\{%-?\s*post_url\s+([^\s%]+)\s*-?%\}")
_LINK = re.compile(r"\{%-?\s*link\s+([^\s%]+)\s*-?%\}")
# The site's root, as a post names it to reach a file of the site: `{{ site.baseurl }}/x.png`.
_SITE_ROOT = re.compile(r"\{\{-?\s*site\.(?:baseurl|url)\s*-?\}\}")
_TAG = re.compile(r"\{%-?\s*(\w+)[^%]*?-?%\}|\{\{-?[^}]*?-?\}\}")
# What a `{% raw %}` block keeps, out of the way of the tags read after it.
_KEPT = "\x00raw{}\x00"


def is_jekyll_post(path: str) -> bool:
    """Whether the article is a Jekyll post, whose Liquid Jekyll rendered."""
    return "_posts" in PurePosixPath(path).parts[:-1]


def jekyll_markdown(body: str, slug_of_post: Callable[[str], str | None] | None = None) -> str:
    """The post's body with the Liquid Jekyll rendered turned into Markdown. `slug_of_post`
    gives the `slug` of the post `post_url` names (as it names it), where it sets one."""
    kept: list[str] = []

    def keep(block: re.Match[str]) -> str:
        kept.append(block.group(1))
        return _KEPT.format(len(kept) - 1)

    text = _RAW.sub(keep, body)
    text = _HIGHLIGHT.sub(lambda code: f"```{code.group(1)}\n{code.group(2)}\n```", text)
    text = _POST_URL.sub(lambda post: _page_of(post.group(1), slug_of_post), text)
    text = _LINK.sub(lambda link: _linked(link.group(1), slug_of_post), text)
    text = _SITE_ROOT.sub("", text)
    return re.sub("\x00raw(\\d+)\x00", lambda held: kept[int(held.group(1))], text)


def leftover_tags(body: str) -> list[str]:
    """The Liquid tags and outputs of a Jekyll post that `jekyll_markdown` does not render
    (`{% include %}`, `{{ page.title }}`), as written; none inside a `{% raw %}` block."""
    text = _RAW.sub("", body)
    text = _HIGHLIGHT.sub("", text)
    for known in (_POST_URL, _LINK, _SITE_ROOT):
        text = known.sub("", text)
    return list(dict.fromkeys(found.group(0) for found in _TAG.finditer(text)))


def _page_of(post: str, slug_of_post: Callable[[str], str | None] | None) -> str:
    """The address of a post named as `post_url` names it (`2019-05-01-title`, its folder in
    `_posts/` first): its page on the site, from its `slug` where it sets one, else from its
    path, as the site makes one."""
    name = post.strip("/")
    return f"/{path_slug((slug_of_post(name) if slug_of_post else None) or name)}/"


def _linked(path: str, slug_of_post: Callable[[str], str | None] | None) -> str:
    """`{% link %}`'s address: a post's page, or a Markdown page's folder, or the file."""
    parts = PurePosixPath(path.strip("/"))
    if parts.suffix in (".md", ".markdown"):
        if "_posts" in parts.parts:
            after = parts.parts[parts.parts.index("_posts") + 1 :]
            return _page_of(str(PurePosixPath(*after).with_suffix("")), slug_of_post)
        return f"/{path_slug(str(parts.with_suffix('')))}/"
    return f"/{parts}"
