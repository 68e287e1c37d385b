"""SDL008 identical-worker-streams-across-ranks."""

from __future__ import annotations

import os
from dataclasses import replace

from typing import Iterable, List, Optional, Set, Tuple

from seedlint.analysis.callsites import spelled
from seedlint.analysis.draw_conditions import exclusive, options_needed_by, spelled_options
from seedlint.analysis.flow.shared import method_receiver
from seedlint.analysis.objects import UNKNOWN, Constant, ExternalInstance, Frame, FunctionObj
from seedlint.analysis.accelerate_launch import single_process_config
from seedlint.analysis.rank_guards import on_one_rank, runs_on_one_rank
from seedlint.analysis.start_methods import SPAWNERS
from seedlint.analysis.reach import reachable
from seedlint.analysis.seeds import Seeding
from seedlint.diagnostics import Diagnostic, Fix
from seedlint.facts.model import MODULE_CODE, Attr, Call, Compare, Name
from seedlint.analysis.worker_init import worker_seedings
from seedlint.rng import NUMPY, NUMPY_GLOBAL_SEEDERS, PYTHON_RANDOM, RNG_OBJECT, STDLIB_GLOBAL_SEEDERS, TORCH, TORCH_GLOBAL_SEEDERS
from seedlint.knowledge.process_groups import (
    LIBRARY_PROCESS_GROUP_STARTS, PROCESS_GROUP_START_SPELLINGS, PROCESS_GROUP_STARTS, RANK_SPECIFIC_SEED_SWITCHES,
)
from seedlint.rules.base import Project, Rule, dataset_name, where, workers_condition, workers_evidence, workers_severity

FIX_KIND = "seed-everything-workers"
TORCH_GENERATORS = frozenset({"torch.Generator", "torch._C.Generator"})
MAX_PROGRAM = 200
"""Functions one program may reach before the walk stops."""
MAX_CALLERS = 8
"""Callers of the seeding function whose programs count as its own."""


