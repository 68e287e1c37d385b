"""SDL001 numpy-global-rng-in-workers."""

from __future__ import annotations

from typing import Iterable, Optional, Tuple

from seedlint.analysis.draw_conditions import options_choosing, options_needed, options_needed_by, spelled_options
from seedlint.analysis.index import FunctionRef
from seedlint.analysis.objects import Constant, FunctionObj, Instance
from seedlint.analysis.reach import reachable
from seedlint.analysis.seeds import EPOCH
from seedlint.analysis.worker_init import init_frame, worker_seedings
from seedlint.analysis.workers import Draw
from seedlint.diagnostics import Diagnostic, Fix
from seedlint.knowledge.global_draws import configured_draw, versioned_draw
from seedlint.facts.model import MODULE_CODE, BoolOp, Compare, Const, Name
from seedlint.analysis.main_process_draws import numpy_draw_between_passes
from seedlint.rng import NUMPY, NUMPY_GLOBAL_SEEDERS, global_stream
from seedlint.rules.pickling import may_start_by_pickling
from seedlint.rules.base import (
    Project, Rule, abstract_stub, built, built_in, chosen, dataset_name, where, workers_condition, workers_evidence, workers_severity,
)

FIX_KIND = "add-worker-init-fn"
HELPER_NAME = "seed_worker"
"""The name the fix gives the function it inserts (numbered when the module spells it)."""


