"""The workflows keep the project's security and reliability rules, beyond what the linters ask."""

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

PROJECT = Path(__file__).resolve().parent.parent
WORKFLOWS = sorted((PROJECT / ".github" / "workflows").glob("*.yml"))
ACTION = PROJECT / "action.yml"
PINNED = re.compile(r"^[\w.-]+/[\w.-]+@[0-9a-f]{40}$")


def load(path: Path) -> dict[str, Any]:
    # PyYAML reads the key `on` as True (YAML 1.1); the workflow syntax means the string.
    document: dict[Any, Any] = yaml.safe_load(path.read_text())
    if True in document:
        document["on"] = document.pop(True)
    return document


def steps(document: dict[str, Any]) -> list[dict[str, Any]]:
    """A workflow's steps, or a composite action's."""
    if "runs" in document:
        found: list[dict[str, Any]] = document["runs"]["steps"]
        return found
    return [step for job in document["jobs"].values() for step in job.get("steps", [])]


def test_the_six_workflows_exist() -> None:
    """publish (push), sweep (schedule and dispatch), retry (issue label), check (pull request),
    ci (the tool's own tests), release (a tag of the tool)."""
    assert [path.name for path in WORKFLOWS] == [
        "check.yml", "ci.yml", "publish.yml", "release.yml", "retry.yml", "sweep.yml",
    ]  # fmt: skip


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_permissions_are_granted_per_job_and_nothing_by_default(path: Path) -> None:
    """Top-level `permissions: {}`; each job names the few it needs; only publish may write
    actions (to re-enable the sweep's schedule), and only the tool's release ask for an OIDC
    token (PyPI's trusted publishing)."""
    document = load(path)
    assert document["permissions"] == {}
    allowed = {
        "publish.yml": {"contents", "issues", "actions"},
        "release.yml": {"contents", "id-token"},
    }.get(path.name, {"contents", "issues"})
    for job in document["jobs"].values():
        assert set(job["permissions"]) <= allowed
        assert job["timeout-minutes"] <= 30


@pytest.mark.parametrize("path", [*WORKFLOWS, ACTION], ids=lambda p: p.name)
def test_actions_are_pinned_by_full_commit_sha_with_their_version(path: Path) -> None:
    """`uses: owner/repo@<40 hex>  # vX.Y.Z`, never a tag or branch that can move; `./` is this
    repository's own action, at the very commit being run."""
    text = path.read_text()
    for step in steps(load(path)):
        if "uses" in step and step["uses"] != "./":
            assert PINNED.match(step["uses"]), step["uses"]
            assert re.search(re.escape(step["uses"]) + r"\s+# v\d+\.\d+\.\d+", text), step["uses"]


@pytest.mark.parametrize("path", [*WORKFLOWS, ACTION], ids=lambda p: p.name)
def test_no_expression_is_interpolated_into_a_shell_script(path: Path) -> None:
    """Values reach `run:` through `env:` only, so no event field can become shell code."""
    for step in steps(load(path)):
        assert "${{" not in step.get("run", ""), step.get("name")


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_checkouts_keep_no_credentials(path: Path) -> None:
    """The token is given to steadypress explicitly; git in the checkout never holds it."""
    for step in steps(load(path)):
        if step.get("uses", "").startswith("actions/checkout@"):
            assert step["with"]["persist-credentials"] is False


def test_publish_has_no_concurrency_group_and_sweep_never_cancels() -> None:
    """GitHub cancels pending runs beyond one per group: publishing must never be in one; a
    sweep may wait in one, but never cancels a running one."""
    documents = {path.name: load(path) for path in WORKFLOWS}
    assert "concurrency" not in documents["publish.yml"]
    assert not any("concurrency" in job for job in documents["publish.yml"]["jobs"].values())
    assert documents["sweep.yml"]["concurrency"]["cancel-in-progress"] is False


def test_the_schedule_avoids_the_top_of_the_hour() -> None:
    """GitHub delays and drops scheduled runs most at minute 0: the sweep runs at :07, :17, ..."""
    (schedule,) = load(next(p for p in WORKFLOWS if p.name == "sweep.yml"))["on"]["schedule"]
    minutes = cron_minutes(schedule["cron"].split()[0])
    assert minutes and not minutes & {58, 59, 0, 1, 2}, minutes
    ordered = sorted(minutes)
    gaps = [
        (after - before) % 60 or 60
        for before, after in zip(ordered, [*ordered[1:], ordered[0]], strict=True)
    ]
    assert max(gaps) <= 30, "a missed article waits no more than half an hour for the sweep"


def cron_minutes(field: str) -> set[int]:
    """The minutes a cron minute field names: `*`, `a`, `a-b`, each with an optional `/step`,
    comma-separated (POSIX crontab, as GitHub's schedule documents it)."""
    minutes: set[int] = set()
    for part in field.split(","):
        span, _, step = part.partition("/")
        start, _, end = span.partition("-")
        low = 0 if start == "*" else int(start)
        high = 59 if start == "*" else int(end or (59 if step else start))
        minutes.update(range(low, high + 1, int(step or 1)))
    return minutes


def test_no_job_runs_in_a_deployment_environment() -> None:
    """An environment records a deployment per run (144 a day for the sweep alone) and does not
    exist on private repositories of the free plan: opting in is the user's choice. The one
    exception is the tool's own release (never a blog's), whose `pypi` environment is the one
    PyPI's trusted publishing is told to trust."""
    for path in WORKFLOWS:
        if path.name == "release.yml":
            assert load(path)["jobs"]["release"]["environment"]["name"] == "pypi"
            continue
        for name, job in load(path)["jobs"].items():
            assert "environment" not in job, f"{path.name}: job {name} runs in an environment"
