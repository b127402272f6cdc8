"""Markdown to HTML (`render.py`): cmark-gfm's HTML, with what GitHub adds after its parser
added only where cmark wrote it, never inside an author's own raw HTML."""

from __future__ import annotations

import hashlib
import re

import pytest

from steadypress.render import RENDER_VERSION, image_references, prerender, render_markdown


def test_headings_get_ids_as_github_gives_them_numbered_when_taken() -> None:
    html = render_markdown(
        "# Title\n\n## Set *up* `it`\n\n## Set up it\n\n#### Deep &amp; low\n\n##### Deeper\n"
    )
    assert "<h1>Title</h1>" in html
    assert '<h2 id="set-up-it">Set <em>up</em> <code>it</code></h2>' in html
    assert '<h2 id="set-up-it-1">Set up it</h2>' in html
    assert '<h4 id="deep-low">Deep &amp; low</h4>' in html
    assert "<h5>Deeper</h5>" in html


def test_headings_in_any_script_get_ids_of_their_letters_never_empty() -> None:
    """As GitHub keeps them: Japanese, Russian and Korean letters as they are (lowercased),
    Latin with accents folded as before, a heading of no letter `section`, each unique."""
    headings = ["日本語", "Привет мир", "Привет мир", "한국어 제목", "Café", "!!!", "..."]
    html = render_markdown("".join(f"## {heading}\n\n" for heading in headings))
    ids = re.findall(r'<h2 id="([^"]*)">', html)
    assert ids == [
        "日本語",
        "привет-мир",
        "привет-мир-1",
        "한국어-제목",
        "cafe",
        "section",
        "section-1",
    ]


def test_fenced_code_of_a_known_language_is_highlighted_and_raw_html_code_is_left() -> None:
    html = render_markdown(
        '```python\nx = "<b>"\n```\n\n```nosuchlanguage\na < b\n```\n\n'
        '<pre><code class="language-python"><mark>kept</mark></code></pre>\n'
    )
    assert '<pre><code class="language-python"><span class="n">x</span>' in html
    assert "&lt;b&gt;" in html and "<b>" not in html  # the code's text, escaped by Pygments
    assert '<code class="language-nosuchlanguage">a &lt; b\n</code>' in html
    assert '<pre><code class="language-python"><mark>kept</mark></code></pre>' in html


def test_only_markdown_images_are_references_and_marked_in_order_once_each() -> None:
    text = (
        '![a](images/a.png "A") <img src="images/raw.png"> ![b](../b.png)\n\n'
        "![again](images/a.png) ![far](https://example.org/c.png) ![root](/d.png)"
        " ![host](//cdn.example/e.png)\n"
    )
    assert image_references(text) == ["images/a.png", "../b.png", "/d.png"]
    prerendered = prerender(text)
    assert prerendered.images == ("images/a.png", "../b.png", "/d.png")
    served = prerendered.resolve(lambda src: f"/assets/{src.replace('../', '').lstrip('/')}?x&y")
    assert served.count('<img src="/assets/images/a.png?x&amp;y"') == 2
    assert '<img src="/assets/b.png?x&amp;y"' in served
    assert '<img src="/assets/d.png?x&amp;y"' in served  # root-absolute: the repository's too
    assert '<img src="images/raw.png">' in served  # the author's own HTML, as written
    assert '<img src="https://example.org/c.png"' in served
    assert '<img src="//cdn.example/e.png"' in served  # another host, as written


def test_no_text_can_forge_an_image_mark() -> None:
    prerendered = prerender("![a](images/a.png) \0" + "0\0 text")
    assert prerendered.resolve(lambda src: "/served.png").count("/served.png") == 1


