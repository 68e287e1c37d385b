"""Module-level functions that nothing names, so nothing calls: what they would build is
never built.

A function runs when something calls it, and to call it code must name it: a call, an
import, a reference passed on (``worker_init_fn=seed_worker``), or a string a registry or a
configuration gives (``type: build_loader``). A module-level function whose name the
project's Python files and notebooks spell only in its own ``def``, that no text file or
quoted string gives, and whose module a program of the project (a script or a notebook)
imports (directly or not; one only a library's own modules import may be called by the
library's users), never runs (VoCo's ``get_loader_1k``, left beside the ``get_loader`` the
training script calls). Decorated functions (registered, or turned into commands), dunder
names, tests, and modules that hand all their functions to a command-line tool
(``fire.Fire()``) are left alone.
"""

from __future__ import annotations

import os
import re
from typing import Dict, Optional

from seedlint.analysis.callsites import is_test_module
from seedlint.analysis.files import ProjectFiles
from seedlint.analysis.focus import importers
from seedlint.facts.model import MODULE_CODE, Function, ModuleFacts

WHOLE_MODULE_COMMANDS = re.compile(r"\bFire\(\s*\)")
"""``fire.Fire()`` without a component exposes every function of the module as a command."""


class UnnamedFunctions:
    """Which module-level functions nothing names (see the module docstring)."""

    def __init__(self, files: Optional[ProjectFiles], given_names) -> None:
        self.files = files
        self.given_names = given_names
        self._texts: Dict[str, Optional[str]] = {}
        self._verdicts: Dict[tuple, bool] = {}

    def never_called(self, module: ModuleFacts, function: Function) -> bool:
        key = (module.path, function.qualname)
        if key not in self._verdicts:
            self._verdicts[key] = self._never_called(module, function)
        return self._verdicts[key]

    def _never_called(self, module: ModuleFacts, function: Function) -> bool:
        if self.files is None or module.cells or function.qualname == MODULE_CODE or "." in function.qualname:
            return False
        name = function.name
        if function.decorators or function.nested or function.is_lambda or (name.startswith("__") and name.endswith("__")):
            return False
        if is_test_module(module.path):
            return False
        own = os.path.abspath(module.path)
        if any(os.path.abspath(path) != own for path in self.files.mentioning([name])):
            return False
        text = self._text(module.path)
        if text is None or len(re.findall(rf"\b{re.escape(name)}\b", text)) != 1 or WHOLE_MODULE_COMMANDS.search(text):
            return False
        if self.given_names is not None and self.given_names.gives(name):
            return False
        # A module no program of the project imports may be a library's, whose users call what
        # it defines.
        users = {os.path.abspath(path) for path in importers({own}, self.files, {})}
        return bool(users & self.files.programs())

    def _text(self, path: str) -> Optional[str]:
        if path not in self._texts:
            try:
                with open(path, encoding="utf-8", errors="replace") as handle:
                    self._texts[path] = handle.read()
            except OSError:
                self._texts[path] = None
        return self._texts[path]
