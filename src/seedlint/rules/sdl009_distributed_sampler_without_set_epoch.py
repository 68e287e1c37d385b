"""SDL009 distributed-sampler-without-set-epoch."""

from __future__ import annotations

from typing import Dict, Iterable, List, Optional

from seedlint.analysis.callsites import spelled
from seedlint.analysis.index import ClassRef
from seedlint.analysis.loops import EpochLoop, LoaderObject, contains
from seedlint.analysis.objects import NONE, Constant, ExternalInstance, Instance, MethodOf, Obj, OptionConstant, Site
from seedlint.analysis.flow.shared import names_read
from seedlint.analysis.reach import reachable
from seedlint.analysis.seeds import spells_rank
from seedlint.diagnostics import Diagnostic, Fix
from seedlint.facts.model import EXCEPT, MODULE_CODE, Attr, BoolOp, Call, Compare, Name, Not
from seedlint.knowledge.samplers import SHUFFLING_DISTRIBUTED_SAMPLERS
from seedlint.rules.base import Project, Rule, where

FIX_KIND = "insert-set-epoch"
DISTRIBUTED_SAMPLERS = frozenset(SHUFFLING_DISTRIBUTED_SAMPLERS)
BATCH_SAMPLERS = frozenset({"torch.utils.data.BatchSampler", "torch.utils.data.sampler.BatchSampler"})
SAMPLER_BASES = DISTRIBUTED_SAMPLERS | {"torch.utils.data.Sampler", "torch.utils.data.sampler.Sampler"}


