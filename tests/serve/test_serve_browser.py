"""The playground in headless Chromium: what the page draws is what the tokensmith API says.

One server and one browser serve every test of the module (Chromium starts once); each test
opens its own page, keeps a screenshot of its view in its tmp_path, and ends with no
JavaScript console error.
"""

from __future__ import annotations

import base64
import io
import json
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.request import urlopen

import pytest
import tokensmith
from browser_helpers import (
    CHROMIUM_ARGS,
    ConsoleErrors,
    draw_all_chunks,
    pane_ids,
    rendered_count,
    wait_rendered,
    wait_until,
)
from serve_helpers import DATA, SPM_MODEL, Running, running_server, served_folder
from tokensmith.chat import with_special_tokens
from tokensmith.serve.config import ServeConfig
from tokensmith.serve.segmenter import TextLayout

SPM_KEY = "dir:test_model.model"
LINES = (DATA / "multilingual.txt").read_text(encoding="utf-8").splitlines()
# Lines from across the file: many languages and scripts, CJK and emoji-free and not.
MIXED = "\n".join(LINES[::400][:40]) + "\nHow many r's are in strawberry? 🍓🧑‍🍳\n"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    folder = served_folder(tmp_path_factory.mktemp("browser"))
    with running_server(ServeConfig(root=folder)) as running:
        yield running


@pytest.fixture(scope="module")
def browser(chromium_path: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any, server: Running) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    tab = context.new_page()
    errors = ConsoleErrors(tab)
    tab.goto(server.url + "/")
    wait_until(lambda: tab.evaluate("document.body.dataset.ready"), what="the page to start")
    wait_rendered(tab, 0)
    yield tab
    context.close()
    assert errors.errors == [], errors.errors


def pick(page: Any, keys: list[str]) -> None:
    """Picks ``keys`` in the four slots and waits for the panes to be drawn."""
    for slot in range(4):
        before = rendered_count(page)
        want = keys[slot] if slot < len(keys) else ""
        if page.input_value(f"#pick-{slot}") != want:
            page.select_option(f"#pick-{slot}", want)
            wait_rendered(page, before)


def set_text(page: Any, text: str) -> None:
    """Puts ``text`` in the page as a paste over all of the box does (beforeinput, the edit,
    input), and waits for the draw."""
    before = rendered_count(page)
    page.evaluate(
        """(text) => {
          const area = document.querySelector("#text");
          area.select();
          area.dispatchEvent(new InputEvent("beforeinput", {inputType: "insertFromPaste"}));
          area.value = text;
          area.dispatchEvent(new InputEvent("input", {inputType: "insertFromPaste"}));
        }""",
        text,
    )
    wait_rendered(page, before)
    wait_until(
        lambda: page.evaluate("document.querySelector('#status').textContent").endswith("ms")
    )


def url_state(url: str) -> dict[str, Any]:
    """The state a page keeps in its URL: ``#s=`` and raw-deflated JSON in base64url."""
    fragment = url.partition("#s=")[2]
    if not fragment:
        return {}
    packed = base64.urlsafe_b64decode(fragment + "=" * (-len(fragment) % 4))
    return dict(json.loads(zlib.decompress(packed, wbits=-15)))


def api_ids(key: str, text: str) -> list[int]:
    if key == SPM_KEY:
        return list(tokensmith.SentencePieceProcessor(model_file=str(SPM_MODEL)).encode(text))
    return list(tokensmith.get_encoding(key).encode_ordinary(text))


def test_typed_text_draws_the_api_ids_for_three_tokenizers(page: Any, tmp_path: Path) -> None:
    keys = ["o200k_base", "cl100k_base", SPM_KEY]
    pick(page, keys)
    page.fill("#text", "")
    before = rendered_count(page)
    page.locator("#text").press_sequentially("strawberry naïve 東京 🍓")
    wait_rendered(page, before)
    set_text(page, MIXED)
    for key in keys:
        assert pane_ids(page, key) == api_ids(key, MIXED), key
    counts = page.eval_on_selector_all(".pane .count", "els => els.map(e => Number(e.textContent))")
    assert counts == [len(api_ids(k, MIXED)) for k in keys]
    page.screenshot(path=str(tmp_path / "tokens.png"))


