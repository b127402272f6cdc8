"""Hostile and broken input, through the real CLI: nothing leaks, nothing is read or written
outside the repository, and a bad article fails alone with a reason a person can act on."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from steadypress.targets.site.target import SiteTarget
from tests.fakes.clock import ManualClock
from tests.fakes.devto import FakeForem
from tests.helpers import Repo, article, run_cli


def dead_reason(repo: Repo, key: str) -> str:
    dead = repo.ledger().dead
    assert key in dead, f"{key} is not dead-lettered: {sorted(dead)}"
    return dead[key].last_error or ""


def everything_written(repo: Repo, result_text: str) -> str:
    """All the text a run left behind: its output, every state commit, every dead letter."""
    state = repo.git("log", "-p", "--all", "--format=%B")
    letters = "".join(
        path.read_text(encoding="utf-8", errors="replace")
        for path in (repo.root / ".steadypress").rglob("*.md")
    )
    return result_text + state + letters


def test_a_key_a_server_echoes_back_is_recorded_nowhere(
    repo: Repo, forem: FakeForem, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """dev.to refuses an article quoting the API key: the dead letter, the state branch, the
    output and the job summary say why, with the key replaced by ***."""
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    forem.echo_key_in_errors = True
    forem.script = [(422, {})]
    config = f"targets:\n  devto: {{kind: devto, api_url: '{forem.api_url}'}}\n"
    repo.commit(**{"steadypress.yml": config, "content/a.md": article("A")})
    result = run_cli(repo, "run")
    assert result.code == 0, result.err
    reason = dead_reason(repo, "devto:content/a.md")
    assert "***" in reason and "scripted" in reason, reason
    written = everything_written(repo, result.out + result.err + summary.read_text())
    assert forem.api_key not in written


def test_a_secret_pasted_with_a_newline_is_refused_naming_the_variable_only(
    repo: Repo, forem: FakeForem, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A trailing newline would end up quoted in an HTTP library's error: refuse it first."""
    monkeypatch.setenv("DEVTO_API_KEY", forem.api_key + "\n")
    config = f"targets:\n  devto: {{kind: devto, api_url: '{forem.api_url}'}}\n"
    repo.commit(**{"steadypress.yml": config, "content/a.md": article("A")})
    result = run_cli(repo, "run")
    assert result.code == 2
    assert "DEVTO_API_KEY" in result.err and "whitespace" in result.err
    assert forem.api_key not in result.out + result.err
    assert not forem.posts


def test_a_symlinked_theme_file_is_never_read(repo: Repo) -> None:
    """`theme/style.css -> /proc/self/environ` is committed: the site refuses it, naming the
    file, and nothing of the environment reaches the output."""
    os.environ.setdefault("STEADYPRESS_CANARY", "canary-value-4417")
    repo.write("steadypress.yml", "targets:\n  site: {kind: site, theme: theme}\n")
    repo.write("content/a.md", article("A"))
    (repo.root / "theme").mkdir()
    (repo.root / "theme/style.css").symlink_to("/proc/self/environ")
    repo.commit()
    result = run_cli(repo, "run")
    assert result.code == 0, result.err
    assert "theme/style.css is a symlink" in dead_reason(repo, "site:content/a.md")
    site = repo.root / "_site"
    written = (
        b"".join(p.read_bytes() for p in site.rglob("*") if p.is_file()) if site.exists() else b""
    )
    assert b"canary-value-4417" not in written and b"PATH=" not in written


