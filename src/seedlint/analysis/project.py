"""The project a run checks: the modules rules start from, and memoised views over them.

Every view is computed once per run, on first use: ``flow`` (the value flow), ``loaders``
(every DataLoader call and its resolved arguments), ``workers`` (the code DataLoader
workers run for a dataset object), ``loops`` (epoch loops), ``lightning`` (Trainers and
what they run), ``seeds`` (where seed values come from).
"""

from __future__ import annotations

from functools import cached_property
from typing import Dict, List, Optional

from seedlint.analysis.files import ProjectFiles
from seedlint.analysis.flow import ValueFlow
from seedlint.analysis.index import ProjectIndex
from seedlint.analysis.lightning import Lightning
from seedlint.analysis.loaders import Loaders
from seedlint.analysis.loops import Loops
from seedlint.analysis.seeds import Seeds
from seedlint.analysis.workers import WorkerCode
from seedlint.config import Settings
from seedlint.facts.model import ModuleFacts


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

    def memo(self, key: str, compute):
        """A value rules share, computed once per run (a verdict several rules report)."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

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