class DistributedSamplerWithoutSetEpoch(Rule):
    """
    ## What it does
    Finds an epoch loop that iterates a `DataLoader` whose `sampler=` is a shuffling
    `DistributedSampler` (torch's, MONAI's `monai.data.DistributedSampler`, or a project
    subclass of either: `knowledge/samplers.py`; or a sampler class of the project's own
    that splits the data among the ranks, whose `set_epoch(epoch)` stores the epoch and
    whose `__iter__` orders by it), or whose
    `batch_sampler=` is torch's
    `BatchSampler` around one, and never calls `set_epoch` on it: neither
    `sampler.set_epoch(epoch)` nor `loader.sampler.set_epoch(epoch)`, in the loop
    or in a function the loop calls. A project subclass of `DistributedSampler` whose own
    `__iter__` advances its epoch, or whose `shuffle` defaults to False where it is built, is
    not reported.

    Loops that Lightning or Fabric run for you are not affected: they call `set_epoch`
    themselves. A loop that calls `set_epoch` on a sampler that may be this one (one of
    unknown origin, a project sampler) is taken to know about it (its other loaders are
    usually evaluation loaders, whose order does not matter); but a loader the loop body
    trains on itself (its loop over it calls `backward`) is judged alone: a `set_epoch` on
    another `DistributedSampler`, built elsewhere, says nothing of its sampler. Samplers built
    with `shuffle=False` are not reported. A loop over any value the program binds to the
    loader counts, whatever its name (`batches = make_pipeline()`, `self.data`, a helper's
    parameter). A step loop that makes a new iterator only when the old one runs out
    (`except StopIteration: it = iter(loader)`) inside a function its callers call from their
    own epoch loops is judged through those loops; one inside an `__iter__` (a loader that
    mixes several and restarts the smaller ones when they run out) is judged where its object
    is iterated. Repeated evaluation passes (the loop or the function it calls is named for a
    test, evaluation, validation or prediction, turns gradients off, or calls `eval()`, and no
    gradient step runs in the passes) are not reported: the order of an evaluation changes no
    result. Nor, in a loop that trains on one loader, is a loader it reads only through such
    an evaluating function (`validate(model, test_loader)` after each epoch).

    ## Why is this bad?
    `DistributedSampler` shuffles with a generator seeded by `seed + epoch`, where `epoch`
    only changes when you call `set_epoch`. Without it every epoch visits the samples in
    exactly the same order on every rank, and each rank sees the same shard of the data in
    every epoch. Training converges worse and the run is not the run the code describes.

    ## Example
    ```python
    sampler = DistributedSampler(train_set)
    loader = DataLoader(train_set, batch_size=64, sampler=sampler, num_workers=8)
    for epoch in range(args.epochs):
        for batch in loader:
            ...
    ```

    ## Use instead
    ```python
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            ...
    ```

    ## Fix safety
    Safe. The fix inserts `<sampler>.set_epoch(<epoch>)` as the first statement of the loop
    body, which only changes the order the sampler draws. It is offered when the loop
    variable is a plain name and the sampler is a name visible in that function; otherwise
    the diagnostic comes without a fix.
    """

    code = "SDL009"
    name = "distributed-sampler-without-set-epoch"
    summary = "DistributedSampler iterated across epochs without set_epoch"
    fix_safety = "safe"

    def check(self, project: Project) -> Iterable[Diagnostic]:
        for epoch_loop in project.loops.epoch_loops:
            samplers = []
            for obj in epoch_loop.loaders:
                found = self._shuffling_samplers(project, obj)
                if found and not _rebuilt_each_iteration(epoch_loop, obj):
                    samplers.append((obj, found))
            samplers = self._without_set_epoch(project, epoch_loop, samplers) if samplers else []
            if not samplers or (_evaluates(epoch_loop) and not _trains(project, epoch_loop)):
                continue  # an evaluation repeated over the same split: its order changes no result
            if any(_trains_on(project, epoch_loop, o) for o, _ in samplers):
                samplers = [(o, found) for o, found in samplers if not _evaluated_only(epoch_loop, o)]
            if _only_refreshed_when_exhausted(epoch_loop) and (
                epoch_loop.function.name in ("__iter__", "__next__") or _calls_in_callers_loops(project, epoch_loop.frame)
            ):
                continue  # the callers' loops are the epochs (for an __iter__, where its object is iterated): judged there
            samplers.sort(key=lambda entry: (entry[0].loader.module.path, entry[0].loader.call.span.line))
            obj, _ = samplers[0]
            value = obj.loader.argument("sampler")
            own = all(_own_epoch_sampler(project, found) for _, each in samplers for found in each)
            kind = "sampler" if own else "DistributedSampler"
            if isinstance(value, Name):
                spelled = f"`{value.dotted}`"
            elif own and isinstance(value, Call) and isinstance(value.func, Name):
                spelled = f"`{value.func.dotted}(...)`"
            else:
                spelled = "`DistributedSampler(...)`"
            batch = obj.loader.argument("batch_sampler")
            if value is None and batch is not None:
                spelled = f"inside the batch sampler `{batch.dotted if isinstance(batch, Name) else 'BatchSampler(...)'}`"
            places = list(dict.fromkeys(where(o.loader.module, o.loader.call.span) for o, _ in samplers))
            if len(places) == 1:
                subject = f"the {kind} {spelled} of the DataLoader at {places[0]} is"
            elif _one_iteration_reads_any(epoch_loop, [o for o, _ in samplers]):
                subject = (
                    f"the {kind} {spelled} of the DataLoader at {', '.join(places[:-1])} or {places[-1]} "
                    "(the loop may read either) is"
                )
            else:
                subject = f"the {kind}s of the DataLoaders at {', '.join(places[:-1])} and {places[-1]} (the loop reads each) are"
            skipped = _set_epoch_calls_that_never_run(project, epoch_loop)
            never = f" (the call at {where(epoch_loop.module, skipped[0].span)} never runs: its `if` test fails in every call of `{epoch_loop.function.name}`)" if skipped else ""
            keyed = " (its `__iter__` orders by the epoch only `set_epoch` changes)" if own else ""
            message = (
                f"{subject} iterated in every epoch without `set_epoch`{keyed}{never}: every epoch uses the same shuffle "
                "order on every rank; call `set_epoch(epoch)` at the start of each epoch"
            )
            evidence = list(dict.fromkeys(
                (o.loader.module.path, o.loader.call.span, "a DataLoader the loop iterates") for o, _ in samplers
            ))
            for sampler in samplers[0][1]:
                site = getattr(sampler, "site", None)
                if site is not None:
                    evidence.append((site.frame.module.path, site.call.span, f"the shuffling {kind}, built here"))
            yield self.report(epoch_loop.module, epoch_loop.loop.span, message, self._fix(project, epoch_loop, samplers),
                              related=[o.loader.module for o, _ in samplers], evidence=evidence)

    # ------------------------------------------------------------------ the sampler
    def _shuffling_samplers(self, project: Project, obj: LoaderObject) -> List[Obj]:
        """The shuffling DistributedSamplers the loader may be given in its frame, as its
        ``sampler`` or inside torch's ``BatchSampler`` given as its ``batch_sampler``."""
        shuffle = project.loaders.argument(obj.loader, "shuffle", obj.frame).values
        if shuffle and all(isinstance(v, Constant) and v.value is True for v in shuffle):
            return []  # ``DataLoader(sampler=..., shuffle=True)`` raises ValueError: no epoch ever runs with one
        found = []
        for value in _given_samplers(project, obj):
            if isinstance(value, ExternalInstance) and value.qualified in DISTRIBUTED_SAMPLERS:
                shuffle = value.site.call.argument("shuffle", SHUFFLING_DISTRIBUTED_SAMPLERS[value.qualified])
                if shuffle is None or _may_be_true(project.flow.eval(shuffle, value.site.frame)):
                    found.append(value)
            elif isinstance(value, Instance) and project.index.is_subclass(value.cls, DISTRIBUTED_SAMPLERS):
                if self._subclass_shuffles(project, value) and not _advances_own_epoch(project, value.cls):
                    found.append(value)
            elif isinstance(value, Instance) and _orders_by_the_epoch_set_epoch_sets(project, value.cls) \
                    and _shards_by_rank(project, value):
                if self._subclass_shuffles(project, value) and not _advances_own_epoch(project, value.cls):
                    found.append(value)  # a sampler of the project's own, written like DistributedSampler
        return found

    @staticmethod
    def _subclass_shuffles(project: Project, sampler: Instance) -> bool:
        init = project.index.method(sampler.cls, "__init__")
        if init is None or sampler.site is None or "shuffle" not in init.function.params:
            return True
        site = Site(sampler.site.frame, sampler.site.call, 1)
        values = project.flow.bound_argument(init, site, "shuffle")
        return _may_be_true(values)

    # ------------------------------------------------------------------ set_epoch calls
    def _without_set_epoch(self, project: Project, epoch_loop: EpochLoop, samplers) -> list:
        """The samplers no ``set_epoch`` call of the loop (or of what it calls) may advance.
        A loader the loop body trains on (its own loop over it calls ``backward``) is judged
        alone: another sampler's ``set_epoch`` says nothing of its own. Other loaders (an
        evaluation) are taken as known to a loop that advances some sampler."""
        flow = project.flow
        frame = epoch_loop.frame
        around = _calls_around(epoch_loop)
        if _only_refreshed_when_exhausted(epoch_loop):
            around += _calls_in_callers_loops(project, frame)
        if epoch_loop.function.yields or epoch_loop.function.yield_froms:
            around += _calls_of_consumers(project, frame)
        calls = [(call, frame) for call in around if spelled(call.func) == "set_epoch"]
        roots = [callee for call in around for callee, _ in flow.callee_frames(call, frame)]
        for helper in reachable(flow, roots, limit=60):
            calls += [(call, helper) for call in helper.function.function.calls if spelled(call.func) == "set_epoch"]
        uncovered = []
        for entry in samplers:
            trained = _trains_on(project, epoch_loop, entry[0])
            if not any(_calls_set_epoch(project, call, where, [entry], trained) for call, where in calls):
                uncovered.append(entry)
        return uncovered

    # ------------------------------------------------------------------ the fix
    def _fix(self, project: Project, epoch_loop: EpochLoop, samplers) -> Optional[Fix]:
        target = epoch_loop.loop.target
        if not target or "." in target:
            return None
        receivers = []
        for obj, _ in samplers:
            receiver = _receiver(epoch_loop, obj)
            if receiver is None:
                return None
            values = project.loaders.argument(obj.loader, "sampler", obj.frame).values
            if any(value != NONE and not _has_set_epoch(project, value) for value in values):
                receiver = "~" + receiver  # a RandomSampler in single-process runs has no set_epoch
            elif NONE in values:
                receiver = "?" + receiver
            if receiver not in receivers:
                receivers.append(receiver)
        return Fix(FIX_KIND, epoch_loop.module.path, epoch_loop.loop.span, True, (target, *receivers))