def test_github_flavour_raw_html_kept_and_task_list_classes() -> None:
    html = render_markdown(
        "See www.example.org and ~~gone~~ ~also~.\n\n"
        '<iframe src="https://example.org/embed"></iframe>\n\n'
        "- [ ] to do\n- [x] done\n\nA note[^1].\n\n[^1]: The note.\n"
    )
    assert '<a href="http://www.example.org">www.example.org</a>' in html
    assert "<del>gone</del>" in html and "<del>also</del>" in html
    assert '<iframe src="https://example.org/embed"></iframe>' in html  # no tag filter
    assert (
        '<li class="task-list-item"><input type="checkbox" class="task-list-item-checkbox"' in html
    )
    assert 'checked="" disabled=""' in html
    # Each checkbox named by its item's text, as a screen reader needs (axe-core's `label`).
    assert 'disabled="" aria-label="to do" /> to do' in html
    assert 'checked="" disabled="" aria-label="done" /> done' in html
    assert 'class="footnote-ref"' in html and '<section class="footnotes"' in html


def test_the_same_text_gives_the_same_bytes() -> None:
    text = "## A\n\n```python\nprint(1)\n```\n\n![x](images/x.png)\n"
    assert prerender(text) == prerender(text)


# The HTML of these samples under each RENDER_VERSION: every site publishes its articles again
# when the number changes (`theme.shipped_look`), so HTML that changes under the same number
# would reach only the articles published after it.
RENDERED = {4: "844768dcc3ef033102bd856bf65148f0b911e7cf91f5d0a801816965564f0f76"}
SAMPLES = [
    "# T\n\n## Set *up* `it`\n\n## Set up it\n\nwww.example.org ~~gone~~\n",
    '```python\nx = "<b>"\n```\n\n| a | b |\n|:--|--:|\n| 1 | 2 |\n',
    "- [ ] to do\n- [x] done\n\nA note[^1].\n\n[^1]: The note.\n",
    '![a](images/a.png "A") <img src="raw.png"> [l](https://example.org/)\n',
    '[s](javascript:alert(1)) <a href="javascript:kept()">raw</a>\n',
    "## 日本語\n\n## Привет мир\n\n## Привет мир\n\n## !!!\n",
    "![r](/images/r.png) ![h](//cdn.example/h.png)\n",
]


def test_html_that_changes_takes_a_new_render_version() -> None:
    digest = hashlib.sha256()
    for sample in SAMPLES:
        prerendered = prerender(sample)
        digest.update(prerendered.html.encode() + repr(prerendered.images).encode())
    assert RENDERED.get(RENDER_VERSION) == digest.hexdigest(), (
        "the HTML of Markdown changed: give render.RENDER_VERSION the next number and record "
        f"{digest.hexdigest()} for it here"
    )


@pytest.mark.parametrize(
    "link",
    [
        "[a](javascript:alert(1))",
        "[a](JaVaScRiPt:alert(1))",
        "[a](java&#x73;cript:alert(1))",
        "[a](<java\tscript:alert(1)>)",
        "[a](da&Tab;ta:text/html,x)",
        "<vbscript:msgbox(1)>",
        "[a][r]\n\n[r]: file:///etc/passwd",
        "![a](data:text/html;base64,PHNjcmlwdD4=)",
        "| t |\n|---|\n| [a](javascript:1) |",
        "A[^1]\n\n[^1]: [a](javascript:1)",
    ],
)
def test_a_markdown_link_to_a_script_is_written_with_an_empty_url(link: str) -> None:
    """Whatever way the scheme is spelled (case, references, a tab a browser drops, a
    reference definition, a table, a footnote): the link stays, its URL is cmark's safe one."""
    html = render_markdown(link)
    urls = re.findall(r'(?:href|src)="([^"]*)"', html)
    assert "" in urls
    assert not [url for url in urls if re.search("script|file:|text/html", url, re.IGNORECASE)]


def test_raw_html_and_safe_schemes_are_left_as_the_author_wrote_them() -> None:
    """An author's own `<a href="javascript:...">` is raw HTML, an explicit choice; images in
    data URLs of the four image types, mail and ordinary links are not dangerous."""
    html = render_markdown(
        '<a href="javascript:kept()">raw</a> ![i](data:image/png;base64,AA) '
        "[m](mailto:a@example.org) [w](https://example.org/data:x) [f](profile:x)\n"
    )
    assert '<a href="javascript:kept()">raw</a>' in html
    assert '<img src="data:image/png;base64,AA" alt="i" />' in html
    assert 'href="mailto:a@example.org"' in html and 'href="https://example.org/data:x"' in html
    assert 'href="profile:x"' in html
