"""SDL101 batch-sampler-not-reinstantiable."""

from __future__ import annotations

from seedlint.rules.batch_samplers import BatchSamplerVerdictRule


class BatchSamplerNotReinstantiable(BatchSamplerVerdictRule):
    """
    ## What it does
    Finds a class passed as `batch_sampler=` to a `DataLoader` that a Lightning Trainer or
    Fabric runs with sampler injection on (a `*_dataloader` hook returns it, or it is passed to
    `fit`/`validate`/`test`/`predict` or `setup_dataloaders`), that Lightning cannot re-create as
    `cls(sampler, batch_size=bs.batch_size, drop_last=bs.drop_last)`: it neither subclasses
    `torch.utils.data.BatchSampler` nor has `batch_size`/`drop_last` attributes, or its
    `__init__` does not accept those arguments, or constructing it reads an attribute of its
    sampler that the injected `DistributedSampler` does not have (`sampler.data_source`, on every
    path through `__init__` and the methods it calls). The message names the exact exception for
    the target Lightning version.

    ## Why is this bad?
    Under DDP (and in `predict`, even on one device) Lightning re-creates every custom batch
    sampler to inject a `DistributedSampler`. A sampler that works on one GPU fails the moment
    training goes distributed: `AttributeError: 'TwoStreamBatchSampler' object has no attribute
    'batch_size'` (Lightning <= 2.0), `TypeError: __init__() got an unexpected keyword argument
    'batch_size'` once the attribute is added, or, on Lightning 2.1+, `TypeError: Lightning can't
    inject a (distributed) sampler into your batch sampler, because it doesn't subclass
    PyTorch's BatchSampler`. You find out after renting the GPUs.

    ## Example
    ```python
    class TwoStreamBatchSampler(Sampler):
        def __init__(self, primary_indices, secondary_indices, batch_size, secondary_batch_size):
            ...

    class DataModule(L.LightningDataModule):
        def train_dataloader(self):
            sampler = TwoStreamBatchSampler(labeled, unlabeled, 32, 8)
            return DataLoader(self.train_set, batch_sampler=sampler, num_workers=4)
    ```

    ## Use instead
    ```python
    class TwoStreamBatchSampler(BatchSampler):
        def __init__(self, sampler, batch_size, drop_last, secondary_indices=(), secondary_batch_size=0):
            super().__init__(sampler, batch_size, drop_last)
            ...

        def __iter__(self):
            primary = list(self.sampler)   # the (distributed) sampler Lightning injects
            ...
    ```
    Build it inside the `*_dataloader` hook so Lightning re-creates it from its own arguments,
    or set `Trainer(use_distributed_sampler=False)` and shard the indices by rank yourself.

    ## Fix safety
    No automatic fix: the sampler's logic has to be rewritten around `self.sampler`.
    """

    code = "SDL101"
    name = "batch-sampler-not-reinstantiable"
    summary = "Lightning cannot re-create this batch sampler under DDP"