def test_a_symlinked_output_folder_is_not_written_through(repo: Repo, tmp_path: Path) -> None:
    """`_site -> elsewhere`: the site target refuses to write there, and elsewhere is untouched."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    repo.commit(**{"content/a.md": article("A")})
    (repo.root / "_site").symlink_to(elsewhere)
    result = run_cli(repo, "run")
    assert result.code == 0, result.err
    assert list(elsewhere.iterdir()) == []
    assert "refusing to write through the symlink" in dead_reason(repo, "site:content/a.md")


@pytest.mark.parametrize(
    ("name", "text", "reason"),
    [
        ("far-future", article("F", date="'99999-01-01'"), "is not a date"),
        ("edge-of-time", article("E", date="'9999-12-31T23:59:59-01:00'"), "out of range"),
        ("bad-month", article("M", date="2024-13-45"), "not valid YAML"),
        (
            "alias-bomb",
            "---\ntitle: B\na: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a]\n---\n",
            "YAML alias",
        ),
        ("script-cover", article("S", cover_image="'javascript:alert(4)'"), "not an http(s) URL"),
        ("typo-target", article("T", targets="[sitee]"), "'sitee', which is not a configured"),
    ],
)
def test_a_bad_article_is_dead_lettered_with_its_reason_while_others_publish(
    repo: Repo, name: str, text: str, reason: str
) -> None:
    repo.commit(**{f"content/{name}.md": text, "content/good.md": article("Good")})
    result = run_cli(repo, "run")
    assert result.code == 0, result.err
    assert reason in dead_reason(repo, f"site:content/{name}.md")
    assert "site:content/good.md" in repo.ledger().published
    assert (repo.root / "_site/good/index.html").exists()


@pytest.mark.parametrize("unit", ["> 1. ", "> ", "* > "])
def test_an_article_nested_a_hundred_thousand_deep_is_published(repo: Repo, unit: str) -> None:
    """Containers nested past any real article (100 KB of `> 1. `) are rendered in the run's
    own process: cmark-gfm walks its tree without recursing. A renderer that follows them down
    on its stack (markdown-it.rs, once weighed as the renderer: a segmentation fault, here and in
    every later run that claims the article) fails this test by killing it."""
    body = unit * (100_000 // len(unit)) + "deep"
    repo.commit(**{"content/deep.md": article("Deep", body=body)})
    result = run_cli(repo, "run")
    assert result.code == 0, result.err
    assert "site:content/deep.md" in repo.ledger().published
    page = (repo.root / "_site/deep/index.html").read_text()
    article_html = page[page.index("<article>") : page.index("</article>")]
    assert article_html.count("<blockquote>") >= 20 and "deep" in article_html


def test_a_byte_order_mark_is_not_mistaken_for_missing_front_matter(repo: Repo) -> None:
    repo.commit(**{"content/bom.md": "\ufeff" + article("With a BOM")})
    assert run_cli(repo, "run").code == 0
    assert "site:content/bom.md" in repo.ledger().published


def test_a_control_character_in_a_title_leaves_the_feed_readable(repo: Repo) -> None:
    bell = '---\ntitle: "Bell\\x07 rings"\n---\n'  # YAML's escape: a real BEL character
    repo.commit(**{"content/a.md": bell, "content/b.md": article("B")})
    assert run_cli(repo, "run").code == 0
    feed = ET.fromstring((repo.root / "_site/feed.xml").read_bytes())  # noqa: S314 - our own file
    titles = [element.text for element in feed.iter("{http://www.w3.org/2005/Atom}title")]
    assert "Bell rings" in titles and "B" in titles


def test_a_file_name_with_a_star_is_dated_by_its_own_history(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`content/a*.md` is a name, not a glob: its dates come from its own commits, not from a
    newer commit of `content/ab.md`, which the glob would also match."""
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2001-01-01T00:00:00Z")
    repo.commit(**{"content/a*.md": article("Star")})
    monkeypatch.delenv("GIT_COMMITTER_DATE")
    repo.commit(**{"content/ab.md": article("AB")})
    assert run_cli(repo, "run").code == 0
    star = next(
        p for p in (repo.root / "_site").rglob("index.html") if "Star</h1>" in p.read_text()
    )
    assert 'datetime="2001-01-01T00:00:00Z"' in star.read_text()


