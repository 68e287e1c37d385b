"""SDL012 notebook-worker-code-under-spawn."""

from __future__ import annotations

from typing import Dict, Iterable, Iterator, Optional, Tuple

from seedlint.analysis.loaders import LoaderCall
from seedlint.analysis.objects import Frame, FunctionObj
from seedlint.analysis.start_methods import StartMethod
from seedlint.diagnostics import Diagnostic
from seedlint.facts.model import ModuleFacts, Span
from seedlint.rules.base import Project, Rule, add_related, loaded_at, start_method_where
from seedlint.rules.pickling import pickling_loaders, where_workers_pickle

ROLES = ("worker_init_fn", "collate_fn")


class NotebookWorkerCodeUnderSpawn(Rule):
    """
    ## What it does
    Finds a `DataLoader` with worker processes, in a Jupyter notebook, whose dataset is an
    object of a class defined in the notebook, or whose `collate_fn` or `worker_init_fn` is a
    function defined in the notebook, where its workers may start by `spawn` or `forkserver`.

    The diagnostic is an *error* when the code sets the `spawn` or `forkserver` start method
    (`multiprocessing_context="spawn"`, `set_start_method`), and a *warning* otherwise (its
    default severity), where spawn or forkserver can be the default: Windows and macOS, and
    Linux from Python 3.14. A program that runs only on Linux on Pythons before 3.14 forks
    and is not reported; loaders that use the `fork` start method explicitly are not either.
    Lambdas and functions or classes defined inside a function are SDL006.

    ## Why is this bad?
    Under `spawn` and `forkserver` the DataLoader pickles the dataset, `collate_fn` and
    `worker_init_fn`, and each worker imports what they name. What a notebook defines lives in
    its kernel's `__main__`, which a worker cannot import: every worker dies with
    `AttributeError: Can't get attribute 'Squares' on <module '__main__' (built-in)>` and the
    loader raises `RuntimeError: DataLoader worker (pid ...) exited unexpectedly`. The same
    notebook works on a Linux machine (which forks) and fails on a Mac, or on Linux from
    Python 3.14.

    ## Example
    ```python
    # a notebook cell
    class Squares(Dataset):
        def __len__(self):
            return 64

        def __getitem__(self, index):
            return torch.tensor(float(index * index))

    loader = DataLoader(Squares(), batch_size=8, num_workers=2)
    ```

    ## Use instead
    Move the class (and the functions the workers run) into a `.py` module next to the
    notebook and import it:
    ```python
    # squares.py
    class Squares(Dataset):
        ...

    # the notebook cell
    from squares import Squares

    loader = DataLoader(Squares(), batch_size=8, num_workers=2)
    ```

    ## Fix safety
    No automatic fix: seedlint does not write new modules or edit notebooks.
    """

    code = "SDL012"
    name = "notebook-worker-code-under-spawn"
    summary = "worker code defined in a notebook cannot be imported by spawned workers"
    fix_safety = None
    severity = "warning"

    def check(self, project: Project) -> Iterable[Diagnostic]:
        found: Dict[Tuple[str, int, int], Diagnostic] = {}
        for loader, frame, method, error in pickling_loaders(project):
            where = None if error else where_workers_pickle(project, loader, frame)
            for module, span, name, role in self._defined_in_notebooks(project, loader, frame):
                key = (module.path, span.line, span.col)
                if key not in found:
                    found[key] = self._diagnostic(module, span, name, role, loader, method, error, where)
                add_related(found[key], (loader.module, frame.module))
        yield from found.values()

    def _defined_in_notebooks(
        self, project: Project, loader: LoaderCall, frame: Frame
    ) -> Iterator[Tuple[ModuleFacts, Span, str, str]]:
        """(module, anchor, name, role) of each object the workers need that a notebook's
        top level defines."""
        for role in ROLES:
            for value in project.loaders.argument(loader, role, frame).values:
                if isinstance(value, FunctionObj) and _notebook_top_level(value.function.module, value.function.function.qualname):
                    function = value.function.function
                    yield value.function.module, function.span, function.name, role
        for instance in project.loaders.project_datasets(loader, frame):
            cls = instance.cls
            if _notebook_top_level(cls.module, cls.cls.qualname):
                yield cls.module, cls.cls.span, cls.cls.name, "dataset"

    def _diagnostic(
        self, module: ModuleFacts, span: Span, name: str, role: str, loader: LoaderCall, method: StartMethod, error: bool,
        where: Optional[str],
    ) -> Diagnostic:
        subject = f"`{name}` (the dataset's class)" if role == "dataset" else f"`{name}` (the loader's `{role}`)"
        condition = (
            f"with the '{method.name}' start method ({start_method_where(method)})" if error else where
        )
        message = (
            f"{subject} is defined in this notebook, and the workers of the DataLoader {loaded_at(loader)} cannot "
            f"import a notebook's `__main__`: "
            f"{condition} every worker fails with `AttributeError: Can't get attribute '{name}' on "
            f"<module '__main__' (built-in)>` and the loader raises `RuntimeError: DataLoader worker "
            f"(pid ...) exited unexpectedly`; move `{name}` into a .py module next to the notebook and import it"
        )
        evidence = [(loader.module.path, loader.call.span, "the DataLoader whose workers must import it")]
        if error and method.module is not None and method.span is not None:
            evidence.append((method.module.path, method.span, f"sets the '{method.name}' start method"))
        return self.report(module, span, message, severity="error" if error else "warning", evidence=evidence)


def _notebook_top_level(module: ModuleFacts, qualname: str) -> bool:
    """Defined at the top level of a notebook's code (``module.cells``), where a kernel's
    ``__main__`` holds it."""
    return bool(module.cells) and "." not in qualname
