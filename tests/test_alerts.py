"""The local dead-letter channel: one file per item, found again by its marker."""

import io
from datetime import UTC, datetime
from pathlib import Path

from steadypress.alerts import LocalDeadLetters, find_marker, marker_for
from steadypress.ledger import Attempt, DeadItem, PublishedRecord

NOW = datetime(2026, 11, 29, tzinfo=UTC)


def corpse(path: str = "content/a.md", alert: int | None = None) -> DeadItem:
    return DeadItem(
        target="site",
        path=path,
        blob="b1",
        commit="c1",
        died_at=NOW,
        attempts=5,
        history=(Attempt(NOW, "HTTP 503"), Attempt(NOW, "timeout")),
        permanent=False,
        alert=alert,
    )


def test_the_marker_survives_any_path() -> None:
    """Quotes, spaces and even '-->' in a path round-trip through the hidden marker."""
    key = 'site:content/odd "name" --> here.md'
    assert find_marker(f"text\n{marker_for(key)}\nmore") == key
    assert "-->" not in marker_for(key)[:-3]


def test_opening_twice_finds_the_first_letter(tmp_path: Path) -> None:
    """A retried open (or a racing executor) reuses the letter instead of writing a second."""
    channel = LocalDeadLetters(tmp_path, root=tmp_path, stream=io.StringIO())
    first = channel.open(corpse())
    second = channel.open(corpse())
    other = channel.open(corpse("content/b.md"))
    assert (first, second, other) == (1, 1, 2)
    assert sorted(p.name for p in tmp_path.glob("*.md")) == ["0001.md", "0002.md"]
    assert channel.key_of(1) == "site:content/a.md" and channel.key_of(9) is None


def test_the_letter_says_what_failed_and_how_to_retry(tmp_path: Path) -> None:
    """A maintainer reads the article, the target, each attempt's error and the retry command."""
    stream = io.StringIO()
    number = LocalDeadLetters(tmp_path, root=tmp_path, stream=stream).open(corpse())
    text = (tmp_path / "0001.md").read_text()
    assert "content/a.md" in text and "`site`" in text and "HTTP 503" in text and "timeout" in text
    assert "steadypress retry content/a.md" in text
    assert f"dead letter #{number}: site:content/a.md" in stream.getvalue()


def test_resolving_marks_the_letter_and_a_second_death_reopens_it(tmp_path: Path) -> None:
    """Success marks the letter resolved with the URL; dying again reuses the same number."""
    channel = LocalDeadLetters(tmp_path, root=tmp_path, stream=io.StringIO())
    number = channel.open(corpse())
    channel.resolve(
        number,
        "site:content/a.md",
        PublishedRecord("b1", "c1", None, "2026-11-29T00:00:00Z", "/a/"),
    )
    assert (
        (tmp_path / "0001.md")
        .read_text()
        .startswith("Status: resolved: `site:content/a.md` was published at /a/")
    )
    assert channel.open(corpse(alert=number)) == number
    assert (tmp_path / "0001.md").read_text().startswith("Status: open")
