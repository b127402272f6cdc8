"""The fake's storage: a real bare git repository, changed with plumbing under one lock."""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path

IDENTITY = {
    "GIT_AUTHOR_NAME": "github-actions[bot]",
    "GIT_AUTHOR_EMAIL": "41898282+github-actions[bot]@users.noreply.github.com",
    "GIT_COMMITTER_NAME": "GitHub",
    "GIT_COMMITTER_EMAIL": "noreply@github.com",
}


class BareRepository:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock = threading.RLock()  # GitHub applies a ref update atomically; so does the fake
        # What a commit holds never changes, so reads by commit id are kept (a fast fake is what
        # lets the chaos scenarios run thousands of requests).
        self._at_commit: dict[tuple[str, str], tuple[str, bytes] | None] = {}
        # One `git cat-file --batch` answers every file read, instead of a process a file (a
        # chaos story reads thousands: a process each was a quarter of its time).
        self._reader: subprocess.Popen[bytes] | None = None
        self._reader_lock = threading.Lock()
        subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True)

    def git(
        self, *args: str, stdin: bytes | None = None, env: Mapping[str, str] | None = None
    ) -> bytes:
        completed = subprocess.run(
            ["git", "--git-dir", str(self.path), *args], input=stdin, capture_output=True,
            env={**os.environ, **IDENTITY, **(env or {})}, check=True,
        )  # fmt: skip
        return completed.stdout

    def text(self, *args: str, stdin: bytes | None = None) -> str:
        return self.git(*args, stdin=stdin).decode().strip()

    def head_of(self, branch: str) -> str | None:
        try:
            return self.text("rev-parse", "--verify", "-q", f"refs/heads/{branch}^{{commit}}")
        except subprocess.CalledProcessError:
            return None

    def exists(self, oid: str, kind: str) -> bool:
        try:
            return self.text("cat-file", "-t", oid) == kind
        except subprocess.CalledProcessError:
            return False

    def blob_at(self, commit: str, path: str) -> tuple[str, bytes] | None:
        if (commit, path) not in self._at_commit:
            self._at_commit[commit, path] = self._read_blob_at(commit, path)
        return self._at_commit[commit, path]

    def _read_blob_at(self, commit: str, path: str) -> tuple[str, bytes] | None:
        # `cat-file --batch` answers "<oid> <type> <size>", the bytes and a newline, or
        # "<name> missing" (or "ambiguous"); a name holding a newline cannot be asked this way.
        if "\n" in path:
            return None
        with self._reader_lock:
            reader = self._batch_reader()
            assert reader.stdin is not None and reader.stdout is not None
            reader.stdin.write(f"{commit}:{path}\n".encode())
            reader.stdin.flush()
            fields = reader.stdout.readline().split()
            if len(fields) != 3:
                return None
            data = reader.stdout.read(int(fields[2]) + 1)[:-1]
        return (fields[0].decode(), data) if fields[1] == b"blob" else None

    def _batch_reader(self) -> subprocess.Popen[bytes]:
        if self._reader is None or self._reader.poll() is not None:
            self._reader = subprocess.Popen(
                ["git", "--git-dir", str(self.path), "cat-file", "--batch"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, env={**os.environ, **IDENTITY},
            )  # fmt: skip
        return self._reader

    def close(self) -> None:
        """End the batch reader (the fake's exit)."""
        with self._reader_lock:
            if self._reader is not None:
                self._reader.communicate()
                self._reader = None

    def tree_entries(self, commit: str, path: str) -> list[tuple[str, str]] | None:
        """(name, type) of each entry of the folder `path` at `commit` (type: `blob`, `tree`),
        or None when it is not a folder."""
        try:
            if self.text("cat-file", "-t", f"{commit}:{path}") != "tree":
                return None
        except subprocess.CalledProcessError:
            return None
        listing = self.text("ls-tree", f"{commit}:{path}")
        return [(line.split("\t", 1)[1], line.split()[1]) for line in listing.splitlines()]

    def write_blob(self, data: bytes) -> str:
        return self.text("hash-object", "-w", "--stdin", stdin=data)

    def write_blobs(self, contents: Iterable[bytes]) -> list[str]:
        """`write_blob` for many, in one process."""
        with tempfile.TemporaryDirectory() as scratch:
            paths = []
            for number, data in enumerate(contents):
                (Path(scratch) / str(number)).write_bytes(data)
                paths.append(str(Path(scratch) / str(number)))
            if not paths:
                return []
            listing = "".join(f"{path}\n" for path in paths).encode()
            return self.text("hash-object", "-w", "--stdin-paths", stdin=listing).split()

    def write_tree(
        self, files: Mapping[str, str], base_tree: str | None = None, removed: Iterable[str] = ()
    ) -> str:
        """A tree holding `files` (path -> blob id) on top of `base_tree`, less `removed`."""
        with tempfile.TemporaryDirectory() as folder:
            env = {"GIT_INDEX_FILE": str(Path(folder) / "index")}
            if base_tree:
                self.git("read-tree", base_tree, env=env)
            # Mode 0 removes the entry: the way --index-info spells a deletion (no work tree here).
            entries = "".join(f"100644 {oid}\t{path}\n" for path, oid in files.items())
            entries += "".join(f"0 {'0' * 40}\t{path}\n" for path in removed)
            if entries:
                self.git("update-index", "--index-info", stdin=entries.encode(), env=env)
            return self.git("write-tree", env=env).decode().strip()

    def write_commit(self, tree: str, parents: list[str], message: str) -> str:
        args = [arg for parent in parents for arg in ("-p", parent)]
        return self.text("commit-tree", tree, *args, stdin=message.encode())

    def move_branch(self, branch: str, new: str, expected: str | None) -> bool:
        """Compare-and-swap the branch: False when it no longer points at `expected`."""
        try:
            self.git("update-ref", f"refs/heads/{branch}", new, expected or "0" * 40)
        except subprocess.CalledProcessError:
            return False
        return True

    def edit(self, branch: str, files: Mapping[str, bytes], message: str) -> bool:
        """A commit on `branch` of `files` (path -> bytes) over its head, as someone with push
        access makes one by hand; False when the branch moved meanwhile."""
        head = self.head_of(branch)
        if head is None:
            raise ValueError(f"no branch {branch}")
        blobs = {path: self.write_blob(data) for path, data in files.items()}
        tree = self.write_tree(blobs, self.tree_of(head))
        return self.move_branch(branch, self.write_commit(tree, [head], message), head)

    def commit_message(self, commit: str) -> str:
        return self.git("cat-file", "commit", commit).decode().split("\n\n", 1)[1]

    def tree_of(self, commit: str) -> str:
        return self.text("rev-parse", f"{commit}^{{tree}}")
