"""The files other than modules that one analysis reads: configuration files, packaging
declarations, documented commands, and the folders it lists to find them.

A stored whole-project result is used again only while every file it depended on is
unchanged. Modules are known from the index; the other inputs are recorded here as they
are read, so editing ``configs/train.yaml``, a folder's ``requirements.txt`` or
``scripts/train.sh`` (or adding one to a listed folder, which changes the folder) makes the
next run analyse again. Readers whose results are memoised across runs in one process
(``replayed``) record their inputs again on every hit.
"""

from __future__ import annotations

import functools
import os
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable, Iterator, Optional, Set, TypeVar

_recording: ContextVar[Optional[Set[str]]] = ContextVar("seedlint_inputs", default=None)

T = TypeVar("T")


def read(path: str) -> None:
    """``path`` (a file read, or a folder listed) is an input of the analysis under way."""
    recorded = _recording.get()
    if recorded is not None:
        recorded.add(os.path.abspath(path))


@contextmanager
def recording() -> Iterator[Set[str]]:
    """Record the inputs read inside the block into the set it yields."""
    recorded: Set[str] = set()
    token = _recording.set(recorded)
    try:
        yield recorded
    finally:
        _recording.reset(token)


def replayed(function: Callable[..., T]) -> Callable[..., T]:
    """Memoise ``function`` by its (hashable) arguments, recording the inputs its first call
    read again on every later call."""
    memo: dict = {}

    @functools.wraps(function)
    def wrapper(*args):
        found = memo.get(args)
        if found is None:
            with recording() as inner:
                value = function(*args)
            found = memo[args] = (value, frozenset(inner))
        for path in found[1]:
            read(path)
        return found[0]

    wrapper.cache_clear = memo.clear  # type: ignore[attr-defined]
    return wrapper
