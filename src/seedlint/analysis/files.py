"""The project's Python files as text, searched for a name before any of them is parsed.

The value flow asks "which modules mention ``build_dataset``?" when it looks for the
callers of a function or the classes registered into a registry; only those modules are
parsed. The files are read once, on the first question, into one buffer; a run that asks
many questions (a large repository with many callers to look up) indexes every identifier
once instead of searching the buffer again for each name.
"""

from __future__ import annotations

import bisect
import os
import re
from typing import Dict, Iterable, List, Optional, Sequence

MAX_FILE_BYTES = 2 * 1024 * 1024
SEARCHES_BEFORE_INDEXING = 64
"""Names searched in the buffer before every identifier of every file is indexed."""

_IDENTIFIER_PATTERN = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")


class ProjectFiles:
    def __init__(self, paths: Iterable[str]) -> None:
        self.paths: List[str] = sorted(set(paths))
        self._buffer: Optional[bytes] = None
        self._starts: List[int] = []
        self._memo: Dict[bytes, List[int]] = {}
        self._index: Optional[Dict[bytes, List[int]]] = None
        self._programs: Optional[frozenset] = None

    def _read(self) -> None:
        chunks: List[bytes] = []
        starts: List[int] = []
        offset = 0
        for path in self.paths:
            try:
                with open(path, "rb") as handle:
                    raw = handle.read(MAX_FILE_BYTES + 1)
            except OSError:
                raw = b""
            if len(raw) > MAX_FILE_BYTES:
                raw = b""
            starts.append(offset)
            chunks.append(raw)
            chunks.append(b"\0")
            offset += len(raw) + 1
        self._buffer = b"".join(chunks)
        self._starts = starts

    def programs(self) -> frozenset:
        """Absolute paths of the project's programs: files with a ``__main__`` block, and
        notebooks."""
        if self._programs is None:
            scripts = self.mentioning(["__main__"])
            notebooks = [path for path in self.paths if path.endswith(".ipynb")]
            self._programs = frozenset(os.path.abspath(path) for path in (*scripts, *notebooks))
        return self._programs

    def mentioning(self, words: Sequence[str]) -> List[str]:
        """Files in which one of ``words`` appears as a whole identifier."""
        found = set()
        for word in words:
            found.update(self._mentioning(word))
        return [self.paths[i] for i in sorted(found)]

    def _mentioning(self, word: str) -> List[int]:
        key = word.encode()
        cached = self._memo.get(key)
        if cached is not None:
            return cached
        if self._index is None and len(self._memo) >= SEARCHES_BEFORE_INDEXING:
            self._build_index()
        if self._index is not None and _IDENTIFIER_PATTERN.fullmatch(key):
            found = self._index.get(key, [])
            self._memo[key] = found
            return found
        if self._buffer is None:
            self._read()
        buffer, starts = self._buffer, self._starts
        found: List[int] = []
        position = 0
        while True:
            at = buffer.find(key, position)
            if at < 0:
                break
            end = at + len(key)
            if (at == 0 or buffer[at - 1] not in _IDENTIFIER) and (end >= len(buffer) or buffer[end] not in _IDENTIFIER):
                index = bisect.bisect_right(starts, at) - 1
                found.append(index)
                position = starts[index + 1] if index + 1 < len(starts) else len(buffer)
            else:
                position = end
        self._memo[key] = found
        return found

    def _build_index(self) -> None:
        if self._buffer is None:
            self._read()
        buffer, starts = self._buffer, self._starts
        index: Dict[bytes, List[int]] = {}
        for number, start in enumerate(starts):
            end = starts[number + 1] - 1 if number + 1 < len(starts) else len(buffer) - 1
            for word in set(_IDENTIFIER_PATTERN.findall(buffer, start, end)):
                index.setdefault(word, []).append(number)
        self._index = index


_IDENTIFIER = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
