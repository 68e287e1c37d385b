"""The project a run checks: the modules rules start from, and memoised views over them.

Every view is computed once per run, on first use: ``flow`` (the value flow), ``loaders``
(every DataLoader call and its resolved arguments), ``workers`` (the code DataLoader
workers run for a dataset object), ``loops`` (epoch loops), ``lightning`` (Trainers and
what they run), ``seeds`` (where seed values come from), ``start_methods`` (how workers start).
"""

from __future__ import annotations

import os
from dataclasses import replace
from functools import cached_property
from typing import Dict, FrozenSet, Iterable, List, Optional, Set, Tuple

from seedlint.analysis import inputs
from seedlint.analysis.documented_commands import DocumentedCommands
from seedlint.analysis.entry_programs import entry_programs
from seedlint.analysis.files import ProjectFiles
from seedlint.analysis.imported_names import reachable_functions, runs_line
from seedlint.analysis.name_mentions import GivenNames
from seedlint.analysis.flow import ValueFlow
from seedlint.analysis.index import ProjectIndex
from seedlint.analysis.lightning import Lightning
from seedlint.analysis.loaders import Loaders
from seedlint.analysis.loops import Loops
from seedlint.analysis.seeds import Seeds
from seedlint.analysis.start_failures import StartFailures
from seedlint.analysis.start_methods import StartMethods
from seedlint.analysis.workers import WorkerCode
from seedlint.config import Settings, versions_from
from seedlint.discovery import ProjectTree
from seedlint.facts.model import Attr, Call, Function, ModuleFacts, Name
from seedlint.analysis.unloaded import UnloadedModules
from seedlint.analysis.unnamed_functions import UnnamedFunctions
from seedlint.knowledge.platforms import LINUX_ONLY, UNIX_ONLY
from seedlint.versions import Resolution, evidence_ranges, nearest_ranges, resolve
from seedlint.versions.model import declared_linux


MAX_PROGRAM_MODULES = 400
"""Project modules one program's imports are followed into for the APIs they use; a guard
against pathological projects (a real training program loads far fewer)."""


