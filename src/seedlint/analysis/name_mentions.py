"""Which names a project's own text gives as values: a quoted string in its Python files, or
a word in its configuration, shell and documentation files.

A registry looked up by a name known only at run time (``DATASETS[cfg.name]``,
``PROCESS.build(cfg)``) may return any class registered in it, but a class the project names
nowhere cannot be asked for: no configuration file gives its name as a ``type:``, no script
passes it on a command line, no code spells it as a string. Such a class stays in the
registry unused (a transform kept for later, a dataset of another paper). The registry
lookups keep the members some text names, when there are any, and all of them otherwise.

Names are compared without case, since lookups often change it (``name.capitalize()``).
The text is read once per run, on the first question, up to ``MAX_BYTES``; a project with
more text than that counts every name as given.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Iterable, Optional, Tuple

from seedlint.analysis import inputs

TEXT_SUFFIXES = (".yaml", ".yml", ".json", ".sh", ".bash", ".md", ".rst", ".txt", ".cfg", ".ini", ".toml")
MAX_BYTES = 64 * 1024 * 1024
MAX_FILE_BYTES = 2 * 1024 * 1024

_QUOTED = re.compile(rb"""["']([A-Za-z_][A-Za-z0-9_.\-]*)["']""")
_WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_.\-]*")
_EXPORTS = re.compile(rb"__all__\s*\+?=\s*[\[\(][^\]\)]*[\]\)]")
"""``__all__ = [...]``: the module's exports, which name classes without asking for them."""


class GivenNames:
    """The names one project gives as values, from its Python files (``python_paths``) and
    the other files of its tree (``discovery.ProjectTree``)."""

    def __init__(self, tree, python_paths: Iterable[str]) -> None:
        self._tree = tree
        self._python_paths = list(python_paths)
        self._counts: Optional[Tuple[Counter, Counter]] = None
        self._read = False

    def counts(self) -> Optional[Tuple[Counter, Counter]]:
        """How often each name is quoted in Python files, and how often it is a word of the
        other files; None when the project has more text than is read."""
        if not self._read:
            self._read = True
            self._counts = self._load()
        return self._counts

    def _load(self) -> Optional[Tuple[Counter, Counter]]:
        quoted: Counter = Counter()
        words: Counter = Counter()
        total = 0
        texts = [(path, True) for path in self._python_paths]
        if self._tree is not None:
            texts += [(path, False) for path in self._tree.files(lambda name: name.endswith(TEXT_SUFFIXES))]
        for path, python in texts:
            try:
                with open(path, "rb") as handle:
                    raw = handle.read(MAX_FILE_BYTES)
            except OSError:
                continue
            if not python:
                inputs.read(path)
            total += len(raw)
            if total > MAX_BYTES:
                return None
            if python:
                raw = _EXPORTS.sub(b"", raw)
            counter, pattern = (quoted, _QUOTED) if python else (words, _WORD)
            for match in pattern.finditer(raw):
                text = match.group(1 if python else 0).decode("ascii", "replace").lower()
                counter[text] += 1
                parts = set(text.replace("-", ".").split(".")) - {text}
                counter.update(parts)
        return quoted, words

    def gives(self, name: str, registered_by_string: bool = False) -> bool:
        """Some text gives ``name`` as a value, beyond the one quoted string that registers
        it (``@DATASETS.register("voc")``) when ``registered_by_string``."""
        counts = self.counts()
        if counts is None:
            return True
        quoted, words = counts
        name = name.lower()  # a lookup may change the case (``REGISTRY.get(name.capitalize())``)
        return quoted[name] > (1 if registered_by_string else 0) or words[name] > 0
