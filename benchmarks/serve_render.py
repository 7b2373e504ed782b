"""The playground's 1 MB paste: tokenized by 4 tokenizers on the server and drawn in headless
Chromium.

A server runs in this process (``tokensmith.serve``, on a free loopback port), and Debian's
Chromium opens the page through Playwright with four tokenizers picked: o200k_base,
cl100k_base, o200k_harmony and the SentencePiece model of ``tests/data/spm``. Each round puts
1 MB of real text into the page as one paste (select all, beforeinput, the edit, input), a
second after the round before, and reads the page's clocks:

- paste to drawn: from the paste to the second animation frame after the four panes are
  drawn (the page draws only the chunks near the view): what the user waits;
- the page's own figure, from its tokenize request to the same frame, and the part of it
  until the binary answer is parsed;
- the answer's size, in bytes per token (all four tokenizers' tokens counted).

With ``--against TREE`` a second server runs the playground of another checkout (``TREE/python``
on ``PYTHONPATH``, started as ``tokensmith serve``) in a second tab, and the rounds alternate
between the two, so both see the same load: the ratio of their medians is the change.

The text: lines of ``tests/data/multilingual.txt`` (many languages and scripts) and
``tests/data/code.txt``, taken in turn until 1,000,000 UTF-8 bytes. The tokenizers are loaded
by a warm-up round first.

    python benchmarks/serve_render.py [--rounds N] [--against TREE] [--write]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import partial
from pathlib import Path
from typing import Any

from _common import REPO_ROOT, cpu_model, git_revision, package_version, publish

DATA = REPO_ROOT / "tests" / "data"
SIZE = 1_000_000
KEYS = ["o200k_base", "cl100k_base", "o200k_harmony", "dir:test_model.model"]


def megabyte_text() -> str:
    """Multilingual and code lines in turn, cut at a line end before 1,000,000 bytes."""
    pools = [
        (DATA / name).read_text(encoding="utf-8").splitlines(keepends=True)
        for name in ("multilingual.txt", "code.txt")
    ]
    lines: list[str] = []
    size = 0
    i = 0
    while True:
        line = pools[i % 2][(i // 2) % len(pools[i % 2])]
        if size + len(line.encode("utf-8")) > SIZE:
            return "".join(lines)
        lines.append(line)
        size += len(line.encode("utf-8"))
        i += 1


def process_cpu() -> dict[int, tuple[int, float]]:
    """Every process's parent and CPU seconds (user + system) so far."""
    ticks = os.sysconf("SC_CLK_TCK")
    out: dict[int, tuple[int, float]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[int(entry.name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / ticks)
    return out


def descendants_cpu(root: int, skip: tuple[int, ...] = ()) -> float:
    """CPU seconds used so far by the processes below ``root`` but not below ``skip``
    (Chromium's, without a server started as a subprocess)."""
    table = process_cpu()
    total = 0.0
    for pid, (parent, cpu) in table.items():
        up = parent
        while up and up != root and up not in skip:
            up = table.get(up, (0, 0.0))[0]
        if up == root and pid not in skip:
            total += cpu
    return total


def subtree_cpu(root: int) -> float:
    """CPU seconds used so far by ``root`` and the processes below it."""
    table = process_cpu()
    total = table.get(root, (0, 0.0))[1]
    return total + descendants_cpu(root) if root in table else total


_PASTE = """(text) => {
  const area = document.querySelector("#text");
  window.pasteToDrawn = null;
  const started = performance.now();
  const watch = new MutationObserver(() => {
    window.pasteToDrawn = performance.now() - started;
    watch.disconnect();
  });
  watch.observe(document.body, {attributes: true, attributeFilter: ["data-rendered"]});
  // What a paste over all of the box fires: beforeinput, the edit, input.
  area.select();
  area.dispatchEvent(new InputEvent("beforeinput", {inputType: "insertFromPaste"}));
  area.value = text;
  area.dispatchEvent(new InputEvent("input", {inputType: "insertFromPaste"}));
}"""

_ANSWER_SIZE = """() => {
  const answers = performance.getEntriesByType("resource")
    .filter((e) => e.name.includes("/api/tokenize"));
  performance.clearResourceTimings();
  return answers.length ? answers[answers.length - 1].encodedBodySize : 0;
}"""


@dataclass
class Side:
    """One playground under test: its tab, and how to read its server's CPU."""

    name: str
    page: Any
    server_cpu: Callable[[], float]
    rounds: list[dict[str, float]] = field(default_factory=list)


def paste(side: Side, text: str, skip: tuple[int, ...]) -> dict[str, float]:
    """Pastes ``text`` and returns the page's timings once it is drawn, with the CPU seconds
    the server and Chromium used meanwhile."""
    page = side.page
    time.sleep(1)  # the round before may still be writing its link: one paste, not a burst
    own, browser = side.server_cpu(), descendants_cpu(os.getpid(), skip)
    before = page.evaluate("Number(document.body.dataset.rendered || 0)")
    page.evaluate(_PASTE, text)
    deadline = time.monotonic() + 120
    while page.evaluate("window.pasteToDrawn") is None:
        if time.monotonic() > deadline:
            raise TimeoutError("the page did not draw the text in 120 s")
        time.sleep(0.01)
    assert page.evaluate("Number(document.body.dataset.rendered || 0)") > before
    timings = page.evaluate(
        "({paste: window.pasteToDrawn, render: document.body.dataset.renderMs,"
        " fetch: document.body.dataset.fetchMs})"
    )
    out = {k: float(v) for k, v in timings.items()}
    out["server_cpu"] = 1000 * (side.server_cpu() - own)
    out["browser_cpu"] = 1000 * (descendants_cpu(os.getpid(), skip) - browser)
    out["answer_bytes"] = float(page.evaluate(_ANSWER_SIZE))
    out["tokens"] = float(
        sum(page.eval_on_selector_all(".pane .count", "els => els.map(e => +e.textContent)"))
    )
    return out


def med(values: list[float]) -> str:
    return f"{statistics.median(values):.0f}"


def best(values: list[float]) -> str:
    return f"{min(values):.0f}"


def paste_alone_cpu(page: Any, text: str, skip: tuple[int, ...]) -> float:
    """Chromium's CPU milliseconds for a paste with no tokenizer picked (the text box's own
    cost: taking 1 MB of text and laying it out), over a fixed 3 s window."""
    start = descendants_cpu(os.getpid(), skip)
    page.evaluate(_PASTE, text)
    time.sleep(3)
    return 1000 * (descendants_cpu(os.getpid(), skip) - start)


@contextmanager
def tree_server(tree: Path, folder: Path) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """``tokensmith serve`` from the checkout ``tree`` on a free port: its URL and process."""
    env = {**os.environ, "PYTHONPATH": str(tree / "python")}
    command = [sys.executable, "-m", "tokensmith", "serve", "--port", "0", "--dir", str(folder)]
    process = subprocess.Popen(
        [*command, "--time-limit", "120"], env=env, stderr=subprocess.PIPE, text=True
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        found = re.search(r"http://[\w.:\[\]]+/", line)
        if not found:
            raise RuntimeError(f"{tree}: the server did not start: {line}")
        yield found.group(0).rstrip("/"), process
    finally:
        process.terminate()
        process.wait(10)


def open_side(browser: Any, name: str, url: str, server_cpu: Callable[[], float]) -> Side:
    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    page.goto(url + "/")
    while not page.evaluate("document.body.dataset.ready"):
        time.sleep(0.05)
    for slot, key in enumerate(KEYS):
        page.select_option(f"#pick-{slot}", key)
    return Side(name, page, server_cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--against", type=Path, help="a checkout to compare with, round by round")
    parser.add_argument("--write", action="store_true", help="append the report to RESULTS.md")
    args = parser.parse_args()

    # The tests' own server helper, so the benchmark serves as the tests do.
    sys.path.insert(0, str(REPO_ROOT / "tests" / "serve"))
    import serve_helpers as helpers
    from playwright.sync_api import sync_playwright
    from tokensmith.serve.config import ServeConfig

    text = megabyte_text()
    n_bytes = len(text.encode("utf-8"))
    with ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        playwright = stack.enter_context(sync_playwright())
        folder = helpers.served_folder(tmp)
        config = ServeConfig(root=folder, time_limit=120)
        server = stack.enter_context(helpers.running_server(config))
        servers = [("this tree", server.url, time.process_time)]
        skip: tuple[int, ...] = ()
        if args.against:
            url, process = stack.enter_context(tree_server(args.against.resolve(), folder))
            servers.append((str(args.against), url, partial(subtree_cpu, process.pid)))
            skip = (process.pid,)
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
        )
        sides = [open_side(browser, *entry) for entry in servers]
        for side in sides:
            paste(side, "warm-up: load the four tokenizers", skip)
        for r in range(args.rounds):
            for side in sides if r % 2 == 0 else sides[::-1]:
                # Two texts in turn, so no round repeats the one before it.
                side.rounds.append(paste(side, text if r % 2 == 0 else text[::-1], skip))
        page = sides[0].page
        counts = page.eval_on_selector_all(
            ".pane .count", "els => els.map(e => Number(e.textContent))"
        )
        drawn = page.eval_on_selector_all(".tok", "els => els.length")
        box = len(page.input_value("#text"))
        alone: dict[str, list[float]] = {}
        for side in sides:
            for slot in range(len(KEYS)):
                side.page.select_option(f"#pick-{slot}", "")
            alone[side.name] = [
                paste_alone_cpu(side.page, text if r % 2 == 0 else text[::-1], skip)
                for r in range(args.rounds)
            ]
        browser.close()

    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    versions = ", ".join(
        f"{name} {package_version(name)}" for name in ("playwright", "starlette", "uvicorn")
    )
    tokens = ", ".join(f"{c:,}" for c in counts)
    rows = [
        ("paste to 4 panes drawn (what the user waits)", "paste"),
        ("the page's own figure: tokenize request to drawn", "render"),
        ("of which the tokenize answer (request, transfer, parse)", "fetch"),
        ("CPU of the server in a round (all its threads)", "server_cpu"),
        ("CPU of Chromium's processes in a round", "browser_cpu"),
    ]
    head = " | ".join(f"{side.name}: median / best ms" for side in sides)
    lines = [f"| measure | {head} |", "|---" * (1 + len(sides)) + "|"]
    for what, key in rows:
        cells = " | ".join(
            f"{med([r[key] for r in side.rounds])} / {best([r[key] for r in side.rounds])}"
            for side in sides
        )
        lines.append(f"| {what} | {cells} |")
    cells = " | ".join(f"{med(alone[side.name])} / {best(alone[side.name])}" for side in sides)
    lines.append(f"| Chromium's CPU for the paste alone (no tokenizer picked) | {cells} |")
    cells = " | ".join(
        f"{statistics.median(r['answer_bytes'] / r['tokens'] for r in side.rounds):.2f}"
        for side in sides
    )
    lines.append(f"| bytes of the tokenize answer per token | {cells} |")
    ratios = ""
    if len(sides) == 2:
        medians = [
            (what, [statistics.median(r[key] for r in side.rounds) for side in sides])
            for what, key in rows[:1] + rows[3:]
        ]
        ratios = "\n".join(
            f"- {what}: {sides[1].name} / this tree = {other / this:.2f}"
            for what, (this, other) in medians
        )
        ratios = f"\nSame-run ratios of the medians (rounds alternated):\n\n{ratios}\n"
    table = "\n".join(lines)
    against = f" --against {args.against}" if args.against else ""
    report = f"""## serve_render.py, {now}

- command: `python benchmarks/serve_render.py --rounds {args.rounds}{against}`
- machine: {cpu_model()}; shared with other jobs while it ran; Python {sys.version.split()[0]}
- versions: tokensmith tree {git_revision()}; Debian's Chromium; {versions}
- text: {n_bytes:,} bytes (multilingual and code lines); tokenizers: {", ".join(KEYS)}
- tokens per tokenizer (last round): {tokens}; spans in the DOM after it: {drawn:,} (the
  page draws only the chunks near the view); characters in the text box: {box:,}

{table}
{ratios}
The wall-clock rows depend on the load of the shared machine; the CPU rows much less.
"""
    publish(report, args.write)


if __name__ == "__main__":
    main()
