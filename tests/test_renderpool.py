"""Pages rendered on every core give the bytes one core gives, and a body's images are served
where the site puts them whichever process rendered it."""

from __future__ import annotations

import functools
import os
import shutil
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from steadypress import renderpool
from steadypress.articles import Article
from steadypress.claims import claim_size
from steadypress.content import ContentSource
from steadypress.gitio import Git
from steadypress.render import Prerendered, prerender, render_markdown
from steadypress.targets.site import DirectorySiteFiles
from steadypress.targets.site.settings import SiteSettings
from steadypress.targets.site.target import build_site
from tests.helpers import Repo, article, run_cli, site_folder, site_target

SAMPLES = Path(__file__).resolve().parent / "fixtures" / "blog"

BODIES = [
    "# A title\n\nWords with `code` and a [link](https://example.org/).\n",
    "```python\ndef f():\n    return 1\n```\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n",
    '![a cat](images/cat.png "a title")\n\n![far](https://example.org/x.png)\n\n'
    '[ref]: images/dog.png\n\n![dog][ref]\n\n<img src="raw.png">\n',
    'An image with a quote in its path: ![q](images/a&b"c.png)\n',
    # A NUL in the source must not pass for the mark of an image.
    "Text with \0 0\0 a NUL, and ![x](images/x.png)\n",
]


def _pool(render: Callable[[str], Prerendered], *, workers: int) -> Pool:
    """A pool rendering texts with `render` (forked into its workers, as the site's renderer)."""
    return renderpool.RenderPool(render, key=str, workers=workers)


Pool = renderpool.RenderPool[str, Prerendered]


def _prerender_all(
    texts: list[str], *, workers: int, render: Callable[[str], Prerendered] = prerender
) -> list[Prerendered]:
    """Each text rendered by a pool of its own, closed after."""
    pool = _pool(render, workers=workers)
    try:
        return _html_bodies(pool, texts)
    finally:
        pool.close()


def _html_bodies(pool: Pool, texts: list[str]) -> list[Prerendered]:
    rendered = list(pool.rendered(texts))
    assert all(isinstance(body, Prerendered) for body in rendered), rendered
    return [body for body in rendered if isinstance(body, Prerendered)]


def _pid(text: str) -> Prerendered:
    """A stand-in renderer that says which process ran it."""
    return Prerendered(html=f"{os.getpid()}:{len(text)}", images=())


_PARENT = os.getpid()


def _dies_in_a_worker(text: str) -> Prerendered:
    """A renderer killed in any process but the test's (as the kernel kills one out of memory)."""
    if os.getpid() != _PARENT:
        os._exit(9)
    return _pid(text)


@pytest.fixture
def no_other_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    """A test before may have left a thread behind in this worker (a fake server's): the pool
    is tested as it runs in a process with none."""
    monkeypatch.setattr(renderpool, "_other_threads", lambda: False)


@pytest.mark.usefixtures("no_other_threads")
def test_a_worker_killed_leaves_the_bodies_to_this_process() -> None:
    many = [str(n) for n in range(renderpool.POOL_FROM)]
    rendered = _prerender_all(many, workers=2, render=_dies_in_a_worker)
    assert [p.html for p in rendered] == [f"{_PARENT}:{len(text)}" for text in many]


def test_a_prerendered_body_resolved_is_the_body_rendered_at_once() -> None:
    def served(src: str) -> str:
        return f"/blog/assets/{src}?v=1&w=2"

    for body in BODIES:
        assert prerender(body).resolve(served) == render_markdown(body, image_src=served)
        assert prerender(body).resolve() == render_markdown(body)
    resolved = prerender(BODIES[2]).resolve(served)
    assert 'src="/blog/assets/images/cat.png?v=1&amp;w=2"' in resolved
    assert 'src="/blog/assets/images/dog.png?v=1&amp;w=2"' in resolved
    assert 'src="https://example.org/x.png"' in resolved
    assert "\0" not in prerender(BODIES[4]).resolve(served)
    assert prerender(BODIES[4]).images == ("images/x.png",)


@pytest.mark.usefixtures("no_other_threads")
def test_many_bodies_render_in_worker_processes_in_order() -> None:
    texts = [BODIES[n % len(BODIES)] + f"\n{n}\n" for n in range(renderpool.POOL_FROM * 2)]
    pooled = _prerender_all(texts, workers=2)
    assert pooled == [prerender(text) for text in texts]


