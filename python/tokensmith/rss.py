"""The peak resident memory of this process, for the summaries of long jobs.

>>> peak_rss_bytes() > 0
True
"""

from __future__ import annotations

import sys


def peak_rss_bytes() -> int:
    """The largest resident set size this process has had, in bytes (``getrusage``; Linux
    reports it in KiB, macOS in bytes). 0 where ``resource`` does not exist (Windows)."""
    try:
        import resource
    except ImportError:
        return 0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak if sys.platform == "darwin" else peak * 1024)


def format_bytes(n: float) -> str:
    """``n`` bytes in a unit a person reads at a glance.

    >>> format_bytes(1536), format_bytes(3 * 2**30)
    ('1.5 KiB', '3.0 GiB')
    """
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.0f} B" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"
