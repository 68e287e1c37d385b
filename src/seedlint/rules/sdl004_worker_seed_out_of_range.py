"""SDL004 worker-seed-out-of-range."""

from __future__ import annotations

from typing import Dict, Iterable, Iterator, Optional, Tuple

from seedlint.analysis.objects import Frame, FunctionObj
from seedlint.analysis.seeds import EPOCH, Context
from seedlint.analysis.worker_init import init_frame, worker_context
from seedlint.diagnostics import Diagnostic, Fix
from seedlint.facts.model import Call, Name
from seedlint.rng import NUMPY_SEED_BELOW_2_32
from seedlint.rules.base import Project, Rule, add_related

FIX_KIND = "reduce-worker-seed-below-2-32"
MAX_HELPER_DEPTH = 3


class WorkerSeedOutOfRange(Rule):
    """
    ## What it does
    Finds `np.random.seed(seed)` or `np.random.RandomState(seed)` in a `worker_init_fn` or in
    a dataset's worker code (`__getitem__`, `__iter__` and what they call), where `seed` is
    `torch.initial_seed()` or `get_worker_info().seed` (directly, through a local variable,
    or plus `worker_id`) with no reduction below 2**32.

    ## Why is this bad?
    Inside a worker both values are `base_seed + worker_id`, where `base_seed` is a random
    64-bit integer drawn every epoch, so they are almost always above 2**32 - 1. NumPy's
    legacy seeding rejects them: every worker dies with
    `ValueError: Seed must be between 0 and 2**32 - 1` and the loader raises in the main
    process. `random.seed`, `torch.manual_seed` and `np.random.default_rng` accept such seeds;
    only the legacy NumPy seeding needs the reduction.

    ## Example
    ```python
    def worker_init_fn(worker_id):
        np.random.seed(torch.initial_seed())
    ```

    ## Use instead
    ```python
    def worker_init_fn(worker_id):
        np.random.seed(torch.initial_seed() % 2**32)
    ```

    ## Fix safety
    Safe. The fix appends `% 2**32` to the seed argument (parenthesising it when needed).
    Code that crashed now runs with a seed that is still distinct per worker and per epoch.
    A seed computed in a helper the `worker_init_fn` calls is reported at the call of the
    helper, without a fix.
    """

    code = "SDL004"
    name = "worker-seed-out-of-range"
    summary = "NumPy seeded with torch's 64-bit worker seed"
    fix_safety = "safe"

    def check(self, project: Project) -> Iterable[Diagnostic]:
        loaders = project.loaders
        reported: Dict[Tuple[str, int, int], Diagnostic] = {}
        for loader in loaders.all:
            for frame in loaders.contexts(loader):
                if not loaders.workers(loader, frame).may_be_positive:
                    continue
                found = []
                for value in loaders.worker_init(loader, frame).values:
                    if isinstance(value, FunctionObj):
                        root = init_frame(project, loader, frame, value)
                        context = worker_context(project, loader, frame, value, root)
                        found.extend(_raw_numpy_seedings(project, root, context, descend=True))
                for instance in loaders.datasets(loader, frame):
                    run = project.workers.of(instance)
                    context = Context(frozenset(r.function.key for r in run.functions))
                    for reached in run.functions:
                        found.extend(_raw_numpy_seedings(project, reached.frame, context, descend=False))
                for holder, anchor, call in found:
                    key = (holder.module.path, anchor.span.line, anchor.span.col)
                    related = (loader.module, frame.module)
                    if key in reported:
                        add_related(reported[key], related)
                        continue
                    evidence = [(loader.module.path, loader.call.span, "the DataLoader whose workers run this seeding")]
                    reported[key] = self._diagnostic(holder, anchor, call, related, evidence)
                    yield reported[key]

    def _diagnostic(self, holder: Frame, anchor: Call, call: Call, related, evidence=()) -> Diagnostic:
        spelled = call.func.dotted if isinstance(call.func, Name) else "np.random.seed"
        via = "" if call is anchor else f" (in `{_callee_name(anchor)}`)"
        message = (
            f"`{spelled}` gets torch's 64-bit worker seed{via} without `% 2**32`: "
            "every worker raises `ValueError: Seed must be between 0 and 2**32 - 1`"
        )
        fix = Fix(FIX_KIND, holder.module.path, call.span) if call is anchor else None
        return self.report(holder.module, anchor.span, message, fix, related=related, evidence=evidence)


def _callee_name(call: Call) -> str:
    return call.func.dotted if isinstance(call.func, Name) else "a helper"


def _raw_numpy_seedings(
    project: Project, frame: Frame, context: Context, descend: bool, depth: int = 0, anchor: Optional[Call] = None,
    holder: Optional[Frame] = None,
) -> Iterator[Tuple[Frame, Call, Call]]:
    """(frame holding the anchor, anchor, seeding call) for NumPy legacy seeding from an
    unreduced per-epoch worker seed."""
    flow = project.flow
    for call in frame.function.function.calls:
        if not flow.guards_may_hold(call.guards, frame):
            continue
        seeder = next((n for n in flow.callee_names(call, frame) if n in NUMPY_SEED_BELOW_2_32), None)
        if seeder is not None:
            value = call.argument(NUMPY_SEED_BELOW_2_32[seeder], 0)
            if value is None:
                continue
            origin = project.seeds.origin(value, frame, context)
            if origin.kind == EPOCH and origin.raw:
                yield holder or frame, anchor or call, call
            continue
        if not descend or depth >= MAX_HELPER_DEPTH:
            continue
        for callee, _ in flow.callee_frames(call, frame):
            inner = Context(context.worker | {callee.function.key}, context.worker_id, context.varying)
            yield from _raw_numpy_seedings(project, callee, inner, True, depth + 1, anchor or call, holder or frame)