def _calls_around(epoch_loop: EpochLoop) -> List:
    """The calls that run once per pass of the loop: its own, and those of the loops around
    it (``for epoch ...: sampler.set_epoch(epoch); for step in range(n): next(it)``). When
    the loop only makes a new iterator after the old one runs out (``except StopIteration:
    it = iter(loader)``), its passes are not epochs the code counts: a ``set_epoch`` anywhere
    in the function counts."""
    function = epoch_loop.function
    loop = epoch_loop.loop
    calls = list(loop.calls)
    for other in function.loops:
        if other is not loop and contains(other.span, loop.span):
            calls.extend(other.calls)
    if _only_refreshed_when_exhausted(epoch_loop):
        calls.extend(function.calls)
    return calls


def _only_refreshed_when_exhausted(epoch_loop: EpochLoop) -> bool:
    function = epoch_loop.function
    return bool(epoch_loop.iterations) and all(_refreshed_when_exhausted(function, i.span) for i in epoch_loop.iterations)


def _calls_in_callers_loops(project: Project, frame) -> List:
    """For a function that only makes a new iterator when the old one runs out (a step
    loop in ``train_one_epoch``): the calls of the loops its callers call it from, where
    the epochs the code counts are (``for epoch ...: sampler.set_epoch(epoch);
    train_one_epoch(...)``)."""
    sites, _ = project.flow.callsites.of(project.flow.function_frame(frame.module, frame.function.function))
    found = []
    for site in sites:
        caller = site.frame.function.function
        for loop in caller.loops:
            if contains(loop.span, site.call.span):
                found.extend(loop.calls)
    return found