def test_a_long_text_is_drawn_in_chunks_without_losing_a_token(page: Any) -> None:
    text = "\n".join(LINES[:500])
    pick(page, ["cl100k_base"])
    set_text(page, text)
    chunks = page.eval_on_selector_all(".chunk", "els => els.length")
    drawn = page.eval_on_selector_all(".chunk[data-drawn]", "els => els.length")
    assert chunks > 5 and drawn < chunks  # only what is near the view is drawn
    draw_all_chunks(page, "cl100k_base")
    assert pane_ids(page, "cl100k_base") == api_ids("cl100k_base", text)


def test_a_long_paste_keeps_its_tail_out_of_the_box_yet_draws_it(page: Any) -> None:
    text = "\n".join(LINES) + "\n"
    assert len(text) > 60_000
    pick(page, ["o200k_base", SPM_KEY])
    set_text(page, text)
    box = page.input_value("#text")
    assert text.startswith(box) and len(box) <= 30_000 and box.endswith("\n")
    assert page.is_visible("#text-note")
    counts = page.eval_on_selector_all(".pane .count", "els => els.map(e => Number(e.textContent))")
    assert counts == [len(api_ids(k, text)) for k in ("o200k_base", SPM_KEY)]
    # The last token drawn is the text's last: the tail is in the panes.
    page.evaluate(
        """() => { for (const s of document.querySelectorAll(".tokens")) s.scrollTop = 1e9; }"""
    )
    last = api_ids("o200k_base", text)[-1]
    wait_until(lambda: pane_ids(page, "o200k_base")[-1:] == [last], what="the last chunk")
    # Typing in the box edits the head; the tail stays after it.
    before = rendered_count(page)
    page.locator("#text").press("Control+Home")
    page.locator("#text").press_sequentially("Hi ")
    wait_rendered(page, before)
    counts = page.eval_on_selector_all(".pane .count", "els => els.map(e => Number(e.textContent))")
    assert counts[0] == len(api_ids("o200k_base", "Hi " + text))
    # A paste over all of the box replaces the tail too.
    set_text(page, text[::-1])
    counts = page.eval_on_selector_all(".pane .count", "els => els.map(e => Number(e.textContent))")
    assert counts[0] == len(api_ids("o200k_base", text[::-1]))
    page.click("#edit-all")
    assert page.input_value("#text") == text[::-1] and not page.is_visible("#text-note")


def test_a_token_of_hundreds_of_bytes_draws_all_its_text(page: Any) -> None:
    # The test model knows no CJK: the run is one unknown piece of 360 bytes, whose length
    # takes two varint bytes in the answer.
    run = "東京" * 60
    text = f"Hello {run} world 🍓"
    pick(page, [SPM_KEY, "cl100k_base"])
    set_text(page, text)
    assert pane_ids(page, SPM_KEY) == api_ids(SPM_KEY, text)
    spans = page.eval_on_selector_all(
        f'.pane[data-key="{SPM_KEY}"] .tok', "els => els.map(e => e.textContent)"
    )
    assert run in spans
    drawn = page.eval_on_selector_all(
        '.pane[data-key="cl100k_base"] .tok:not(.ghost)', "els => els.map(e => e.textContent)"
    )
    assert "".join(drawn) == text


def test_hovering_a_token_shows_its_id_and_bytes(page: Any, tmp_path: Path) -> None:
    pick(page, ["cl100k_base"])
    set_text(page, "How many r's are in strawberry? 🍓")
    enc = tokensmith.get_encoding("cl100k_base")
    ids = enc.encode_ordinary("How many r's are in strawberry? 🍓")
    spans = page.locator('.pane[data-key="cl100k_base"] .tok')
    for index in (7, len(ids) - 1):  # " strawberry", and a byte of the emoji
        span = spans.nth(index)
        span.hover()
        wait_until(lambda: page.get_attribute("#card", "data-ready"), what="the hover card")
        card = {f: page.inner_text(f"#card .{f}") for f in ("id", "hex", "offsets", "raw")}
        token = ids[index]
        data = enc.decode_single_token_bytes(token)
        start = len(enc.decode_bytes(ids[:index]))
        assert card["id"] == str(token) == span.get_attribute("data-id")
        assert card["hex"] == data.hex(" ").upper()
        assert card["offsets"] == f"{start}–{start + len(data)}"
        page.mouse.move(0, 0)
    spans.nth(7).focus()  # the keyboard reaches the card too
    wait_until(lambda: page.get_attribute("#card", "data-ready") == str(ids[7]))
    page.screenshot(path=str(tmp_path / "hover.png"))


