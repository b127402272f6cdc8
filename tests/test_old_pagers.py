"""The numbered pages of an old blog's lists, read from its generator's configuration and
templates (the real generators' pages are checked in `test_moving_in.py`)."""

from __future__ import annotations

from pathlib import Path

from steadypress.old_pagers import Pager, hugo_pager, jekyll_pager, numbered_pages


def pages(pager: Pager | None, entries: int, *, ugly: bool = False) -> list[str]:
    assert pager is not None
    return [address for _number, address in numbered_pages(pager, entries, ugly=ugly)]


def test_hugo_before_0_128_read_paginate_and_paginate_path(tmp_path: Path) -> None:
    (tmp_path / "layouts").mkdir()
    (tmp_path / "layouts/list.html").write_text("{{ range .Paginator.Pages }}{{ end }}")

    pager = hugo_pager(tmp_path, {"paginate": 4, "paginatepath": "seite"})

    assert pages(pager, 9) == ["seite/1/", "seite/2/", "seite/3/"]
    assert pages(pager, 0) == ["seite/1/"]  # Hugo's redirect from page 1, even of no entry
    assert pages(hugo_pager(tmp_path, {}), 11) == ["page/1/", "page/2/"]  # 10 a page


def test_hugo_with_aliases_disabled_has_no_first_page_and_ugly_urls_end_in_html(
    tmp_path: Path,
) -> None:
    (tmp_path / "layouts").mkdir()
    (tmp_path / "layouts/index.html").write_text("{{ .Paginate site.RegularPages }}")
    config = {"pagination": {"pagerSize": 5, "disableAliases": True}}

    assert pages(hugo_pager(tmp_path, config), 11, ugly=True) == ["page/2.html", "page/3.html"]


def test_hugo_numbers_no_page_where_no_template_paginates(tmp_path: Path) -> None:
    (tmp_path / "layouts").mkdir()
    (tmp_path / "layouts/list.html").write_text("{{ range .Pages }}{{ .Title }}{{ end }}")

    assert hugo_pager(tmp_path, {"paginate": 2}) is None
    # A theme not in the repository (a module, a submodule not checked out) is taken to
    # paginate, as the themes people pick do; one checked out is read.
    assert hugo_pager(tmp_path, {"theme": "PaperMod"}) is not None
    (tmp_path / "themes/plain/layouts").mkdir(parents=True)
    assert hugo_pager(tmp_path, {"theme": ["plain"]}) is None


def test_jekyll_paginates_only_with_the_plugin_loaded_and_from_page_2() -> None:
    assert jekyll_pager({"paginate": 5}) is None
    assert jekyll_pager({"plugins": ["jekyll-feed"], "paginate": 5}) is None
    assert jekyll_pager({"plugins": ["jekyll-paginate"]}) is None  # no size: no pages

    older = jekyll_pager({"gems": ["jekyll-paginate"], "paginate": 5})
    assert pages(older, 11) == ["page2/", "page3/"]
    blog = {"plugins": ["jekyll-paginate"], "paginate": 5, "paginate_path": "/blog/p:num"}
    assert pages(jekyll_pager(blog), 6) == ["blog/p2/"]
