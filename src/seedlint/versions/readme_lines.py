"""The lines of a README or INSTALL file as its readers need them: each with the Markdown
headings it sits under and whether it is inside a fenced code block. Heading lines (``## x``,
or text underlined with ``===``/``---``) and fence lines are not lines of text themselves."""

from __future__ import annotations

import re
from typing import Iterator, List, Tuple

_HEADING = re.compile(r"^#{1,6}\s+(.*)")
_UNDERLINE = re.compile(r"^(=+|-+|~+|\^+)$")
HEADINGS_KEPT = 3
"""A line counts as under the last three headings above it (``Installation`` > ``Colab`` >
``Step 1``), whatever their levels: READMEs rarely keep their levels consistent."""


def readme_lines(text: str) -> Iterator[Tuple[int, str, Tuple[str, ...], bool]]:
    """(line number, line, headings above it, inside a fenced block) for each text line."""
    headings: List[str] = []
    fenced = False
    lines = text.splitlines()
    underline_at = -1
    for number, line in enumerate(lines, 1):
        raw = line.strip()
        if raw.startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced:
            yield number, line, tuple(headings), True
            continue
        if number == underline_at:
            continue
        match = _HEADING.match(raw)
        if match:
            headings = (headings + [match.group(1)])[-HEADINGS_KEPT:]
            continue
        if raw and number < len(lines) and _UNDERLINE.match(lines[number].strip()):
            headings = (headings + [raw])[-HEADINGS_KEPT:]
            underline_at = number + 1
            continue
        yield number, line, tuple(headings), False
