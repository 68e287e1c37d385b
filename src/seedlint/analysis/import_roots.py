"""The directories from which a module's imports are found.

Python finds ``import pkg.data`` in the directories of ``sys.path``: the running script's
own folder, the installed project (its root or ``src/``), and whatever the code adds with
``sys.path.insert(0, ...)`` / ``sys.path.append(...)``, often from a small module imported
for that side effect (``import _init_paths``). seedlint does not know which script runs,
so for a module it searches, in order: its own source root, the folders ``sys.path``
edits in it (or in a path-setup module it imports) name, every folder from its own up to
the project root, the project root's ``src/``, and the other source roots seen.
"""

from __future__ import annotations

import os
from typing import Iterable, List, Optional

from seedlint.facts.model import MODULE_CODE, Attr, BinOp, Call, Const, Function, ModuleFacts, Name, Subscript, Value

PATH_EDITS = frozenset({"sys.path.insert", "sys.path.append"})
_PATH_FUNCTIONS = {
    "os.path.dirname": "dirname", "posixpath.dirname": "dirname", "os.path.abspath": "same",
    "os.path.realpath": "same", "os.path.normpath": "same", "os.path.expanduser": "same",
    "os.path.join": "join", "posixpath.join": "join", "pathlib.Path": "path", "str": "same",
    "os.fspath": "same", "os.getcwd": "cwd",
}


def path_edits(module: ModuleFacts, project_root: Optional[str]) -> List[str]:
    """Directories that ``sys.path`` edits in this module add (absolute, existing)."""
    found: List[str] = []
    helpers = {}
    for function in module.functions.values():
        for call in function.calls:
            if not _is_path_edit(call):
                continue
            argument = call.argument("object", 1) if _edit_name(call) == "insert" else call.argument("object", 0)
            if argument is None:
                continue
            if function.qualname != MODULE_CODE and isinstance(argument, Name) and argument.dotted in function.params:
                helpers[function.name] = function.params.index(argument.dotted)
                continue
            found.extend(_directories(module, function, argument, project_root))
    if helpers:
        for function in module.functions.values():
            for call in function.calls:
                if isinstance(call.func, Name) and call.func.dotted in helpers and len(call.args) > helpers[call.func.dotted]:
                    found.extend(_directories(module, function, call.args[helpers[call.func.dotted]], project_root))
    return [d for d in dict.fromkeys(found) if os.path.isdir(d)]


def _is_path_edit(call: Call) -> bool:
    return isinstance(call.func, Name) and call.func.qualified in PATH_EDITS


def _edit_name(call: Call) -> str:
    return call.func.dotted.rsplit(".", 1)[-1] if isinstance(call.func, Name) else ""


def _directories(module: ModuleFacts, function: Function, value: Value, project_root: Optional[str]) -> List[str]:
    found = []
    for path in _evaluate(module, function, value, project_root, 0):
        if not os.path.isabs(path):
            bases = [project_root, os.path.dirname(module.path)] if project_root else [os.path.dirname(module.path)]
            found.extend(os.path.normpath(os.path.join(base, path)) for base in bases if base)
        else:
            found.append(os.path.normpath(path))
    return found


def _evaluate(module: ModuleFacts, function: Function, value: Value, root: Optional[str], depth: int) -> List[str]:
    """The paths a path expression may be, for the usual spellings."""
    if depth > 8:
        return []
    again = lambda v: _evaluate(module, function, v, root, depth + 1)  # noqa: E731
    if isinstance(value, Const):
        return [value.value] if isinstance(value.value, str) else []
    if isinstance(value, Name):
        if value.dotted == "__file__" or value.qualified == "builtins.__file__":
            return [os.path.abspath(module.path)]
        if value.qualified is None or value.qualified.startswith(f"{module.name}."):
            scope = function if value.qualified is None else module.module_code
            bound = [a.value for a in scope.assigns if a.target == value.dotted]
            return [p for b in bound[:3] for p in again(b)]
        return []
    if isinstance(value, Call):
        func = value.func
        kind = _PATH_FUNCTIONS.get(func.qualified) if isinstance(func, Name) and func.qualified else None
        if kind is None and isinstance(func, Name) and func.dotted.rsplit(".", 1)[-1] == "Path":
            kind = "path"
        if kind is None and isinstance(func, Name) and func.qualified is None and "." in func.dotted:
            method = func.dotted.rsplit(".", 1)[-1]
            if method in ("resolve", "absolute", "expanduser"):
                head = Name(func.dotted.rsplit(".", 1)[0], func.span, None, func.scope)
                return again(head)
        if isinstance(func, Attr) and func.attr in ("resolve", "absolute", "expanduser"):
            return again(func.value)
        if kind == "cwd":
            return [root] if root else []
        if kind == "dirname" and value.args:
            return [os.path.dirname(p) for p in again(value.args[0])]
        if kind in ("same", "path") and value.args:
            return again(value.args[0])
        if kind == "join" and value.args:
            parts = [again(a) for a in value.args]
            if all(len(p) == 1 for p in parts):
                return [os.path.join(*(p[0] for p in parts))]
        return []
    if isinstance(value, Attr) and value.attr == "parent":
        return [os.path.dirname(p) for p in again(value.value)]
    if isinstance(value, Subscript) and isinstance(value.value, Attr) and value.value.attr == "parents":
        if isinstance(value.index, Const) and isinstance(value.index.value, int):
            paths = again(value.value.value)
            for _ in range(value.index.value + 1):
                paths = [os.path.dirname(p) for p in paths]
            return paths
    if isinstance(value, Name) is False and isinstance(value, BinOp) and value.op == "Divide":
        left, right = again(value.left), again(value.right)
        if len(left) == 1 and len(right) == 1:
            return [os.path.join(left[0], right[0])]
    return []


def ancestors(directory: str, stop: Optional[str]) -> Iterable[str]:
    """``directory`` and its parents up to ``stop`` (inclusive), when ``stop`` contains it."""
    directory = os.path.abspath(directory)
    if stop is None:
        yield directory
        return
    stop = os.path.abspath(stop)
    if not (directory == stop or directory.startswith(stop + os.sep)):
        yield directory
        return
    while True:
        yield directory
        if directory == stop:
            return
        parent = os.path.dirname(directory)
        if parent == directory:
            return
        directory = parent
