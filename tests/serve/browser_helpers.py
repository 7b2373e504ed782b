"""Headless Chromium from Debian's packages, driven by Playwright (which downloads nothing:
it is pointed at the system browser), with every console error collected."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]


def wait_until(check: Callable[[], Any], *, timeout: float = 20.0, what: str = "") -> Any:
    """Polls ``check`` until it returns something truthy. (The page's Content-Security-Policy
    forbids the string evaluation Playwright's ``wait_for_function`` uses.)"""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or check}")
        time.sleep(0.05)


class ConsoleErrors:
    """Collects a page's console errors and uncaught exceptions."""

    def __init__(self, page: Any) -> None:
        self.errors: list[str] = []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(f"uncaught: {e}"))


def rendered_count(page: Any) -> int:
    return int(page.evaluate("Number(document.body.dataset.rendered || 0)"))


def wait_rendered(page: Any, after: int) -> None:
    """Waits until the tokens view has been drawn more than ``after`` times, and its last
    draw is of the text and the tokenizers now in the page (not of an earlier state)."""

    def current() -> bool:
        return rendered_count(page) > after and page.evaluate(
            """() => {
              const keys = [...document.querySelectorAll(".pick")].map((s) => s.value)
                .filter(Boolean).join(" ");
              const body = document.body.dataset;
              const box = document.querySelector("#text");  // and the tail kept out of it
              const length = box.value.length + Number(box.dataset.tailLength || 0);
              return body.renderedKeys === keys && Number(body.renderedLength) === length;
            }"""
        )

    wait_until(current, what="the tokens view to render")


def pane_ids(page: Any, key: str) -> list[int]:
    """The ids of the spans drawn in ``key``'s pane, in order."""
    return list(
        page.eval_on_selector_all(
            f'.pane[data-key="{key}"] .tok', "els => els.map(e => Number(e.dataset.id))"
        )
    )


def draw_all_chunks(page: Any, key: str) -> None:
    """Scrolls ``key``'s pane to its end a screen at a time, so every chunk gets drawn."""
    page.evaluate(
        """async (key) => {
          const scroller = document.querySelector(`.pane[data-key="${key}"] .tokens`);
          const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
          for (let guard = 0; guard < 2000; guard++) {
            const next = scroller.querySelector(".chunk:not([data-drawn])");
            if (!next) return;
            scroller.scrollTop = next.offsetTop - scroller.offsetTop;
            await frame(); await frame();
          }
        }""",
        key,
    )