class IdenticalWorkerStreamsAcrossRanks(Rule):
    """
    ## What it does
    Finds seeding that gives every distributed process (rank) the same DataLoader worker
    seeds:

    - Lightning's `seed_everything(S)` without `workers=True`, in the same program (the function
      that calls it, its callers, and what they run) as a `Trainer` that runs several processes
      (`devices` > 1, `-1` or `"auto"`, `num_nodes` > 1, or a `ddp`/`fsdp`/`deepspeed`
      strategy, also through `**trainer_kwargs` and argparse defaults), when a loader that
      Trainer runs has workers that draw random numbers; and `seed_everything(S,
      workers=True)` when such a loader keeps a `worker_init_fn` of its own (given to it, or
      set by MONAI's `DataLoader` itself): Lightning adds its rank-aware one only to a loader
      that has none;
    - plain DDP: `torch.manual_seed(S)` (or a project helper such as `set_seed(args.seed)`)
      with a seed that does not depend on the rank, in the code every rank runs (the function
      `mp.spawn` starts and the top-level code of the modules it runs, which each spawned rank
      imports outside their `if __name__ == "__main__":` block, or the whole script under
      `torchrun`), which calls
      `torch.distributed.init_process_group` (or builds accelerate's `Accelerator`, which
      joins the process group `accelerate launch` starts, unless every accelerate
      configuration file the project ships runs one process and nothing it documents asks
      for more) and builds loaders whose workers draw random numbers. Library seeders count as seeding torch (`transformers.set_seed`,
      `accelerate.utils.set_seed` unless given `device_specific=True`, MONAI's
      `set_determinism`), and so do the random
      transforms that MONAI's own `DataLoader` reseeds in each worker from torch's seed;
    - a DataLoader given its own `generator=g`, where `g.manual_seed(S)` (or
      `torch.Generator().manual_seed(S)`) has a seed that does not depend on the rank, run by a
      Trainer that starts several processes or built in the code every rank of a plain DDP
      program runs: the loader draws its workers' base seed from `g`, not from torch's global
      generator (a `worker_init_fn` of the loader's own replaces Lightning's, so
      `seed_everything(S, workers=True)` does not help there).

    Only draws that follow torch's per-worker seed count: not those of a stream the
    `worker_init_fn` reseeds with the rank mixed in (`torch.initial_seed() + rank * 100`),
    nor of a stream worker code reseeds itself (`torch.manual_seed(np.random.randint(...))`),
    nor of an RNG object (`np.random.default_rng(self.seed + self.epoch)`), which follows
    the seed it is built with. A seeding that the program's defaults skip (`if args.seed is
    not None:` with `--seed` defaulting to None) is a warning that names the option running it;
    so is one whose loaders start workers only when an option asks for them
    (`--dataloader_num_workers`, default 0), or whose loaders may also load datasets that
    draw nothing in their workers (`DATASETS[args.data]`): the message names those that do.
    A seeding that the program always follows with another seeding of torch before a loop
    reads the loaders (`set_seed(args)` in `main`, again in `train()` before its epoch loop)
    is not reported: the workers follow the later one, which is.

    ## Why is this bad?
    Each epoch, a DataLoader gives worker `k` the seed `base_seed + k`, where `base_seed` is
    drawn from torch's global generator. When every rank seeds that generator with the same
    `S`, worker `k` of rank 0 and worker `k` of rank 1 get the same seed and draw the same
    random crops, flips and noise, in lockstep. With 8 GPUs, an augmentation pipeline
    produces one eighth of the variety it was written for. Lightning fixes this only when
    asked: `seed_everything(S, workers=True)` installs a `worker_init_fn` that mixes the
    global rank into each worker's seed.

    ## Example
    ```python
    pl.seed_everything(42)
    trainer = pl.Trainer(accelerator="gpu", devices=4, strategy="ddp")
    ```

    ## Use instead
    ```python
    pl.seed_everything(42, workers=True)
    trainer = pl.Trainer(accelerator="gpu", devices=4, strategy="ddp")
    ```
    In a plain DDP script, seed each rank differently: `torch.manual_seed(args.seed + rank)`.
    Where every rank must draw the same initial values (a tensor created from the global
    generator that DDP does not broadcast), keep the shared seed and give the loader its own:
    `DataLoader(..., generator=torch.Generator().manual_seed(args.seed + rank))`; each
    epoch's worker seeds are drawn from that generator instead.

    ## Fix safety
    Safe for `seed_everything`: the fix adds `workers=True`, which only changes the seeds of
    worker processes. The plain DDP case has no fix: which rank variable to mix in is the
    script's own.
    """

    code = "SDL008"
    name = "identical-worker-streams-across-ranks"
    summary = "every DDP rank's DataLoader workers draw identical random streams"
    fix_safety = "safe"

    def triggers(self, settings) -> tuple:
        # A plain DDP script builds its loaders (the default trigger, DataLoader) or starts
        # its process group and gets the loaders from elsewhere (a table of builders).
        return super().triggers(settings) + (b"seed_everything", b"Trainer", b"Fabric", b"LightningCLI") + tuple(
            spelling.encode() for spelling in PROCESS_GROUP_START_SPELLINGS
        )

    def check(self, project: Project) -> Iterable[Diagnostic]:
        if not _may_run_several_ranks(project):
            return
        reported: Set[Tuple[str, int, int]] = set()
        for module in project.modules:
            if not project.in_focus(module):
                continue
            for function in module.functions.values():
                if not any(_spelled_like_seeding(_last(c)) for c in function.calls):
                    continue  # cheap, spelling-only screen: everything below resolves names
                frame = project.flow.function_frame(module, function)
                for call in function.calls:
                    if not _spelled_like_seeding(_last(call)) and not _last(call).lower().startswith(("init", "setup", "fix")):
                        continue
                    for seeding in project.seeds.seedings(call, frame):
                        keys = {(module.path, call.span.line, call.span.col)}
                        if seeding.through_helper and not _decided_by_the_caller(project, seeding.frame, seeding.seed):
                            # a helper that seeds with its own constant: one seeding, however many call it
                            keys.add((seeding.frame.module.path, seeding.call.span.line, seeding.call.span.col))
                        if keys & reported:
                            continue
                        diagnostic = self._judge(project, frame, call, seeding)
                        if diagnostic is not None:
                            diagnostic = _stating_the_option_it_needs(project, frame, call, seeding, diagnostic)
                            reported |= keys
                            yield diagnostic
        yield from self._loader_generators(project)

    # ------------------------------------------------------------------ a loader's own generator
    def _loader_generators(self, project: Project) -> Iterable[Diagnostic]:
        """A DataLoader given ``generator=g`` draws its workers' base seed from ``g``: a ``g``
        seeded alike on every rank gives worker k of every rank the same seed."""
        reported: Set[Tuple[str, int, int]] = set()
        for loader in project.loaders.all:
            if not project.in_focus(loader.module) or loader.argument("generator") is None:
                continue
            for frame in project.loaders.contexts(loader):
                for generator in project.loaders.argument(loader, "generator", frame).values:
                    if not (isinstance(generator, ExternalInstance) and generator.qualified in TORCH_GENERATORS):
                        continue
                    seeding = _generator_seeding(project, generator)
                    if seeding is None:
                        continue
                    call, seed_frame = seeding
                    key = (seed_frame.module.path, call.span.line, call.span.col)
                    if key in reported:
                        continue
                    if project.seeds.reads_the_process_seed(call.args[0], seed_frame):
                        continue  # torch.initial_seed(): each process draws its own at start-up
                    origin = project.seeds.origin(call.args[0], seed_frame)
                    if not origin.fixed or origin.rank_dependent:
                        continue
                    if not _drawing_datasets(project, loader, frame, own_generator=True)[0]:
                        continue
                    ranks = _ranks_running(project, loader, frame, seed_frame)
                    if ranks is None:
                        continue
                    reported.add(key)
                    spelled_call = call.func.dotted if isinstance(call.func, Name) else "torch.Generator().manual_seed"
                    yield self.report(seed_frame.module, call.span, (
                        f"`{spelled_call}(...)` seeds the generator of the DataLoader at {where(loader.module, loader.call.span)} "
                        f"alike on {ranks}: the loader draws its workers' base seed from it, so worker k of every rank gets the "
                        "same seed and draws the same augmentations; add the rank to the seed (e.g. `seed + rank`)"
                    ), related=[loader.module], evidence=[
                        (loader.module.path, loader.call.span, "a DataLoader of each rank whose workers draw, given this generator"),
                    ])

    def _judge(self, project: Project, frame: Frame, call: Call, seeding: Seeding) -> Optional[Diagnostic]:
        if TORCH not in seeding.rngs or seeding.seed is None:
            return None
        if not seeding.through_helper and _decided_by_the_caller(project, frame, seeding.seed):
            return None  # inside a seeding helper: judged where the helper is called
        if seeding.kind == "lightning" and not _multi_process_trainers(project):
            return None
        if seeding.kind != "lightning" and not (_multi_process_trainers(project) or _starts_process_groups(project)):
            return None  # nothing starts several ranks: no need to evaluate the seed
        if seeding.rank_specific:
            return None  # ``set_seed(seed, device_specific=True)`` adds the rank itself
        if _skipped_by_every_call(project, frame, call):
            return None  # ``if "seed" in configs:`` where no configuration sets it
        if runs_on_one_rank(project.flow, frame, call) or (seeding.through_helper and on_one_rank(seeding.call.guards)):
            return None  # only the main process seeds so (``if accelerator.is_main_process: log_validation(...)``)
        origin = project.seeds.origin(seeding.seed, seeding.frame)
        if not origin.fixed or origin.rank_dependent:
            return None
        if _reseeded_per_rank_later(project, frame, call):
            return None  # `torch.manual_seed(seed)` for the model, then `seed + rank` for the data
        if _reseeded_before_the_loops(project, frame, call):
            return None  # `set_seed(args)` in main, then again in `train()` before its epoch loop
        if seeding.kind == "lightning":
            return self._lightning(project, frame, call, seeding, _program(project, frame))
        if seeding.kind in ("direct", "library") or seeding.through_helper:
            if _multi_process_trainers(project):
                found = self._lightning_manual(project, frame, call, seeding, _program(project, frame))
                if found is not None:
                    return found
            if _starts_process_groups(project) and _may_start_process_group(project, frame):
                return self._plain_ddp(project, frame, call, seeding, _program(project, frame))
        return None

    def _lightning_manual(self, project: Project, frame: Frame, call: Call, seeding: Seeding, program: Set[tuple]) -> Optional[Diagnostic]:
        """``torch.manual_seed(S)`` in a script whose Trainer runs several processes: Lightning
        starts the script once per rank, so every rank seeds torch with S."""
        lightning = project.lightning
        for runner in _multi_process_trainers(project):
            if (runner.module.path, runner.function.qualname) not in program:
                continue
            if not any(_draws_in_workers(project, obj) for obj, runners in lightning.reached_objects() if runner in runners):
                continue
            return self.report(frame.module, call.span, (
                f"`{seeding.spelled}(...)` gives torch's global RNG the same seed on every rank the {_callee(runner.call)} at "
                f"{where(runner.module, runner.call.span)} starts, so worker k of every rank gets the same seed and draws "
                "the same augmentations; add the rank to the seed, or seed with `seed_everything(seed, workers=True)`"
            ), related=(runner.module, seeding.frame.module), evidence=_seeding_evidence(seeding, call) + [
                (runner.module.path, runner.call.span, "starts several ranks"),
            ])
        return None

    # ------------------------------------------------------------------ Lightning
    def _lightning(self, project: Project, frame: Frame, call: Call, seeding: Seeding, program: Set[tuple]) -> Optional[Diagnostic]:
        workers = seeding.call.argument("workers", 1)
        if workers is not None:
            constant = project.flow.constant(workers, seeding.frame)
            if constant is None:
                return None
            if constant.value:
                return self._lightning_passed_over(project, frame, call, seeding, program)
        lightning = project.lightning
        for runner in _multi_process_trainers(project):
            if (runner.module.path, runner.function.qualname) not in program:
                continue
            if not any(_draws_in_workers(project, obj) for obj, runners in lightning.reached_objects() if runner in runners):
                continue
            message = (
                f"`{seeding.spelled}(...)` without `workers=True` while the {_callee(runner.call)} at "
                f"{where(runner.module, runner.call.span)} runs several processes: every rank's DataLoader workers get "
                "the same seeds and draw identical augmentation streams; pass `workers=True`"
            )
            fixable = workers is None and not seeding.call.star_kwargs and not seeding.through_helper
            fix = Fix(FIX_KIND, frame.module.path, call.span) if fixable else None
            return self.report(frame.module, call.span, message, fix, related=(runner.module, seeding.frame.module),
                               evidence=_seeding_evidence(seeding, call) + [(runner.module.path, runner.call.span, "starts several ranks")])
        return None

    def _lightning_passed_over(
        self, project: Project, frame: Frame, call: Call, seeding: Seeding, program: Set[tuple]
    ) -> Optional[Diagnostic]:
        """``seed_everything(S, workers=True)``: Lightning gives a loader its rank-aware
        ``worker_init_fn`` only when the loader has none (``_auto_add_worker_init_fn``), so a
        loader with its own, or MONAI's ``DataLoader``, which sets one itself, keeps worker
        seeds that are the same on every rank."""
        lightning = project.lightning
        for runner in _multi_process_trainers(project):
            if (runner.module.path, runner.function.qualname) not in program:
                continue
            kept = [
                obj for obj, runners in lightning.reached_objects()
                if runner in runners and _keeps_its_own_worker_init(project, obj) and _draws_in_workers(project, obj)
            ]
            if not kept:
                continue
            obj = kept[0]
            own = (
                f"is MONAI's `{obj.loader.library.rsplit('.', 1)[-1]}`, which sets its own `worker_init_fn`"
                if obj.loader.library in LIBRARY_LOADERS_WITH_THEIR_OWN_WORKER_INIT else "has its own `worker_init_fn`"
            )
            message = (
                f"`{seeding.spelled}(..., workers=True)` gives every rank the same seed, and Lightning adds its rank-aware "
                f"`worker_init_fn` only to a DataLoader that has none: the DataLoader at "
                f"{where(obj.loader.module, obj.loader.call.span)} {own}, so while the {_callee(runner.call)} at "
                f"{where(runner.module, runner.call.span)} runs several processes, worker k of every rank gets the same "
                "seed and draws the same augmentations; mix the global rank into that loader's worker seeds"
            )
            related = (runner.module, seeding.frame.module, obj.loader.module)
            return self.report(frame.module, call.span, message, None, related=related,
                               evidence=_seeding_evidence(seeding, call) + [
                                   (runner.module.path, runner.call.span, "starts several ranks"),
                                   (obj.loader.module.path, obj.loader.call.span, "keeps its own worker_init_fn"),
                               ])
        return None

    # ------------------------------------------------------------------ plain DDP
    def _plain_ddp(self, project: Project, frame: Frame, call: Call, seeding: Seeding, program: Set[tuple]) -> Optional[Diagnostic]:
        flow = project.flow
        if not _starts_process_groups(project):
            return None
        ranks = _rank_program(project, frame, program)
        if (frame.module.path, frame.function.function.qualname) not in ranks:
            return None  # seeded in the parent, before the ranks are started
        if frame.function.function.qualname == MODULE_CODE and _under_main_guard(call) and _spawned_frames(project, frame):
            return None  # a spawned rank imports the module without running its __main__ block
        frames = [f for f in _program_frames(project, frame) if (f.module.path, f.function.function.qualname) in ranks]
        frames += _spawned_frames(project, frame)
        starts = [
            (c, f) for f in frames for c in f.function.function.calls
            if _may_call(c, PROCESS_GROUP_STARTS) and flow.callee_names(c, f) & PROCESS_GROUP_STARTS
        ]
        seeded_under = [(call.guards, frame)] + ([(seeding.call.guards, seeding.frame)] if seeding.through_helper else [])
        if all(exclusive(flow, seeded_under, [(c.guards, f)]) for c, f in starts):
            return None  # no process group starts in the runs that seed this way (`if local_rank == -1:`)
        loaders = [l for l in project.loaders.all if (l.module.path, l.function.qualname) in ranks and _draws_in_workers_of(project, l)]
        if not loaders:
            return None
        joined = [(c, f) for c, f in starts if flow.callee_names(c, f) & LIBRARY_PROCESS_GROUP_STARTS]
        if joined and len(joined) == len(starts) and project.memo("accelerate-one-process", lambda: single_process_config(project.tree)):
            return None  # every accelerate configuration the project ships runs one process
        ranks_named = "every DDP rank"
        if joined and len(joined) == len(starts):
            start, start_frame = joined[0]
            ranks_named = (f"every rank (the {_callee(start)} at {where(start_frame.module, start.span)} joins the "
                           "process group the launcher starts)")
        advice = (
            "add the rank to the seed (e.g. `seed + rank`), or, where every rank must draw the same initial "
            "values (state that DDP does not broadcast), give the DataLoader `generator=torch.Generator().manual_seed(seed + rank)`"
        )
        if flow.callee_names(seeding.call, seeding.frame) & set(RANK_SPECIFIC_SEED_SWITCHES):
            advice = "pass `device_specific=True` (once the `Accelerator` is built), which adds each process's index to the seed"
        condition, severity, evidence = _workers_started_by_an_option(project, loaders)
        picked, picked_severity = _datasets_picked_at_run_time(project, loaders)
        condition += picked
        severity = severity or picked_severity
        return self.report(frame.module, call.span, (
            f"`{seeding.spelled}(...)` gives torch's global RNG the same seed on {ranks_named}, so "
            f"worker k of every rank gets the same seed and draws the same augmentations{condition}; {advice}"
        ), severity=severity, related=[seeding.frame.module, *(loader.module for loader in loaders)],
            evidence=_seeding_evidence(seeding, call) + [
                (loader.module.path, loader.call.span, "a DataLoader of each rank whose workers draw") for loader in loaders[:3]
            ] + [(start_frame.module.path, start.span, "joins the process group") for start, start_frame in joined[:1]] + evidence)


