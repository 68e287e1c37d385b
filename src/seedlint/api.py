"""The one front door: checking, fixing and writing, as the CLI and other callers use them.

``check`` and ``fix`` run the engine over paths (or over one file's text read from stdin)
and return an ``Outcome``: the diagnostics, the inputs that could not be checked, and, for
``fix``, the new text of each file. ``write`` puts fixed files on disk atomically.
``fix_edits`` gives, for one diagnostic, the edits its fix alone would make, which the
JSON and SARIF outputs carry.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, Optional, Tuple

from seedlint.cache import DiskCache
from seedlint.config import Settings
from seedlint.diagnostics import Diagnostic
from seedlint.engine import Engine, Result
from seedlint.notebooks import SUFFIX as NOTEBOOK_SUFFIX
from seedlint.source import ChangedOnDisk, InputError, SourceFile, read_source, write_atomically


@dataclass
class Outcome:
    diagnostics: List[Diagnostic] = field(default_factory=list)
    errors: List[InputError] = field(default_factory=list)
    files_checked: int = 0
    fixed: Dict[str, int] = field(default_factory=dict)
    """Shown path -> number of fixes applied."""
    fixed_codes: Dict[str, Dict[str, int]] = field(default_factory=dict)
    """Shown path -> code -> fixes applied, for ``--show-fixes``."""
    new_text: Dict[str, Tuple[SourceFile, str]] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        """Every input was checked."""
        return not self.errors


def _outcome(result: Result) -> Outcome:
    return Outcome(
        diagnostics=list(result.diagnostics), errors=list(result.errors), files_checked=result.files_checked,
        fixed=dict(result.fixed), fixed_codes={k: dict(v) for k, v in result.fixed_codes.items()},
        new_text=dict(result.new_text),
    )


def check(paths: Iterable[str], settings: Settings, jobs: int = 1, cache: Optional[DiskCache] = None,
          stdin: Optional[Tuple[str, str]] = None, progress: Optional[Callable[[str], None]] = None) -> Outcome:
    """Diagnostics for ``paths``; with ``stdin`` = (file name, text), for that text as if it
    were the file (the project around it is read from disk)."""
    engine = Engine(settings, jobs=jobs, cache=cache, progress=progress)
    if stdin is not None:
        return _outcome(engine.check_text(*stdin))
    return _outcome(engine.check(list(paths)))


def fix(paths: Iterable[str], settings: Settings, jobs: int = 1, cache: Optional[DiskCache] = None,
        stdin: Optional[Tuple[str, str]] = None, progress: Optional[Callable[[str], None]] = None) -> Outcome:
    """Fixes computed to a fixed point (nothing is written), and what remains after them."""
    engine = Engine(settings, jobs=jobs, cache=cache, progress=progress)
    if stdin is not None:
        return _outcome(engine.fix_text(*stdin))
    return _outcome(engine.fix(list(paths)))


def write(outcome: Outcome, paths: Iterable[str], settings: Settings, jobs: int = 1,
          cache: Optional[DiskCache] = None) -> None:
    """Write every fixed file atomically. A file that cannot be written is reported, and
    its diagnostics are those of the file as it stays on disk."""
    unwritten: List[InputError] = []
    for shown, (original, new) in sorted(outcome.new_text.items()):
        try:
            write_atomically(original, new)
        except ChangedOnDisk:
            unwritten.append(InputError(shown, "changed on disk while seedlint was fixing it; left as it is"))
        except OSError as error:
            unwritten.append(InputError(shown, f"cannot write: {error.strerror or error}"))
    if not unwritten:
        return
    failed = {e.path for e in unwritten}
    for shown in failed:
        outcome.fixed.pop(shown, None)
        outcome.fixed_codes.pop(shown, None)
    on_disk = Engine(settings, jobs=jobs, cache=cache).check(list(paths))
    outcome.diagnostics = sorted(
        [d for d in outcome.diagnostics if d.path not in failed] + [d for d in on_disk.diagnostics if d.path in failed],
        key=Diagnostic.sort_key,
    )
    outcome.errors.extend(unwritten)


def fix_preview(settings: Settings) -> Callable[[Diagnostic], Optional[Tuple[str, str, str]]]:
    """For one diagnostic: (path of the file its fix edits, the file's text, the text after
    that fix alone), or None when it has no fix that this run would apply."""

    def preview(diagnostic: Diagnostic) -> Optional[Tuple[str, str, str]]:
        from seedlint.fixes import apply_fixes

        fix_ = diagnostic.fix
        if fix_ is None or not (fix_.safe or settings.unsafe_fixes):
            return None
        absolute = os.path.abspath(fix_.path)
        if absolute.endswith(NOTEBOOK_SUFFIX):
            return None  # its edits are to the notebook's JSON, not line edits of its code
        shown = diagnostic.path if absolute == os.path.abspath(diagnostic.path) else os.path.relpath(absolute)
        source = read_source(absolute)
        if isinstance(source, InputError):
            return None
        try:
            return shown, source.text, apply_fixes(source.text, [fix_], settings.line_length)
        except Exception:  # a fix that cannot be expressed is left out of the report, not fatal
            return None

    return preview


def fix_edits(diagnostic: Diagnostic, preview) -> Optional[dict]:
    """The fix of one diagnostic as line-and-column edits of the file as it is: each
    replaces the text from ``location`` to ``end_location`` with ``content``."""
    texts = preview(diagnostic)
    if texts is None:
        return None
    path, original, new = texts
    edits = []
    for start, end, content in line_edits(original, new):
        edits.append({"path": path, "location": start, "end_location": end, "content": content})
    if not edits:
        return None
    return {"applicability": "safe" if diagnostic.fix.safe else "unsafe", "edits": edits}


def line_edits(original: str, new: str) -> List[Tuple[dict, dict, str]]:
    """Whole-line replacements turning ``original`` into ``new``: (start, end, content),
    with 1-based rows and columns."""
    import difflib

    before = original.splitlines(keepends=True)
    after = new.splitlines(keepends=True)
    found = []
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        found.append(({"row": i1 + 1, "column": 1}, {"row": i2 + 1, "column": 1}, "".join(after[j1:j2])))
    return found
