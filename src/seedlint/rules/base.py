"""What every rule is, and the project view rules check."""

from __future__ import annotations

import os
from typing import ClassVar, Iterable, List, Optional, Tuple

from seedlint.analysis.config_files import config_where
from seedlint.analysis.iteration_screen import last_spelling
from seedlint.analysis.project import Project
from seedlint.analysis.start_methods import StartMethod
from seedlint.config import Settings
from seedlint.diagnostics import Diagnostic, Evidence, Fix
from seedlint.facts.model import ModuleFacts, Span
from seedlint.knowledge.hf_datasets import from_hf_datasets
from seedlint.knowledge.library_loaders import LIBRARY_LOOP_SPELLINGS, library_loop
from seedlint.notebooks import cell_where


LOOP_TRIGGERS = (b"_loader", b"dataloader", b"for epoch")
"""A file with an epoch loop builds its loader (``DataLoader``), names the one it iterates
(``train_loader``, ``dataloader``), or spells its epoch loop so (a script that gets its
loader from a builder under another name: ``batches = make_pipeline()``)."""


class Rule:
    """A rule: a code, a name, a message, documentation (the class docstring, in ruff's
    sections) and ``check``. Rules never read files; they ask the project."""

    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]
    fix_safety: ClassVar[Optional[str]] = None
    """"safe", "unsafe" (applied only with --unsafe-fixes), or None when there is no fix."""
    severity: ClassVar[str] = "error"
    """The default severity: "error" when the bug happens on the declared versions,
    "warning" when it happens only under conditions seedlint cannot see."""

    def check(self, project: Project) -> Iterable[Diagnostic]:
        raise NotImplementedError

    def triggers(self, settings: Settings) -> Tuple[bytes, ...]:
        """Byte strings a file must mention for this rule to start from it (the prefilter):
        the files that build loaders, and those that read them (how many passes a loader
        gets, and what the main process draws between them, decide verdicts and messages)."""
        extra = tuple(name.rsplit(".", 1)[-1].encode() for name in settings.extra_loader_classes)
        return (b"DataLoader", b"WebLoader") + LIBRARY_LOOP_SPELLINGS + LOOP_TRIGGERS + extra

    def report(
        self, module: ModuleFacts, span: Span, message: str, fix: Optional[Fix] = None, severity: Optional[str] = None,
        related: Iterable[Optional[ModuleFacts]] = (), evidence: Iterable[Tuple[str, Span, str]] = (),
    ) -> Diagnostic:
        """A finding anchored at ``span`` of ``module``; ``related`` are the modules of the
        other places it depends on (the loader, the dataset, the draw); ``evidence`` the
        places the message names, as (path, span, note)."""
        places = tuple(Evidence(os.path.abspath(path), where_, note) for path, where_, note in evidence)
        diagnostic = Diagnostic(module.path, span, self.code, self.name, message, fix, severity or self.severity, evidence=places)
        add_related(diagnostic, related)
        return diagnostic

    @classmethod
    def documentation(cls) -> str:
        import inspect

        return inspect.cleandoc(cls.__doc__ or "")


def add_related(diagnostic: Diagnostic, modules: Iterable[Optional[ModuleFacts]]) -> None:
    """Record more modules the finding depends on (met again through another loader)."""
    anchor = os.path.abspath(diagnostic.path)
    for module in modules:
        if module is not None and os.path.abspath(module.path) != anchor:
            diagnostic.related.add(os.path.abspath(module.path))


def built_in(instance) -> Optional[ModuleFacts]:
    """The module where a dataset object was built, when the flow knows it."""
    origin = getattr(instance, "built_at", None)
    return origin[0] if origin is not None else None


def where(module: ModuleFacts, span: Span) -> str:
    """``file.py:12`` for messages that point at another place (``nb.ipynb:cell 3:9`` in a
    notebook)."""
    if module.cells:
        return f"{os.path.basename(module.path)}:{cell_where(module.cells, span.line)}"
    return f"{os.path.basename(module.path)}:{span.line}"