def test_the_pool_runs_on_other_processes_only_when_it_pays_and_is_safe(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real_check = renderpool._other_threads
    monkeypatch.setattr(renderpool, "_other_threads", lambda: False)
    on_pids = functools.partial(_prerender_all, render=_pid)
    many = [str(n) for n in range(renderpool.POOL_FROM)]
    pids = {html.html.split(":")[0] for html in on_pids(many, workers=2)}
    assert pids - {str(os.getpid())}, "no body was rendered by a worker"
    assert [int(html.html.split(":")[1]) for html in on_pids(many, workers=2)] \
        == [len(text) for text in many]  # fmt: skip

    few = many[:-1]
    assert {p.html.split(":")[0] for p in on_pids(few, workers=2)} == {str(os.getpid())}
    assert {p.html.split(":")[0] for p in on_pids(many, workers=1)} == {str(os.getpid())}
    # Another thread running (live mode): a fork could inherit one of its locks held.
    monkeypatch.setattr(renderpool, "_other_threads", real_check)
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        pids = {p.html.split(":")[0] for p in on_pids(many, workers=2)}
    finally:
        stop.set()
        other.join()
    assert pids == {str(os.getpid())}


@pytest.mark.usefixtures("no_other_threads")
def test_bodies_told_ahead_render_in_the_workers_once_and_come_back_in_order() -> None:
    batches = [[f"{batch}-{n}" for n in range(renderpool.POOL_FROM)] for batch in range(2)]
    pool = _pool(_pid, workers=2)
    try:
        pool.ahead(batches[0] + batches[1])  # both batches at once: the second renders meanwhile
        for texts in batches:
            rendered = _html(pool, texts)
            assert [int(html.split(":")[1]) for html in rendered] == [len(t) for t in texts]
            assert str(os.getpid()) not in {html.split(":")[0] for html in rendered}
        # Handed over once: a body asked for again is rendered again, here (it is not kept).
        (again,) = _html(pool, batches[0][:1])
        assert again.split(":")[0] == str(os.getpid())
    finally:
        pool.close()


def _niceness(text: str) -> Prerendered:
    """A stand-in renderer that says at what priority it ran."""
    return Prerendered(html=f"{os.nice(0)}:{len(text)}", images=())


@pytest.mark.usefixtures("no_other_threads")
def test_the_workers_run_below_this_process_so_it_writes_pages_first() -> None:
    texts = [str(n) for n in range(renderpool.POOL_FROM)]
    ours = os.nice(0)
    rendered = _prerender_all(texts, workers=2, render=_niceness)
    niceness = {int(body.html.split(":")[0]) for body in rendered}
    assert niceness == {min(19, ours + renderpool.WORKER_NICENESS)}
    assert os.nice(0) == ours


@pytest.mark.usefixtures("no_other_threads")
def test_a_plan_of_many_new_articles_starts_the_workers_before_it_reads_them(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Forked and building their renderer while the plan reads the articles, the workers are
    ready when the first bodies come. Where the batches will be too small for the workers (a
    push of 100 is claimed 25 at a time), or there is nothing new, none is started."""
    monkeypatch.setattr(
        "steadypress.targets.site.renderings.RenderPool",
        functools.partial(renderpool.RenderPool, workers=2),
    )
    events: list[str] = []
    real_started, real_prefetch = renderpool.RenderPool._started, ContentSource.prefetch

    def started(pool: renderpool.RenderPool[Any, Any]) -> Any:
        if pool._pool is None:
            events.append("start")
        return real_started(pool)

    def prefetch(source: ContentSource, commit: str, paths: Any) -> None:
        if paths:
            events.append(f"read {len(paths)}")
        real_prefetch(source, commit, paths)

    monkeypatch.setattr(renderpool.RenderPool, "_started", started)
    monkeypatch.setattr(ContentSource, "prefetch", prefetch)
    few = renderpool.POOL_FROM  # claimed CLAIM_BATCH at a time
    repo.commit(**{f"content/q{n:03d}.md": article(f"Q{n}") for n in range(few)})
    assert f"{few} published" in run_cli(repo, "run").out
    assert run_cli(repo, "run").code == 0  # nothing new
    assert "start" not in events, events

    events.clear()
    many = 4 * renderpool.POOL_FROM  # a first claim of POOL_FROM
    assert claim_size(many) == renderpool.POOL_FROM
    repo.commit(**{f"content/p{n:03d}.md": article(f"P{n}") for n in range(many)})
    result = run_cli(repo, "run")
    assert f"{many} published" in result.out, result.out + result.err
    assert events[:2] == ["start", f"read {many}"], events
    assert events.count("start") == 1, "forked once a run"


def test_a_body_told_ahead_renders_here_when_the_pool_cannot_run() -> None:
    texts = [str(n) for n in range(renderpool.POOL_FROM)]
    pool = _pool(_pid, workers=1)
    pool.ahead(texts)
    assert {html.split(":")[0] for html in _html(pool, texts)} == {str(os.getpid())}
    pool.close()


def _html(pool: Pool, texts: list[str]) -> list[str]:
    return [body.html for body in _html_bodies(pool, texts)]


def _breaks_on_poison(text: str) -> Prerendered:
    """The renderer with a bug that one text meets, wherever it runs."""
    if "POISON" in text:
        raise RecursionError("maximum recursion depth exceeded")
    return prerender(text)


@pytest.mark.usefixtures("no_other_threads")
def test_a_text_that_breaks_the_renderer_fails_alone() -> None:
    """It comes back as what it raised, and its chunk's other bodies (rendered with it in a
    worker) come back rendered."""
    texts = [f"body {n}" for n in range(renderpool.POOL_FROM)]
    texts[3] = "POISON"
    pool = _pool(_breaks_on_poison, workers=2)
    try:
        rendered = list(pool.rendered(texts))
    finally:
        pool.close()
    assert isinstance(rendered[3], RecursionError)
    assert [body for n, body in enumerate(rendered) if n != 3] == [
        prerender(text) for n, text in enumerate(texts) if n != 3
    ]


@pytest.mark.usefixtures("no_other_threads")
def test_an_article_that_breaks_the_renderer_is_one_dead_letter_in_a_first_build(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("steadypress.targets.site.rendering.prerender", _breaks_on_poison)
    monkeypatch.setattr(
        "steadypress.targets.site.renderings.RenderPool",
        functools.partial(renderpool.RenderPool, workers=2),
    )
    paths = [f"content/p{n:03d}.md" for n in range(renderpool.POOL_FROM + 1)]
    repo.commit(**{path: article(f"P{n}", body="POISON" if n == 7 else f"Body {n}.")
                   for n, path in enumerate(paths)})  # fmt: skip
    result = run_cli(repo, "run")
    assert f"{len(paths) - 1} published" in result.out, result.out + result.err
    dead = repo.ledger().dead
    assert list(dead) == [f"site:{paths[7]}"]
    assert dead[f"site:{paths[7]}"].permanent
    assert "could not be rendered: RecursionError" in dead[f"site:{paths[7]}"].last_error


@pytest.mark.usefixtures("no_other_threads")
def test_a_site_built_on_every_core_is_the_site_built_on_one(
    repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(SAMPLES, repo.root / "content")
    for n in range(renderpool.POOL_FROM):
        (repo.root / "content" / f"extra-{n:03d}.md").write_text(
            f"---\ntitle: Extra {n}\ndate: 2024-01-{n % 28 + 1:02d}\ntags: [extra]\n---\n\n"
            f"Extra {n}.\n\n{BODIES[n % len(BODIES)]}\n![lifecycle](guides/images/lifecycle.png)\n"
        )
    repo.commit("a blog large enough for the pool")
    source = ContentSource(Git(repo.root), "content")
    head = repo.head()
    articles = [source.read(path, blob, commit=head)
                for path, blob in sorted(source.list_articles(head).items())]  # fmt: skip

    def build(out: Path) -> dict[str, bytes]:
        target = build_site(
            "site", DirectorySiteFiles(out), SiteSettings(url="https://blog.example/"),
            content=source, default_url="",
        )  # fmt: skip
        target.publish_batch([(article, None) for article in articles])
        return site_folder(out)

    submitted: list[int] = []
    real_submit, pool_from = renderpool.RenderPool._submit, renderpool.POOL_FROM

    def counted(pool: renderpool.RenderPool[Any, Any], workers: Any, items: list[Any]) -> None:
        submitted.append(len(items))
        real_submit(pool, workers, items)

    monkeypatch.setattr(renderpool.RenderPool, "_submit", counted)
    on_two_workers = functools.partial(renderpool.RenderPool, workers=2)
    monkeypatch.setattr("steadypress.targets.site.renderings.RenderPool", on_two_workers)
    on_every_core = build(tmp_path / "pooled")
    monkeypatch.setattr(renderpool, "POOL_FROM", 10**9)
    on_one = build(tmp_path / "one")
    assert submitted and submitted[0] >= pool_from
    assert on_every_core == on_one
    assert any(path.startswith("assets/") for path in on_one)


def test_a_site_reads_ahead_only_the_articles_its_workers_would_render(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fewer than POOL_FROM bodies would be rendered when written, in this process: their
    articles are not even read ahead (a claim of 25 read them for nothing, inside its
    transaction, while its leases ran)."""
    monkeypatch.setattr(
        "steadypress.targets.site.renderings.RenderPool",
        functools.partial(renderpool.RenderPool, workers=2),
    )
    target = site_target(DirectorySiteFiles(tmp_path))
    reads: list[int] = []

    def articles(count: int) -> Callable[[], list[Article]]:
        def read() -> list[Article]:
            reads.append(count)
            return []

        return read

    target.render_ahead(renderpool.POOL_FROM - 1, articles(renderpool.POOL_FROM - 1))
    target.render_ahead(renderpool.POOL_FROM, articles(renderpool.POOL_FROM))
    assert reads == [renderpool.POOL_FROM]
