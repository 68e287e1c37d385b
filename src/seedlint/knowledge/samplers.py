"""What the sampler Lightning injects into a re-created batch sampler offers: a batch
sampler built as ``cls(sampler, ...)`` around it fails on the first attribute it reads that
the injected object does not have.

Source: torch/utils/data/distributed.py, ``DistributedSampler.__init__`` (the attributes it
sets, unchanged from torch 1.2 to 2.x) and its methods; Lightning injects a
``DistributedSampler`` built on the loader's dataset when the loader's own sampler is a
``SequentialSampler`` or ``RandomSampler`` (always so for a loader given ``batch_sampler=``:
``DataLoader`` then makes a ``SequentialSampler``; lightning/fabric/utilities/distributed.py
``_get_distributed_sampler`` / lightning/pytorch/trainer/connectors/data_connector.py).
"""

from __future__ import annotations

from typing import FrozenSet

INJECTED_SAMPLER = "DistributedSampler"

DISTRIBUTED_SAMPLER_ATTRIBUTES: FrozenSet[str] = frozenset({
    "dataset", "num_replicas", "rank", "epoch", "drop_last", "num_samples", "total_size", "shuffle", "seed",
    "set_epoch",
})
"""Attributes and methods a ``DistributedSampler`` has besides the dunder protocol
(``__iter__``, ``__len__``)."""

DISTRIBUTED_SAMPLER_CLASSES = frozenset({
    "torch.utils.data.DistributedSampler", "torch.utils.data.distributed.DistributedSampler",
})

SHUFFLING_DISTRIBUTED_SAMPLERS = {
    "torch.utils.data.distributed.DistributedSampler": 3,
    "torch.utils.data.DistributedSampler": 3,
    "monai.data.DistributedSampler": 4,
    "monai.data.utils.DistributedSampler": 4,
}
"""Distributed samplers whose shuffle order changes only through ``set_epoch``, and the
position of their ``shuffle`` parameter (default True in each). torch's: ``(dataset,
num_replicas, rank, shuffle, seed, drop_last)``. MONAI's ``monai.data.DistributedSampler``
(monai/data/utils.py, ``class DistributedSampler(_TorchDistributedSampler)``, MONAI 0.3 to
1.x) subclasses it as ``(dataset, even_divisible, num_replicas, rank, shuffle, **kwargs)``
and keeps its ``set_epoch``."""
DISTRIBUTED_SAMPLER_PARAMETERS = ("dataset", "num_replicas", "rank", "shuffle", "seed", "drop_last")
"""``DistributedSampler.__init__``'s parameters after ``self`` (torch 1.6 to 2.x; ``seed`` and
``drop_last`` from 1.6)."""


def inherited_attributes(library_class: str) -> FrozenSet[str]:
    """Attributes an object of a project subclass of ``library_class`` gets from the library's
    ``__init__`` (when it runs): a ``DistributedSampler`` subclass has ``drop_last``."""
    return DISTRIBUTED_SAMPLER_ATTRIBUTES if library_class in DISTRIBUTED_SAMPLER_CLASSES else frozenset()
