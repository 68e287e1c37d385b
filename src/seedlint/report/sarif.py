"""SARIF 2.1.0 for code-scanning tools: rules with help text, results with locations."""

from __future__ import annotations

import json
import os
from typing import List

from seedlint import __version__
from seedlint.diagnostics import Diagnostic

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _uri(path: str) -> str:
    return path.replace(os.sep, "/")


def render(diagnostics: List[Diagnostic], rules=(), **_) -> str:
    rule_list = list(rules)
    positions = {rule.code: i for i, rule in enumerate(rule_list)}
    driver = {
        "name": "seedlint",
        "version": __version__,
        "rules": [
            {
                "id": rule.code,
                "name": rule.name,
                "shortDescription": {"text": rule.summary},
                "fullDescription": {"text": rule.summary},
                "help": {"text": rule.documentation(), "markdown": rule.documentation()},
                "properties": {"fix": rule.fix_safety or "none"},
            }
            for rule in rule_list
        ],
    }
    results = []
    for d in diagnostics:
        result = {
            "ruleId": d.code,
            "level": "error",
            "message": {"text": d.message},
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
        if d.code in positions:
            result["ruleIndex"] = positions[d.code]
        results.append(result)
    document = {"$schema": SCHEMA, "version": "2.1.0", "runs": [{"tool": {"driver": driver}, "results": results}]}
    return json.dumps(document, indent=2) + "\n"