def test_a_pending_item_outside_content_is_dead_lettered_and_blocks_no_push(repo: Repo) -> None:
    """A tampered ledger names `content/../../etc/x.md`: that item becomes a dead letter saying
    why, and the push's own article is published by the same drain."""
    first = repo.commit(**{"content/a.md": article("A")})
    assert run_cli(repo, "run").code == 0
    pending = repo.state_file("state/pending.json").decode()
    key = "site:content/../../etc/x.md"
    item = (
        f'"{key}": {{"attempts": 0, "blob": "{repo.blob("content/a.md")}", "commit": "{first}", '
        '"enqueued_at": "2026-01-01T00:00:00Z", "path": "content/../../etc/x.md", "target": "site"}'
    )
    repo.overwrite_state_file(
        "state/pending.json", pending.replace('"pending": {}', '"pending": {' + item + "}").encode()
    )
    after = repo.commit(**{"content/b.md": article("B")})
    result = run_cli(repo, "drain", "--push", first, after)
    assert result.code == 0, result.err
    assert "not an article path" in dead_reason(repo, key)
    assert "site:content/b.md" in repo.ledger().published


def test_an_article_where_the_site_puts_its_tag_pages_is_dead_lettered(repo: Repo) -> None:
    """`content/tags/markdown.md` would replace the generated page /tags/markdown/ (and its
    removal would delete it): refused, with the reason."""
    repo.commit(
        **{
            "content/tags/markdown.md": article("Mine"),
            "content/a.md": article("A", tags="[markdown]"),
        }
    )
    assert run_cli(repo, "run").code == 0
    assert "pages the site generates under /tags/" in dead_reason(
        repo, "site:content/tags/markdown.md"
    )
    assert "A" in (repo.root / "_site/tags/markdown/index.html").read_text()


def test_a_name_too_long_for_the_disk_fails_alone_in_its_batch(repo: Repo) -> None:
    """One article whose URL cannot be a folder name; the 19 others claimed with it publish."""
    long_name = "x" * 230
    files = {f"content/p{n:02d}.md": article(f"P{n}") for n in range(19)}
    repo.commit(**files, **{f"content/{long_name}.md": article("Long")})
    assert run_cli(repo, "run").code == 0
    assert "at most 200" in dead_reason(repo, f"site:content/{long_name}.md")
    assert len(repo.ledger().published) == 19


def test_a_tampered_site_manifest_deletes_nothing_outside_the_site(
    repo: Repo, tmp_path: Path
) -> None:
    """A manifest naming `../../victim` as a page: the publish refuses to trust it, and the
    file outside the site is still there."""
    victim = tmp_path / "victim" / "index.html"
    victim.parent.mkdir()
    victim.write_text("keep me")
    repo.commit(**{"content/a.md": article("A")})
    assert run_cli(repo, "run").code == 0
    (manifest,) = repo.root.glob("_site/.steadypress/articles/*.json")  # the article's entry
    escape = "../../victim"
    manifest.write_text(manifest.read_text().replace('"slug": "a"', f'"slug": "{escape}"'))
    repo.commit(**{"content/a.md": article("A, renamed")})
    result = run_cli(repo, "run")
    assert victim.read_text() == "keep me"
    assert "cannot be read" in result.err + str(repo.ledger().pending.get("site:content/a.md"))


def test_dead_letters_are_not_written_through_a_symlinked_folder(
    repo: Repo, tmp_path: Path
) -> None:
    """`.steadypress -> elsewhere`: the dead item is recorded, its letter is not written there
    (the sweeper keeps trying once the link is gone)."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    repo.commit(**{"content/bad.md": "no front matter"})
    (repo.root / ".steadypress").symlink_to(elsewhere)
    assert run_cli(repo, "run").code == 0
    assert list(elsewhere.iterdir()) == []
    dead = repo.ledger().dead["site:content/bad.md"]
    assert dead.alert is None


def test_workflow_commands_in_file_names_are_not_obeyed(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Inside Actions, output starts with `::stop-commands::TOKEN`; only steadypress's own
    annotations come after `::TOKEN::`, each escaped as GitHub documents."""
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    repo.commit(**{"content/x\n::error::pwned.md": "no front matter", "content/a.md": article("A")})
    result = run_cli(repo, "run", "--backend", "local")
    lines = result.out.splitlines()
    assert lines[0].startswith("::stop-commands::")
    token = lines[0].removeprefix("::stop-commands::")
    assert len(token) >= 32
    resume = lines.index(f"::{token}::")
    assert all(not line.startswith("::") for line in lines[1:resume])
    annotations = [line for line in lines[resume + 1 :] if line.startswith("::")]
    assert annotations and all("\n" not in line for line in annotations)
    assert "%0A::error::pwned.md" in annotations[0]