def start_method_where(method: StartMethod) -> str:
    """``set_start_method at train.py:3``: what sets a start method, and where."""
    if method.module is None or method.span is None:
        return method.setter
    joint = ", " if method.setter.startswith("multiprocessing_context") else " at "
    return f"{method.setter}{joint}{where(method.module, method.span)}"


def loaded_at(loader) -> str:
    """``at train.py:40``, or for a loader a library's training loop builds, ``by the Hugging
    Face Trainer's DataLoader (train.py:40)``."""
    loop = library_loop(loader.library)
    place = where(loader.module, loader.call.span)
    return f"by {loop.spelled} ({place})" if loop is not None else f"at {place}"


def built(instance, loader=None) -> str:
    """`` built at train.py:40`` when the object was built away from the loader's own call."""
    origin = instance.built_at
    if origin is None:
        return ""
    module, call = origin
    if loader is not None and module.path == loader.module.path and loader.call.span.line <= call.span.line <= loader.call.span.end_line:
        return ""
    return f" built at {where(module, call.span)}"


def dataset_name(dataset) -> str:
    """How messages name a dataset object: its class (a library class by its last name)."""
    if hasattr(dataset, "cls"):
        return dataset.cls.cls.name
    if from_hf_datasets(dataset.qualified):
        return "Dataset"  # ``load_dataset(...)``, ``Dataset.from_dict(...)``: a Hugging Face Dataset
    return dataset.qualified.rsplit(".", 1)[-1]


def chosen(dataset) -> str:
    """`` (one of the classes ... may pick)`` when a run-time name picks the dataset's class."""
    label = getattr(dataset, "chosen", None)
    return f" ({label})" if label else ""


def workers_condition(workers) -> str:
    """What starts the loader's workers, when it is not the program's defaults: a documented
    command (`` (the workers start when the program runs with `--num_workers 8`, as
    scripts/train.sh:4 does; the option's default starts none)``), or only an option nothing
    documented sets."""
    if workers.documented:
        first = workers.documented[0]
        return (
            f" (the workers start when the program runs with `{first.spelled}`, as {first.file}:{first.line} does; "
            "the option's default starts none)"
        )
    if workers.option:
        return (
            f" (only when the program runs with `{workers.option}` above 0: its default starts no workers, and no "
            "command the project documents passes it)"
        )
    if workers.configured:
        first = workers.configured[0]
        others = len({v.place[0] for v in workers.configured} - {first.place[0]})
        more = f"; {others} other configuration file{'s' if others > 1 else ''} set{'' if others > 1 else 's'} it too" if others else ""
        return f" ({first.value} workers, set at {config_where(first.place, None)}{more})"
    return ""


def workers_severity(workers) -> Optional[str]:
    """"warning" when only an undocumented command-line option starts the workers, else
    the rule's own severity (None)."""
    return "warning" if workers.option else None


def workers_evidence(project, workers) -> List[Tuple[str, Span, str]]:
    """Evidence for each documented command that starts the loader's workers."""
    root = project.settings.project_root or os.getcwd()
    found = [
        (os.path.join(root, v.file), Span(v.line, 0, v.line, 0), f"runs the program with `{v.spelled}`: its workers start here")
        for v in workers.documented
    ]
    found += [(v.place[0], Span(v.place[1], 0, v.place[1], 0), f"sets {v.value} workers") for v in workers.configured]
    return found


def abstract_stub(function) -> bool:
    """A method whose body only raises ``NotImplementedError``: reached through an object
    whose concrete class is not known, the method that really runs is an override."""
    return (
        function.class_name is not None and bool(function.exits) and not function.assigns
        and not function.returns and not function.yields and not function.yield_froms
        and all(last_spelling(call.func) == "NotImplementedError" for call in function.calls)
    )