class Project:
    """The checked modules plus everything needed to reason across them."""

    def __init__(
        self, index: ProjectIndex, modules: List[ModuleFacts], settings: Settings, files: Optional[ProjectFiles] = None
    ) -> None:
        self.index = index
        self.modules = modules
        self.settings = settings
        self.files = files
        self.focus: Optional[FrozenSet[str]] = None
        """The modules whose loaders rules judge, in a run over some files (None: all)."""
        self._memo: Dict[str, object] = {}
        self._settings_by_path: Dict[str, Settings] = {}
        self._versions_by_path: Dict[str, Resolution] = {}
        self._declared_by_directory: Dict[str, tuple] = {}
        self._api_uses_by_path: Dict[str, List[Tuple[str, str, int]]] = {}

    @cached_property
    def start_failures(self) -> StartFailures:
        """Which programs fail before they run anything, and what only they load."""
        return StartFailures(self.index, self.files, self.settings.relative, self.settings.project_root, self._imported_module)

    @cached_property
    def unnamed_functions(self) -> UnnamedFunctions:
        """Which module-level functions nothing names, so nothing calls."""
        return UnnamedFunctions(self.files, self.flow.given_names)

    @cached_property
    def unloaded(self) -> UnloadedModules:
        """Which modules never run (nothing imports them and they only define things)."""
        return UnloadedModules(self.files)

    def in_focus(self, module: ModuleFacts) -> bool:
        """Rules judge the loaders, epoch loops and seedings of this module in this run."""
        return self.focus is None or os.path.abspath(module.path) in self.focus

    def calls_spelled(self, names: Iterable[str]) -> List[Tuple[ModuleFacts, Function, Call]]:
        """The calls of the checked modules whose callee is spelled, or imported, under one of
        ``names`` (``Trainer`` matches ``pl.Trainer(...)`` and ``T(...)`` after ``from
        lightning import Trainer as T``), in module and call order."""
        by_name = self._calls_by_name
        found = {entry[0]: entry[1:] for name in set(names) for entry in by_name.get(name, ())}
        return [found[order] for order in sorted(found)]

    @cached_property
    def _calls_by_name(self) -> Dict[str, List[tuple]]:
        by_name: Dict[str, List[tuple]] = {}
        order = 0
        for module in self.modules:
            for function, call in module.all_calls():
                order += 1
                for name in _callee_names(call):
                    by_name.setdefault(name, []).append((order, module, function, call))
        return by_name

    def memo(self, key: str, compute):
        """A value rules share, computed once per run (a verdict several rules report)."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    def settings_for(self, path: str) -> Settings:
        """The settings for one file: the versions its program runs on (``versions_for``),
        unless the command line or ``[tool.seedlint]`` pins them. The same whichever way
        the run was started."""
        path = os.path.abspath(path)
        found = self._settings_by_path.get(path)
        if found is None:
            module = self.index.modules.get(path)
            imported = {target.split(".", 1)[0] for target in module.imports.values()} if module else set()
            changes = versions_from(self.versions_for(path), self.settings.pinned_versions, imported)
            found = self._settings_by_path[path] = replace(self.settings, **changes)
        return found

    def versions_for(self, path: str) -> Resolution:
        """Every package's range for the program of one file: what the folders from its own
        up to the project root declare, the versioned APIs it and the project modules it
        imports use outside a feature check, and the bounds those imply."""
        path = os.path.abspath(path)
        found = self._versions_by_path.get(path)
        if found is None:
            directory = os.path.dirname(path)
            if directory not in self._declared_by_directory:
                self._declared_by_directory[directory] = nearest_ranges(directory, self.settings.project_root)
            declared, conflicts = self._declared_by_directory[directory]
            found = self._versions_by_path[path] = resolve(declared, evidence_ranges(self._api_uses(path)), conflicts)
        return found

    def linux_only_users(self, path: str) -> Optional[str]:
        """Why every program that loads the module of ``path`` (as an import of its entry
        point, ``analysis.entry_programs``) runs on Linux only, when there are such programs
        and each does; else None."""
        if self.files is None:
            return None
        key = f"linux-only-users:{os.path.abspath(path)}"
        return self.memo(key, lambda: self._linux_only_users(path))

    def _linux_only_users(self, path: str) -> Optional[str]:
        entries = entry_programs(path, self.files, lambda user: self.index.modules.get(user) or self.index.load_file(user),
                                 self._imported_module)
        if not entries:
            return None
        reasons = [self.linux_only(entry) for entry in entries]
        if not all(reasons):
            return None
        shown = self.settings.relative(entries[0])
        others = f" and {len(entries) - 1} other" + ("s" if len(entries) > 2 else "") if len(entries) > 1 else ""
        return f"every program that loads {self.settings.relative(path)} ({shown}{others}) is: {reasons[0]}"

    def linux_only(self, path: str) -> Optional[str]:
        """Why the program of one file runs on Linux only (it uses a Linux-only API outside a
        feature check, ``knowledge.platforms``, or the project installs only on Linux), else None."""
        for key, file, line in self._api_uses(os.path.abspath(path)):
            if key in LINUX_ONLY:
                return f"{file}:{line} uses `{key}`: {LINUX_ONLY[key]}"
        return declared_linux(os.path.dirname(os.path.abspath(path)), self.settings.project_root)

    def unix_only(self, path: str) -> Optional[str]:
        """Why the program of one file cannot run on Windows (it uses a Unix-only name outside
        a feature check, ``knowledge.platforms.UNIX_ONLY``), else None."""
        for key, file, line in self._api_uses(os.path.abspath(path)):
            if key in UNIX_ONLY:
                return f"{file}:{line} uses `{key}`, which does not exist on Windows"
        return None

    def _api_uses(self, path: str) -> List[Tuple[str, str, int]]:
        """The watched APIs (``knowledge.watched_apis``) that a file and the project modules
        it imports use outside a feature check: (key, file, line)."""
        found = self._api_uses_by_path.get(path)
        if found is None:
            found = self._api_uses_by_path[path] = self._program_api_uses(path)
        return found

    def _program_api_uses(self, path: str) -> List[Tuple[str, str, int]]:
        """The watched-API uses of a file and of the project modules its imports load, and
        theirs in turn (``from isegm.utils.exp_imports.default import *`` reaches the
        transforms module that calls ``albumentations.augmentations.functional.resize``)."""
        module = self.index.modules.get(path) or self.index.load_file(path)
        if module is None:
            return []
        programs = [module]
        seen = {module.path}
        queue = [module]
        members: Dict[str, Optional[Set[str]]] = {module.path: None}
        """Per module, the names the program imports from it (None: the whole module)."""
        while queue and len(programs) < MAX_PROGRAM_MODULES:
            importer = queue.pop(0)
            for target in (*importer.imports.values(), *importer.star_imports):
                imported, member = self._imported_member(importer, target)
                if imported is None:
                    continue
                if target in importer.star_imports or member is None or members.get(imported.path, set()) is None:
                    members[imported.path] = None
                else:
                    members.setdefault(imported.path, set()).add(member)
                if imported.path in seen:
                    continue
                seen.add(imported.path)
                programs.append(imported)
                queue.append(imported)
                if os.path.basename(imported.path) != "__init__.py" or target != imported.name:
                    continue
                # ``import pkg.distributed``: its names are what its __init__ re-exports from its
                # own modules (one level, and not through further packages: ``import kornia``
                # would otherwise read the whole library).
                for inner in imported.imports.values():
                    if not inner.startswith(imported.name + "."):
                        continue
                    reexported = self._imported_module(imported, inner)
                    if reexported is not None and reexported.path not in seen and os.path.basename(reexported.path) != "__init__.py":
                        seen.add(reexported.path)
                        programs.append(reexported)
                        queue.append(reexported)
        found = []
        for other in programs:
            names = members.get(other.path)
            allowed = reachable_functions(other, names) if names is not None else None
            found += [
                (api, self.settings.relative(other.path), line) for api, line in getattr(other, "api_uses", ())
                if runs_line(other, allowed, line)
            ]
        return found

    def _imported_member(self, importer: ModuleFacts, target: str) -> Tuple[Optional[ModuleFacts], Optional[str]]:
        """The module an import target resolves to, and the member it names there (None for
        the module itself: ``import train``)."""
        parts = target.split(".")
        for cut in range(len(parts), 0, -1):
            imported = self.index.module_named(".".join(parts[:cut]), near=importer)
            if imported is not None:
                return imported, parts[cut] if cut < len(parts) else None
        return None, None

    def _imported_module(self, importer: ModuleFacts, target: str) -> Optional[ModuleFacts]:
        return self._imported_member(importer, target)[0]

    def _common_folder(self) -> Optional[str]:
        """The folder holding every checked module, for a project with no root marker."""
        folders = [os.path.dirname(os.path.abspath(m.path)) for m in self.modules]
        try:
            return os.path.commonpath(folders) if folders else None
        except ValueError:
            return None

    @cached_property
    def tree(self) -> ProjectTree:
        """The project's scripts, documents and configuration files (one walk)."""
        return ProjectTree(self.settings.project_root or self._common_folder(), inputs.read)

    @cached_property
    def flow(self) -> ValueFlow:
        flow = ValueFlow(self.index, self.files)
        flow.torch_range_for = lambda path: self.settings_for(path).torch_version
        flow.documented_commands = DocumentedCommands(self.tree)
        flow.given_names = GivenNames(self.tree, self.files.paths if self.files is not None else [m.path for m in self.modules])
        return flow

    @cached_property
    def loaders(self) -> Loaders:
        return Loaders(self)

    @cached_property
    def workers(self) -> WorkerCode:
        return WorkerCode(self)

    @cached_property
    def loops(self) -> Loops:
        return Loops(self)

    @cached_property
    def lightning(self) -> Lightning:
        return Lightning(self)

    @cached_property
    def seeds(self) -> Seeds:
        return Seeds(self)

    @cached_property
    def start_methods(self) -> StartMethods:
        return StartMethods(self)


def _callee_names(call: Call) -> Set[str]:
    """The last names the callee is spelled or imported under."""
    func = call.func
    if isinstance(func, Attr):
        return {func.attr}
    if not isinstance(func, Name):
        return set()
    names = {func.dotted.rsplit(".", 1)[-1]}
    if func.qualified is not None:
        names.add(func.qualified.rsplit(".", 1)[-1])
    return names
