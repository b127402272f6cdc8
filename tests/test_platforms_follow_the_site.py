"""The platforms that carry the site's addresses (dev.to's `canonical_url`, Hashnode's
`originalArticleURL`) follow the site when it moves: a new domain, `transliterate` turned on.
Every post is sent again once, with the run that finds the change; nothing is sent when the
site's addresses stay."""

from __future__ import annotations

from tests.fakes.devto import FakeForem
from tests.fakes.hashnode import FakeHashnode
from tests.helpers import Repo, article, run_cli


def _config(site_url: str, forem: FakeForem, hashnode: FakeHashnode, extra: str = "") -> str:
    return (
        "timings: {grace: 0s, backoff_initial: 0s, backoff_max: 0s}\n"
        f"targets:\n  site: {{kind: site, url: '{site_url}'{extra}}}\n"
        f"  devto: {{kind: devto, api_url: '{forem.api_url}', window: 2s}}\n"
        f"  hn: {{kind: hashnode, publication_id: {hashnode.publication_id}, "
        f"api_url: '{hashnode.api_url}'}}\n"
    )


def _links(forem: FakeForem, hashnode: FakeHashnode) -> dict[str, set[str]]:
    return {
        "devto": {post["canonical_url"] for post in forem.posts.values()},
        "hn": {post["canonicalUrl"] for post in hashnode.posts.values()},
    }


def test_a_new_domain_reaches_every_post_once(
    repo: Repo, forem: FakeForem, hashnode: FakeHashnode, served: str
) -> None:
    # The same folder served under another host name: the blog's new domain.
    moved = served.replace("127.0.0.1", "localhost")
    assert moved != served
    repo.commit(**{
        "steadypress.yml": _config(served, forem, hashnode),
        "content/a.md": article("A", date="2024-01-01"),
        "content/b.md": article("B", date="2024-01-02"),
    })  # fmt: skip
    assert run_cli(repo, "run").code == 0
    assert _links(forem, hashnode) == {
        side: {f"{served}a/", f"{served}b/"} for side in ("devto", "hn")
    }

    repo.commit(**{"steadypress.yml": _config(moved, forem, hashnode)})
    result = run_cli(repo, "run")

    assert result.code == 0, result.err
    assert _links(forem, hashnode) == {
        side: {f"{moved}a/", f"{moved}b/"} for side in ("devto", "hn")
    }
    assert len(forem.posts) == 2 and len(hashnode.posts) == 2, "sent again, never twice"
    assert sum(forem.updates.values()) == 2
    updates = hashnode.operations["UpdatePost"]
    # Once: a run with the same addresses sends nothing.
    repo.commit(**{"content/notes.txt": "not an article\n"})
    assert run_cli(repo, "run").code == 0
    assert run_cli(repo, "sweep").code == 0
    assert sum(forem.updates.values()) == 2 and hashnode.operations["UpdatePost"] == updates


def test_transliterate_turned_on_sends_the_posts_their_new_addresses(
    repo: Repo, forem: FakeForem, hashnode: FakeHashnode, served: str
) -> None:
    repo.commit(**{
        "steadypress.yml": _config(served, forem, hashnode),
        "content/Привет мир.md": article("Привет", date="2024-01-01"),
    })  # fmt: skip
    assert run_cli(repo, "run").code == 0
    assert _links(forem, hashnode)["devto"] == {
        f"{served}%D0%BF%D1%80%D0%B8%D0%B2%D0%B5%D1%82-%D0%BC%D0%B8%D1%80/"
    }

    repo.commit(**{"steadypress.yml": _config(served, forem, hashnode, ", transliterate: true")})
    assert run_cli(repo, "run").code == 0

    assert _links(forem, hashnode) == {
        "devto": {f"{served}privet-mir/"},
        "hn": {f"{served}privet-mir/"},
    }
