"""Builders of the tokenizer.json families that the HF parity tests and
``benchmarks/encode_hf.py`` share, all made offline from the committed text:

- :func:`bert_style`: WordPiece trained by HF ``tokenizers`` (BERT uncased and cased, and two
  that combine other normalizers and pre-tokenizers);
- :func:`unigram_style`: T5-, ALBERT- and XLM-R-style Unigram files, converted by
  ``transformers``' own slow-to-fast converters from a SentencePiece model (the committed
  English ``test_model.model``, or one trained here on the multilingual text);
- :func:`regex_bpe_style`: Qwen2- and Llama-3-style byte-level BPE with the published
  pre-tokenizer regexes;
- :func:`wordlevel_style`: WordLevel files with NFC, NFKC and ByteLevel normalizers,
  UnicodeScripts and FixedLength pre-tokenizers, and the CTC decoder.

Each takes the folder to write into and returns the path of the file it wrote. The tests run
them in pytest's temporary folders; the benchmark imports this file by path.

>>> sorted(WORDLEVEL_KINDS)[:2]
['bytelevel-fixed', 'ctc-chars']
"""

from __future__ import annotations

import importlib
from pathlib import Path

DATA = Path(__file__).parent.parent / "data"
MULTILINGUAL = DATA / "multilingual.txt"

BERT_SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
BERT_KINDS = ("uncased", "cased", "nfkd-whitespace", "nfd-sequence")


