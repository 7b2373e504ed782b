"""Writes a :class:`~tokensmith.report.schema.ComparisonReport` as JSON (schema in docs/eval.md)."""

from __future__ import annotations

import json
from os import PathLike

from tokensmith._atomic import write_text_atomic
from tokensmith.report.schema import ComparisonReport, to_json_dict


def report_json(report: ComparisonReport) -> str:
    """The report as a JSON string (strict JSON: NaN is ``null``)."""
    return json.dumps(to_json_dict(report), indent=2, ensure_ascii=False, allow_nan=False)


def write_json(report: ComparisonReport, path: str | PathLike[str]) -> None:
    """Writes the report's JSON to ``path`` atomically."""
    write_text_atomic(path, report_json(report) + "\n")
