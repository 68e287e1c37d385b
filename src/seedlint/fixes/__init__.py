"""Fixes: libcst edits keyed by the kind a diagnostic's Fix names."""

from typing import Callable, Dict, List

import libcst as cst

from seedlint import legacy_names
from seedlint.diagnostics import Fix
from seedlint.fixes.layout import wrap_long_calls
from seedlint.line_length import DEFAULT as DEFAULT_LINE_LENGTH
from seedlint.fixes import seed_worker
from seedlint.fixes import hoist_lambda, worker_seed
from seedlint.fixes import seed_everything_workers, set_epoch
from seedlint.fixes import library_worker_init, reseed_rng_object
from seedlint.fixes import shard_iterable
from seedlint.fixes import batch_sampler_args, lightning_renames

FIXERS: Dict[str, Callable[[cst.Module, List[Fix]], cst.Module]] = {
    "add-worker-init-fn": seed_worker.apply,
    "reseed-worker-from-initial-seed": worker_seed.apply_reseed,
    "reduce-worker-seed-below-2-32": worker_seed.apply_reduce,
    "hoist-lambda": hoist_lambda.apply,
    "seed-everything-workers": seed_everything_workers.apply,
    "insert-set-epoch": set_epoch.apply,
    "reseed-rng-object": reseed_rng_object.apply,
    "library-worker-init": library_worker_init.apply,
    "shard-iterable-by-worker": shard_iterable.apply,
    "rename-lightning-flag": lightning_renames.apply,
    "split-plain-batch-sampler": batch_sampler_args.apply_split,
    "drop-batch-size-none": batch_sampler_args.apply_drop,
    "shuffle-only-without-sampler": batch_sampler_args.apply_shuffle,
}


FIX_TITLES: Dict[str, str] = {
    "add-worker-init-fn": "Pass a `worker_init_fn` that seeds NumPy and `random` from each worker's torch seed",
    "reseed-worker-from-initial-seed": "Seed from `torch.initial_seed()`, which differs per worker and per epoch",
    "reduce-worker-seed-below-2-32": "Reduce the seed modulo `2**32`",
    "hoist-lambda": "Move the callable to module level, where spawned workers can import it",
    "seed-everything-workers": "Pass `workers=True` to `seed_everything`",
    "insert-set-epoch": "Call `set_epoch(epoch)` on the sampler at the start of each epoch",
    "reseed-rng-object": "Reseed the RNG object once in each worker",
    "library-worker-init": "Let the library reseed its RNG in each worker",
    "shard-iterable-by-worker": "Give each worker every `num_workers`-th item (unsafe: changes what each worker yields)",
    "rename-lightning-flag": "Rename the keyword to the installed Lightning's spelling",
    "split-plain-batch-sampler": "Pass the `BatchSampler`'s sampler, `batch_size` and `drop_last` to the DataLoader",
    "drop-batch-size-none": "Drop `batch_size=None`",
    "shuffle-only-without-sampler": "Shuffle only when no sampler is given (the sampler decides the order)",
}
"""What each fix does, in one line: the ``help`` of the full text output."""


def apply_fixes(text: str, fixes: List[Fix], line_length: int = DEFAULT_LINE_LENGTH) -> str:
    """Apply one kind of fix (the first in sorted order) to a module's text, then wrap
    the calls it made longer than ``line_length``.

    Positions of every fix refer to ``text``, so kinds are applied one per round; the
    engine re-analyses and loops until nothing changes.
    """
    if not fixes:
        return text
    kind = sorted(f.kind for f in fixes)[0]
    original = text
    module, legacy = legacy_names.parsed(text)
    if legacy is not None:
        text = legacy.text
    fixed = FIXERS[kind](module, [f for f in fixes if f.kind == kind])
    if fixed.code == text:
        return original
    wrapped = wrap_long_calls(text, fixed, line_length).code
    return legacy.restore(wrapped) if legacy is not None else wrapped