def _calls_of_consumers(project: Project, frame) -> List:
    """For a generator that loops over a loader forever (``def infinite(loader): while True:
    for batch in loader: yield batch``): its passes advance as the code that made it pulls
    batches, so the calls of the functions that make it count (``for epoch ...:
    sampler.set_epoch(epoch); for step ...: next(batches)``)."""
    sites, _ = project.flow.callsites.of(project.flow.function_frame(frame.module, frame.function.function))
    found = []
    for site in sites:
        found.extend(site.frame.function.function.calls)
    return found


def _refreshed_when_exhausted(function, span) -> bool:
    return any(
        call.span == span and any(test == EXCEPT for test, _ in call.guards) for call in function.calls
    )


def _may_be_true(values) -> bool:
    return any(not (isinstance(v, Constant) and not v.value) for v in values)


def _own_epoch_sampler(project: Project, sampler: Obj) -> bool:
    """A project sampler written like ``DistributedSampler`` without subclassing it."""
    return isinstance(sampler, Instance) and not project.index.is_subclass(sampler.cls, DISTRIBUTED_SAMPLERS)


def _shards_by_rank(project: Project, sampler: Obj) -> bool:
    """The sampler's class reads a rank where it is built or iterated (``dist.get_rank()``,
    ``self.rank``)."""
    if not isinstance(sampler, Instance):
        return False
    methods = [project.index.method(sampler.cls, name) for name in ("__init__", "__iter__")]
    values = [
        part for method in methods if method is not None
        for part in [a.value for a in method.function.assigns] + [c.func for c in method.function.calls]
    ]
    return any(spells_rank(name.dotted) for name in names_read(values))


def _orders_by_the_epoch_set_epoch_sets(project: Project, cls: ClassRef) -> bool:
    """A sampler class of the project's own (no ``DistributedSampler`` subclass) whose
    ``set_epoch(epoch)`` stores the epoch on the object and whose ``__iter__`` reads it: its
    order is a function of that attribute, which only ``set_epoch`` changes."""
    set_epoch, iterate = project.index.method(cls, "set_epoch"), project.index.method(cls, "__iter__")
    if set_epoch is None or iterate is None or len(set_epoch.function.params) < 2:
        return False
    receiver, epoch = set_epoch.function.params[:2]
    stored = {
        a.target[len(receiver) + 1:] for a in set_epoch.function.assigns
        if a.target.startswith(receiver + ".") and any(n.dotted == epoch for n in names_read(a.value))
    }
    if not stored:
        return False
    own = iterate.function.params[0] if iterate.function.params else "self"
    reads = [a.value for a in iterate.function.assigns] + [
        part for call in iterate.function.calls for part in (call.func, *call.args, *(v for _, v in call.kwargs))
    ]
    return any(name.dotted in {f"{own}.{attribute}" for attribute in stored} for name in names_read(reads))


