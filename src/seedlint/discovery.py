"""Which files to check: walking directories, excludes and .gitignore, and the byte-level
prefilter that decides a file cannot matter before it is parsed.

As in git, .gitignore applies only to files git does not track: a dataset package committed
under a folder a later ``data/`` line ignores is still the project's code, and the analysis
needs it to know what its loaders load. The tracked files are asked of git itself, and only
once a .gitignore line has matched something in a git work tree.
"""

from __future__ import annotations

import fnmatch
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, List, Optional, Sequence, Tuple

from seedlint.config import DEFAULT_EXCLUDES, Settings


@dataclass(frozen=True)
class Target:
    """A file to check: ``shown`` is the path as reached from the given PATH."""

    shown: str
    absolute: str


class _Excludes:
    """The exclude globs compiled once: a file or folder is excluded when a glob matches its
    name or its path relative to the walked directory, or a folder above it."""

    def __init__(self, patterns: Sequence[str]) -> None:
        globs = [pattern.rstrip("/") for pattern in patterns]
        alternation = "|".join(f"(?:{fnmatch.translate(os.path.normcase(g))})" for g in globs)
        below = "|".join(f"(?:{fnmatch.translate(os.path.normcase(g + '/*'))})" for g in globs)
        self._match = re.compile(alternation).match if globs else None
        self._below = re.compile(below).match if globs else None

    def __call__(self, name: str, relative: str) -> bool:
        if self._match is None:
            return False
        name, relative = os.path.normcase(name), os.path.normcase(relative)
        return bool(self._match(name) or self._match(relative) or self._below(relative))


class _GitIgnore:
    """The subset of .gitignore that matters for source trees: globs, anchored and
    directory-only patterns, and ``!`` negations, read per directory."""

    def __init__(self) -> None:
        self.groups: List[Tuple[str, Callable[[str], object], bool, bool, bool]] = []
        """(directory, compiled patterns, anchored, negate, directory_only), in file order:
        consecutive lines of one file and one kind share one alternation."""

    def read(self, directory: str) -> None:
        path = os.path.join(directory, ".gitignore")
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                lines = handle.read().splitlines()
        except OSError:
            return
        kinds: List[Tuple[Tuple[bool, bool, bool], List[str]]] = []
        for line in lines:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            negate = line.startswith("!")
            line = line[1:] if negate else line
            directory_only = line.endswith("/")
            line = line.rstrip("/")
            anchored = "/" in line  # a leading or inner slash anchors the pattern to this directory
            kind = (anchored, negate, directory_only)
            if not kinds or kinds[-1][0] != kind:
                kinds.append((kind, []))
            kinds[-1][1].append(fnmatch.translate(os.path.normcase(line.lstrip("/"))))
        for (anchored, negate, directory_only), patterns in kinds:
            match = re.compile("|".join(f"(?:{pattern})" for pattern in patterns)).match
            self.groups.append((directory, match, anchored, negate, directory_only))

    def ignored(self, path: str, is_dir: bool) -> bool:
        """The last line that matches decides, as in git."""
        name = os.path.basename(path)
        for base, match, anchored, negate, directory_only in reversed(self.groups):
            if directory_only and not is_dir:
                continue
            if path == base:
                relative = "."
            elif path.startswith(base) and path[len(base):len(base) + 1] == os.sep:
                relative = path[len(base) + 1:].replace(os.sep, "/")
            else:
                continue
            if match(os.path.normcase(relative if anchored else name)):
                return not negate
        return False


class _Tracked:
    """The files git tracks in the work tree around a walked directory, asked of ``git
    ls-files`` on the first question; none when there is no work tree or git cannot say."""

    def __init__(self, top: str) -> None:
        self.top = top
        self._files: Optional[frozenset] = None
        self._folders: frozenset = frozenset()

    def _load(self) -> None:
        self._files = frozenset()
        root = _work_tree(self.top)
        git = shutil.which("git")
        if root is None or git is None:
            return
        try:
            listed = subprocess.run(
                [git, "-C", root, "ls-files", "-z", "--cached"], capture_output=True, timeout=30,
                env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"},
            )
        except (OSError, subprocess.SubprocessError):
            return
        if listed.returncode != 0:
            return
        files = set()
        folders = set()
        for raw in listed.stdout.split(b"\0"):
            if not raw:
                continue
            path = os.path.normpath(os.path.join(root, os.fsdecode(raw)))
            files.add(path)
            folder = os.path.dirname(path)
            while folder not in folders and len(folder) > len(root):
                folders.add(folder)
                folder = os.path.dirname(folder)
        self._files, self._folders = frozenset(files), frozenset(folders)

    def file(self, path: str) -> bool:
        if self._files is None:
            self._load()
        return path in self._files

    def holds_tracked(self, folder: str) -> bool:
        if self._files is None:
            self._load()
        return folder in self._folders


