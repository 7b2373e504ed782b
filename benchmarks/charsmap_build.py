"""The normalization charsmaps tokensmith builds, against sentencepiece's: size and build cost.

Method
------
sentencepiece ships its four charsmaps (nmt_nfkc, nfkc, nmt_nfkc_cf, nfkc_cf) precompiled;
tokensmith builds each from the Unicode rules the first time a process needs it. For each rule,
a fresh process (``--child RULE``) trains a tiny Unigram model twice with that rule and reports
the first call's wall time (which builds the charsmap), the second call's (which reuses it),
its own peak RSS (``VmHWM``) and the charsmap the model carries. A child with the ``identity``
rule, which has no charsmap, gives the baseline for time and memory. The parent trains the
same tiny model with sentencepiece and compares the charsmaps byte for byte.

Usage::

    python benchmarks/charsmap_build.py            # prints the table
    python benchmarks/charsmap_build.py --write    # and appends it to benchmarks/RESULTS.md
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from types import ModuleType

from _common import cpu_model, git_revision, load_test_module, package_version, publish

RULES = ("nmt_nfkc", "nfkc", "nmt_nfkc_cf", "nfkc_cf")
SEED_TEXT = ["the cat sat on the mat", "the dog sat on the log"] * 20


def peak_rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def identity_test() -> ModuleType:
    """The charsmap byte-identity test, whose helpers train sentencepiece's tiny model and read
    a ``.model``'s charsmap; imported only after any memory has been measured."""
    return load_test_module("train_unigram/test_unigram_normalization.py")


def charsmap_of(model_proto: bytes) -> bytes:
    """The precompiled charsmap a serialized ``.model`` carries."""
    return bytes(identity_test().charsmap(model_proto))


def child(rule: str) -> None:
    """Trains twice with ``rule`` and prints one JSON line of measurements."""
    import tokensmith

    def train() -> bytes:
        sp = tokensmith.train_unigram(
            SEED_TEXT,
            vocab_size=18,
            normalization_rule_name=rule,  # type: ignore[arg-type]
            seed_sentencepiece_size=1000,
        )
        return sp.serialized_model_proto()

    start = time.perf_counter()
    model = train()
    first = time.perf_counter() - start
    start = time.perf_counter()
    train()
    second = time.perf_counter() - start
    peak = peak_rss_mib()
    print(
        json.dumps(
            {
                "first_s": first,
                "second_s": second,
                "peak_mib": peak,
                "charsmap": charsmap_of(model).hex(),
            }
        )
    )


def run_child(rule: str) -> dict[str, float | str]:
    done = subprocess.run(
        [sys.executable, __file__, "--child", rule], capture_output=True, text=True, check=True
    )
    result: dict[str, float | str] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def sentencepiece_charsmap(rule: str) -> bytes:
    """The charsmap of the tiny model sentencepiece trains with ``rule`` (the test's helper)."""
    test = identity_test()
    return bytes(test.charsmap(test.spm_model(rule)))


def report() -> str:
    base = run_child("identity")
    rows = []
    for rule in RULES:
        ours = run_child(rule)
        our_map = bytes.fromhex(str(ours["charsmap"]))
        ref_map = sentencepiece_charsmap(rule)
        build_s = float(ours["first_s"]) - float(base["first_s"])
        rows.append(
            f"| {rule} | {len(our_map):,} | {len(ref_map):,} | "
            f"{'yes' if our_map == ref_map else 'no'} | {build_s:.2f} s | "
            f"{float(ours['second_s']):.3f} s | {float(ours['peak_mib']):.0f} MiB |"
        )
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return "\n".join(
        [
            f"### charsmap_build.py, {stamp}",
            "",
            "- command: `python benchmarks/charsmap_build.py --write`",
            f"- machine: {cpu_model()}",
            f"- tokensmith tree: {git_revision()}",
            f"- versions: tokensmith {package_version('tokensmith')}, "
            f"sentencepiece {package_version('sentencepiece')}",
            f"- identity baseline: first call {float(base['first_s']):.3f} s, "
            f"peak RSS {float(base['peak_mib']):.0f} MiB",
            "",
            "| rule | tokensmith bytes | sentencepiece bytes | byte-identical | build "
            "(first call - identity) | cached call | peak RSS |",
            "|---|---|---|---|---|---|---|",
            *rows,
            "",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", choices=(*RULES, "identity"), help=argparse.SUPPRESS)
    parser.add_argument("--write", action="store_true", help="append to benchmarks/RESULTS.md")
    args = parser.parse_args()
    if args.child:
        child(args.child)
    else:
        publish(report(), args.write)


if __name__ == "__main__":
    main()