def _cuts(ids: list[int], enc: Any) -> tuple[list[tuple[int, int]], set[int]]:
    spans, at = [], 0
    for token in ids:
        n = len(enc.decode_single_token_bytes(token))
        spans.append((at, at + n))
        at += n
    return spans, {a for s in spans for a in s}


def test_marks_appear_where_two_tokenizers_cut_differently(page: Any, tmp_path: Path) -> None:
    text = "Tokenizers disagree: strawberry, 1234567, naïve, 東京は日本の首都です。"
    pick(page, ["o200k_base", "cl100k_base"])
    set_text(page, text)
    o200k, cl100k = (tokensmith.get_encoding(k) for k in ("o200k_base", "cl100k_base"))
    spans_o, cuts_o = _cuts(o200k.encode_ordinary(text), o200k)
    spans_c, cuts_c = _cuts(cl100k.encode_ordinary(text), cl100k)
    expect_o = [i for i, (a, b) in enumerate(spans_o) if a not in cuts_c or b not in cuts_c]
    expect_c = [i for i, (a, b) in enumerate(spans_c) if a not in cuts_o or b not in cuts_o]
    # Some cuts differ, not all (cl100k cuts this text more finely than o200k).
    assert expect_c and len(expect_c) < len(spans_c)
    marked = "els => els.map(e => Number(e.dataset.i))"
    assert page.eval_on_selector_all('.pane[data-key="o200k_base"] .tok.diff', marked) == expect_o
    assert page.eval_on_selector_all('.pane[data-key="cl100k_base"] .tok.diff', marked) == expect_c
    n_o, n_c = len(spans_o), len(spans_c)
    spread = page.inner_text("#spread")
    assert f"{min(n_o, n_c)}–{max(n_o, n_c)} tokens: a spread of {abs(n_o - n_c)}" in spread
    page.screenshot(path=str(tmp_path / "compare.png"))


def test_the_chat_view_counts_tokens_per_message(page: Any, tmp_path: Path) -> None:
    pick(page, ["o200k_base"])
    page.click("button[data-view=chat]")
    page.select_option("#chat-template", "chatml")
    wait_until(lambda: page.locator(".chat-result .message-count").count() == 3)
    contents = page.eval_on_selector_all(
        ".message",
        "els => els.map(e => [e.querySelector('.role').value, e.querySelector('.content').value])",
    )
    page.locator(".message .content").nth(1).fill("Wie viele r hat Erdbeere? 🍓")
    contents[1][1] = "Wie viele r hat Erdbeere? 🍓"
    wait_until(lambda: "Erdbeere" in page.inner_text(".chat-result .prompt"))
    shown = page.eval_on_selector_all(
        ".chat-result .message-count .n", "els => els.map(e => Number(e.textContent))"
    )
    # ChatML writes <|im_start|>ROLE\nCONTENT<|im_end|>\n per message; the two markers are
    # special tokens of one id each.
    enc = with_special_tokens(tokensmith.get_encoding("o200k_base"), ["<|im_start|>", "<|im_end|>"])
    expected = [
        2 + len(enc.encode_ordinary(f"{r}\n{c}")) + len(enc.encode_ordinary("\n"))
        for r, c in contents
    ]
    assert shown == expected
    total = int(page.inner_text(".chat-result .total"))
    assert total == sum(expected)
    window = 8192
    assert int(page.inner_text(".chat-result .fits")) == window // (
        total + 3
    )  # + "<|im_start|>assistant\n"
    page.screenshot(path=str(tmp_path / "chat.png"))


