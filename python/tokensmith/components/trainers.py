"""HF ``tokenizers.trainers``: the trainer options, with HF's constructors and state.

A trainer only carries options; :meth:`tokensmith.Tokenizer.train` runs tokensmith's
trainer of the same kind with them.

>>> from tokensmith import trainers
>>> t = trainers.BpeTrainer(vocab_size=500, special_tokens=["<s>"])
>>> t.vocab_size, [s.content for s in t.special_tokens]
(500, ['<s>'])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tokensmith._args import NOT_GIVEN, NotGiven, text, text_if_given
from tokensmith.added_token import AddedToken
from tokensmith.components._base import Component, dumps

__all__ = [
    "BpeTrainer",
    "ParityBpeTrainer",
    "Trainer",
    "UnigramTrainer",
    "WordLevelTrainer",
    "WordPieceTrainer",
]


def _special(tokens: Any) -> list[dict[str, Any]]:
    """Special tokens (str or AddedToken) as HF's trainers save them: special, and not
    normalized unless the AddedToken says so."""
    from tokensmith.errors import AddedTokenError

    out = []
    for i, token in enumerate(tokens or []):
        if isinstance(token, str):
            token = AddedToken(token, special=True)
        elif not hasattr(token, "content"):
            raise AddedTokenError(
                f"special_tokens[{i}] must be a str or an AddedToken, got {type(token).__name__}"
            )
        out.append(
            {
                "content": token.content,
                "single_word": bool(token.single_word),
                "lstrip": bool(token.lstrip),
                "rstrip": bool(token.rstrip),
                "normalized": bool(token.normalized) and not token.special,
                "special": True,
            }
        )
    return out


def _alphabet(chars: Sequence[str] | None) -> list[str]:
    """The first character of each string, each once (HF keeps them in a set; sorted
    here, so the order is stable)."""
    return sorted({c[0] for c in chars or [] if c})


def _progress(fmt: str) -> str:
    from tokensmith.errors import InvalidTrainerOptionError

    if fmt not in ("indicatif", "json", "silent"):
        raise InvalidTrainerOptionError(
            f"progress_format must be 'indicatif', 'json' or 'silent', got {fmt!r}"
        )
    return "JsonLines" if fmt == "json" else fmt.capitalize()


class Trainer(Component):
    """Base class of the trainers. Its state is HF's: ``{"<Name>": {options}}``."""

    __slots__ = ()
    _setters = {
        "special_tokens": _special,
        "initial_alphabet": _alphabet,
        "progress_format": _progress,
    }

    def to_json(self) -> dict[str, Any]:
        return {type(self).__name__: dict(self._state)}

    def __getattr__(self, name: str) -> Any:
        value = super().__getattr__(name)
        if name == "special_tokens" and isinstance(self, ParityBpeTrainer):
            return [AddedToken(t, special=True) for t in value]
        if name == "special_tokens":
            return [AddedToken(**{k: v for k, v in t.items()}) for t in value]
        if name == "progress_format":
            return "json" if value == "JsonLines" else str(value).lower()
        return value


class BpeTrainer(Trainer):
    """Options of a BPE training."""

    __slots__ = ()

    def __init__(
        self,
        *,
        vocab_size: int = 30000,
        min_frequency: int = 0,
        show_progress: bool = True,
        progress_format: str = "indicatif",
        special_tokens: list[str | AddedToken] = [],  # noqa: B006 - HF's default, never mutated
        limit_alphabet: int | None = None,
        initial_alphabet: Sequence[str] = [],  # noqa: B006
        continuing_subword_prefix: str | NotGiven = NOT_GIVEN,
        end_of_word_suffix: str | NotGiven = NOT_GIVEN,
        max_token_length: int | None = None,
    ) -> None:
        self._init(
            min_frequency=min_frequency,
            vocab_size=vocab_size,
            show_progress=show_progress,
            progress_format=_progress(progress_format),
            special_tokens=_special(special_tokens),
            limit_alphabet=limit_alphabet,
            initial_alphabet=_alphabet(initial_alphabet),
            continuing_subword_prefix=text_if_given(
                "continuing_subword_prefix", continuing_subword_prefix
            ),
            end_of_word_suffix=text_if_given("end_of_word_suffix", end_of_word_suffix),
            max_token_length=max_token_length,
            words={},
        )


