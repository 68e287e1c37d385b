"""A JSON array of diagnostics (1-based lines and columns)."""

from __future__ import annotations

import json
from typing import List

from seedlint.diagnostics import Diagnostic


def as_dict(d: Diagnostic, fixable: bool) -> dict:
    return {
        "path": d.path,
        "line": d.line,
        "column": d.column,
        "end_line": d.span.end_line,
        "end_column": d.span.end_col + 1,
        "code": d.code,
        "name": d.name,
        "message": d.message,
        "severity": d.severity,
        "fixable": fixable,
    }


def render(diagnostics: List[Diagnostic], is_fixable=lambda d: d.fix is not None, **_) -> str:
    return json.dumps([as_dict(d, is_fixable(d)) for d in diagnostics], indent=2) + "\n"
