"""SentencePiece ``.model`` <-> ``tokenizer.json``, each exact or refused.

``.model`` to ``tokenizer.json`` (:func:`model_to_json`) writes the pipeline that gives
sentencepiece's ids:

- normalizer: ``Precompiled`` (the model's charsmap), the spaces sentencepiece removes
  (leading, trailing, runs) as ``Replace`` rules, ``Replace(" ", "▁")`` and ``Prepend("▁")``;
  no pre-tokenizer, so the model sees the whole line as sentencepiece does;
- model: ``Unigram`` (pieces and scores) or ``BPE`` (one merge per way of cutting a piece into
  two pieces, ranked by the piece's score, then id), ``byte_fallback`` kept; ids are
  sentencepiece's. Control, unknown, unused and byte pieces keep their ids, but sentencepiece
  never matches them in text: a Unigram gets them with a score below any path through the
  text, a BPE no merge that makes them;
- user-defined pieces as (normalized, non-special) added tokens, matched before the model,
  as sentencepiece matches them.

``tokenizer.json`` to ``.model`` (:func:`json_to_model`) takes a BPE (or, with ``lossy``, a
Unigram) whose normalizer is sentencepiece's: an optional ``Precompiled`` charsmap (carried
into the ``.model``), optionally the three whitespace rules above
(``remove_extra_whitespaces``), then either a Metaspace pre-tokenizer (``split``, no piece
with ▁ after its start) or ``Replace(" ", "▁")`` with an optional ``Prepend("▁")`` and no
pre-tokenizer. It names the first component it cannot express, e.g.
``normalizer.normalizers[0] NFKC has no .model equivalent``, and refuses (unless ``lossy``):
Metaspace's ``prepend_scheme="always"`` (HF adds no ▁ before a text that starts with ▁;
sentencepiece's dummy prefix does), special added tokens (HF matches them in text, a
``.model`` never matches control or unknown pieces), and any Unigram (HF's Unigram matches
the unknown piece's text, and breaks equal-score ties differently).

Known differences, which verification counts: HF's Unigram scores an unknown character
relative to the lowest score of its vocabulary, so a control piece whose text holds a
character the model does not know (``<s>`` when ``<`` is unknown) is matched in text; and
where two Unigram paths score exactly the same (``11`` + ``1`` or ``1`` + ``11``), HF and
sentencepiece may pick different ones. HF matches a user-defined piece (an added token
normalized as the text is) as ``▁`` + piece, so text holding one differs; HF's Metaspace
``prepend_scheme="first"`` instead loses the prefix after leading spaces, which is worse.

Not handled: ``treat_whitespace_as_suffix`` and ``escape_whitespaces: false`` models, and
custom normalization rules beyond the compiled charsmap (refused, naming the field).
"""

from __future__ import annotations

import base64
import json
from typing import Any

from tokensmith.errors import InexpressibleComponentError, ModelFormatError
from tokensmith.sentencepiece import SentencePieceProcessor

__all__ = ["bpe_merges", "json_to_model", "model_to_json", "normalizer_spec"]

_SPACE = "\u2581"
# A Unigram score that loses to every path through the text (see the module docstring).
_UNREACHABLE = -1.0e6


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if pos >= len(data):
            raise ModelFormatError("the .model ends inside a number")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, pos


def _fields(data: bytes) -> dict[int, list[Any]]:
    """The fields of one protobuf message: number -> values (ints or bytes)."""
    out: dict[int, list[Any]] = {}
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        value: int | bytes
        if wire == 0:
            value, pos = _varint(data, pos)
        elif wire == 2:
            size, pos = _varint(data, pos)
            value, pos = data[pos : pos + size], pos + size
        elif wire == 5:
            value, pos = data[pos : pos + 4], pos + 4
        elif wire == 1:
            value, pos = data[pos : pos + 8], pos + 8
        else:
            raise ModelFormatError(f"the .model has a field of wire type {wire}")
        out.setdefault(number, []).append(value)
    return out


