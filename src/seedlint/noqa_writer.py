"""``--add-noqa``: a ``# noqa: SDLxxx`` directive on each line a finding is reported on, as
ruff does for adopting a linter on an existing codebase. Codes already on the line are kept
(``# noqa: E501`` becomes ``# noqa: E501, SDL001``), a bare ``# noqa`` is left alone, and a
second run adds nothing. A line that ends inside a multi-line string or with a ``\\``
continuation cannot carry a comment: it is left as it is and said.
"""

from __future__ import annotations

import io
import re
import tokenize
from typing import Dict, List, Set, Tuple

_NOQA = re.compile(r"#\s*noqa(?::\s?(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)


def with_noqa(text: str, codes_by_line: Dict[int, Set[str]]) -> Tuple[str, int, List[int]]:
    """``text`` with the directives added, how many lines changed, and the lines that could
    not take a comment."""
    lines = text.splitlines(keepends=True)
    blocked = _lines_without_room(text)
    added = 0
    skipped: List[int] = []
    for number, codes in sorted(codes_by_line.items()):
        if number < 1 or number > len(lines):
            continue
        line = lines[number - 1]
        body = line.rstrip("\r\n")
        ending = line[len(body):]
        if number in blocked or body.rstrip().endswith("\\"):
            skipped.append(number)
            continue
        new_body = _directive(body, codes)
        if new_body != body:
            lines[number - 1] = new_body + ending
            added += 1
    return "".join(lines), added, skipped


def _directive(body: str, codes: Set[str]) -> str:
    match = _NOQA.search(body)
    if match is None:
        return f"{body.rstrip()}  # noqa: {', '.join(sorted(codes))}"
    if match.group("codes") is None:
        return body  # a bare noqa already silences every code on the line
    existing = [c.upper() for c in re.split(r"[,\s]+", match.group("codes")) if c]
    missing = sorted(set(codes) - set(existing))
    if not missing:
        return body
    return body[:match.start()] + f"# noqa: {', '.join(existing + missing)}" + body[match.end():]


def _lines_without_room(text: str) -> Set[int]:
    """Lines whose end lies inside a token that spans lines (a triple-quoted string)."""
    blocked: Set[int] = set()
    starts: List[int] = []
    fstring_start = getattr(tokenize, "FSTRING_START", None)
    fstring_end = getattr(tokenize, "FSTRING_END", None)
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.STRING:
                blocked.update(range(token.start[0], token.end[0]))
            elif token.type == fstring_start:
                starts.append(token.start[0])
            elif token.type == fstring_end and starts:
                blocked.update(range(starts.pop(), token.end[0]))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass
    return blocked
