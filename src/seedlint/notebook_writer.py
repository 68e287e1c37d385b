"""Writing fixed code back into a notebook, as ruff does: each code cell gets its own lines of
the fixed module, IPython magics and shell escapes come back as they were, and every other
byte of the notebook's JSON (outputs, metadata, markdown, the layout nbformat wrote) stays.

The fixed module is matched line by line against the module the cells were joined into. An
edit that cannot be placed inside one cell (it would rewrite the line between two cells, or a
magic line) is not written back: the finding stays, unfixed.
"""

from __future__ import annotations

import difflib
import json
from typing import Dict, List, Optional, Tuple

from seedlint.notebooks import Notebook, read_notebook


def written_back(raw: str, notebook: Notebook, fixed: str) -> Optional[str]:
    """The notebook's JSON text with the fixed module's lines in its code cells, or None
    when an edit does not fall inside one cell."""
    old = notebook.text.split("\n")
    new = fixed.split("\n")
    owners = _owners(notebook, len(old))
    cells: Dict[int, List[Tuple[str, Optional[int]]]] = {index: [] for index in range(len(notebook.starts))}
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for offset in range(i2 - i1):
                owner = owners[i1 + offset]
                if owner is not None:
                    cells[owner[0]].append((new[j1 + offset], owner[1]))
            continue
        touched = {owners[i] for i in range(i1, i2)}
        if None in touched:
            return None  # rewrites a line between cells
        cell = _cell_of_edit(owners, i1, i2)
        if cell is None:
            return None
        cells[cell].extend((line, None) for line in new[j1:j2])
    document = json.loads(raw)
    sources = _source_spans(raw)
    replacements = []
    for index, lines in cells.items():
        number = notebook.cells[index]
        cell = document["cells"][number - 1]
        original, trailing = _source_lines(cell.get("source", ""))
        rebuilt = [original[position] if position is not None and position < len(original) else line for line, position in lines]
        if rebuilt == original:
            continue
        if (original and original[0].lstrip().startswith("%%")) or any(position is None and _is_magic(line) for line, position in lines):
            return None  # an edit inside a cell magic, or a new line that reads as a magic
        start, end = sources[number - 1]
        replacements.append((start, end, _formatted(raw[start:end], rebuilt, trailing)))
    for start, end, text in sorted(replacements, reverse=True):
        raw = raw[:start] + text + raw[end:]
    check = read_notebook(raw)
    return raw if check is not None else None


def _owners(notebook: Notebook, count: int) -> List[Optional[Tuple[int, int]]]:
    """For each line of the joined module: (code cell index, line in the cell), or None for
    the blank line after each cell."""
    owners: List[Optional[Tuple[int, int]]] = [None] * count
    for index, start in enumerate(notebook.starts):
        end = notebook.starts[index + 1] - 1 if index + 1 < len(notebook.starts) else count - 1
        for line in range(start - 1, end - 1):
            owners[line] = (index, line - (start - 1))
    return owners


def _cell_of_edit(owners: List[Optional[Tuple[int, int]]], i1: int, i2: int) -> Optional[int]:
    """The cell an edit of the joined lines ``[i1, i2)`` belongs to: the cell of the lines it
    replaces, or for an insertion the cell of the line before it (else of the line after)."""
    if i2 > i1:
        cells = {owners[i][0] for i in range(i1, i2)}
        return cells.pop() if len(cells) == 1 else None
    before = owners[i1 - 1] if i1 > 0 else None
    if before is not None:
        return before[0]
    after = owners[i1] if i1 < len(owners) else None
    return after[0] if after is not None else None


def _source_lines(source) -> Tuple[List[str], bool]:
    """A cell's lines, as the joined module counts them, and whether its text ends with a newline."""
    text = "".join(source) if isinstance(source, list) else str(source)
    return text.splitlines(), text.endswith("\n")


def _is_magic(line: str) -> bool:
    stripped = line.lstrip()
    return stripped.startswith(("%", "!"))


def _formatted(original: str, lines: List[str], trailing: bool) -> str:
    """The new ``source`` value, laid out as the original one is (a list of lines, one per
    JSON line with its indentation, or a single string)."""
    text = "\n".join(lines) + ("\n" if trailing and lines else "")
    if not original.lstrip().startswith("["):
        return json.dumps(text, ensure_ascii=False)
    parts = text.splitlines(keepends=True)
    if not parts:
        return "[]"
    if "\n" not in original:
        return "[" + ", ".join(json.dumps(p, ensure_ascii=False) for p in parts) + "]"
    inner = original[original.index("[") + 1:]
    indent = inner[inner.index("\n") + 1:len(inner) - len(inner[inner.index("\n") + 1:].lstrip(" \t"))] if "\n" in inner else ""
    closing = original[original.rindex("\n") + 1:original.rindex("]")]
    return "[\n" + ",\n".join(indent + json.dumps(p, ensure_ascii=False) for p in parts) + "\n" + closing + "]"


def _source_spans(raw: str) -> List[Tuple[int, int]]:
    """Where each cell's ``source`` value lies in the notebook's JSON text, in cell order."""
    decoder = json.JSONDecoder()
    spans: List[Tuple[int, int]] = []
    position = _skip(raw, 0)
    for key, start, end in _members(raw, position, decoder):
        if key != "cells":
            continue
        position = _skip(raw, start + 1)
        while raw[position] != "]":
            found = (0, 0)
            for cell_key, value_start, value_end in _members(raw, position, decoder):
                if cell_key == "source":
                    found = (value_start, value_end)
                position = value_end
            spans.append(found)
            position = _skip(raw, _skip(raw, position) + 1)  # past the object's "}"
            if raw[position] == ",":
                position = _skip(raw, position + 1)
    return spans


def _members(raw: str, position: int, decoder: json.JSONDecoder):
    """(key, value start, value end) of each member of the object starting at ``position``."""
    position = _skip(raw, position + 1)  # past "{"
    while raw[position] != "}":
        key, position = json.decoder.scanstring(raw, position + 1)
        position = _skip(raw, _skip(raw, position) + 1)  # past ":"
        _, end = decoder.raw_decode(raw, position)
        yield key, position, end
        position = _skip(raw, end)
        if raw[position] == ",":
            position = _skip(raw, position + 1)


def _skip(raw: str, position: int) -> int:
    while position < len(raw) and raw[position] in " \t\r\n":
        position += 1
    return position