def normalizer_spec(proto: bytes) -> dict[str, Any]:
    """The options of a ``.model`` this conversion needs, read from its bytes.

    >>> sp = SentencePieceProcessor.from_pieces([("<unk>", 0.0, "unknown"), ("a", -1.0, "normal")])
    >>> normalizer_spec(sp.serialized_model_proto())["add_dummy_prefix"]
    True
    """
    model = _fields(proto)
    trainer = _fields(model.get(2, [b""])[-1])
    norm = _fields(model.get(3, [b""])[-1])

    def flag(fields: dict[int, list[Any]], number: int, default: bool) -> bool:
        return bool(fields[number][-1]) if number in fields else default

    return {
        "name": norm.get(1, [b""])[-1].decode("utf-8", "replace"),
        "charsmap": bytes(norm.get(2, [b""])[-1]),
        "add_dummy_prefix": flag(norm, 3, True),
        "remove_extra_whitespaces": flag(norm, 4, True),
        "escape_whitespaces": flag(norm, 5, True),
        "rules": bool(norm.get(6)),
        "treat_whitespace_as_suffix": flag(trainer, 24, False),
        "byte_fallback": flag(trainer, 35, False),
        "denormalizer": bool(model.get(5)),
    }


def _normalizer(spec: dict[str, Any]) -> dict[str, Any]:
    steps: list[dict[str, Any]] = []
    if spec["charsmap"]:
        charsmap = base64.b64encode(spec["charsmap"]).decode("ascii")
        steps.append({"type": "Precompiled", "precompiled_charsmap": charsmap})
    if spec["remove_extra_whitespaces"]:
        for pattern, content in ((r"\A +", ""), (r" +\z", ""), (" {2,}", " ")):
            steps.append({"type": "Replace", "pattern": {"Regex": pattern}, "content": content})
    steps.append({"type": "Replace", "pattern": {"String": " "}, "content": _SPACE})
    if spec["add_dummy_prefix"]:
        steps.append({"type": "Prepend", "prepend": _SPACE})
    return {"type": "Sequence", "normalizers": steps}


def _decoder(spec: dict[str, Any]) -> dict[str, Any]:
    steps: list[dict[str, Any]] = [
        {"type": "Replace", "pattern": {"String": _SPACE}, "content": " "},
        {"type": "ByteFallback"},
        {"type": "Fuse"},
    ]
    if spec["add_dummy_prefix"]:
        steps.append({"type": "Strip", "content": " ", "start": 1, "stop": 0})
    return {"type": "Sequence", "decoders": steps}


def _refuse_model_options(spec: dict[str, Any]) -> None:
    for key, bad, what in (
        ("treat_whitespace_as_suffix", True, "trainer_spec.treat_whitespace_as_suffix"),
        ("escape_whitespaces", False, "normalizer_spec.escape_whitespaces=false"),
        ("rules", True, "normalizer_spec.normalization_rule_tsv"),
        ("denormalizer", True, "denormalizer_spec"),
    ):
        if spec[key] == bad:
            raise InexpressibleComponentError(f"{what} has no tokenizer.json equivalent")


def bpe_merges(pieces: list[tuple[str, float, str]]) -> list[list[str]]:
    """Every cut of every normal piece into two mergeable pieces, best score first."""
    mergeable = {p for p, _, kind in pieces if kind in ("normal", "user_defined")}
    order = sorted(
        (i for i, (p, _, kind) in enumerate(pieces) if kind == "normal" and len(p) > 1),
        key=lambda i: (-pieces[i][1], i),
    )
    merges = []
    for i in order:
        piece = pieces[i][0]
        for cut in range(1, len(piece)):
            if piece[:cut] in mergeable and piece[cut:] in mergeable:
                merges.append([piece[:cut], piece[cut:]])
    return merges


def model_to_json(sp: SentencePieceProcessor) -> str:
    """The ``tokenizer.json`` text that gives ``sp``'s ids.

    Raises:
        InexpressibleComponentError: the model uses an option tokenizer.json cannot express.
    """
    spec = normalizer_spec(sp.serialized_model_proto())
    _refuse_model_options(spec)
    pieces = sp.pieces()
    unk = next((i for i, (_, _, kind) in enumerate(pieces) if kind == "unknown"), None)
    model_type = sp._model.model_type()
    if model_type == "unigram":
        model: dict[str, Any] = {
            "type": "Unigram",
            "unk_id": unk,
            "byte_fallback": spec["byte_fallback"],
            "vocab": [
                [p, score if kind in ("normal", "user_defined") else _UNREACHABLE]
                for p, score, kind in pieces
            ],
        }
    elif model_type == "bpe":
        model = {
            "type": "BPE",
            "dropout": None,
            "unk_token": None if unk is None else pieces[unk][0],
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": True,  # sentencepiece joins a run of unknown characters
            "byte_fallback": spec["byte_fallback"],
            "ignore_merges": False,
            "vocab": {p: i for i, (p, _, _) in enumerate(pieces)},
            "merges": bpe_merges(pieces),
        }
    else:
        raise InexpressibleComponentError(
            f"model type {model_type} has no tokenizer.json equivalent here (Unigram and BPE do)"
        )
    added = [
        {"id": i, "content": p, "single_word": False, "lstrip": False, "rstrip": False,
         "normalized": True, "special": False}
        for i, (p, _, kind) in enumerate(pieces)
        if kind == "user_defined"
    ]  # fmt: skip
    doc = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": _normalizer(spec),
        "pre_tokenizer": None,
        "post_processor": None,
        "decoder": _decoder(spec),
        "model": model,
    }
    return json.dumps(doc, ensure_ascii=False)