def _skipped_by_every_call(project: Project, frame: Frame, call: Call) -> bool:
    """The seeding sits under a test that fails in every known call of its function (the
    configuration each documented command loads sets no ``seed``)."""
    if not call.guards or frame.function.function.qualname == MODULE_CODE:
        return False
    calls, complete = project.flow.frames_per_call(frame)
    return complete and bool(calls) and not any(project.flow.guards_may_hold(call.guards, called) for _, called in calls)


def _stating_the_option_it_needs(project: Project, frame: Frame, call: Call, seeding: Seeding, diagnostic: Diagnostic) -> Diagnostic:
    """A seeding that the program's defaults skip (``if args.seed is not None:`` with
    ``--seed`` defaulting to None) says which option runs it, as a warning."""
    tests = [(call.guards, frame)] + ([(seeding.call.guards, seeding.frame)] if seeding.through_helper else [])
    flags = options_needed_by(project.flow, tests)
    if not flags:
        return diagnostic
    condition = " (the seeding runs only when the program runs with " + spelled_options(flags) + ")"
    claim, _, advice = diagnostic.message.rpartition("; ")
    message = f"{claim}{condition}; {advice}" if claim else diagnostic.message + condition
    return replace(diagnostic, message=message, severity="warning")


def _seeding_evidence(seeding, call) -> list:
    """The seeding call itself, when a helper makes it away from the reported call."""
    if seeding.call is call:
        return []
    return [(seeding.frame.module.path, seeding.call.span, f"`{seeding.spelled}` seeds here")]


