"""Progress from inside the merge loop, and Ctrl-C during training.

The Rust merge loop takes the GIL every 100 merges to call ``progress`` and to let Python
handle signals, so SIGINT raises KeyboardInterrupt there and nothing is written. The
interrupt tests run training in a child process on a generated corpus whose merge loop takes
seconds (200,000 merges of random words), and send SIGINT once the loop has started.
"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import tokensmith

BIN = Path(sys.executable).parent


def _random_corpus(path: Path) -> Path:
    rng = random.Random(0)
    letters = "abcdefghijklmnopqrstuvwxyzåäöéüßç"
    words = ["".join(rng.choice(letters) for _ in range(rng.randint(6, 14))) for _ in range(60000)]
    path.write_text(
        "".join(" ".join(words[i : i + 10]) + "\n" for i in range(0, len(words), 10)),
        encoding="utf-8",
    )
    return path


def _interrupt_when(proc: subprocess.Popen[str], marker: str) -> tuple[str, str]:
    """Waits for ``marker`` on the child's stderr, sends SIGINT, returns the rest of output."""
    assert proc.stderr is not None
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if marker in line:
            break
    else:
        raise AssertionError(f"the child ended before {marker!r}: {''.join(seen)}")
    proc.send_signal(signal.SIGINT)
    # A hang guard, not a timing claim: the merge loop has ~200,000 merges left.
    out, err = proc.communicate(timeout=120)
    return out, "".join(seen) + err


def test_cli_ctrl_c_during_merges_writes_nothing(tmp_path: Path) -> None:
    corpus = _random_corpus(tmp_path / "corpus.txt")
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    proc = subprocess.Popen(
        [str(BIN / "tokensmith"), "train", "bpe", str(corpus), "--kind", "char",
         "--vocab-size", "200000", "--min-frequency", "0", "--out", str(out_dir / "tok.json")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    out, err = _interrupt_when(proc, "learning merges")
    assert proc.returncode != 0, out + err
    assert "wrote" not in out
    # Neither the tokenizer nor an atomic writer's temporary (.tok.json.tmp) exists.
    assert list(out_dir.iterdir()) == []


def test_api_ctrl_c_raises_keyboard_interrupt_from_the_merge_loop(tmp_path: Path) -> None:
    corpus = _random_corpus(tmp_path / "corpus.txt")
    script = (
        "import sys, tokensmith\n"
        "def progress(n):\n"
        "    if n == 100:\n"
        "        print('merging', file=sys.stderr, flush=True)\n"
        f"lines = open({str(corpus)!r}, encoding='utf-8').read().splitlines()\n"
        "try:\n"
        "    tokensmith.train_bpe(lines, kind='char', vocab_size=200000, min_frequency=0,\n"
        "                         progress=progress)\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', flush=True)\n"
        "    sys.exit(3)\n"
        "print('finished', flush=True)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    out, err = _interrupt_when(proc, "merging")
    assert proc.returncode == 3, out + err
    assert out.strip() == "interrupted"


def test_progress_is_called_every_100_merges(multilingual_lines: list[str]) -> None:
    seen: list[int] = []
    tokensmith.train_bpe(multilingual_lines, vocab_size=1256, progress=seen.append)
    assert seen == list(range(100, 1001, 100))
    seen.clear()
    tok = tokensmith.train_bpe(
        multilingual_lines, kind="metaspace", vocab_size=3000, progress=seen.append
    )
    n_merges = len(json.loads(tok.to_str())["model"]["merges"])
    assert seen == list(range(100, n_merges + 1, 100))


def test_an_exception_in_progress_stops_training(multilingual_lines: list[str]) -> None:
    def fail(n: int) -> None:
        raise ValueError(f"stop at {n}")

    with pytest.raises(ValueError, match="stop at 100"):
        tokensmith.train_bpe(multilingual_lines, kind="char", vocab_size=9000, progress=fail)


def test_show_progress_draws_on_stderr(
    multilingual_lines: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    enc = tokensmith.train_bpe(multilingual_lines, vocab_size=600, show_progress=True)
    assert enc.n_vocab == 600
    assert "learning merges" in capsys.readouterr().err
