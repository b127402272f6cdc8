"""What a command did (`Report`), and how it tells it: a closing line, a GitHub job summary,
and annotations."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from steadypress.ledger import DeadItem
from steadypress.store import TransactionStats

__all__ = [
    "Report",
    "annotate",
    "append_job_summary",
    "closing_line",
    "table_cell",
    "workflow_command",
    "write_job_summary",
]


@dataclass
class Report:
    """What one command did, for the terminal, the job summary and the exit code."""

    enqueued: list[str] = field(default_factory=list)
    published: list[tuple[str, str | None]] = field(default_factory=list)
    unpublished: list[str] = field(default_factory=list)
    deferred: list[tuple[str, str]] = field(default_factory=list)
    # Items a run of a later commit had overtaken (`Superseded`): no failure, theirs to finish.
    handed_over: list[tuple[str, str]] = field(default_factory=list)
    # Items naming no file of the content (`NotInContent`): nothing to publish, no failure.
    dropped: list[tuple[str, str]] = field(default_factory=list)
    # Items given back unworked when the command was asked to stop (SIGINT, SIGTERM).
    given_back: list[str] = field(default_factory=list)
    dead: list[DeadItem] = field(default_factory=list)
    retried: list[str] = field(default_factory=list)
    skipped_targets: dict[str, str] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        """1 when an item failed this run and stays pending; dead letters are not errors."""
        return 1 if self.deferred else 0


def closing_line(command: str, report: Report, stats: TransactionStats) -> str:
    return (
        f"steadypress {command}: {len(report.published)} published, "
        + (f"{len(report.unpublished)} unpublished, " if report.unpublished else "")
        + f"{len(report.deferred)} deferred, "
        + (f"{len(report.handed_over)} left to a newer run, " if report.handed_over else "")
        + (f"{len(report.dropped)} dropped (no such file), " if report.dropped else "")
        + (f"{len(report.given_back)} given back unworked, " if report.given_back else "")
        + f"{len(report.dead)} dead-lettered, "
        f"{len(report.enqueued)} enqueued; {stats.commits} state commit(s), "
        f"{stats.conflicts} conflict retr{'y' if stats.conflicts == 1 else 'ies'}"
    )


def _cell(text: str) -> str:
    # Markdown table cell: no markup from error messages, no column breaks, one line.
    from html import escape  # noqa: PLC0415 (html's entities are some 2 ms of every start)

    return escape(text, quote=False).replace("|", "\\|").replace("\n", " ")


def _job_summary(command: str, report: Report) -> str:
    lines = [f"### steadypress {command}", ""]
    if not (
        report.published
        or report.unpublished
        or report.deferred
        or report.handed_over
        or report.dropped
        or report.given_back
        or report.dead
        or report.skipped_targets
    ):
        lines.append("Nothing to do: every article is published.")
    rows = [
        (key, "published", f"[{_cell(url)}]({url})" if url else "") for key, url in report.published
    ]
    rows += [(key, "unpublished", "") for key in report.unpublished]
    rows += [(key, "deferred (will retry)", _cell(error)) for key, error in report.deferred]
    rows += [(key, "left to a newer run", _cell(error)) for key, error in report.handed_over]
    rows += [(key, "dropped (no such file)", _cell(error)) for key, error in report.dropped]
    rows += [(key, "given back (asked to stop)", "") for key in report.given_back]
    rows += [
        (
            item.key,
            "dead letter" + (f" #{item.alert}" if item.alert else ""),
            _cell(item.last_error),
        )
        for item in report.dead
    ]
    if rows:
        lines += ["| article | outcome | details |", "| --- | --- | --- |"]
        lines += [f"| `{_cell(key)}` | {outcome} | {details} |" for key, outcome, details in rows]
    for name, reason in sorted(report.skipped_targets.items()):
        lines.append(f"\nTarget `{name}` was skipped by this run: {_cell(reason)}")
    return "\n".join(lines) + "\n"


def write_job_summary(
    command: str,
    report: Report,
    *,
    redact: Callable[[str], str],
    environ: Mapping[str, str],
) -> None:
    """Append what the command did to `$GITHUB_STEP_SUMMARY` inside GitHub Actions."""
    append_job_summary(_job_summary(command, report), redact=redact, environ=environ)


def append_job_summary(
    text: str, *, redact: Callable[[str], str], environ: Mapping[str, str]
) -> None:
    destination = environ.get("GITHUB_STEP_SUMMARY")
    if destination:
        with Path(destination).open("a", encoding="utf-8") as summary:
            summary.write(redact(text))


def table_cell(text: str) -> str:
    """Text for a Markdown table cell in a job summary."""
    return _cell(text)


def _escape_data(text: str) -> str:
    # Workflow commands end at a newline; GitHub documents these escapes for the message.
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(kind: str, message: str, **properties: str) -> str:
    """One `::error`/`::warning` workflow command, escaped as GitHub documents it."""
    listed = ",".join(f"{name}={_escape_property(value)}" for name, value in properties.items())
    return f"::{kind}{' ' + listed if listed else ''}::{_escape_data(message)}"


def annotate(report: Report, *, environ: Mapping[str, str]) -> list[str]:
    """`::error`/`::warning` workflow commands, so failures show on the run's page and the file."""
    if environ.get("GITHUB_ACTIONS") != "true":
        return []
    lines = [
        workflow_command(
            "error", item.last_error, file=item.path, title=f"Dead letter ({item.target})"
        )
        for item in report.dead
    ]
    lines += [
        workflow_command("warning", error, title=f"Deferred {key}")
        for key, error in report.deferred
    ]
    return lines
