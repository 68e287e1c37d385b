"""Programs that fail before they run anything: code only they load never runs.

Two failures are read, each certain wherever the program starts:

- an import: a ``from X import y`` that runs whenever the module is imported (``plain_from_imports``),
  where the file Python imports for ``X`` is certain (a relative import's; an absolute one
  found under the script's folder, ``sys.path[0]``, and nowhere else under the project root;
  never a standard-library name) and binds no ``y`` (no definition, assignment or import of
  it, no star import, no module ``__getattr__``, no submodule ``X.y``): Python raises
  ``ImportError``; so does every script whose plain imports reach such a module;
- an argument parser: the function the script's ``__main__`` block calls first registers
  one option string twice on the same parser before it calls anything else (argparse
  raises ``ArgumentError: ... conflicting option string``).

A module whose every entry program (``analysis.entry_programs``) fails so never runs.
"""

from __future__ import annotations

import os
import sys
from typing import Callable, Dict, List, Optional, Set

from seedlint.analysis.entry_programs import entry_programs
from seedlint.analysis.files import ProjectFiles
from seedlint.analysis.index import ProjectIndex
from seedlint.facts.model import MODULE_CODE, Call, Compare, Const, Function, ModuleFacts, Name

PARSER_CALLS = frozenset({
    "ArgumentParser", "add_argument", "add_argument_group", "add_mutually_exclusive_group", "set_defaults",
})
"""What a function that only builds its parser calls before the failing registration."""
STDLIB_MODULES = frozenset(getattr(sys, "stdlib_module_names", ())) | {"types", "warnings", "typing", "logging", "io", "os"}
"""Top-level names that import the standard library whatever project module shares them."""
MAX_IMPORT_HOPS = 16
"""Plain imports followed from a module to the one that fails; a guard against odd code."""


class StartFailures:
    """Which project programs fail at start, and which modules only such programs load."""

    def __init__(self, index: ProjectIndex, files: Optional[ProjectFiles], relative: Callable[[str], str],
                 root: Optional[str], imported: Callable[[ModuleFacts, str], Optional[ModuleFacts]]) -> None:
        self.index = index
        self.files = files
        self.relative = relative
        self._imported = imported
        self.root = os.path.abspath(root) if root else None
        self._imports: Dict[tuple, Optional[str]] = {}
        self._unreached: Dict[str, Optional[str]] = {}

    def import_failure(self, module: ModuleFacts, entry_dir: Optional[str] = None, hops: int = 0) -> Optional[str]:
        """Why importing the module, in a program whose script lives in ``entry_dir`` (the
        module's own folder when it is the script), raises ``ImportError``; else None."""
        entry_dir = entry_dir or os.path.dirname(os.path.abspath(module.path))
        key = (os.path.abspath(module.path), entry_dir)
        if key in self._imports:
            return self._imports[key]
        self._imports[key] = None  # an import cycle does not fail by itself
        found = self._import_failure(module, entry_dir, hops)
        self._imports[key] = found
        return found

    def _import_failure(self, module: ModuleFacts, entry_dir: str, hops: int) -> Optional[str]:
        for base, names, line, level in module.plain_from_imports:
            path = self._python_target(module, base, level, entry_dir)
            target = self._load(path) if path is not None else None
            if target is None or target is module:
                continue
            for name in names:
                if not _binds(target, name):
                    return (f"{self.relative(module.path)}:{line} imports `{name}` from {self.relative(target.path)}, "
                            f"which does not define it")
            if hops < MAX_IMPORT_HOPS:
                deeper = self.import_failure(target, entry_dir, hops + 1)
                if deeper is not None:
                    return deeper
        return None

    def _python_target(self, module: ModuleFacts, base: str, level: int, entry_dir: str) -> Optional[str]:
        """The file Python imports for ``from <dots><base> import ...`` in ``module``, when
        it is certain: a relative import's, or an absolute one found under the script's
        folder (``sys.path[0]``) and not elsewhere under the project root, where ``python -m``
        from the root would look instead; never a standard-library name."""
        if level:
            folder = os.path.dirname(os.path.abspath(module.path))
            for _ in range(level - 1):
                folder = os.path.dirname(folder)
            return _module_file(folder, base) if base else None
        if base.split(".", 1)[0] in STDLIB_MODULES:
            return None  # ``from types import ModuleType`` beside a project ``types.py`` reads the standard library
        found = _module_file(entry_dir, base)
        if found is None:
            return None
        root = self.root
        elsewhere = _module_file(root, base) if root else None
        return found if elsewhere in (None, found) else None

    def start_failure(self, module: ModuleFacts) -> Optional[str]:
        """Why the module, run as a program, fails before it runs anything, else None."""
        return self.import_failure(module) or _parser_failure(self.relative, module)

    def unreached(self, module: ModuleFacts) -> Optional[str]:
        """Why no program runs the module's code: every program that loads it fails at start;
        else None. A module that is a script itself is run."""
        key = os.path.abspath(module.path)
        if key not in self._unreached:
            self._unreached[key] = self._find_unreached(module)
        return self._unreached[key]

    def _find_unreached(self, module: ModuleFacts) -> Optional[str]:
        if self.files is None or module.cells or _has_main_block(module):
            return None
        entries = entry_programs(module.path, self.files, self._load, self._imported)
        if not entries:
            return None
        reasons: List[str] = []
        for entry in entries:
            loaded = self._load(entry)
            reason = self.start_failure(loaded) if loaded is not None and not loaded.cells else None
            if reason is None:
                return None
            reasons.append(reason)
        return "; ".join(reasons)

    def _load(self, path: str) -> Optional[ModuleFacts]:
        return self.index.modules.get(path) or self.index.load_file(path)