def test_a_dead_letter_for_a_name_that_is_not_utf8_says_which_file(repo: Repo) -> None:
    """git allows any bytes in a name: the letter shows it escaped, and is never left empty."""
    name = b"content/caf\xe9.md"
    (repo.root / "content").mkdir(parents=True)
    with open(repo.root.as_posix().encode() + b"/" + name, "wb") as handle:
        handle.write(b"no front matter")
    repo.commit()
    assert run_cli(repo, "run").code == 0
    letters = list((repo.root / ".steadypress/dead-letters").glob("*.md"))
    assert len(letters) == 1
    text = letters[0].read_text(encoding="utf-8")
    assert "caf\\udce9.md" in text or "caf\\xe9.md" in text, text


def test_a_symlinked_article_is_dead_lettered_saying_so(repo: Repo) -> None:
    """`content/env.md -> /proc/self/environ` is never followed, and never silently skipped."""
    (repo.root / "content").mkdir()
    (repo.root / "content/env.md").symlink_to("/proc/self/environ")
    repo.commit(**{"content/a.md": article("A")})
    assert run_cli(repo, "run").code == 0
    assert "is a symlink" in dead_reason(repo, "site:content/env.md")
    assert "site:content/a.md" in repo.ledger().published


def test_an_uncommitted_configuration_is_not_used_and_the_run_says_so(repo: Repo) -> None:
    repo.commit(**{"content/a.md": article("A")})
    repo.write("steadypress.yml", "targets:\n  site: {kind: site, dir: elsewhere}\n")
    result = run_cli(repo, "run")
    assert result.code == 0
    assert "steadypress.yml has changes that are not committed" in result.err
    assert (repo.root / "_site/a/index.html").exists() and not (repo.root / "elsewhere").exists()


@pytest.mark.parametrize("broken", [".steadypress/months/2026-01.json", "sitemap-pages-0.xml"])
def test_a_site_file_steadypress_cannot_read_stops_the_publish_with_a_remedy_that_works(
    repo: Repo, broken: str
) -> None:
    """A file of the site's index, or a sitemap, that no longer parses: the publish is put off,
    naming the file and how to recover, and the file is left as it is (rewriting it would
    forget the articles it lists). Doing what the error says brings back the whole site: its
    month page and its sitemaps list every article, the one put off too."""
    fast = "timings: {grace: 0s, backoff_initial: 0s, backoff_max: 0s}\n"
    repo.commit(
        **{"steadypress.yml": fast,
           "content/a.md": article("A", date="2026-01-02"),
           "content/b.md": article("B", date="2026-01-03")}
    )  # fmt: skip
    assert run_cli(repo, "run").code == 0
    site = repo.root / "_site"
    (site / broken).write_text("{not what it was")
    repo.commit(**{"content/c.md": article("C", date="2026-01-04")})
    result = run_cli(repo, "run")
    assert result.code == 1
    assert f"{broken} in the site cannot be read" in result.err
    remedy = "delete .steadypress/ and the sitemaps (sitemap*.xml, sitemaps/) from the site"
    assert remedy in result.err
    assert (site / broken).read_text() == "{not what it was"
    shutil.rmtree(site / ".steadypress")
    for sitemap in site.glob("sitemap*.xml"):
        sitemap.unlink()
    result = run_cli(repo, "run")
    assert result.code == 0, result.err
    month = (site / "archive/2026/01/index.html").read_text()
    assert all(f'href="/{slug}/"' in month for slug in "abc"), month
    listed = "".join(path.read_text() for path in site.glob("sitemap-*.xml"))
    assert all(f"/{slug}/</loc>" in listed for slug in "abc"), listed


