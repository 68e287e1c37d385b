"""What every rule is, and the project view rules check."""

from __future__ import annotations

import os
from typing import ClassVar, Dict, Iterable, List, Optional, Tuple

from seedlint.config import Settings
from seedlint.dataflow import Dataflow
from seedlint.diagnostics import Diagnostic, Fix
from seedlint.facts.model import ModuleFacts, Span
from seedlint.index import ProjectIndex
from seedlint.loaders import LoaderCall, find_loader_calls, loader_classes


class Project:
    """The checked modules plus everything needed to reason across them."""

    def __init__(self, index: ProjectIndex, modules: List[ModuleFacts], settings: Settings) -> None:
        self.index = index
        self.flow = Dataflow(index)
        self.modules = modules
        self.settings = settings
        self._loader_calls: Optional[List[LoaderCall]] = None
        self._subclasses: Dict[frozenset, frozenset] = {}

    def subclasses(self, classes: frozenset) -> frozenset:
        """``classes`` and every checked-module class derived from them, by qualified name."""
        if classes not in self._subclasses:
            self._subclasses[classes] = self.flow.subclasses_within(self.modules, classes)
        return self._subclasses[classes]

    def loader_calls(self) -> List[LoaderCall]:
        if self._loader_calls is None:
            classes = self.subclasses(loader_classes(self.settings.extra_loader_classes))
            self._loader_calls = list(find_loader_calls(self.flow, self.modules, classes))
        return self._loader_calls


class Rule:
    """A rule: a code, a name, a message, documentation (the class docstring, in ruff's
    sections) and ``check``. Rules never read files; they ask the project."""

    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]
    fix_safety: ClassVar[Optional[str]] = None
    """"safe", "unsafe" (applied only with --unsafe-fixes), or None when there is no fix."""

    def check(self, project: Project) -> Iterable[Diagnostic]:
        raise NotImplementedError

    def triggers(self, settings: Settings) -> Tuple[bytes, ...]:
        """Byte strings a file must mention for this rule to start from it (the prefilter)."""
        extra = tuple(name.rsplit(".", 1)[-1].encode() for name in settings.extra_loader_classes)
        return (b"DataLoader",) + extra

    def report(self, module: ModuleFacts, span: Span, message: str, fix: Optional[Fix] = None) -> Diagnostic:
        return Diagnostic(module.path, span, self.code, self.name, message, fix)

    @classmethod
    def documentation(cls) -> str:
        import inspect

        return inspect.cleandoc(cls.__doc__ or "")


def where(module: ModuleFacts, span: Span) -> str:
    """``file.py:12`` for messages that point at another place."""
    return f"{os.path.basename(module.path)}:{span.line}"
