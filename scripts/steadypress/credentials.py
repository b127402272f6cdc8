"""Secrets: read from the environment once, checked, and never let out of the process.

Every secret a run may use (the GitHub token, each target's key) is read here. A value with
surrounding whitespace (a pasted newline) is refused naming the variable, never the value:
HTTP libraries quote a bad header value in their error messages. `Redactor` replaces every
secret value, and its stripped form, in any text before it leaves the process (a log line, a
message recorded in the ledger, a letter, a job summary), wherever the text came from: our own
messages, a library's exception, a server's answer echoing the key.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping
from typing import TextIO

from steadypress.errors import ConfigError

__all__ = ["REDACTED", "RedactingStream", "Redactor", "Secrets", "read_secret"]

REDACTED = "***"
# A value this short is not a credential anyone could use, and redacting it would blank out
# ordinary words and numbers in every message.
_SHORTEST_SECRET = 4


def read_secret(environ: Mapping[str, str], name: str) -> str | None:
    """The secret in `name`, or None when it is unset or empty; a value with leading or
    trailing whitespace is a configuration error that names the variable only."""
    value = environ.get(name)
    if not value:
        return None
    if value != value.strip():
        raise ConfigError(
            name,
            "the secret has leading or trailing whitespace (a pasted newline?); "
            "set it again without",
        )
    return value


class Redactor:
    """Replaces known secret values in text; built from the values, extended as more are read."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets: list[str] = []
        self.add(*secrets)

    def add(self, *secrets: str) -> None:
        for secret in secrets:
            for form in (secret, secret.strip()):
                if len(form) >= _SHORTEST_SECRET and form not in self._secrets:
                    self._secrets.append(form)
        # Longest first, so a secret that contains another is replaced whole.
        self._secrets.sort(key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for secret in self._secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
        return text


class RedactingStream(io.TextIOBase):
    """A text stream that redacts what is written before passing it on, line by line (a secret
    never straddles two writes of a line that is still being built)."""

    def __init__(self, inner: TextIO, redact: Redactor) -> None:
        self._inner = inner
        self._redact = redact
        self._partial = ""

    def write(self, text: str) -> int:
        self._partial += text
        complete, newline, rest = self._partial.rpartition("\n")
        if newline:
            self._inner.write(self._redact(complete + newline))
            self._partial = rest
        return len(text)

    def flush(self) -> None:
        if self._partial:
            self._inner.write(self._redact(self._partial))
            self._partial = ""
        self._inner.flush()


class Secrets:
    """Reads secrets from an environment, and teaches each value read to the redactor."""

    def __init__(self, environ: Mapping[str, str], redact: Redactor) -> None:
        self._environ = environ
        self.redact = redact

    def read(self, name: str) -> str | None:
        value = read_secret(self._environ, name)
        if value is not None:
            self.redact.add(value)
        return value

    def read_key(self, name: str) -> str | None:
        """A PEM private key: several lines, often pasted with a newline at the end, which is
        harmless here (a key never goes into a header; what it signs does)."""
        value = (self._environ.get(name) or "").strip()
        if not value:
            return None
        if not value.startswith("-----BEGIN") or "PRIVATE KEY-----" not in value:
            raise ConfigError(name, "not a PEM private key (-----BEGIN ... PRIVATE KEY-----)")
        self.redact.add(value, *value.splitlines()[1:-1])
        return value
