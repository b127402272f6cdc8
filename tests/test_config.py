"""steadypress.yml: every key checked, every mistake named."""

from datetime import timedelta
from pathlib import Path

import pytest

from steadypress.config import Config, committed_config, load_config, parse_config
from steadypress.durations import parse_duration
from steadypress.errors import ConfigError
from steadypress.gitio import Git
from tests.helpers import Repo, article, run_cli


def test_a_repository_without_a_configuration_runs_on_the_embedded_defaults(repo: Repo) -> None:
    """Nothing committed (or no commit at all): the defaults, not an error."""
    assert committed_config(Git(repo.root)) == Config()
    repo.commit(**{"content/a.md": "x"})
    assert committed_config(Git(repo.root)) == Config()


def test_the_configuration_is_read_as_committed(repo: Repo) -> None:
    """An edit not committed does not apply, as with articles."""
    repo.commit(**{"steadypress.yml": "max_attempts: 3\n"})
    repo.write("steadypress.yml", "max_attempts: 9\n")
    assert committed_config(Git(repo.root)).max_attempts == 3


def test_a_symlinked_configuration_is_refused_unread(repo: Repo) -> None:
    """`steadypress.yml -> /proc/self/environ` would quote the environment in a YAML error."""
    (repo.root / "steadypress.yml").symlink_to("/proc/self/environ")
    repo.commit()
    with pytest.raises(ConfigError, match="is a symlink"):
        committed_config(Git(repo.root))


def test_an_explicit_configuration_that_does_not_exist_is_an_error(tmp_path: Path) -> None:
    """`--config /nonexistent.yml` is a typo, never a silent fall back to the defaults."""
    with pytest.raises(ConfigError, match="no such configuration file"):
        load_config(tmp_path / "nonexistent.yml")


def test_the_shipped_configuration_is_valid() -> None:
    """The repository's own steadypress.yml loads and equals the defaults it documents."""
    shipped = load_config(Path(__file__).resolve().parent.parent / "steadypress.yml")
    assert shipped.timings == Config().timings and shipped.max_attempts == 5


@pytest.mark.parametrize(
    ("text", "expected"),
    [(90, 90), ("90s", 90), ("10m", 600), ("1h", 3600), ("2d", 172800), ("1.5m", 90), ("45", 45)],
)
def test_durations_read_as_seconds(text: object, expected: int) -> None:
    """Durations are seconds or a number with s, m, h or d."""
    assert parse_duration(text, key="k", source="f") == timedelta(seconds=expected)