def test_workflow_commands_stop_before_a_buffered_process_prints_a_file_name(
    repo: Repo,
) -> None:
    """A real process as a runner starts it (stdout to a pipe, so buffered; no
    PYTHONUNBUFFERED), its two streams in one log in the order they arrive: the stop comes
    first, the author's text never arrives while commands are on, and they are off again
    after steadypress's own annotations."""
    repo.commit(**{"content/x\n::error::pwned.md": "no front matter", "content/a.md": article("A")})
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    process = subprocess.run(
        [
            sys.executable,
            "-m",
            "steadypress",
            "run",
            "--backend",
            "local",
            "--repo",
            str(repo.root),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**environment, "GITHUB_ACTIONS": "true"},
        text=True,
        timeout=120,
        check=False,
    )
    lines = process.stdout.splitlines()
    assert lines[0].startswith("::stop-commands::"), lines[:3]
    token = lines[0].removeprefix("::stop-commands::")
    resume = lines.index(f"::{token}::")
    pwned = [n for n, line in enumerate(lines) if line.startswith("::error::pwned")]
    assert pwned and all(n < resume for n in pwned)
    stopped_again = next(
        n for n, line in enumerate(lines) if n > resume and "stop-commands" in line
    )
    assert all(line.startswith("::error ") for line in lines[resume + 1 : stopped_again])


def test_a_name_that_is_not_utf8_and_a_tag_too_long_for_a_folder_fail_alone(repo: Repo) -> None:
    """Each is refused at the start, saying why; the healthy article of the same push
    publishes (both once stopped the whole batch, then made every article a dead letter)."""
    (repo.root / "content").mkdir(parents=True)
    with open(repo.root.as_posix().encode() + b"/content/caf\xe9.md", "wb") as handle:
        handle.write(article("Café").encode())
    repo.commit(**{
        "steadypress.yml": "max_attempts: 1\ntargets:\n  site: {kind: site}\n",
        "content/a.md": article("A"),
        "content/t.md": article("T", tags="[" + "x" * 300 + "]"),
    })  # fmt: skip
    result = run_cli(repo, "run")
    assert result.code == 0 and "Traceback" not in result.err
    assert sorted(repo.ledger().published) == ["site:content/a.md"]
    assert "file name is not UTF-8" in dead_reason(repo, "site:content/caf\udce9.md")
    assert "300 bytes as a URL; at most 200" in dead_reason(repo, "site:content/t.md")


def test_an_article_whose_write_fails_fails_alone(repo: Repo) -> None:
    """A write the file system refuses for one article (its folder is a file someone put in
    the site) fails the batch's write whole; the write is made again in halves, so that
    article alone is the failure and the others publish."""
    files = {f"content/p{n}.md": article(f"P{n}") for n in range(6)}
    repo.commit(**{
        "steadypress.yml": "max_attempts: 1\ntargets:\n  site: {kind: site}\n",
        **files,
        "content/blocked/post.md": article("Blocked"),
    })  # fmt: skip
    (repo.root / "_site").mkdir()
    (repo.root / "_site/blocked").write_text("someone's file\n")
    result = run_cli(repo, "run")
    assert result.code == 0, result.err
    ledger = repo.ledger()
    assert sorted(ledger.published) == sorted(f"site:{path}" for path in files)
    assert "Not a directory" in dead_reason(repo, "site:content/blocked/post.md")
    assert (repo.root / "_site/blocked").read_text() == "someone's file\n"