def test_a_bpe_trained_in_the_page_joins_the_picker(
    page: Any, server: Running, tmp_path: Path
) -> None:
    page.click("button[data-view=train]")
    page.evaluate(
        "(t) => { document.querySelector('#train-text').value = t; }", "\n".join(LINES[:2000])
    )
    page.select_option("#train-algorithm", "bpe")
    page.fill("#train-vocab", "600")
    page.fill("#train-name", "page-bpe")
    page.click("#train-go")
    wait_until(lambda: page.locator("#train-downloads a").count() >= 4, what="the downloads")
    log = page.inner_text("#train-log")
    assert "merges learned" in log and "done" in log  # progress arrived while it trained
    key = page.input_value("#pick-2")
    assert key.startswith("trained:")
    label = page.eval_on_selector("#pick-2", "s => s.selectedOptions[0].textContent")
    assert label == "page-bpe (bpe, 600)"
    page.screenshot(path=str(tmp_path / "train.png"))
    trained = server.catalog.trained_object(key)
    assert trained.n_vocab == 600
    page.click("button[data-view=tokens]")
    set_text(page, "trained in the page")
    assert pane_ids(page, key) == trained.encode_ordinary("trained in the page")
    href = page.get_attribute("#train-downloads a >> nth=-1", "href")
    with urlopen(server.url + href) as answer:
        names = zipfile.ZipFile(io.BytesIO(answer.read())).namelist()
    assert {"tokenizer.json", "page-bpe.tiktoken", "vocab/vocab.json", "vocab/merges.txt"} <= set(
        names
    )
    # Saved into --dir, it is offered under "saved", and again after a restart.
    page.click("button[data-view=train]")
    page.click("#train-save")
    wait_until(lambda: "saved as trained/page-bpe.tiktoken" in page.inner_text("#train-log"))
    saved = "dir:trained/page-bpe.tiktoken"
    groups = page.eval_on_selector_all(
        "#pick-0 option",
        "(os, k) => os.filter(o => o.value === k).map(o => o.parentNode.label)",
        saved,
    )
    assert groups == ["saved"]
    with running_server(ServeConfig(root=server.catalog.config.root)) as restarted:
        with urlopen(restarted.url + "/api/tokenizers") as answer:
            listed = json.loads(answer.read())["tokenizers"]
        assert {"key": saved, "label": "trained/page-bpe.tiktoken", "source": "saved"} in listed
        cut = restarted.catalog.get(saved).segment(TextLayout.of("trained in the page"))
    assert cut.ids.tolist() == trained.encode_ordinary("trained in the page")


def test_a_shared_url_reproduces_the_view(page: Any, browser: Any, tmp_path: Path) -> None:
    pick(page, ["cl100k_base", SPM_KEY])
    set_text(page, MIXED[:600])
    page.check("#ws")
    wait_until(lambda: "·" in page.inner_text(".pane .tokens"))
    wait_until(lambda: url_state(page.evaluate("location.href")).get("ws"), what="the URL")
    url = page.evaluate("location.href")
    state = url_state(url)
    assert state["text"] == MIXED[:600] and state["t"] == ["cl100k_base", SPM_KEY]
    assert state["view"] == "tokens"
    other = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
    errors = ConsoleErrors(other)
    other.goto(url)
    wait_rendered(other, 0)
    assert other.input_value("#text") == MIXED[:600]
    assert [other.input_value(f"#pick-{i}") for i in range(3)] == ["cl100k_base", SPM_KEY, ""]
    assert other.is_checked("#ws")
    for key in ("cl100k_base", SPM_KEY):
        assert pane_ids(other, key) == pane_ids(page, key) == api_ids(key, MIXED[:600])
    assert other.inner_text("#panes") == page.inner_text("#panes")
    other.screenshot(path=str(tmp_path / "shared.png"))
    other.context.close()
    assert errors.errors == []


def test_the_report_opens_for_the_text_shown(page: Any, tmp_path: Path) -> None:
    pick(page, ["o200k_base", "cl100k_base"])
    set_text(page, "\n".join(LINES[:50]))
    with page.context.expect_page() as opened:
        page.click("#report")
    report = opened.value
    report.wait_for_url("**/api/report")
    report.wait_for_load_state()
    assert report.title() == "tokensmith playground: the page's text"
    body = report.inner_text("body")
    assert "o200k_base" in body and "cl100k_base" in body
    report.screenshot(path=str(tmp_path / "report.png"))