# ------------------------------------------------------------------ tokenizer.json -> .model


def _metaspace_options(pre: Any) -> tuple[bool, str]:
    """``(add_dummy_prefix, why not)`` of a Metaspace pre-tokenizer."""
    if not isinstance(pre, dict) or pre.get("type") != "Metaspace":
        kind = pre.get("type") if isinstance(pre, dict) else pre
        return False, f"pre_tokenizer {kind} has no .model equivalent (Metaspace has)"
    if pre.get("replacement", _SPACE) != _SPACE:
        return False, f"pre_tokenizer.replacement {pre['replacement']!r} has no .model equivalent"
    if pre.get("split", True) is False:
        return False, "pre_tokenizer.split=false has no .model equivalent"
    scheme = pre.get("prepend_scheme", "always" if pre.get("add_prefix_space", True) else "never")
    if scheme not in ("always", "never"):
        return False, f"pre_tokenizer.prepend_scheme={scheme!r} has no .model equivalent"
    return scheme == "always", ""


def _component_path(name: str, component: Any) -> str:
    """``normalizer.normalizers[1] Lowercase`` for the first step of ``component``."""
    if isinstance(component, dict) and component.get("type") == "Sequence":
        for key in ("normalizers", "pretokenizers", "processors", "decoders"):
            steps = component.get(key)
            if isinstance(steps, list) and steps:
                return f"{name}.{key}[0] {steps[0].get('type')}"
    kind = component.get("type") if isinstance(component, dict) else component
    return f"{name} {kind}"


