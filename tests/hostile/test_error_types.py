"""One error story: every public error is a TokensmithError and a built-in a user would catch,
and the package raises no bare built-in exception."""

from __future__ import annotations

import ast
import builtins
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest
import tokensmith
import tokensmith.errors as errors

PACKAGE = Path(tokensmith.__file__).parent
# A raise that a protocol requires as it is: ``__getitem__`` ends iteration with IndexError.
# Python's protocols require these built-ins: sequence indexing ends on IndexError, and a
# missing attribute must be an AttributeError (getattr, hasattr and pickle rely on it).
ALLOWED = {
    ("datasets/megatron.py", "IndexError"),
    ("components/_base.py", "AttributeError"),
    ("components/trainers.py", "AttributeError"),
}
_BUILTIN_ERRORS = {
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
}


def _public_error_classes() -> list[type[BaseException]]:
    return [
        value
        for value in vars(errors).values()
        if inspect.isclass(value)
        and issubclass(value, BaseException)
        and value.__module__ == errors.__name__
    ]


@pytest.mark.parametrize("cls", _public_error_classes(), ids=lambda c: c.__name__)
def test_every_public_error_is_a_tokensmith_error_and_a_builtin(cls):
    assert issubclass(cls, errors.TokensmithError)
    assert cls.__name__ in errors.__all__
    if cls is not errors.TokensmithError:
        generic = (Exception, BaseException, object)
        builtin_bases = [b for b in cls.__mro__ if b.__module__ == "builtins" and b not in generic]
        assert builtin_bases, f"{cls.__name__} derives from no built-in a user would catch"


# Control flow inside one module that never reaches a caller: the chat renderer turns a
# BudgetExceeded into a ChatTemplateError, and the playground turns a BadRequest into an HTTP
# error response.
INTERNAL = {"tokensmith.chat.budget.BudgetExceeded", "tokensmith.serve.routes.BadRequest"}


def _errors_defined_across_the_package() -> set[type[BaseException]]:
    found = set()
    for info in pkgutil.walk_packages(tokensmith.__path__, "tokensmith."):
        if info.name.endswith("__main__"):  # runs the CLI when imported
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (
                inspect.isclass(value)
                and issubclass(value, BaseException)
                and not issubclass(value, Warning)
                and value.__module__.startswith("tokensmith")
            ):
                found.add(value)
    return found


def test_every_error_class_of_the_package_is_a_tokensmith_error():
    found = _errors_defined_across_the_package()
    assert errors.VocabFormatError in found
    outside = {
        f"{c.__module__}.{c.__qualname__}"
        for c in found
        if not issubclass(c, errors.TokensmithError)
    }
    assert outside == INTERNAL


def test_everything_in_all_is_defined():
    for name in errors.__all__:
        assert isinstance(getattr(errors, name), type), name


def _bare_raises() -> list[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Raise) or node.exc is None:
                continue
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(exc, ast.Name) and exc.id in _BUILTIN_ERRORS:
                where = str(path.relative_to(PACKAGE))
                if (where, exc.id) not in ALLOWED and exc.id not in (
                    "NotImplementedError",
                    "StopIteration",
                    "KeyboardInterrupt",
                    "SystemExit",
                ):
                    found.append(f"{where}:{node.lineno}: raise {exc.id}")
    return found


def test_no_raise_site_raises_a_bare_builtin():
    assert _bare_raises() == []
