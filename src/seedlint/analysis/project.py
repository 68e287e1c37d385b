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
from seedlint.config import Settings
from seedlint.dataflow import Dataflow
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
        self._subclasses: Dict[frozenset, frozenset] = {}

    @cached_property
    def flow(self) -> ValueFlow:
        return ValueFlow(self.index, self.files)

    @cached_property
    def loaders(self):
        from seedlint.analysis.loaders import Loaders

        return Loaders(self)

    @cached_property
    def workers(self):
        from seedlint.analysis.workers import WorkerCode

        return WorkerCode(self)

    @cached_property
    def seeds(self):
        from seedlint.analysis.seeds import Seeds

        return Seeds(self)

    @cached_property
    def dataflow(self) -> Dataflow:
        return Dataflow(self.index)

    def subclasses(self, classes: frozenset) -> frozenset:
        """``classes`` and every checked-module class derived from them, by qualified name."""
        if classes not in self._subclasses:
            self._subclasses[classes] = self.dataflow.subclasses_within(self.modules, classes)
        return self._subclasses[classes]

    @cached_property
    def _loader_calls(self):
        from seedlint.loaders import find_loader_calls, loader_classes

        classes = self.subclasses(loader_classes(self.settings.extra_loader_classes))
        return list(find_loader_calls(self.dataflow, self.modules, classes))

    def loader_calls(self):
        return self._loader_calls
