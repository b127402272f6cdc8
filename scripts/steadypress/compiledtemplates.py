"""The theme's templates compiled once a process (`theme.py`): a run's every `Theme` builds its
own environment (a reload, a rehearsal, each run of `live`), and compiling them again was a
millisecond a template each time. Jinja2 keys the code by the template's name and file and
holds it to the checksum of its source, so a template whose source changed is compiled anew.
Every environment sharing it is configured alike (`Theme._environment`): the code depends on
the environment's options, which the key does not name."""

from __future__ import annotations

from jinja2.bccache import Bucket, BytecodeCache

__all__ = ["COMPILED"]


class _InMemory(BytecodeCache):
    def __init__(self) -> None:
        self._code: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        if (code := self._code.get(bucket.key)) is not None:
            bucket.bytecode_from_string(code)  # reset, not loaded, where the checksum differs

    def dump_bytecode(self, bucket: Bucket) -> None:
        self._code[bucket.key] = bucket.bytecode_to_string()


COMPILED = _InMemory()
