"""The site's machine-readable side: an Atom 1.0 feed (RFC 4287) and a sitemap (sitemaps.org
protocol 0.9), built as XML trees by ElementTree, never by string concatenation, so any title
is escaped and the same entries always give the same bytes. The one exception is the feed's
article HTML, carried whole in a CDATA section (XML 1.0, 2.7): escaped as text, each tag's
`<` and `>` spelt `&lt;` and `&gt;`, it was a third larger, and the feed is the largest file a
publish writes."""

from __future__ import annotations

import mimetypes
import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from steadypress.timefmt import format_time, parse_time

__all__ = [
    "FEED_ENTRIES",
    "FEED_TEXTS",
    "FEED_TEXT_BYTES",
    "FeedEntry",
    "atom_feed",
    "feed_contents",
    "sitemap",
    "sitemap_index",
    "sitemap_locations",
]

ATOM = "http://www.w3.org/2005/Atom"
_XML_BASE = "{http://www.w3.org/XML/1998/namespace}base"
SITEMAP = "http://www.sitemaps.org/schemas/sitemap/0.9"
FEED_ENTRIES = 20  # the newest articles a feed reader is shown
# The whole texts the feed carries: the 10 newest articles' (as jekyll-feed does) while they
# fit in FEED_TEXT_BYTES (the newest one always), the others by their summary. Every publish
# rewrites the feed, and a push pays for it (on GitHub base64: 4/3 of its bytes).
FEED_TEXTS = 10
FEED_TEXT_BYTES = 100_000


@dataclass(frozen=True)
class FeedEntry:
    title: str
    url: str  # absolute
    # Permanent: a reader shows an entry whose id it has not seen as new, whatever its link.
    id: str
    published: datetime
    updated: datetime
    summary: str
    tags: tuple[str, ...]
    cover: str | None  # absolute
    # The article's HTML, as its page shows it (its links relative to `url`); None when not known.
    content: str | None = None


# Characters XML 1.0 cannot carry at all (C0 controls but tab, newline and return; surrogates;
# U+FFFE and U+FFFF): one in a title would make the whole feed unreadable to every reader.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_text(text: str) -> str:
    """`text` with what XML cannot carry taken out."""
    return _NOT_XML.sub("", text)


def _element(parent: ET.Element, tag: str, attributes: dict[str, str]) -> ET.Element:
    return ET.SubElement(parent, tag, {key: xml_text(value) for key, value in attributes.items()})


def _text(parent: ET.Element, tag: str, text: str, **attributes: str) -> ET.Element:
    element = _element(parent, tag, attributes)
    element.text = xml_text(text)
    return element


def atom_feed(
    *,
    title: str,
    url: str,
    ident: str,
    entries: Sequence[FeedEntry],
    self_url: str | None = None,
) -> bytes:
    """The newest `FEED_ENTRIES` entries, the whole text of the `FEED_TEXTS` newest within
    `FEED_TEXT_BYTES`; `url` is the address of the page it follows (the site's), `ident` the
    feed's permanent id, `self_url` its own address (the site's `feed.xml` by default)."""
    newest = sorted(entries, key=lambda entry: (-entry.published.timestamp(), entry.url))
    newest = newest[:FEED_ENTRIES]
    contents: list[str] = []
    feed = ET.Element("feed", {"xmlns": ATOM})
    _text(feed, "title", title)
    _text(feed, "id", ident)
    _element(feed, "link", {"rel": "self", "href": self_url or f"{url}feed.xml"})
    _element(feed, "link", {"rel": "alternate", "type": "text/html", "href": url})
    # An empty feed is still valid Atom: it needs an `updated`, and the epoch says "never".
    changed = max((entry.updated for entry in newest), default=datetime(1970, 1, 1, tzinfo=UTC))
    _text(feed, "updated", format_time(changed))
    _text(feed, "generator", "steadypress")
    text_bytes = 0
    for entry in newest:
        item = _element(feed, "entry", {})
        _text(item, "title", entry.title)
        _text(item, "id", entry.id)
        _element(item, "link", {"rel": "alternate", "type": "text/html", "href": entry.url})
        _text(item, "published", format_time(entry.published))
        _text(item, "updated", format_time(entry.updated))
        author = _element(item, "author", {})
        _text(author, "name", title)
        _text(item, "summary", entry.summary)
        size = len(entry.content.encode()) if entry.content is not None else 0
        fits = len(contents) < FEED_TEXTS and text_bytes + size <= FEED_TEXT_BYTES
        if entry.content is not None and (not contents or fits):
            text_bytes += size
            # Readers expect the whole article; xml:base resolves its relative links and images.
            content = _element(item, "content", {"type": "html", _XML_BASE: entry.url})
            content.text = _cdata_mark(len(contents))  # `_with_cdata` puts the HTML there
            contents.append(entry.content)
        for tag in entry.tags:
            _element(item, "category", {"term": tag})
        if entry.cover:
            kind = mimetypes.guess_type(entry.cover)[0] or "image/*"
            _element(item, "link", {"rel": "enclosure", "type": kind, "href": entry.cover})
    return _with_cdata(_document(feed), contents)


