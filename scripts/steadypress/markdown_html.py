"""cmark-gfm's HTML for a markdown text, with the author's raw HTML kept and the URLs of its
markdown links and images made safe.

cmark has one switch for both (`CMARK_OPT_UNSAFE`): keeping raw HTML also keeps
`[x](javascript:...)`, which cmark's safe mode writes as `href=""`. Raw HTML is the author's
explicit choice; a markdown link is not a place anyone expects a script, and its URL may come
from a reference definition far from it. So the document is parsed, every link and image node
whose URL has a scheme a browser runs or embeds (cmark's own list: `javascript:`, `vbscript:`,
`file:`, and `data:` except the four image types) is given an empty URL, as cmark's safe mode
writes it, and the tree is rendered with raw HTML kept. cmarkgfm parses and renders but does
not expose the node tree, so the tree is walked through the same library's exported functions;
only for a text that could spell such a scheme at all (the walk triples cmark's time).
"""

from __future__ import annotations

import ctypes
import re
from collections.abc import Iterable
from typing import Any

__all__ = ["is_dangerous_url", "render_html"]

_EVENT_ENTER = 2  # cmark_event_type: CMARK_EVENT_ENTER
# What a browser skips or drops before it reads a scheme: leading C0 controls and spaces,
# and tabs and newlines anywhere (the URL standard's "basic URL parser").
_IGNORED = re.compile(r"^[\x00-\x20]+|[\t\n\r]")
_DANGEROUS = re.compile(r"(?:javascript|vbscript|file|data):", re.IGNORECASE)
_SAFE_DATA = re.compile(r"data:image/(?:png|gif|jpeg|webp);", re.IGNORECASE)
# A text none of whose URLs can be dangerous: each dangerous scheme ends in one of these words
# and a colon once tabs and newlines are gone, unless a character of it is a numeric reference
# or one of the two named references a browser drops (letters have no named reference).
# Looked for as plain substrings: a regular expression takes as long as cmark's whole parse.
_TELLTALES = ("script:", "file:", "data:", "&#", "&tab;", "&newline;")
_DROPPED = str.maketrans("", "", "\t\n\r")


def _may_hold_a_dangerous_url(text: str) -> bool:
    seen = text.translate(_DROPPED).lower()
    return any(telltale in seen for telltale in _TELLTALES)


def is_dangerous_url(url: str) -> bool:
    """Whether a browser would run or embed `url` as something other than a link or an image
    (cmark's `_scan_dangerous_url`, after the characters a browser drops)."""
    seen = _IGNORED.sub("", url)
    return bool(_DANGEROUS.match(seen)) and not _SAFE_DATA.match(seen)


class _Cmark:
    """The functions of cmarkgfm's compiled library that its Python side does not wrap."""

    def __init__(self, compiled: Any) -> None:
        library = ctypes.CDLL(compiled.__file__)  # loaded already: the same copy of cmark
        pointer = ctypes.c_void_p
        signatures: dict[str, tuple[Any, list[Any]]] = {
            "cmark_iter_new": (pointer, [pointer]),
            "cmark_iter_next": (ctypes.c_int, [pointer]),
            "cmark_iter_get_node": (pointer, [pointer]),
            "cmark_iter_free": (None, [pointer]),
            "cmark_node_get_type_string": (ctypes.c_char_p, [pointer]),
            "cmark_node_get_url": (ctypes.c_char_p, [pointer]),
            "cmark_node_set_url": (ctypes.c_int, [pointer, ctypes.c_char_p]),
            "cmark_node_free": (None, [pointer]),
        }
        for name, (returns, arguments) in signatures.items():
            function = getattr(library, name)
            function.restype, function.argtypes = returns, arguments
        self.library = library

    def links(self, root: int) -> Iterable[int]:
        """The link and image nodes under `root`."""
        cmark = self.library
        walk = cmark.cmark_iter_new(root)
        try:
            while (event := cmark.cmark_iter_next(walk)) != 1:  # CMARK_EVENT_DONE
                if event != _EVENT_ENTER:
                    continue
                node = cmark.cmark_iter_get_node(walk)
                if cmark.cmark_node_get_type_string(node) in (b"link", b"image"):
                    yield node
        finally:
            cmark.cmark_iter_free(walk)


_cmark: _Cmark | None = None


def render_html(text: str, options: int, extensions: Iterable[str]) -> str:
    """cmark-gfm's HTML for `text`, raw HTML kept as `options` say, dangerous link URLs
    emptied whatever they say."""
    global _cmark  # noqa: PLW0603 (loaded once, on first use: an idle run never renders)
    from cmarkgfm import _cmark as compiled  # noqa: PLC0415
    from cmarkgfm import cmark  # noqa: PLC0415

    if _cmark is None:
        _cmark = _Cmark(compiled)
    cmark.core_extensions_ensure_registered()
    parser = cmark.parser_new(options=options)
    try:
        for name in extensions:
            cmark.parser_attach_syntax_extension(parser, cmark.find_syntax_extension(name))
        cmark.parser_feed(parser, text)
        root = cmark.parser_finish(parser)
        address = int(compiled.ffi.cast("uintptr_t", root))
        try:
            if _may_hold_a_dangerous_url(text):
                for node in _cmark.links(address):
                    url = _cmark.library.cmark_node_get_url(node)
                    if url and is_dangerous_url(url.decode("utf-8", "replace")):
                        _cmark.library.cmark_node_set_url(node, b"")
            return str(
                cmark.render_html(
                    root, options=options, extensions=cmark.parser_get_syntax_extensions(parser)
                )
            )
        finally:
            _cmark.library.cmark_node_free(address)  # the document is the caller's to free
    finally:
        cmark.parser_free(parser)
