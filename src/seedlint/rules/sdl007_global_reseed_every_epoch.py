"""SDL007 global-reseed-every-epoch."""

from __future__ import annotations

from typing import FrozenSet, Iterable, Set

from seedlint.diagnostics import Diagnostic
from seedlint.epoch_loops import EpochLoop, contains, loop_index
from seedlint.facts.model import Call, Const
from seedlint.loaders import LoaderCall, workers_may_be_positive
from seedlint.rules.base import Project, Rule, where
from seedlint.seeding_calls import TORCH, Seeding, SeedingCalls

LOOP_TRIGGERS = (b"_loader", b"dataloader")
"""A file with an epoch loop builds its loader (``DataLoader``) or names the one it iterates
(``train_loader``, ``dataloader``)."""


class GlobalReseedEveryEpoch(Rule):
    """
    ## What it does
    Finds a call that reseeds a process-wide random generator with a value that is the same
    in every epoch (`torch.manual_seed(0)`, `np.random.seed(args.seed)`, `random.seed(SEED)`,
    Lightning's `seed_everything(42)`, or a project helper such as `set_seed(args.seed)`)
    inside the epoch loop of a `DataLoader` that shuffles or has worker processes.

    The epoch loop is the loop around the place the loader is iterated: a `for` over the
    loader (also through `enumerate`, `tqdm`, `zip`), an `iter(loader)`, or a call of a
    function that iterates it, such as `train_one_epoch(model, loader)`.

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

    def triggers(self, settings) -> tuple:
        return super().triggers(settings) + LOOP_TRIGGERS

    def check(self, project: Project) -> Iterable[Diagnostic]:
        loops = loop_index(project)
        seeding = SeedingCalls(loops)
        reported: Set[int] = set()
        for epoch_loop in loops.epoch_loops():
            loader = next((candidate for candidate in epoch_loop.loaders if self._randomised(project, candidate)), None)
            if loader is None:
                continue
            varying = self._varying(epoch_loop)
            for call in epoch_loop.calls():
                if id(call) in reported or not contains(epoch_loop.loop.span, call.span):
                    continue
                found = seeding.classify(epoch_loop.module, epoch_loop.function, call)
                if found is None or not self._fixed(seeding, epoch_loop, found, varying):
                    continue
                reported.add(id(call))
                yield self.report(epoch_loop.module, call.span, self._message(found, loader))

    @staticmethod
    def _randomised(project: Project, loader: LoaderCall) -> bool:
        """The loader shuffles or starts workers, and draws from torch's global generator."""
        generator = loader.argument("generator")
        if generator is not None and not (isinstance(generator, Const) and generator.value is None):
            return False
        if workers_may_be_positive(project.dataflow, loader):
            return True
        shuffle = loader.argument("shuffle")
        if shuffle is None:
            return False
        constant = project.dataflow.const(loader.module, shuffle)
        return constant is None or bool(constant.value)

    @staticmethod
    def _varying(epoch_loop: EpochLoop) -> FrozenSet[str]:
        """Names that change from one epoch to the next: the loop variables."""
        names = set()
        for loop in epoch_loop.function.loops:
            if contains(epoch_loop.loop.span, loop.span) and loop.target:
                names.add(loop.target.split(".", 1)[0])
        if not epoch_loop.loop.target and not isinstance(epoch_loop.loop.iterable, Call):
            # A ``while`` loop advances its counters with ``+=``, which facts do not record.
            names.update(a.target for a in epoch_loop.function.assigns if "." not in a.target)
        return frozenset(names)

    @staticmethod
    def _fixed(seeding: SeedingCalls, epoch_loop: EpochLoop, found: Seeding, varying: FrozenSet[str]) -> bool:
        return all(seeding.is_fixed(epoch_loop.module, epoch_loop.function, v, varying) for v in found.values)

    @staticmethod
    def _message(found: Seeding, loader: LoaderCall) -> str:
        what = f"`{found.spelled}(...)`"
        if TORCH in found.rngs:
            effect = "every epoch replays the same shuffle order and the same worker seeds, so every sample gets the same random augmentation"
        else:
            effect = "every epoch replays the same " + "/".join(sorted(found.rngs)) + " draws"
        return (
            f"{what} reseeds the global RNG with the same value inside the epoch loop of the DataLoader "
            f"({where(loader.module, loader.call.span)}): {effect}; seed once before the loop"
        )

