"""Train a Unigram SentencePiece model (sentencepiece's default model type).

The Rust core normalizes and counts the words of the texts in parallel, seeds the vocabulary
with frequent substrings (a suffix array over the distinct words), then runs sentencepiece's
EM with its digamma M-step and prunes by likelihood loss until ``vocab_size`` pieces remain.
The result is a :class:`tokensmith.SentencePieceProcessor`.

>>> import tokensmith
>>> texts = ["the cat sat on the mat", "the dog sat on the log"] * 20
>>> sp = tokensmith.train_unigram(texts, vocab_size=20, seed_sentencepiece_size=1000)
>>> sp.piece_size()
20
>>> sp.decode(sp.encode("the cat"))
'the cat'

The same options as ``sentencepiece.SentencePieceTrainer.train`` keep their names and
defaults (``normalization_rule_name="nmt_nfkc"`` included: tokensmith builds the same
charsmap and writes it into the model), except that the result does not depend on the number
of threads. See ``docs/unigram_trainer.md``.

``model_type="bpe"`` trains sentencepiece's BPE model instead, from the same word counts: its
pieces, scores and order are sentencepiece's (see ``docs/sp_bpe_trainer.md``); the Unigram
options (``shrinking_factor``, ``num_sub_iterations``, ``seed_sentencepiece_size``) do
nothing then. ``model_type="char"`` and ``"word"`` make sentencepiece's char and word models:
the alphabet, or the most frequent words, scored with their log-probability (see
``docs/sentencepiece.md``).

Not handled yet: Parquet input with ``input_format="tsv"``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Literal

from tokensmith._core import train_unigram as _train_unigram
from tokensmith.corpus import Corpus, Inputs
from tokensmith.errors import ArgumentTypeError, InvalidTrainerOptionError, UnsupportedFeatureError
from tokensmith.sentencepiece import SentencePieceProcessor
from tokensmith.train.bpe import resolve_texts, warn_replaced
from tokensmith.train.tsv_counts import tsv_pairs

__all__ = ["ProgressCallback", "train_unigram"]

ProgressCallback = Callable[[str, Mapping[str, float]], None]
"""Called as ``progress(kind, info)``: kind is ``"counted"``, ``"seeded"``, ``"em_round"``,
``"pruned"`` or ``"finished"``; info holds that stage's numbers (``pieces``, ``objective``...)."""

Normalization = Literal["identity", "nmt_nfkc", "nfkc", "nmt_nfkc_cf", "nfkc_cf"]


