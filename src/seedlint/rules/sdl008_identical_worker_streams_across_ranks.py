"""SDL008 identical-worker-streams-across-ranks."""

from __future__ import annotations

from typing import Iterable, Iterator, List, Optional, Set, Tuple

from seedlint.diagnostics import Diagnostic, Fix
from seedlint.epoch_loops import loop_index
from seedlint.facts.model import Call, Const, Function, ModuleFacts, Name, Seq, Value
from seedlint.loaders import workers_may_be_positive
from seedlint.rules.base import Project, Rule, where
from seedlint.seeding_calls import (
    DIRECT,
    HELPER,
    LIGHTNING,
    TORCH,
    Seeding,
    SeedingCalls,
    depends_on_parameter,
)

FIX_KIND = "seed-everything-workers"
LIGHTNING_LAUNCHERS = frozenset(
    f"{package}.{name}"
    for package, name in (
        ("lightning", "Trainer"), ("lightning.pytorch", "Trainer"), ("lightning.pytorch.trainer", "Trainer"),
        ("lightning.pytorch.trainer.trainer", "Trainer"), ("pytorch_lightning", "Trainer"),
        ("pytorch_lightning.trainer", "Trainer"), ("pytorch_lightning.trainer.trainer", "Trainer"),
        ("lightning", "Fabric"), ("lightning.fabric", "Fabric"), ("lightning.fabric.fabric", "Fabric"),
        ("lightning_fabric", "Fabric"), ("lightning_fabric.fabric", "Fabric"),
    )
)
INIT_PROCESS_GROUP = frozenset({"torch.distributed.init_process_group", "torch.distributed.distributed_c10d.init_process_group"})
MULTI_PROCESS_STRATEGIES = ("ddp", "fsdp", "deepspeed")
STRATEGY_CLASSES = ("DDPStrategy", "FSDPStrategy", "DeepSpeedStrategy", "DDPSpawnStrategy")
MAX_CALL_DEPTH = 3
DDP_SETUP_SPELLINGS = ("init_process_group", "distributed", "ddp", "dist_init")
"""Spellings that mark a module as a candidate DDP script, before any name is resolved
(``dist.init_process_group``, ``utils.init_distributed_mode``, ``setup_ddp``)."""


