"""The worst-case and load-time tables of ``encode.py``: calls timed each in a fresh process.

What this module does not handle: running those processes; ``_isolated.py`` does.
"""

from __future__ import annotations

from _common import WORST_CASES
from _isolated import PROSE as PROSE_REFERENCE
from _isolated import LoadTime, WorstCase
from _timing import BASELINE, SUBJECT, table

WORST_COST_TARGET = 3.0  # tokensmith's cost per byte on a worst case, relative to prose


def differs_from_reference(result: WorstCase, reference: WorstCase | None) -> bool:
    return (
        result.status == "ok"
        and reference is not None
        and reference.status == "ok"
        and reference.digest != result.digest
    )


def worst_cell(result: WorstCase, reference: WorstCase | None) -> str:
    if result.status == "ok" and result.seconds is not None:
        return f"{result.seconds:.3f} s" + (
            " ✗" if differs_from_reference(result, reference) else ""
        )
    if result.status == "timeout":
        return f"timeout, {result.detail}"
    return result.status


def worst_notes(by_key: dict[str, dict[str, WorstCase]]) -> list[str]:
    """One line per call that failed or gave ids other than tiktoken's."""
    notes = []
    for key, results in by_key.items():
        reference = results.get(BASELINE)
        for library, result in results.items():
            where = f"- {library}, {worst_label(key)}"
            if differs_from_reference(result, reference) and reference is not None:
                counts = f"{result.n_tokens} tokens, tiktoken {reference.n_tokens}"
                notes.append(f"{where}: ids differ from tiktoken's ({counts})")
            elif result.status not in ("ok", "timeout"):
                notes.append(f"{where}: {result.status}: {result.detail}")
    return notes


def prose_cost_ratio(result: WorstCase, prose: WorstCase | None) -> str:
    """CPU cost per byte on a worst case over that on prose, both timed the same way in a fresh
    process after a warm-up on a different string of the same kind: 1.0 means as fast as prose."""
    if result.status != "ok" or not result.cpu_seconds or not result.n_bytes:
        return "–"
    if prose is None or prose.status != "ok" or not prose.cpu_seconds or not prose.n_bytes:
        return "–"
    value = (result.cpu_seconds / result.n_bytes) / (prose.cpu_seconds / prose.n_bytes)
    verdict = "ok" if value <= WORST_COST_TARGET else "**over target**"
    return f"{value:.2f}× ({verdict})"


def worst_label(key: str) -> str:
    return "English prose (reference)" if key == PROSE_REFERENCE else WORST_CASES[key][0]


def render_worst_table(by_key: dict[str, dict[str, WorstCase]]) -> str:
    libraries = list(dict.fromkeys(lib for results in by_key.values() for lib in results))
    body = [
        [lib, *[worst_cell(by_key[key][lib], by_key[key].get(BASELINE)) for key in by_key]]
        for lib in libraries
    ]
    if SUBJECT in libraries:
        label = f"{SUBJECT} CPU cost/byte vs prose (target ≤ {WORST_COST_TARGET:g}×)"
        prose = by_key.get(PROSE_REFERENCE, {}).get(SUBJECT)
        body.append([label, *[prose_cost_ratio(by_key[key][SUBJECT], prose) for key in by_key]])
    text = table(["library", *[worst_label(key) for key in by_key]], body)
    notes = worst_notes(by_key)
    return text + ("\n\n" + "\n".join(notes) if notes else "")


def render_worst(worst: dict[str, dict[str, dict[str, WorstCase]]], n: int) -> str:
    intro = (
        f"### Worst cases: one string of {n:,} characters, seconds per call (wall)\n\n"
        "_Each call in a fresh process, after one warm-up call on a different string of the same "
        "kind (another seed, half the length); tokensmith's calls are made once per round, each "
        "in its own process, and its cells are medians over the rounds; the peers' are timed "
        "once. English prose (half the English documents, the "
        "other half as warm-up) is timed the same way as the reference. random CJK: "
        'U+4E00..U+9FFF; random bytes: bytes 0..255 decoded as UTF-8 with errors="replace"; all '
        "seeded. ✗ marks ids that differ from tiktoken's. The cost/byte row divides tokensmith's "
        "median CPU seconds per byte on each input by its median CPU seconds per byte on that "
        "prose._"
    )
    parts = [intro]
    for encoding, by_key in worst.items():
        parts.append(f"#### {encoding}\n\n" + render_worst_table(by_key))
    return "\n\n".join(parts)


def render_load(load: dict[str, LoadTime | str], encoding: str, repeats: int) -> str:
    body = []
    for library, result in load.items():
        if isinstance(result, str):
            body.append([library, "failed", result[:80], "", ""])
            continue
        ms = [f"{1000 * s:.0f} ms" for s in (result.import_s, result.construct_s)]
        first = f"{1000 * result.first_encode_s:.2f} ms"
        body.append([library, *ms, first, f"{1000 * result.start_to_first_s:.0f} ms"])
    header = ["library", "import", "construct", "first encode", "process start → first encode"]
    note = (
        f"_Fresh process per load, median of {repeats}. Peers built from the shared ranks parse "
        "the gzipped .tiktoken file in Python and import tiktoken_ext (for the pattern) while "
        "constructing._"
    )
    return "\n\n".join([f"### Load time, {encoding}", note, table(header, body)])
