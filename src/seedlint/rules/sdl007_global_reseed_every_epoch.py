"""SDL007 global-reseed-every-epoch."""

from __future__ import annotations

from typing import FrozenSet, Iterable, Optional, Set

from seedlint.analysis.loops import EpochLoop, LoaderObject, contains
from seedlint.analysis.objects import Constant
from seedlint.analysis.reach import reachable
from seedlint.analysis.seeds import Context, Seeding
from seedlint.diagnostics import Diagnostic
from seedlint.rng import NUMPY, PYTHON_RANDOM, STREAM_NAMES, TORCH, global_stream
from seedlint.rules.base import Project, Rule, where


class GlobalReseedEveryEpoch(Rule):
    """
    ## What it does
    Finds a call that reseeds a process-wide random generator with a value that is the same
    in every epoch (`torch.manual_seed(0)`, `np.random.seed(args.seed)`, `random.seed(SEED)`,
    Lightning's `seed_everything(42)`, or a project helper such as `set_seed(args.seed)`)
    inside the epoch loop of a `DataLoader` that shuffles or has worker processes.

    The epoch loop is the loop around the place the loader is iterated: a `for` over the
    loader (also through `enumerate`, `tqdm`, `zip`), an `iter(loader)`, or a call of a
    function that iterates it, such as `train_one_epoch(model, loader)`. A reseed of NumPy
    or `random` is reported only when something in the loop draws from that RNG: the
    training code itself, or, on torch < 1.9, the loader's workers (NumPy). A loop that runs
    a whole training per pass (cross-validation folds, repeated runs, a hyperparameter
    search: its body holds the loader's own epoch loop, or builds the loader and calls what
    runs that loop, or calls what does both) is not that loader's epoch loop, even when it
    reads the loader once more after the epochs.

    ## Why is this bad?
    Each epoch the loader draws its shuffle order (`RandomSampler`) and its workers' base
    seed from torch's global generator. Reseeding that generator with the same value at the
    top of every epoch makes every epoch replay the same order and give every worker the
    same seeds, so each sample gets the same "random" augmentation in every epoch. Reseeding
    NumPy or `random` the same way replays every draw the training loop makes from them
    (mixup coefficients, random resampling). The model sees one epoch's worth of
    randomness, repeated.

    ## Example
    ```python
    for epoch in range(args.epochs):
        set_seed(args.seed)
        for images, labels in train_loader:
            ...
    ```

    ## Use instead
    ```python
    set_seed(args.seed)
    for epoch in range(args.epochs):
        for images, labels in train_loader:
            ...
    ```
    Seed once, before the loop. If each epoch must be reproducible on its own (resuming
    mid-run), seed from the epoch: `set_seed(args.seed + epoch)`.

    ## Fix safety
    No fix: where the seeding belongs (before the loop, or mixed with the epoch) is a
    decision about the experiment, not a mechanical edit.
    """

    code = "SDL007"
    name = "global-reseed-every-epoch"
    summary = "global RNG reseeded with the same value in every epoch"
    fix_safety = None

    def check(self, project: Project) -> Iterable[Diagnostic]:
        seeds = project.seeds
        reported: Set[int] = set()
        for epoch_loop in project.loops.epoch_loops:
            randomised = [
                obj for obj in epoch_loop.loaders
                if self._randomised(project, obj) and not _runs_whole_trainings(project, epoch_loop, obj)
            ]
            if not randomised:
                continue
            context = Context(varying=frozenset((epoch_loop.frame.function.key, n) for n in epoch_loop.varying))
            parent_draws: Optional[FrozenSet[str]] = None
            for call in epoch_loop.calls():
                if id(call) in reported or not contains(epoch_loop.loop.span, call.span):
                    continue
                for seeding in seeds.seedings(call, epoch_loop.frame):
                    if seeding.seed is None or not seeds.origin(seeding.seed, seeding.frame, context).fixed:
                        continue
                    if parent_draws is None:
                        parent_draws = _parent_draws(project, epoch_loop)
                    broken = self._broken(project, seeding, randomised, parent_draws)
                    if not broken:
                        continue
                    reported.add(id(call))
                    evidence = [(epoch_loop.module.path, epoch_loop.loop.span, "the epoch loop it runs in")]
                    if seeding.frame.module.path != epoch_loop.module.path or seeding.call.span != call.span:
                        evidence.append((seeding.frame.module.path, seeding.call.span, f"`{seeding.spelled}` reseeds here"))
                    evidence += [(obj.loader.module.path, obj.loader.call.span, "a DataLoader the loop reads, which draws from it")
                                 for obj in randomised[:3]]
                    yield self.report(epoch_loop.module, call.span, self._message(project, seeding, broken, randomised[0]),
                                      related=[seeding.frame.module, *(obj.loader.module for obj in randomised)], evidence=evidence)
                    break

    @staticmethod
    def _randomised(project: Project, obj: LoaderObject) -> bool:
        """The loader shuffles or starts workers, and draws from torch's global generator."""
        loaders = project.loaders
        generator = loaders.argument(obj.loader, "generator", obj.frame).values
        if any(not (isinstance(v, Constant) and v.value is None) for v in generator):
            return False
        if loaders.workers(obj.loader, obj.frame).may_be_positive:
            return True
        shuffle = loaders.argument(obj.loader, "shuffle", obj.frame).values
        return any(not (isinstance(v, Constant) and not v.value) for v in shuffle)

    @staticmethod
    def _broken(project: Project, seeding: Seeding, loaders, parent_draws: FrozenSet[str]) -> FrozenSet[str]:
        """The reseeded RNGs whose replay matters: torch's (shuffle order and worker seeds)
        always; NumPy's and random's when the loop draws from them."""
        broken = set()
        if TORCH in seeding.rngs:
            broken.add(TORCH)
        for stream in seeding.rngs & {NUMPY, PYTHON_RANDOM}:
            if stream in parent_draws:
                broken.add(stream)
            elif stream == NUMPY:
                for obj in loaders:
                    if not project.settings_for(obj.loader.module.path).torch_version.may_be_below("1.9"):
                        continue
                    if not project.loaders.workers(obj.loader, obj.frame).may_be_positive:
                        continue
                    for instance in project.loaders.datasets(obj.loader, obj.frame):
                        if any(d.stream == NUMPY for d in project.workers.of(instance).sure_draws):
                            broken.add(NUMPY)
        return frozenset(broken)

    @staticmethod
    def _message(project: Project, seeding: Seeding, broken: FrozenSet[str], obj: LoaderObject) -> str:
        what = f"`{seeding.spelled}(...)`"
        effects = []
        if TORCH in broken:
            effects.append(_torch_replay(project, obj))
        others = sorted(broken - {TORCH})
        if others:
            effects.append("every epoch replays the same " + " and ".join(STREAM_NAMES[s] for s in others) + " draws")
        return (
            f"{what} reseeds the global RNG with the same value inside the epoch loop of the DataLoader "
            f"({where(obj.loader.module, obj.loader.call.span)}): {'; '.join(effects)}; seed once before the loop"
        )


