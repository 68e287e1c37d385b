"""The headline of a finding: its message without the parenthesised evidence and without
what follows the first explanation (``: on torch < 1.9 ...``), at most 120 characters. The
evidence the message names is shown beside it as related locations."""

from __future__ import annotations

import re

LIMIT = 120
_CUTS = (": ", "; ", ", so ", ", and ", " — ")


def headline(message: str) -> str:
    text = _without_parentheses(message)
    for cut in _CUTS:
        at = _outside_code(text, cut)
        if at > 0:
            text = text[:at]
    text = text.strip().rstrip(",.")
    if len(text) <= LIMIT:
        return text
    shortened = text[:LIMIT - 2]
    if shortened.count("`") % 2:
        return shortened + "…`"  # cut inside a code span: keep what it shows, and close it
    return shortened.rsplit(" ", 1)[0].rstrip(",;:") + "…"


def _without_parentheses(message: str) -> str:
    """The message less every parenthesised group outside backticks."""
    kept = []
    depth = 0
    in_code = False
    for char in message:
        if char == "`" and depth == 0:
            in_code = not in_code
        if not in_code and char == "(":
            depth += 1
            continue
        if not in_code and char == ")" and depth:
            depth -= 1
            continue
        if depth == 0:
            kept.append(char)
    return re.sub(r"\s+([,.;:])", r"\1", re.sub(r"\s{2,}", " ", "".join(kept)))


def _outside_code(text: str, needle: str) -> int:
    """The first index of ``needle`` outside backticks, or -1."""
    in_code = False
    for index, char in enumerate(text):
        if char == "`":
            in_code = not in_code
        elif not in_code and text.startswith(needle, index):
            return index
    return -1
