"""Programs that fail before they run anything: code only they load never runs.

Two failures are read, each certain wherever the program starts:

- an import: a ``from X import y`` that runs whenever the module is imported (``plain_from_imports``),
  where ``X`` is a project module that binds no ``y`` (no definition, assignment or import
  of it, no star import, no module ``__getattr__``, and no submodule ``X.y``): Python raises
  ``ImportError``; so does every module whose own plain import reaches such a module;
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

    def __init__(self, index: ProjectIndex, files: Optional[ProjectFiles], relative: Callable[[str], str]) -> None:
        self.index = index
        self.files = files
        self.relative = relative
        self._imports: Dict[str, Optional[str]] = {}
        self._unreached: Dict[str, Optional[str]] = {}

    def import_failure(self, module: ModuleFacts, hops: int = 0) -> Optional[str]:
        """Why importing the module raises ``ImportError``, else None."""
        key = os.path.abspath(module.path)
        if key in self._imports:
            return self._imports[key]
        self._imports[key] = None  # an import cycle does not fail by itself
        found = self._import_failure(module, hops)
        self._imports[key] = found
        return found

    def _import_failure(self, module: ModuleFacts, hops: int) -> Optional[str]:
        for base, names, line in module.plain_from_imports:
            if base.split(".", 1)[0] in STDLIB_MODULES:
                continue  # ``from types import ModuleType`` beside a project ``types.py`` reads the standard library
            target = self.index.module_named(base, near=module)
            if target is None or target is module or target.name != base:
                continue  # found only by a name Python would not import it by
            for name in names:
                if not _binds(self.index, target, base, name):
                    return (f"{self.relative(module.path)}:{line} imports `{name}` from {self.relative(target.path)}, "
                            f"which does not define it")
            if hops < MAX_IMPORT_HOPS:
                deeper = self.import_failure(target, hops + 1)
                if deeper is not None:
                    return deeper
        return None

    def start_failure(self, module: ModuleFacts) -> Optional[str]:
        """Why the module, run as a program, fails before it runs anything, else None."""
        return self.import_failure(module) or _parser_failure(self.relative, module)

    def unreached(self, module: ModuleFacts) -> Optional[str]:
        """Why no program runs the module's code: it fails to import, or every program that
        loads it fails at start; else None. A module that is a script itself is run."""
        key = os.path.abspath(module.path)
        if key not in self._unreached:
            self._unreached[key] = self._find_unreached(module)
        return self._unreached[key]

    def _find_unreached(self, module: ModuleFacts) -> Optional[str]:
        failure = self.import_failure(module)
        if failure is not None:
            return failure
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

    def _imported(self, importer: ModuleFacts, target: str) -> Optional[ModuleFacts]:
        parts = target.split(".")
        for cut in range(len(parts), 0, -1):
            imported = self.index.module_named(".".join(parts[:cut]), near=importer)
            if imported is not None:
                return imported
        return None


def _binds(index: ProjectIndex, target: ModuleFacts, base: str, name: str) -> bool:
    if name in target.toplevel or name in target.imports or target.star_imports or "__getattr__" in target.toplevel:
        return True
    if any(function.name == name for function in target.functions.values() if "." not in function.qualname):
        return True
    if os.path.basename(target.path) == "__init__.py" and index.module_named(f"{base}.{name}", near=target) is not None:
        return True  # a submodule
    return _assigned_in_loops_or_globals(target, name)


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
        strings = {arg.value for arg in call.args if isinstance(arg, Const) and isinstance(arg.value, str) and arg.value.startswith("-")}
        earlier = seen.setdefault(receiver, set())
        if strings & earlier:
            return call.span.line
        earlier |= strings
    return None


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
