"""Which modules' loaders a run over some files of a project must judge.

Pre-commit passes the changed files; seedlint reports the findings anchored in them and the
findings elsewhere that depend on them, as a whole-project run would. A loader's judgement
can read a changed file only if the loader's module belongs to a program that includes the
file: the modules that import it (directly or through others) and everything those import.
A loader in a helper that a script calls with the changed file's dataset is judged too.

Imports are over-approximated by spelling. A module "may import" a changed file when an
import line of it (an import statement, ``import_module``, ``__import__``) names the file's
module (its stem, or its package), or when it names a class the file defines
(registries and Python configuration files look classes up by name). A module's own imports
are resolved by the dotted path's ending, whichever source root holds it. Every loader
outside that program cannot depend on the changed files.

A changed file whose module or classes a non-Python file names (a YAML or JSON
configuration's ``_target_``, ``type:`` or ``class_path``) can be reached by any loader
built from configuration: the run then judges every loader (``None``).
"""

from __future__ import annotations

import os
import re
from typing import Dict, FrozenSet, Iterable, List, Optional, Set

from seedlint.analysis import inputs
from seedlint.analysis.files import ProjectFiles
from seedlint.discovery import ProjectTree

CONFIG_SUFFIXES = (".yaml", ".yml", ".json", ".toml", ".cfg", ".ini", ".jsonnet")
MIN_WORD = 4

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_FROM_IMPORT = re.compile(r"^\s*from\s+(\.*)([\w.]*)\s+import\s+\(?(.*)")
_IMPORT = re.compile(r"^\s*import\s+([\w., ]+)")
_DYNAMIC = re.compile(r"(?:import_module|__import__)\(\s*[rbuf]?[\"']([\w.]+)")
_CLASS = re.compile(r"^class[ \t]+([A-Za-z_][A-Za-z0-9_]*)", re.MULTILINE)
_COMMON = frozenset({"main", "train", "test", "utils", "util", "data", "model", "models", "config", "common", "base"})


def focused_modules(changed: Iterable[str], files: ProjectFiles, tree: ProjectTree) -> Optional[FrozenSet[str]]:
    """The modules whose loaders a run over ``changed`` must judge, or None for all."""
    changed = {os.path.abspath(path) for path in changed}
    texts: Dict[str, str] = {}
    words_of = {path: _words(path, texts) for path in changed}
    if _configured(set().union(*words_of.values()), tree):
        return None
    reaching = importers(changed, files, texts, classes=True)
    reached = _reached_from(changed | reaching, files, texts)
    return frozenset(changed | reaching | reached)


def importers(start: Set[str], files: ProjectFiles, texts: Dict[str, str], classes: bool = False) -> Set[str]:
    """The files that import a module of ``start``, or import one of those, transitively;
    with ``classes``, also those that look one of its classes up by name, one step away."""
    by_ending = _endings(files)
    found = set(start)
    frontier = set(start)
    first = classes
    while frontier:
        words = sorted(set().union(*(_words(path, texts, classes=first) for path in frontier)))
        named_by = [path for path in files.mentioning(words) if path not in found] if words else []
        importers = set()
        for path in named_by:
            imported = {other for name in _imported_names(path, _text(path, texts)) for other in by_ending.get(name.replace(".", "/"), ())}
            if imported & frontier or (first and _names_class(path, words, texts)):
                importers.add(path)
        frontier = importers
        found |= frontier
        first = False
    return found - start


def _endings(files: ProjectFiles) -> Dict[str, List[str]]:
    """Project files by the endings of their dotted path (``pkg/data`` for
    ``src/pkg/data/__init__.py``), up to six parts."""
    by_ending: Dict[str, List[str]] = {}
    for path in files.paths:
        parts = os.path.splitext(path)[0].replace(os.sep, "/").split("/")
        if parts[-1] == "__init__":
            parts = parts[:-1]
        for length in range(1, min(len(parts), 6) + 1):
            by_ending.setdefault("/".join(parts[-length:]), []).append(path)
    return by_ending


