"""SDL102 batch-sampler-without-sampler-arg."""

from __future__ import annotations

from seedlint.rules.batch_samplers import BatchSamplerVerdictRule


class BatchSamplerWithoutSamplerArg(BatchSamplerVerdictRule):
    """
    ## What it does
    In a Lightning project, finds a `torch.utils.data.BatchSampler` subclass, built inside a
    `*_dataloader` hook and passed as `batch_sampler=`, whose `__init__` has no `sampler`
    parameter.

    ## Why is this bad?
    Lightning records the constructor arguments of `BatchSampler` subclasses built inside its
    hooks and, under DDP, re-creates the batch sampler from them with `sampler` replaced by a
    `DistributedSampler`. Without a `sampler` parameter there is nothing to replace and every
    distributed run stops with `TypeError: Trying to inject a modified sampler into the batch
    sampler; however, it seems the class ... does not have an argument called sampler.`

    ## Example
    ```python
    class BucketBatchSampler(BatchSampler):
        def __init__(self, lengths, batch_size, drop_last=False):
            super().__init__(SequentialSampler(lengths), batch_size, drop_last)
    ```

    ## Use instead
    ```python
    class BucketBatchSampler(BatchSampler):
        def __init__(self, sampler, batch_size, drop_last=False, lengths=None):
            super().__init__(sampler, batch_size, drop_last)
    ```
    and draw indices from `self.sampler`, or set `Trainer(use_distributed_sampler=False)`
    and shard by rank yourself.

    ## Fix safety
    No automatic fix.
    """

    code = "SDL102"
    name = "batch-sampler-without-sampler-arg"
    summary = "BatchSampler subclass has no `sampler` parameter for Lightning to replace"