def test_pending_work_for_files_the_content_never_had_is_dropped_unpublished(repo: Repo) -> None:
    """A tampered or foreign ledger names articles that do not exist, with a real blob id, at
    this repository's head or at a commit it does not hold: nothing is published for them (it
    once published a page for each, or stopped every run at git's error), each is dropped with
    a line saying so, and the run exits 0."""
    repo.commit(
        **{"steadypress.yml": "targets:\n  site: {kind: site}\n", "content/a.md": article("A")}
    )
    assert run_cli(repo, "run").code == 0
    blob, head = repo.blob("content/a.md"), repo.head()
    foreign = "ab" * 20  # a commit this repository does not hold
    ghosts = {
        f"site:content/ghost{n}.md": {
            "target": "site", "path": f"content/ghost{n}.md", "blob": blob,
            "commit": head if n % 2 else foreign,
            "enqueued_at": "2026-01-01T00:00:00Z", "not_before": "2026-01-01T00:00:00Z",
            "attempts": 0,
        }
        for n in range(5)
    }  # fmt: skip
    kept = json.loads(repo.state_file("state/pending.json"))  # its counts and marker's commit
    repo.overwrite_state_file(
        "state/pending.json", json.dumps({**kept, "pending": ghosts}).encode()
    )
    result = run_cli(repo, "run")
    assert result.code == 0 and "5 dropped (no such file)" in result.out
    assert "dropped site:content/ghost0.md" in result.err
    ledger = repo.ledger()
    assert not ledger.pending and not ledger.dead
    assert sorted(ledger.published) == ["site:content/a.md"]
    assert not (repo.root / "_site/ghost0").exists()


def test_a_stale_git_lock_on_the_state_branch_is_named_with_the_way_out(repo: Repo) -> None:
    """A lock file a killed git left: the run stops at once (no retrying a lock that will not
    go), exit 3, naming the file and what to do; once it is deleted the run goes on."""
    repo.commit(**{"content/a.md": article("A")})
    assert run_cli(repo, "run").code == 0
    repo.commit(**{"content/b.md": article("B")})
    lock = repo.root / ".git/refs/heads/steadypress-state.lock"
    lock.write_text("")
    os.utime(lock, (1_000_000_000, 1_000_000_000))
    result = run_cli(repo, "run")
    assert result.code == 3
    assert f"git's lock {lock} is there" in result.err and "delete that file" in result.err
    assert "Traceback" not in result.err
    lock.unlink()
    assert run_cli(repo, "run").code == 0
    assert "site:content/b.md" in repo.ledger().published


def test_a_git_lock_held_meanwhile_is_retried_and_named_if_it_stays(repo: Repo) -> None:
    """A fresh lock may be another git's for a moment: retried as a lost race, and if it
    stays for every retry, the message names it."""
    repo.commit(**{"content/a.md": article("A")})
    assert run_cli(repo, "run").code == 0
    repo.commit(**{"content/b.md": article("B")})
    (repo.root / ".git/refs/heads/steadypress-state.lock").write_text("")
    result = run_cli(repo, "run", clock=ManualClock())
    assert result.code == 3
    assert "conflicting writes: git's lock" in result.err


def test_a_write_that_fails_whatever_it_holds_is_tried_three_times_not_once_an_article(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Splitting is for one article's fault: when both halves fail as the whole did, the
    fault is the write's, and the run stops splitting (each article fails with it)."""
    calls: list[int] = []

    def failing(self: SiteTarget, work: list[Any], **_options: Any) -> list[Any]:
        calls.append(len(work))
        raise RuntimeError("the disk is on fire")

    monkeypatch.setattr(SiteTarget, "publish_batch", failing)
    files = {f"content/p{n}.md": article(f"P{n}") for n in range(7)}
    repo.commit(**{"steadypress.yml": "targets:\n  site: {kind: site}\n", **files})
    result = run_cli(repo, "run")
    assert result.code == 1 and "7 deferred" in result.out
    assert calls == [7, 3, 4]
