"""Article texts as people write them, for the benchmarks: 600 to 1,400 words in paragraphs,
a heading, a fenced code block, a table and links, each article's own (seeded by its number)."""

from __future__ import annotations

import random

_WORDS = (
    "publish article ledger branch commit site page reader theme build deploy feed tag review "
    "change write edit push merge image table code link section idea note blog the a of to and "
    "in is it that for on with as was by this be are from at or an have"
)
VOCABULARY = _WORDS.split()


def real_body(n: int) -> str:
    """Article n's text."""
    rng = random.Random(n)
    words = rng.randint(600, 1400)
    paragraphs = []
    while words > 0:
        size = min(words, rng.randint(40, 120))
        paragraphs.append(" ".join(rng.choice(VOCABULARY) for _ in range(size)).capitalize() + ".")
        words -= size
    middle = len(paragraphs) // 2
    return "\n\n".join(
        [
            *paragraphs[:middle],
            f"## Part two of {n}",
            "```python\ndef publish(article):\n    return site.put(article)\n```",
            "| column | value |\n| --- | --- |\n| a | 1 |\n| b | 2 |",
            "See [the docs](https://example.org/docs/) for more.",
            *paragraphs[middle:],
        ]
    )
