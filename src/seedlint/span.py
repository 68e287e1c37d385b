"""A source range, shared by facts and diagnostics (its own module, so reporting a cached
result never imports the facts model)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Span:
    """A source range: 1-based lines, 0-based columns (libcst's convention)."""

    line: int
    col: int
    end_line: int
    end_col: int


def contains(outer: Span, inner: Span) -> bool:
    """``inner`` lies within ``outer``."""
    return (outer.line, outer.col) <= (inner.line, inner.col) and (inner.end_line, inner.end_col) <= (outer.end_line, outer.end_col)
