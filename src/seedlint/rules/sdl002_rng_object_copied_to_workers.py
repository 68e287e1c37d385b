"""SDL002 rng-object-copied-to-workers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional

from seedlint.analysis.index import ClassRef
from seedlint.analysis.objects import ExternalInstance, Instance
from seedlint.analysis.worker_init import init_fn_functions, reaches_dataset
from seedlint.analysis.workers import Draw, WorkerRun
from seedlint.diagnostics import Diagnostic, Fix
from seedlint.facts.model import MODULE_CODE, Assign, Attr, BinOp, Call, Const, DictDisplay, IfExp, ModuleFacts, Name, Seq, Span, Value
from seedlint.knowledge.library_loaders import library_loop
from seedlint.rng import RNG_OBJECT, RNG_OBJECT_CONSTRUCTORS
from seedlint.rules.base import (
    Project, Rule, add_related, built, built_in, dataset_name, loaded_at, where, workers_condition, workers_evidence,
    workers_severity,
)

FIX_KIND = "reseed-rng-object"
KIND_LABELS = {
    "numpy-generator": "NumPy Generator",
    "numpy-randomstate": "NumPy RandomState",
    "stdlib-random": "random.Random",
    "torch-generator": "torch.Generator",
}


@dataclass(frozen=True, eq=False)
class Creation:
    """Where an RNG object drawn in worker code was built, outside worker code."""

    rng: ExternalInstance
    module: ModuleFacts
    span: Span
    """The statement that builds it (its assignment), or the call itself."""
    kind: str
    attribute: Optional[str]
    """The ``self`` attribute that holds it, when it is built as ``self.x = ...`` in a method
    (or as a class attribute)."""
    owner: Optional[ClassRef]
    """The class whose method or body builds it into ``attribute``."""
    held: str
    """How messages name it: ``self.rng``, ``RNG``, ``np.random.default_rng(...)``."""


class RngObjectCopiedToWorkers(Rule):
    """
    ## What it does
    Finds an RNG object (`np.random.default_rng(...)`, `np.random.RandomState(...)`,
    `np.random.Generator(np.random.PCG64(...))`, `random.Random(...)`, `torch.Generator()`)
    that is created once, in `__init__`, in the class body or at module level, and then drawn
    from in a dataset's worker code (`__getitem__`, `__iter__`, the methods they call, and
    transform objects the dataset holds), when some `DataLoader` over that dataset has worker
    processes (`num_workers` not statically 0).

    ## Why is this bad?
    A DataLoader worker gets a copy of the dataset: forked under `fork`, pickled under `spawn`
    and `forkserver`. Torch reseeds `random`, `torch` and (since 1.9) NumPy's global RNG in each
    worker, but never an RNG object stored on the dataset. Every worker therefore starts from
    the same state and draws the same "random" augmentations; and without
    `persistent_workers=True` each epoch starts new workers from the parent's unchanged copy,
    so every epoch repeats them too. This happens on every torch version.

    ## Example
    ```python
    class Jitter(Dataset):
        def __init__(self, images, seed=0):
            self.images = images
            self.rng = np.random.default_rng(seed)

        def __getitem__(self, index):
            return self.images[index] + self.rng.normal(size=3)

    loader = DataLoader(Jitter(images), batch_size=8, num_workers=4)
    ```

    ## Use instead
    Reseed the object once in each worker, from the worker's own seed:
    ```python
        def __getitem__(self, index):
            worker_info = torch.utils.data.get_worker_info()
            if worker_info is not None and getattr(self, "_rng_worker_seed", None) != worker_info.seed:
                self._rng_worker_seed = worker_info.seed
                self.rng = np.random.default_rng(worker_info.seed)
            return self.images[index] + self.rng.normal(size=3)
    ```
    `get_worker_info().seed` differs per worker and per epoch, and derives from the loader's
    base seed, so a run seeded with `torch.manual_seed` stays reproducible. With
    `persistent_workers=True` the seed stays the same for a worker, so its stream simply
    continues. In the main process (`num_workers=0`) `get_worker_info()` is None and the
    object is left alone. Because the code lives in the dataset, wrappers such as `Subset`
    and `ConcatDataset` keep working.

    ## Fix safety
    Safe. The fix inserts the block above at the top of each method that draws from the
    object: `Generator`s are rebuilt with `default_rng(worker_info.seed)`, a `RandomState`
    is reseeded with `worker_info.seed % 2**32`, a `random.Random` with `seed(...)`, and a
    `torch.Generator` with `manual_seed(...)`. It changes only the random values drawn inside
    workers. Objects created at module level are reported without a fix (reseeding a shared
    module variable from several places would restart its stream).
    """

    code = "SDL002"
    name = "rng-object-copied-to-workers"
    summary = "An RNG object on the dataset is copied identically into every DataLoader worker"
    fix_safety = "safe"

    def check(self, project: Project) -> Iterable[Diagnostic]:
        loaders = project.loaders
        reported: Dict[tuple, Diagnostic] = {}
        ranks: Dict[tuple, tuple] = {}
        for loader in loaders.all:
            for frame in loaders.contexts(loader):
                workers = loaders.workers(loader, frame)
                if not workers.may_be_positive:
                    continue
                kept = loaders.keeps_one_iterator(loader, frame)
                if not workers.may_be_several and (project.loops.iterated_once(loader, frame) or library_loop(loader.library) or kept):
                    # One worker started once copies nothing anyone else draws; a library's loop
                    # (an endless stream under max_steps) may never start it again.
                    continue
                init = loaders.worker_init(loader, frame)
                if init.unknown or _init_fn_may_reseed_dataset(project, init):
                    continue
                for instance in loaders.datasets(loader, frame):
                    run = project.workers.of(instance)
                    by_rng: Dict[tuple, List[Draw]] = {}
                    for draw in run.sure_draws:
                        if draw.stream == RNG_OBJECT and draw.rng is not None:
                            by_rng.setdefault(draw.rng.key, []).append(draw)
                    for draws in by_rng.values():
                        creation = _creation(project, run, draws[0].rng)
                        if creation is None:
                            continue
                        key = (creation.module.path, creation.span.line, creation.span.col)
                        related = (loader.module, frame.module, built_in(instance), draws[0].reached.function.module)
                        # A loader whose workers start by default says more than one that an option
                        # starts, and one with several workers more than one with one: its message wins.
                        rank = (workers.option is None, workers.may_be_several)
                        if key in reported and ranks[key] >= rank:
                            add_related(reported[key], related)
                            continue
                        earlier = reported[key].related if key in reported else set()
                        reported[key] = self._diagnostic(project, creation, draws, instance, loader, related, workers, kept)
                        reported[key].related.update(earlier)
                        ranks[key] = rank
        yield from reported.values()

    def _diagnostic(
        self, project: Project, creation: Creation, draws: List[Draw], dataset: Instance, loader, related, workers,
        kept: bool = False,
    ) -> Diagnostic:
        several = workers.may_be_several
        first = draws[0]
        function = first.reached.function
        effect = (
            "every worker gets an identical copy and draws the same numbers" if several and kept else
            "every worker gets an identical copy and draws the same numbers, and without persistent_workers every "
            "epoch repeats them" if several else
            "its one worker starts from the same copy each epoch, so without persistent_workers every epoch repeats them"
        )
        message = (
            f"{KIND_LABELS[creation.kind]} `{creation.held}` is created once and drawn from in DataLoader workers "
            f"(`{first.spelled}` in `{function.function.qualname}`, {where(function.module, first.call.span)}, reached "
            f"from `{dataset_name(dataset)}`{built(dataset, loader)} loaded {loaded_at(loader)}): {effect}{workers_condition(workers)}"
        )
        evidence = [(function.module.path, first.call.span, f"`{first.spelled}` draws from it in worker code")]
        origin = dataset.built_at
        if origin is not None:
            evidence.append((origin[0].path, origin[1].span, f"`{dataset_name(dataset)}` is built here, in the main process"))
        evidence.append((loader.module.path, loader.call.span, "the DataLoader whose workers copy it"))
        evidence += workers_evidence(project, workers)
        return self.report(creation.module, creation.span, message, _fix(project, creation, draws), related=related,
                           severity=workers_severity(workers),
                           evidence=evidence)


def _fix(project: Project, creation: Creation, draws: List[Draw]) -> Optional[Fix]:
    """Reseed at the top of every drawing method of the module that holds the first draw,
    when each runs on an object of the class that holds the RNG in ``self.<attribute>``."""
    if creation.attribute is None or creation.owner is None:
        return None
    module = draws[0].reached.function.module
    spans = []
    for draw in draws:
        receiver = draw.reached.frame.receiver
        if not isinstance(receiver, Instance) or draw.reached.function.function.name == "__init__":
            return None
        if creation.owner.key not in {item.key for item in project.index.mro(receiver.cls)}:
            return None
        function = draw.reached.function
        if function.module is module and function.function.span not in spans:
            spans.append(function.function.span)
    if not spans:
        return None
    data = tuple((span.line, span.col, creation.attribute, creation.kind) for span in spans)
    return Fix(FIX_KIND, module.path, spans[0], True, data)


def _creation(project: Project, run: WorkerRun, rng: ExternalInstance) -> Optional[Creation]:
    """The RNG's creation, when it happens outside worker code and worker code never
    reseeds or replaces it."""
    site = rng.site
    worker_functions = {r.function.key for r in run.functions}
    if site.frame.function.key in worker_functions or rng.key in run.reseeded:
        return None
    module = site.frame.module
    function = site.frame.function.function
    kind = RNG_OBJECT_CONSTRUCTORS[rng.qualified]
    assign = _assignment(module, function, site.call)
    if assign is None:
        spelled = site.call.func.dotted if isinstance(site.call.func, Name) else "..."
        return Creation(rng, module, site.call.span, kind, None, None, f"{spelled}(...)")
    attribute, owner = None, None
    if function.qualname != MODULE_CODE and function.params and assign.target.startswith(function.params[0] + "."):
        attribute = assign.target[len(function.params[0]) + 1:]
        owner = project.index.class_of(site.frame.function)
        if "." in attribute:
            attribute, owner = None, None
    elif function.qualname == MODULE_CODE:
        for cls in module.classes.values():
            if assign in cls.body_assigns:
                attribute, owner = assign.target, ClassRef(module, cls)
    if owner is not None and _replaced_in_workers(project, run, owner, attribute):
        return None
    held = f"self.{attribute}" if attribute is not None else assign.target
    if isinstance(assign.value, DictDisplay):
        for key, value in zip(assign.value.keys, assign.value.values):
            if _contains(value, site.call) and isinstance(key, Const):
                held = f"{assign.target}[{key.value!r}]"
    return Creation(rng, module, assign.span, kind, attribute, owner, held)


def _replaced_in_workers(project: Project, run: WorkerRun, owner: ClassRef, attribute: str) -> bool:
    """Worker code assigns ``self.<attribute>`` on an object of ``owner`` (or a subclass)."""
    for reached in run.functions:
        receiver = reached.frame.receiver
        if isinstance(receiver, Instance) and (receiver.cls.key, attribute) in run.reassigned:
            if owner.key in {item.key for item in project.index.mro(receiver.cls)}:
                return True
    return False


def _class_body_assigns(module: ModuleFacts) -> List[Assign]:
    return [a for cls in module.classes.values() for a in cls.body_assigns]


def _assignment(module: ModuleFacts, function, call: Call) -> Optional[Assign]:
    candidates = list(function.assigns)
    if function.qualname == MODULE_CODE:
        candidates += _class_body_assigns(module)
    for assign in candidates:
        if _contains(assign.value, call):
            return assign
    return None


def _contains(value: Value, call: Call, depth: int = 0) -> bool:
    if value is call:
        return True
    if depth > 6:
        return False
    if isinstance(value, Call):
        return _contains(value.func, call, depth + 1) or any(_contains(a, call, depth + 1) for a in value.args)
    if isinstance(value, Attr):
        return _contains(value.value, call, depth + 1)
    if isinstance(value, IfExp):
        return _contains(value.body, call, depth + 1) or _contains(value.orelse, call, depth + 1)
    if isinstance(value, BinOp):
        return _contains(value.left, call, depth + 1) or _contains(value.right, call, depth + 1)
    if isinstance(value, Seq):
        return any(_contains(item, call, depth + 1) for item in value.items)
    if isinstance(value, DictDisplay):
        return any(_contains(item, call, depth + 1) for item in value.values)
    return False


def _init_fn_may_reseed_dataset(project: Project, init) -> bool:
    """A worker_init_fn that reaches the dataset (``get_worker_info().dataset``) may reseed
    its RNG objects."""
    return reaches_dataset(init_fn_functions(project, init))
