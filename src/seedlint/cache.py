"""The facts cache: module facts stored on disk by content hash, so an unchanged file is
never parsed twice. Entries are written atomically, so concurrent runs are safe; any
unreadable entry is treated as a miss."""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from contextlib import contextmanager
from typing import Iterator, Optional

from seedlint import __version__

DIRECTORY_NAME = ".seedlint_cache"


def _schema() -> str:
    """A fingerprint of the code that defines facts, so a changed facts pass never reads
    entries written by another."""
    digest = hashlib.sha256()
    package = os.path.dirname(__file__)
    for name in ("facts/model.py", "facts/collector.py", "facts/codegen_walk.py", "span.py", "knowledge/api_versions.py",
                 "knowledge/platforms.py", "knowledge/watched_apis.py"):
        try:
            with open(os.path.join(package, *name.split("/")), "rb") as handle:
                digest.update(handle.read())
        except OSError:
            digest.update(name.encode())
    return digest.hexdigest()[:12]


SCHEMA = _schema()


def code_fingerprint() -> str:
    """The size and modification time of every module of the installed seedlint: stored
    run results are reused only by the same rules and analysis (an editable install or
    a checkout installed from its repository keeps one version number across changes)."""
    global _CODE
    if _CODE is None:
        package = os.path.dirname(__file__)
        digest = hashlib.sha256()
        for folder, subfolders, files in os.walk(package):
            subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
            for name in sorted(f for f in files if f.endswith(".py")):
                stat = os.stat(os.path.join(folder, name))
                digest.update(f"{os.path.relpath(os.path.join(folder, name), package)}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
        _CODE = digest.hexdigest()[:16]
    return _CODE


_CODE: Optional[str] = None


def cache_key(text: str, path: str, name: str, is_package: bool) -> str:
    digest = hashlib.sha256()
    digest.update(f"{__version__}\0{SCHEMA}\0{path}\0{name}\0{is_package}\0".encode())
    digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


class DiskCache:
    def __init__(self, root: str, directory: Optional[str] = None) -> None:
        top = os.path.abspath(directory) if directory else os.path.join(root, DIRECTORY_NAME)
        self.directory = os.path.join(top, f"{__version__}-{SCHEMA}")
        self._ready = False

    def _prepare(self) -> None:
        if self._ready:
            return
        os.makedirs(self.directory, exist_ok=True)
        top = os.path.dirname(self.directory)
        gitignore = os.path.join(top, ".gitignore")
        if not os.path.exists(gitignore):
            with open(gitignore, "w") as handle:
                handle.write("# Created by seedlint automatically.\n*\n")
        tag = os.path.join(top, "CACHEDIR.TAG")
        if not os.path.exists(tag):
            with open(tag, "w") as handle:
                handle.write("Signature: 8a477f597d28d172789f06886806bc55\n# seedlint facts cache\n")
        self._ready = True

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the cache's lock (where the platform has ``fcntl``): one process computes
        what the others then read."""
        try:
            import fcntl
        except ImportError:
            yield
            return
        try:
            self._prepare()
            handle = open(os.path.join(self.directory, ".lock"), "a")
        except OSError:
            yield
            return
        with handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def get(self, key: str):
        try:
            with open(os.path.join(self.directory, key[:2], key), "rb") as handle:
                return pickle.load(handle)
        except Exception:  # a missing, partial or foreign entry is a miss
            return None

    def put(self, key: str, value, pickled: Optional[bytes] = None) -> None:
        """Store ``value``; ``pickled`` is its pickle when the caller already made one."""
        try:
            if pickled is None:
                pickled = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
            self._prepare()
            folder = os.path.join(self.directory, key[:2])
            os.makedirs(folder, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=folder, prefix=".tmp-")
            with os.fdopen(handle, "wb") as out:
                out.write(pickled)
            os.replace(temporary, os.path.join(folder, key))
        except (OSError, pickle.PicklingError, RecursionError):
            return  # a read-only tree simply runs without a cache


def default_cache(project_root: Optional[str], directory: Optional[str] = None) -> Optional[DiskCache]:
    """The project's cache: ``.seedlint_cache/`` at its root, or under ``directory``."""
    return DiskCache(project_root or os.getcwd(), directory)
