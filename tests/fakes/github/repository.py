"""The fake's storage: a real bare git repository, changed with plumbing under one lock."""

from __future__ import annotations

import contextlib
import hashlib
import os
import subprocess
import tempfile
import threading
import zlib
from collections.abc import Iterable, Mapping
from pathlib import Path

IDENTITY = {
    "GIT_AUTHOR_NAME": "github-actions[bot]",
    "GIT_AUTHOR_EMAIL": "41898282+github-actions[bot]@users.noreply.github.com",
    "GIT_COMMITTER_NAME": "GitHub",
    "GIT_COMMITTER_EMAIL": "noreply@github.com",
}


# The type of a tree entry by its mode; every other mode is a file's (blob).
_ENTRY_KINDS = {b"40000": "tree", b"160000": "commit"}


class BareRepository:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock = threading.RLock()  # GitHub applies a ref update atomically; so does the fake
        # What a commit holds never changes, so reads by commit id are kept (a fast fake is what
        # lets the chaos scenarios run thousands of requests).
        self._at_commit: dict[tuple[str, str], tuple[str, bytes] | None] = {}
        # One `git cat-file --batch-command` answers every read of an object or a branch head,
        # instead of a process each (a chaos story reads thousands: a process each was a quarter
        # of its time), and blobs are written without one.
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
        found = self._info(f"refs/heads/{branch}^{{commit}}")
        return None if found is None else found[0]

    def exists(self, oid: str, kind: str) -> bool:
        found = self._info(oid) if oid else None
        return found is not None and found[1] == kind

    def blob_at(self, commit: str, path: str) -> tuple[str, bytes] | None:
        if (commit, path) not in self._at_commit:
            found = self._contents(f"{commit}:{path}")
            blob = found is not None and found[1] == "blob"
            self._at_commit[commit, path] = (found[0], found[2]) if found and blob else None
        return self._at_commit[commit, path]

    def blob(self, oid: str) -> bytes | None:
        """The bytes of the blob `oid`, or None when there is no such blob."""
        found = self._contents(oid) if oid else None
        return found[2] if found is not None and found[1] == "blob" else None

    def _info(self, name: str) -> tuple[str, str] | None:
        """(object id, type) of what `name` names, or None."""
        found = self._ask("info", name)
        return None if found is None else (found[0], found[1])

    def _contents(self, name: str) -> tuple[str, str, bytes] | None:
        """(object id, type, bytes) of what `name` names, or None."""
        return self._ask("contents", name)

    def _ask(self, command: str, name: str) -> tuple[str, str, bytes] | None:
        # `cat-file --batch-command` answers "<oid> <type> <size>" (and for `contents` the
        # bytes and a newline), or "<name> missing" (or "ambiguous"), whatever spaces the name
        # holds; a name holding a newline cannot be asked this way. Refs are read afresh each
        # time, and an object written since the process started is found.
        if "\n" in name:
            return None
        with self._reader_lock:
            reader = self._batch_reader()
            assert reader.stdin is not None and reader.stdout is not None
            reader.stdin.write(f"{command} {name}\n".encode())
            reader.stdin.flush()
            fields = reader.stdout.readline().split()
            if not fields:
                raise RuntimeError(f"git cat-file ended in {self.path}")
            if fields[-1] in (b"missing", b"ambiguous"):
                return None
            data = reader.stdout.read(int(fields[2]) + 1)[:-1] if command == "contents" else b""
        return fields[0].decode(), fields[1].decode(), data

    def _batch_reader(self) -> subprocess.Popen[bytes]:
        if self._reader is None or self._reader.poll() is not None:
            self._reader = subprocess.Popen(
                ["git", "--git-dir", str(self.path), "cat-file", "--batch-command"],
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
        found = self._contents(f"{commit}:{path}")
        if found is None or found[1] != "tree":
            return None
        # A tree object is a run of "<mode> <name>\0" and 20 bytes of object id
        # (gitformat-index(5), "tree objects"); a folder's mode is 40000, a submodule's 160000.
        entries, position, data = [], 0, found[2]
        while position < len(data):
            name_end = data.index(b"\0", position)
            mode, name = data[position:name_end].split(b" ", 1)
            entries.append((name.decode(), _ENTRY_KINDS.get(mode, "blob")))
            position = name_end + 21
        return entries

    def write_blob(self, data: bytes) -> str:
        """Store `data` as a loose object, as `git hash-object -w` does (gitformat-loose(5)):
        its id the SHA-1 of "blob <size>\0" and the bytes, zlib-compressed under
        objects/<2 hex>/<38 hex>, written whole or not at all."""
        stored = b"blob %d\0" % len(data) + data
        oid = hashlib.sha1(stored, usedforsecurity=False).hexdigest()
        folder = self.path / "objects" / oid[:2]
        if not (folder / oid[2:]).exists():
            folder.mkdir(exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=folder) as scratch:
                scratch.write(zlib.compress(stored, 1))
                scratch.flush()
                # Linked into place, as git does (and never through os.replace, which the
                # chaos stories make fail in the executors this fake serves in-process).
                with contextlib.suppress(FileExistsError):  # written meanwhile, the same
                    os.link(scratch.name, folder / oid[2:])
        return oid

    def write_blobs(self, contents: Iterable[bytes]) -> list[str]:
        return [self.write_blob(data) for data in contents]

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
        found = self._contents(commit)
        if found is None or found[1] != "commit":
            raise ValueError(f"no commit {commit}")
        return found[2].decode().split("\n\n", 1)[1]

    def tree_of(self, commit: str) -> str:
        found = self._info(f"{commit}^{{tree}}")
        if found is None:
            raise ValueError(f"no commit {commit}")
        return found[0]