class NumpyGlobalRngInWorkers(Rule):
    """
    ## What it does
    Finds a `DataLoader` with worker processes (`num_workers` not statically 0) and no
    `worker_init_fn` that seeds NumPy, over a dataset whose worker code (`__getitem__`,
    `__iter__`, and everything they call in the project, including transforms the dataset
    holds) or whose `collate_fn` (a project function or callable object, which also runs in the workers) draws
    from NumPy's global random generator (`np.random.rand`, `np.random.randint`,
    `np.random.choice`, ...). The `worker_init_fn` is judged as torch runs it for that loader:
    one that seeds NumPy only under `if seed is not None`, given `partial(init_fn, seed=None)`
    by the loader's caller, does not seed it.

    Reported only when the loader's program may run on torch < 1.9: nothing bounds torch
    from below at 1.9 or newer, neither the project's declarations (packaging files, environment
    files, Dockerfiles, and the install commands its README shows), nor the bounds its other
    dependencies imply (`lightning>=2.0`, `torchvision>=0.15`, `numpy>=2`, `requires-python
    >=3.10`), nor an API the program uses outside a feature check (`torch.compile`,
    `torch.inference_mode`). `seedlint --show-settings FILE` shows what bounds it. A loader
    the program reads in one pass (one `for` loop over it, or one iterator made once, `it =
    iter(loader)` then `next(it)`, outside any other loop, in code that runs once) starts its
    workers once: the message then claims no repetition across epochs, and a single
    worker started once is not reported. Neither is a single worker whose loader's module draws
    from NumPy in the main process (its script code or a module-level function that is not the
    dataset's worker code): each restart forks from a state that has moved on. Nor do several
    workers claim that epochs repeat when the epoch loop reading the loader may draw from NumPy
    in the main process (a mixup `np.random.beta` per batch, in the loop or a function it
    runs). Workers that start by spawn or forkserver whatever the platform (the loader's
    `multiprocessing_context`, `set_start_method("spawn")` run unconditionally in its
    program, with no forkserver preload, or a loader built only in processes that
    `torch.multiprocessing.spawn` starts: a spawned process starts its own children by spawn)
    import NumPy afresh, seeded from the operating system, and are not reported. The message
    names a draw that runs with the program's defaults when there is one; a dataset that draws
    only under an option the command line sets (`if self.dense_sample:` from a `store_true`
    flag, one of an option's `choices`) is reported as a warning that says so (`the draw runs
    only when the program runs with --dense_sample`), and so is a dataset class that a lookup
    picks only for an option value other than the default (`DATASETS[args.dataset]` with
    `--dataset` defaulting to another key: `` `Noisy` is built only when the program runs
    with `--dataset noisy` ``).

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
    reported without a fix: seed NumPy inside that function. A `worker_init_fn` that seeds
    NumPy only under `isinstance(get_worker_info().dataset, Other)` does not seed it for a
    dataset that is certainly not an `Other`, and is reported the same way. In a notebook the
    fix is written into its cells, and offered only where the workers fork: a `seed_worker`
    the notebook defines is something workers started by spawn cannot import (SDL012).
    """

    code = "SDL001"
    name = "numpy-global-rng-in-workers"
    summary = "DataLoader workers share NumPy's global RNG state"
    fix_safety = "safe"

    def check(self, project: Project) -> Iterable[Diagnostic]:
        loaders = project.loaders
        for loader in loaders.all:
            if not project.settings_for(loader.module.path).torch_version.may_be_below("1.9"):
                continue
            found = list(self._contexts_with_the_bug(project, loader))
            if found:
                frame, instance, draw, init, workers = found[0]
                yield self._diagnostic(project, loader, frame, instance, draw, init, workers, [each[0] for each in found])

    def _contexts_with_the_bug(self, project: Project, loader):
        """(frame, dataset, draw, worker_init_fn, workers) for each context in which the
        loader's workers draw from NumPy's global RNG unseeded."""
        loaders = project.loaders
        for frame in loaders.contexts(loader):
            workers = loaders.workers(loader, frame)
            if not workers.may_be_positive:
                continue
            if _imports_numpy_afresh(project, loader, frame):
                continue
            if not workers.may_be_several and project.loops.iterated_once(loader, frame):
                continue  # one worker, started once: nothing to duplicate or repeat
            init = loaders.worker_init(loader, frame)
            datasets = loaders.datasets(loader, frame)
            if init.unknown or not _never_seeds_numpy(project, init, datasets, loader, frame):
                continue
            found = self._first_draw(project, datasets)
            if found is None:
                collates = [v for v in loaders.argument(loader, "collate_fn", frame).values if isinstance(v, (FunctionObj, Instance))]
                found = self._first_draw(project, collates)
            if found is None:
                continue
            instance, draw = found
            if not workers.may_be_several and _main_process_draws_numpy(project, loader, instance):
                continue  # one worker, restarted after the main process has moved NumPy on
            yield frame, instance, draw, init, workers

    def _diagnostic(self, project: Project, loader, frame, instance, draw: Draw, init, workers, frames) -> Diagnostic:
        no_init = all(isinstance(v, Constant) and v.value is None for v in init.values)
        function = draw.reached.function
        # Epochs repeat where any context with the bug restarts the workers (a factory whose
        # training context makes one pass is not restarted by an evaluation that draws nothing).
        restarted = any(
            project.loaders.persistent(loader, each) is False and loader.positional and not project.loops.iterated_once(loader, each)
            and not project.loaders.keeps_one_iterator(loader, each)
            for each in frames
        )
        if workers.may_be_several:
            effect = "on torch < 1.9 every worker starts from the same copy of NumPy's global state and returns the same random values"
            if restarted and numpy_draw_between_passes(project, loader) is None:
                effect += "; epochs repeat them too unless the main process draws from NumPy in between"
        else:
            effect = (
                "on torch < 1.9 the worker starts from the main process's NumPy state in every epoch, so epochs repeat "
                "the same random values unless the main process draws from NumPy in between"
            )
        collate = instance in project.loaders.argument(loader, "collate_fn", frame).values
        message = (
            f"DataLoader workers draw from NumPy's global RNG (`{draw.spelled}`{_releases_drawing(draw)} in `{function.function.qualname}`, "
            f"{where(function.module, draw.call.span)}, {_reached_from(instance, loader, collate)}) but "
            + ("no worker_init_fn seeds it" if no_init else _init_verdict(project, init, loader, frame, instance))
            + f": {effect}{workers_condition(workers)}{_draw_condition(project, draw)}{_choice_condition(project, instance)}"
        )
        written = init.explicit is None or (isinstance(init.explicit, Const) and init.explicit.value is None)
        takes_it = loader.positional or project.loaders.accepts_keyword(loader, "worker_init_fn")
        fixable = no_init and written and takes_it and not loader.arguments_unknown
        if loader.module.cells and may_start_by_pickling(project, loader, frame):
            fixable = False  # a seed_worker the notebook defines is one more thing spawned workers cannot import
        fix = None
        if fixable:
            reused = _correct_seeder_in_module(project, loader, frame)
            fix = Fix(FIX_KIND, loader.module.path, loader.call.span, True, ("reuse", reused) if reused else ("insert",))
        evidence = [(function.module.path, draw.call.span, f"`{draw.spelled}` draws from NumPy's global RNG in worker code")]
        evidence += workers_evidence(project, workers)
        origin = instance.built_at if hasattr(instance, "built_at") else None
        if origin is not None:
            evidence.append((origin[0].path, origin[1].span, f"`{dataset_name(instance)}` is built here"))
        for value in init.values:
            if isinstance(value, FunctionObj) and not value.function.function.is_lambda:
                evidence.append((value.function.module.path, value.function.function.span, "the worker_init_fn, which does not seed NumPy here"))
        return self.report(loader.module, loader.call.span, message, fix, severity=workers_severity(workers) or ("warning" if options_needed(project.flow, draw) or options_choosing(project.flow, instance) else None),
                           related=(function.module, built_in(instance), frame.module), evidence=evidence)

    @staticmethod
    def _first_draw(project: Project, instances) -> Optional[Tuple[Instance, Draw]]:
        """The draw most sure to run: one the program's defaults run, then fewest ``if``s on
        the way, then fewest calls, then the first in the source; of the datasets that reach
        it, one the program's defaults build (``ImageFolder`` for ``--data_set IMNET``, not
        ``CIFAR100`` under ``if args.data_set == "CIFAR":``), and one that is not an abstract
        base class of another (the concrete class a name picks, not the base it inherits
        ``__getitem__`` from)."""
        found = []
        instances = list(instances)
        for instance in instances:
            based_on = _base_of_another(project, instance, instances)
            site = getattr(instance, "site", None)
            built_needs = site is not None and bool(
                options_needed_by(project.flow, [(site.call.guards, site.frame)]) or options_choosing(project.flow, instance)
            )
            run = project.workers.of(instance)
            if _seeds_numpy_itself(project, run):
                continue
            for draw in run.sure_draws:
                if draw.stream == NUMPY:
                    guards, hops = _on_the_way(draw)
                    span = draw.call.span
                    needs = bool(options_needed(project.flow, draw))
                    key = (needs, built_needs, guards, hops, draw.reached.function.module.path, span.line, span.col, based_on)
                    found.append((key, instance, draw))
        if not found:
            return None
        _, instance, draw = min(found, key=lambda item: item[0])
        return instance, draw