def _torch_replay(project: Project, obj: LoaderObject) -> str:
    """What replaying torch's generator every epoch repeats for this loader: its shuffle
    order, its workers' seeds, and, where its dataset draws, the samples' augmentations."""
    loaders = project.loaders
    replayed = []
    shuffle = loaders.argument(obj.loader, "shuffle", obj.frame).values
    if any(not (isinstance(v, Constant) and not v.value) for v in shuffle):
        replayed.append("the same shuffle order")
    if loaders.workers(obj.loader, obj.frame).may_be_positive:
        replayed.append("the same worker seeds")
    text = "every epoch replays " + " and ".join(replayed or ["the same draws from torch's generator"])
    if any(project.workers.of(instance).sure_draws for instance in loaders.datasets(obj.loader, obj.frame)):
        text += ", so every sample gets the same random augmentation"
    return text


def _runs_whole_trainings(project: Project, outer: EpochLoop, obj: LoaderObject) -> bool:
    """The loop runs a whole training per pass (folds, seeds, experiments): its body holds
    the loader's own epoch loop, or what it calls runs that epoch loop over a loader the
    body or the callee builds. Reseeding there makes each run reproducible; no epoch is replayed (a last
    evaluation pass over the training loader after the epochs does not make it one)."""
    if any(
        other is not outer and other.frame is outer.frame and contains(outer.loop.span, other.loop.span)
        and any(o.loader is obj.loader for o in other.loaders)
        for other in project.loops.epoch_loops
    ):
        return True
    vias = [iteration.via for iteration in outer.iterations if iteration.loader is obj and iteration.via is not None]
    if not vias:
        return False
    inner_loops = [
        other for other in project.loops.epoch_loops
        if other is not outer and any(o.loader is obj.loader for o in other.loaders)
    ]
    if not inner_loops:
        return False
    reached = {frame.function.key for frame in reachable(project.flow, vias, limit=80)}
    builds = _built_in_the_body(outer, obj) or (obj.loader.module.path, obj.loader.function.qualname) in reached
    return builds and any(loop.frame.function.key in reached for loop in inner_loops)


def _built_in_the_body(outer: EpochLoop, obj: LoaderObject) -> bool:
    """The loader is built by the loop's body: in it, or by a call it makes (a
    ``create_dataloader(...)`` helper), as the frame the loader was built in was reached."""
    if obj.frame.key == outer.frame.key:
        return contains(outer.loop.span, obj.loader.call.span)
    frame = obj.frame
    while frame.site is not None:
        if frame.site.frame.key == outer.frame.key:
            return contains(outer.loop.span, frame.site.call.span)
        frame = frame.site.frame
    return False


def _parent_draws(project: Project, epoch_loop: EpochLoop) -> FrozenSet[str]:
    """The global RNGs the epoch loop's own code (the training step) draws from."""
    flow = project.flow
    frame = epoch_loop.frame
    found: Set[str] = set()
    roots = []
    for call in epoch_loop.calls():
        found.update(filter(None, (global_stream(n) for n in flow.callee_names(call, frame))))
        roots.extend(callee for callee, _ in flow.callee_frames(call, frame))
    for helper in reachable(flow, roots, limit=80):
        for call in helper.function.function.calls:
            found.update(filter(None, (global_stream(n) for n in flow.callee_names(call, helper))))
    return frozenset(found)