def bert_style(kind: str, out: Path) -> Path:
    """A WordPiece file of one of :data:`BERT_KINDS`, written to ``out/<kind>.json``."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
    from tokenizers.trainers import WordPieceTrainer

    tok = Tokenizer(models.WordPiece(unk_token="[UNK]", max_input_chars_per_word=30))
    options: dict[str, object] = {"vocab_size": 6000, "special_tokens": BERT_SPECIALS}
    tok.decoder = decoders.WordPiece(prefix="##")
    if kind == "uncased":
        # A small alphabet, so that [UNK] is common.
        tok.normalizer = normalizers.BertNormalizer(lowercase=True)
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        options.update(vocab_size=3000, limit_alphabet=300)
    elif kind == "cased":
        tok.normalizer = normalizers.BertNormalizer(lowercase=False)
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    elif kind == "nfkd-whitespace":
        tok.normalizer = normalizers.Sequence(
            [normalizers.NFKD(), normalizers.StripAccents(), normalizers.Lowercase()]
        )
        tok.pre_tokenizer = pre_tokenizers.Whitespace()
        tok.decoder = decoders.WordPiece(prefix="##", cleanup=False)
    elif kind == "nfd-sequence":
        tok.normalizer = normalizers.Sequence([normalizers.Strip(), normalizers.NFD()])
        tok.pre_tokenizer = pre_tokenizers.Sequence(
            [pre_tokenizers.WhitespaceSplit(), pre_tokenizers.BertPreTokenizer()]
        )
    else:
        raise ValueError(kind)
    tok.train([str(MULTILINGUAL)], WordPieceTrainer(**options))
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    if kind == "nfkd-whitespace":
        tok.post_processor = processors.BertProcessing(("[SEP]", sep), ("[CLS]", cls))
    else:
        tok.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]",
            pair="[CLS] $A [SEP] $B:1 [SEP]:1",
            special_tokens=[("[CLS]", cls), ("[SEP]", sep)],
        )
    path = out / f"{kind}.json"
    tok.save(str(path))
    return path


UNIGRAM_EXTRA_IDS = 5
ENGLISH_SPM_MODEL = DATA / "spm" / "test_model.model"


class _SlowStub:
    """What the converters read from a slow tokenizer, answered from the .model file."""

    def __init__(self, vocab_file: Path, legacy: bool) -> None:
        self.vocab_file = str(vocab_file)
        self._extra_ids = UNIGRAM_EXTRA_IDS
        self.keep_accents = False
        self.do_lower_case = True
        self.legacy = legacy
        self.special_tokens: list[str] = []
        # Filled from the converter's own vocabulary (XLM-R's ids are shifted, T5 adds ids).
        self.ids: dict[str, int] = {}

    def convert_tokens_to_ids(self, token: str) -> int:
        return self.ids[token]


def spm_unigram_model(source: str, out: Path) -> Path:
    """The SentencePiece model of ``source``: ``"test_model"`` (the committed English model),
    or ``"multi"`` / ``"multi-bf"`` (a 2000-piece Unigram model trained on the multilingual
    text, the latter with byte fallback)."""
    if source == "test_model":
        return ENGLISH_SPM_MODEL
    import sentencepiece as spm

    byte_fallback = source == "multi-bf"
    prefix = out / ("multi_bf" if byte_fallback else "multi")
    spm.SentencePieceTrainer.train(
        input=str(MULTILINGUAL),
        model_prefix=str(prefix),
        model_type="unigram",
        vocab_size=2000,
        character_coverage=0.98,
        byte_fallback=byte_fallback,
        control_symbols=["[CLS]", "[SEP]", "<mask>"],
        minloglevel=2,
    )
    return prefix.with_suffix(".model")


def unigram_style(family: str, model: Path, legacy: bool, byte_fallback: bool, out: Path) -> Path:
    """``model`` converted as ``family`` (``"t5"``, ``"albert"`` or ``"xlmr"``) converts it,
    written to ``out/<family>.json``."""
    converters = importlib.import_module("transformers.convert_slow_tokenizer")
    base = {
        "t5": converters.T5Converter,
        "albert": converters.AlbertConverter,
        "xlmr": converters.XLMRobertaConverter,
    }[family]
    converter = type("Converter", (base,), {"handle_byte_fallback": byte_fallback})
    stub = _SlowStub(model, legacy)
    conv = converter(stub)
    stub.ids = {piece: i for i, (piece, _) in enumerate(conv.vocab(conv.proto))}
    tok = conv.converted()
    path = out / f"{family}.json"
    tok.save(str(path))
    return path


# The pre-tokenizer patterns as the Qwen2 and Llama 3 tokenizer.json files publish them.
QWEN2_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)
LLAMA3_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)


def regex_bpe_style(family: str, out: Path) -> Path:
    """A byte-level BPE of 3000 tokens in the shape of ``family`` (``"qwen2"``: NFC, Split +
    ByteLevel, a ByteLevel post-processor; ``"llama3"``: ``ignore_merges``, a Sequence
    post-processor with a ``<|begin_of_text|>`` template), written to ``out/<family>.json``."""
    from tokenizers import (
        Regex,
        Tokenizer,
        decoders,
        models,
        normalizers,
        pre_tokenizers,
        processors,
    )
    from tokenizers.trainers import BpeTrainer

    pattern = QWEN2_PATTERN if family == "qwen2" else LLAMA3_PATTERN
    tok = Tokenizer(models.BPE(ignore_merges=family == "llama3"))
    if family == "qwen2":
        tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(pattern), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(
                add_prefix_space=False, trim_offsets=family == "llama3", use_regex=False
            ),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    specials = ["<|endoftext|>"] if family == "qwen2" else ["<|begin_of_text|>", "<|end_of_text|>"]
    trainer = BpeTrainer(
        vocab_size=3000,
        special_tokens=specials,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train([str(MULTILINGUAL)], trainer)
    if family == "qwen2":
        tok.post_processor = processors.ByteLevel(
            add_prefix_space=False, trim_offsets=False, use_regex=False
        )
    else:
        bos = tok.token_to_id("<|begin_of_text|>")
        tok.post_processor = processors.Sequence(
            [
                processors.ByteLevel(add_prefix_space=True, trim_offsets=False, use_regex=True),
                processors.TemplateProcessing(
                    single="<|begin_of_text|> $A",
                    pair="<|begin_of_text|> $A <|begin_of_text|>:1 $B:1",
                    special_tokens=[("<|begin_of_text|>", bos)],
                ),
            ]
        )
    path = out / f"{family}.json"
    tok.save(str(path))
    return path


WORDLEVEL_SPECIALS = ["<unk>", "<pad>", "<s>", "</s>", "|"]
WORDLEVEL_KINDS = (
    "nfkc-scripts",
    "nfc-scripts-only",
    "bytelevel-fixed",
    "ctc-chars",
    "nfc-whitespace",
    "nfkc-whitespace",
)


def wordlevel_style(kind: str, out: Path) -> Path:
    """A WordLevel file of one of :data:`WORDLEVEL_KINDS`, written to ``out/<kind>.json``."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
    from tokenizers.trainers import WordLevelTrainer

    tok = Tokenizer(models.WordLevel(unk_token="<unk>"))
    if kind == "nfkc-scripts":
        tok.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()])
        tok.pre_tokenizer = pre_tokenizers.Sequence(
            [pre_tokenizers.WhitespaceSplit(), pre_tokenizers.UnicodeScripts()]
        )
    elif kind in ("nfc-whitespace", "nfkc-whitespace"):
        tok.normalizer = normalizers.NFC() if kind == "nfc-whitespace" else normalizers.NFKC()
        tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    elif kind == "nfc-scripts-only":
        tok.normalizer = normalizers.NFC()
        tok.pre_tokenizer = pre_tokenizers.UnicodeScripts()
    elif kind == "bytelevel-fixed":
        tok.normalizer = normalizers.ByteLevel()
        tok.pre_tokenizer = pre_tokenizers.FixedLength(length=3)
    elif kind == "ctc-chars":
        tok.normalizer = normalizers.Sequence([normalizers.NFC(), normalizers.Replace(" ", "|")])
        tok.pre_tokenizer = pre_tokenizers.FixedLength(length=1)
        tok.decoder = decoders.CTC(pad_token="<pad>", word_delimiter_token="|")
    else:
        raise ValueError(kind)
    trainer = WordLevelTrainer(vocab_size=4000, min_frequency=2, special_tokens=WORDLEVEL_SPECIALS)
    tok.train([str(MULTILINGUAL)], trainer)
    bos, eos = tok.token_to_id("<s>"), tok.token_to_id("</s>")
    template = processors.TemplateProcessing(
        single="<s> $A </s>",
        pair="<s> $A </s> $B:1 </s>:1",
        special_tokens=[("<s>", bos), ("</s>", eos)],
    )
    if kind == "bytelevel-fixed":
        # Llama 3's shape: offsets trimmed (ByteLevel) before the template.
        tok.post_processor = processors.Sequence(
            [processors.ByteLevel(trim_offsets=True, add_prefix_space=False), template]
        )
    else:
        tok.post_processor = template
    path = out / f"{kind}.json"
    tok.save(str(path))
    return path
