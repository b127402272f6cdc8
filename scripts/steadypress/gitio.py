"""A thin runner for the git plumbing steadypress uses; never touches a working tree or index."""

from __future__ import annotations

import os
import re
import struct
import subprocess
import zlib
from collections.abc import Generator, Mapping, Sequence
from pathlib import Path

from steadypress.errors import GitFailed

__all__ = [
    "OBJECT_ID",
    "PACK_FROM",
    "SYMLINK_MODE",
    "ZERO_OID",
    "Git",
    "ObjectReader",
    "Objects",
    "SettledGit",
    "blob_oid",
    "entry_in",
]

ZERO_OID = "0" * 40
# SHA-1 or SHA-256 object ids, lowercase hex, as git prints them.
OBJECT_ID = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")
SYMLINK_MODE = "120000"
# From this many objects a write is one pack, not a file per object: creating files is most of
# the time a large write takes, and each is a block of the disk (a first build of 10^5 wrote
# 378 MB of its state's folders so, and as much again of the scratch files they were hashed
# from). Git draws the same line for what it receives: a push of 100 objects or more is kept
# as a pack (`transfer.unpackLimit`, git-config(1)).
PACK_FROM = 100

# Bytes a streamed command's output is read by.
_STREAMED = 64 * 1024

# Commits made by steadypress must not depend on the user's identity being configured.
_IDENTITY = {
    "GIT_AUTHOR_NAME": "steadypress",
    "GIT_AUTHOR_EMAIL": "steadypress@localhost",
    "GIT_COMMITTER_NAME": "steadypress",
    "GIT_COMMITTER_EMAIL": "steadypress@localhost",
}


def blob_oid(data: bytes) -> str:
    """The id git gives these bytes as a blob: compare content without downloading it."""
    return _object_id("blob", data)


def _object_id(kind: str, data: bytes) -> str:
    """Git's SHA-1 of an object of `kind` holding `data`."""
    import hashlib  # noqa: PLC0415 - OpenSSL's library, loaded once a command hashes

    hashed = hashlib.sha1(b"%s %d\0" % (kind.encode(), len(data)), usedforsecurity=False)
    hashed.update(data)
    return hashed.hexdigest()