def train_unigram(
    texts: Iterable[str] | None = None,
    *,
    files: Inputs | Corpus | None = None,
    field: str = "text",
    errors: Literal["replace", "strict"] = "replace",
    vocab_size: int,
    character_coverage: float = 0.9995,
    required_chars: str = "",
    input_format: Literal["text", "tsv"] = "text",
    model_type: Literal["unigram", "bpe", "char", "word"] = "unigram",
    byte_fallback: bool = False,
    split_digits: bool = False,
    max_piece_length: int = 16,
    user_defined_symbols: Sequence[str] = (),
    control_symbols: Sequence[str] = (),
    input_sentence_size: int = 0,
    shuffle_input_sentence: bool = True,
    seed: int = 0,
    shrinking_factor: float = 0.75,
    num_sub_iterations: int = 2,
    seed_sentencepiece_size: int = 1_000_000,
    max_sentence_length: int = 4192,
    split_by_whitespace: bool = True,
    split_by_unicode_script: bool = True,
    split_by_number: bool = True,
    treat_whitespace_as_suffix: bool = False,
    add_dummy_prefix: bool = True,
    remove_extra_whitespaces: bool = True,
    normalization_rule_name: Normalization = "nmt_nfkc",
    num_threads: int = 0,
    show_progress: bool = False,
    progress: ProgressCallback | None = None,
    engine: Literal["local", "ray"] = "local",
    address: str | None = None,
    use_all_vocab: bool = False,
    hard_vocab_limit: bool = True,
) -> SentencePieceProcessor:
    """Learns a Unigram vocabulary of ``vocab_size`` pieces from ``texts`` (or ``files``).

    Args:
        texts: Any iterable of strings, one sentence each (a trailing newline is dropped).
            Read once, in chunks; the corpus is never held in memory whole.
        files: Instead of ``texts``: paths or globs of text/JSONL files (plain, gzip, zstd),
            or a :class:`~tokensmith.corpus.Corpus`; one sentence per line (or record).
            Text files are read as sentencepiece reads ``--input``: in large blocks, each
            line split off in Rust without its ``\n`` (a ``\r`` stays; ``nmt_nfkc`` makes it
            a space), each byte of invalid UTF-8 made U+FFFD, and a line over
            ``max_sentence_length`` skipped without being held whole.
        field: The JSONL field that holds the text.
        errors: Invalid UTF-8 in ``files``: ``"replace"`` or ``"strict"``.
        vocab_size: The exact size of the result, meta pieces (``<unk>``, ``<s>``, ``</s>``),
            symbols and byte pieces included.
        character_coverage: The share of character occurrences the single-character pieces
            must cover (0.98 to 1.0); rarer characters become ``<unk>`` (or bytes).
        required_chars: Characters put first in the alphabet (single-character pieces), even
            if the texts lack them; as in sentencepiece, each is added only while the
            characters before it cover less than ``character_coverage``, so they are all kept
            unless they alone cover that much (compared with the normalized text, where spaces
            are ``▁``, so give them normalized).
        input_format: ``"text"`` (a sentence per line or item) or ``"tsv"``: each line (or
            item) is ``sentence<TAB>count``, trained on as ``count`` copies of the sentence,
            as sentencepiece's ``input_format=tsv``. A bad line raises
            :class:`~tokensmith.errors.CorpusFormatError` naming the file and line.
        model_type: ``"unigram"``, ``"bpe"`` (sentencepiece's BPE trainer), ``"char"`` (each
            character of the alphabet is a piece) or ``"word"`` (the most frequent words,
            split before each ``▁``, are the pieces; other words are unknown).
        byte_fallback: Add the 256 ``<0xNN>`` pieces; unknown characters are spelt in bytes.
        split_digits: Every digit is a piece of its own.
        max_piece_length: The longest piece, in characters.
        user_defined_symbols: Pieces that are always whole tokens.
        control_symbols: Pieces that are never produced from text (e.g. ``<mask>``).
        input_sentence_size: Train on at most this many sentences (0: all).
        shuffle_input_sentence: Sample those sentences uniformly (seeded) instead of taking
            the first ones.
        seed: The seed of that sample. Nothing else is random.
        shrinking_factor: The share of pieces each pruning step keeps (0.5 to 0.95).
        num_sub_iterations: EM rounds between pruning steps (1 to 10).
        seed_sentencepiece_size: Frequent substrings that seed the EM.
        max_sentence_length: Sentences longer than this (in UTF-8 bytes) are skipped.
        split_by_whitespace, split_by_unicode_script, split_by_number: sentencepiece's rules
            for what a piece may span.
        treat_whitespace_as_suffix: ``▁`` ends words instead of starting them.
        add_dummy_prefix, remove_extra_whitespaces: sentencepiece's whitespace normalization.
        normalization_rule_name: sentencepiece's rule: ``"nmt_nfkc"`` (NFKC, control
            characters removed, odd spaces made spaces), ``"nfkc"``, ``"nmt_nfkc_cf"`` and
            ``"nfkc_cf"`` (the same with case folding), or ``"identity"``. The training text is
            normalized with it and the model carries its charsmap, so sentencepiece
            normalizes the same way when it loads the saved ``.model``.
        num_threads: Threads for counting and EM (0: one per core). The result is the same
            for any number.
        show_progress: Show a progress bar (rich) per EM round on stderr.
        progress: A callback ``progress(kind, info)``; see :data:`ProgressCallback`. An
            exception it raises stops training and propagates.
        engine: ``"local"``, or ``"ray"`` to read and count on a Ray cluster (the EM runs
            here; the model is the same). See :mod:`tokensmith.train.unigram_ray`.
        address: The Ray cluster to join with ``engine="ray"``; default: start a local one.
        use_all_vocab: ``"char"`` and ``"word"`` only: keep every character (word) seen,
            whatever ``vocab_size`` and ``character_coverage`` say.
        hard_vocab_limit: when False, a corpus too small for ``vocab_size`` gives a smaller
            vocabulary instead of an error (``"unigram"``: every piece the EM keeps;
            ``"word"``: every word seen; a ``"char"`` model is never held to ``vocab_size``).

    Raises:
        EmptyCorpusError: the texts hold no sentence.
        InvalidTrainerOptionError: an option cannot work, or ``vocab_size`` is too large for
            the corpus (the message gives the size it can reach).
        CorpusFormatError: a ``tsv`` line is not ``sentence<TAB>count``.
        UnsupportedFeatureError: ``engine="ray"`` with a model type other than Unigram.
        KeyboardInterrupt: Ctrl-C, honoured at the end of the current EM round.
    """
    texts, corpus = resolve_texts(texts, files, field, errors, "train_unigram")
    if input_format not in ("text", "tsv"):
        raise InvalidTrainerOptionError(
            f'input_format={input_format!r} is not known; use "text" or "tsv"'
        )
    if not isinstance(required_chars, str):
        raise ArgumentTypeError("required_chars must be a str of characters")
    if model_type not in ("unigram", "bpe", "char", "word"):
        raise InvalidTrainerOptionError(
            f"model_type={model_type!r} is not known; use 'unigram', 'bpe', 'char' or 'word'"
        )
    if use_all_vocab and model_type in ("unigram", "bpe"):
        # sentencepiece refuses it the same way.
        raise InvalidTrainerOptionError("use_all_vocab=True is valid for 'char' and 'word' only")
    if engine == "ray" and model_type != "unigram":
        raise UnsupportedFeatureError('engine="ray" trains only model_type="unigram"')
    for name, value in (
        ("user_defined_symbols", user_defined_symbols),
        ("control_symbols", control_symbols),
    ):
        if isinstance(value, str):
            raise ArgumentTypeError(f"{name} must be a sequence of strings, not one string")
    _check_ints(
        vocab_size=vocab_size,
        max_piece_length=max_piece_length,
        input_sentence_size=input_sentence_size,
        seed=seed,
        num_sub_iterations=num_sub_iterations,
        seed_sentencepiece_size=seed_sentencepiece_size,
        max_sentence_length=max_sentence_length,
        num_threads=num_threads,
    )
    if engine not in ("local", "ray"):
        raise InvalidTrainerOptionError(f'engine={engine!r} is not known; use "local" or "ray"')
    if engine == "ray":
        from tokensmith.train.unigram_ray import check_options, count_on_ray

        check_options(input_sentence_size, input_format)
        counting = dict(
            byte_fallback=byte_fallback,
            user_defined_symbols=list(user_defined_symbols),
            control_symbols=list(control_symbols),
            max_sentence_length=max_sentence_length,
            split_by_whitespace=split_by_whitespace,
            treat_whitespace_as_suffix=treat_whitespace_as_suffix,
            add_dummy_prefix=add_dummy_prefix,
            remove_extra_whitespaces=remove_extra_whitespaces,
            normalization=normalization_rule_name,
        )
        texts = count_on_ray(texts, corpus, counting, address)  # type: ignore[assignment]
    # Text files are read in blocks of lines, split and decoded in Rust as sentencepiece
    # reads them; other sources go through Python one text at a time.
    lines = (
        corpus is not None
        and engine == "local"
        and input_format == "text"
        and corpus.errors == "replace"
        and corpus.text_files_only
    )
    replaced: dict[str, int] = {}
    bar = _ProgressBar() if show_progress else None
    callback = _chain(progress, bar, _note_replaced(replaced) if lines else None)
    source: Iterable[str] | Iterable[tuple[str, int]] | Iterable[bytes] = texts
    if lines and corpus is not None:
        source = corpus.line_blocks(max_sentence_length)
    elif input_format == "tsv":
        source = tsv_pairs(texts, corpus)
    try:
        core = _train_unigram(
            source,
            vocab_size=vocab_size,
            character_coverage=float(character_coverage),
            required_chars=required_chars,
            byte_fallback=byte_fallback,
            split_digits=split_digits,
            max_piece_length=max_piece_length,
            user_defined_symbols=list(user_defined_symbols),
            control_symbols=list(control_symbols),
            input_sentence_size=input_sentence_size,
            shuffle_input_sentence=shuffle_input_sentence,
            seed=seed,
            shrinking_factor=float(shrinking_factor),
            num_sub_iterations=num_sub_iterations,
            seed_sentencepiece_size=seed_sentencepiece_size,
            max_sentence_length=max_sentence_length,
            split_by_whitespace=split_by_whitespace,
            split_by_unicode_script=split_by_unicode_script,
            split_by_number=split_by_number,
            treat_whitespace_as_suffix=treat_whitespace_as_suffix,
            add_dummy_prefix=add_dummy_prefix,
            remove_extra_whitespaces=remove_extra_whitespaces,
            normalization_rule_name=normalization_rule_name,
            num_threads=num_threads,
            progress=callback,
            weighted=input_format == "tsv",
            model_type=model_type,
            use_all_vocab=use_all_vocab,
            hard_vocab_limit=hard_vocab_limit,
            lines=lines,
        )
    finally:
        if bar is not None:
            bar.close()
    if lines and corpus is not None:
        corpus.stats.replaced = replaced.get("replaced", 0)
    warn_replaced(corpus)
    return SentencePieceProcessor._wrap(core)


