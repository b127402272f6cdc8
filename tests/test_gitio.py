"""The git runner: a streamed command's output as it comes, its failure named, and git stopped
when the reader has what it wanted; trees read and written many to a process."""

import argparse
import contextlib
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from steadypress import commands
from steadypress.errors import GitFailed
from steadypress.gitio import PACK_FROM, Git, SettledGit
from tests.helpers import Repo, article, recorded_git


def test_a_streamed_command_gives_its_whole_output(repo: Repo) -> None:
    repo.commit(**{f"content/{n}.md": article(f"A{n}") for n in range(3)})
    streamed = b"".join(Git(repo.root).stream("log", "--name-only", "--format=%H"))
    assert streamed.decode().strip() == repo.git("log", "--name-only", "--format=%H")


def test_a_streamed_command_that_fails_says_what_git_said(repo: Repo) -> None:
    repo.commit(**{"content/a.md": article("A")})
    with pytest.raises(GitFailed, match="no-such-revision"):
        b"".join(Git(repo.root).stream("log", "--end-of-options", "no-such-revision"))


def test_closing_a_stream_early_stops_git(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reader that has what it wanted closes the stream: git is stopped and reaped, and no
    error is made of it."""
    repo.commit(**{"content/a.md": article("A")})
    started: list[subprocess.Popen[bytes]] = []
    real_popen = subprocess.Popen

    def popen(*args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        started.append(process := real_popen(*args, **kwargs))
        return process

    monkeypatch.setattr("steadypress.gitio.subprocess.Popen", popen)
    # `yes` through git: output without end, which only stopping it ends.
    with contextlib.closing(Git(repo.root).stream("-c", "alias.y=!yes", "y")) as output:
        assert next(output).startswith(b"y\n")
    (process,) = started
    assert process.returncode is not None, "stopped and reaped"


def test_trees_written_and_read_in_one_process_each_are_what_git_lists(repo: Repo) -> None:
    """`Objects` makes the trees `mktree` would (entries in git's order, a folder's name
    sorting as if it ended in "/"), all in one process with the blob they name, and
    `read_trees` reads them as `ls-tree` lists them."""
    git = Git(repo.root)
    batch = git.objects()
    blob = batch.blob(b"a file\n")
    inner = batch.tree([("100644", "blob", blob, "x.json")])
    trees = [
        [("100644", "blob", blob, "a.json"), ("040000", "tree", inner, "a"),
         ("100755", "blob", blob, "run"), ("120000", "blob", blob, "link")],
        [("100644", "blob", blob, "only")],
    ]  # fmt: skip
    written = [batch.tree(tree) for tree in trees]
    batch.write()
    made = [repo.git("mktree", stdin="".join(f"{m} {k} {o}\t{n}\n" for m, k, o, n in tree))
            for tree in trees]  # fmt: skip
    assert written == made
    assert git.read_trees(written) == [git.list_tree(tree) for tree in written]
    assert git.read_trees([written[0]])[0]["a"] == ("040000", "tree", inner)
    with pytest.raises(GitFailed):
        git.read_trees(["0" * 40])


def test_a_command_s_setup_reads_through_one_git_process(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The setup asks after the content branch from several places (its default, its revision,
    the committed configuration, the notice about the checkout): each revision is resolved and
    the configuration read once, all through one `cat-file --batch` (a process each, six in
    all, before), and the remote's default branch asked only where there is one. Later reads
    of the branch's head (each claim's) are not kept: a live executor sees new commits."""
    repo.commit(**{"content/a.md": article("A"), "steadypress.yml": "content_dir: content\n"})
    ran = recorded_git(monkeypatch)
    config, chosen = commands._configured(repo.root, argparse.Namespace(config=None, ref=None))
    assert chosen.revision == "refs/heads/main" and config.content_dir == "content"
    # Whether a clone recorded the remote's default branch (no), then git's configured one.
    assert [args[:2] for args in ran] == [("cat-file", "--batch"), ("config", "--get")]
    with SettledGit(repo.root) as settled:
        before = settled.resolve("HEAD")
        repo.commit(**{"content/b.md": article("B")})
        assert settled.resolve("HEAD") == before != Git(repo.root).resolve("HEAD")


def test_a_settled_read_finds_what_git_finds(repo: Repo) -> None:
    """A file in a folder, a symlink (its mode says so), a folder or a name that is not there,
    a name with spaces, and a revision that names nothing, read as `Git` reads them; a name
    beside them that is not UTF-8 is no obstacle."""
    (repo.root / os.fsdecode(b"caf\xe9.txt")).write_bytes(b"Latin-1\n")
    repo.commit(**{"a/b c.md": "spaced\n", "top.yml": "top\n"})
    (repo.root / "link.yml").symlink_to("top.yml")
    repo.git("add", "link.yml")
    repo.git("commit", "-q", "-m", "a symlink")
    plain = Git(repo.root)
    with SettledGit(repo.root) as settled:
        for path in ("a/b c.md", "top.yml", "link.yml", "a", "a/none.md", "none/b c.md"):
            assert settled.read_file("HEAD", path) == plain.read_file("HEAD", path), path
        assert (settled.read_file("HEAD", "link.yml") or ("",))[0] == "120000"
        assert settled.resolve("HEAD~1^{commit}") == plain.resolve("HEAD~1^{commit}")
        assert settled.resolve("refs/heads/none^{commit}") is None
        with pytest.raises(GitFailed):
            settled.read_file("refs/heads/none", "top.yml")
    with pytest.raises(GitFailed):
        plain.read_file("refs/heads/none", "top.yml")


@pytest.mark.parametrize("count", [1, PACK_FROM])
def test_objects_written_in_a_repository_of_another_object_format_are_refused(
    tmp_path: Path, count: int
) -> None:
    """The ids are computed here (SHA-1); a repository of another object format refuses the
    pack, loose or kept, rather than leave a commit naming objects that are not there."""
    subprocess.run(["git", "init", "-q", "--object-format=sha256", str(tmp_path)], check=True)
    git = Git(tmp_path)
    objects = git.objects()
    blobs = [objects.blob(b"file %d\n" % n) for n in range(count)]
    objects.tree([("100644", "blob", blobs[0], "a.json")])
    with pytest.raises(GitFailed):
        objects.write()
    assert not list((tmp_path / ".git" / "objects" / "pack").glob("*.pack"))


def test_a_write_checks_each_object_as_fsck_does(repo: Repo) -> None:
    """A tree naming a file twice is written by no write, loose or packed: git finds it
    broken (`--strict`), as `fsck` would."""
    git = Git(repo.root)
    for count in (1, PACK_FROM):
        objects = git.objects()
        blobs = [objects.blob(b"file %d\n" % n) for n in range(count)]
        twice = [("100644", "blob", blobs[0], "a.json")] * 2
        broken = objects.tree(twice)
        with pytest.raises(GitFailed):
            objects.write()
        assert git.read_objects([broken]) == [None]
