"""SDL009 distributed-sampler-without-set-epoch."""

from __future__ import annotations

from typing import Iterable, List, Optional, Tuple

from seedlint.diagnostics import Diagnostic, Fix
from seedlint.epoch_loops import EpochLoop, LoopIndex, loop_index
from seedlint.facts.model import (
    MODULE_CODE,
    Call,
    Const,
    IfExp,
    ModuleFacts,
    Name,
    Value,
)
from seedlint.analysis.index import ClassRef, ExternalRef
from seedlint.loaders import LoaderCall
from seedlint.rules.base import Project, Rule, where
from seedlint.rules.sdl007_global_reseed_every_epoch import LOOP_TRIGGERS

FIX_KIND = "insert-set-epoch"
DISTRIBUTED_SAMPLERS = frozenset({"torch.utils.data.distributed.DistributedSampler", "torch.utils.data.DistributedSampler"})
SAMPLER_BASES = DISTRIBUTED_SAMPLERS | {"torch.utils.data.Sampler", "torch.utils.data.sampler.Sampler"}
SHUFFLE_POSITION = 3
"""``DistributedSampler(dataset, num_replicas, rank, shuffle, seed, drop_last)``."""
MAX_DEPTH = 6


class DistributedSamplerWithoutSetEpoch(Rule):
    """
    ## What it does
    Finds an epoch loop that iterates a `DataLoader` whose `sampler=` is a shuffling
    `DistributedSampler` (or a project subclass of it) and never calls `set_epoch` on it:
    neither `sampler.set_epoch(epoch)` nor `loader.sampler.set_epoch(epoch)`, in the loop
    or in a function the loop calls.

    Loops that Lightning or Fabric run for you are not affected: they call `set_epoch`
    themselves. A loop that calls `set_epoch` on any sampler is taken to know about it (its
    other loaders are usually evaluation loaders, whose order does not matter). Samplers built
    with `shuffle=False` are not reported.

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

    def triggers(self, settings) -> tuple:
        return super().triggers(settings) + LOOP_TRIGGERS

    def check(self, project: Project) -> Iterable[Diagnostic]:
        loops = loop_index(project)
        for epoch_loop in loops.epoch_loops():
            samplers = [
                (loader, value)
                for loader in epoch_loop.loaders
                for value in [self._shuffling_sampler(project, loader)]
                if value is not None and not _rebuilt_each_iteration(epoch_loop, loader, value)
            ]
            if not samplers or self._sets_epoch(project, loops, epoch_loop):
                continue
            loader, value = samplers[0]
            spelled = value.dotted if isinstance(value, Name) else "DistributedSampler(...)"
            message = (
                f"the DistributedSampler `{spelled}` of the DataLoader at {where(loader.module, loader.call.span)} "
                "is iterated in every epoch without `set_epoch`: every epoch uses the same shuffle order "
                "on every rank; call `set_epoch(epoch)` at the start of each epoch"
            )
            yield self.report(epoch_loop.module, epoch_loop.loop.span, message, self._fix(project, epoch_loop, samplers))

    # ------------------------------------------------------------------ the sampler
    def _shuffling_sampler(self, project: Project, loader: LoaderCall) -> Optional[Value]:
        value = loader.argument("sampler")
        if value is None:
            return None
        for module, call, keyword_only in self._constructions(project, loader.module, value, 0):
            shuffle = call.kwarg("shuffle") if keyword_only else call.argument("shuffle", SHUFFLE_POSITION)
            constant = project.dataflow.const(module, shuffle) if shuffle is not None else None
            if constant is None or constant.value:
                return value
        return None

    def _constructions(self, project: Project, module: ModuleFacts, value: Value, depth: int) -> Iterable[Tuple[ModuleFacts, Call, bool]]:
        """Calls that build a DistributedSampler ``value`` may be (keyword_only: a subclass)."""
        for origin, call, symbol in project.dataflow.constructions(module, value, MAX_DEPTH, depth):
            if isinstance(symbol, ExternalRef) and symbol.qualified in DISTRIBUTED_SAMPLERS:
                yield origin, call, False
            elif isinstance(symbol, ClassRef) and project.index.is_subclass(symbol, DISTRIBUTED_SAMPLERS):
                yield origin, call, True

    # ------------------------------------------------------------------ set_epoch calls
    def _sets_epoch(self, project: Project, loops: LoopIndex, epoch_loop: EpochLoop) -> bool:
        pending = [(epoch_loop.module, epoch_loop.function, call) for call in epoch_loop.calls()]
        seen = set()
        while pending:
            module, function, call = pending.pop()
            func = call.func
            if isinstance(func, Name) and func.dotted.endswith(".set_epoch") and self._on_sampler(project, module, func):
                return True
            if len(seen) > 50:
                continue
            for callee, _ in loops.callees(module, function, call):
                if callee.key not in seen:
                    seen.add(callee.key)
                    pending.extend((callee.module, callee.function, c) for c in callee.function.calls)
        return False

    @staticmethod
    def _on_sampler(project: Project, module: ModuleFacts, func: Name) -> bool:
        """``x.set_epoch`` where ``x`` is not known to be a dataset (those have their own set_epoch)."""
        dotted = func.dotted[: -len(".set_epoch")]
        receiver = Name(dotted, func.span, func.qualified[: -len(".set_epoch")] if func.qualified else None, func.scope)
        instances = project.dataflow.instances(module, receiver)
        return not instances or any(project.index.is_subclass(i.cls, SAMPLER_BASES) for i in instances)

    # ------------------------------------------------------------------ the fix
    def _fix(self, project: Project, epoch_loop: EpochLoop, samplers: List[Tuple[LoaderCall, Value]]) -> Optional[Fix]:
        target = epoch_loop.loop.target
        if not target or "." in target:
            return None
        receivers = []
        for loader, value in samplers:
            receiver = self._receiver(epoch_loop, loader, value)
            if receiver is None:
                return None
            if self._may_be_none(project, loader, value):
                receiver = "?" + receiver
            if receiver not in receivers:
                receivers.append(receiver)
        return Fix(FIX_KIND, epoch_loop.module.path, epoch_loop.loop.span, True, (target, *receivers))

    @staticmethod
    def _may_be_none(project: Project, loader: LoaderCall, value: Value) -> bool:
        """``sampler = DistributedSampler(d) if distributed else None`` (or a separate ``= None``)."""

        def none(v: Value) -> bool:
            return (isinstance(v, Const) and v.value is None) or (isinstance(v, IfExp) and (none(v.body) or none(v.orelse)))

        return isinstance(value, Name) and any(none(b.value) for b in project.dataflow.bindings(loader.module, value))

    @staticmethod
    def _receiver(epoch_loop: EpochLoop, loader: LoaderCall, value: Value) -> Optional[str]:
        """How the epoch loop's function can name the sampler, or None."""
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


def _rebuilt_each_iteration(epoch_loop, loader: LoaderCall, sampler: Value) -> bool:
    """A sampler built inside the loop body starts afresh every iteration: that is not one
    sampler iterated across epochs (and ``set_epoch`` at the top of the body would run
    before the sampler exists)."""
    loop = epoch_loop.loop
    if isinstance(sampler, Name):
        return any(assign.target == sampler.dotted for assign in loop.assigns)
    return loader.module is epoch_loop.module and _inside(loop.span, loader.call.span)


def _inside(outer, inner) -> bool:
    return (outer.line, outer.col) <= (inner.line, inner.col) and (inner.end_line, inner.end_col) <= (outer.end_line, outer.end_col)
