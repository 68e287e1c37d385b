"""Modules that never run, so nothing they would build is judged.

A module runs when a project file imports it (by any spelling the import over-approximation
of ``focus.importers`` sees) or when it is run as a script. One that only defines things (no
call at module level, so running it as a script does nothing) and that nothing imports never
runs, when a program of the project (a script or a notebook) uses its folder otherwise: a
trainer class left beside the one the entry point imports, its import commented out. A
folder no program of the project imports from may be a library's, imported by its users,
and is left alone, even when the library's own modules import from it. So is a project that
loads modules by computed names (``import_module(f"...")``, ``__import__``, Hydra's
``instantiate``, LightningCLI, ``pydoc.locate``): any of its modules may run. Only code
counts as such a use: "this script can locate your results" in a comment does not.
"""

from __future__ import annotations

import io
import os
import tokenize
from typing import Dict, Optional, Sequence

from seedlint.analysis.callsites import is_test_module
from seedlint.analysis.files import ProjectFiles
from seedlint.analysis.focus import importers
from seedlint.facts.model import MODULE_CODE, ModuleFacts

DYNAMIC_LOADING = (
    "import_module", "__import__", "spec_from_file_location", "run_path", "run_module", "load_source",
    "SourceFileLoader", "load_module", "instantiate", "LightningCLI", "locate", "get_class", "get_method",
    "_target_", "class_path",
)
"""Names whose use in a project file means modules may be loaded by a computed name."""
CONFIGURATION_KEYS = ("_target_", "class_path")
"""Of those, the ones a Python file uses as a string (a dictionary key), not as a name."""

_ALWAYS_LOADED = ("__init__.py", "__main__.py", "conftest.py", "setup.py")


class UnloadedModules:
    """Which project modules never run (see the module docstring)."""

    def __init__(self, files: Optional[ProjectFiles]) -> None:
        self.files = files
        self._dynamic: Optional[bool] = None
        self._memo: Dict[str, bool] = {}
        self._folders: Dict[str, bool] = {}

    def never_runs(self, module: ModuleFacts) -> bool:
        if self.files is None or module.cells or os.path.basename(module.path) in _ALWAYS_LOADED or is_test_module(module.path):
            return False
        code = module.functions.get(MODULE_CODE)
        if code is None or code.calls:
            return False
        if self._dynamic is None:
            self._dynamic = any(_uses_in_code(path, DYNAMIC_LOADING) for path in self.files.mentioning(DYNAMIC_LOADING))
        if self._dynamic:
            return False
        path = os.path.abspath(module.path)
        found = self._memo.get(path)
        if found is None:
            found = self._memo[path] = not self._imported(path) and self._folder_in_use(os.path.dirname(path))
        return found

    def _imported(self, path: str) -> bool:
        return bool(importers({path}, self.files, {}))

    def _folder_in_use(self, folder: str) -> bool:
        """Code outside the folder (tests aside) imports one of the folder's modules, and a
        script of the project (a file with a ``__main__`` block, or a notebook) is among the
        importers, directly or not: a library's own modules importing each other do not make
        a program (timm's ``layers/ml_decoder.py`` is for its users to import)."""
        found = self._folders.get(folder)
        if found is None:
            users = {
                os.path.abspath(user)
                for sibling in self.files.paths
                if os.path.dirname(sibling) == folder
                for user in importers({sibling}, self.files, {})
                if not is_test_module(user)
            }
            found = self._folders[folder] = any(os.path.dirname(user) != folder for user in users) and bool(users & self.files.programs())
        return found


def _uses_in_code(path: str, words: Sequence[str]) -> bool:
    """Whether the file uses one of ``words`` as a name, or a configuration key as a string;
    a file that is not Python source, or that does not tokenize, is taken to use them."""
    if not path.endswith(".py"):
        return True
    try:
        with open(path, "rb") as handle:
            tokens = list(tokenize.tokenize(io.BytesIO(handle.read()).readline))
    except (OSError, SyntaxError, tokenize.TokenError, UnicodeDecodeError):
        return True
    names = set(words)
    keys = [key for key in CONFIGURATION_KEYS if key in names]
    for token in tokens:
        if token.type == tokenize.NAME and token.string in names:
            return True
        if token.type == tokenize.STRING and any(key in token.string for key in keys):
            return True
    return False
