"""content/ is the blog's: no test reads it, so the tool's tests pass whatever articles a blog
made from the template holds. The guard is an audit hook (conftest.py); this shows it bites."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import PROJECT_CONTENT, ReadTheBlogsContent


@pytest.mark.parametrize(
    "read",
    [
        lambda: list(Path(PROJECT_CONTENT).iterdir()),
        lambda: os.listdir(PROJECT_CONTENT),
        lambda: open(os.path.join(PROJECT_CONTENT, "any.md"), encoding="utf-8"),  # noqa: SIM115
        lambda: list(Path(PROJECT_CONTENT).parent.glob("content/**/*.md")),
    ],
    ids=["iterdir", "listdir", "open", "glob"],
)
def test_reading_the_repository_s_content_fails_the_test(read: object) -> None:
    with pytest.raises(ReadTheBlogsContent, match="content/ is the blog's"):
        read()  # type: ignore[operator]


def test_a_folder_named_content_elsewhere_is_anyone_s(tmp_path: Path) -> None:
    (tmp_path / "content").mkdir()
    (tmp_path / "content/a.md").write_text("mine")
    assert [p.name for p in (tmp_path / "content").iterdir()] == ["a.md"]
