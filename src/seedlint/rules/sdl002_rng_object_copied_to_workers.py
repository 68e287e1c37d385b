"""SDL002 rng-object-copied-to-workers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Iterable, Iterator, List, Optional, Set, Tuple

from seedlint.dataflow import Dataflow
from seedlint.diagnostics import Diagnostic, Fix
from seedlint.facts.model import MODULE_CODE, Assign, Attr, Call, IfExp, ModuleFacts, Name, Value
from seedlint.index import ClassRef, FunctionRef
from seedlint.loaders import LoaderCall, datasets, worker_init_value, workers_may_be_positive
from seedlint.rng import RNG_OBJECT_CONSTRUCTORS, RNG_OBJECT_RESEEDING_METHODS
from seedlint.rules.base import Project, Rule, where
from seedlint.workers import WorkerFunction, worker_code

FIX_KIND = "reseed-rng-object"
MAX_ALIAS_DEPTH = 4
KIND_LABELS = {
    "numpy-generator": "NumPy Generator",
    "numpy-randomstate": "NumPy RandomState",
    "stdlib-random": "random.Random",
    "torch-generator": "torch.Generator",
}


@dataclass(frozen=True, eq=False)
class Creation:
    """The statement that builds an RNG object outside worker code."""

    module: ModuleFacts
    assign: Assign
    kind: str
    attribute: Optional[str]
    """The ``self`` attribute that holds it, or None for a module-level variable."""


@dataclass(frozen=True, eq=False)
class Draw:
    creation: Creation
    worker: WorkerFunction
    call: Call
    spelled: str


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
        flow = project.flow
        reported: Set[Tuple[str, int, int]] = set()
        for loader in project.loader_calls():
            if not workers_may_be_positive(flow, loader):
                continue
            if loader.arguments_unknown and loader.argument("worker_init_fn") is None:
                continue
            if _init_fn_may_reseed_dataset(project, loader):
                continue
            for instance in datasets(flow, loader):
                draws = _draws(flow, worker_code(flow, instance))
                by_creation: Dict[int, List[Draw]] = {}
                for draw in draws:
                    by_creation.setdefault(id(draw.creation.assign), []).append(draw)
                for found in by_creation.values():
                    creation = found[0].creation
                    key = (creation.module.path, creation.assign.span.line, creation.assign.span.col)
                    if key in reported:
                        continue
                    reported.add(key)
                    yield self._diagnostic(creation, found, instance.cls, loader)

    def _diagnostic(self, creation: Creation, draws: List[Draw], dataset: ClassRef, loader: LoaderCall) -> Diagnostic:
        first = draws[0]
        held = f"self.{creation.attribute}" if creation.attribute else creation.assign.target
        message = (
            f"{KIND_LABELS[creation.kind]} `{held}` is created once and drawn from in DataLoader workers "
            f"(`{first.spelled}` in `{first.worker.function.function.qualname}`, "
            f"{where(first.worker.function.module, first.call.span)}, reached from `{dataset.cls.name}` loaded at "
            f"{where(loader.module, loader.call.span)}): every worker gets an identical copy and draws the same "
            f"numbers, and without persistent_workers every epoch repeats them"
        )
        return self.report(creation.module, creation.assign.span, message, _fix(creation, draws))


def _fix(creation: Creation, draws: List[Draw]) -> Optional[Fix]:
    """Reseed in every drawing method of the module that holds the first one."""
    if creation.attribute is None:
        return None
    module = draws[0].worker.function.module
    spans = []
    for draw in draws:
        function = draw.worker.function
        if function.module is module and function.function.span not in spans:
            spans.append(function.function.span)
    data = tuple((span.line, span.col, creation.attribute, creation.kind) for span in spans)
    return Fix(FIX_KIND, module.path, spans[0], True, data)


def _draws(flow: Dataflow, workers: List[WorkerFunction]) -> List[Draw]:
    reseeded = _reseeded_in_workers(workers)
    found: List[Draw] = []
    for worker in workers:
        module = worker.function.module
        for call in worker.function.function.calls:
            for spelled, holder in _rng_holders(call):
                for creation in _creations(flow, module, holder):
                    if (creation.attribute or creation.assign.target) not in reseeded:
                        found.append(Draw(creation, worker, call, spelled))
    return found


def _rng_holders(call: Call) -> Iterator[Tuple[str, Name]]:
    """Expressions a call may draw from: ``obj`` in ``obj.method(...)``, and names passed as
    arguments (``generator=self.gen``, ``augment(image, self.rng)``)."""
    func = call.func
    if isinstance(func, Name) and "." in func.dotted:
        head, _, method = func.dotted.rpartition(".")
        if method not in RNG_OBJECT_RESEEDING_METHODS:
            qualified = func.qualified.rpartition(".")[0] if func.qualified else None
            yield func.dotted, Name(head, func.span, qualified, func.scope)
    for value in (*call.args, *(v for _, v in call.kwargs)):
        if isinstance(value, Name):
            callee = func.dotted if isinstance(func, Name) else "..."
            yield f"{callee}(..., {value.dotted})", value


def _creations(flow: Dataflow, module: ModuleFacts, holder: Name, depth: int = 0) -> List[Creation]:
    """RNG objects built outside worker code that ``holder`` may hold, following aliases."""
    if depth > MAX_ALIAS_DEPTH:
        return []
    found: List[Creation] = []
    for binding in flow.bindings(module, holder):
        for value in _alternatives(binding.value):
            if isinstance(value, Name):
                found.extend(_creations(flow, binding.module, value, depth + 1))
                continue
            kind = _constructed_kind(flow, binding.module, value) if isinstance(value, Call) else None
            creation = _creation(binding.module, binding.scope, binding.value, kind) if kind else None
            if creation is not None:
                found.append(creation)
    return found


def _alternatives(value: Value) -> List[Value]:
    if isinstance(value, IfExp):
        return _alternatives(value.body) + _alternatives(value.orelse)
    return [value]


def _constructed_kind(flow: Dataflow, module: ModuleFacts, call: Call) -> Optional[str]:
    if isinstance(call.func, Attr) and call.func.attr == "manual_seed" and isinstance(call.func.value, Call):
        return _constructed_kind(flow, module, call.func.value)  # torch.Generator().manual_seed(0)
    for name in flow.callee_names(module, call):
        if name in RNG_OBJECT_CONSTRUCTORS:
            return RNG_OBJECT_CONSTRUCTORS[name]
    return None


def _creation(module: ModuleFacts, scope: str, value: Value, kind: str) -> Optional[Creation]:
    """The creating statement, when it is at module level, in a class body or in ``__init__``."""
    if scope == MODULE_CODE:
        for assign in module.module_code.assigns:
            if assign.value is value:
                return Creation(module, assign, kind, None)
        for cls in module.classes.values():
            for assign in cls.body_assigns:
                if assign.value is value:
                    return Creation(module, assign, kind, assign.target)
        return None
    function = module.functions.get(scope)
    if function is None or function.name != "__init__" or function.class_name is None or not function.params:
        return None
    prefix = function.params[0] + "."
    for assign in function.assigns:
        if assign.value is value and assign.target.startswith(prefix):
            return Creation(module, assign, kind, assign.target[len(prefix):])
    return None


def _reseeded_in_workers(workers: List[WorkerFunction]) -> Set[str]:
    """Objects whose state worker code replaces (``self.rng = ...``, ``self.rng.seed(...)``,
    ``rng.manual_seed(...)``), as attribute names without ``self.`` or variable names.
    Matched by name only, whatever the class: precision first."""
    names: Set[str] = set()
    for worker in workers:
        function = worker.function.function
        prefix = function.params[0] + "." if worker.owner is not None and function.params else None
        for assign in function.assigns:
            if prefix and assign.target.startswith(prefix):
                names.add(assign.target[len(prefix):])
        for call in function.calls:
            if isinstance(call.func, Name) and call.func.dotted.rpartition(".")[2] in RNG_OBJECT_RESEEDING_METHODS:
                head = call.func.dotted.rpartition(".")[0]
                names.add(head[len(prefix):] if prefix and head.startswith(prefix) else head)
    return names


def _init_fn_may_reseed_dataset(project: Project, loader: LoaderCall) -> bool:
    """A worker_init_fn that reaches the dataset (``get_worker_info().dataset``) or cannot be
    resolved may reseed its RNG objects."""
    value = worker_init_value(loader)
    if value is None:
        return False
    functions = [s for s in project.flow.symbols(loader.module, value) if isinstance(s, FunctionRef)]
    if not functions:
        return True
    return any("dataset" in f.function.attribute_names for f in functions)
