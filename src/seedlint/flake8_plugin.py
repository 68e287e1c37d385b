"""The flake8 plugin: a thin adapter over the engine.

flake8 hands over one file at a time; the engine resolves datasets in sibling modules by
finding them on disk from the file's path. Files the prefilter rejects cost one substring
scan. flake8 itself applies --select/--ignore and ``# noqa``.
"""

from __future__ import annotations

import os
from typing import Any, Dict, Iterator, List, Tuple

from seedlint import __version__
from seedlint.config import ConfigError, load_settings
from seedlint.engine import Engine

_ENGINES: Dict[str, Engine] = {}


def _engine_for(filename: str) -> Engine:
    directory = os.path.dirname(os.path.abspath(filename))
    engine = _ENGINES.get(directory)
    if engine is None:
        settings = load_settings([filename], {"select": ("SDL",), "ignore": ()})
        engine = _ENGINES[directory] = Engine(settings, honor_noqa=False)
    return engine


class SeedlintChecker:
    name = "seedlint"
    version = __version__

    def __init__(self, tree: Any, filename: str, lines: List[str]) -> None:
        self.filename = filename
        self.lines = lines

    def run(self) -> Iterator[Tuple[int, int, str, type]]:
        source = "".join(self.lines)
        try:
            engine = _engine_for(self.filename)
        except ConfigError as error:
            yield 1, 0, f"SDL000 seedlint configuration error: {error}", type(self)
            return
        if not any(token.decode() in source for token in engine.tokens):
            return
        result = engine.check_source(self.filename, source)
        for diagnostic in result.diagnostics:
            yield diagnostic.line, diagnostic.span.col, f"{diagnostic.code} {diagnostic.message}", type(self)