def _check_ints(**values: object) -> None:
    """Options that must be non-negative ints (the core checks the ranges)."""
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise InvalidTrainerOptionError(f"{name}={value!r} must be an int >= 0")


def _note_replaced(into: dict[str, int]) -> ProgressCallback:
    """A callback that keeps the count of invalid UTF-8 sequences the reader replaced."""

    def note(kind: str, info: Mapping[str, float]) -> None:
        if kind == "counted":
            into["replaced"] = int(info.get("replaced", 0))

    return note


def _chain(*callbacks: ProgressCallback | None) -> ProgressCallback | None:
    present = [c for c in callbacks if c is not None]
    if not present:
        return None

    def call(kind: str, info: Mapping[str, float]) -> None:
        for c in present:
            c(kind, info)

    return call


class _ProgressBar:
    """A rich bar over the estimated EM rounds, with the piece count and objective."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TextColumn("{task.completed}/{task.total} EM rounds"),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=False,
        )
        self.task = self.progress.add_task("counting words", total=None)
        self.progress.start()

    def __call__(self, kind: str, info: Mapping[str, float]) -> None:
        if kind == "counted":
            self.progress.update(
                self.task,
                description=f"{int(info['sentences']):,} sentences, {int(info['words']):,} words",
            )
        elif kind == "seeded":
            self.progress.update(
                self.task,
                total=int(info["rounds"]),
                description=f"EM from {int(info['pieces']):,} seed pieces",
            )
        elif kind == "em_round":
            self.progress.update(
                self.task,
                completed=int(info["round"]),
                description=(
                    f"EM: {int(info['pieces']):,} pieces, objective {info['objective']:.4f}"
                ),
            )
        elif kind == "finished":
            task = self.progress.tasks[0]
            self.progress.update(
                self.task,
                completed=task.total or task.completed,
                description=f"done: {int(info['pieces']):,} pieces",
            )

    def close(self) -> None:
        self.progress.stop()
