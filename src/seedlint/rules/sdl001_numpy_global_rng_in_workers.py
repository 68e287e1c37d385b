"""SDL001 numpy-global-rng-in-workers."""

from __future__ import annotations

from typing import Iterable, List, Optional, Tuple

from seedlint.diagnostics import Diagnostic, Fix
from seedlint.facts.model import Call, Name, Value
from seedlint.index import FunctionRef
from seedlint.loaders import datasets, worker_init_value, workers_may_be_positive
from seedlint.rng import NUMPY_GLOBAL_SEEDERS, NUMPY_LEGACY_DRAWS
from seedlint.rules.base import Project, Rule, where
from seedlint.workers import worker_code

FIX_KIND = "add-worker-init-fn"


class NumpyGlobalRngInWorkers(Rule):
    """
    ## What it does
    Finds a `DataLoader` with worker processes (`num_workers` not statically 0) and no
    `worker_init_fn` that seeds NumPy, over a dataset whose worker code (`__getitem__`,
    `__iter__`, and everything they call in the project, including transforms the dataset
    holds) draws from NumPy's global random generator (`np.random.rand`, `np.random.randint`,
    `np.random.choice`, ...).

    Reported only when the project may run on torch < 1.9: it declares an older torch, or
    declares none. Projects that require torch >= 1.9 are not affected.

    ## Why is this bad?
    Before torch 1.9, DataLoader workers are forked from the parent with an identical copy of
    NumPy's global RNG state and torch does not reseed it. Every worker therefore returns the
    *same* "random" crops, flips and noise, and because each epoch forks from the same parent
    state, every epoch repeats them (pytorch/pytorch issue 5059). Training silently sees a
    fraction of the augmentation it was written to see.

    ## Example
    ```python
    class Noisy(Dataset):
        def __getitem__(self, index):
            return np.random.rand()

    loader = DataLoader(Noisy(), batch_size=8, num_workers=4)
    ```

    ## Use instead
    ```python
    def seed_worker(worker_id):
        worker_seed = torch.initial_seed() % 2**32
        np.random.seed(worker_seed)
        random.seed(worker_seed)


    loader = DataLoader(Noisy(), batch_size=8, num_workers=4, worker_init_fn=seed_worker)
    ```
    `torch.initial_seed()` inside a worker is the loader's per-epoch base seed plus the worker
    id, so each worker in each epoch gets its own NumPy stream, and a run seeded with
    `torch.manual_seed` stays reproducible.

    ## Fix safety
    Safe. The fix inserts `seed_worker` (the recipe from PyTorch's reproducibility notes) once
    per module, after the imports, adds only the imports it needs, and adds
    `worker_init_fn=seed_worker` to the loader call. It changes only the randomness this rule
    reports. A loader that already passes a `worker_init_fn` which never seeds NumPy is
    reported without a fix: seed NumPy inside that function.
    """

    code = "SDL001"
    name = "numpy-global-rng-in-workers"
    summary = "DataLoader workers share NumPy's global RNG state"
    fix_safety = "safe"

    def check(self, project: Project) -> Iterable[Diagnostic]:
        if not project.settings.torch_version.may_be_below("1.9"):
            return
        flow = project.flow
        for loader in project.loader_calls():
            if not workers_may_be_positive(flow, loader):
                continue
            if loader.arguments_unknown and loader.argument("worker_init_fn") is None:
                continue
            init = worker_init_value(loader)
            if init is not None and seeds_numpy(project, loader, init) is not False:
                continue
            draw = self._first_draw(project, loader)
            if draw is None:
                continue
            dataset, function, call = draw
            message = (
                f"DataLoader workers draw from NumPy's global RNG (`{call.func.dotted}` in "
                f"`{function.function.qualname}`, {where(function.module, call.span)}, reached from "
                f"`{dataset}`) but "
                + ("no worker_init_fn seeds it" if init is None else "its worker_init_fn never seeds NumPy")
                + ": on torch < 1.9 every worker returns the same random values, and every epoch repeats them"
            )
            fix = Fix(FIX_KIND, loader.module.path, loader.call.span) if init is None else None
            yield self.report(loader.module, loader.call.span, message, fix)

    @staticmethod
    def _first_draw(project: Project, loader) -> Optional[Tuple[str, FunctionRef, Call]]:
        for instance in datasets(project.flow, loader):
            for item in worker_code(project.flow, instance):
                for call in item.function.function.calls:
                    if isinstance(call.func, Name) and call.func.qualified in NUMPY_LEGACY_DRAWS:
                        return instance.cls.cls.name, item.function, call
        return None


def seeds_numpy(project: Project, loader, value: Value) -> Optional[bool]:
    """Whether a worker_init_fn seeds NumPy's global RNG; None when it cannot be resolved."""
    flow = project.flow
    roots = [s for s in flow.symbols(loader.module, value) if isinstance(s, FunctionRef)]
    if not roots:
        return None
    seen = set()
    queue: List[FunctionRef] = list(roots)
    while queue and len(seen) < 100:
        current = queue.pop()
        if current.key in seen:
            continue
        seen.add(current.key)
        for call in current.function.calls:
            if isinstance(call.func, Name) and call.func.qualified in NUMPY_GLOBAL_SEEDERS:
                return True
            queue.extend(s for s in flow.symbols(current.module, call.func) if isinstance(s, FunctionRef))
    return False
