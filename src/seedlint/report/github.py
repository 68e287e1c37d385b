"""GitHub Actions workflow commands, one annotation per diagnostic."""

from __future__ import annotations

from typing import List

from seedlint.diagnostics import Diagnostic


def _escape(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape(text).replace(":", "%3A").replace(",", "%2C")


def render(diagnostics: List[Diagnostic], **_) -> str:
    lines = [
        f"::{d.severity} file={_escape_property(d.path)},line={d.line},col={d.column},"
        f"endLine={d.span.end_line},endColumn={d.span.end_col + 1},"
        f"title={_escape_property(d.code + ' ' + d.name)}::{_escape(d.code + ' ' + _in_cell(d) + d.message)}"
        for d in diagnostics
    ]
    return "\n".join(lines) + ("\n" if lines else "")


def _in_cell(d: Diagnostic) -> str:
    """A notebook's lines count within a cell: the annotation says which."""
    return f"(cell {d.cell}) " if d.cell is not None else ""