def _binds(target: ModuleFacts, name: str) -> bool:
    if name in target.toplevel or name in target.imports or target.star_imports or "__getattr__" in target.toplevel:
        return True
    if any(function.name == name for function in target.functions.values() if "." not in function.qualname):
        return True
    if os.path.basename(target.path) == "__init__.py" and _module_file(os.path.dirname(os.path.abspath(target.path)), name):
        return True  # a submodule
    return _assigned_in_loops_or_globals(target, name)


def _module_file(folder: str, dotted: str) -> Optional[str]:
    """``folder/a/b.py`` or ``folder/a/b/__init__.py`` for ``a.b``, when it exists."""
    path = os.path.join(folder, *dotted.split("."))
    for candidate in (path + ".py", os.path.join(path, "__init__.py")):
        if os.path.isfile(candidate):
            return os.path.abspath(candidate)
    return None


def _assigned_in_loops_or_globals(target: ModuleFacts, name: str) -> bool:
    """Bindings the top-level table may not list: a module-level ``for`` target, a name a
    function declares ``global`` and assigns, ``globals()[...] = ...``."""
    code = target.functions.get(MODULE_CODE)
    if code is not None and any(assign.target == name for assign in code.assigns):
        return True
    return any(_spelled(call) in ("globals", "setattr", "vars") for _, call in target.all_calls())


def _parser_failure(relative: Callable[[str], str], module: ModuleFacts) -> Optional[str]:
    code = module.functions.get(MODULE_CODE)
    if code is None:
        return None
    first = next((call for call in code.calls if _main_only(call) and call.func is not None), None)
    if first is None or not isinstance(first.func, Name) or "." in first.func.dotted:
        return None
    function = next((f for f in module.functions.values() if f.qualname == first.func.dotted), None)
    if function is None:
        return None
    line = _conflicting_registration(function)
    if line is None:
        return None
    return f"{relative(module.path)}:{line} registers an option string its parser already has (argparse raises ArgumentError)"


def _conflicting_registration(function: Function) -> Optional[int]:
    """The line of the first ``add_argument`` that repeats an option string of an earlier one
    on the same parser, when the function calls nothing but its parser before it."""
    seen: Dict[str, Set[str]] = {}
    registrations = {id(call) for call in function.calls if _spelled(call) == "add_argument"}
    for call in function.calls:
        if call.guards:
            return None
        name = _spelled(call)
        if name not in PARSER_CALLS:
            if not any(_inside(call, other) for other in function.calls if id(other) in registrations):
                return None
            continue
        if id(call) not in registrations or not isinstance(call.func, Name):
            continue
        receiver = call.func.dotted.rsplit(".", 1)[0]
        if not _strict_parser_built_here(function, receiver):
            return None  # built elsewhere, or with conflict_handler="resolve", which allows it
        strings = {arg.value for arg in call.args if isinstance(arg, Const) and isinstance(arg.value, str) and arg.value.startswith("-")}
        earlier = seen.setdefault(receiver, set())
        if strings & earlier:
            return call.span.line
        earlier |= strings
    return None


def _strict_parser_built_here(function: Function, receiver: str) -> bool:
    """The function binds ``receiver`` once, to an ``ArgumentParser(...)`` that keeps
    argparse's default conflict handler (``"error"``)."""
    bound = [assign.value for assign in function.assigns if assign.target == receiver]
    return (
        len(bound) == 1 and isinstance(bound[0], Call) and _spelled(bound[0]) == "ArgumentParser"
        and bound[0].kwarg("conflict_handler") is None and not bound[0].star_kwargs
    )


def _spelled(call: Call) -> str:
    return call.func.dotted.rsplit(".", 1)[-1] if isinstance(call.func, Name) else ""


def _inside(call: Call, outer: Call) -> bool:
    inner, span = call.span, outer.span
    return call is not outer and (span.line, span.col) <= (inner.line, inner.col) and (inner.end_line, inner.end_col) <= (span.end_line, span.end_col)


def _main_only(call: Call) -> bool:
    return any(
        truth and isinstance(test, Compare) and test.op == "=="
        and any(isinstance(side, Name) and side.dotted == "__name__" for side in (test.left, test.right))
        for test, truth in call.guards
    )


def _has_main_block(module: ModuleFacts) -> bool:
    code = module.functions.get(MODULE_CODE)
    return code is not None and any(_main_only(call) for call in code.calls)