LAUNCH_SPELLINGS = (
    "init_process_group", "distributed", "ddp", "dist_init", "spawn", "trainer", "fabric", "lightningcli", "instantiate",
    "accelerator", "partialstate",
)
"""Spellings of calls that start several ranks, or of the helpers that do
(``utils.init_distributed_mode``, ``setup_ddp``, ``Trainer``, a configuration
``instantiate`` that may build one)."""


def _multi_process_trainers(project: Project) -> list:
    lightning = project.lightning
    return project.memo("multi-process-trainers", lambda: [t for t in lightning.trainers if lightning.several_processes(t)])


def _starts_process_groups(project: Project) -> bool:
    return bool(_process_group_modules(project))


def _process_group_modules(project: Project) -> Set[str]:
    """Paths of the modules that spell a call of ``init_process_group`` or build accelerate's
    ``Accelerator`` (``knowledge.process_groups``: a plain DDP program): among the project's files when the run knows them (whatever the analysis has
    loaded so far), else among the analysed modules."""

    def spelled() -> Set[str]:
        files = project.flow.files
        modules = list(project.index.modules.values())
        if files is not None:
            modules = [m for m in (project.index.load_file(p) for p in files.mentioning(PROCESS_GROUP_START_SPELLINGS)) if m]
        return {
            os.path.abspath(module.path) for module in modules
            if any(_last(call) in PROCESS_GROUP_START_SPELLINGS for _, call in module.all_calls())
        }

    return project.memo("process-group-modules", spelled)


