"""Run a workflow file as written, the way a GitHub-hosted runner would, against the GitHub fake.

What it provides, as GitHub documents it (docs.github.com/actions/reference/workflows-and-
actions/variables, .../events-that-trigger-workflows, .../workflow-syntax):
- the trigger: the event must be under `on:`; a push must match `branches` and, if given,
  `paths` (globs over the files the push changed); an `issues` event must match `types`;
  `workflow_dispatch` inputs get their declared types and defaults;
- the default environment (GITHUB_ACTIONS, CI, GITHUB_EVENT_NAME, GITHUB_EVENT_PATH with the
  payload, GITHUB_REPOSITORY, GITHUB_SHA, GITHUB_REF, GITHUB_WORKSPACE, GITHUB_API_URL,
  GITHUB_GRAPHQL_URL, GITHUB_SERVER_URL, GITHUB_RUN_ID, GITHUB_STEP_SUMMARY, RUNNER_TEMP), with
  the API URLs pointing at the fake; GITHUB_TOKEN only where a step's `env:` passes it;
- `if:` on jobs and steps (with `success() &&` implied), `env:` at every level;
- stand-ins for actions: actions/checkout (a clone of the origin repository at the commit),
  actions/setup-python (this interpreter, in a fresh virtual environment that sees the test
  environment's packages; pip is kept offline, since a test has no network), actions/cache,
  and pypa/gh-action-pypi-publish, which uploads nothing: it records the distributions of its
  `packages-dir` (`dist/` by default) it would send, in `uploads`, and fails where there are
  none, as the action does (github.com/pypa/gh-action-pypi-publish, action.yml); a composite
  action of the repository (`./`), or of another one it is given a copy of (`actions`), as a
  runner downloads the repository `uses: owner/repo@commit` names;
- every `run:` executed with bash exactly as written (`bash --noprofile --norc -eo pipefail`,
  GitHub's default shell).
Any other action, or an expression it cannot evaluate, raises HarnessError: the test fails.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.harness.expressions import condition, substitute
from tests.packages import package_dirs

ZERO = "0" * 40


class HarnessError(Exception):
    """Something in the workflow the harness cannot stand in for."""


@dataclass
class StepResult:
    name: str
    outcome: str  # success, failure or skipped
    output: str = ""


@dataclass
class JobResult:
    name: str
    outcome: str
    steps: list[StepResult] = field(default_factory=list)

    def step(self, name: str) -> StepResult:
        return next(step for step in self.steps if step.name == name)


@dataclass
class RunResult:
    triggered: bool
    jobs: dict[str, JobResult] = field(default_factory=dict)
    summary: str = ""

    @property
    def outcome(self) -> str:
        if not self.triggered:
            return "not triggered"
        return (
            "failure" if any(job.outcome == "failure" for job in self.jobs.values()) else "success"
        )


def load_workflow(path: Path) -> dict[str, Any]:
    document: dict[Any, Any] = yaml.safe_load(path.read_text())
    if True in document:  # YAML 1.1 reads the key `on` as True
        document["on"] = document.pop(True)
    return document


@dataclass
class RunnerCaches:
    """What outlives a run, as on GitHub: the entries actions/cache saved, by key. The tool
    cache folder is the runner's own, emptied at the start of every run (a fresh machine), at
    one path so that an installation restored into it works where it was made."""

    tool_cache: Path
    store: Path
    saved: dict[str, Path] = field(default_factory=dict)
    hits: int = 0
    misses: int = 0


class WorkflowRunner:
    def __init__(
        self,
        *,
        origin: Path,
        api_url: str,
        graphql_url: str,
        repository: str,
        token: str,
        caches: RunnerCaches,
        secrets: dict[str, str] | None = None,
        actions: dict[str, Path] | None = None,
    ) -> None:
        self.caches = caches
        # The actions of other repositories it has a copy of (owner/repo -> the folder), as a
        # runner downloads the repository a step's `uses: owner/repo@commit` names.
        self.actions = actions or {}
        self.secrets = secrets or {}  # the repository's secrets, besides GITHUB_TOKEN
        # What the stand-in of the PyPI upload would have sent, a list of file names an upload.
        self.uploads: list[list[str]] = []
        self.variables: dict[str, str] = {}  # the repository's configuration variables
        self.origin = origin
        self.api_url = api_url
        self.graphql_url = graphql_url
        self.repository = repository
        self.token = token
        self.runs = 0

    def starts(
        self,
        workflow: Path,
        event_name: str,
        payload: dict[str, Any],
        *,
        ref: str = "refs/heads/main",
    ) -> bool:
        """Whether this event starts `workflow` at all (its `on:` filters)."""
        return self._triggered(load_workflow(workflow)["on"], event_name, payload, ref)

    def run(
        self,
        workflow: Path,
        event_name: str,
        payload: dict[str, Any],
        *,
        sha: str,
        ref: str = "refs/heads/main",
        inputs: dict[str, Any] | None = None,
    ) -> RunResult:
        document = load_workflow(workflow)
        triggers = document["on"]
        if not self._triggered(triggers, event_name, payload, ref):
            return RunResult(triggered=False)
        self.runs += 1
        shutil.rmtree(self.caches.tool_cache, ignore_errors=True)  # a fresh machine per run
        self.caches.tool_cache.mkdir(parents=True)
        with tempfile.TemporaryDirectory(prefix="runner-") as folder:
            root = Path(folder)
            event_path = root / "event.json"
            event_path.write_text(json.dumps(payload))
            summary = root / "summary.md"
            summary.touch()
            workspace = root / "workspace"
            temp = root / "temp"
            temp.mkdir()
            github = {
                "event_name": event_name,
                "event": payload,
                "sha": sha,
                "ref": ref,
                "ref_name": ref.removeprefix("refs/heads/").removeprefix("refs/tags/"),
                "repository": self.repository,
                "token": self.token,
                "run_id": str(self.runs),
                "server_url": "https://github.example",
                "workspace": str(workspace),
            }
            contexts = {
                "github": github,
                "inputs": self._inputs(triggers, event_name, inputs or {}),
                "env": {},
                "secrets": {**self.secrets, "GITHUB_TOKEN": self.token},
                "vars": dict(self.variables),
                "runner": {
                    "os": "Linux",
                    "temp": str(temp),
                    "tool_cache": str(self.caches.tool_cache),
                },
            }
            base_env = {
                "PATH": os.environ["PATH"],
                "HOME": str(root),
                "LANG": "C.UTF-8",
                "GITHUB_ACTIONS": "true",
                "CI": "true",
                "GITHUB_EVENT_NAME": event_name,
                "GITHUB_EVENT_PATH": str(event_path),
                "GITHUB_REPOSITORY": self.repository,
                "GITHUB_SHA": sha,
                "GITHUB_REF": ref,
                "GITHUB_WORKSPACE": str(workspace),
                "GITHUB_API_URL": self.api_url,
                "GITHUB_GRAPHQL_URL": self.graphql_url,
                "GITHUB_SERVER_URL": "https://github.example",
                "GITHUB_RUN_ID": str(self.runs),
                "GITHUB_RUN_ATTEMPT": "1",
                "GITHUB_STEP_SUMMARY": str(summary),
                "RUNNER_TEMP": str(temp),
                "RUNNER_OS": "Linux",
                "RUNNER_TOOL_CACHE": str(self.caches.tool_cache),
            }
            result = RunResult(triggered=True)
            for job_id, job in document["jobs"].items():
                result.jobs[job_id] = self._job(
                    job_id,
                    job=job,
                    document=document,
                    contexts=contexts,
                    base_env=base_env,
                    workspace=workspace,
                    sha=sha,
                )
            result.summary = summary.read_text()
        return result

    # -- triggers -----------------------------------------------------------------------------

    def _triggered(self, triggers: Any, event_name: str, payload: dict[str, Any], ref: str) -> bool:
        if isinstance(triggers, str | list):
            return event_name in ([triggers] if isinstance(triggers, str) else triggers)
        if event_name not in triggers:
            return False
        spec = triggers[event_name] or {}
        if event_name == "issues" and "types" in spec:
            return payload.get("action") in spec["types"]
        if event_name == "push":
            if not _ref_filtered_in(spec, ref):
                return False
            span = (payload["before"], payload["after"])
        elif event_name == "pull_request":
            pull = payload["pull_request"]
            span = (pull["base"]["sha"], pull["head"]["sha"])
        if "paths" in spec and event_name in ("push", "pull_request"):
            changed = self._changed_files(*span)
            return any(_glob_match(path, pattern) for path in changed for pattern in spec["paths"])
        return True

    def _changed_files(self, before: str, after: str) -> list[str]:
        git = ["git", "-C", str(self.origin)]
        if (
            before == ZERO
            or subprocess.run(
                [*git, "cat-file", "-e", before], capture_output=True, check=False
            ).returncode
        ):
            command = [*git, "ls-tree", "-r", "--name-only", after]
        else:
            command = [*git, "diff", "--name-only", before, after]
        return subprocess.run(command, capture_output=True, text=True, check=True).stdout.split()

    def _inputs(self, triggers: Any, event_name: str, given: dict[str, Any]) -> dict[str, Any]:
        if event_name != "workflow_dispatch":
            return {}
        declared = (triggers.get("workflow_dispatch") or {}).get("inputs", {})
        unknown = set(given) - set(declared)
        if unknown:
            raise HarnessError(f"inputs not declared by the workflow: {sorted(unknown)}")
        values = {}
        for name, spec in declared.items():
            value = given.get(
                name, spec.get("default", "" if spec.get("type") != "boolean" else False)
            )
            values[name] = bool(value) if spec.get("type") == "boolean" else str(value)
        return values

    # -- jobs and steps ------------------------------------------------------------------------

    def _job(
        self,
        job_id: str,
        *,
        job: dict[str, Any],
        document: dict[str, Any],
        contexts: dict[str, Any],
        base_env: dict[str, str],
        workspace: Path,
        sha: str,
    ) -> JobResult:
        result = JobResult(name=job.get("name", job_id), outcome="success")
        env = dict(base_env)
        state = _JobState(
            env=env, workspace=workspace, sha=sha,
            timeout=float(job.get("timeout-minutes", 360)) * 60,
        )  # fmt: skip

        if "if" in job and not condition(job["if"], contexts, state.status):
            result.outcome = "skipped"
            return result
        for level in (document.get("env") or {}, job.get("env") or {}):
            env.update({k: substitute(str(v), contexts, state.status) for k, v in level.items()})
        contexts = {**contexts, "env": {**env}, "steps": {}}
        for number, step in enumerate(job.get("steps", []), start=1):
            name = step.get("name", f"step {number}")
            outcome, output = self._run_step(step, contexts=contexts, step_env={}, state=state)
            result.steps.append(StepResult(name, outcome, output))
        for key, path in state.cache_saves if not state.failed else ():
            self._save_cache(key, path)
        result.outcome = "failure" if state.failed else "success"
        return result

    def _run_step(
        self,
        step: dict[str, Any],
        *,
        contexts: dict[str, Any],
        step_env: dict[str, str],
        state: _JobState,
    ) -> tuple[str, str]:
        """One step of a job or of a composite action: its `if:`, its `env:`, then the step;
        records its outputs under `steps.<id>` and returns (outcome, output)."""
        if not condition(step.get("if", "success()"), contexts, state.status):
            return "skipped", ""
        env = {
            **state.env,
            **step_env,
            **{
                k: substitute(str(v), contexts, state.status)
                for k, v in (step.get("env") or {}).items()
            },
        }
        ok, output, outputs = self._step(step, env=env, contexts=contexts, state=state)
        contexts["env"] = {**contexts["env"], **_exported(state.env)}
        outcome = "success" if ok else "failure"
        if "id" in step:
            contexts["steps"][step["id"]] = {"outputs": outputs, "outcome": outcome}
        state.failed = state.failed or not ok
        return outcome, output

    def _step(
        self,
        step: dict[str, Any],
        *,
        env: dict[str, str],
        contexts: dict[str, Any],
        state: _JobState,
    ) -> tuple[bool, str, dict[str, str]]:
        if "uses" in step:
            return self._uses(step, env=env, contexts=contexts, state=state)
        if "run" not in step:
            raise HarnessError(f"a step with neither run nor uses: {step}")
        if step.get("shell", "bash") != "bash":
            raise HarnessError(f"only bash steps are run: {step.get('shell')}")
        script = Path(env["RUNNER_TEMP"]) / "step.sh"
        script.write_text(step["run"])
        outputs_file = Path(env["RUNNER_TEMP"]) / "step-outputs"
        outputs_file.write_text("")
        completed = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=state.workspace,
            env={**env, "GITHUB_OUTPUT": str(outputs_file)},
            capture_output=True,
            text=True,
            timeout=state.timeout,
            check=False,
        )
        outputs = dict(
            line.split("=", 1) for line in outputs_file.read_text().splitlines() if "=" in line
        )
        return completed.returncode == 0, completed.stdout + completed.stderr, outputs

    def _uses(
        self,
        step: dict[str, Any],
        *,
        env: dict[str, str],
        contexts: dict[str, Any],
        state: _JobState,
    ) -> tuple[bool, str, dict[str, str]]:
        """A step that uses an action: a stand-in, or a composite action it has a copy of."""
        uses = str(step["uses"])
        options = {
            str(k): substitute(str(v), contexts, state.status)
            for k, v in (step.get("with") or {}).items()
        }
        if uses.startswith("./"):
            return self._composite(
                state.workspace / uses, options, env=env, contexts=contexts, state=state
            )
        action = uses.split("@", 1)[0]
        stand_ins: dict[str, Callable[[], tuple[bool, str, dict[str, str]]]] = {
            "actions/checkout": lambda: (*self._checkout(options, state.workspace, state.sha), {}),
            "actions/setup-python": lambda: (*self._setup_python(state.env), {}),
            "actions/cache": lambda: self._restore_cache(options, state),
            "pypa/gh-action-pypi-publish": lambda: self._pypi_upload(options, state.workspace),
        }
        if action in stand_ins:
            return stand_ins[action]()
        if action in self.actions:
            return self._composite(
                self.actions[action], options, env=env, contexts=contexts, state=state
            )
        raise HarnessError(f"no stand-in for {step['uses']}")

    def _composite(
        self,
        folder: Path,
        given: dict[str, str],
        *,
        env: dict[str, str],
        contexts: dict[str, Any],
        state: _JobState,
    ) -> tuple[bool, str, dict[str, str]]:
        """A composite action (docs.github.com/actions/sharing-automations/creating-actions/
        creating-a-composite-action): its inputs from `with:` or their defaults, its own
        `steps` context, `github.action_path`, every `run:` with an explicit shell."""
        action = yaml.safe_load((folder / "action.yml").read_text())
        if action.get("runs", {}).get("using") != "composite":
            raise HarnessError(f"{folder}/action.yml is not a composite action")
        declared = action.get("inputs") or {}
        unknown = set(given) - set(declared)
        if unknown:
            raise HarnessError(f"inputs the action does not declare: {sorted(unknown)}")
        github = {**contexts["github"], "action_path": str(folder)}
        outer = {**contexts, "github": github}
        inputs = {
            name: given[name]
            if name in given
            else substitute(str(spec.get("default", "")), outer, state.status)
            for name, spec in declared.items()
        }
        inner = {**outer, "inputs": inputs, "steps": {}}
        caller_env = {k: v for k, v in env.items() if state.env.get(k) != v}
        caller_env["GITHUB_ACTION_PATH"] = str(folder)
        failed_before, state.failed = state.failed, False
        logs = []
        for step in action["runs"]["steps"]:
            if "run" in step and "shell" not in step:
                raise HarnessError("a composite action's run steps must name their shell")
            outcome, output = self._run_step(step, contexts=inner, step_env=caller_env, state=state)
            logs.append(f"[{step.get('name', 'step')}: {outcome}]\n{output}")
        ok = not state.failed
        state.failed = failed_before
        return ok, "\n".join(logs), {}

    def _restore_cache(
        self, options: dict[str, str], state: _JobState
    ) -> tuple[bool, str, dict[str, str]]:
        """actions/cache: restore the entry saved under `key` to `path`, or note a miss and
        save `path` there when the job succeeds (its post step)."""
        key, path = options["key"], Path(options["path"])
        saved = self.caches.saved.get(key)
        if saved is None:
            self.caches.misses += 1
            state.cache_saves.append((key, path))
            return True, f"cache miss: {key}", {"cache-hit": "false"}
        self.caches.hits += 1
        shutil.rmtree(path, ignore_errors=True)
        shutil.copytree(saved, path, symlinks=True)
        return True, f"cache hit: {key}", {"cache-hit": "true"}

    def _save_cache(self, key: str, path: Path) -> None:
        if key in self.caches.saved or not path.exists():
            return
        entry = self.caches.store / f"entry-{len(self.caches.saved)}"
        shutil.copytree(path, entry, symlinks=True)
        self.caches.saved[key] = entry

    def _checkout(self, options: dict[str, Any], workspace: Path, sha: str) -> tuple[bool, str]:
        subprocess.run(
            ["git", "clone", "-q", "--no-local", str(self.origin), str(workspace)], check=True
        )
        subprocess.run(["git", "-C", str(workspace), "checkout", "-q", "--detach", sha], check=True)
        return (
            True,
            f"checked out {sha} (persist-credentials: {options.get('persist-credentials')})",
        )

    def _pypi_upload(
        self, options: dict[str, str], workspace: Path
    ) -> tuple[bool, str, dict[str, str]]:
        folder = workspace / options.get("packages-dir", "dist")
        files = sorted(path.name for path in folder.glob("*")) if folder.is_dir() else []
        if not files:
            return False, f"no distributions in {folder}", {}
        self.uploads.append(files)
        return True, f"would upload {', '.join(files)}", {}

    def _setup_python(self, job_env: dict[str, str]) -> tuple[bool, str]:
        # Where setup-python puts its Python: in the runner's tool cache, at a fixed path.
        home = Path(job_env["RUNNER_TOOL_CACHE"]) / "Python" / "3.11" / "x64"
        if (home / "bin" / "python").exists():  # already set up earlier in this job
            job_env["pythonLocation"] = str(home)
            return True, f"python at {home}"
        # The base interpreter, not this venv's: a venv made from a venv's python nests badly.
        base_python = getattr(sys, "_base_executable", sys.executable)
        subprocess.run([base_python, "-m", "venv", "--without-pip", str(home)], check=True)
        site_packages = next(home.glob("lib/python*/site-packages"))
        # The test environment's packages (pip, setuptools, steadypress's dependencies) are
        # visible; steadypress itself is whatever the workflow installs from its checkout.
        (site_packages / "test-environment.pth").write_text(package_dirs())
        job_env["PATH"] = f"{home / 'bin'}{os.pathsep}{job_env['PATH']}"
        job_env["pythonLocation"] = str(home)  # exported by setup-python to later steps
        job_env["PIP_NO_INDEX"] = "1"
        job_env["PIP_NO_BUILD_ISOLATION"] = "0"  # pip's negative options: 0 turns isolation off
        # After an install pip parses the requirements of every package it sees for conflicts:
        # here the test environment's hundred, through the .pth above (a sixth of an install's
        # CPU); on a runner, steadypress's own few in a fresh Python.
        job_env["PIP_NO_WARN_CONFLICTS"] = "0"  # as above: 0 turns the check off
        return True, f"python at {home}"


@dataclass
class _JobState:
    """One job as it runs: what every step of it (and of its composite actions) shares."""

    env: dict[str, str]  # the job's environment, with what steps exported to later ones
    workspace: Path
    sha: str
    timeout: float
    failed: bool = False
    cache_saves: list[tuple[str, Path]] = field(default_factory=list)

    def status(self, name: str) -> bool:
        return {"success": not self.failed, "failure": self.failed, "always": True,
                "cancelled": False}[name]  # fmt: skip


def _exported(job_env: dict[str, str]) -> dict[str, str]:
    """What steps exported for the rest of the job (GITHUB_ENV), as the `env` context sees it."""
    return {key: job_env[key] for key in ("pythonLocation",) if key in job_env}


def _glob_match(path: str, pattern: str) -> bool:
    """GitHub's path filters: `**` crosses folders, `*` stays within one."""
    regex = "".join(
        ".*" if part == "**" else "[^/]*" if part == "*" else re.escape(part)
        for part in re.split(r"(\*\*|\*)", pattern)
        if part
    )
    return re.fullmatch(regex, path) is not None


def _ref_filtered_in(spec: dict[str, Any], ref: str) -> bool:
    """Whether a push of `ref` passes the workflow's branch and tag filters ("Workflow syntax",
    on.push.<branches|tags>): a filter of only tags (or only branches) keeps the workflow from
    running for a push of the other kind of ref."""
    tag = ref.startswith("refs/tags/")
    kind, other = ("tags", "branches") if tag else ("branches", "tags")
    name = ref.removeprefix("refs/tags/" if tag else "refs/heads/")
    if other in spec and kind not in spec:
        return False
    return kind not in spec or any(fnmatch.fnmatch(name, pattern) for pattern in spec[kind])
