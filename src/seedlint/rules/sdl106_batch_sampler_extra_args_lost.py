"""SDL106 batch-sampler-extra-args-lost."""

from __future__ import annotations

from seedlint.rules.batch_samplers import BatchSamplerVerdictRule


class BatchSamplerExtraArgsLost(BatchSamplerVerdictRule):
    """
    ## What it does
    In a Lightning project, finds a custom batch sampler that Lightning *can* re-create as
    `cls(sampler, batch_size=..., drop_last=...)`, but not faithfully: its first parameter is
    not named `sampler` (so the injected `DistributedSampler` lands in a parameter meant for
    something else), or it is built outside a `*_dataloader` hook with extra constructor
    arguments that the re-created object does not get.

    ## Why is this bad?
    Nothing fails. Under DDP the re-created sampler silently runs with its extra arguments at
    their defaults (a different secondary batch size, no bucketing, another seed), or treats a
    sampler as the list of indices it expected: the distributed run trains on different batches
    than the single-GPU run that was validated.

    ## Example
    ```python
    sampler = BucketBatchSampler(RandomSampler(ds), 32, False, bucket_width=20)

    class DataModule(L.LightningDataModule):
        def train_dataloader(self):
            return DataLoader(ds, batch_sampler=sampler)
    ```

    ## Use instead
    ```python
    class DataModule(L.LightningDataModule):
        def train_dataloader(self):
            sampler = BucketBatchSampler(RandomSampler(ds), 32, False, bucket_width=20)
            return DataLoader(ds, batch_sampler=sampler)
    ```
    Lightning records the arguments of a `BatchSampler` subclass built inside the hook and
    re-creates it with all of them.

    ## Fix safety
    No automatic fix.
    """

    code = "SDL106"
    name = "batch-sampler-extra-args-lost"
    summary = "Lightning re-creates this batch sampler without its own arguments"