def _may_start_process_group(project: Project, frame: Frame) -> bool:
    """A screen on imports before the program is walked: the function, or one of the
    functions that call it, is in a module that is or imports (directly or not) a module
    calling ``init_process_group``."""
    sites, _ = project.flow.callsites.of(frame)
    modules = [frame.module, *(site.frame.module for site in sites[:MAX_CALLERS])]
    starting = _process_group_modules(project)
    return any(_imports_any(project, module, starting) for module in modules)


def _imports_any(project: Project, module, targets) -> bool:
    """``module`` is or imports, directly or not, one of the ``targets`` (paths)."""
    index = project.index
    key = f"imports-process-group:{index.absolute(module.path)}:{len(index.modules)}"
    return project.memo(key, lambda: bool(index.import_closure([module]) & targets))


def _may_run_several_ranks(project: Project) -> bool:
    """A spelling screen before anything is resolved."""
    return any(
        any(spelling in _last(call).lower() for spelling in LAUNCH_SPELLINGS)
        for module in project.modules for _, call in module.all_calls()
    )


def _program_frames(project: Project, frame: Frame) -> List[Frame]:
    """The function, the functions that call it (one level), and everything they reach."""
    return project.memo(f"program:{frame.key}", lambda: _find_program(project, frame))


def _find_program(project: Project, frame: Frame) -> List[Frame]:
    roots = [frame]
    sites, _ = project.flow.callsites.of(frame)
    roots.extend(project.flow.function_frame(site.frame.module, site.frame.function.function) for site in sites[:MAX_CALLERS])
    flow = project.flow
    return reachable(flow, roots, lambda frame, call: flow.resolved_without_loading(call), limit=MAX_PROGRAM)


def _program(project: Project, frame: Frame) -> Set[tuple]:
    return {(f.module.path, f.function.function.qualname) for f in _program_frames(project, frame)}


