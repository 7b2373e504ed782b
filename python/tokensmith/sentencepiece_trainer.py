"""``tokensmith.SentencePieceTrainer``: sentencepiece's training call, on tokensmith's trainers.

``SentencePieceTrainer.train(...)`` takes sentencepiece's options as keyword arguments or as
its flag string, and writes ``PREFIX.model`` and ``PREFIX.vocab`` as sentencepiece does (or
hands the model bytes to ``model_writer``):

>>> import tempfile, os
>>> d = tempfile.mkdtemp()
>>> SentencePieceTrainer.train(
...     sentence_iterator=iter(["ab ab ba", "abc cab"] * 5), model_prefix=os.path.join(d, "m"),
...     vocab_size=10, seed_sentencepiece_size=1000)
>>> sorted(os.listdir(d))
['m.model', 'm.vocab']
>>> SentencePieceTrainer.train("--input=x.txt --model_prefix=m --vocab_sise=10")
Traceback (most recent call last):
...
tokensmith.errors.SentencePieceOptionError: unknown field name "vocab_sise" in TrainerSpec.

Every flag of sentencepiece's ``TrainerSpec`` and ``NormalizerSpec`` is known (an unknown one
raises :class:`~tokensmith.errors.SentencePieceOptionError`, a ``RuntimeError`` as in
sentencepiece, naming it). Every ``model_type`` (``"unigram"``, ``"bpe"``, ``"char"``,
``"word"``) runs :func:`tokensmith.train_unigram`, whose trainers give sentencepiece's pieces
and scores. Not handled yet: the flags outside ``_PASSED`` (and, for char and word models,
``_SPLIT_PASSED``) when given a value other than sentencepiece's default; each raises
:class:`~tokensmith.errors.UnsupportedFeatureError` naming it.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterable, Iterator
from typing import IO, Any

from tokensmith._atomic import atomic_write, write_text_atomic
from tokensmith.errors import (
    InvalidArgumentError,
    SentencePieceOptionError,
    UnsupportedFeatureError,
)

# sentencepiece 0.2's TrainerSpec and NormalizerSpec fields (and the flags its parser adds),
# each with its kind and default.
_FLAGS: dict[str, tuple[str, Any]] = {
    "input": ("list", []),
    "input_format": ("str", ""),
    "model_prefix": ("str", ""),
    "model_type": ("str", "unigram"),
    "vocab_size": ("int", 8000),
    "character_coverage": ("float", 0.9995),
    "input_sentence_size": ("int", 0),
    "shuffle_input_sentence": ("bool", True),
    "seed_sentencepiece_size": ("int", 1000000),
    "shrinking_factor": ("float", 0.75),
    "max_sentence_length": ("int", 4192),
    "num_threads": ("int", 16),
    "num_sub_iterations": ("int", 2),
    "max_sentencepiece_length": ("int", 16),
    "split_by_unicode_script": ("bool", True),
    "split_by_number": ("bool", True),
    "split_by_whitespace": ("bool", True),
    "treat_whitespace_as_suffix": ("bool", False),
    "allow_whitespace_only_pieces": ("bool", False),
    "split_digits": ("bool", False),
    "pretokenization_delimiter": ("str", ""),
    "control_symbols": ("list", []),
    "user_defined_symbols": ("list", []),
    "required_chars": ("str", ""),
    "byte_fallback": ("bool", False),
    "vocabulary_output_piece_score": ("bool", True),
    "hard_vocab_limit": ("bool", True),
    "use_all_vocab": ("bool", False),
    "unk_id": ("int", 0),
    "bos_id": ("int", 1),
    "eos_id": ("int", 2),
    "pad_id": ("int", -1),
    "unk_piece": ("str", "<unk>"),
    "bos_piece": ("str", "<s>"),
    "eos_piece": ("str", "</s>"),
    "pad_piece": ("str", "<pad>"),
    "unk_surface": ("str", " \u2047 "),
    "seed_sentencepieces_file": ("str", ""),
    "auto_character_coverage": ("bool", False),
    "accept_language": ("list", []),
    "self_test_sample_size": ("int", 0),
    "mining_sentence_size": ("int", 0),
    "training_sentence_size": ("int", 0),
    "train_extremely_large_corpus": ("bool", False),
    "enable_differential_privacy": ("bool", False),
    "differential_privacy_noise_level": ("float", 0.0),
    "differential_privacy_clipping_threshold": ("int", 0),
    # NormalizerSpec, and the flags sentencepiece's parser maps onto the specs.
    "name": ("str", ""),
    "normalization_rule_name": ("str", "nmt_nfkc"),
    "normalization_rule_tsv": ("str", ""),
    "denormalization_rule_tsv": ("str", ""),
    "add_dummy_prefix": ("bool", True),
    "remove_extra_whitespaces": ("bool", True),
    "escape_whitespaces": ("bool", True),
    "minloglevel": ("int", 0),
    "random_seed": ("int", -1),
}

# Flags train_unigram takes under another name, and those it takes as they are.
_RENAMED = {"max_sentencepiece_length": "max_piece_length", "input_format": "input_format"}
_PASSED = {
    "vocab_size",
    "character_coverage",
    "input_sentence_size",
    "shuffle_input_sentence",
    "seed_sentencepiece_size",
    "shrinking_factor",
    "max_sentence_length",
    "num_sub_iterations",
    "split_by_unicode_script",
    "split_by_number",
    "split_by_whitespace",
    "treat_whitespace_as_suffix",
    "split_digits",
    "control_symbols",
    "user_defined_symbols",
    "required_chars",
    "byte_fallback",
    "add_dummy_prefix",
    "remove_extra_whitespaces",
    "normalization_rule_name",
    "model_type",
}
# Flags the char and word trainers take besides those.
_SPLIT_PASSED = {"use_all_vocab", "hard_vocab_limit"}
# Flags that only change sentencepiece's logging or memory use, not the model.
_NO_EFFECT = {
    "minloglevel",
    "train_extremely_large_corpus",
    "num_threads",
    "model_prefix",
    "input",
}


class SentencePieceTrainer:
    """sentencepiece's ``SentencePieceTrainer``: :meth:`train` (also ``Train``)."""

    @staticmethod
    def train(
        arg: str | None = None,
        logstream: IO[str] | None = None,
        *,
        sentence_iterator: Iterable[str] | None = None,
        sentence_reader: Iterable[str] | None = None,
        model_writer: IO[bytes] | None = None,
        **kwargs: Any,
    ) -> None:
        """Trains a model from sentencepiece's options (see the module documentation)."""
        del logstream  # tokensmith's trainer logs nothing
        options = parse_flags(arg) if arg is not None else {}
        for key, value in kwargs.items():
            options[key] = _read(key, value)
        sentences = sentence_iterator if sentence_iterator is not None else sentence_reader
        _check(options, has_sentences=sentences is not None, has_writer=model_writer is not None)
        processor = _train(options, sentences)
        data = processor.serialized_model_proto()
        if model_writer is not None:
            model_writer.write(data)
            return
        from tokensmith.cli.train_unigram import vocab_text

        prefix = str(options["model_prefix"])
        atomic_write(prefix + ".model", [data])
        write_text_atomic(prefix + ".vocab", vocab_text(processor))

    Train = train