def _advances_own_epoch(project: Project, cls: ClassRef) -> bool:
    """A sampler whose own ``__iter__`` calls ``set_epoch`` or moves ``self.epoch`` on."""
    method = project.index.method(cls, "__iter__")
    if method is None:
        return False
    function = method.function
    receiver = function.params[0] if function.params else "self"
    if any(isinstance(c.func, Name) and c.func.dotted == f"{receiver}.set_epoch" for c in function.calls):
        return True
    return any(a.target == f"{receiver}.epoch" for a in function.assigns)


TRAINING_CALLS = frozenset({"backward", "manual_backward", "train_step", "training_step", "optimizer_step"})
OPTIMIZER_SPELLINGS = ("optim", "scaler", "opt")


def _trains(project: Project, epoch_loop: EpochLoop) -> bool:
    """The loop's passes train: a gradient step (``loss.backward()``, ``optimizer.step()``,
    ``accelerator.backward(loss)``, a ``train_step``) runs in them, in the loop itself or
    in a project function it reaches."""
    flow = project.flow
    frame = epoch_loop.frame
    around = _calls_around(epoch_loop)
    if any(_gradient_step(call) for call in around):
        return True
    roots = [callee for call in around for callee, _ in flow.callee_frames(call, frame)]
    roots += [i.via for i in epoch_loop.iterations if i.via is not None]
    return any(_gradient_step(call) for helper in reachable(flow, roots, limit=120) for call in helper.function.function.calls)


EVALUATION_WORDS = ("test", "eval", "valid", "infer", "predict")
NO_GRAD = ("no_grad", "inference_mode")


def _evaluates(epoch_loop: EpochLoop) -> bool:
    """The passes look like an evaluation: the loop's function, or the one it calls to
    iterate the loader, is named for one (``test``, ``evaluate``, ``validate``, ``infer``,
    ``predict``), turns gradients off, or switches a model to ``eval()``."""
    functions = [epoch_loop.function] + [i.via.function.function for i in epoch_loop.iterations if i.via is not None]
    return any(_evaluation_function(function) for function in functions)


def _evaluation_function(function) -> bool:
    if any(word in function.name.lower() for word in EVALUATION_WORDS):
        return True
    if any(spelled(d) in NO_GRAD for d in function.decorators):
        return True
    return any(spelled(call.func) in NO_GRAD + ("eval",) and not call.args for call in function.calls)


def _evaluated_only(epoch_loop: EpochLoop, obj: LoaderObject) -> bool:
    """Every read of the loader in the epoch loop is in a function the loop calls that
    evaluates (``valid(args, model, test_loader)``)."""
    reads = [i for i in epoch_loop.iterations if i.loader.loader.call is obj.loader.call and i.loader.frame.key == obj.frame.key]
    return bool(reads) and all(i.via is not None and _evaluation_function(i.via.function.function) for i in reads)


def _gradient_step(call) -> bool:
    name = spelled(call.func)
    if name in TRAINING_CALLS:
        return True
    if name == "step" and isinstance(call.func, Name):
        owner = call.func.dotted.rsplit(".", 2)[-2].lower() if call.func.dotted.count(".") else ""
        return any(spelling in owner for spelling in OPTIMIZER_SPELLINGS)
    return False


def _trains_on(project: Project, epoch_loop: EpochLoop, obj: LoaderObject) -> bool:
    """The epoch loop iterates the loader itself, in a loop whose body calls ``backward``
    (itself or in the project function it calls for each batch)."""
    spans = [
        i.span for i in epoch_loop.iterations
        if i.via is None and i.loader.loader.call is obj.loader.call and i.loader.frame.key == obj.frame.key
    ]
    flow = project.flow
    for loop in epoch_loop.function.loops:
        if loop.span not in spans:
            continue
        if any(spelled(call.func) == "backward" for call in loop.calls):
            return True
        for call in loop.calls:
            for callee, _ in flow.callee_frames(call, epoch_loop.frame):
                if any(spelled(inner.func) == "backward" for inner in callee.function.function.calls):
                    return True
    return False