def _reached_from(start: Set[str], files: ProjectFiles, texts: Dict[str, str]) -> Set[str]:
    """The project files that ``start`` imports, transitively: each import resolved by the
    dotted path's ending (``from pkg.data import coco`` is a file ending ``pkg/data.py``,
    ``pkg/data/__init__.py`` or ``pkg/data/coco.py``; a relative import from the file's
    own package), whichever source root holds it."""
    by_ending = _endings(files)
    found = set(start)
    frontier = list(start)
    while frontier:
        path = frontier.pop()
        for dotted in _imported_names(path, _text(path, texts)):
            for other in by_ending.get(dotted.replace(".", "/"), ()):
                if other not in found:
                    found.add(other)
                    frontier.append(other)
    return found - start


def _imported_names(path: str, text: str) -> Set[str]:
    """The dotted names a file's import statements (and ``import_module("a.b")`` calls)
    may load: each module, each of its packages, and each name imported from it."""
    found: Set[str] = set()
    package = os.path.dirname(path).replace(os.sep, "/").split("/")
    for line in text.splitlines():
        if "import" not in line:
            continue
        line = line.split("#", 1)[0]
        match = _FROM_IMPORT.match(line)
        if match:
            dots, module, names = match.group(1), match.group(2), match.group(3)
            if dots:
                base = package[: len(package) - (len(dots) - 1)] if len(dots) > 1 else package
                module = ".".join([base[-1]] + ([module] if module else [])) if base else module
            if module:
                found.update(_prefixes(module))
                found.update(f"{module}.{name}" for name in _IDENTIFIER.findall(names.split(" as ")[0]) if name != "import")
            continue
        match = _IMPORT.match(line)
        if match:
            for item in match.group(1).split(","):
                found.update(_prefixes(item.split(" as ")[0].strip()))
            continue
        for dotted in _DYNAMIC.findall(line):
            found.update(_prefixes(dotted))
    return {name for name in found if name}


def _prefixes(dotted: str) -> List[str]:
    parts = [part for part in dotted.split(".") if part]
    return [".".join(parts[:length]) for length in range(1, len(parts) + 1)]


def _names_class(path: str, words: List[str], texts: Dict[str, str]) -> bool:
    classes = [word for word in words if word[:1].isupper()]
    if not classes:
        return False
    return re.search(r"\b(?:" + "|".join(re.escape(w) for w in classes) + r")\b", _text(path, texts)) is not None


def _words(path: str, texts: Dict[str, str], classes: bool = True) -> Set[str]:
    """What another file spells to import this module, or to look up one of its classes."""
    words = set(_module_words(path))
    if classes:
        words.update(name for name in _CLASS.findall(_text(path, texts)) if len(name) >= MIN_WORD)
    return {word for word in words if word not in _COMMON} or words


def _module_words(path: str) -> List[str]:
    directory, base = os.path.split(path)
    stem = os.path.splitext(base)[0]
    if stem == "__init__":
        return [os.path.basename(directory)]
    words = [stem]
    if os.path.isfile(os.path.join(directory, "__init__.py")):
        words.append(os.path.basename(directory))  # ``import_module(f"{package}.{name}")`` spells the package
    return words


def _text(path: str, texts: Dict[str, str]) -> str:
    found = texts.get(path)
    if found is None:
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                found = handle.read()
        except OSError:
            found = ""
        texts[path] = found
    return found


def _configured(words: Set[str], tree: ProjectTree) -> bool:
    """A configuration file of the project names one of ``words``."""
    if not words:
        return False
    pattern = re.compile(r"\b(?:" + "|".join(re.escape(w) for w in sorted(words)) + r")\b")
    for path in tree.files(lambda name: name.endswith(CONFIG_SUFFIXES)):
        inputs.read(path)
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                if pattern.search(handle.read()):
                    return True
        except OSError:
            continue
    return False
