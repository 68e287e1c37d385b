"""SARIF 2.1.0 for code-scanning tools: rules with help text, results with locations, and
the edits a fix would make (as replacements of the original file's characters)."""

from __future__ import annotations

import difflib
import json
import os
from pathlib import Path
from typing import Callable, List, Optional
from urllib.parse import quote

from seedlint import __version__
from seedlint.diagnostics import Diagnostic
from seedlint.report.json_format import shown_path
from seedlint.report.headline import headline

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


def _uri(path: str) -> str:
    if os.path.isabs(path):
        return Path(path).as_uri()
    return quote(path.replace(os.sep, "/"))


def _first_paragraph(documentation: str, fallback: str) -> str:
    """The text under "## What it does", first paragraph, on one line."""
    marker = "## What it does"
    if marker not in documentation:
        return fallback
    body = documentation.split(marker, 1)[1].strip()
    paragraph = body.split("\n\n", 1)[0].split("\n## ", 1)[0]
    return " ".join(paragraph.split()) or fallback


def _rule(rule, settings=None) -> dict:
    documentation = rule.documentation()
    level = settings.severity_of(rule.code, rule.severity) if settings is not None else rule.severity
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": _first_paragraph(documentation, rule.summary)},
        "help": {"text": documentation, "markdown": documentation},
        "defaultConfiguration": {"level": level},
        "properties": {"fix": rule.fix_safety or "none", "tags": ["pytorch", "data-loading"]},
    }


def replacements(original: str, fixed: str) -> List[dict]:
    """The edits turning ``original`` into ``fixed``, as whole-line replacements located by
    character offsets into ``original``."""
    before = original.splitlines(keepends=True)
    after = fixed.splitlines(keepends=True)
    starts = [0]
    for line in before:
        starts.append(starts[-1] + len(line))
    found = []
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        replacement = {"deletedRegion": {"charOffset": starts[i1], "charLength": starts[i2] - starts[i1]}}
        if j2 > j1:
            replacement["insertedContent"] = {"text": "".join(after[j1:j2])}
        found.append(replacement)
    return found


def _fix(d: Diagnostic, fixed_text: Callable[[Diagnostic], Optional[tuple]]) -> Optional[dict]:
    texts = fixed_text(d)
    if texts is None:
        return None
    path, original, fixed = texts
    edits = replacements(original, fixed)
    if not edits:
        return None
    return {
        "description": {"text": f"Apply seedlint's fix for {d.code}"},
        "artifactChanges": [{"artifactLocation": {"uri": _uri(path)}, "replacements": edits}],
    }


def _evidence_location(e) -> dict:
    return {
        "artifactLocation": {"uri": _uri(shown_path(e.path))},
        "region": {
            "startLine": e.span.line,
            "startColumn": e.span.col + 1,
            "endLine": e.span.end_line,
            "endColumn": e.span.end_col + 1,
        },
    }


def _code_flow(d: Diagnostic, anchor: dict) -> dict:
    """The chain a code-scanning UI steps through: the finding's place, then each place its
    message rests on, in the message's order."""
    steps = [{"location": {"physicalLocation": anchor, "message": {"text": headline(d.message)}}}]
    steps += [{"location": {"physicalLocation": _evidence_location(e), "message": {"text": e.note}}} for e in d.evidence]
    return {"message": {"text": headline(d.message)}, "threadFlows": [{"locations": steps}]}


def render(diagnostics: List[Diagnostic], rules=(), fixed_text=lambda d: None, settings=None, outcome=None, **_) -> str:
    """``fixed_text(d)`` gives (path, original text, text after d's fix alone), or None."""
    rule_list = list(rules)
    positions = {rule.code: i for i, rule in enumerate(rule_list)}
    driver = {
        "name": "seedlint",
        "version": __version__,
        "semanticVersion": __version__,
        "rules": [_rule(rule, settings) for rule in rule_list],
    }
    results = []
    for d in diagnostics:
        result = {
            "ruleId": d.code,
            "level": d.severity,
            "message": {"text": (f"(cell {d.cell}) " if d.cell is not None else "") + d.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(d.path)},
                        "region": {
                            "startLine": d.line,
                            "startColumn": d.column,
                            "endLine": d.span.end_line,
                            "endColumn": d.span.end_col + 1,
                        },
                    }
                }
            ],
        }
        if d.cell is not None:
            result["properties"] = {"cell": d.cell}
        if d.evidence:
            result["relatedLocations"] = [
                {"id": number, "physicalLocation": _evidence_location(e), "message": {"text": e.note}}
                for number, e in enumerate(d.evidence, 1)
            ]
            result["codeFlows"] = [_code_flow(d, result["locations"][0]["physicalLocation"])]
        if d.code in positions:
            result["ruleIndex"] = positions[d.code]
        fix = _fix(d, fixed_text)
        if fix is not None:
            result["fixes"] = [fix]
        results.append(result)
    errors = outcome.errors if outcome is not None else []
    invocation = {
        "executionSuccessful": not errors,
        "toolExecutionNotifications": [
            {
                "level": "error",
                "message": {"text": error.reason},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": _uri(error.path)}}}],
            }
            for error in errors
        ],
    }
    run = {"tool": {"driver": driver}, "invocations": [invocation], "columnKind": "unicodeCodePoints", "results": results}
    document = {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(document, indent=2) + "\n"
