"""The server's guard: files only from --dir, body and time limits, origins, and the socket
bound to loopback unless --allow-remote is given."""

from __future__ import annotations

import http.client
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_helpers import Running, running_server, served_folder
from tokensmith.serve.config import ServeConfig

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    folder = served_folder(tmp_path_factory.mktemp("security"))
    config = ServeConfig(root=folder, max_body=4096, time_limit=2.0)
    with running_server(config) as running:
        running.catalog.get("o200k_base")  # loaded before the clock of any request starts
        yield running


def request(
    server: Running,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    connection.request(method, path, body=body, headers=headers or {})
    response = connection.getresponse()
    response.read()
    connection.close()
    return response


def test_a_file_under_dir_is_served(server: Running) -> None:
    assert request(server, "GET", "/api/piece?t=dir:test_model.model&id=5").status == 200


@pytest.mark.parametrize(
    "key",
    [
        "dir:../outside.tiktoken",
        "dir:sub/../../outside.tiktoken",
        "dir:link_out.tiktoken",  # a symlink inside --dir that leads out of it
        "dir:/etc/passwd",
        "dir:%2Fetc%2Fpasswd",
        "dir:..%5Coutside.tiktoken",
    ],
)
def test_paths_out_of_dir_are_refused(server: Running, key: str) -> None:
    response = request(server, "GET", f"/api/piece?t={key}&id=1")
    assert response.status == 403


def test_a_static_path_cannot_climb_out(server: Running) -> None:
    assert request(server, "GET", "/static/../catalog.py").status == 404
    assert request(server, "GET", "/static/%2e%2e/catalog.py").status == 404
    assert request(server, "GET", "/static/index.html").status == 200


def test_a_body_over_the_limit_gets_413(server: Running) -> None:
    big = b"x" * 5000
    assert request(server, "POST", "/api/tokenize?t=o200k_base", big).status == 413
    # Without a Content-Length the guard counts the streamed bytes.
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    connection.request(
        "POST", "/api/tokenize?t=o200k_base", body=iter([b"x" * 3000] * 2), encode_chunked=True
    )
    assert connection.getresponse().status == 413
    connection.close()
    assert request(server, "POST", "/api/tokenize?t=o200k_base", b"x" * 100).status == 200


def test_a_slow_body_gets_408(server: Running) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(
            b"POST /api/tokenize?t=o200k_base HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: text/plain\r\nContent-Length: 100\r\n\r\nonly ten b"
        )
        answer = sock.recv(4096).decode("latin-1")
    assert answer.startswith("HTTP/1.1 408"), answer[:200]


def test_the_server_survives_its_refusals(server: Running) -> None:
    # After 413s and 408s the same server still answers.
    assert request(server, "GET", "/api/tokenizers").status == 200


def test_other_origins_are_refused_and_no_cors_is_offered(server: Running) -> None:
    evil = {"Origin": "http://evil.example", "Content-Type": "text/plain"}
    response = request(server, "POST", "/api/tokenize?t=o200k_base", b"hi", evil)
    assert response.status == 403
    own = {"Origin": f"http://127.0.0.1:{server.port}", "Host": f"127.0.0.1:{server.port}"}
    ok = request(server, "POST", "/api/tokenize?t=o200k_base", b"hi", own)
    assert ok.status == 200
    assert ok.getheader("Access-Control-Allow-Origin") is None
    assert "script-src 'self'" in (ok.getheader("Content-Security-Policy") or "")
    preflight = request(
        server, "OPTIONS", "/api/tokenize", headers={"Access-Control-Request-Method": "POST"}
    )
    assert preflight.getheader("Access-Control-Allow-Origin") is None


def test_a_host_name_other_than_loopback_is_refused(server: Running) -> None:
    # A name an attacker resolves to 127.0.0.1 (DNS rebinding) is not this server's.
    rebound = {
        "Host": f"evil.example:{server.port}",
        "Origin": f"http://evil.example:{server.port}",
    }
    assert request(server, "GET", "/api/tokenizers", headers=rebound).status == 403
    for host in ("localhost", "127.0.0.1", "[::1]"):
        own = {"Host": f"{host}:{server.port}"}
        assert request(server, "GET", "/api/tokenizers", headers=own).status == 200, host


def _listening(port: int) -> set[str]:
    """Local addresses (hex, as /proc/net/tcp writes them) listening on ``port``."""
    found = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, state = line.split()[1], line.split()[3]
        address, hex_port = local.split(":")
        if state == "0A" and int(hex_port, 16) == port:
            found.add(address)
    return found


def _start(*args: str) -> tuple[subprocess.Popen[str], int, str]:
    """Starts ``tokensmith serve --port 0 ARGS``; returns it, its port and what it printed."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python"), "COLUMNS": "200"}
    process = subprocess.Popen(
        [sys.executable, "-m", "tokensmith", "serve", "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    assert process.stdout is not None
    lines = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line)
        found = re.search(r"http://[\d.]+:(\d+)/", line)
        if found:
            return process, int(found.group(1)), "".join(lines)
    process.kill()
    raise AssertionError("the server printed no address: " + "".join(lines))


def _stop(process: subprocess.Popen[str]) -> str:
    process.terminate()
    output, _ = process.communicate(timeout=20)
    return output


def test_the_socket_is_bound_to_loopback_by_default() -> None:
    process, port, _ = _start()
    try:
        assert _listening(port) == {"0100007F"}  # 127.0.0.1
    finally:
        _stop(process)


def test_another_host_needs_the_flag_and_warns() -> None:
    refused = subprocess.run(
        [sys.executable, "-m", "tokensmith", "serve", "--port", "0", "--host", "10.1.2.3"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "python")},
        timeout=60,
    )
    assert refused.returncode == 2
    assert "--allow-remote" in refused.stderr
    # Listening on every address for a moment; the test sends nothing anywhere.
    process, port, printed = _start("--host", "0.0.0.0", "--allow-remote")
    try:
        assert _listening(port) == {"00000000"}
    finally:
        _stop(process)
    assert "WARNING" in printed and "other machines may reach" in printed