class Git:
    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self._env = {**os.environ, **_IDENTITY, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}

    def run(self, *args: str, stdin: bytes | None = None) -> bytes:
        completed = subprocess.run(
            ["git", "-C", str(self.repo), *args],
            input=stdin,
            capture_output=True,
            env=self._env,
            check=False,
        )
        if completed.returncode != 0:
            raise GitFailed(args, completed.returncode, completed.stderr.decode(errors="replace"))
        return completed.stdout

    def stream(self, *args: str) -> Generator[bytes]:
        """The output of a git command as it comes. Closing the iterator before the end stops
        git: a walk of the history that has found what it looked for reads no further."""
        # Its errors go to a file: a pipe nobody reads until the end could fill and stop git.
        import tempfile  # noqa: PLC0415 - with shutil and random: loaded once a command needs it

        with tempfile.TemporaryFile() as errors:
            process = subprocess.Popen(
                ["git", "-C", str(self.repo), *args],
                stdout=subprocess.PIPE, stderr=errors, env=self._env,
            )  # fmt: skip
            assert process.stdout is not None  # noqa: S101 - asked for above; narrows the type
            with process:
                try:
                    while chunk := os.read(process.stdout.fileno(), _STREAMED):
                        yield chunk
                except GeneratorExit:
                    process.kill()
                    raise
            if process.returncode != 0:
                errors.seek(0)
                raise GitFailed(args, process.returncode, errors.read().decode(errors="replace"))

    def text(self, *args: str, stdin: bytes | None = None) -> str:
        return self.run(*args, stdin=stdin).decode().strip()

    def resolve(self, revision: str) -> str | None:
        """The object id `revision` names, or None when it names nothing."""
        try:
            return self.text("rev-parse", "--verify", "--quiet", "--end-of-options", revision)
        except GitFailed:
            return None

    def read_objects(self, specs: Sequence[str]) -> list[tuple[str, bytes] | None]:
        """(object id, contents) of each `<rev>:<path>` or object id; None where there is none."""
        if not specs:
            return []
        output = self.run("cat-file", "--batch", stdin="".join(f"{s}\n" for s in specs).encode())
        results: list[tuple[str, bytes] | None] = []
        position = 0
        for _ in specs:
            end = output.index(b"\n", position)
            header = output[position:end].split(b" ")
            position = end + 1
            if header[-1] in (b"missing", b"ambiguous"):
                results.append(None)
                continue
            size = int(header[2])
            results.append((header[0].decode(), output[position : position + size]))
            position += size + 1
        return results

    def read_file(self, revision: str, path: str) -> tuple[str, str, bytes] | None:
        """(mode, blob id, bytes) of `path` at `revision`, or None when it holds no such file.
        The mode tells a symlink (120000), whose bytes are only the path it points to."""
        listing = self.run("ls-tree", "-z", "--full-tree", "--end-of-options", revision, "--", path)
        entry = listing.split(b"\0")[0]
        if not entry:
            return None
        mode, kind, oid = entry.split(b"\t", 1)[0].decode().split()
        if kind != "blob":
            return None
        found = self.read_objects([oid])[0]
        return None if found is None else (mode, oid, found[1])

    def worktree_commit(self) -> str:
        """A commit of the working tree as it is, uncommitted and untracked files included,
        made with a throwaway index: the user's index, HEAD and branches are not touched."""
        import tempfile  # noqa: PLC0415 - as in stream

        with tempfile.TemporaryDirectory() as scratch:
            index = Path(scratch) / "index"
            git = Git(self.repo)
            git._env = {**self._env, "GIT_INDEX_FILE": str(index)}
            head = self.resolve("HEAD^{commit}")
            if head is not None:
                git.run("read-tree", head)
            git.run("add", "-A")
            tree = git.text("write-tree")
        return self.write_commit(tree, head, "the working tree, for steadypress check\n")

    def list_tree(
        self, tree: str, *, recursive: bool = False, paths: Sequence[str] = ()
    ) -> dict[str, tuple[str, str, str]]:
        """The entries of one tree (or commit): name -> (mode, type, oid); `recursive`: every
        file below it, by its path from the tree; `paths`: only those these pathspecs name. A
        name that is not UTF-8 keeps its bytes escaped (surrogateescape)."""
        entries = {}
        listing = self.run(
            "ls-tree", "-z", *(["-r"] if recursive else []), "--full-tree", "--end-of-options",
            tree, *(["--", *paths] if paths else []),
        )  # fmt: skip
        for entry in listing.split(b"\0"):
            if entry:
                info, name = entry.split(b"\t", 1)
                mode, kind, oid = info.decode().split()
                entries[name.decode("utf-8", errors="surrogateescape")] = (mode, kind, oid)
        return entries

    def read_trees(self, trees: Sequence[str]) -> list[dict[str, tuple[str, str, str]]]:
        """`list_tree` of each of these tree ids, in one git process."""
        listed = []
        for spec, found in zip(trees, self.read_objects(trees), strict=True):
            if found is None:
                raise GitFailed(["cat-file", "--batch"], 128, f"fatal: no tree {spec}\n")
            listed.append(_tree_entries(found[1]))
        return listed

    def reader(self) -> ObjectReader:
        """Reads of objects that depend on each other, in one git process (`ObjectReader`)."""
        return ObjectReader(self.repo, self._env)

    def objects(self) -> Objects:
        """A batch of blobs and trees to make, written together (`Objects.write`)."""
        return Objects(self)

    def write_commit(self, tree: str, parent: str | None, message: str) -> str:
        parents = ["-p", parent] if parent else []
        return self.text("commit-tree", tree, *parents, stdin=message.encode())


