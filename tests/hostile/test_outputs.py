"""Outputs of ``train bpe``/``train unigram`` are checked before training and written as one
set: a name cannot leave --out, a wrong extension, an existing file or a read-only folder
stop the command before any work, and nothing partial is left behind."""

from __future__ import annotations

from pathlib import Path

import pytest
from tokensmith.cli import app
from tokensmith.errors import OutputDirError, OutputWriteError
from tokensmith.io.output_set import OutputSet
from typer.testing import CliRunner

DATA = Path(__file__).parent.parent / "data"


def _train(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["train", *args])
    return result.exit_code, result.output


def _bpe(out: Path, *more: str) -> tuple[int, str]:
    corpus = str(DATA / "code.txt")
    return _train("bpe", corpus, "--vocab-size", "300", "--out", str(out), *more)


@pytest.mark.parametrize("name", ["../ESCAPED", "/abs/path", "..", "a/b"])
def test_a_name_cannot_leave_the_output_folder(tmp_path, name):
    out = tmp_path / "inside" / "out"
    code, output = _bpe(out, "--name", name)
    assert code == 2 and "--name" in output and "Traceback" not in output
    assert sorted(p.name for p in tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("command", "out_name", "expected"),
    [("bpe", "x.model", "train unigram"), ("unigram", "x.json", "end --out in .model")],
)
def test_the_extension_is_checked_before_training(tmp_path, command, out_name, expected):
    out = tmp_path / out_name
    corpus = str(DATA / "code.txt")
    code, output = _train(command, corpus, "--vocab-size", "300", "--out", str(out))
    assert code == 2 and expected in output, output
    # Refused before reading the corpus: no progress line, no summary.
    assert "trained" not in output and not out.exists()


def test_existing_outputs_need_overwrite(tmp_path):
    out = tmp_path / "tok"
    out.mkdir()
    (out / "vocab.json").write_text("someone else's")
    code, output = _bpe(out)
    assert code == 2 and "--overwrite" in output and "trained" not in output
    assert (out / "vocab.json").read_text() == "someone else's"
    code, output = _bpe(out, "--overwrite")
    assert code == 0, output
    assert sorted(p.name for p in out.iterdir()) == [
        "merges.txt",
        "tok.tiktoken",
        "tok.tiktoken.json",
        "tokenizer.json",
        "tokensmith.json",
        "vocab.json",
    ]
    assert [p.name for p in tmp_path.iterdir()] == ["tok"]  # no temporary folder left


def test_an_unwritable_folder_fails_before_training():
    # /proc takes no new entries, even for root (a chmod-ed folder would not stop root).
    code, output = _bpe(Path("/proc/tokensmith-out/tok.json"))
    assert code == 2 and "cannot write into /proc" in output and "trained" not in output


def test_a_folder_that_is_a_file_fails_before_training(tmp_path):
    (tmp_path / "f").write_text("")
    code, output = _bpe(tmp_path / "f" / "tok.json")
    assert code == 2 and "is a file" in output and "trained" not in output


def test_an_interrupted_set_write_leaves_the_old_files(tmp_path):
    out = tmp_path / "set"
    out.mkdir()
    (out / "a.txt").write_text("old a")
    (out / "b.txt").write_text("old b")
    outputs = OutputSet(out, ["a.txt", "b.txt"], overwrite=True)
    outputs.check()
    with pytest.raises(KeyboardInterrupt), outputs.write() as tmp:
        (tmp / "a.txt").write_text("new a")
        raise KeyboardInterrupt
    assert (out / "a.txt").read_text() == "old a" and (out / "b.txt").read_text() == "old b"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["set"]


def test_output_errors_are_typed():
    assert issubclass(OutputDirError, FileExistsError)
    assert issubclass(OutputWriteError, OSError)


def test_compare_keeps_an_existing_report(tmp_path):
    out = tmp_path / "report"
    out.mkdir()
    (out / "report.html").write_text("an older report")
    result = CliRunner().invoke(
        app, ["compare", "cl100k_base", "-c", str(DATA / "code.txt"), "-o", str(out)]
    )
    assert result.exit_code == 2 and "--overwrite" in result.output
    assert (out / "report.html").read_text() == "an older report"


def test_an_interrupted_directory_save_leaves_the_old_set(tmp_path, monkeypatch):
    import tokensmith
    import tokensmith.io.vocab_merges as vocab_merges

    old = tokensmith.train_bpe(["low lower lowest"] * 10, vocab_size=262, name="old")
    tokensmith.save(old, tmp_path / "v")
    before = {p.name: p.read_bytes() for p in (tmp_path / "v").iterdir()}
    new = tokensmith.train_bpe(["new newer newest"] * 10, vocab_size=262, name="new")
    real = vocab_merges.atomic_write

    def interrupted(path, chunks):
        if Path(path).name == "merges.txt":
            raise KeyboardInterrupt
        real(path, chunks)

    monkeypatch.setattr(vocab_merges, "atomic_write", interrupted)
    with pytest.raises(KeyboardInterrupt):
        tokensmith.save(new, tmp_path / "v", overwrite=True)
    assert {p.name: p.read_bytes() for p in (tmp_path / "v").iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["v"]
