"""The order a large import enters the ledger: by the date each article's front matter writes,
newest first (the admission tests run it end to end)."""

from __future__ import annotations

import pytest

from steadypress.importorder import filename_date, front_matter_date, newest_first


@pytest.mark.parametrize(
    ("text", "date"),
    [
        (b"---\ntitle: A\ndate: 2024-05-01\n---\n\nBody.\n", "2024-05-01"),
        (b"---\ndate: '2024-05-01 10:30'\ntitle: A\n---\n", "2024-05-01T10:30"),
        (b'---\r\ndate: "2024-05-01T10:30:15+02:00"\r\n---\r\n', "2024-05-01T10:30:15"),
        (b'+++\ntitle = "A"\ndate = 2024-05-01T08:00:00Z\n+++\n', "2024-05-01T08:00:00"),
        # Not a date of the front matter: another key, a date in the body, no front matter.
        (b"---\nupdated: 2024-05-01\ndated: 2023-01-01\n---\n", None),
        (b"---\ntitle: A\n---\n\ndate: 2024-05-01\n", None),
        (b"date: 2024-05-01\n", None),
        (b"---\ndate: yesterday\n---\n", None),
        (b"", None),
    ],
)
def test_the_date_is_read_from_the_front_matter_alone(text: bytes, date: str | None) -> None:
    assert front_matter_date(text) == date


def test_newest_first_then_by_path_and_the_undated_last() -> None:
    dates = {"b.md": "2024-01-01", "a.md": "2024-01-01", "c.md": "2025-03-01T10:00", "d.md": ""}
    assert newest_first(dates) == ["c.md", "a.md", "b.md", "d.md"]


@pytest.mark.parametrize(
    ("path", "day"),
    [
        ("_posts/2019-05-01-hello.md", "2019-05-01"),
        ("content/2024-02-29-leap-day.md", "2024-02-29"),
        # Not a day a name begins with: none, not at the start, a folder's, an impossible one.
        ("content/hello.md", None),
        ("content/notes-2019-05-01-x.md", None),
        ("content/2019-05-01-folder/hello.md", None),
        ("content/2019-05-01.md", None),
        ("content/2023-02-29-not-a-leap-year.md", None),
        ("content/2019-13-45-notes.md", None),
    ],
)
def test_a_jekyll_post_is_dated_by_its_file_name(path: str, day: str | None) -> None:
    assert filename_date(path) == day