def _reached_from(instance, loader, collate: bool) -> str:
    """``reached from `Clips` built at train.py:40``; for a draw in the loader's own
    ``collate_fn``, ``the loader's `collate_fn``` (a function) or ``the loader's `collate_fn`,
    a `Collate` built at ...`` (an object whose ``__call__`` draws)."""
    if isinstance(instance, FunctionObj):
        return "the loader's `collate_fn`, which runs in the workers"
    if collate:
        return f"the loader's `collate_fn`, a `{dataset_name(instance)}`{built(instance, loader)}, which runs in the workers"
    return f"reached from `{dataset_name(instance)}`{chosen(instance)}{built(instance, loader)}"


def _releases_drawing(draw: Draw) -> str:
    """`` (as albumentations <1.2 does)`` for a library object that draws so only in some
    releases, `` (its `auto_augment` policy draws)`` for one built to draw."""
    if draw.held is None:
        return ""
    configured = configured_draw(draw.held.qualified)
    if configured is not None:
        return f" (its `{configured.keyword}` policy draws with `np.random`)"
    entry = versioned_draw(draw.held.qualified)
    return f" (as {entry.package} {entry.versions} does)" if entry is not None else ""


def _base_of_another(project: Project, instance, instances) -> bool:
    """This dataset's class is abstract (a method of its own only raises
    ``NotImplementedError``) and another of the datasets is an instance of a subclass."""
    if not isinstance(instance, Instance):
        return False
    own = instance.cls.cls.methods.values()
    if not any(abstract_stub(instance.cls.module.functions[qualname]) for qualname in own if qualname in instance.cls.module.functions):
        return False
    return any(
        isinstance(other, Instance) and other.cls.key != instance.cls.key
        and any(base.key == instance.cls.key for base in project.index.mro(other.cls))
        for other in instances
    )


