"""Python 3.6 code that uses ``async`` and ``await`` as names (``x.cuda(async=True)``).

Until Python 3.7 these were ordinary identifiers, and training scripts of that era pass
``async=True`` to ``Tensor.cuda`` (torch 0.3 and 0.4 named the argument so). libcst parses
the current grammar and rejects such a module, which would leave the script unchecked. Each
such use is read as a stand-in of the same length that the module does not contain, so
every line and column stays where it is; a fix made on the stand-in text is turned back
before it is written.
"""

from __future__ import annotations

import io
import tokenize
from dataclasses import dataclass
from typing import TYPE_CHECKING, List, Optional, Tuple

if TYPE_CHECKING:
    import libcst as cst

STAND_INS = {"async": ("ASYNC", "Async", "aSYNC", "asYNC"), "await": ("AWAIT", "Await", "aWAIT", "awAIT")}
"""Same-length identifiers, one of which a module does not contain."""


@dataclass(frozen=True)
class LegacyText:
    """A module's text with its ``async``/``await`` names replaced by stand-ins."""

    text: str
    replaced: Tuple[Tuple[str, str], ...]
    """(stand-in, name) pairs."""

    def restore(self, text: str) -> str:
        """A text derived from ``self.text`` (a fixed version of it) with the names back."""
        for stand_in, name in self.replaced:
            text = text.replace(stand_in, name)
        return text


def substitute(text: str) -> Optional[LegacyText]:
    """The text with every use of ``async``/``await`` as a name replaced, or None when the
    text has none (or cannot be tokenized)."""
    uses = _name_uses(text)
    if not uses:
        return None
    chosen = {}
    for name in {name for name, _, _ in uses}:
        stand_in = next((candidate for candidate in STAND_INS[name] if candidate not in text), None)
        if stand_in is None:
            return None
        chosen[name] = stand_in
    lines = text.splitlines(keepends=True)
    for name, row, col in uses:
        line = lines[row - 1]
        lines[row - 1] = line[:col] + chosen[name] + line[col + len(name):]
    return LegacyText("".join(lines), tuple((stand_in, name) for name, stand_in in sorted(chosen.items())))


def parseable(text: str) -> Tuple[str, Optional[LegacyText]]:
    """The text libcst should parse: the text itself, or its stand-in form when only the
    3.6 names keep it from parsing."""
    try:
        _, legacy = parsed(text)
    except Exception:
        return text, None
    return (legacy.text, legacy) if legacy is not None else (text, None)


def parsed(text: str) -> Tuple["cst.Module", Optional[LegacyText]]:
    """The text parsed by libcst, in its stand-in form when only the 3.6 names keep it from
    parsing; raises libcst's error when neither form parses."""
    import libcst as cst

    try:
        return cst.parse_module(text), None
    except cst.ParserSyntaxError:
        legacy = substitute(text)
        if legacy is None:
            raise
        return cst.parse_module(legacy.text), legacy


def _name_uses(text: str) -> List[Tuple[str, int, int]]:
    """(name, row, column) of each ``async``/``await`` used as an identifier: a keyword
    argument or parameter (``async=True``), an attribute (``x.async``), or an argument."""
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(text).readline)
                  if t.type not in (tokenize.NL, tokenize.COMMENT)]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return []
    uses = []
    for index, token in enumerate(tokens):
        if token.type != tokenize.NAME or token.string not in STAND_INS:
            continue
        before = tokens[index - 1].string if index else ""
        after = tokens[index + 1].string if index + 1 < len(tokens) else ""
        if before == "." or after in ("=", ",", ")"):
            uses.append((token.string, token.start[0], token.start[1]))
    return uses
