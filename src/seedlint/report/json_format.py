"""The JSON report: a versioned object with the diagnostics (1-based lines and columns),
the inputs that could not be checked, and what was checked. The schema is documented in
docs/json-output.md; ``version`` changes when a field changes meaning or goes away."""

from __future__ import annotations

import json
import os
from typing import List, Optional

from seedlint import __version__
from seedlint.diagnostics import Diagnostic
from seedlint.report.headline import headline

SCHEMA_VERSION = 3
"""3: each diagnostic has ``headline``; 2: ``related`` (the places its message names) and ``cell``."""


def shown_path(path: str) -> str:
    """An absolute path as reports show paths: relative to the working directory when it is
    below it, else as it is."""
    relative = os.path.relpath(path)
    return path if relative.startswith(os.pardir) else relative


def related(d: Diagnostic) -> List[dict]:
    return [
        {
            "path": shown_path(e.path), "cell": e.cell, "line": e.span.line, "column": e.span.col + 1,
            "end_line": e.span.end_line, "end_column": e.span.end_col + 1, "note": e.note,
        }
        for e in d.evidence
    ]


def as_dict(d: Diagnostic, fixable: bool, fix: Optional[dict] = None) -> dict:
    return {
        "path": d.path,
        "cell": d.cell,
        "line": d.line,
        "column": d.column,
        "end_line": d.span.end_line,
        "end_column": d.span.end_col + 1,
        "code": d.code,
        "name": d.name,
        "message": d.message,
        "headline": headline(d.message),
        "severity": d.severity,
        "fixable": fixable,
        "fix": fix,
        "related": related(d),
    }


def render(diagnostics: List[Diagnostic], is_fixable=lambda d: d.fix is not None, outcome=None,
           fix_edits=lambda d: None, **_) -> str:
    """``fix_edits(d)`` gives the edits d's fix alone makes (see ``api.fix_edits``), or None."""
    items = [as_dict(d, is_fixable(d), fix_edits(d)) for d in diagnostics]
    document = {
        "version": SCHEMA_VERSION,
        "seedlint": __version__,
        "diagnostics": items,
        "errors": [{"path": e.path, "message": e.reason} for e in (outcome.errors if outcome is not None else [])],
        "files_checked": outcome.files_checked if outcome is not None else None,
    }
    return json.dumps(document, indent=2) + "\n"
