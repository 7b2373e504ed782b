"""Every short token of GPT-2's merges vocabulary, encoded as its own text, against HF.

A GPT-2-style ``tokenizer.json`` (merges only, no ``ignore_merges``) encodes every piece by
merging its bytes, so a token that no merge makes comes out as several tokens. A thread's
piece cache starts out holding the tokens of up to 15 bytes whose merge gives them back;
this checks, on a thread whose cache is new, that each such token's text (and every other
short token's) encodes exactly as HF ``tokenizers`` encodes it.
"""

from __future__ import annotations

import gzip
import json
import threading
from pathlib import Path

import tokensmith
from tokenizers import Tokenizer, decoders, models, pre_tokenizers
from tokensmith.io._byte_level import str_to_token

GPT2 = Path(__file__).parent.parent / "data" / "gpt2_data_gym"


def _gpt2_tokenizer_json(out: Path) -> tuple[Path, dict[str, int]]:
    vocab = json.loads(gzip.decompress((GPT2 / "encoder.json.gz").read_bytes()))
    lines = gzip.decompress((GPT2 / "vocab.bpe.gz").read_bytes()).decode().split("\n")
    merges = [tuple(line.split(" ")) for line in lines[1:] if line]
    tok = Tokenizer(models.BPE(vocab=vocab, merges=merges))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    path = out / "tokenizer.json"
    tok.save(str(path))
    return path, vocab


def test_every_short_gpt2_token_encodes_as_hf_on_a_new_thread(tmp_path: Path) -> None:
    path, vocab = _gpt2_tokenizer_json(tmp_path)
    texts = []
    for token in vocab:
        raw = str_to_token(token) if token != "<|endoftext|>" else b""
        if not 1 <= len(raw) <= 15:
            continue
        try:
            texts.append(raw.decode("utf-8"))
        except UnicodeDecodeError:
            continue  # part of a character: not text
    assert len(texts) > 45_000
    hf = Tokenizer.from_file(str(path))
    expected = [e.ids for e in hf.encode_batch(texts, add_special_tokens=False)]
    ours = tokensmith.Tokenizer.from_file(str(path))
    got: list[list[int]] = []
    # A thread of its own: its piece cache for this vocabulary starts out pre-filled.
    worker = threading.Thread(
        target=lambda: got.extend(ours.encode(t, add_special_tokens=False).ids for t in texts)
    )
    worker.start()
    worker.join()
    mismatches = [(t, g, e) for t, g, e in zip(texts, got, expected, strict=True) if g != e]
    assert mismatches == []