def _draw_condition(project: Project, draw: Draw) -> str:
    """`` (the draw runs only when the program runs with `--dense_sample`)`` for a draw the
    program's defaults switch off."""
    flags = options_needed(project.flow, draw)
    if not flags:
        return ""
    return f" (the draw runs only when the program runs with {spelled_options(flags)})"


def _choice_condition(project: Project, instance) -> str:
    """`` (`Noisy` is built only when the program runs with `--dataset Noisy`)`` for a dataset
    class a lookup picks only for an option value other than the default."""
    flags = options_choosing(project.flow, instance)
    if not flags:
        return ""
    return f" (`{dataset_name(instance)}` is built only when the program runs with {spelled_options(flags)})"


def _on_the_way(draw: Draw) -> Tuple[int, int]:
    """The ``if``s between the worker's entry and the draw, and the calls on the way."""
    guards = len(draw.call.guards)
    hops = 0
    reached = draw.reached
    while reached.via is not None:
        hops += 1
        guards += len(reached.call.guards) if reached.call is not None else 0
        reached = reached.via
    return guards, hops


def _init_verdict(project: Project, init, loader, frame, instance) -> str:
    """Why the worker_init_fn leaves NumPy unseeded for this loader."""
    seedings = _numpy_seedings(project, init, (), loader, frame)
    if seedings is not None and seedings[0]:
        return f"its worker_init_fn seeds NumPy only behind an `isinstance` test on the dataset that `{dataset_name(instance)}` fails"
    if seedings is not None and seedings[1]:
        call, reached = seedings[1][0]
        caller = f" as called at {where(frame.site.frame.module, frame.site.call.span)}" if frame.site is not None else ""
        return (
            f"its worker_init_fn seeds NumPy (`{reached.function.function.qualname}`, {where(reached.module, call.span)}) "
            f"only under an `if` that does not hold for this loader{caller} (the seed it is given is None)"
            if _guarded_by_none_test(call) else
            f"its worker_init_fn seeds NumPy (`{reached.function.function.qualname}`, {where(reached.module, call.span)}) "
            f"only under an `if` that does not hold for this loader{caller}"
        )
    return "its worker_init_fn never seeds NumPy"


def _guarded_by_none_test(call) -> bool:
    return any(isinstance(test, Compare) and test.op in ("is", "is not") and isinstance(test.right, Const) and test.right.value is None
               for test, _ in call.guards)


def _never_seeds_numpy(project: Project, init, datasets, loader, frame) -> bool:
    """Every value the worker_init_fn may be is None or a function that never seeds NumPy
    for this loader's datasets, run as torch runs it for this loader (after what a
    ``functools.partial`` binds): a seeding under ``isinstance(info.dataset, Other)``, or
    under ``if seed is not None`` where the partial binds ``seed=None``, is not one."""
    seedings = _numpy_seedings(project, init, datasets, loader, frame)
    return seedings is not None and not seedings[0]


def _numpy_seedings(project: Project, init, datasets, loader, frame) -> Optional[Tuple[list, list]]:
    """The calls that seed NumPy in the worker_init_fn's run for this loader: those that may
    run, and those under an ``if`` that cannot hold there (None: the init is not a function)."""
    roots = []
    for value in init.values:
        if isinstance(value, Constant) and value.value is None:
            continue
        if not isinstance(value, FunctionObj):
            return None
        roots.append(init_frame(project, loader, frame, value))
    flow = project.flow
    live, switched_off = [], []
    for reached in reachable(flow, roots):
        for call in reached.function.function.calls:
            if not flow.callee_names(call, reached) & NUMPY_GLOBAL_SEEDERS or flow.filtered_out(call.guards, datasets, reached):
                continue
            (live if flow.guards_may_hold(call.guards, reached) else switched_off).append((call, reached))
    return live, switched_off


def _main_process_draws_numpy(project: Project, loader, instance) -> bool:
    """The loader's module draws from NumPy's global RNG in its own code (the script's
    module code or a module-level function that is not the dataset's worker code): a
    single worker restarted later forks from a state that has moved on."""
    worker = {reached.function.key for reached in project.workers.of(instance).functions}
    module = loader.module
    for function in module.functions.values():
        if function.class_name is not None or (module.path, function.qualname) in worker:
            continue
        for call in function.calls:
            func = call.func
            if isinstance(func, Name) and func.qualified and global_stream(func.qualified) == NUMPY:
                return True
    return False


