"""SDL005 iterable-dataset-not-sharded."""

from __future__ import annotations

from typing import Iterable, Iterator, List, Optional, Tuple

from seedlint.analysis.index import FunctionRef
from seedlint.analysis.objects import DictObj, Frame, FunctionObj, Instance, SeqObj
from seedlint.analysis.reach import reachable
from seedlint.diagnostics import Diagnostic, Fix
from seedlint.facts.model import Attr, BinOp, Call, IfExp, Name, Seq, Subscript, Value
from seedlint.rng import PYTHON_RANDOM, TORCH, WORKER_INFO, WORKER_SHARDING_HELPERS
from seedlint.rules.base import Project, Rule, abstract_stub, built, built_in

FIX_KIND = "shard-iterable-by-worker"
ITERABLE_DATASETS = frozenset({"torch.utils.data.IterableDataset", "torch.utils.data.dataset.IterableDataset"})
KNOWN_BASES = ITERABLE_DATASETS | {"object", "typing.Generic", "abc.ABC"}
SHARDING_ATTRIBUTES = frozenset({"id", "num_workers"})


class IterableDatasetNotSharded(Rule):
    """
    ## What it does
    Finds a `DataLoader` with worker processes (`num_workers` not statically 0) over an
    `IterableDataset` (a subclass of `torch.utils.data.IterableDataset`, also across modules)
    whose worker code never splits its items among the workers, when the loader has no
    `worker_init_fn` that does. Sharding is recognised as reading `id` or `num_workers` of
    `torch.utils.data.get_worker_info()` anywhere in worker code (slicing, `itertools.islice`,
    stride or modulo arithmetic, also inside helper readers it calls), or a known helper such as
    webdataset's `split_by_worker`, torchdata's `sharding_filter` or Hugging Face's
    `split_dataset_by_node`. Calling `get_worker_info()` only to reseed is not sharding.
    Worker code that iterates another project object (`for x in self.source`, `iter(...)`,
    `yield from`) goes on in that object's `__iter__`, so a wrapper shards where its source
    does. A synthetic stream is not reported: worker code (the dataset's, or a project
    `collate_fn`, which torch runs in the worker) that draws from torch's or Python's RNG
    (which torch seeds differently in each worker) and loops only `while` or over `range(n)`
    with `n` not a `len(...)` yields different items in each worker. Worker code that reaches a
    method whose body only raises `NotImplementedError` (`self.task.train__iter__()` on a base
    class) is not judged: the code that runs is an override the analysis did not reach.

    ## Why is this bad?
    Each worker gets its own copy of the dataset and runs `__iter__` from the start. Without
    sharding, every worker yields the whole stream, so every sample arrives `num_workers`
    times per epoch: epochs are longer, the data distribution is skewed by batch timing, and
    validation metrics are computed over duplicates.

    ## Example
    ```python
    class Lines(IterableDataset):
        def __init__(self, path):
            self.path = path

        def __iter__(self):
            with open(self.path) as f:
                yield from f

    loader = DataLoader(Lines("train.txt"), batch_size=32, num_workers=4)
    ```

    ## Use instead
    ```python
    def shard_by_worker(make_iterator):
        def sharded_iter(self):
            iterator = make_iterator(self)
            worker_info = torch.utils.data.get_worker_info()
            if worker_info is not None:
                iterator = itertools.islice(iterator, worker_info.id, None, worker_info.num_workers)
            return iterator

        return sharded_iter


    class Lines(IterableDataset):
        ...

        @shard_by_worker
        def __iter__(self):
            with open(self.path) as f:
                yield from f
    ```
    Splitting the underlying source (files, shards, row ranges) per worker is better still: each
    worker then reads only its part.

    ## Fix safety
    Unsafe (applied only with `--unsafe-fixes`): the fix inserts `shard_by_worker` once per
    module and decorates `__iter__` with it. Worker k then yields items k, k + n, k + 2n, ...
    of the stream, so every item arrives once, but the order of batches changes and each worker
    still reads (and discards) the whole source. With `num_workers=0` nothing changes.
    """

    code = "SDL005"
    name = "iterable-dataset-not-sharded"
    summary = "Every DataLoader worker yields the whole IterableDataset"
    fix_safety = "unsafe"

    def check(self, project: Project) -> Iterable[Diagnostic]:
        loaders = project.loaders
        for loader in loaders.all:
            for frame in loaders.contexts(loader):
                if not loaders.workers(loader, frame).may_be_several:
                    continue
                init = loaders.worker_init(loader, frame)
                if init.unknown or _init_fn_may_shard(project, init):
                    continue
                collates = [v for v in loaders.argument(loader, "collate_fn", frame).values if isinstance(v, FunctionObj)]
                found = self._unsharded(project, loaders.project_datasets(loader, frame), collates)
                if found is None:
                    continue
                instance, iter_method = found
                message = (
                    f"`{instance.cls.cls.name}`{built(instance, loader)} is an IterableDataset that never splits its "
                    "items among DataLoader workers (no use of get_worker_info().id/.num_workers): with two or more "
                    "workers, every sample arrives num_workers times per epoch"
                )
                fix = Fix(FIX_KIND, iter_method.module.path, iter_method.function.span, safe=False)
                evidence = [(iter_method.module.path, iter_method.function.span,
                             f"`{iter_method.function.qualname}` yields every item in every worker")]
                origin = instance.built_at
                if origin is not None:
                    evidence.append((origin[0].path, origin[1].span, f"`{instance.cls.cls.name}` is built here"))
                yield self.report(loader.module, loader.call.span, message, fix,
                                  related=(iter_method.module, built_in(instance), frame.module), evidence=evidence)
                break

    @staticmethod
    def _unsharded(project: Project, instances, collates) -> Optional[Tuple[Instance, FunctionRef]]:
        for instance in instances:
            if not _is_plain_iterable_dataset(project, instance):
                continue
            iter_method = project.index.method(instance.cls, "__iter__")
            if iter_method is None:
                continue
            run = project.workers.of(instance)
            frames = [r.frame for r in run.functions]
            if any(abstract_stub(frame.function.function) for frame in frames):
                continue  # the code that really runs overrides a stub the analysis reached instead
            collate_runs = [project.workers.of(collate) for collate in collates]
            if not _frames_shard(project, frames) and not _generates_its_items(project, run, collate_runs):
                return instance, iter_method
        return None