def _rank_program(project: Project, frame: Frame, program: Set[tuple]) -> Set[tuple]:
    """What each rank runs: the functions ``mp.spawn`` starts when the program spawns its
    ranks, else the whole program (one process per rank, as under torchrun)."""
    spawned = _spawned_frames(project, frame)
    if not spawned:
        return program
    ranks = {(f.module.path, f.function.function.qualname) for f in spawned}
    # Each spawned rank imports the modules of what it runs, which runs their top-level code.
    return ranks | {(path, MODULE_CODE) for path, _ in ranks}


def _spawned_frames(project: Project, frame: Frame) -> List[Frame]:
    """What the ranks ``mp.spawn`` starts from this program run."""
    return project.memo(f"spawned:{frame.key}", lambda: _find_spawned(project, frame))


def _find_spawned(project: Project, frame: Frame) -> List[Frame]:
    flow = project.flow
    targets = []
    for found in _program_frames(project, frame):
        for call in found.function.function.calls:
            if call.args and _may_call(call, SPAWNERS) and flow.callee_names(call, found) & SPAWNERS:
                targets.extend(o for o in flow.eval(call.args[0], found) if isinstance(o, FunctionObj))
    if not targets:
        return []
    return reachable(flow, [flow.frame(t.function, t.receiver) for t in targets], limit=MAX_PROGRAM)


def _under_main_guard(call: Call) -> bool:
    """The call runs only in ``if __name__ == "__main__":``."""
    return any(
        isinstance(test, Compare) and expected and test.op == "==" and "__name__" in (_dotted(test.left), _dotted(test.right))
        for test, expected in call.guards
    )


def _dotted(value) -> str:
    return value.dotted if isinstance(value, Name) else ""


def _reseeded_per_rank_later(project: Project, frame: Frame, call: Call) -> bool:
    """After ``call``, the same function (or, one level up, the function that called it)
    reseeds torch with the rank in the seed, so the loaders built after it draw per rank."""
    places = [(frame, call)]
    sites, _ = project.flow.callsites.of(frame)
    places += [(site.frame, site.call) for site in sites[:8]]
    for where_frame, after in places:
        for later in where_frame.function.function.calls:
            if later is after or (later.span.line, later.span.col) <= (after.span.line, after.span.col):
                continue
            if not _spelled_like_seeding(_last(later)):
                continue
            for seeding in project.seeds.seedings(later, where_frame):
                if TORCH in seeding.rngs and seeding.seed is not None and project.seeds.origin(seeding.seed, seeding.frame).rank_dependent:
                    return True
    return False


def _reseeded_before_the_loops(project: Project, frame: Frame, call: Call) -> bool:
    """After ``call``, the same function always runs another seeding of torch before any loop
    reads a loader: itself, or in a project function it calls whose loops all come after that
    seeding (``set_seed(args)`` in ``main``, then in ``train()`` before its epoch loop). Each
    loader draws its workers' base seed when a loop starts reading it, so that later seeding
    is the one the workers follow, and the one reported."""
    here = frame.function.function
    first_loop = min((loop.span.line for loop in here.loops if loop.span.line > call.span.line), default=None)
    for later in here.calls:
        if later.guards or (later.span.line, later.span.col) <= (call.span.line, call.span.col):
            continue
        if first_loop is not None and later.span.line >= first_loop:
            continue
        if _seeds_torch(project, later, frame):
            return True
        for called, _ in project.flow.callee_frames(later, frame):
            function = called.function.function
            loops = [loop.span.line for loop in function.loops]
            if loops and any(
                not inner.guards and inner.span.line < min(loops) and _seeds_torch(project, inner, called)
                for inner in function.calls
            ):
                return True
    return False


def _seeds_torch(project: Project, call: Call, frame: Frame) -> bool:
    if not _spelled_like_seeding(_last(call)):
        return False
    return any(TORCH in seeding.rngs and seeding.seed is not None for seeding in project.seeds.seedings(call, frame))


def _generator_seeding(project: Project, generator) -> Optional[Tuple[Call, Frame]]:
    """The ``manual_seed(seed)`` call on a ``torch.Generator()`` in the function that builds
    it: chained (``torch.Generator().manual_seed(s)``) or on a name that holds it
    (``g.manual_seed(s)``, ``self.g.manual_seed(s)``)."""
    frame = generator.site.frame
    for call in frame.function.function.calls:
        if spelled(call.func) != "manual_seed" or not call.args:
            continue
        if isinstance(call.func, Attr) and call.func.value is generator.site.call:
            return call, frame
        if isinstance(call.func, Name) and "." in call.func.dotted:
            held = project.flow.eval(method_receiver(call.func), frame)
            if any(isinstance(o, ExternalInstance) and o.site.call is generator.site.call for o in held):
                return call, frame
    return None


