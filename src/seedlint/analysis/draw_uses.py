"""Whether the value a draw returns is used on the path the analysis follows.

``idx = np.random.choice(n)`` runs for every item, but when ``idx`` is read only under
``if self.mode == "train":`` a validation dataset (``mode="val"``) throws the value away:
the duplicated draw changes nothing its loader returns. A draw is *discarded* in a frame
when it is the whole value of an assignment to a local name and every read of that name in
the function sits under an ``if`` that cannot hold in the frame (or there is none).

The reads come from the function's facts (assignment values, call arguments, returns,
stores, loop iterables, ``if`` tests). A read the facts do not show (inside an f-string, a
nested function, a slice) would make the value look unused, so the count of reads found
must equal the count of the name's spellings in the function's source text, less its
assignments; when it does not, the value counts as used.
"""

from __future__ import annotations

import os
import re
from typing import Dict, List, Optional, Sequence, Tuple

from seedlint.analysis.flow.shared import names_read
from seedlint.analysis.objects import Frame
from seedlint.facts.model import Call, Function, Guard, Name

_lines_by_path: Dict[str, Tuple[int, int, Optional[List[str]]]] = {}
"""Per file: its modification time and size when read, and its lines (one entry per file)."""


def discarded(flow, call: Call, frame: Frame) -> bool:
    """The draw ``call`` is assigned to a local name that no read in ``frame`` uses."""
    function = frame.function.function
    if function.is_lambda or frame.module.cells:
        return False
    targets = [a for a in function.assigns if a.value is call]
    if len(targets) != 1 or "." in targets[0].target:
        return False
    name = targets[0].target
    reads = _reads(function, name, call)
    assigned = sum(1 for a in function.assigns if a.target == name) + sum(1 for loop in function.loops if loop.target == name)
    if _spellings(frame.module.path, function, name) != len(reads) + assigned:
        return False
    return all(not flow.guards_may_hold(guards, frame) for guards in reads.values())


def _reads(function: Function, name: str, draw: Call) -> Dict[Tuple[int, int], Sequence[Guard]]:
    """Each read of ``name`` (by where it is) with the guards it runs under; an ``if`` test
    that reads it counts as a read under no guard."""
    found: Dict[Tuple[int, int], Sequence[Guard]] = {}

    def note(value, guards: Sequence[Guard]) -> None:
        for read in _names_in(value, name, function.qualname):
            key = (read.span.line, read.span.col)
            if key not in found or len(guards) < len(found[key]):
                found[key] = guards

    for assign in function.assigns:
        if assign.value is not draw:
            note(assign.value, assign.guards)
    for call in function.calls:
        if call is not draw:
            note((call.func, call.args, [v for _, v in call.kwargs], call.stars, call.double_stars), call.guards)
    for value, guards in zip(function.returns, function.return_guards):
        note(value, guards)
    for value in list(function.yields) + list(function.yield_froms):
        note(value, ())
    for item in function.item_assigns:
        note((item.container, item.key, item.value), item.guards)
    for loop in function.loops:
        note(loop.iterable, ())
    tests = {id(test): test for guarded in _all_guards(function) for test, _ in guarded}
    for test in tests.values():
        note(test, ())
    return found


def _all_guards(function: Function) -> List[Sequence[Guard]]:
    return (
        [a.guards for a in function.assigns] + [c.guards for c in function.calls]
        + list(function.return_guards) + [i.guards for i in function.item_assigns]
    )


def _names_in(value, name: str, scope: str) -> List[Name]:
    """The reads of the local ``name`` (or of its attributes) in ``value``."""
    return [
        node for node in names_read(value)
        if node.qualified is None and node.scope == scope and (node.dotted == name or node.dotted.startswith(name + "."))
    ]


def _spellings(path: str, function: Function, name: str) -> int:
    """How often ``name`` is spelled as a name (not after a dot) in the function's lines;
    -1 when the source cannot be read."""
    try:
        stat = os.stat(path)
    except OSError:
        return -1
    known = _lines_by_path.get(path)
    if known is None or known[:2] != (stat.st_mtime_ns, stat.st_size):
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                lines: Optional[List[str]] = handle.read().splitlines()
        except OSError:
            lines = None
        known = _lines_by_path[path] = (stat.st_mtime_ns, stat.st_size, lines)
    lines = known[2]
    if lines is None:
        return -1
    span = function.span
    text = "\n".join(lines[span.line - 1:span.end_line])
    return len(re.findall(rf"(?<![\w.]){re.escape(name)}(?!\w)", text))
