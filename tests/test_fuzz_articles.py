"""Fuzzing front matter and file names through the real pipeline (hypothesis): every generated
article ends published or dead-lettered with a reason, nothing is written outside the
repository, and a well-formed article beside them always publishes."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import Repo, article, run_cli

# Names git and a file system accept, with the characters that have tripped tools up before:
# globs, option-looking dashes, workflow-command colons, spaces, non-ASCII letters.
NAME_CHARACTERS = st.sampled_from([*"abcXYZ09 -_.*?[]:,%é日", "::", "--", ".."])
NAMES = (
    st.lists(NAME_CHARACTERS, min_size=1, max_size=12)
    .map("".join)
    .filter(lambda name: name not in (".", "..") and not name.startswith(".") and "/" not in name)
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**12), max_value=10**12),
    st.text(max_size=40),
    st.sampled_from(
        [
            "2024-13-45",
            "99999-01-01",
            "9999-12-31T23:59:59-01:00",
            "javascript:alert(1)",
            "data:text/html,x",
            "../../etc/passwd",
            "/proc/self/environ",
            "&a [x]",
            "*a",
            "\ufeff",
        ]
    ),
)
FRONT_MATTER_VALUES = st.one_of(SCALARS, st.lists(SCALARS, max_size=5))
KEYS = st.sampled_from(
    ["title", "description", "tags", "date", "publish_at", "draft", "slug", "cover_image",
     "canonical_url", "targets", "unknown_key"]
)  # fmt: skip


def yaml_value(value: object) -> str:
    """A value as a YAML flow scalar or sequence; strings double-quoted with escapes, so
    control characters reach the parser as the characters they are."""
    if isinstance(value, list):
        return "[" + ", ".join(yaml_value(item) for item in value) + "]"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    escaped = str(value).encode("unicode_escape").decode("ascii").replace('"', '\\"')
    return f'"{escaped}"'


@st.composite
def articles(draw: st.DrawFn) -> tuple[str, str]:
    name = draw(NAMES)
    fields = draw(st.dictionaries(KEYS, FRONT_MATTER_VALUES, max_size=6))
    raw = draw(st.booleans()) and draw(st.text(max_size=80))
    if raw:
        text = raw  # not even front matter: whatever an editor might save
    else:
        lines = [f"{key}: {yaml_value(value)}" for key, value in fields.items()]
        text = "---\n" + "\n".join(lines) + "\n---\n\nBody text.\n"
    return f"content/{name}.md", text


@settings(
    # A few dozen in every run; `HYPOTHESIS_PROFILE=thorough` searches ten times longer.
    max_examples=max(25, settings().max_examples // 12),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.lists(articles(), min_size=1, max_size=4, unique_by=lambda pair: pair[0].lower()))
def test_every_article_is_published_or_dead_lettered_and_nothing_leaves_the_repo(
    generated: list[tuple[str, str]],
) -> None:
    place = Path(tempfile.mkdtemp(prefix="steadypress-fuzz-"))
    try:
        repo = Repo(place / "blog")
        outside_before = sorted(p.name for p in place.iterdir())
        files = dict(generated)
        files["content/control.md"] = article("Control")
        repo.commit(**files)
        result = run_cli(repo, "run")
        assert result.code == 0, result.err
        ledger = repo.ledger()
        assert "site:content/control.md" in ledger.published, "a good article beside them"
        listed = set(repo.git("ls-files", "-z", "content").split("\0")) - {""}
        for path in listed:
            key = f"site:{path}"
            if key in ledger.dead:
                assert ledger.dead[key].last_error, f"{path} is dead without a reason"
            elif key not in ledger.published:
                # Not published and not dead: only a draft, a future date, or opted out.
                pending = ledger.pending.get(key)
                assert pending is None or pending.not_before is not None, (path, pending)
        assert sorted(p.name for p in place.iterdir()) == outside_before
    finally:
        shutil.rmtree(place, ignore_errors=True)