HUGO_MOVED = {"kind": "site", "moved_from": "hugo"}


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"max_atempts": 3}, "unknown key 'max_atempts'"),
        ({"timings": {"lease": "10 minutes"}}, "timings.lease: expected a duration"),
        ({"timings": {"leese": "10m"}}, "unknown key 'timings.leese'"),
        ({"timings": {"lease": 0}}, "timings.lease: must be longer than zero"),
        ({"timings": {"backoff_initial": "1h", "backoff_max": "1m"}}, "backoff_max"),
        ({"timings": {"grace": True}}, "timings.grace"),
        ({"max_attempts": 0}, "max_attempts"),
        ({"max_attempts": "5"}, "max_attempts"),
        ({"content_dir": "../elsewhere"}, "content_dir"),
        ({"targets": {}}, "at least one target"),
        ({"targets": {"site": {"dir": "_site"}}}, "targets.site.kind: required"),
        ({"targets": {"site": {"kind": "gopher"}}}, "unknown kind 'gopher'"),
        ({"targets": {"site": {"kind": "site", "colour": "red"}}}, "'targets.site.colour'"),
        ({"targets": {"Site:1": {"kind": "site"}}}, "name 'Site:1'"),
        ({"targets": {"site": {"kind": "site", "dir": "../../etc"}}}, "targets.site.dir"),
        (["not", "a", "mapping"], "expected a mapping"),
        ({"targets": {"hook": {"kind": "webhook"}}}, "targets.hook.url: required"),
        ({"targets": {"dev": {"kind": "devto", "window": "soon"}}}, "targets.dev.window"),
        ({"targets": {"dev": {"kind": "devto", "creates_per_window": "0"}}}, "creates_per_window"),
        ({"targets": {"dev": {"kind": "devto", "api_key": "k"}}}, "'targets.dev.api_key'"),
        ({"targets": {"hook": {"kind": "webhook", "url": "ftp://x"}}}, "must be an http"),
        ({"targets": {"site": {"kind": "site", "moved_from": "wp"}}}, "moved_from: unknown"),
        (
            {"targets": {"site": {"kind": "site", "old_permalinks": "pretty"}}},
            "old_permalinks: only with `moved_from`",
        ),
        (
            {"targets": {"site": {"kind": "site", "moved_from": "jekyll", "old_permalinks": 3}}},
            "old_permalinks: a pattern",
        ),
        (
            {"targets": {"site": {**HUGO_MOVED, "old_permalinks": {"posts": "/:year/:nope/"}}}},
            "hugo knows no :nope",
        ),
        (
            {"targets": {"site": {**HUGO_MOVED, "generator": "hugo"}}},
            "moved_from: the site's generator keeps its own URLs",
        ),
        (
            {"targets": {"site": {"kind": "site", "old_timezone": "Europe/Lisbon"}}},
            "old_timezone: only with `moved_from`",
        ),
        (
            {"targets": {"site": {**HUGO_MOVED, "old_timezone": "Mars/Olympus"}}},
            "old_timezone: not a time zone: 'Mars/Olympus'",
        ),
        (
            {"targets": {"site": {**HUGO_MOVED, "old_ugly_urls": "yes"}}},
            "old_ugly_urls: expected true or false",
        ),
        ({"targets": {"site": {"kind": "site", "redirects": ["/a/"]}}}, "redirects: a mapping"),
        (
            {"targets": {"site": {"kind": "site", "feed_also_at": ["/tags/x/index.xml"]}}},
            "'/tags/x/index.xml' is not a path of the site for a feed",
        ),
        (
            {"targets": {"site": {"kind": "site", "feed_also_at": ["/posts/feed.html"]}}},
            "'/posts/feed.html' is not a path of the site for a feed",
        ),
        ({"targets": {"site": {"kind": "site", "feed_also_at": "/a.xml"}}}, "a list of paths"),
        (
            {"targets": {"site": {"kind": "site", "old_term_feeds": ["tags"]}}},
            "old_term_feeds: only with `moved_from`",
        ),
        (
            {"targets": {"site": {**HUGO_MOVED, "old_term_feeds": ["Tags/x"]}}},
            "old_term_feeds: a list of Hugo's taxonomies",
        ),
        (
            {"targets": {"site": {"kind": "site", "redirects": {"/tags/": "/x/"}}}},
            "'/tags/' is not an old path of the site a redirect can stand at",
        ),
        (
            {"targets": {"site": {"kind": "site", "redirects": {"/tags/cpp/": "/x/"}}}},
            "'/tags/cpp/' is not an old path",  # a tag's page could be there
        ),
        (
            {"targets": {"site": {"kind": "site", "redirects": {"old/": "/x/"}}}},
            "'old/' is not an old path",
        ),
        (
            {"targets": {"site": {"kind": "site", "redirects": {"/old/": "x"}}}},
            "'/old/' leads to 'x': a path of the site or an http",
        ),
        (
            {"targets": {"hook": {"kind": "webhook", "url": "https://x", "secret": "s"}}},
            "'targets.hook.secret'",
        ),
    ],
)
def test_a_mistake_is_refused_with_the_key_named(raw: object, message: str) -> None:
    """A typo never silently becomes a default: the error names the key."""
    with pytest.raises(ConfigError, match=message) as caught:
        parse_config(raw, source="steadypress.yml")
    assert str(caught.value).startswith("steadypress.yml: ")


def test_invalid_yaml_names_the_file(tmp_path: Path) -> None:
    """A file that is not YAML is a configuration error naming the file."""
    path = tmp_path / "steadypress.yml"
    path.write_text("targets: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML") as caught:
        load_config(path)
    assert caught.value.source == str(path)


@pytest.mark.parametrize(
    ("files", "said"),
    [
        ({"CNAME": "not a domain!\n"}, "configuration error: CNAME: not a domain name: 'not'"),
        ({"CNAME": "\n"}, "configuration error: CNAME: not a domain name: ''"),
        (
            {"steadypress.yml": 'targets:\n  site: {kind: site, cname: "a.example\\nx: y"}\n'},
            "steadypress.yml: targets.site.cname: not a domain name: 'a.example\\nx: y'",
        ),
    ],
)
def test_a_custom_domain_that_is_no_domain_name_is_refused_naming_where(
    repo: Repo, files: dict[str, str], said: str
) -> None:
    """From the setting or a committed CNAME file: exit 2, naming the file, nothing written."""
    repo.commit(**files, **{"content/a.md": article("A")})
    result = run_cli(repo, "run")
    assert result.code == 2
    assert said in result.err
    assert not (repo.root / "_site").exists()