class Objects:
    """Blobs and trees made bottom-up and written together. Each id is git's own hash of the
    object (SHA-1, the object format steadypress reads, as ZERO_OID says), computed here, so
    that a folder names its files and subfolders before any is written: a state commit's
    objects, its shards and every folder from theirs up to the root, cost one git process."""

    def __init__(self, git: Git) -> None:
        self._git = git
        self._objects: dict[str, tuple[str, bytes]] = {}

    def blob(self, data: bytes) -> str:
        """The id of a blob of `data`, to be written by `write`."""
        return self._add("blob", data)

    def tree(self, entries: Sequence[tuple[str, str, str, str]]) -> str:
        """The id of the tree holding `entries` ((mode, type, oid, name), in any order), to be
        written by `write`."""
        return self._add("tree", _tree_object(entries))

    def _add(self, kind: str, data: bytes) -> str:
        oid = _object_id(kind, data)
        self._objects[oid] = (kind, data)
        return oid

    def write(self) -> None:
        """Write the objects added since the last write, as git keeps what a push sends it:
        from PACK_FROM of them one pack (`index-pack`), fewer as a file each
        (`unpack-objects`). Both check each object as `fsck` does (`--strict`), and refuse
        the pack in a repository of another object format: no commit then names objects
        that are not there."""
        if not self._objects:
            return
        pack = _pack(list(self._objects.values()))
        if len(self._objects) >= PACK_FROM:
            self._git.run("index-pack", "--stdin", "--strict", stdin=pack)
        else:
            self._git.run("unpack-objects", "-q", "--strict", stdin=pack)
        self._objects.clear()


