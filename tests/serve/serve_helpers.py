"""A playground server in a thread of the test process, on a free loopback port."""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tokensmith.serve.catalog import Catalog
from tokensmith.serve.config import ServeConfig
from tokensmith.serve.server import bind_socket, make_server

DATA = Path(__file__).resolve().parent.parent / "data"
SPM_MODEL = DATA / "spm" / "test_model.model"


@dataclass
class Running:
    url: str
    port: int
    catalog: Catalog


@contextmanager
def running_server(config: ServeConfig) -> Iterator[Running]:
    """Serves ``config`` until the block ends."""
    sock = bind_socket("127.0.0.1", 0, allow_remote=False)
    port = sock.getsockname()[1]
    catalog = Catalog(config)
    server = make_server(config, catalog=catalog)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    try:
        yield Running(f"http://127.0.0.1:{port}", port, catalog)
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


def served_folder(root: Path) -> Path:
    """A ``--dir`` holding the SentencePiece test model, and a symlink that leads out."""
    folder = root / "served"
    folder.mkdir()
    shutil.copy(SPM_MODEL, folder / "test_model.model")
    outside = root / "outside.tiktoken"
    outside.write_text("secret")
    (folder / "link_out.tiktoken").symlink_to(outside)
    return folder
