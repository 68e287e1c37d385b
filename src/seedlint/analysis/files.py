"""The project's Python files as text, searched for a name before any of them is parsed.

The value flow asks "which modules mention ``build_dataset``?" when it looks for the
callers of a function or the classes registered into a registry; only those modules are
parsed. The files are read once, on the first question, into one buffer.
"""

from __future__ import annotations

import bisect
import re
from typing import Dict, Iterable, List, Optional, Sequence

MAX_FILE_BYTES = 2 * 1024 * 1024


class ProjectFiles:
    def __init__(self, paths: Iterable[str]) -> None:
        self.paths: List[str] = sorted(set(paths))
        self._buffer: Optional[bytes] = None
        self._starts: List[int] = []
        self._memo: Dict[bytes, List[str]] = {}

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

    def mentioning(self, words: Sequence[str]) -> List[str]:
        """Files in which one of ``words`` appears as a whole identifier."""
        key = "\0".join(sorted(words)).encode()
        if key in self._memo:
            return self._memo[key]
        if self._buffer is None:
            self._read()
        pattern = re.compile(rb"(?<![A-Za-z0-9_])(?:" + b"|".join(re.escape(w.encode()) for w in words) + rb")(?![A-Za-z0-9_])")
        found: List[str] = []
        position = 0
        buffer = self._buffer
        while True:
            match = pattern.search(buffer, position)
            if match is None:
                break
            index = bisect.bisect_right(self._starts, match.start()) - 1
            found.append(self.paths[index])
            position = self._starts[index + 1] if index + 1 < len(self._starts) else len(buffer)
        self._memo[key] = found
        return found
