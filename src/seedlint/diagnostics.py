"""Diagnostics and the fixes they may carry: plain data shared by rules, fixer and reporters."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Set, Tuple

from seedlint.span import Span


@dataclass(frozen=True)
class Fix:
    """An edit the fixer knows how to make, located by the span of the node it edits."""

    kind: str
    path: str
    span: Span
    safe: bool = True
    data: Tuple = ()


@dataclass(frozen=True)
class Evidence:
    """One place a finding rests on (the draw, where the dataset is built, a configuration
    key), with a one-line note: JSON ``related``, SARIF ``relatedLocations``."""

    path: str
    """Absolute."""
    span: Span
    note: str
    cell: Optional[int] = None
    """In a notebook: the cell the span's lines count within."""


@dataclass(frozen=True)
class Diagnostic:
    path: str
    span: Span
    code: str
    name: str
    message: str
    fix: Optional[Fix] = None
    severity: str = "error"
    """"error": the bug happens on the declared versions; "warning": only under conditions
    seedlint cannot see (a start method, a Python version)."""
    related: Set[str] = field(default_factory=set, compare=False, hash=False)
    """Absolute paths of the other files this finding depends on (the loader's module, the
    dataset's, the draw's): a run over some files reports a finding anchored elsewhere
    when it depends on one of them. Rules add to it as they meet the same finding again."""
    evidence: Tuple[Evidence, ...] = field(default=(), compare=False, hash=False)
    """The places the finding rests on, in the order of the message."""
    cell: Optional[int] = None
    """In a notebook: the cell (1-based) the span's lines count within."""

    @property
    def line(self) -> int:
        return self.span.line

    @property
    def column(self) -> int:
        """1-based column, as printed."""
        return self.span.col + 1

    def sort_key(self):
        return (self.path, self.cell or 0, self.span.line, self.span.col, self.code)

    @property
    def place(self) -> str:
        """``train.py:9:12`` or, in a notebook, ``nb.ipynb:cell 3:9:12``."""
        cell = f"cell {self.cell}:" if self.cell is not None else ""
        return f"{self.path}:{cell}{self.line}:{self.column}"