def _cdata_mark(number: int) -> str:
    """Where the `number`th content goes: NUL, which `xml_text` takes out of every other text
    and attribute, cannot be anything else of the document."""
    return f"\0{number}\0"


def _with_cdata(document: bytes, contents: Sequence[str]) -> bytes:
    """`document` with each content's mark replaced by a CDATA section of it (a `]]>` in it,
    which would end the section, split across two)."""
    for number, content in enumerate(contents):
        section = xml_text(content).replace("]]>", "]]]]><![CDATA[>")
        cdata = f"<![CDATA[{section}]]>".encode()
        document = document.replace(_cdata_mark(number).encode(), cdata, 1)
    return document


def feed_contents(data: bytes | None) -> dict[str, str]:
    """The HTML content of each entry of a feed this module wrote, by the entry's id relative
    to the feed's own `<id>`: a feed is its own record of the newest articles' bodies, so a
    publish need not read their pages again, and a site that moved (a new domain) keeps them."""
    if not data:
        return {}
    try:
        root = ET.fromstring(data)  # noqa: S314 - our own file, and expat expands no entities
    except ET.ParseError:
        return {}
    site = root.findtext(f"{{{ATOM}}}id") or ""
    contents = {}
    for entry in root.iter(f"{{{ATOM}}}entry"):
        ident, content = entry.findtext(f"{{{ATOM}}}id"), entry.find(f"{{{ATOM}}}content")
        if ident and ident.startswith(site) and content is not None and content.text:
            contents[ident.removeprefix(site)] = content.text
    return contents


def sitemap_index(sitemaps: Sequence[tuple[str, datetime | None]]) -> bytes:
    """A sitemap index: each sitemap's absolute URL and when it last changed."""
    return _locations("sitemapindex", "sitemap", sitemaps)


def sitemap(pages: Sequence[tuple[str, datetime | None]]) -> bytes:
    """`pages`: absolute URL and last change (None when unknown), in any order."""
    return _locations("urlset", "url", pages)


def _locations(root: str, item: str, entries: Sequence[tuple[str, datetime | None]]) -> bytes:
    """A sitemaps.org document: `root` holding an `item` per (location, last change)."""
    document = ET.Element(root, {"xmlns": SITEMAP})
    for location, changed in sorted(entries, key=lambda entry: entry[0]):
        element = _element(document, item, {})
        _text(element, "loc", location)
        if changed is not None:
            _text(element, "lastmod", format_time(changed))
    return _document(document)


def sitemap_locations(data: bytes | None) -> dict[str, datetime | None]:
    """The locations a sitemap or sitemap index this module wrote lists, with their last
    change: a sitemap is its own record, so a publish changes it in place. Raises ValueError
    for a document that is not one."""
    if not data:
        return {}
    try:
        root = ET.fromstring(data)  # noqa: S314 - our own file, and expat expands no entities
    except ET.ParseError as error:
        raise ValueError(f"not XML: {error}") from None
    if root.tag not in (f"{{{SITEMAP}}}urlset", f"{{{SITEMAP}}}sitemapindex"):
        raise ValueError(f"not a sitemap: <{root.tag}>")
    found: dict[str, datetime | None] = {}
    for item in root:
        location, changed = item.find(f"{{{SITEMAP}}}loc"), item.find(f"{{{SITEMAP}}}lastmod")
        if location is None or not location.text:
            continue
        try:
            found[location.text] = (
                parse_time(changed.text) if changed is not None and changed.text else None
            )
        except ValueError:
            found[location.text] = None
    return found


def _document(root: ET.Element) -> bytes:
    ET.indent(root)
    document: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return document + b"\n"
