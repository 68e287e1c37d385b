"""SDL004 worker-seed-out-of-range."""

from __future__ import annotations

from typing import Iterable, Iterator, List, Optional, Set, Tuple

from seedlint.diagnostics import Diagnostic, Fix
from seedlint.index import FunctionRef
from seedlint.facts.model import Call
from seedlint.loaders import datasets, worker_init_value, workers_may_be_positive
from seedlint.rng import NUMPY_SEED_BELOW_2_32
from seedlint.rules.base import Project, Rule
from seedlint.seeds import EPOCH, SeedOrigins, in_loop, worker_init_functions
from seedlint.workers import worker_code

FIX_KIND = "reduce-worker-seed-below-2-32"


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
        flow = project.flow
        reported: Set[Tuple[str, int, int]] = set()
        for loader in project.loader_calls():
            if not workers_may_be_positive(flow, loader):
                continue
            found: List[Tuple[FunctionRef, Call, Call, str]] = []
            init = worker_init_value(loader)
            if init is not None:
                for root, bound in worker_init_functions(flow, loader.module, init):
                    origins = SeedOrigins(flow)
                    origins.enter_worker_init(root, bound, loader.module, parent_fixed=not in_loop(loader.function, loader.call))
                    found.extend(_raw_numpy_seedings(origins, root, 0))
            for instance in datasets(flow, loader):
                origins = SeedOrigins(flow)
                for item in worker_code(flow, instance):
                    origins.enter_worker_code(item.function)
                for item in worker_code(flow, instance):
                    found.extend(_raw_numpy_seedings(origins, item.function, 0, descend=False))
            for function, anchor, call, seeder in found:
                key = (function.module.path, anchor.span.line, anchor.span.col)
                if key in reported:
                    continue
                reported.add(key)
                yield self._diagnostic(function, anchor, call, seeder)

    def _diagnostic(self, function: FunctionRef, anchor: Call, call: Call, seeder: str) -> Diagnostic:
        spelled = getattr(call.func, "dotted", seeder)
        via = "" if call is anchor else f" (in `{_callee_name(anchor)}`)"
        message = (
            f"`{spelled}` gets torch's 64-bit worker seed{via} without `% 2**32`: "
            "every worker raises `ValueError: Seed must be between 0 and 2**32 - 1`"
        )
        fix = Fix(FIX_KIND, function.module.path, call.span) if call is anchor else None
        return self.report(function.module, anchor.span, message, fix)


def _callee_name(call: Call) -> str:
    return getattr(call.func, "dotted", "a helper")


def _raw_numpy_seedings(
    origins: SeedOrigins,
    current: FunctionRef,
    depth: int,
    anchor: Optional[Call] = None,
    holder: Optional[FunctionRef] = None,
    descend: bool = True,
) -> Iterator[Tuple[FunctionRef, Call, Call, str]]:
    """(function holding the anchor, anchor, seeding call, seeder) for NumPy legacy seeding
    from an unreduced per-epoch worker seed."""
    flow = origins.flow
    for call in current.function.calls:
        names = flow.callee_names(current.module, call)
        seeder = next((n for n in names if n in NUMPY_SEED_BELOW_2_32), None)
        if seeder is not None:
            value = call.argument(NUMPY_SEED_BELOW_2_32[seeder], 0)
            if value is None:
                continue
            origin = origins.value(current.module, value)
            if origin.kind == EPOCH and origin.raw:
                yield holder or current, anchor or call, call, seeder
            continue
        if not descend or depth >= 3:
            continue
        for callee in flow.symbols(current.module, call.func):
            if isinstance(callee, FunctionRef) and callee.key != current.key:
                skip_self = flow.owner_class(callee.module, callee.function) is not None
                origins.enter_callee(current, call, callee, skip_self)
                yield from _raw_numpy_seedings(origins, callee, depth + 1, anchor or call, holder or current)
