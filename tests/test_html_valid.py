"""The built-in site's pages pass the Nu Html Checker (the validator the W3C runs, fetched by
`make schemas`) on a blog written in Portuguese, Russian, Japanese and Korean: headings and
titles in those scripts give no empty or repeated id, and the tags `C++`, `C#` and `C` have a
page each."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

from tests.helpers import Repo, article, run_cli

VNU = Path(__file__).resolve().parent.parent / ".cache" / "vnu" / "vnu.jar"

ARTICLES = {
    "content/notícias.md": article(
        "Notícias do dia", "## Introdução\n\nTexto.\n\n## Introdução\n\n## Conclusão\n",
        date="2024-01-01", tags=["notícias", "C"],
    ),
    "content/Привет мир.md": article(
        "Привет, мир", "## Привет\n\n## Привет мир\n\n## Привет мир\n",
        date="2024-01-02", tags=["новости", "C++"],
    ),
    "content/日本語.md": article(
        "日本語の記事", "## 日本語の見出し\n\n本文。\n\n## 日本語の見出し\n\n## !!!\n",
        date="2024-01-03", tags=["日本語", "C#"],
    ),
    "content/한국어.md": article(
        "한국어 제목", "## 한국어 제목\n\n본문.\n\n- [x] 완료\n- [ ] 할 일\n",
        date="2024-01-04", tags=["한국어", "C", "C++"],
    ),
}  # fmt: skip


def test_every_page_of_a_blog_in_four_scripts_is_valid_html(repo: Repo) -> None:
    java = shutil.which("java")
    assert java is not None, "the Nu Html Checker runs on Java (.ci/run installs it)"
    assert VNU.is_file(), f"{VNU} is fetched by `make schemas`"
    repo.commit(**ARTICLES)
    assert run_cli(repo, "run").code == 0
    site = repo.root / "_site"

    checked = subprocess.run(
        [java, "-jar", str(VNU), "--format", "json", "--skip-non-html", str(site)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip

    # Errors and warnings; an "info" (a void element's trailing slash, as cmark-gfm writes
    # `<img />`) is a note on style, which HTML allows.
    messages = [m for m in json.loads(checked.stderr)["messages"] if m["type"] != "info"]
    assert messages == [], messages
    pages = list(site.rglob("*.html"))
    assert len(pages) > 15  # the articles, listings and tag pages of every script
    for page in pages:
        ids = re.findall(r'\sid="([^"]*)"', page.read_text(encoding="utf-8"))
        assert "" not in ids and not [i for i, n in Counter(ids).items() if n > 1], page
    for tag in ("cpp", "csharp", "c"):
        assert (site / "tags" / tag / "index.html").is_file()
    headings = (site / "日本語/index.html").read_text(encoding="utf-8")
    assert 'id="日本語の見出し"' in headings and 'id="日本語の見出し-1"' in headings
