"""SDL003 worker-init-fn-repeats-every-epoch."""

from __future__ import annotations

from typing import Iterable, Iterator, Optional, Set, Tuple

from seedlint.diagnostics import Diagnostic, Fix
from seedlint.facts.model import Call, Const
from seedlint.index import FunctionRef
from seedlint.loaders import LoaderCall, worker_init_value, workers_may_be_positive
from seedlint.rng import WORKER_RESEEDERS
from seedlint.rules.base import Project, Rule, where
from seedlint.seeds import FIXED, Origin, SeedOrigins, describe, in_loop, worker_init_functions

FIX_KIND = "reseed-worker-from-initial-seed"
MAX_HELPER_DEPTH = 3
_WHAT = {
    "numpy.random.seed": "NumPy's global RNG",
    "random.seed": "Python's `random`",
    "torch.manual_seed": "torch's RNG",
    "torch.random.manual_seed": "torch's RNG",
}


class WorkerInitFnRepeatsEveryEpoch(Rule):
    """
    ## What it does
    Finds a `worker_init_fn` (a def, a lambda, or a `functools.partial` of one) passed to a
    `DataLoader` with worker processes that seeds `numpy.random`, `random` or `torch` from a
    value that does not come from `torch.initial_seed()` or `get_worker_info().seed`: a
    constant, `worker_id` alone, `SEED + worker_id` (a module constant, an argparse or config
    value, an argument bound by `partial`), or `np.random.get_state()[1][0] + worker_id`.
    The seeding call may sit in another module than the loader, or in a helper the
    `worker_init_fn` calls; loaders with `persistent_workers` not statically false are skipped.

    ## Why is this bad?
    Without persistent workers, every epoch starts fresh worker processes and calls
    `worker_init_fn(worker_id)` again. A seed made of constants and `worker_id` is the same in
    every epoch, so every epoch replays exactly the same "random" crops, flips, masks and
    noise, in every run. `np.random.get_state()[1][0]` looks random but is not: since torch
    1.9 the worker's NumPy state was seeded from an array, and its first key word is
    2147483648 in every worker, every epoch. Reseeding `torch` this way also throws away
    the per-epoch seed torch gives each worker (`base_seed + worker_id`).

    ## Example
    ```python
    SEED = 42

    def worker_init_fn(worker_id):
        np.random.seed(SEED + worker_id)
        torch.manual_seed(SEED + worker_id)

    loader = DataLoader(dataset, num_workers=4, worker_init_fn=worker_init_fn)
    ```

    ## Use instead
    ```python
    def worker_init_fn(worker_id):
        np.random.seed(torch.initial_seed() % 2**32)
    ```
    Inside a worker, `torch.initial_seed()` is `base_seed + worker_id`, where `base_seed` is
    drawn from torch's generator at every epoch: distinct per worker and per epoch, and
    reproducible when the run calls `torch.manual_seed(SEED)`.

    ## Fix safety
    Safe. The fix replaces the seed of `np.random.seed(...)` / `random.seed(...)` with
    `torch.initial_seed() % 2**32` (reusing the module's torch alias, adding `import torch`
    only when missing); when the seed is a local variable used only for seeding, its
    assignment is rewritten instead. A `torch.manual_seed(...)` statement there is dropped:
    torch already seeds each worker itself. Only the randomness this rule reports changes.
    Seeding done in a helper the `worker_init_fn` calls is reported at the call of the helper,
    without a fix (the helper may seed the main process too). Note that the per-rank offset
    of a DDP seed like `SEED + rank * num_workers + worker_id` is dropped with the rest; give
    each rank its own torch seed (SDL008) to keep ranks apart.
    """

    code = "SDL003"
    name = "worker-init-fn-repeats-every-epoch"
    summary = "worker_init_fn seeds the same value in every epoch"
    fix_safety = "safe"

    def check(self, project: Project) -> Iterable[Diagnostic]:
        flow = project.flow
        reported: Set[Tuple[str, int, int]] = set()
        for loader in project.loader_calls():
            if not workers_may_be_positive(flow, loader) or _persistent(project, loader):
                continue
            init = worker_init_value(loader)
            if init is None:
                continue
            for root, bound in worker_init_functions(flow, loader.module, init):
                origins = SeedOrigins(flow)
                origins.enter_worker_init(root, bound, loader.module, parent_fixed=not in_loop(loader.function, loader.call))
                for anchor, seeding, origin in _fixed_seedings(origins, root, root, 0):
                    key = (root.module.path, anchor.span.line, anchor.span.col)
                    if key in reported:
                        continue
                    reported.add(key)
                    yield self._diagnostic(root, anchor, seeding, origin)

    def _diagnostic(self, root: FunctionRef, anchor: Call, seeding: Tuple[FunctionRef, Call, str], origin: Origin) -> Diagnostic:
        function, call, seeder = seeding
        init_name = "a lambda" if root.function.is_lambda else f"`{root.function.name}`"
        spelled = getattr(call.func, "dotted", seeder)
        via = "" if call is anchor else f" (through `{spelled}` in `{function.function.qualname}`, {where(function.module, call.span)})"
        message = (
            f"worker_init_fn {init_name} seeds {_WHAT[seeder]}{via} from {describe(origin)}: "
            "every epoch repeats the same random values in each worker; "
        )
        if seeder.startswith("torch."):
            message += "drop it, torch already seeds each worker from base_seed + worker_id"
        else:
            message += "seed from `torch.initial_seed() % 2**32`"
        fix = None
        if call is anchor:
            action = "torch" if seeder.startswith("torch.") else "reseed"
            fix = Fix(FIX_KIND, root.module.path, call.span, True, (action,))
        return self.report(root.module, anchor.span, message, fix)


def _fixed_seedings(
    origins: SeedOrigins, root: FunctionRef, current: FunctionRef, depth: int, anchor: Optional[Call] = None
) -> Iterator[Tuple[Call, Tuple[FunctionRef, Call, str], Origin]]:
    """(anchor call in the worker_init_fn, (function, seeding call, seeder), seed origin)
    for every global reseed from a fixed value."""
    flow = origins.flow
    for call in current.function.calls:
        names = flow.callee_names(current.module, call)
        seeder = next((n for n in names if n in WORKER_RESEEDERS), None)
        if seeder is not None:
            value = call.argument(WORKER_RESEEDERS[seeder], 0)
            if value is None or (isinstance(value, Const) and value.value is None):
                continue
            origin = origins.value(current.module, value)
            if origin.kind == FIXED:
                yield anchor or call, (current, call, seeder), origin
            continue
        if depth >= MAX_HELPER_DEPTH:
            continue
        for callee in flow.symbols(current.module, call.func):
            if not isinstance(callee, FunctionRef) or callee.key == current.key:
                continue
            skip_self = flow.owner_class(callee.module, callee.function) is not None
            origins.enter_callee(current, call, callee, skip_self)
            yield from _fixed_seedings(origins, root, callee, depth + 1, anchor or call)


def _persistent(project: Project, loader: LoaderCall) -> bool:
    """``persistent_workers`` not statically false: workers (and their seeds) live on."""
    value = loader.argument("persistent_workers")
    if value is None:
        return False
    constant = project.flow.const(loader.module, value)
    return not (constant is not None and not constant.value)
