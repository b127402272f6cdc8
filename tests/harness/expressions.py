"""GitHub Actions expressions, the subset the workflows use, evaluated as GitHub documents them
(docs.github.com/actions/reference/workflows-and-actions/expressions): literals, context
property access (case-insensitive, `.*` object filters), `!`, `==`, `!=`, `<`, `<=`, `>`, `>=`,
`&&` and `||` returning an operand, case-insensitive string comparison, and the functions
contains, startsWith, endsWith, success, failure, always, cancelled. Anything else raises
ExpressionError, so a test meets what the harness cannot evaluate instead of skipping it."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

_TOKEN = re.compile(
    r"\s*(?:(?P<string>'(?:[^']|'')*')|(?P<number>-?\d+(?:\.\d+)?)|(?P<op>&&|\|\||==|!=|<=|>=|[!<>().\[\],*])"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_-]*))"
)
_TEMPLATE = re.compile(r"\$\{\{(.*?)\}\}", re.DOTALL)
STATUS_FUNCTIONS = ("success", "failure", "always", "cancelled")


class ExpressionError(Exception):
    """An expression the harness cannot evaluate: the test fails rather than skips the step."""


@dataclass
class _Filtered:
    """The result of `.*`: a list whose next property access maps over its elements."""

    items: list[Any]


def _tokens(text: str) -> list[tuple[str, str]]:
    position, found = 0, []
    while position < len(text.rstrip()):
        match = _TOKEN.match(text, position)
        if not match or match.end() == position:
            raise ExpressionError(f"cannot read {text[position:]!r} in {text!r}")
        kind = match.lastgroup or ""
        found.append((kind, match.group(kind)))
        position = match.end()
    return found


def _loose(value: Any) -> Any:
    return value.lower() if isinstance(value, str) else value


def _number(value: Any) -> float:
    """GitHub's coercion for comparing values of different types: null 0, true 1, false 0,
    '' 0, a numeric string its number, anything else NaN."""
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value) if value.strip() else 0.0
        except ValueError:
            return float("nan")
    return float("nan")


def _compare(operator: str, left: Any, right: Any) -> bool:
    if isinstance(left, str) and isinstance(right, str):
        a: Any = left.lower()
        b: Any = right.lower()
    elif type(left) is type(right) and isinstance(left, bool | int | float):
        a, b = left, right
    else:
        a, b = _number(left), _number(right)
    if operator in ("==", "!="):
        return bool(a == b) == (operator == "==")
    if any(isinstance(x, float) and math.isnan(x) for x in (a, b)):
        return False  # NaN in a relational comparison is always false
    return bool({"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[operator])


def truthy(value: Any) -> bool:
    return value not in (None, False, 0, "") and not (
        isinstance(value, float) and math.isnan(value)
    )


class _Parser:
    def __init__(
        self, text: str, contexts: Mapping[str, Any], status: Callable[[str], bool]
    ) -> None:
        self.text, self.tokens, self.at = text, _tokens(text), 0
        self.contexts, self.status = contexts, status

    def parse(self) -> Any:
        value = self.or_()
        if self.at != len(self.tokens):
            raise ExpressionError(f"unexpected {self.tokens[self.at][1]!r} in {self.text!r}")
        return value

    def peek(self) -> str | None:
        return self.tokens[self.at][1] if self.at < len(self.tokens) else None

    def take(self, expected: str | None = None) -> tuple[str, str]:
        if self.at >= len(self.tokens):
            raise ExpressionError(f"{self.text!r} ends too soon")
        token = self.tokens[self.at]
        if expected is not None and token[1] != expected:
            raise ExpressionError(f"expected {expected!r}, found {token[1]!r} in {self.text!r}")
        self.at += 1
        return token

    def or_(self) -> Any:
        value = self.and_()
        while self.peek() == "||":
            self.take()
            right = self.and_()
            value = value if truthy(value) else right
        return value

    def and_(self) -> Any:
        value = self.comparison()
        while self.peek() == "&&":
            self.take()
            right = self.comparison()
            value = right if truthy(value) else value
        return value

    def comparison(self) -> Any:
        left = self.unary()
        operator = self.peek()
        if operator in ("==", "!=", "<", "<=", ">", ">="):
            self.take()
            return _compare(str(operator), left, self.unary())
        return left

    def unary(self) -> Any:
        if self.peek() == "!":
            self.take()
            return not truthy(self.unary())
        return self.postfix()

    def postfix(self) -> Any:
        value = self.primary()
        while self.peek() in (".", "["):
            if self.take()[1] == ".":
                if self.peek() == "*":
                    self.take()
                    value = _Filtered(
                        list(value.values()) if isinstance(value, dict) else list(value or [])
                    )
                    continue
                value = _property(value, self.take()[1])
            else:
                key = self.or_()
                self.take("]")
                value = _property(value, key)
        return value.items if isinstance(value, _Filtered) else value

    def primary(self) -> Any:
        kind, text = self.take()
        if kind == "string":
            return text[1:-1].replace("''", "'")
        if kind == "number":
            return float(text) if "." in text else int(text)
        if text == "(":
            value = self.or_()
            self.take(")")
            return value
        if kind != "name":
            raise ExpressionError(f"unexpected {text!r} in {self.text!r}")
        if text in ("true", "false", "null"):
            return {"true": True, "false": False, "null": None}[text]
        if self.peek() == "(":
            return self.call(text)
        if text.lower() not in self.contexts:
            raise ExpressionError(f"unknown context {text!r} in {self.text!r}")
        return self.contexts[text.lower()]

    def call(self, name: str) -> Any:
        self.take("(")
        args = []
        while self.peek() != ")":
            args.append(self.or_())
            if self.peek() == ",":
                self.take()
        self.take(")")
        lowered = name.lower()
        if lowered in STATUS_FUNCTIONS and not args:
            return self.status(lowered)
        if lowered == "contains" and len(args) == 2:
            haystack, needle = args
            if isinstance(haystack, list):
                return any(_loose(item) == _loose(needle) for item in haystack)
            return str(_loose(needle)) in str(_loose(haystack))
        if lowered in ("startswith", "endswith") and len(args) == 2:
            text, affix = str(args[0]).lower(), str(args[1]).lower()
            return text.startswith(affix) if lowered == "startswith" else text.endswith(affix)
        raise ExpressionError(f"the harness cannot evaluate {name}() in {self.text!r}")


def _property(value: Any, key: Any) -> Any:
    if isinstance(value, _Filtered):
        return _Filtered([_property(item, key) for item in value.items])
    if isinstance(value, dict):
        for candidate, item in value.items():
            if str(candidate).lower() == str(key).lower():
                return item
        return None
    if isinstance(value, list) and isinstance(key, int):
        return value[key] if 0 <= key < len(value) else None
    return None


def evaluate(text: str, contexts: Mapping[str, Any], status: Callable[[str], bool]) -> Any:
    return _Parser(text, contexts, status).parse()


def as_text(value: Any) -> str:
    """How GitHub writes a value into a string: true/false, '' for null, numbers as written."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def substitute(text: str, contexts: Mapping[str, Any], status: Callable[[str], bool]) -> str:
    return _TEMPLATE.sub(lambda m: as_text(evaluate(m.group(1), contexts, status)), text)


def condition(text: Any, contexts: Mapping[str, Any], status: Callable[[str], bool]) -> bool:
    """An `if:` value: `${{ }}` optional; without a status function, `success() &&` is implied."""
    if isinstance(text, bool):
        return text
    body = str(text).strip()
    whole = _TEMPLATE.fullmatch(body)
    if whole:
        body = whole.group(1).strip()
    if not any(re.search(rf"\b{name}\s*\(", body, re.IGNORECASE) for name in STATUS_FUNCTIONS):
        body = f"success() && ({body})"
    return truthy(evaluate(body, contexts, status))
