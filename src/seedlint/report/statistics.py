"""``--statistics``: how many diagnostics each rule produced, most frequent first (as ruff
prints them: count, code, ``[*]`` when ``--fix`` can fix them all, ``[~]`` when it can fix
some, ``[ ]`` when none, rule name). JSON gives ``fixable_count``, so the rows add up to the
summary's fixable count."""

from __future__ import annotations

import json
from collections import Counter
from typing import List

from seedlint.diagnostics import Diagnostic


def counts(diagnostics: List[Diagnostic], is_fixable=lambda d: d.fix is not None) -> List[dict]:
    by_code = Counter(d.code for d in diagnostics)
    names = {d.code: d.name for d in diagnostics}
    fixable = Counter(d.code for d in diagnostics if is_fixable(d))
    ordered = sorted(by_code, key=lambda code: (-by_code[code], code))
    return [
        {
            "code": code, "name": names[code], "count": by_code[code],
            "fixable": fixable[code] == by_code[code], "fixable_count": fixable[code],
        }
        for code in ordered
    ]


def _mark(row: dict) -> str:
    if row["fixable_count"] == row["count"]:
        return "[*]"
    return "[~]" if row["fixable_count"] else "[ ]"


def render_text(diagnostics: List[Diagnostic], is_fixable=lambda d: d.fix is not None, **_) -> str:
    rows = counts(diagnostics, is_fixable)
    width = max((len(str(row["count"])) for row in rows), default=1)
    return "".join(
        f"{row['count']:>{width}}\t{row['code']}\t{_mark(row)} {row['name']}\n" for row in rows
    )


def render_json(diagnostics: List[Diagnostic], is_fixable=lambda d: d.fix is not None, **_) -> str:
    return json.dumps(counts(diagnostics, is_fixable), indent=2) + "\n"


FORMATS = {"text": render_text, "json": render_json}
