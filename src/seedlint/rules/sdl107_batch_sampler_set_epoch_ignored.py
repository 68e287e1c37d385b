"""SDL107 batch-sampler-set-epoch-ignored."""

from __future__ import annotations

from seedlint.rules.batch_samplers import BatchSamplerVerdictRule


class BatchSamplerSetEpochIgnored(BatchSamplerVerdictRule):
    """
    ## What it does
    In a project that may run Lightning >= 2.0, finds a custom batch sampler passed as
    `batch_sampler=` that defines `set_epoch`, when no project code calls
    `batch_sampler.set_epoch(...)` itself. Reported at the `def set_epoch` statement.

    ## Why is this bad?
    Lightning >= 2.0 calls `set_epoch` on `dataloader.sampler` and on
    `dataloader.batch_sampler.sampler`, never on the batch sampler itself. A batch sampler
    that reseeds its shuffle in `set_epoch` therefore yields the same batches in every epoch,
    silently.

    ## Example
    ```python
    class ShuffledBuckets(BatchSampler):
        def set_epoch(self, epoch):
            self.epoch = epoch

        def __iter__(self):
            g = torch.Generator().manual_seed(self.seed + self.epoch)
            ...
    ```

    ## Use instead
    Keep the epoch-dependent randomness in the sampler passed as `sampler` (Lightning calls its
    `set_epoch`, e.g. `DistributedSampler`), or call
    `self.trainer.train_dataloader.batch_sampler.set_epoch(self.current_epoch)` from
    `on_train_epoch_start`.

    ## Fix safety
    No automatic fix.
    """

    code = "SDL107"
    name = "batch-sampler-set-epoch-ignored"
    summary = "Lightning never calls set_epoch on a batch sampler"
