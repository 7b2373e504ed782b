"""``SentencePieceProcessor.encode`` with plain defaults is a compiled method: it must answer
every spelling of a call exactly as sentencepiece does, hand option calls on, leave
subclasses' own ``encode`` alone, and not keep a processor alive."""

from __future__ import annotations

import gc
import pickle
import sys
import weakref

import pytest
import sentencepiece as spm
import tokensmith
from spm_helpers import DATA

MODEL = DATA / "spm" / "test_model.model"


@pytest.fixture(scope="module")
def pair():
    proto = MODEL.read_bytes()
    return (
        tokensmith.SentencePieceProcessor(model_proto=proto),
        spm.SentencePieceProcessor(model_proto=proto),
    )


CALLS = [
    {},
    {"out_type": int},
    {"out_type": str},
    {"return_type": str},
    {"add_bos": True},
    {"add_eos": True, "out_type": str},
    {"reverse": True, "return_type": int},
    {"emit_unk_piece": True, "out_type": str},
    {"add_bos": False, "add_eos": False},
    {"num_threads": 1},
]


@pytest.mark.parametrize("kwargs", CALLS, ids=lambda k: "+".join(k) or "none")
def test_every_spelling_matches_sentencepiece(pair, lines, kwargs):
    ours, ref = pair
    assert type(ours.encode).__name__ == "builtin_function_or_method"
    for line in lines[::7]:
        assert ours.encode(line, **kwargs) == ref.encode(line, **kwargs), (line, kwargs)
    batch = lines[:50]
    assert ours.encode(batch, **kwargs) == ref.encode(batch, **kwargs)
    assert ours.encode(input=lines[3], **kwargs) == ref.encode(input=lines[3], **kwargs)


def test_positional_options_and_str_subclass(pair, lines):
    ours, ref = pair

    class Text(str):
        pass

    line = lines[11]
    # Positions follow tokensmith's documented signature (out_type, add_bos, add_eos, ...).
    assert ours.encode(line, str) == ref.encode(line, out_type=str)
    assert ours.encode(Text(line)) == ref.encode(line)
    assert ours.encode(line, None, True, True) == ref.encode(line, add_bos=True, add_eos=True)


def test_errors_are_the_facades(pair):
    ours, _ = pair
    with pytest.raises(ValueError, match="out_type must be one of"):
        ours.encode("abc", out_type=float)
    with pytest.raises(ValueError, match="not both"):
        ours.encode("abc", out_type=int, return_type=int)
    with pytest.raises(TypeError):
        ours.encode("abc", colour="red")


def test_defaults_that_are_not_plain_keep_the_python_method(lines):
    proto = MODEL.read_bytes()
    ours = tokensmith.SentencePieceProcessor(model_proto=proto, add_bos=True, out_type=str)
    ref = spm.SentencePieceProcessor(model_proto=proto, add_bos=True, out_type=str)
    assert "encode" not in vars(ours)
    assert ours.encode(lines[5]) == ref.encode(lines[5])


def test_a_str_default_gives_pieces(lines):
    proto = MODEL.read_bytes()
    ours = tokensmith.SentencePieceProcessor(model_proto=proto, out_type=str)
    ref = spm.SentencePieceProcessor(model_proto=proto, out_type=str)
    assert "encode" in vars(ours)
    for kwargs in ({}, {"out_type": int}, {"out_type": str}):
        assert ours.encode(lines[8], **kwargs) == ref.encode(lines[8], **kwargs)


def test_a_subclass_override_is_kept():
    class Shouting(tokensmith.SentencePieceProcessor):
        def encode(self, input, **kwargs):  # type: ignore[override]
            return ["override"]

    sp = Shouting(model_file=MODEL)
    assert sp.encode("abc") == ["override"]


class Plain(tokensmith.SentencePieceProcessor):
    """A subclass without ``__slots__``, so that it takes weak references."""