def _ranks_running(project: Project, loader, frame: Frame, seed_frame: Frame) -> Optional[str]:
    """How the message names the ranks that run the loader: those a multi-process Trainer
    starts (it runs the loader), or every rank of a DDP program that builds the loader and
    seeds the generator in the code each rank runs; None when no several ranks run it."""
    lightning = project.lightning
    for obj, runners in lightning.reached_objects():
        if obj.loader.call is not loader.call:
            continue
        for runner in runners:
            if lightning.several_processes(runner):
                return f"every rank the {_callee(runner.call)} at {where(runner.module, runner.call.span)} starts"
    if not _starts_process_groups(project) or not _may_start_process_group(project, seed_frame):
        return None
    ranks = _rank_program(project, seed_frame, _program(project, seed_frame))
    if (seed_frame.module.path, seed_frame.function.function.qualname) not in ranks:
        return None
    if (frame.module.path, frame.function.function.qualname) not in ranks and (loader.module.path, loader.function.qualname) not in ranks:
        return None
    return "every DDP rank"


LIBRARY_LOADERS_WITH_THEIR_OWN_WORKER_INIT = frozenset({
    "monai.data.DataLoader", "monai.data.dataloader.DataLoader",
    "monai.data.ThreadDataLoader", "monai.data.thread_buffer.ThreadDataLoader",
})
"""Loader classes that fill in ``worker_init_fn`` when given none: MONAI 1.6.1
``monai/data/dataloader.py`` (``if worker_init_fn is None: worker_init_fn = worker_init_fn``,
its ``monai.data.utils`` function; ``ThreadDataLoader`` is a subclass)."""


def _keeps_its_own_worker_init(project: Project, obj) -> bool:
    """The loader has a ``worker_init_fn`` before Lightning looks at it: one it is given,
    or the one its library class sets itself."""
    values = project.loaders.worker_init(obj.loader, obj.frame).values
    given = bool(values) and all(not (isinstance(v, Constant) and v.value is None) and v is not UNKNOWN for v in values)
    if given:
        return True
    none_given = all(isinstance(v, Constant) and v.value is None for v in values)
    return none_given and obj.loader.library in LIBRARY_LOADERS_WITH_THEIR_OWN_WORKER_INIT


def _draws_in_workers(project: Project, obj) -> bool:
    return _workers_draw(project, obj.loader, obj.frame)


def _workers_started_by_an_option(project: Project, loaders) -> tuple:
    """When no loader's workers start with the program's defaults (``num_workers=
    args.dataloader_num_workers``, default 0): what starts them, for the message, a warning
    when only an undocumented option does, and the documented commands as evidence."""
    started = [
        workers for loader in loaders for frame in project.loaders.contexts(loader)
        for workers in [project.loaders.workers(loader, frame)] if _workers_draw(project, loader, frame)
    ]
    if not started or not all(workers.option or workers.documented for workers in started):
        return "", None, []
    first = started[0]
    return workers_condition(first), workers_severity(first), workers_evidence(project, first)


def _draws_in_workers_of(project: Project, loader) -> bool:
    return any(_workers_draw(project, loader, frame) for frame in project.loaders.contexts(loader))


def _workers_draw(project: Project, loader, frame) -> bool:
    return bool(_drawing_datasets(project, loader, frame)[0])


def _drawing_datasets(project: Project, loader, frame, own_generator: bool = False) -> Tuple[list, list]:
    """The datasets the loader may load whose workers' draws follow torch's per-worker seed,
    and all the datasets it may load: global-RNG draws of a stream that neither the
    worker_init_fn reseeds per rank nor worker code reseeds itself
    (``torch.manual_seed(np.random.randint(...))`` before its torch draws), or a library's RNG
    that the loader itself reseeds from that seed (MONAI's DataLoader). None draw when the
    loader has no workers, or (unless ``own_generator`` asks about it) its own generator."""
    loaders = project.loaders
    if not loaders.workers(loader, frame).may_be_positive:
        return [], []
    generator = loaders.argument(loader, "generator", frame)
    if not own_generator and any(not (isinstance(v, Constant) and v.value is None) for v in generator.values):
        return [], []  # the workers' base seed comes from the loader's own generator
    init = loaders.worker_init(loader, frame)
    library_reseeds = not init.unknown and all(isinstance(v, Constant) and v.value is None for v in init.values)
    per_rank = _streams_seeded_per_rank(project, loader, frame, init)
    drawing, every = [], loaders.datasets(loader, frame)
    for instance in every:
        run = project.workers.of(instance)
        reseeded = per_rank | _streams_reseeded_in_workers(project, run)
        # An RNG object follows the seed it is built with, not torch's per-worker seed: one
        # built from a configured seed (a shuffle every rank must agree on) is meant to be
        # the same on every rank.
        if any(draw.stream not in reseeded and draw.stream != RNG_OBJECT for draw in run.sure_draws):
            drawing.append(instance)
        elif library_reseeds and any(loader.library in draw.entry.seeding_loaders for draw in run.library_draws):
            drawing.append(instance)
    return drawing, every