def _set_epoch_calls_that_never_run(project: Project, epoch_loop: EpochLoop) -> list:
    """``set_epoch`` calls written in the epoch loop's function whose ``if`` tests fail for
    every caller (``if not args.thread_loader:`` with a flag that is always true)."""
    found = []
    for call in epoch_loop.function.calls:
        func = call.func
        if not (isinstance(func, Name) and func.dotted.endswith(".set_epoch") or isinstance(func, Attr) and func.attr == "set_epoch"):
            continue
        if call.guards and not _may_run(project, call, epoch_loop.frame):
            found.append(call)
    return found


def _calls_set_epoch(project: Project, call, frame, samplers, direct: bool = False) -> bool:
    """``x.set_epoch(...)`` where ``x`` may be one of the samplers (or is not known to be
    something else, such as a dataset with its own ``set_epoch``)."""
    func = call.func
    named = isinstance(func, Name) and func.dotted.endswith(".set_epoch")
    if not (named or isinstance(func, Attr) and func.attr == "set_epoch"):
        return False  # ``sampler.set_epoch``, or ``dataloaders["train_sampler"].set_epoch``
    if not _may_run(project, call, frame):
        return False  # `if sampler is not None:` in a helper nobody hands the sampler
    wanted = {id(s.site.call) for _, found in samplers for s in found if getattr(s, "site", None) is not None}
    for callee in project.flow.callee_objects(call, frame):
        receiver = callee.receiver if isinstance(callee, MethodOf) else getattr(callee, "receiver", None)
        if receiver is None:
            return True
        site = getattr(receiver, "site", None)
        if site is not None and id(site.call) in wanted:
            return True
        if direct and isinstance(receiver, ExternalInstance) and receiver.qualified in DISTRIBUTED_SAMPLERS and site is not None:
            continue  # another DistributedSampler, built elsewhere: its epoch is not this one's
        if isinstance(receiver, Instance) and project.index.is_subclass(receiver.cls, SAMPLER_BASES):
            return True
        if not isinstance(receiver, Instance):
            return True
    return False


def _has_set_epoch(project: Project, value) -> bool:
    """A sampler known to have ``set_epoch``: torch's DistributedSampler, or a project class
    that defines or inherits one."""
    if isinstance(value, ExternalInstance):
        return value.qualified in DISTRIBUTED_SAMPLERS
    if isinstance(value, Instance):
        return project.index.method(value.cls, "set_epoch") is not None or project.index.is_subclass(value.cls, DISTRIBUTED_SAMPLERS)
    return False


def _may_run(project: Project, call, frame) -> bool:
    """The call's ``if`` tests may hold: in the frame, or, when it is the function's frame
    for any caller, those that test the receiver itself (``if sampler is not None:``) for
    one of the calls that all of its callers make. A test of something else (``if
    config.distributed``) counts only when it fails for every caller (``if not
    args.thread_loader:`` with a flag that is always true): otherwise it usually decides
    whether the sampler is a DistributedSampler at all."""
    flow = project.flow
    if not flow.guards_may_hold(call.guards, frame):
        return False
    if not call.guards or frame.site is not None:
        return True
    calls, complete = flow.frames_per_call(frame)
    if not complete or not calls:
        return True
    if not any(flow.guards_may_hold(call.guards, called) for _, called in calls) and _tests_options(flow, call.guards, calls):
        return False  # no command line can pass it (``if not args.thread_loader:``, a flag that is always true)
    root = call.func.dotted.split(".")[0] if isinstance(call.func, Name) else None
    own = tuple((test, expected) for test, expected in call.guards if root and _tests_name(test, root))
    return not own or any(flow.guards_may_hold(own, called) for _, called in calls)


def _tests_options(flow, guards, calls) -> bool:
    """Some guard reads a command-line option (a value parsed by argparse): every value the
    command line can give it was weighed, unlike a setting a copy of the configuration may
    change (``config.distributed = False`` in a class that torchrun users edit)."""
    for test, _ in guards:
        for operand in _operands(test):
            if any(isinstance(v, OptionConstant) for _, called in calls for v in flow.eval(operand, called)):
                return True
    return False


