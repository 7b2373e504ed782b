"""The HTML report opens in a real browser: headless Chromium loads it and every image decodes.

Chromium comes from Debian's packages (``make test`` installs it). The test appends a probe
script to a copy of the report; after the page's ``load`` event the probe writes, into the DOM,
how many ``<img>`` elements there are and which of them failed to decode (``naturalWidth`` 0).
Chromium's ``--dump-dom`` prints that DOM, and the test reads the probe's line back.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

from tokensmith.eval import load_tokenizer
from tokensmith.report import Corpus, build_report, parallel_corpus, write_html

PROBE = """
<script>
window.addEventListener("load", () => {
  const images = Array.from(document.images);
  const broken = images.filter((im) => !im.complete || im.naturalWidth === 0)
                       .map((im) => im.alt);
  const sizes = images.map((im) => [im.naturalWidth, im.naturalHeight]);
  const out = document.createElement("pre");
  out.id = "probe";
  out.textContent = "PROBE " + JSON.stringify({count: images.length, broken, sizes});
  document.body.appendChild(out);
});
</script>
"""


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    raise AssertionError("Chromium is not installed: `make test` installs Debian's chromium")


def render(path: Path) -> dict:
    command = [
        chromium(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--virtual-time-budget=10000",
        "--dump-dom",
        path.as_uri(),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    found = re.search(r"PROBE (\{.*?\})</pre>", done.stdout)
    assert found, f"no probe output from Chromium (exit {done.returncode}): {done.stderr[-2000:]}"
    return json.loads(found.group(1).replace("&quot;", '"'))


def test_report_renders_in_chromium_with_every_image_loaded(tmp_path: Path) -> None:
    tokenizers = {name: load_tokenizer(name) for name in ("o200k_base", "cl100k_base")}
    pairs = {"de": [("Open file", "Datei öffnen")], "ja": [("Open file", "ファイルを開く")]}
    corpora = [
        Corpus("notes.txt", {"all": ["hello world", "The year 2024 had 366 days."]}),
        parallel_corpus("parallel", pairs),
    ]
    report = build_report(tokenizers, corpora, samples=["strawberry"])
    page = tmp_path / "report.html"
    write_html(report, page)
    html = page.read_text(encoding="utf-8")
    n_images = html.count("<img ")
    probed = tmp_path / "probed.html"
    probed.write_text(html.replace("</body>", PROBE + "</body>"), encoding="utf-8")

    result = render(probed)

    assert result["count"] == n_images >= 4
    assert result["broken"] == []
    assert all(w > 100 and h > 100 for w, h in result["sizes"])


def test_the_probe_sees_a_broken_image(tmp_path: Path) -> None:
    # The check can fail: an image whose data is not a PNG is reported as broken.
    page = tmp_path / "broken.html"
    page.write_text(
        '<html><body><img alt="bad" src="data:image/png;base64,AAAA">'
        + PROBE
        + "</body></html>",
        encoding="utf-8",
    )
    assert render(page)["broken"] == ["bad"]