class IdenticalWorkerStreamsAcrossRanks(Rule):
    """
    ## What it does
    Finds seeding that gives every distributed process (rank) the same DataLoader worker
    seeds:

    - Lightning's `seed_everything(S)` without `workers=True` in a project whose `Trainer` (or
      `Fabric`) runs several processes (`devices` > 1, `-1` or `"auto"`, `num_nodes` > 1, or a
      `ddp`/`fsdp`/`deepspeed` strategy) and whose loaders have worker processes;
    - plain DDP: `torch.manual_seed(S)` (or a project helper such as `set_seed(args.seed)`)
      with a seed that does not depend on the rank, in a script that calls
      `torch.distributed.init_process_group` and builds loaders with workers.

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
        # A plain DDP script builds its loaders, so it mentions DataLoader (the default trigger).
        return super().triggers(settings) + (b"seed_everything", b"Trainer", b"Fabric")

    def check(self, project: Project) -> Iterable[Diagnostic]:
        seeding = SeedingCalls(loop_index(project))
        launcher: Optional[Tuple[ModuleFacts, Call]] = None
        found_launcher = False
        for module in project.modules:
            lightning_calls = [(f, c) for f, c in module.all_calls() if _last(c) == "seed_everything"]
            ddp_script = any(_last(c) and any(t in _last(c).lower() for t in DDP_SETUP_SPELLINGS) for _, c in module.all_calls())
            if not lightning_calls and not ddp_script:
                continue  # cheap, spelling-only screen: everything below resolves names
            if not self._loaders_have_workers(project):
                return
            if lightning_calls and not found_launcher:
                launcher, found_launcher = self._multi_process_launcher(project), True
            for function, call in lightning_calls if not ddp_script else module.all_calls():
                found = seeding.classify(module, function, call)
                if found is None:
                    continue
                if found.kind == LIGHTNING:
                    if launcher is not None:
                        yield from self._lightning(project, seeding, found, launcher)
                elif self._plain_ddp(project, seeding, module, function, found):
                    yield self.report(module, call.span, (
                        f"`{found.spelled}(...)` gives torch's global RNG the same seed on every DDP rank, so "
                        "worker k of every rank gets the same seed and draws the same augmentations; "
                        "add the rank to the seed (e.g. `seed + rank`)"
                    ))

    @staticmethod
    def _loaders_have_workers(project: Project) -> bool:
        return any(workers_may_be_positive(project.dataflow, loader) for loader in project.loader_calls())

    def _plain_ddp(self, project: Project, seeding: SeedingCalls, module: ModuleFacts, function: Function, found: Seeding) -> bool:
        if TORCH not in found.rngs or found.kind not in (DIRECT, HELPER):
            return False
        if found.kind == DIRECT and any(depends_on_parameter(function, v) for v in found.values):
            return False  # inside a seeding helper: judged where the helper is called
        if found.kind == HELPER and not found.helper_parametrised:
            return False  # the seeding call inside the helper is reported itself
        return self._rank_independent(seeding, found) and self._calls_init_process_group(project, module)

    # ------------------------------------------------------------------ Lightning
    def _lightning(self, project: Project, seeding: SeedingCalls, found: Seeding, launcher: Tuple[ModuleFacts, Call]) -> Iterator[Diagnostic]:
        call = found.call
        workers = call.argument("workers", 1)
        if workers is not None:
            constant = project.dataflow.const(found.module, workers)
            if constant is None or constant.value:
                return
        if not self._rank_independent(seeding, found):
            return
        module, trainer = launcher
        message = (
            f"`{found.spelled}(...)` without `workers=True` while the {_callee(trainer)} at "
            f"{where(module, trainer.span)} runs several processes: every rank's DataLoader workers get "
            "the same seeds and draw identical augmentation streams; pass `workers=True`"
        )
        fix = Fix(FIX_KIND, found.module.path, call.span) if workers is None and not call.star_kwargs else None
        yield self.report(found.module, call.span, message, fix)

    def _multi_process_launcher(self, project: Project) -> Optional[Tuple[ModuleFacts, Call]]:
        flow = project.dataflow
        for module in project.modules:
            for _, call in module.all_calls():
                if _last(call) not in ("Trainer", "Fabric"):
                    continue
                if any(n in LIGHTNING_LAUNCHERS for n in flow.callee_names(module, call)) and self._multi_process(project, module, call):
                    return module, call
        return None

    def _multi_process(self, project: Project, module: ModuleFacts, call: Call) -> bool:
        flow = project.dataflow
        for keyword in ("devices", "gpus"):
            value = self._argument(project, module, call, keyword)
            if value is not None and _many_devices(value):
                return True
        nodes = self._argument(project, module, call, "num_nodes")
        if isinstance(nodes, Const) and isinstance(nodes.value, int) and nodes.value > 1:
            return True
        strategy = call.kwarg("strategy")
        if strategy is None:
            return False
        constant = flow.const(module, strategy)
        if constant is not None and isinstance(constant.value, str):
            return constant.value.lower().startswith(MULTI_PROCESS_STRATEGIES)
        if isinstance(strategy, Call):
            return any(n.rsplit(".", 1)[-1] in STRATEGY_CLASSES for n in flow.callee_names(module, strategy))
        return False

    @staticmethod
    def _argument(project: Project, module: ModuleFacts, call: Call, keyword: str) -> Optional[Value]:
        """A Trainer argument's constant value: a literal, a module constant, or the default of
        the argparse option it reads (``devices=args.devices``)."""
        value = call.kwarg(keyword)
        if value is None:
            return None
        constant = project.dataflow.const(module, value)
        if constant is not None:
            return constant
        if isinstance(value, Seq):
            return value
        if isinstance(value, Name) and value.rest and "." not in value.rest:
            return argparse_default(module, value.rest)
        return None

    # ------------------------------------------------------------------ plain DDP
    def _calls_init_process_group(self, project: Project, module: ModuleFacts) -> bool:
        loops = loop_index(project)
        pending: List[Tuple[ModuleFacts, Function, int]] = [(module, f, 0) for f in module.functions.values()]
        seen: Set[Tuple[str, str]] = set()
        while pending:
            current, function, depth = pending.pop()
            for call in function.calls:
                if any(n in INIT_PROCESS_GROUP for n in project.dataflow.callee_names(current, call)):
                    return True
                if depth < MAX_CALL_DEPTH and _may_set_up_processes(call):
                    for callee, _ in loops.callees(current, function, call):
                        if callee.key not in seen:
                            seen.add(callee.key)
                            pending.append((callee.module, callee.function, depth + 1))
        return False

    @staticmethod
    def _rank_independent(seeding: SeedingCalls, found: Seeding) -> bool:
        if not found.helper_rank_independent:
            return False
        return all(seeding.is_fixed(found.module, found.function, v, rank_aware=True) for v in found.values)


def _many_devices(value: Value) -> bool:
    if isinstance(value, Seq):
        return len(value.items) > 1
    if not isinstance(value, Const):
        return False
    if isinstance(value.value, bool):
        return False
    if isinstance(value.value, int):
        return value.value > 1 or value.value == -1
    if isinstance(value.value, str):
        text = value.value.strip()
        if text in ("auto", "-1"):
            return True
        if "," in text:
            return len([p for p in text.split(",") if p.strip()]) > 1
        return text.isdigit() and int(text) > 1
    return False


def argparse_default(module: ModuleFacts, option: str) -> Optional[Const]:
    """The constant default of ``--option`` declared with ``add_argument`` in this module."""
    spellings = {f"--{option}", f"--{option.replace('_', '-')}"}
    for _, call in module.all_calls():
        func = call.func
        if not (isinstance(func, Name) and func.dotted.endswith(".add_argument")):
            continue
        flags = {a.value for a in call.args if isinstance(a, Const) and isinstance(a.value, str)}
        dest = call.kwarg("dest")
        if spellings & flags or (isinstance(dest, Const) and dest.value == option):
            default = call.kwarg("default")
            return default if isinstance(default, Const) else None
    return None


def _last(call: Call) -> str:
    """The last component of the called name, as spelled."""
    return call.func.dotted.rsplit(".", 1)[-1] if isinstance(call.func, Name) else ""


def _callee(call: Call) -> str:
    return f"`{call.func.dotted}(...)`" if isinstance(call.func, Name) else "Trainer"


SETUP_HELPER_SPELLINGS = ("dist", "ddp", "init", "setup", "group", "main", "spawn", "launch", "worker", "run")


def _may_set_up_processes(call: Call) -> bool:
    """A spelling screen before following a call into project code: the helper that calls
    init_process_group is named for it (``setup``, ``init_distributed_mode``, ``main``)."""
    if not isinstance(call.func, Name):
        return False
    last = call.func.dotted.rsplit(".", 1)[-1].lower()
    return any(spelling in last for spelling in SETUP_HELPER_SPELLINGS)