class ObjectReader:
    """One `git cat-file --batch` kept open, each name asked once the last is answered: reads
    that depend on each other (a branch's head, then files at it) in one git process. Use it
    in a `with` block, which ends that process."""

    def __init__(self, repo: Path, env: Mapping[str, str]) -> None:
        self._repo = repo
        self._env = env
        self._process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> ObjectReader:
        return self

    def __exit__(self, *_exc: object) -> None:
        if self._process is not None:
            self._process.communicate()
            self._process = None

    def read(self, name: str) -> tuple[str, str, bytes] | None:
        """(object id, kind, contents) of what `name` names (a revision as `rev-parse` takes
        it, `<rev>:<path>`, an object id), or None when it names nothing."""
        if "\n" in name or not name:  # one name a line: a name holding a newline names nothing
            return None
        if self._process is None:
            self._process = subprocess.Popen(
                ["git", "-C", str(self._repo), "cat-file", "--batch"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                env=self._env,
            )  # fmt: skip
        process = self._process
        assert process.stdin is not None and process.stdout is not None  # noqa: S101
        process.stdin.write(f"{name}\n".encode())
        process.stdin.flush()
        header = process.stdout.readline().split()
        if not header:  # git ended: not a repository
            raise GitFailed(("cat-file", "--batch"), process.wait(), f"no answer for {name}")
        if header[-1] in (b"missing", b"ambiguous"):  # after the name, whatever spaces it holds
            return None
        contents = process.stdout.read(int(header[2]) + 1)[:-1]
        return header[0].decode(), header[1].decode(), contents


class SettledGit(Git):
    """A `Git` for a moment when no ref is expected to move (a command's setup, which asks
    after the content branch, HEAD and the configuration from several places): each revision
    is resolved once, and each file read once, all through one `ObjectReader` (a process
    each was most of the setup's time). Use it in a `with` block, which ends that reader."""

    def __init__(self, repo: Path) -> None:
        super().__init__(repo)
        self._resolved: dict[str, str | None] = {}
        self._files: dict[tuple[str, str], tuple[str, str, bytes] | None] = {}
        self._reader = ObjectReader(repo, self._env)

    def __enter__(self) -> SettledGit:
        return self

    def __exit__(self, *exc: object) -> None:
        self._reader.__exit__(*exc)

    def resolve(self, revision: str) -> str | None:
        if revision not in self._resolved:
            found = self._reader.read(revision)
            self._resolved[revision] = None if found is None else found[0]
        return self._resolved[revision]

    def read_file(self, revision: str, path: str) -> tuple[str, str, bytes] | None:
        if (revision, path) not in self._files:
            self._files[revision, path] = self._read_file(revision, path)
        return self._files[revision, path]

    def _read_file(self, revision: str, path: str) -> tuple[str, str, bytes] | None:
        # The folder's tree tells the file's mode (a symlink's), which the blob does not.
        if self.resolve(f"{revision}^{{tree}}") is None:
            raise GitFailed(("cat-file", "--batch"), 128, f"fatal: no commit {revision}\n")
        folder, _, name = path.rpartition("/")
        entry = entry_in(self._reader.read(f"{revision}:{folder}"), name)
        if entry is None or entry[1] != "blob":
            return None
        mode, _kind, oid = entry
        blob = self._reader.read(oid)
        return None if blob is None else (mode, oid, blob[2])


def _tree_object(entries: Sequence[tuple[str, str, str, str]]) -> bytes:
    """The bytes of a tree object holding `entries` ((mode, type, oid, name))."""
    # Git orders a tree's entries by name, a folder's as if it ended in "/".
    ordered = sorted(entries, key=lambda e: e[3].encode() + (b"/" if e[1] == "tree" else b""))
    return b"".join(
        f"{mode.lstrip('0')} {name}".encode() + b"\0" + bytes.fromhex(oid)
        for mode, _kind, oid, name in ordered
    )


# The type of each object in a pack (gitformat-pack(5)).
_PACK_TYPES = {"commit": 1, "tree": 2, "blob": 3}


def _pack(objects: Sequence[tuple[str, bytes]]) -> bytes:
    """A pack of version 2 (gitformat-pack(5)) holding these (kind, bytes), each whole (no
    deltas: `git gc` finds those), and its SHA-1 checksum."""
    parts = [b"PACK", struct.pack(">II", 2, len(objects))]
    for kind, data in objects:
        # Type and size: the low 4 bits of the size first, then 7 bits a byte, each byte but
        # the last with its high bit set.
        size = len(data)
        header = bytearray([_PACK_TYPES[kind] << 4 | size & 0x0F])
        size >>= 4
        while size:
            header[-1] |= 0x80
            header.append(size & 0x7F)
            size >>= 7
        parts += [bytes(header), zlib.compress(data)]
    body = b"".join(parts)
    import hashlib  # noqa: PLC0415 - as in _object_id

    return body + hashlib.sha1(body, usedforsecurity=False).digest()


# A tree object's modes, spelt as `ls-tree` spells them, and what each entry is.
_TREE_MODES = {b"40000": ("040000", "tree"), b"160000": ("160000", "commit")}


def entry_in(tree: tuple[str, str, bytes] | None, name: str) -> tuple[str, str, str] | None:
    """The entry `name` (mode, type, oid) of a tree as `ObjectReader.read` gives it; None where
    that is no tree (nothing, or a file by the folder's name) or holds no such entry."""
    if tree is None or tree[1] != "tree":
        return None
    return _tree_entries(tree[2]).get(name)


def _tree_entries(data: bytes) -> dict[str, tuple[str, str, str]]:
    """A tree object's entries (its bytes as `read_objects` gives them) as `list_tree` gives
    them: name -> (mode, type, oid), a name that is not UTF-8 with its bytes escaped."""
    entries = {}
    position = 0
    while position < len(data):
        space = data.index(b" ", position)
        nul = data.index(b"\0", space)
        mode = data[position:space]
        spelt, kind = _TREE_MODES.get(mode, (mode.decode(), "blob"))
        name = data[space + 1 : nul].decode("utf-8", errors="surrogateescape")
        entries[name] = (spelt, kind, data[nul + 1 : nul + 21].hex())
        position = nul + 21
    return entries