def _seeds_numpy_itself(project: Project, run) -> bool:
    """Worker code that reseeds NumPy's global RNG (per item or per worker) is not this bug;
    a reseeding under a test the dataset certainly fails (``if not self.is_train:`` in a
    training dataset) does not run."""
    flow = project.flow
    for reached in run.functions:
        for call in reached.frame.function.function.calls:
            if flow.callee_names(call, reached.frame) & NUMPY_GLOBAL_SEEDERS and not _for_one_item(reached, call) \
                    and flow.guards_may_hold(call.guards, reached.frame):
                return True
    return False


def _for_one_item(reached, call) -> bool:
    """The reseeding runs only when the worker serves one given item (``if index == 0:``
    in ``__getitem__``, around it or around the call on the way): the worker that serves
    it reseeds, the others keep the copied state."""
    guarded = [(call.guards, reached.frame)]
    while reached.via is not None:
        guarded.append((reached.call.guards if reached.call is not None else (), reached.via.frame))
        reached = reached.via
    for guards, frame in guarded:
        function = frame.function.function
        if function.name not in ("__getitem__", "__getitems__") or len(function.params) < 2:
            continue
        index = function.params[1]
        if any(expected and _tests_equal_to_a_constant(test, index) for test, expected in guards):
            return True
    return False


def _tests_equal_to_a_constant(test, name: str) -> bool:
    if isinstance(test, BoolOp) and test.op == "and":
        return any(_tests_equal_to_a_constant(value, name) for value in test.values)
    if not isinstance(test, Compare) or test.op != "==":
        return False
    sides = {type(test.left), type(test.right)}
    named = any(isinstance(side, Name) and side.dotted == name for side in (test.left, test.right))
    return named and Const in sides


def _correct_seeder_in_module(project: Project, loader, frame) -> Optional[str]:
    """A module-level function of the loader's module that, as this loader's
    worker_init_fn, would seed NumPy from torch's per-worker seed and nothing fixed;
    ``seed_worker`` first. The fix passes it rather than inserting another."""
    module = loader.module
    functions = [
        f for f in module.functions.values()
        if f.qualname == f.name and not f.is_lambda and f.class_name is None and module.toplevel.get(f.name) == "def"
    ]
    functions.sort(key=lambda f: (f.name != HELPER_NAME, f.span.line))
    at_module_level = loader.function.qualname == MODULE_CODE
    bound_elsewhere = _names_bound_elsewhere(module)
    for function in functions:
        if len([p for p, kind in zip(function.params, function.param_kinds) if kind in ("posonly", "normal")]) != 1:
            continue
        if at_module_level and function.span.line > loader.call.span.line:
            continue
        if function.name in bound_elsewhere:
            continue
        init = FunctionObj(FunctionRef(module, function))
        origins = [origin for seeding, origin in worker_seedings(project, loader, frame, init) if NUMPY in seeding.rngs]
        if origins and all(o.kind == EPOCH and not o.raw for o in origins):
            return function.name
    return None


def _names_bound_elsewhere(module) -> set:
    """Names bound by something other than a def: an import, an assignment, a parameter or
    local of some function, a ``global`` declaration (one pass over the module)."""
    bound = set(module.imports)
    for function in module.functions.values():
        bound.update(function.params)
        bound.update(function.global_names)
        bound.update(assign.target for assign in function.assigns)
    return bound


def _imports_numpy_afresh(project: Project, loader, frame) -> bool:
    """The workers start by spawn or forkserver on every platform, so each imports NumPy
    itself, seeded from the operating system; not when a forkserver preloads modules
    (``set_forkserver_preload``), whose NumPy state every worker would then copy."""
    method = project.start_methods.surely_pickling(loader, frame)
    if method is None:
        return False
    if method.name == "forkserver":
        return not any(
            isinstance(call.func, Name) and call.func.dotted.endswith("set_forkserver_preload")
            for module in project.modules for _, call in module.all_calls()
        )
    return True
