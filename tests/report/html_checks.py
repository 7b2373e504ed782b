"""Checks on a report's HTML: it parses with balanced tags, and every image is an embedded PNG."""

from __future__ import annotations

import base64
import binascii
from html.parser import HTMLParser

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
VOID = {"meta", "img", "br", "hr", "link", "input"}


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.images: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "img":
            self.images.append(dict(attrs).get("src") or "")
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parse_report(html: str) -> tuple[list[str], str]:
    """``(image sources, visible text)``; asserts the tags are balanced."""
    parser = _Collector()
    parser.feed(html)
    parser.close()
    assert html.startswith("<!DOCTYPE html>")
    assert not parser.errors, parser.errors[:5]
    assert not parser.stack, f"unclosed tags: {parser.stack}"
    return parser.images, "".join(parser.text)


def decode_png(src: str) -> bytes:
    """The PNG bytes of a ``data:image/png;base64,...`` URI; asserts it is one."""
    prefix = "data:image/png;base64,"
    assert src.startswith(prefix), src[:40]
    payload = src[len(prefix) :]
    assert payload, "empty data URI"
    try:
        png = base64.b64decode(payload, validate=True)
    except binascii.Error as e:
        raise AssertionError(f"bad base64: {e}") from None
    assert png.startswith(PNG_SIGNATURE), png[:8]
    return png