class WordPieceTrainer(Trainer):
    """Options of a WordPiece training (HF's is a BPE training with a prefix).

    HF numbers the prefixed characters (``##a``) in its hash map's order, which changes from
    run to run, and the order decides ties between pairs of equal count, so HF itself learns
    different vocabularies from run to run. Here they are numbered in string order, or in
    the order set as ``trainer.variant_order`` (a tokensmith attribute, not part of HF's
    state): the ``##x`` tokens of an HF vocabulary by id reproduce that HF run exactly.
    """

    __slots__ = ("_variant_order",)

    def __init__(
        self,
        *,
        vocab_size: int = 30000,
        min_frequency: int = 0,
        show_progress: bool = True,
        special_tokens: list[str | AddedToken] = [],  # noqa: B006
        limit_alphabet: int | None = None,
        initial_alphabet: Sequence[str] = [],  # noqa: B006
        continuing_subword_prefix: str = "##",
        end_of_word_suffix: str | NotGiven = NOT_GIVEN,
    ) -> None:
        object.__setattr__(self, "_variant_order", ())
        # HF refuses a None prefix here (its default is "##").
        text("continuing_subword_prefix", continuing_subword_prefix)
        bpe = BpeTrainer(
            vocab_size=vocab_size,
            min_frequency=min_frequency,
            show_progress=show_progress,
            special_tokens=special_tokens,
            limit_alphabet=limit_alphabet,
            initial_alphabet=initial_alphabet,
            continuing_subword_prefix=continuing_subword_prefix,
            end_of_word_suffix=end_of_word_suffix,
        )
        self._init(bpe_trainer=bpe._state)

    @property
    def variant_order(self) -> tuple[str, ...]:
        """The order of the ids of the prefixed (or suffixed) characters that are listed
        (settable; not kept by pickling, which keeps HF's state)."""
        try:
            return tuple(object.__getattribute__(self, "_variant_order"))
        except AttributeError:
            return ()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        inner = BpeTrainer.__new__(BpeTrainer)
        inner._init(**self._state["bpe_trainer"])
        return getattr(inner, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "variant_order":
            from tokensmith.errors import ArgumentTypeError

            if isinstance(value, str):
                raise ArgumentTypeError("variant_order must be a sequence of tokens, not a str")
            object.__setattr__(self, "_variant_order", tuple(value))
            return
        if name.startswith("_") or name not in self._state["bpe_trainer"]:
            raise AttributeError(f"WordPieceTrainer has no attribute {name!r}")
        setter = self._setters.get(name)
        self._state["bpe_trainer"][name] = value if setter is None else setter(value)


class UnigramTrainer(Trainer):
    """Options of a Unigram training."""

    __slots__ = ()

    def __init__(
        self,
        *,
        vocab_size: int = 8000,
        show_progress: bool = True,
        special_tokens: list[str | AddedToken] = [],  # noqa: B006
        initial_alphabet: Sequence[str] = [],  # noqa: B006
        shrinking_factor: float = 0.75,
        unk_token: str | None = None,
        max_piece_length: int = 16,
        n_sub_iterations: int = 2,
    ) -> None:
        self._init(
            show_progress=show_progress,
            vocab_size=vocab_size,
            n_sub_iterations=n_sub_iterations,
            shrinking_factor=shrinking_factor,
            special_tokens=_special(special_tokens),
            initial_alphabet=_alphabet(initial_alphabet),
            unk_token=unk_token,
            max_piece_length=max_piece_length,
            seed_size=1_000_000,
            words={},
        )


class WordLevelTrainer(Trainer):
    """Options of a WordLevel training."""

    __slots__ = ()

    def __init__(
        self,
        *,
        vocab_size: int = 30000,
        min_frequency: int = 0,
        show_progress: bool = True,
        special_tokens: list[str | AddedToken] = [],  # noqa: B006
    ) -> None:
        self._init(
            min_frequency=min_frequency,
            vocab_size=vocab_size,
            show_progress=show_progress,
            special_tokens=_special(special_tokens),
            words={},
        )


def _contents(tokens: Any) -> list[str]:
    """Special tokens as ``ParityBpeTrainer`` keeps them: their text."""
    return [t if isinstance(t, str) else t.content for t in tokens or []]


class ParityBpeTrainer(Trainer):
    """Options of HF's parity-aware BPE (merges balanced across languages). Its state is a
    dict, as HF's is; tokensmith has no parity-aware trainer to run it with."""

    __slots__ = ()
    _setters = {"special_tokens": _contents, "initial_alphabet": _alphabet}

    def __init__(
        self,
        num_merges: int = 32000,
        variant: str = "base",
        min_frequency: int = 0,
        ratio: Sequence[float] | None = None,
        global_merges: int = 0,
        window_size: int = 100,
        alpha: float = 2.0,
        total_symbols: bool = False,
        special_tokens: list[str | AddedToken] | None = None,
        show_progress: bool = True,
        limit_alphabet: int | None = None,
        initial_alphabet: Sequence[str] | None = None,
        continuing_subword_prefix: str | None = None,
        end_of_word_suffix: str | None = None,
        max_token_length: int | None = None,
    ) -> None:
        from tokensmith.errors import InvalidTrainerOptionError

        if variant not in ("base", "window"):
            raise InvalidTrainerOptionError(f"variant must be 'base' or 'window', got {variant!r}")
        self._init(
            num_merges=num_merges,
            variant=variant,
            min_frequency=min_frequency,
            global_merges=global_merges,
            window_size=window_size,
            alpha=alpha,
            total_symbols=total_symbols,
            show_progress=show_progress,
            ratio=None if ratio is None else list(ratio),
            special_tokens=_contents(special_tokens),
            limit_alphabet=limit_alphabet,
            initial_alphabet=_alphabet(initial_alphabet),
            continuing_subword_prefix=continuing_subword_prefix,
            end_of_word_suffix=end_of_word_suffix,
            max_token_length=max_token_length,
        )

    def __getstate__(self) -> dict[str, Any]:  # type: ignore[override]
        return dict(self._state)

    def __setstate__(self, state: dict[str, Any]) -> None:  # type: ignore[override]
        object.__setattr__(self, "_state", dict(state))
        object.__setattr__(self, "_on_change", None)

    def __repr__(self) -> str:
        return f"ParityBpeTrainer({dumps(self._state)})"