def parse_flags(arg: str) -> dict[str, Any]:
    """sentencepiece's flag string: ``--name=value`` (or ``--name value``; a bare ``--name``
    is true), each value read as its flag's kind."""
    options: dict[str, Any] = {}
    words = shlex.split(arg)
    i = 0
    while i < len(words):
        word = words[i]
        if not word.startswith("--"):
            raise SentencePieceOptionError(f"{word!r} is not a --flag=value")
        name, eq, value = word[2:].partition("=")
        if not eq:
            kind = _FLAGS.get(name, ("str", None))[0]
            if kind != "bool" and i + 1 < len(words) and not words[i + 1].startswith("--"):
                value, i = words[i + 1], i + 1
            else:
                value = "true"
        options[name] = _read(name, value)
        i += 1
    return options


def _read(name: str, value: Any) -> Any:
    """``value`` of flag ``name`` as its kind (a string is parsed as sentencepiece does)."""
    if name not in _FLAGS:
        raise SentencePieceOptionError(f'unknown field name "{name}" in TrainerSpec.')
    kind = _FLAGS[name][0]
    try:
        if kind == "list":
            if isinstance(value, str):
                return [v for v in value.split(",") if v]
            return [str(v) for v in value]
        if not isinstance(value, str):
            return value if kind != "float" else float(value)
        if kind == "bool":
            if value.lower() not in ("true", "false", "1", "0"):
                raise InvalidArgumentError(value)
            return value.lower() in ("true", "1")
        return {"int": int, "float": float, "str": str}[kind](value)
    except (TypeError, ValueError) as e:
        raise SentencePieceOptionError(f"cannot parse {name}={value!r} as {kind}") from e


def _check(options: dict[str, Any], *, has_sentences: bool, has_writer: bool) -> None:
    if not options.get("input") and not has_sentences:
        raise SentencePieceOptionError("give --input=FILE[,FILE...] or sentence_iterator=...")
    if not options.get("model_prefix") and not has_writer:
        raise SentencePieceOptionError("give --model_prefix=PREFIX or model_writer=...")
    model_type = str(options.get("model_type", "unigram")).lower()
    if model_type not in ("unigram", "bpe", "char", "word"):
        raise SentencePieceOptionError(
            f'unknown enumeration value of "{model_type}" as ModelType: use unigram, bpe, '
            "char or word"
        )
    options["model_type"] = model_type
    passed = _PASSED | (_SPLIT_PASSED if model_type in ("char", "word") else set())
    for name, value in options.items():
        known = name in passed or name in _RENAMED or name in _NO_EFFECT
        if not known and value != _FLAGS[name][1] and name != "random_seed":
            raise UnsupportedFeatureError(
                f"--{name}={value!r} is not supported by tokensmith's trainer yet "
                f"(only its default, {_FLAGS[name][1]!r})"
            )


def _train(options: dict[str, Any], sentences: Iterable[str] | None) -> Any:
    from tokensmith.corpus import Corpus
    from tokensmith.train.unigram import train_unigram

    args: dict[str, Any] = {}
    for name, value in options.items():
        if name in _PASSED or name in _SPLIT_PASSED:
            args[name] = value
        elif name in _RENAMED:
            args[_RENAMED[name]] = value
    if args.get("input_format") == "":
        del args["input_format"]
    if "random_seed" in options and options["random_seed"] >= 0:
        args["seed"] = options["random_seed"]
    args.setdefault("vocab_size", _FLAGS["vocab_size"][1])
    if sentences is not None:
        return train_unigram(_lines(sentences), **args)
    # sentencepiece reads every --input file as lines of text, whatever its name: a .jsonl
    # file is not parsed as JSON here either.
    files = Corpus([os.fspath(p) for p in options["input"]], format="text")
    return train_unigram(files=files, **args)


def _lines(sentences: Iterable[str]) -> Iterator[str]:
    for sentence in sentences:
        yield sentence.decode("utf-8") if isinstance(sentence, bytes) else sentence


__all__ = ["SentencePieceTrainer", "parse_flags"]
