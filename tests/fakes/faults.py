"""Faults every platform fake can inject, in one place so they mean the same everywhere:
- `script`: chosen answers to the next requests (a 5xx, a 429 with its headers), whose error
  text quotes `echo` when it is set (a credential, as a careless server might);
- `drop_after_create`: the create is applied, then the connection closes without an answer,
  the lost answer that makes naive tools post twice;
- `hang_after_create`: the create is applied and never answered, so a test can kill the
  process that waits for it."""

from __future__ import annotations

import threading

from tests.fakes.loopback import Answer


class Faults:
    def __init__(self) -> None:
        self.script: list[tuple[int, dict[str, str]]] = []
        self.echo: str | None = None
        self.drop_after_create = 0
        self.hang_after_create = 0
        self._hung = threading.Event()

    def scripted(self) -> tuple[int, dict[str, str]] | None:
        return self.script.pop(0) if self.script else None

    def scripted_text(self) -> str:
        return "scripted" if self.echo is None else f"scripted: {self.echo} was refused"

    def after_create(self, answer: Answer) -> Answer:
        """The answer to a create that was applied, unless a fault takes it away."""
        if self.drop_after_create > 0:
            self.drop_after_create -= 1
            return None
        if self.hang_after_create > 0:
            self.hang_after_create -= 1
            self._hung.wait()  # until the fake shuts down; the client is killed meanwhile
            return None
        return answer

    def release(self) -> None:
        self._hung.set()
