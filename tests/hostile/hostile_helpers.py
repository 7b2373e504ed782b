"""Runs one hostile case in a child process and reports how it ended.

A case is Python source that sets ``result``. The child prints one JSON line: the result, or
the exception's class, its bases and message. The parent then checks the child was not killed
by a signal (an abort, a segfault), that no ``PanicException`` escaped, and that it finished
well inside a time bound: the bounds are about ten times the normal run, so a quadratic path
fails them but a slow, shared machine does not.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

import tokensmith

PYTHON_DIR = Path(tokensmith.__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent.parent / "data"

_WRAPPER = """
import json, sys, traceback
try:
{body}
    out = {{"result": repr(result)}}
except BaseException as e:
    import tokensmith.errors as errors
    out = {{
        "error": type(e).__name__,
        "tokensmith": isinstance(e, errors.TokensmithError),
        "bases": [c.__name__ for c in type(e).__mro__],
        "message": str(e),
        "traceback": traceback.format_exc(),
    }}
sys.stdout.write("\\n" + json.dumps(out) + "\\n")
"""


@dataclass
class Outcome:
    result: str | None
    error: str | None
    tokensmith: bool
    bases: list[str]
    message: str
    seconds: float


def run_case(source: str, *, bound: float = 15.0, cwd: str | None = None) -> Outcome:
    """Runs ``source`` (which sets ``result``) in a child; asserts it exits normally within
    ``bound`` seconds and raised no ``PanicException``."""
    body = textwrap.indent(textwrap.dedent(source), "    ")
    env = dict(os.environ, PYTHONPATH=str(PYTHON_DIR), RUST_BACKTRACE="0")
    start = time.monotonic()
    try:
        proc = subprocess.run(
            [sys.executable, "-c", _WRAPPER.format(body=body)],
            capture_output=True,
            text=True,
            timeout=bound,
            env=env,
            cwd=cwd,
        )
    except subprocess.TimeoutExpired:
        raise AssertionError(f"the case ran past its bound of {bound} s") from None
    seconds = time.monotonic() - start
    assert proc.returncode == 0, (
        f"the child died with code {proc.returncode} (a negative code is a signal)\n"
        f"{proc.stderr[-2000:]}"
    )
    lines = proc.stdout.strip().splitlines()
    assert lines, proc.stderr[-2000:]
    out = json.loads(lines[-1])
    assert out.get("error") != "PanicException", out.get("traceback")
    return Outcome(
        result=out.get("result"),
        error=out.get("error"),
        tokensmith=bool(out.get("tokensmith")),
        bases=out.get("bases", []),
        message=out.get("message", ""),
        seconds=seconds,
    )


def expect_error(
    source: str, error: str, *, builtin: str = "ValueError", contains: str = "", bound: float = 15.0
) -> Outcome:
    """Runs a case that must raise the tokensmith error ``error`` (also a ``builtin``) whose
    message holds ``contains``."""
    out = run_case(source, bound=bound)
    assert out.error == error, (out.error, out.message, out.result)
    assert out.tokensmith and builtin in out.bases, out.bases
    assert contains in out.message, out.message
    return out


def expect_result(source: str, expected: str, *, bound: float = 15.0) -> Outcome:
    """Runs a case that must succeed with ``repr(result) == expected``."""
    out = run_case(source, bound=bound)
    assert out.error is None, (out.error, out.message)
    assert out.result == expected, out.result
    return out
