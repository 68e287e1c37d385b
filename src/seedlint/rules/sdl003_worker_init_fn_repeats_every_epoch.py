"""SDL003 worker-init-fn-repeats-every-epoch."""

from __future__ import annotations

from typing import Dict, FrozenSet, Iterable, Set, Tuple

from seedlint.analysis.loaders import LoaderCall
from seedlint.analysis.objects import Frame, FunctionObj
from seedlint.analysis.seeds import WORKER_ID, Origin, Seeding, describe
from seedlint.analysis.worker_init import worker_seedings
from seedlint.diagnostics import Diagnostic, Fix
from seedlint.rng import NUMPY, PYTHON_RANDOM, STREAM_NAMES, TORCH
from seedlint.rules.base import Project, Rule, add_related, where, workers_condition, workers_severity

FIX_KIND = "reseed-worker-from-initial-seed"


class WorkerInitFnRepeatsEveryEpoch(Rule):
    """
    ## What it does
    Finds a `worker_init_fn` (a def, a lambda, an object whose class defines `__call__`, or a
    `functools.partial` of one, partials of partials included) passed to a
    `DataLoader` with worker processes that seeds `numpy.random`, `random` or `torch` from a
    value that does not come from `torch.initial_seed()` or `get_worker_info().seed`: a
    constant, `worker_id` alone, `SEED + worker_id` (a module constant, an argparse or config
    value, an argument bound by `partial`), or `np.random.get_state()[1][0] + worker_id`.
    The seeding call may sit in another module than the loader, or in a helper the
    `worker_init_fn` calls; loaders with `persistent_workers` not statically false are skipped,
    and so are loader classes that start their workers once in `__init__` (`self.iterator =
    super().__iter__()`, as YOLO's `InfiniteDataLoader` does) and serve every epoch from them.
    A loader the program reads in one pass (one `for` loop over it, or one iterator made once,
    `it = iter(loader)` then `next(it)` at every step, outside any other loop, in code that runs
    once) starts its workers once: a seed that includes
    `worker_id` repeats nothing there, and one that does not is reported for making every
    worker draw the same values.
    A seeding call is reported only when the loader's workers draw from the RNG it seeds
    (reseeding Python's `random` badly is harmless when the dataset draws only from NumPy).

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
        loaders = project.loaders
        reported: Dict[Tuple[str, int, int], Diagnostic] = {}
        for loader in loaders.all:
            for frame in loaders.contexts(loader):
                workers = loaders.workers(loader, frame)
                if not workers.may_be_positive or loaders.persistent(loader, frame) is not False:
                    continue
                if loaders.keeps_one_iterator(loader, frame):
                    continue  # its workers start once and serve every pass
                init = loaders.worker_init(loader, frame)
                drawn = drawn_streams(project, loader, frame)
                if not drawn:
                    continue
                once = project.loops.iterated_once(loader, frame)
                for value in init.values:
                    if not isinstance(value, FunctionObj):
                        continue
                    for seeding, origin in fixed_seedings(project, loader, frame, value):
                        relevant = seeding.rngs & drawn
                        if not relevant or (once and WORKER_ID in origin.parts):
                            continue
                        key = (seeding.frame.module.path if not seeding.through_helper else value.function.module.path,
                               seeding.anchor.span.line, seeding.anchor.span.col)
                        related = (loader.module, frame.module, value.function.module, seeding.frame.module)
                        if key in reported:
                            add_related(reported[key], related)
                            continue
                        torch = project.settings_for(loader.module.path).torch_version
                        reported[key] = self._diagnostic(value, seeding, origin, relevant, related, once, torch, workers)
                        yield reported[key]

    def _diagnostic(self, init: FunctionObj, seeding: Seeding, origin: Origin, relevant: FrozenSet[str], related,
                    once: bool, torch_version, workers) -> Diagnostic:
        function = init.function.function
        init_name = "a lambda" if function.is_lambda else f"`{function.qualname}`" if function.class_name else f"`{function.name}`"
        what = " and ".join(STREAM_NAMES[s] for s in sorted(relevant))
        spelled = seeding.call.func.dotted if hasattr(seeding.call.func, "dotted") else "a seeding call"
        via = ""
        if seeding.through_helper:
            via = f" (through `{spelled}` in `{seeding.frame.function.function.qualname}`, {where(seeding.frame.module, seeding.call.span)})"
        effect = ("every worker draws the same random values (the program reads the loader in one pass, so "
                  "nothing restarts them and epochs do not repeat)" if once else "every epoch repeats the same random values in each worker")
        message = (
            f"worker_init_fn {init_name} seeds {what}{via} from {describe(origin, torch_version)}, and the DataLoader's "
            f"workers draw from it: {effect}; "
        )
        if relevant == {TORCH}:
            message += "drop it, torch already seeds each worker from base_seed + worker_id"
        else:
            message += "seed from `torch.initial_seed() % 2**32`"
        message += workers_condition(workers)
        fix = None
        module = init.function.module
        if not seeding.through_helper and seeding.frame.module.path == module.path:
            action = "torch" if seeding.rngs == {TORCH} else "reseed"
            fix = Fix(FIX_KIND, module.path, seeding.call.span, True, (action,))
        anchor_module = seeding.frame.module if not seeding.through_helper else _anchor_module(init, seeding)
        evidence = [(module.path, function.span, f"the worker_init_fn {init_name}")]
        if seeding.through_helper:
            evidence.append((seeding.frame.module.path, seeding.call.span, f"`{spelled}` seeds {what} here"))
        return self.report(anchor_module, seeding.anchor.span, message, fix, related=related, evidence=evidence,
                           severity=workers_severity(workers))


def _anchor_module(init: FunctionObj, seeding: Seeding):
    return init.function.module


def drawn_streams(project: Project, loader: LoaderCall, frame: Frame) -> FrozenSet[str]:
    """The global RNG streams the loader's workers draw from in this context."""
    found: Set[str] = set()
    for instance in project.loaders.datasets(loader, frame):
        found.update(d.stream for d in project.workers.of(instance).sure_draws)
    return frozenset(found & {NUMPY, PYTHON_RANDOM, TORCH})


def fixed_seedings(project: Project, loader: LoaderCall, frame: Frame, init: FunctionObj) -> Iterable[Tuple[Seeding, Origin]]:
    """Seedings a worker_init_fn makes (itself or in helpers) from a value fixed in every epoch."""
    for seeding, origin in worker_seedings(project, loader, frame, init):
        if origin.fixed:
            yield seeding, origin
