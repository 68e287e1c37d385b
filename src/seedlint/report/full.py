"""Findings as ruff's ``full`` output shows them: the place, the code and a headline, a
frame of the source with the span underlined, the places the finding rests on as notes,
the fix as help, and the whole explanation."""

from __future__ import annotations

import json
import os
import textwrap
from typing import Callable, Dict, List, Optional

from seedlint.diagnostics import Diagnostic, Evidence
from seedlint.fixes import FIX_TITLES
from seedlint.notebooks import SUFFIX
from seedlint.report.headline import headline
from seedlint.report.text import BOLD, CYAN, RED, RESET, YELLOW

CONTEXT = 2
"""Lines shown above and below the finding's line."""
WIDTH = 100


def render(diagnostics: List[Diagnostic], color: bool = False, is_fixable: Optional[Callable] = None, **_) -> str:
    sources = _Sources()
    blocks = [_block(d, sources, color, is_fixable) for d in diagnostics]
    return "".join(blocks)


def _block(d: Diagnostic, sources: "_Sources", color: bool, is_fixable) -> str:
    paint = _Paint(color)
    fixable = is_fixable(d) if is_fixable is not None else d.fix is not None
    code = paint(d.code, BOLD + (YELLOW if d.severity == "warning" else RED))
    mark = "[*] " if fixable else ""
    kind = "warning: " if d.severity == "warning" else ""
    lines = [f"{paint(d.place, BOLD)}: {code} {mark}{kind}{headline(d.message)}"]
    lines.extend(_frame(d, sources.lines(d.path, d.cell), paint))
    gutter = " " * _gutter_width(d)
    for place in d.evidence:
        lines.append(f"{gutter} {paint('=', CYAN)} note: {_evidence_place(place)}: {place.note}")
    if fixable and d.fix is not None and d.fix.kind in FIX_TITLES:
        lines.append(f"{gutter} {paint('=', CYAN)} help: {FIX_TITLES[d.fix.kind]}")
    lines.extend(textwrap.wrap(d.message, WIDTH, initial_indent=f"{gutter} {paint('=', CYAN)} why: ",
                               subsequent_indent=f"{gutter}         "))
    return "\n".join(lines) + "\n\n"


def _frame(d: Diagnostic, source: Optional[List[str]], paint: "_Paint") -> List[str]:
    width = _gutter_width(d)
    bar = paint("|", CYAN)
    if not source or not 1 <= d.line <= len(source):
        return []
    first = max(1, d.line - CONTEXT)
    last = min(len(source), d.line + CONTEXT)
    out = [f"{' ' * width} {bar}"]
    for number in range(first, last + 1):
        text = source[number - 1].rstrip("\r\n").expandtabs(4)
        out.append(f"{paint(str(number).rjust(width), CYAN)} {bar} {text}".rstrip())
        if number == d.line:
            line_text = source[number - 1].rstrip("\r\n")
            start = len(line_text[:d.span.col].expandtabs(4))
            end = d.span.end_col if d.span.end_line == d.line else len(line_text)
            end = len(line_text[:end].expandtabs(4))
            carets = "^" * max(1, end - start)
            out.append(f"{' ' * width} {bar} {' ' * start}{paint(carets + ' ' + d.code, RED)}")
    out.append(f"{' ' * width} {bar}")
    return out


def _gutter_width(d: Diagnostic) -> int:
    return len(str(d.line + CONTEXT))


def _evidence_place(place: Evidence) -> str:
    path = place.path
    try:
        relative = os.path.relpath(path)
        if not relative.startswith(".."):
            path = relative
    except ValueError:  # another drive on Windows
        pass
    cell = f"cell {place.cell}:" if place.cell is not None else ""
    return f"{path}:{cell}{place.span.line}"


class _Sources:
    """Source lines by path (a notebook's by cell), read once."""

    def __init__(self) -> None:
        self._texts: Dict[str, Optional[str]] = {}

    def lines(self, path: str, cell: Optional[int]) -> Optional[List[str]]:
        if path not in self._texts:
            try:
                with open(path, encoding="utf-8", errors="replace", newline="") as handle:
                    self._texts[path] = handle.read()
            except OSError:
                self._texts[path] = None
        text = self._texts[path]
        if text is None:
            return None
        if path.endswith(SUFFIX) and cell is not None:
            return _cell_lines(text, cell)
        return text.splitlines()


def _cell_lines(text: str, cell: int) -> Optional[List[str]]:
    try:
        cells = json.loads(text).get("cells", [])
        source = cells[cell - 1].get("source", "")
    except (ValueError, AttributeError, IndexError, TypeError):
        return None
    return ("".join(source) if isinstance(source, list) else str(source)).splitlines()


class _Paint:
    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, text: str, style: str) -> str:
        return f"{style}{text}{RESET}" if self.color else text
