"""The playground's 1 MB paste: tokenized by 4 tokenizers on the server and drawn in headless
Chromium.

A server runs in this process (``tokensmith.serve``, on a free loopback port), and Debian's
Chromium opens the page through Playwright with four tokenizers picked: o200k_base,
cl100k_base, o200k_harmony and the SentencePiece model of ``tests/data/spm``. Each round puts
1 MB of real text into the page as one paste (one input event) and reads the page's own
clock: from the tokenize request to the second animation frame after the four panes are
drawn (the page draws only the chunks near the view), and the part of it until the binary
answer is parsed. The page waits 200 ms after an edit before it asks (typing sends one
request, not one per key); that wait is not in the figures. The tokenizers are loaded by a
warm-up round first.

The text: lines of ``tests/data/multilingual.txt`` (many languages and scripts) and
``tests/data/code.txt``, taken in turn until 1,000,000 UTF-8 bytes.

    python benchmarks/serve_render.py [--rounds N] [--write]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

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


def descendants_cpu(root: int) -> float:
    """CPU seconds (user + system) used so far by the processes below ``root`` (Chromium's)."""
    ticks = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry.name)] = int(fields[1])
        cpu[int(entry.name)] = (int(fields[11]) + int(fields[12])) / ticks
    total = 0.0
    for pid in cpu:
        up = parents.get(pid)
        while up and up != root:
            up = parents.get(up)
        if up == root:
            total += cpu[pid]
    return total


def paste(page: object, text: str) -> dict[str, float]:
    """Pastes ``text`` and returns the page's timings once it is drawn, with the CPU seconds
    this process (the server) and Chromium used meanwhile."""
    own, browser = time.process_time(), descendants_cpu(os.getpid())
    before = page.evaluate("Number(document.body.dataset.rendered || 0)")  # type: ignore[attr-defined]
    page.evaluate(  # type: ignore[attr-defined]
        """(text) => {
          const area = document.querySelector("#text");
          area.value = text;
          area.dispatchEvent(new InputEvent("input", {inputType: "insertFromPaste"}));
        }""",
        text,
    )
    deadline = time.monotonic() + 120
    while page.evaluate("Number(document.body.dataset.rendered || 0)") <= before:  # type: ignore[attr-defined]
        if time.monotonic() > deadline:
            raise TimeoutError("the page did not draw the text in 120 s")
        time.sleep(0.01)
    timings = page.evaluate(  # type: ignore[attr-defined]
        "({render: document.body.dataset.renderMs, fetch: document.body.dataset.fetchMs})"
    )
    out = {k: float(v) for k, v in timings.items()}
    out["server_cpu"] = 1000 * (time.process_time() - own)
    out["browser_cpu"] = 1000 * (descendants_cpu(os.getpid()) - browser)
    return out


def med(values: list[float]) -> str:
    return f"{statistics.median(values):.0f}"


def best(values: list[float]) -> str:
    return f"{min(values):.0f}"


def paste_alone_cpu(page: object, text: str) -> float:
    """Chromium's CPU milliseconds for a paste with no tokenizer picked (the text area's own
    cost: taking 1 MB of text and laying it out), over a fixed 3 s window."""
    start = descendants_cpu(os.getpid())
    page.evaluate(  # type: ignore[attr-defined]
        """(text) => {
          const area = document.querySelector("#text");
          area.value = text;
          area.dispatchEvent(new InputEvent("input", {inputType: "insertFromPaste"}));
        }""",
        text,
    )
    time.sleep(3)
    return 1000 * (descendants_cpu(os.getpid()) - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--write", action="store_true", help="append the report to RESULTS.md")
    args = parser.parse_args()

    # The tests' own server helper, so the benchmark serves as the tests do.
    sys.path.insert(0, str(REPO_ROOT / "tests" / "serve"))
    import serve_helpers as helpers
    from playwright.sync_api import sync_playwright
    from tokensmith.serve.config import ServeConfig

    text = megabyte_text()
    n_bytes = len(text.encode("utf-8"))
    rounds: list[dict[str, float]] = []
    counts: list[int] = []
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as playwright:
        folder = helpers.served_folder(Path(tmp))
        with helpers.running_server(ServeConfig(root=folder, time_limit=120)) as server:
            browser = playwright.chromium.launch(
                executable_path="/usr/bin/chromium",
                args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
            )
            page = browser.new_page(viewport={"width": 1600, "height": 1000})
            page.goto(server.url + "/")
            while not page.evaluate("document.body.dataset.ready"):
                time.sleep(0.05)
            for slot, key in enumerate(KEYS):
                page.select_option(f"#pick-{slot}", key)
            paste(page, "warm-up: load the four tokenizers")
            for r in range(args.rounds):
                # Two texts in turn, so no round repeats the one before it.
                rounds.append(paste(page, text if r % 2 == 0 else text[::-1]))
            counts = page.eval_on_selector_all(
                ".pane .count", "els => els.map(e => Number(e.textContent))"
            )
            drawn = page.eval_on_selector_all(".tok", "els => els.length")
            for slot in range(len(KEYS)):
                page.select_option(f"#pick-{slot}", "")
            alone = [
                paste_alone_cpu(page, text if r % 2 == 0 else text[::-1])
                for r in range(args.rounds)
            ]
            browser.close()

    render = [r["render"] for r in rounds]
    fetch = [r["fetch"] for r in rounds]
    server_cpu = [r["server_cpu"] for r in rounds]
    browser_cpu = [r["browser_cpu"] for r in rounds]
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    versions = ", ".join(
        f"{name} {package_version(name)}" for name in ("playwright", "starlette", "uvicorn")
    )
    tokens = ", ".join(f"{c:,}" for c in counts)
    table = "\n".join(
        f"| {what} | {med(values)} | {best(values)} | {len(values)} |"
        for what, values in (
            ("paste to 4 panes drawn (request, parse, marks, draw, 2 frames)", render),
            ("of which the tokenize answer (4 tokenizers, 12 or 20 bytes a token)", fetch),
            ("CPU of the server process in a round (all its threads)", server_cpu),
            ("CPU of Chromium's processes in a round", browser_cpu),
            ("of which the paste alone (no tokenizer picked)", alone),
        )
    )
    report = f"""## serve_render.py, {now}

- command: `python benchmarks/serve_render.py --rounds {args.rounds}`
- machine: {cpu_model()}; shared with other jobs while it ran; Python {sys.version.split()[0]}
- versions: tokensmith tree {git_revision()}; Debian's Chromium; {versions}
- text: {n_bytes:,} bytes (multilingual and code lines); tokenizers: {", ".join(KEYS)}
- tokens per tokenizer (last round): {tokens}; spans in the DOM after it: {drawn:,} (the
  page draws only the chunks near the view)

| measure | median ms | best ms | rounds |
|---|---|---|---|
{table}

The wall-clock rows depend on the load of the shared machine; the CPU rows much less: on an
idle machine with two cores the wall clock is about the server's CPU (its tokenizers run
in parallel, so less) plus the browser's.
"""
    publish(report, args.write)


if __name__ == "__main__":
    main()