def _operands(test) -> list:
    if isinstance(test, Not):
        return _operands(test.value)
    if isinstance(test, Compare):
        return [test.left, test.right]
    if isinstance(test, BoolOp):
        return [operand for value in test.values for operand in _operands(value)]
    return [test]


def _tests_name(test, name: str) -> bool:
    """``name``, ``not name``, or ``name is (not) None`` / ``name == x``."""
    if isinstance(test, Not):
        return _tests_name(test.value, name)
    if isinstance(test, Name):
        return test.dotted == name
    if isinstance(test, Compare):
        return any(isinstance(side, Name) and side.dotted == name for side in (test.left, test.right))
    return False


def _rebuilt_each_iteration(epoch_loop: EpochLoop, obj: LoaderObject) -> bool:
    """A sampler (or loader) built inside the loop body starts afresh every iteration: that
    is not one sampler iterated across epochs."""
    loop = epoch_loop.loop
    sampler = obj.loader.argument("sampler")
    if isinstance(sampler, Name) and obj.loader.function is epoch_loop.function:
        if any(assign.target == sampler.dotted for assign in loop.assigns):
            return True
    if obj.loader.module is epoch_loop.module and contains(loop.span, obj.loader.call.span):
        return True
    frame = obj.frame
    while frame is not None and frame.site is not None:  # built by a helper the loop body calls
        site = frame.site
        if site.frame.function.key == epoch_loop.frame.function.key and contains(loop.span, site.call.span):
            return True
        frame = site.frame
    return False


def _one_iteration_reads_any(epoch_loop: EpochLoop, objs: List[LoaderObject]) -> bool:
    """One place in the loop (a ``for``, or a helper's call) may read any of the loader
    calls: they are alternatives (``loader = a if cond else b``), not loaders read one after
    another (a training loader, then a validation loader)."""
    reading: Dict[int, set] = {}
    for obj in objs:
        reading.setdefault(id(obj.loader.call), set()).update(
            (i.span.line, i.span.col, id(i.via)) for i in epoch_loop.iterations if i.loader.loader.call is obj.loader.call
        )
    shared = None
    for places in reading.values():
        shared = places if shared is None else shared & places
    return bool(shared)


def _given_samplers(project: Project, obj: LoaderObject) -> List[Obj]:
    """The samplers the loader may draw its indices from: its ``sampler``, and the sampler a
    ``BatchSampler(sampler, ...)`` given as its ``batch_sampler`` wraps."""
    found = list(project.loaders.argument(obj.loader, "sampler", obj.frame).values)
    for batch in project.loaders.argument(obj.loader, "batch_sampler", obj.frame).values:
        if isinstance(batch, ExternalInstance) and batch.qualified in BATCH_SAMPLERS and batch.site is not None:
            inner = batch.site.call.argument("sampler", 0)
            if inner is not None:
                found.extend(project.flow.eval(inner, batch.site.frame))
    return found


def _receiver(epoch_loop: EpochLoop, obj: LoaderObject) -> Optional[str]:
    """How the epoch loop's function can name the sampler, or None."""
    value = obj.loader.argument("sampler")
    loader = obj.loader
    if not isinstance(value, Name) or loader.module.path != epoch_loop.module.path:
        return None
    function = epoch_loop.function
    if value.qualified is None:
        if value.scope == function.qualname:
            return value.dotted
        builder = loader.function
        same_class = builder.class_name is not None and builder.class_name == function.class_name
        if same_class and builder.params and function.params and value.root == builder.params[0] and value.rest:
            return f"{function.params[0]}.{value.rest}"
        return None
    module_name = epoch_loop.module.name
    own = f"{module_name}.{value.root}" if module_name else value.root
    if not (value.qualified == own or value.qualified.startswith(own + ".")) or epoch_loop.module.toplevel.get(value.root) != "assign":
        return None
    shadowed = value.root in function.params or any(a.target == value.root for a in function.assigns)
    return value.dotted if function.qualname == MODULE_CODE or not shadowed else None
