"""Jupyter notebooks as ruff checks them: the code cells joined into one module, with a map
from the module's lines back to ``cell N`` and the line in that cell.

IPython syntax is not Python: a line magic or shell escape (``%matplotlib inline``,
``!pip install ...``, ``x = !ls``, with its backslash-continued lines) and a help query
(``obj?``) become ``pass`` at their indentation, and a cell that starts with a cell magic (``%%time``, ``%%bash``) is left out
entirely, so line numbers still match the notebook. Cells are numbered from 1 in the order
the notebook lists them, markdown and raw cells included, as Jupyter shows them.
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass, replace
from typing import List, Optional, Tuple

from seedlint.diagnostics import Diagnostic
from seedlint.span import Span

SUFFIX = ".ipynb"
_MAGIC = re.compile(r"^(\s*)(?:[%!]|[\w.]+\s*=\s*!)")
_HELP = re.compile(r"^(\s*)[\w.]+\?{1,2}\s*$")


@dataclass(frozen=True)
class Notebook:
    text: str
    """The code cells joined, one module ("" for a notebook of another language)."""
    starts: Tuple[int, ...]
    """The module line each code cell starts at (1-based), in order."""
    cells: Tuple[int, ...]
    """The notebook's number for each of those cells (1-based, all cells counted)."""
    python: bool = True
    """False for a notebook whose kernel runs another language: not checked."""

    def place(self, line: int) -> Tuple[int, int]:
        """(cell number, line in the cell) of a module line."""
        index = max(0, bisect.bisect_right(self.starts, line) - 1)
        return self.cells[index], line - self.starts[index] + 1

    def cell_span(self, span: Span) -> Tuple[int, Span]:
        """The cell a module span starts in, and the span in that cell's lines."""
        cell, line = self.place(span.line)
        end_cell, end_line = self.place(span.end_line)
        if end_cell != cell:
            end_line = line
        return cell, Span(line, span.col, end_line, span.end_col)


def in_notebooks(diagnostic: Diagnostic, anchor: Optional[Notebook], notebooks) -> Diagnostic:
    """The finding as notebooks show it: an anchor or related place in a notebook gets its
    cell and lines within that cell. Its fix still edits the joined module (``--fix`` writes
    the result back into the cells: ``notebook_writer``)."""
    evidence = tuple(
        replace(e, cell=cell, span=span) if e.path in notebooks else e
        for e in diagnostic.evidence
        for cell, span in [notebooks[e.path].cell_span(e.span) if e.path in notebooks else (None, e.span)]
    )
    if anchor is None:
        return replace(diagnostic, evidence=evidence)
    cell, span = anchor.cell_span(diagnostic.span)
    return replace(diagnostic, span=span, cell=cell, evidence=evidence)


def cell_where(cells: Tuple[Tuple[int, int], ...], line: int) -> str:
    """``cell 3:9`` for a module line of a notebook."""
    starts = [start for start, _ in cells]
    index = max(0, bisect.bisect_right(starts, line) - 1)
    return f"cell {cells[index][1]}:{line - starts[index] + 1}"


def read_notebook(text: str) -> Optional[Notebook]:
    """The notebook's Python code; None when the text is not a notebook's JSON."""
    try:
        document = json.loads(text)
    except ValueError:
        return None
    if not isinstance(document, dict) or not isinstance(document.get("cells"), list):
        return None
    metadata = document.get("metadata") if isinstance(document.get("metadata"), dict) else {}
    language = (metadata.get("language_info") or {}).get("name") or (metadata.get("kernelspec") or {}).get("language") or "python"
    if str(language).lower() != "python":
        return Notebook("", (), (), python=False)
    lines: List[str] = []
    starts: List[int] = []
    cells: List[int] = []
    for number, cell in enumerate(document["cells"], 1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        starts.append(len(lines) + 1)
        cells.append(number)
        lines.extend(_python_lines(source.splitlines()))
        lines.append("")  # a blank line between cells keeps each cell's last statement closed
    return Notebook("\n".join(lines) + "\n", tuple(starts), tuple(cells))


def _python_lines(source: List[str]) -> List[str]:
    if source and source[0].lstrip().startswith("%%"):
        return [""] * len(source)  # a cell magic: the cell is not Python
    kept = []
    continued = False  # inside a magic or shell command continued with a backslash
    for line in source:
        if continued:
            kept.append("")
            continued = line.rstrip().endswith("\\")
            continue
        match = _MAGIC.match(line) or _HELP.match(line)
        kept.append(f"{match.group(1)}pass" if match else line)
        continued = bool(match) and line.rstrip().endswith("\\")
    return kept