def _generates_its_items(project: Project, run, collate_runs=()) -> bool:
    """A synthetic stream: worker code (the dataset's, or the loader's ``collate_fn``, which
    torch runs in the worker) draws from torch's or Python's RNG (which torch seeds
    differently in each worker) and loops only ``while`` or over ``range(n)`` with ``n`` not
    read from data (``len(...)``). Every worker then yields different items: nothing arrives
    twice, there are just ``num_workers`` times as many."""
    draws = [d for r in (run, *collate_runs) for d in r.sure_draws]
    if not any(d.stream in (TORCH, PYTHON_RANDOM) for d in draws):
        return False
    for reached in run.functions:
        frame = reached.frame
        for loop in frame.function.function.loops:
            if not loop.target and not isinstance(loop.iterable, Call):
                continue  # a while statement
            iterable = loop.iterable
            if not (isinstance(iterable, Call) and project.flow.callee_names(iterable, frame) & {"builtins.range", "range"}):
                return False
            if any(_reads_length(arg) for arg in iterable.args):
                return False
    return True


def _reads_length(value: Value, depth: int = 0) -> bool:
    if depth > 4:
        return False
    if isinstance(value, Call):
        if isinstance(value.func, Name) and value.func.dotted == "len":
            return True
        return any(_reads_length(v, depth + 1) for v in value.args)
    if isinstance(value, BinOp):
        return _reads_length(value.left, depth + 1) or _reads_length(value.right, depth + 1)
    return False


def _is_plain_iterable_dataset(project: Project, instance: Instance) -> bool:
    """A torch IterableDataset whose other non-project bases cannot hide ``__iter__``."""
    bases = project.index.external_bases(instance.cls)
    if not any(base in ITERABLE_DATASETS for base in bases):
        return False
    return all(base in KNOWN_BASES or base.startswith("builtins.") for base in bases)


