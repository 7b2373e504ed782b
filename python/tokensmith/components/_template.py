"""HF's template language for ``TemplateProcessing``, read into its JSON pieces.

``$A`` (or ``$``, ``$a``) is the first sequence, ``$B`` the second, ``$N`` (a number) the
first with type id N; any other word is a special token; ``:N`` after either sets its type
id.

>>> piece("[SEP]:1")
{'SpecialToken': {'id': '[SEP]', 'type_id': 1}}
>>> template("$A $B:1")
[{'Sequence': {'id': 'A', 'type_id': 0}}, {'Sequence': {'id': 'B', 'type_id': 1}}]
"""

from __future__ import annotations

from typing import Any

__all__ = ["piece", "special_tokens", "template", "template_repr"]


def _error(message: str) -> Exception:
    from tokensmith.errors import TokenizerJsonError

    return TokenizerJsonError(f"TemplateProcessing: {message}")


def piece(word: str) -> dict[str, Any]:
    """One word of a template as HF's JSON writes it.

    Raises:
        TokenizerJsonError: an empty word, a bad sequence name or type id.
    """
    name, sep, type_text = word.partition(":")
    type_id = 0
    if sep:
        if not type_text.isdigit():
            raise _error(f"{word!r}: the type id after ':' must be a number")
        type_id = int(type_text)
    if not name:
        raise _error(f"{word!r}: an empty piece")
    if not name.startswith("$"):
        return {"SpecialToken": {"id": name, "type_id": type_id}}
    rest = name[1:]
    if rest in ("", "A", "a"):
        seq = "A"
    elif rest in ("B", "b"):
        seq = "B"
    elif rest.isdigit():
        seq, type_id = "A", type_id if sep else int(rest)
    else:
        raise _error(f"{word!r}: a sequence is $A, $B or $<type id>")
    return {"Sequence": {"id": seq, "type_id": type_id}}


def template(spec: str | list[str]) -> list[dict[str, Any]]:
    """A template given as a string of words or a list of them.

    Raises:
        TokenizerJsonError: a bad word, or anything but a str or list of str.
    """
    if isinstance(spec, str):
        return [piece(w) for w in spec.split()]
    if isinstance(spec, list) and all(isinstance(w, str) for w in spec):
        return [piece(w) for w in spec]
    raise _error(f"a template is a str or a list of str, got {type(spec).__name__}")


def special_tokens(tokens: Any) -> dict[str, dict[str, Any]]:
    """The ``special_tokens`` argument (``(token, id)`` tuples, or dicts with ``id``,
    ``ids`` and ``tokens``) as HF writes it: by name.

    Raises:
        TokenizerJsonError: an entry of another shape, or ``ids`` and ``tokens`` of
            different lengths.
    """
    out: dict[str, dict[str, Any]] = {}
    for i, token in enumerate(tokens or []):
        if isinstance(token, tuple | list) and len(token) == 2:
            name, id_ = token
            if isinstance(id_, str) and isinstance(name, int):
                name, id_ = id_, name
            if not isinstance(name, str) or not isinstance(id_, int):
                raise _error(f"special_tokens[{i}]: expected (str, int), got {token!r}")
            out[name] = {"id": name, "ids": [id_], "tokens": [name]}
        elif isinstance(token, dict) and {"id", "ids", "tokens"} <= token.keys():
            if len(token["ids"]) != len(token["tokens"]):
                raise _error(f"special_tokens[{i}]: ids and tokens differ in length")
            out[token["id"]] = {
                "id": token["id"],
                "ids": list(token["ids"]),
                "tokens": list(token["tokens"]),
            }
        else:
            raise _error(
                f"special_tokens[{i}]: expected (token, id) or a dict with id, ids and tokens"
            )
    # HF writes them ordered by name.
    return dict(sorted(out.items()))


def _debug_str(text: str) -> str:
    """``text`` quoted as Rust's ``Debug`` quotes a string (the escapes files need)."""
    escapes = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
    return '"' + "".join(escapes.get(c, c) for c in text) + '"'


def template_repr(pieces: list[dict[str, Any]]) -> str:
    """A template as HF's ``TemplateProcessing.single`` reads it back (Rust's ``Debug``).

    >>> template_repr(template("[CLS] $A"))
    'Template([SpecialToken { id: "[CLS]", type_id: 0 }, Sequence { id: A, type_id: 0 }])'
    """
    parts = []
    for p in pieces:
        if "SpecialToken" in p:
            t = p["SpecialToken"]
            parts.append(f"SpecialToken {{ id: {_debug_str(t['id'])}, type_id: {t['type_id']} }}")
        else:
            t = p["Sequence"]
            parts.append(f"Sequence {{ id: {t['id']}, type_id: {t['type_id']} }}")
    return f"Template([{', '.join(parts)}])"