def _work_tree(directory: str) -> Optional[str]:
    """The git work tree holding ``directory``: the nearest folder at or above it with a
    ``.git`` entry."""
    current = os.path.abspath(directory)
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def discover(paths: Iterable[str], settings: Settings) -> Iterator[Target]:
    """Python files under ``paths``; a file named explicitly is always checked. A file
    reached twice (named twice, or through a symbolic link) is checked once."""
    excludes = tuple(settings.exclude) + tuple(settings.extend_exclude)
    seen = set()
    for given in paths:
        if not os.path.isdir(given):
            absolute = os.path.abspath(given)
            if os.path.realpath(absolute) not in seen:
                seen.add(os.path.realpath(absolute))
                yield Target(given, absolute)
            continue
        found: List[Tuple[str, str, str]] = []
        for shown, absolute in _walk(given, excludes):
            found.append((shown, absolute, os.path.realpath(absolute)))
        # Reached twice (a symbolic link to a file of the same tree): checked once, under the
        # file's own path rather than the link's.
        preferred = {}
        for shown, absolute, real in found:
            if real not in preferred or (preferred[real] != real and absolute == real):
                preferred[real] = absolute
        for shown, absolute, real in found:
            if real in seen or preferred[real] != absolute:
                continue
            seen.add(real)
            yield Target(shown, absolute)


class ProjectTree:
    """The project's files other than Python files and notebooks (its scripts, documents
    and configuration files), from one walk with the default excludes and .gitignore as
    for Python files; ``listed`` is told each folder read."""

    def __init__(self, root: Optional[str], listed: Callable[[str], None]) -> None:
        self.root = root
        self._listed = listed
        self._files: Optional[List[str]] = None

    def files(self, wanted: Callable[[str], bool]) -> List[str]:
        if self._files is None:
            self._files = []
            if self.root and os.path.isdir(self.root):
                walked = _walk(self.root, DEFAULT_EXCLUDES, lambda name: not name.endswith((".py", ".ipynb")), self._listed)
                self._files = [absolute for _, absolute in walked if os.path.isfile(absolute)]
        return [path for path in self._files if wanted(os.path.basename(path))]


def _walk(given: str, excludes: Sequence[str], wanted: Callable[[str], bool] = lambda name: name.endswith((".py", ".ipynb")),
          listed: Callable[[str], None] = lambda directory: None) -> Iterator[Tuple[str, str]]:
    """(shown, absolute) of the files under the directory ``given`` whose name is ``wanted``
    (Python files and notebooks), in order; ``listed`` is told each folder read."""
    gitignore = _GitIgnore()
    excluded = _Excludes(excludes)
    top = os.path.abspath(given)
    tracked = _Tracked(top)
    ignored_folders: List[str] = []
    """Folders .gitignore ignores that are walked for the tracked files they hold."""
    unreadable: List[OSError] = []
    for directory, subdirs, files in os.walk(top, onerror=unreadable.append):
        listed(directory)
        gitignore.read(directory)
        relative_dir = os.path.relpath(directory, top)
        inside_ignored = any(directory == folder or directory.startswith(folder + os.sep) for folder in ignored_folders)
        kept = []
        for sub in sorted(subdirs):
            full = os.path.join(directory, sub)
            relative = os.path.normpath(os.path.join(relative_dir, sub)).replace(os.sep, "/")
            if excluded(sub, relative) or os.path.islink(full):
                continue
            if inside_ignored or gitignore.ignored(full, True):
                if not tracked.holds_tracked(full):
                    continue
                if not inside_ignored:
                    ignored_folders.append(full)
            kept.append(sub)
        subdirs[:] = kept
        for name in sorted(files):
            if not wanted(name):
                continue
            full = os.path.join(directory, name)
            relative = os.path.normpath(os.path.join(relative_dir, name)).replace(os.sep, "/")
            if excluded(name, relative):
                continue
            if (inside_ignored or gitignore.ignored(full, False)) and not tracked.file(full):
                continue
            shown = os.path.normpath(os.path.join(given, relative)) if given not in (".", "./") else relative
            yield shown, os.path.abspath(full)
    # A folder that cannot be listed is reported (reading it fails with the reason), never
    # skipped in silence: its files are not checked.
    for error in unreadable:
        if error.filename:
            relative = os.path.relpath(error.filename, top).replace(os.sep, "/")
            yield (os.path.normpath(os.path.join(given, relative)) if given not in (".", "./") else relative), os.path.abspath(error.filename)


def mentions_any(raw: bytes, tokens: Iterable[bytes]) -> bool:
    """The prefilter: a file that mentions none of the tokens cannot produce a finding."""
    return any(token in raw for token in tokens)