def _frames_shard(project: Project, frames: List[Frame]) -> bool:
    """Whether these functions (with their nested defs and decorators) split work by worker.

    Generous on purpose: a read of ``.id``/``.num_workers`` anywhere next to a
    ``get_worker_info()`` call counts, as does a known sharding helper."""
    flow = project.flow
    asks_worker_info = False
    reads_shard_attributes = False
    for frame in _with_nested_and_decorators(project, frames):
        function = frame.function.function
        if function.attribute_names & SHARDING_ATTRIBUTES:
            reads_shard_attributes = True
        for call in function.calls:
            if _delegates_to_library_iterator(project, call, frame):
                return True
            if flow.callee_names(call, frame) & WORKER_INFO:
                asks_worker_info = True
            if any(_mentions_sharding_helper(value) for value in (call.func, *call.args, *(v for _, v in call.kwargs))):
                return True
    return asks_worker_info and reads_shard_attributes


def _delegates_to_library_iterator(project: Project, call: Call, frame: Frame) -> bool:
    """``self.dataset.__next__()`` / ``next(iter(self.source))`` on an object seedlint does
    not see into (a library dataset, which may shard by worker itself)."""
    func = call.func
    if isinstance(func, Name) and func.dotted.rsplit(".", 1)[-1] in ("__next__", "__iter__") and "." in func.dotted:
        held = Name(func.dotted.rsplit(".", 1)[0], func.span, func.qualified.rsplit(".", 1)[0] if func.qualified else None, func.scope)
    elif isinstance(func, Name) and func.dotted in ("next", "iter") and call.args and isinstance(call.args[0], Name):
        held = call.args[0]
    else:
        return False
    return any(not isinstance(obj, (Instance, SeqObj, DictObj)) for obj in project.flow.eval(held, frame))


def _with_nested_and_decorators(project: Project, frames: List[Frame]) -> Iterator[Frame]:
    flow = project.flow
    seen = set()
    queue = list(frames)
    while queue:
        frame = queue.pop()
        ref = frame.function
        if ref.key in seen or len(seen) > 300:
            continue
        seen.add(ref.key)
        yield frame
        prefix = ref.function.qualname + ".<locals>."
        queue.extend(
            flow.function_frame(ref.module, function)
            for qualname, function in ref.module.functions.items()
            if qualname.startswith(prefix)
        )
        for decorator in ref.function.decorators:
            for obj in flow.eval(decorator, flow.module_frame(ref.module)):
                if isinstance(obj, FunctionObj):
                    queue.append(flow.frame(obj.function))


def _mentions_sharding_helper(value: Value, depth: int = 0) -> bool:
    if depth > 6:
        return False
    if isinstance(value, Name):
        return value.dotted.rpartition(".")[2] in WORKER_SHARDING_HELPERS
    if isinstance(value, Attr):
        return value.attr in WORKER_SHARDING_HELPERS or _mentions_sharding_helper(value.value, depth + 1)
    if isinstance(value, Call):
        return any(_mentions_sharding_helper(v, depth + 1) for v in (value.func, *value.args, *(v for _, v in value.kwargs)))
    if isinstance(value, Seq):
        return any(_mentions_sharding_helper(v, depth + 1) for v in value.items)
    if isinstance(value, (Subscript, IfExp)):
        parts = (value.value, value.index) if isinstance(value, Subscript) else (value.body, value.orelse)
        return any(_mentions_sharding_helper(v, depth + 1) for v in parts)
    return False


def _init_fn_may_shard(project: Project, init) -> bool:
    """A worker_init_fn that reaches the dataset or the worker's id/num_workers may shard it
    (the pattern of torch's own IterableDataset example)."""
    roots = [project.flow.frame(v.function, v.receiver) for v in init.values if isinstance(v, FunctionObj)]
    if not roots:
        return False
    frames = reachable(project.flow, roots)
    if any(f.function.function.attribute_names & (SHARDING_ATTRIBUTES | {"dataset"}) for f in frames):
        return True
    return _frames_shard(project, frames)
