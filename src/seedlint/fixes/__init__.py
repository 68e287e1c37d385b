"""Fixes: libcst edits keyed by the kind a diagnostic's Fix names."""

from typing import Callable, Dict, List

import libcst as cst

from seedlint.diagnostics import Fix
from seedlint.fixes import seed_worker

FIXERS: Dict[str, Callable[[cst.Module, List[Fix]], cst.Module]] = {
    "add-worker-init-fn": seed_worker.apply,
}


def apply_fixes(text: str, fixes: List[Fix]) -> str:
    """Apply one kind of fix (the first in sorted order) to a module's text.

    Positions of every fix refer to ``text``, so kinds are applied one per round; the
    engine re-analyses and loops until nothing changes.
    """
    if not fixes:
        return text
    kind = sorted(f.kind for f in fixes)[0]
    module = cst.parse_module(text)
    return FIXERS[kind](module, [f for f in fixes if f.kind == kind]).code
