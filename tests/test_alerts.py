"""The local dead-letter channel and what a letter says: one file per article (or per cause),
found again by its marker."""

import io
from datetime import UTC, datetime
from pathlib import Path

from steadypress.alerts import LocalDeadLetters, find_marker, marker_for
from steadypress.alerts.letter import LISTED_AT_MOST, Letter
from steadypress.ledger import Attempt, DeadItem

NOW = datetime(2026, 11, 29, tzinfo=UTC)


def corpse(
    path: str = "content/a.md", alert: int | None = None, target: str = "site", error: str = ""
) -> DeadItem:
    history = (Attempt(NOW, "HTTP 503"), Attempt(NOW, error or f"{path}: timeout"))
    return DeadItem(target, path, "b1", "c1", NOW, 5, history, False, alert)


def letter(*items: DeadItem) -> Letter:
    return Letter.of(items or [corpse()])


def test_the_marker_survives_any_path() -> None:
    """Quotes, spaces and even '-->' in a path round-trip through the hidden marker."""
    identity = {"path": 'content/odd "name" --> here.md'}
    assert find_marker(f"text\n{marker_for(identity)}\nmore") == identity
    assert "-->" not in marker_for(identity)[:-3]


def test_a_marker_of_the_time_of_one_letter_per_item_names_its_article() -> None:
    """Letters opened before letters were per article are found as their article's letter."""
    old = '<!-- steadypress:dead-letter {"key": "devto:content/a.md"} -->'
    assert find_marker(old) == {"path": "content/a.md"}
    assert find_marker("<!-- steadypress:dead-letter [1] -->") is None


def test_posting_twice_finds_the_first_letter(tmp_path: Path) -> None:
    """A retried post (or a racing executor) reuses the letter instead of writing a second."""
    channel = LocalDeadLetters(tmp_path, root=tmp_path, stream=io.StringIO())
    first = channel.open(letter())
    second = channel.open(letter(corpse(target="devto"), corpse()))
    other = channel.open(letter(corpse("content/b.md")))
    assert (first, second, other) == (1, 1, 2)
    assert sorted(p.name for p in tmp_path.glob("*.md")) == ["0001.md", "0002.md"]
    assert channel.article_of(1) == "content/a.md" and channel.article_of(9) is None
    assert "Dead letter: content/a.md on devto, site" in (tmp_path / "0001.md").read_text()


def test_the_letter_says_what_failed_on_each_target_and_how_to_retry(tmp_path: Path) -> None:
    """A maintainer reads the article, each target with each attempt's error, and what to do."""
    stream = io.StringIO()
    channel = LocalDeadLetters(tmp_path, root=tmp_path, stream=stream)
    number = channel.open(letter(corpse(), corpse(target="devto", error="422 title too long")))
    text = (tmp_path / "0001.md").read_text()
    assert "## Target `site`" in text and "## Target `devto`" in text
    assert "HTTP 503" in text and "content/a.md: timeout" in text and "422 title too long" in text
    assert "retries it by itself" in text and "steadypress retry content/a.md" in text
    assert f"dead letter #{number}: content/a.md on devto, site" in stream.getvalue()


def test_a_summary_names_the_cause_once_and_lists_every_item() -> None:
    """Many articles dead of one cause: the cause without any article's name, then each item;
    past what an issue can hold, the rest are counted."""
    items = [
        corpse(f"content/{n:03}.md", error=f"content/{n:03}.md: theme broken") for n in range(250)
    ]
    summary = Letter.of(items)
    body = summary.body(how_to_retry="fix it")
    assert summary.is_summary and summary.identity.keys() == {"cause"}
    assert summary.title() == "Dead letters: 250 articles failed: theme broken"
    assert "> theme broken" in body and "`content/000.md`" in body
    assert "`content/249.md`" not in body and f"and {250 - LISTED_AT_MOST} more" in body
    assert len(body) < 65_536, "GitHub refuses an issue body longer than 65,536 characters"


def test_closing_marks_the_letter_and_a_second_death_reopens_it(tmp_path: Path) -> None:
    """Success marks the letter resolved with the text; posting it again reopens the same file;
    a closed letter keeps the first word said on it."""
    channel = LocalDeadLetters(tmp_path, root=tmp_path, stream=io.StringIO())
    number = channel.open(letter())
    channel.close(number, text="published at /a/", completed=True)
    channel.close(number, text="withdrawn later", completed=False)
    text = (tmp_path / "0001.md").read_text()
    assert text.startswith("Status: resolved\n\npublished at /a/\n\n") and "withdrawn" not in text
    assert channel.open(letter(corpse(alert=number)), number) == number
    assert (tmp_path / "0001.md").read_text().startswith("Status: open")