def json_to_model(data: dict[str, Any], *, lossy: bool = False) -> SentencePieceProcessor:
    """A SentencePiece model with the behaviour of a Metaspace BPE or Unigram
    ``tokenizer.json``; ``lossy`` lets a BPE that does not fuse unknown characters, and
    Metaspace's ``prepend_scheme="always"``, through (verification then counts the texts that
    differ).

    Raises:
        InexpressibleComponentError: a component has no ``.model`` equivalent (the message
            names it and its JSON path).
    """
    norm = _normalizer_options(data.get("normalizer"))
    for key in ("padding", "truncation"):
        if data.get(key) is not None:
            raise InexpressibleComponentError(f"{key} has no .model equivalent")
    post = data.get("post_processor")
    if post is not None:
        raise InexpressibleComponentError(
            f"{_component_path('post_processor', post)} has no .model equivalent "
            "(sentencepiece adds <s>/</s> only when asked)"
        )
    if norm["escape"]:  # the normalizer writes the ▁ itself, as model_to_json's files do
        if data.get("pre_tokenizer") is not None:
            raise InexpressibleComponentError(
                f"{_component_path('pre_tokenizer', data['pre_tokenizer'])} after a normalizer "
                "that writes ▁ has no .model equivalent"
            )
        dummy, problem = norm["prepend"], ""
    else:
        dummy, problem = _metaspace_options(data.get("pre_tokenizer"))
    if problem:
        raise InexpressibleComponentError(problem)
    if dummy and not norm["escape"] and not lossy:
        raise InexpressibleComponentError(
            "pre_tokenizer Metaspace prepend_scheme=always has no exact .model equivalent: HF "
            "adds no ▁ before a text that starts with ▁ (or with a space, where the normalizer "
            "keeps leading spaces), sentencepiece's dummy prefix always does"
        )
    model = data.get("model") or {}
    kind = model.get("type")
    specials = {t["content"]: t for t in data.get("added_tokens") or []}
    for text, token in specials.items():
        if any(token.get(flag) for flag in ("lstrip", "rstrip", "single_word")):
            raise InexpressibleComponentError(
                f"added_tokens {text!r} strips or matches whole words; a .model cannot"
            )
    if kind == "Unigram":
        vocab = model.get("vocab") or []
        unk_id = model.get("unk_id")
        pieces = [(str(p), float(s), "normal") for p, s in vocab]
    elif kind == "BPE":
        for key in ("continuing_subword_prefix", "end_of_word_suffix", "dropout"):
            if model.get(key):
                raise InexpressibleComponentError(f"model.{key} has no .model equivalent")
        if not model.get("fuse_unk") and not model.get("byte_fallback") and not lossy:
            raise InexpressibleComponentError(
                "model.fuse_unk=false has no .model equivalent: sentencepiece joins a run of "
                "unknown characters into one unknown piece"
            )
        vocab_map = model.get("vocab") or {}
        ranked = _bpe_scores(vocab_map, model.get("merges") or [])
        ordered = sorted(vocab_map.items(), key=lambda kv: kv[1])
        if [i for _, i in ordered] != list(range(len(ordered))):
            raise InexpressibleComponentError("model.vocab ids have gaps; .model ids cannot")
        unk_token = model.get("unk_token")
        unk_id = vocab_map.get(unk_token) if unk_token else None
        pieces = [(p, ranked.get(p, 0.0), "normal") for p, _ in ordered]
    else:
        raise InexpressibleComponentError(f"model {kind} has no .model equivalent")
    if unk_id is None:
        raise InexpressibleComponentError("model has no unk token; a .model needs one")
    if kind == "Unigram" and not lossy:
        raise InexpressibleComponentError(
            f"model.vocab[{unk_id}] {pieces[unk_id][0]!r} (Unigram's unknown piece) is matched "
            "in text by HF's Unigram, never by a .model's; HF and sentencepiece also break "
            "equal-score segmentations differently"
        )
    for text, token in specials.items():
        if token.get("special") and not lossy:
            raise InexpressibleComponentError(
                f"added_tokens {text!r} (special) is matched in text by HF; a .model never "
                "matches its control or unknown pieces in text (a file that holds it as plain "
                "vocabulary converts)"
            )
    byte_fallback = bool(model.get("byte_fallback"))
    out = []
    for i, (p, score, _) in enumerate(pieces):
        if i == unk_id:
            out.append((p, 0.0, "unknown"))
        elif p in specials:
            out.append((p, 0.0, "control" if specials[p].get("special") else "user_defined"))
        elif byte_fallback and len(p) == 6 and p.startswith("<0x") and p.endswith(">"):
            out.append((p, 0.0, "byte"))
        else:
            out.append((p, score, "normal"))
    if not norm["escape"]:
        _refuse_pieces_across_words(out)
    sp = SentencePieceProcessor.from_pieces(
        out,
        model_type="unigram" if kind == "Unigram" else "bpe",
        byte_fallback=byte_fallback,
        add_dummy_prefix=dummy,
        remove_extra_whitespaces=norm["strip"],
    )
    if not norm["charsmap"]:
        return sp
    return SentencePieceProcessor(model_proto=_with_charsmap(sp, norm["charsmap"]))


# The whitespace rules of a .model's remove_extra_whitespaces, as model_to_json writes them.
_STRIP_RULES = [(r"\A +", ""), (r" +\z", ""), (" {2,}", " ")]


