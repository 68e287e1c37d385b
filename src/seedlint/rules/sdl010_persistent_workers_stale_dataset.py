"""SDL010 persistent-workers-stale-dataset."""

from __future__ import annotations

from typing import Iterable, Iterator, Optional, Set, Tuple

from seedlint.analysis.index import ClassRef, FunctionRef
from seedlint.analysis.loops import EpochLoop, contains
from seedlint.analysis.objects import Instance
from seedlint.diagnostics import Diagnostic
from seedlint.facts.model import MODULE_CODE, Function, ModuleFacts, Name, Span
from seedlint.rules.base import Project, Rule, where

MAX_DEPTH = 6
IN_PLACE_METHODS = frozenset(
    "append extend insert pop remove clear update sort reverse shuffle add discard setdefault fill_ zero_ copy_".split()
)
"""Methods of containers, arrays and tensors that change them in place."""
SHUFFLERS = frozenset({"random.shuffle", "numpy.random.shuffle"})


class PersistentWorkersStaleDataset(Rule):
    """
    ## What it does
    Finds a `DataLoader(..., persistent_workers=True)` whose dataset object is changed in
    the main process between epochs: an attribute assigned (`train_set.epoch = epoch`,
    `loader.dataset.scale = s`) or a method that changes the dataset called
    (`train_set.set_epoch(epoch)`, `train_set.resample()`) inside the epoch loop, outside
    the iteration over the loader.

    ## Why is this bad?
    With `persistent_workers=True` the worker processes are started once, each with its own
    copy of the dataset, and kept across epochs. Changes made to the dataset in the main
    process afterwards never reach them: curriculum schedules, per-epoch resampling and
    `set_epoch`-driven augmentation silently stay at their first-epoch values (or, worse,
    apply only to the batches produced in the main process when `num_workers` is 0
    elsewhere). The code reads as if the data changes every epoch; it does not.

    ## Example
    ```python
    loader = DataLoader(train_set, batch_size=64, num_workers=8, persistent_workers=True)
    for epoch in range(args.epochs):
        train_set.set_epoch(epoch)
        for batch in loader:
            ...
    ```

    ## Use instead
    ```python
    loader = DataLoader(train_set, batch_size=64, num_workers=8, persistent_workers=False)
    for epoch in range(args.epochs):
        train_set.set_epoch(epoch)
        for batch in loader:
            ...
    ```
    Or keep the workers and move the per-epoch state where workers can see it: derive it
    inside `__getitem__` from a shared value (a `multiprocessing.Value`, a shared tensor) or
    from the sampler, which lives in the main process.

    ## Fix safety
    No fix: dropping `persistent_workers` costs start-up time every epoch, and sharing the
    state needs a design decision.
    """

    code = "SDL010"
    name = "persistent-workers-stale-dataset"
    summary = "dataset changed between epochs is invisible to persistent workers"
    fix_safety = None

    def check(self, project: Project) -> Iterable[Diagnostic]:
        loaders = project.loaders
        for epoch_loop in project.loops.epoch_loops:
            for obj in epoch_loop.loaders:
                if loaders.persistent(obj.loader, obj.frame) is not True:
                    continue
                if not loaders.workers(obj.loader, obj.frame).may_be_positive:
                    continue
                datasets = loaders.project_datasets(obj.loader, obj.frame)
                built = {_built_by(d) for d in datasets} - {None}
                if not built:
                    continue
                for span, receiver, method, what in self._mutations(epoch_loop):
                    found = self._same_dataset(project, epoch_loop, receiver, built)
                    if found is None:
                        continue
                    if method is None or self._mutating_method(project, found, method):
                        message = (
                            f"{what} changes the dataset of the DataLoader at {where(obj.loader.module, obj.loader.call.span)} "
                            "between epochs, but that loader has `persistent_workers=True`: its workers keep their "
                            "own copy of the dataset and never see the change"
                        )
                        evidence = [(obj.loader.module.path, obj.loader.call.span,
                                     "the DataLoader with persistent_workers=True whose workers keep their copy")]
                        places = {(d.built_at[0].path, d.built_at[1].span.line): d.built_at for d in datasets if d.built_at is not None}
                        evidence += [(module.path, call.span, "the dataset is built here") for module, call in (
                            places[key] for key in sorted(places))]
                        yield self.report(epoch_loop.module, span, message, related=(obj.loader.module,), evidence=evidence)

    # ------------------------------------------------------------------ mutations in the loop
    def _mutations(self, epoch_loop: EpochLoop) -> Iterator[Tuple[Span, Name, Optional[str], str]]:
        """(where, the object changed, the method called or None for an assignment, description) of each
        change that may be made to an object in the loop."""
        module, function = epoch_loop.module, epoch_loop.function
        for assign in epoch_loop.loop.assigns:
            if "." in assign.target and not epoch_loop.in_iteration(assign.span):
                receiver = _name(module, function, assign.target.rsplit(".", 1)[0], assign.span)
                yield assign.span, receiver, None, f"assigning `{assign.target}`"
        for call in epoch_loop.calls():
            func = call.func
            if not isinstance(func, Name) or not func.rest or epoch_loop.in_iteration(call.span):
                continue
            if not contains(epoch_loop.loop.span, call.span):
                continue
            dotted, _, method = func.dotted.rpartition(".")
            qualified = func.qualified.rsplit(".", 1)[0] if func.qualified else None
            yield call.span, Name(dotted, func.span, qualified, func.scope), method, f"`{func.dotted}(...)`"

    @staticmethod
    def _same_dataset(project: Project, epoch_loop: EpochLoop, receiver: Name, built: Set[int]) -> Optional[Instance]:
        """The loader's dataset object, when ``receiver`` may be it (also as ``loader.dataset``)."""
        for obj in project.flow.eval(receiver, epoch_loop.frame):
            if isinstance(obj, Instance) and _built_by(obj) in built:
                return obj
        return None

    def _mutating_method(self, project: Project, instance: Instance, method: str) -> bool:
        """A method of the (project) dataset class that changes the object: it assigns
        ``self.*``, changes one in place, or calls a method that does."""
        found = project.index.method(instance.cls, method)
        return found is not None and self._mutates(project, found, instance.cls, set())

    def _mutates(self, project: Project, ref: FunctionRef, owner: ClassRef, seen: Set[Tuple[str, str]]) -> bool:
        if ref.key in seen or len(seen) > 20 or not ref.function.params:
            return False
        seen.add(ref.key)
        self_name = ref.function.params[0]
        if any(a.target.startswith(self_name + ".") for a in ref.function.assigns):
            return True
        for call in ref.function.calls:
            func = call.func
            if isinstance(func, Name) and func.qualified is None and func.root == self_name:
                if "." in func.rest and func.rest.rsplit(".", 1)[-1] in IN_PLACE_METHODS:
                    return True  # self.items.append(...)
                other = project.index.method(owner, func.rest)
                if other is not None and self._mutates(project, other, owner, seen):
                    return True
            shuffles = isinstance(func, Name) and (func.qualified in SHUFFLERS or func.dotted.endswith(".shuffle"))
            if shuffles and any(isinstance(a, Name) and a.qualified is None and a.root == self_name and a.rest for a in call.args):
                return True  # random.shuffle(self.indices)
        return False


def _built_by(instance: Instance) -> Optional[int]:
    origin = instance.built_at
    return id(origin[1]) if origin is not None else None


def _name(module: ModuleFacts, function: Function, dotted: str, span: Span) -> Name:
    root = dotted.split(".", 1)[0]
    local = function.qualname != MODULE_CODE and (
        root in function.params or any(a.target.split(".", 1)[0] == root and "." not in a.target for a in function.assigns)
    )
    if local:
        return Name(dotted, span, None, function.qualname)
    prefix = f"{module.name}." if module.name else ""
    return Name(dotted, span, f"{prefix}{dotted}")
