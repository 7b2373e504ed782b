"""The server's parts without a browser: spans, the wire format, chat counts, training jobs,
downloads and the folder listing."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
import tokensmith
from serve_helpers import DATA, SPM_MODEL, served_folder
from tokensmith.errors import ChatTemplateError, InvalidTrainerOptionError
from tokensmith.serve.catalog import Catalog
from tokensmith.serve.chat_view import chat_view
from tokensmith.serve.config import ServeConfig
from tokensmith.serve.downloads import download, formats_for
from tokensmith.serve.safe_paths import list_tokenizer_files
from tokensmith.serve.segmenter import Segmenter, TextLayout
from tokensmith.serve.training import TrainJobs
from tokensmith.serve.varint import leb128, zigzag
from tokensmith.serve.wire import ghost_ids, pack

LINES = (DATA / "multilingual.txt").read_text(encoding="utf-8").splitlines()
TEXT = "\n".join(LINES[::500][:30]) + "\nemoji 🍓🧑‍🍳 and   spaces\ttabs"


def read_varints(data: bytes) -> list[int]:
    """LEB128 varints, read one byte at a time as the page does."""
    values, value, shift = [], 0, 0
    for byte in data:
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            values.append(value)
            value, shift = 0, 0
    assert shift == 0, "the last varint is cut short"
    return values


def unpack(blob: bytes) -> tuple[dict, list[list[list[int]]]]:
    """Reads the tokenize answer as the page does (see serve/wire.py): ids, byte starts and
    byte ends per tokenizer."""
    head_len = int.from_bytes(blob[:4], "little")
    header = json.loads(blob[4 : 4 + head_len])
    width = header["id_bytes"]
    at = 4 + head_len
    arrays = []
    for result in header["results"]:
        n = result["n_tokens"]
        parts = []
        for size in result["sizes"]:
            parts.append(blob[at : at + size])
            at += size
        ids = [
            int.from_bytes(parts[0][i : i + width], "little") for i in range(0, width * n, width)
        ]
        lengths = read_varints(parts[1])
        gaps = [(g >> 1) ^ -(g & 1) for g in read_varints(parts[2])] or [0] * n
        assert len(ids) == len(lengths) == len(gaps) == n
        starts, ends, end = [], [], 0
        for gap, length in zip(gaps, lengths, strict=True):
            starts.append(end + gap)
            end = starts[-1] + length
            ends.append(end)
        arrays.append([ids, starts, ends])
    assert at == len(blob)
    return header, arrays


@pytest.mark.parametrize("name", ["o200k_base", "cl100k_base"])
def test_byte_level_spans_cover_the_text_and_match_the_ids(name: str) -> None:
    enc = tokensmith.get_encoding(name)
    cut = Segmenter.of(enc, label=name).segment(TextLayout.of(TEXT))
    assert cut.ids.tolist() == enc.encode_ordinary(TEXT)
    data = TEXT.encode("utf-8")
    pieces = [data[a:b] for a, b in zip(cut.byte_starts, cut.byte_ends, strict=True)]
    assert pieces == [enc.decode_single_token_bytes(t) for t in cut.ids.tolist()]
    # The byte spans tile the text.
    assert cut.byte_starts[0] == 0 and cut.byte_ends[-1] == len(data)
    assert (cut.byte_starts[1:] == cut.byte_ends[:-1]).all()


def test_sentencepiece_spans_are_the_models_offsets_in_bytes() -> None:
    seg = Segmenter.of(tokensmith.load(str(SPM_MODEL)), label="spm")
    cut = seg.segment(TextLayout.of(TEXT))
    result = tokensmith.load(str(SPM_MODEL)).encode(TEXT, add_special_tokens=False)
    assert cut.ids.tolist() == result.ids
    assert cut.ids.tolist() == tokensmith.SentencePieceProcessor(model_file=str(SPM_MODEL)).encode(
        TEXT
    )
    starts = [len(TEXT[:a].encode("utf-8")) for a, _ in result.offsets]
    ends = [len(TEXT[:b].encode("utf-8")) for _, b in result.offsets]
    assert cut.byte_starts.tolist() == starts and cut.byte_ends.tolist() == ends
    # A dummy prefix standing alone draws no character: it is a ghost.
    layout = TextLayout.of("Hi")
    hi = seg.segment(layout)
    assert seg.piece(int(hi.ids[0])).raw == "▁"
    assert int(hi.ids[0]) in ghost_ids(hi, layout).tolist()


@pytest.mark.parametrize("model", sorted((DATA / "spm").glob("*.model")), ids=lambda p: p.name)
def test_byte_offset_arrays_are_sentencepieces(model: Path) -> None:
    import sentencepiece

    core = tokensmith.SentencePieceProcessor(model_file=str(model))._model
    text = TEXT + "\n\u3042\U0001f9d1\u200d\U0001f373 \x00 \ufffd"
    columns = core.encode_byte_offsets(text)
    assert all(isinstance(c, np.ndarray) and c.dtype == np.uint32 for c in columns)
    ids, begins, ends = (c.tolist() for c in columns)
    reference = sentencepiece.SentencePieceProcessor(model_file=str(model))
    pieces = reference.encode(text, return_type="proto").pieces
    assert ids == [p.id for p in pieces]
    assert begins == [p.begin for p in pieces] and ends == [p.end for p in pieces]


# A SentencePiece model drops a leading space: its tokens then start at byte 1, not 0.
@pytest.mark.parametrize(
    ("spm", "text"), [(False, TEXT), (True, TEXT), (True, " leading space, no dummy prefix")]
)
def test_the_wire_answer_reads_back(spm: bool, text: str) -> None:
    tok = tokensmith.load(str(SPM_MODEL)) if spm else tokensmith.get_encoding("cl100k_base")
    layout = TextLayout.of(text)
    cut = Segmenter.of(tok, label="cl").segment(layout)
    blob = pack(n_bytes=layout.n_bytes, n_chars=len(text), items=[("k", "cl", cut, {"1": "x"})])
    header, arrays = unpack(blob)
    starts, ends = cut.byte_starts.tolist(), cut.byte_ends.tolist()
    tiled = starts[0] == 0 and starts[1:] == ends[:-1]
    assert header["results"][0].pop("contiguous") is tiled
    assert header["results"][0].pop("sizes")[2] == (0 if tiled else cut.n_tokens)
    assert header["results"][0] == {
        "key": "k",
        "label": "cl",
        "n_tokens": cut.n_tokens,
        "labels": {"1": "x"},
    }
    ids, starts_read, ends_read = arrays[0]
    assert ids == cut.ids.tolist()
    assert starts_read == starts and ends_read == ends
    assert header["n_bytes"] == len(text.encode("utf-8"))


def test_ghosts_are_the_tokens_that_draw_no_character() -> None:
    text = "a😀é東"
    enc = tokensmith.get_encoding("cl100k_base")
    layout = TextLayout.of(text)
    cut = Segmenter.of(enc, label="cl").segment(layout)
    # A token draws a character when it holds that character's first byte.
    data = text.encode("utf-8")
    firsts = {i for i in range(len(data)) if data[i] & 0xC0 != 0x80}
    expected = {
        t
        for t, a, b in zip(cut.ids.tolist(), cut.byte_starts, cut.byte_ends, strict=True)
        if not firsts & set(range(a, b))
    }
    assert expected and set(ghost_ids(cut, layout).tolist()) == expected


@pytest.mark.parametrize("largest", [0, 127, 128, 16383, 16384, 2**21, 2**28, 2**32 - 1, 2**35 - 1])
def test_varints_read_back(largest: int) -> None:
    values = np.random.default_rng(largest).integers(0, largest + 1, 500).tolist() + [largest]
    assert read_varints(leb128(np.array(values))) == values
    signed = [v // 2 - v for v in values]  # negative, or 0
    assert [(g >> 1) ^ -(g & 1) for g in read_varints(leb128(zigzag(np.array(signed))))] == signed


def test_varints_refuse_what_they_cannot_hold() -> None:
    for bad in ([-1], [2**35]):
        with pytest.raises(ValueError, match="varints hold"):
            leb128(np.array(bad))


def test_a_byte_level_answer_takes_few_bytes_a_token() -> None:
    text = "\n".join(LINES[:2000])
    layout = TextLayout.of(text)
    enc = tokensmith.get_encoding("o200k_base")
    cut = Segmenter.of(enc, label="o200k_base").segment(layout)
    blob = pack(n_bytes=layout.n_bytes, n_chars=len(text), items=[("k", "o", cut, {})])
    head = 4 + int.from_bytes(blob[:4], "little")
    # 3 bytes an id (o200k_base has over 65,536), 1 a length unless a token is 128+ bytes.
    long_tokens = int(((cut.byte_ends - cut.byte_starts) >= 128).sum())
    assert len(blob) - head == 4 * cut.n_tokens + long_tokens


def test_chat_counts_for_a_sentencepiece_model_add_up() -> None:
    seg = Segmenter.of(tokensmith.load(str(SPM_MODEL)), label="spm")
    messages = [{"role": "user", "content": LINES[10]}, {"role": "assistant", "content": "ok"}]
    view = chat_view(seg, messages, template="llama2", context_window=1000)
    prompt = "<s>[INST] " + LINES[10].strip() + " [/INST] ok </s>"
    assert view["prompt"] == prompt
    ids = tokensmith.load(str(SPM_MODEL)).encode(prompt, add_special_tokens=False).ids
    assert view["total_tokens"] == len(ids) == sum(m["tokens"] for m in view["messages"])
    assert view["per_role"] == {m["role"]: m["tokens"] for m in view["messages"]}
    # <s> and </s> are control pieces of the model, which it never reads from text.
    assert view["control_tokens_as_text"] == ["<s>", "</s>"]
    chatml = chat_view(seg, messages, template="chatml", context_window=1000)
    assert chatml["control_tokens_as_text"] == ["<|im_start|>", "<|im_end|>"]
    # A pipeline that holds them as added tokens reads each as one id.
    specials = ["<|im_start|>", "<|im_end|>"]
    trained = tokensmith.train_bpe(
        LINES[:300], vocab_size=400, kind="metaspace", special_tokens=specials
    )
    own = chat_view(
        Segmenter.of(trained, label="t"), messages, template="chatml", context_window=1000
    )
    assert own["control_tokens_as_text"] == []


def test_template_text_from_the_page_is_refused() -> None:
    seg = Segmenter.of(tokensmith.get_encoding("cl100k_base"), label="cl100k_base")
    messages = [{"role": "user", "content": "hi"}]
    with pytest.raises(ChatTemplateError, match="unknown chat template"):
        chat_view(seg, messages, template="{{ messages }}", context_window=10)
    with pytest.raises(ChatTemplateError, match="no chat template of its own"):
        chat_view(seg, messages, template="own", context_window=10)


def test_training_jobs_publish_and_report_errors() -> None:
    published = []
    jobs = TrainJobs(lambda tok, label: published.append((tok, label)) or "trained:1")
    job = jobs.start(text="\n".join(LINES[:300]), algorithm="wordpiece", vocab_size=300, name="wp")
    assert job.wait(60)
    assert job.events[0]["stage"] == "started" and job.events[-1]["stage"] == "done"
    assert published[0][1] == "wp (wordpiece, 300)"
    empty = jobs.start(text=" \n ", algorithm="bpe", vocab_size=300, name="")
    assert empty.wait(60) and empty.events[-1]["stage"] == "error"
    with pytest.raises(InvalidTrainerOptionError):
        jobs.start(text="x", algorithm="perl", vocab_size=300, name="")
    with pytest.raises(InvalidTrainerOptionError):
        jobs.start(text="x", algorithm="bpe", vocab_size=0, name="")


def test_downloads_load_back_with_the_same_ids(tmp_path: Path) -> None:
    enc = tokensmith.train_bpe(LINES[:500], vocab_size=400, name="dl")
    sample = " ".join(LINES[600:620])
    name, data = download(enc, "all")
    assert name == "tokenizer.zip"
    zipfile.ZipFile(io.BytesIO(data)).extractall(tmp_path)
    for path in ("tokenizer.json", "dl.tiktoken", "vocab"):
        assert tokensmith.load(str(tmp_path / path)).encode(sample) == enc.encode(sample), path
    unigram = tokensmith.train_unigram(LINES[:500], vocab_size=300)
    assert formats_for(unigram) == ["model", "all"]
    model_name, model = download(unigram, "model")
    (tmp_path / model_name).write_bytes(model)
    loaded = tokensmith.SentencePieceProcessor(model_file=str(tmp_path / model_name))
    assert loaded.encode(sample) == unigram.encode(sample)


def test_the_folder_lists_tokenizers_and_no_symlink_out(tmp_path: Path) -> None:
    folder = served_folder(tmp_path)
    pretrained = folder / "bert"
    pretrained.mkdir()
    (pretrained / "tokenizer.json").write_text("{}")
    (pretrained / "tokenizer_config.json").write_text("{}")
    assert list_tokenizer_files(folder) == ["bert", "test_model.model"]
    catalog = Catalog(ServeConfig(root=folder))
    keys = [e.key for e in catalog.entries()]
    assert keys[:3] == ["o200k_base", "cl100k_base", "o200k_harmony"]
    assert keys[3:] == ["dir:bert", "dir:test_model.model"]


def test_command_line_tokenizers_are_offered_first() -> None:
    catalog = Catalog(ServeConfig(tokenizers=(str(SPM_MODEL), "cl100k_base")))
    entries = catalog.entries()
    assert [(e.key, e.label, e.source) for e in entries[:2]] == [
        ("arg:0", "test_model.model", "command line"),
        ("arg:1", "cl100k_base", "command line"),
    ]
    assert catalog.get("arg:0").segment(TextLayout.of("Hi")).ids.tolist() == (
        tokensmith.SentencePieceProcessor(model_file=str(SPM_MODEL)).encode("Hi")
    )


def test_the_command_refuses_a_bad_tokenizer_before_listening() -> None:
    from tokensmith.cli import app
    from typer.testing import CliRunner

    result = CliRunner().invoke(app, ["serve", "--port", "0", "no_such_encoding"])
    assert result.exit_code == 2
    assert "no_such_encoding" in result.output