def _datasets_picked_at_run_time(project: Project, loaders) -> Tuple[str, Optional[str]]:
    """When every loader that draws may also load a dataset whose workers do not
    (``data_dict[args.data]``, where only ``Dataset_M4`` draws): the condition for the
    message, and a warning."""
    drawing_names: List[str] = []
    for loader in loaders:
        for frame in project.loaders.contexts(loader):
            drawing, every = _drawing_datasets(project, loader, frame)
            if not drawing:
                continue
            if len({id(instance) for instance in drawing}) == len({id(instance) for instance in every}):
                return "", None
            drawing_names += [dataset_name(instance) for instance in drawing]
    if not drawing_names:
        return "", None
    names = list(dict.fromkeys(drawing_names))
    spelled = " or ".join(f"`{name}`" for name in names)
    if len(names) > 3:
        more = len(names) - 3
        spelled = ", ".join(f"`{name}`" for name in names[:3]) + (
            " or one more dataset that draws" if more == 1 else f" or one of {more} more datasets that draw"
        )
    return f" (when the loader loads {spelled}; the other datasets it may load draw nothing there)", "warning"


def _streams_seeded_per_rank(project: Project, loader, frame, init) -> Set[str]:
    """Global streams every value of the worker_init_fn reseeds from a seed with the rank in it."""
    if init.unknown:
        return set()
    found: Optional[Set[str]] = None
    for value in init.values:
        if isinstance(value, Constant) and value.value is None:
            return set()
        if not isinstance(value, FunctionObj):
            return set()
        streams = set()
        for seeding, origin in worker_seedings(project, loader, frame, value):
            if origin.rank_dependent:
                streams |= set(seeding.rngs)
        found = streams if found is None else found & streams
    return found or set()


def _streams_reseeded_in_workers(project: Project, run) -> Set[str]:
    """Global streams worker code reseeds itself, wherever the seed comes from."""
    flow = project.flow
    found: Set[str] = set()
    for reached in run.functions:
        for call in reached.frame.function.function.calls:
            names = flow.callee_names(call, reached.frame)
            for stream, seeders in ((NUMPY, NUMPY_GLOBAL_SEEDERS), (PYTHON_RANDOM, STDLIB_GLOBAL_SEEDERS), (TORCH, TORCH_GLOBAL_SEEDERS)):
                if names & seeders:
                    found.add(stream)
    return found


def _decided_by_the_caller(project: Project, frame: Frame, seed) -> bool:
    """The frame's function is a seeding helper (named so) whose callers pass the parameter
    the seed reads (``seed`` in ``def set_seed(seed)``, ``args.seed`` in ``def set_seed(args)``):
    its calls are judged instead, once each. A training function that seeds from its own
    parameter (``def main_worker(index, opt)``, ``def train(..., seed)`` called with
    ``**config``) is judged where it seeds, with the seed's origin followed to its callers."""
    return (
        _depends_on_parameter(frame, seed) and _spelled_like_seeding(frame.function.function.name)
        and _callers_pass_it(project, frame, seed)
    )


def _depends_on_parameter(frame: Frame, value) -> bool:
    """Whether ``value`` uses a parameter of the frame's function, or an attribute of one
    (never a method's ``self``)."""
    from seedlint.facts.model import BinOp

    function = frame.function.function
    if isinstance(value, Name):
        receiver = function.params[0] if function.class_name is not None and function.params else None
        return value.qualified is None and value.scope == function.qualname and value.root in function.params and value.root != receiver
    if isinstance(value, BinOp):
        return _depends_on_parameter(frame, value.left) or _depends_on_parameter(frame, value.right)
    if isinstance(value, Call):
        return any(_depends_on_parameter(frame, a) for a in value.args)
    return False


def _callers_pass_it(project: Project, frame: Frame, value) -> bool:
    """Some call of the frame's function passes the parameter the seed reads: a helper its
    callers hand the seed (``set_seed(args)``), not an entry point whose parameter a framework
    fills (``@hydra.main`` ``def main(cfg)`` called as ``main()``)."""
    if not isinstance(value, Name):
        return True
    function = frame.function.function
    position = function.params.index(value.root) if value.root in function.params else -1
    sites, _ = project.flow.callsites.of(frame)
    return any(site.call.argument(value.root, position - site.offset) is not None for site in sites)


def _spelled_like_seeding(name: str) -> bool:
    lowered = name.lower()
    return "seed" in lowered or "determinis" in lowered


def _may_call(call: Call, qualified_names: frozenset) -> bool:
    """A spelling screen before the callee is resolved: the call spells one of the
    functions' own names (``mp.spawn``, ``dist.init_process_group``), is an import alias of
    one, or calls something computed."""
    lasts = {name.rsplit(".", 1)[-1] for name in qualified_names}
    func = call.func
    if not isinstance(func, (Name, Attr)):
        return True
    qualified = func.qualified if isinstance(func, Name) else None
    return spelled(func) in lasts or (qualified is not None and qualified.rsplit(".", 1)[-1] in lasts)


def _last(call: Call) -> str:
    """The last component of the called name, as spelled."""
    return call.func.dotted.rsplit(".", 1)[-1] if isinstance(call.func, Name) else ""


def _callee(call: Call) -> str:
    return f"`{call.func.dotted}(...)`" if isinstance(call.func, Name) else "Trainer"
