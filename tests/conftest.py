"""Shared fixtures: the committed test text and the reference encoders, built offline."""

from __future__ import annotations

import os
import shutil
import signal
from pathlib import Path

import pytest
import tokensmith
from tokensmith.reference import tiktoken_encoding

# A test run started in the background of a non-interactive shell inherits SIGINT ignored,
# and so would every child process the Ctrl-C tests start (an ignored signal survives exec).
# Handling it here lets the children start with SIGINT at its default, as under a terminal.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

DATA = Path(__file__).parent / "data"
# tiktoken builds gpt2 from GPT-2's data-gym files; these are copies (see vocab/README.md).
GPT2_DATA_GYM = DATA / "gpt2_data_gym"
ENCODINGS = list(tokensmith.registry.BUNDLED)


@pytest.fixture(scope="session")
def multilingual_lines() -> list[str]:
    return (DATA / "multilingual.txt").read_text(encoding="utf-8").splitlines(keepends=True)


@pytest.fixture(scope="session")
def code_text() -> str:
    return (DATA / "code.txt").read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def chromium_path() -> str:
    """Debian's headless Chromium, for the tests that open pages (``make test`` installs it)."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    raise AssertionError("Chromium is not installed: `make test` installs Debian's chromium")


@pytest.fixture(scope="session")
def ray_cluster():
    """A real local Ray cluster with 2 CPUs, on loopback only, shared by the session."""
    # Read when Ray is first imported: without it Ray binds to the machine's outward address.
    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    assert ray.get_runtime_context().gcs_address.startswith("127.0.0.1:")
    yield ray
    ray.shutdown()


@pytest.fixture(scope="session", params=ENCODINGS)
def pair(request: pytest.FixtureRequest) -> tuple[tokensmith.Encoding, object]:
    """(tokensmith encoding, tiktoken encoding) of the same name."""
    ref = tiktoken_encoding(request.param, data_gym_dir=GPT2_DATA_GYM)
    return tokensmith.get_encoding(request.param), ref
