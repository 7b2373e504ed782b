"""The report writers: JSON follows the schema, HTML parses and embeds every plot as a PNG."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from html_checks import decode_png, parse_report
from tokensmith.eval import load_tokenizer
from tokensmith.report import (
    ComparisonReport,
    Corpus,
    SweepPoint,
    build_report,
    parallel_corpus,
    render_html,
    segment,
    to_json_dict,
    validate_report_json,
    write_html,
    write_json,
)

PAIRS = {
    "de": [("Open file", "Datei öffnen"), ("Save the document", "Dokument speichern")],
    "ja": [("Open file", "ファイルを開く")],
    "xx": [],
}


@pytest.fixture(scope="module")
def report() -> ComparisonReport:
    tokenizers = {name: load_tokenizer(name) for name in ("o200k_base", "cl100k_base")}
    corpora = [
        Corpus("notes.txt", {"all": ["hello world", "The year 2024 had 366 days."]}),
        parallel_corpus("parallel", PAIRS),
    ]
    return build_report(tokenizers, corpora, samples=["strawberry", "Datei öffnen"])


def test_results_nest_tokenizer_corpus_language_metric(report: ComparisonReport) -> None:
    assert list(report.results) == ["o200k_base", "cl100k_base"]
    by_lang = report.results["cl100k_base"]["parallel"]
    assert list(by_lang) == ["en", "de", "ja", "xx"]
    # Independent count: cl100k cuts "Open file" into 2 tokens, "Datei öffnen" into 4 (see the
    # parity docstring); "Save the document" / "Dokument speichern" are counted here by hand
    # through the encoder.
    enc = load_tokenizer("cl100k_base")
    en = sum(len(enc.encode(e)) for e, _ in PAIRS["de"])
    de = sum(len(enc.encode(t)) for _, t in PAIRS["de"])
    assert by_lang["de"]["parity"] == pytest.approx(de / en)
    assert by_lang["de"]["n_pairs"] == 2
    assert by_lang["en"]["parity"] == 1.0
    notes = report.results["o200k_base"]["notes.txt"]["all"]
    text = "hello world\nThe year 2024 had 366 days."
    assert notes["bytes_per_token"] == pytest.approx(
        (len(text.encode()) - 1)
        / sum(len(load_tokenizer("o200k_base").encode(t)) for t in text.split("\n"))
    )


def test_language_without_pairs_is_reported_not_dropped(report: ComparisonReport) -> None:
    assert report.missing == {"notes.txt": [], "parallel": ["xx"]}
    xx = report.results["o200k_base"]["parallel"]["xx"]
    assert xx["n_pairs"] == 0 and math.isnan(xx["parity"]) and math.isnan(xx["bytes_per_token"])
    assert "no data for xx" in render_html(report)


def test_json_follows_schema(report: ComparisonReport, tmp_path: Path) -> None:
    path = tmp_path / "deep" / "report.json"
    write_json(report, path)
    doc = json.loads(path.read_text(encoding="utf-8"))  # strict: NaN would not parse back
    assert validate_report_json(doc) == []
    assert doc["schema_version"] == 1
    assert doc["tokenizers"]["o200k_base"]["vocab_size"] == 200019
    metrics = doc["results"]["o200k_base"]["parallel"]["de"]
    for key in ("bytes_per_token", "fertility", "parity", "renyi_efficiency", "n_pairs"):
        assert isinstance(metrics[key], float)
    assert doc["results"]["o200k_base"]["parallel"]["xx"]["parity"] is None
    assert doc["samples"][0]["text"] == "strawberry"
    assert [p["text"] for p in doc["samples"][0]["tokens"]["cl100k_base"]] == [
        "str",
        "aw",
        "berry",
    ]
    assert list(tmp_path.joinpath("deep").iterdir()) == [path]  # no temporary file left


def test_validator_finds_departures() -> None:
    good = to_json_dict(ComparisonReport(results={"t": {"c": {"all": {"m": 1.0}}}}))
    assert validate_report_json(good) == []
    bad = json.loads(json.dumps(good))
    bad["results"]["t"]["c"]["all"]["m"] = "1.0"
    bad["results"]["u"] = {}
    problems = validate_report_json(bad)
    assert any("non-numeric" in p for p in problems)
    assert any("'u'" in p for p in problems)
    assert validate_report_json({}) != []


def test_html_parses_and_every_image_is_an_embedded_png(
    report: ComparisonReport, tmp_path: Path
) -> None:
    path = tmp_path / "report.html"
    write_html(report, path)
    images, text = parse_report(path.read_text(encoding="utf-8"))
    # bytes/token, parity, sweep and token lengths.
    assert len(images) == 4
    for src in images:
        decode_png(src)
    assert "http" not in path.read_text(encoding="utf-8").replace("http-equiv", "")
    assert "str" in text and "berry" in text


def test_sections_without_data_say_so_instead_of_an_empty_image() -> None:
    empty = ComparisonReport(results={"t": {"c": {"all": {"n_tokens": 0.0}}}})
    images, text = parse_report(render_html(empty))
    assert images == []
    assert "no data" in text


def test_sweep_points_grow_with_the_vocabulary(report: ComparisonReport) -> None:
    points = report.sweeps["cl100k_base"]
    assert [p.vocab_size for p in points] == sorted(p.vocab_size for p in points)
    assert all(isinstance(p, SweepPoint) for p in points)
    assert points[-1].bytes_per_token >= points[0].bytes_per_token


def test_segment_groups_tokens_that_split_a_character() -> None:
    # cl100k cuts 語 into two byte tokens; they are shown as one piece.
    pieces = segment("cl100k_base", "日本語")
    assert "".join(p.text for p in pieces) == "日本語"
    assert any(len(p.ids) == 2 for p in pieces)


def test_many_languages_turn_the_bars_horizontal() -> None:
    import base64
    import struct

    from tokensmith.report.plots import parity_plot

    langs = {f"l{i:02d}": {"parity": 1.0 + i / 10, "n_tokens": 5.0} for i in range(60)}
    results = {"t": {"p": langs}, "u": {"p": langs}}
    png = decode_png("data:image/png;base64," + (parity_plot(results) or ""))
    width, height = struct.unpack(">II", png[16:24])  # the IHDR chunk
    assert height > width
    assert base64.b64encode(png)


def test_a_tokenizer_without_nested_ranks_gets_a_note_instead_of_a_sweep() -> None:
    import tokenizers

    hf = tokenizers.Tokenizer(tokenizers.models.BPE())
    hf.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    hf.decoder = tokenizers.decoders.ByteLevel()
    trainer = tokenizers.trainers.BpeTrainer(
        vocab_size=300, initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet()
    )
    hf.train_from_iterator(["hello world", "hello tokens"] * 10, trainer)
    report = build_report(
        {"hf": load_tokenizer(hf)}, [Corpus("c", {"all": ["hello world"]})], samples=[]
    )
    assert report.sweeps == {}
    assert any("No vocabulary-size sweep for hf" in n for n in report.notes)
    assert report.results["hf"]["c"]["all"]["round_trip_rate"] == 1.0