def test_the_processor_is_freed_and_pickles(lines):
    sp = Plain(model_file=MODEL)
    assert "encode" in vars(sp)
    want = sp.encode(lines[2])
    clone = pickle.loads(pickle.dumps(sp))
    assert clone.encode(lines[2]) == want
    assert clone.encode(lines[2], out_type=str) == sp.encode(lines[2], out_type=str)
    gone = weakref.ref(sp)
    # Freed by its reference count alone, with the cyclic collector off: nothing the processor
    # holds (its compiled ``encode`` included) holds it, so a program that loads model after
    # model does not keep the dropped ones until a collection.
    gc.disable()
    try:
        del sp
        assert gone() is None
    finally:
        gc.enable()


def test_a_kept_method_outlives_its_processor(lines):
    sp = tokensmith.SentencePieceProcessor(model_file=MODEL)
    encode = sp.encode
    want = sp.encode(lines[4], out_type=str)
    del sp
    gc.collect()
    assert encode(lines[4], out_type=str) == want


class Text(str):
    pass


class Lines(list):
    pass


# Call shapes that reach the compiled method's own C function: one `str` with at most its output
# type takes the short way there, every other shape is handed on to the general method with the
# same arguments.
SHAPES = [
    ((), {}),
    (("ab cd",), {}),
    (("",), {}),
    ((Text("ab cd"),), {}),
    ((b"ab",), {}),
    ((None,), {}),
    ((1,), {}),
    (("\ud800",), {}),
    (("ab", int), {}),
    (("ab", str), {}),
    ((), {"input": "ab"}),
    (("ab",), {"input": "ab"}),
    (("ab",), {"out_type": str}),
    (("ab",), {"out_type": int}),
    (("ab",), {"return_type": str}),
    (("ab",), {"out_type": None}),
    (("ab",), {"out_type": bytes}),
    (("ab",), {"".join(["out", "_type"]): str}),  # a name that is not interned
    (("ab",), {"add_bos": True}),
    (("ab",), {"colour": 1}),
    (("ab", str), {"add_eos": True}),
    (("ab", str, True), {}),
    ((Text("ab"),), {"out_type": str}),
    ((b"ab",), {"out_type": str}),
    ((["a b", "c"],), {}),
    ((["a b", "c"],), {"out_type": str}),
    ((["a b", "c"], int), {}),
    ((["a b", "c"],), {"return_type": str}),
    ((["a b", 1],), {}),
    (([],), {}),
    ((Lines(["a b", "c"]),), {}),
    ((("a", "b"),), {}),
]


def outcome(call, args, kwargs):
    try:
        return ("value", call(*args, **kwargs))
    except Exception as e:  # noqa: BLE001 - the exception itself is what is compared
        return (type(e), str(e))


@pytest.mark.parametrize("out_type", [int, str])
def test_one_text_entry_answers_as_the_general_method(out_type):
    sp = tokensmith.SentencePieceProcessor(model_file=MODEL, out_type=out_type)
    general = sp.encode.__self__.encode
    assert sp.encode.__text_signature__ == general.__text_signature__
    for args, kwargs in SHAPES:
        assert outcome(sp.encode, args, kwargs) == outcome(general, args, kwargs), (args, kwargs)
    # And as the facade's Python method, which the instance attribute shadows.
    python_method = tokensmith.SentencePieceProcessor.encode
    assert sp.encode("ab cd") == python_method(sp, "ab cd") == general("ab cd")


def test_one_text_entry_keeps_reference_counts():
    sp = tokensmith.SentencePieceProcessor(model_file=MODEL)
    encode = sp.encode
    plain = encode.__self__
    text = "reference counts of a text"
    bad = "bad \ud800"
    ids = encode(text)
    counts = (sys.getrefcount(text), sys.getrefcount(bad), sys.getrefcount(plain))
    for _ in range(100):
        assert encode(text) == ids
        assert encode(text, out_type=int) == ids
        with pytest.raises(UnicodeEncodeError):
            encode(bad)
    assert (sys.getrefcount(text), sys.getrefcount(bad), sys.getrefcount(plain)) == counts