def _normalizer_options(normalizer: Any) -> dict[str, Any]:
    """What a ``.model`` normalizer spec needs from a ``tokenizer.json`` normalizer that is
    sentencepiece's: an optional ``Precompiled`` charsmap, then optionally the three rules of
    ``remove_extra_whitespaces`` (leading and trailing spaces removed, runs made one), then
    optionally ``Replace(" ", "▁")`` and ``Prepend("▁")`` (sentencepiece's escaping and dummy
    prefix). Any other step is named and refused."""
    steps: list[Any]
    if normalizer is None:
        steps = []
    elif isinstance(normalizer, dict) and normalizer.get("type") == "Sequence":
        steps = list(normalizer.get("normalizers") or [])
    else:
        steps = [normalizer]
    prefix = "normalizer" if len(steps) <= 1 and not _is_sequence(normalizer) else None
    out: dict[str, Any] = {"charsmap": b"", "strip": False, "escape": False, "prepend": False}
    n = 0

    def name(i: int) -> str:
        kind = steps[i].get("type") if isinstance(steps[i], dict) else steps[i]
        return f"{prefix} {kind}" if prefix else f"normalizer.normalizers[{i}] {kind}"

    if n < len(steps) and _step(steps[n]) == ("Precompiled",):
        charsmap = steps[n].get("precompiled_charsmap") or ""
        try:
            out["charsmap"] = base64.b64decode(charsmap, validate=True)
        except ValueError:
            raise InexpressibleComponentError(f"{name(n)}: the charsmap is not base64") from None
        n += 1
    if [_step(x) for x in steps[n : n + 3]] == [("Replace", *r) for r in _STRIP_RULES]:
        out["strip"] = True
        n += 3
    if n < len(steps) and _step(steps[n]) == ("Replace", " ", _SPACE):
        out["escape"] = True
        n += 1
        if n < len(steps) and _step(steps[n]) == ("Prepend", _SPACE):
            out["prepend"] = True
            n += 1
    if n < len(steps):
        raise InexpressibleComponentError(
            f"{name(n)} has no .model equivalent: a .model normalizes with a compiled charsmap "
            "(Precompiled) and sentencepiece's whitespace rules only"
        )
    return out


def _is_sequence(component: Any) -> bool:
    return isinstance(component, dict) and component.get("type") == "Sequence"


def _step(step: Any) -> tuple[Any, ...]:
    """A normalizer step as a comparable tuple: ``("Replace", pattern, content)``,
    ``("Prepend", text)``, ``("Precompiled",)``, or ``(type,)``."""
    if not isinstance(step, dict):
        return (step,)
    kind = step.get("type")
    if kind == "Replace":
        pattern = step.get("pattern") or {}
        text = pattern.get("Regex", pattern.get("String")) if isinstance(pattern, dict) else None
        return ("Replace", text, step.get("content"))
    if kind == "Prepend":
        return ("Prepend", step.get("prepend"))
    return (kind,)


def _refuse_pieces_across_words(pieces: list[tuple[str, float, str]]) -> None:
    """Metaspace splits the text before each ▁; sentencepiece does not, so a normal piece
    with ▁ after its start would be reachable in one and not the other."""
    for p, _, kind in pieces:
        if kind == "normal" and _SPACE in p[1:]:
            raise InexpressibleComponentError(
                f"model.vocab piece {p!r} spans a word boundary: Metaspace never makes it, "
                "sentencepiece would"
            )


def _with_charsmap(sp: SentencePieceProcessor, charsmap: bytes) -> bytes:
    """``sp``'s model bytes with ``charsmap`` as its normalizer's compiled rules."""
    from tokensmith.sentencepiece_proto import bytes_field, read_fields

    parts = []
    for number, value in read_fields(sp.serialized_model_proto()):
        if number == 3 and isinstance(value, bytes):
            kept = [
                bytes_field(n, v) if isinstance(v, bytes) else _varint_field(n, v)
                for n, v in read_fields(value)
                if n not in (1, 2)
            ]
            value = bytes_field(1, b"user_defined") + bytes_field(2, charsmap) + b"".join(kept)
        if not isinstance(value, bytes):
            raise ModelFormatError("the built .model has a top-level field that is no message")
        parts.append(bytes_field(number, value))
    return b"".join(parts)


def _varint_field(number: int, value: int) -> bytes:
    from tokensmith.sentencepiece_proto import _uint_field

    return _uint_field(number, value)


def _bpe_scores(vocab: dict[str, int], merges: list[Any]) -> dict[str, float]:
    """sentencepiece merges the pair whose piece scores highest: a piece scores ``-n`` for
    its first merge ``n``. Several merges may make one piece (every cut of it, as
    :func:`model_to_json` writes them) when they are consecutive, so no other piece's merge
    ranks between them; otherwise the pair ranks cannot be expressed as piece scores."""
    scores: dict[str, float] = {}
    last = ""
    for n, merge in enumerate(merges):
        left, right = merge.split(" ", 1) if isinstance(merge, str) else merge
        piece = left + right
        if piece in scores and piece != last:
            raise InexpressibleComponentError(
                f"model.merges[{n}] makes {piece!r} again after merges of other pieces; a "
                ".model ranks pieces, not pairs"
            )
        scores.setdefault(piece, -float(n))
        last = piece
    return scores
