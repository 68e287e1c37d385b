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
from typing import Dict, List, Optional

from seedlint.analysis.files import ProjectFiles
from seedlint.analysis.flow import ValueFlow
from seedlint.analysis.index import ProjectIndex
from seedlint.analysis.lightning import Lightning
from seedlint.analysis.loaders import Loaders
from seedlint.analysis.loops import Loops
from seedlint.analysis.seeds import Seeds
from seedlint.analysis.start_methods import StartMethods
from seedlint.analysis.workers import WorkerCode
from seedlint.config import VERSION_SETTINGS, Settings, library_declarations
from seedlint.facts.model import ModuleFacts
from seedlint.versions import nearest_declarations


class Project:
    """The checked modules plus everything needed to reason across them."""

    def __init__(
        self, index: ProjectIndex, modules: List[ModuleFacts], settings: Settings, files: Optional[ProjectFiles] = None
    ) -> None:
        self.index = index
        self.modules = modules
        self.settings = settings
        self.files = files
        self._memo: Dict[str, object] = {}
        self._settings_by_directory: Dict[str, Settings] = {}

    def memo(self, key: str, compute):
        """A value rules share, computed once per run (a verdict several rules report)."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    def settings_for(self, path: str) -> Settings:
        """The settings for one file: the versions declared nearest to it (an example folder
        with its own requirements.txt), unless the command line or ``[tool.seedlint]``
        pins them. The same whichever way the run was started."""
        directory = os.path.dirname(os.path.abspath(path))
        found = self._settings_by_directory.get(directory)
        if found is None:
            declared = nearest_declarations(directory, self.settings.project_root)
            changes = {
                attr: declared[package] for package, attr in VERSION_SETTINGS
                if package in declared and package not in self.settings.pinned_versions
            }
            libraries = library_declarations(declared)
            if libraries:
                changes["library_versions"] = libraries
            found = self._settings_by_directory[directory] = replace(self.settings, **changes) if changes else self.settings
        return found

    @cached_property
    def flow(self) -> ValueFlow:
        return ValueFlow(self.index, self.files)

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
