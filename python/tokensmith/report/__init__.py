"""``tokensmith.report``: comparison reports as JSON, self-contained HTML and terminal tables.

>>> from tokensmith.report import ComparisonReport, render_html
>>> r = ComparisonReport(results={"o200k_base": {"a.txt": {"all": {"bytes_per_token": 4.0}}}})
>>> render_html(r).startswith("<!DOCTYPE html>")
True

Layout: ``schema`` (the data model and its JSON form), ``collect`` (runs the evaluations),
``segmentation`` (token pieces), ``plots`` (matplotlib, Agg), ``html_page``, ``json_file``,
``terminal`` (rich tables), ``summary`` (corpus-level numbers), ``atomic`` (safe writes).
"""

from tokensmith._atomic import write_text_atomic
from tokensmith.report.collect import (
    Corpus,
    build_report,
    parallel_corpus,
    read_parallel_corpus,
    read_text_corpus,
    work_units,
)
from tokensmith.report.html_page import render_html, write_html
from tokensmith.report.json_file import report_json, write_json
from tokensmith.report.schema import (
    ALL_LANGUAGES,
    SCHEMA_VERSION,
    ComparisonReport,
    Piece,
    Segmentation,
    SweepPoint,
    to_json_dict,
    validate_report_json,
)
from tokensmith.report.segmentation import segment
from tokensmith.report.terminal import tables

__all__ = [
    "ALL_LANGUAGES",
    "SCHEMA_VERSION",
    "ComparisonReport",
    "Corpus",
    "Piece",
    "Segmentation",
    "SweepPoint",
    "build_report",
    "parallel_corpus",
    "read_parallel_corpus",
    "read_text_corpus",
    "render_html",
    "report_json",
    "segment",
    "tables",
    "to_json_dict",
    "validate_report_json",
    "work_units",
    "write_html",
    "write_json",
    "write_text_atomic",
]
