"""Library base classes whose whole ancestry is known, so that ``isinstance(x, K)`` can be
answered "no" for a project class that derives only from them.

A project class built on ``torchvision.datasets.CocoDetection`` may still be an instance of
``VisionDataset`` (CocoDetection's own base), so an external base answers "no" only when it
is listed here with every class above it.

Sources: torch/utils/data/dataset.py (``Dataset(Generic[T_co])``,
``IterableDataset(Dataset[T_co], Iterable[T_co])``, unchanged from torch 1.2 to 2.x),
torch/utils/data/sampler.py (``Sampler(Generic[T_co])``), torch/nn/modules/module.py
(``Module``: no base besides ``object``).
"""

from __future__ import annotations

from typing import Dict, FrozenSet, Optional

KNOWN_ANCESTRY: Dict[str, FrozenSet[str]] = {
    "builtins.object": frozenset(),
    "torch.utils.data.Dataset": frozenset({"typing.Generic"}),
    "torch.utils.data.IterableDataset": frozenset({"torch.utils.data.Dataset", "typing.Generic", "typing.Iterable"}),
    "torch.utils.data.Sampler": frozenset({"typing.Generic"}),
    "torch.nn.Module": frozenset(),
}
"""Each listed class and every class above it (``object`` left out)."""


def ancestry(qualified: str) -> Optional[FrozenSet[str]]:
    """The classes above ``qualified`` (under any of torch's import paths), or None when
    they are not known."""
    for prefix, short in (("torch.utils.data.dataset.", "torch.utils.data."),
                          ("torch.utils.data.sampler.", "torch.utils.data."),
                          ("torch.nn.modules.module.", "torch.nn.")):
        if qualified.startswith(prefix):
            qualified = short + qualified[len(prefix):]
    return KNOWN_ANCESTRY.get(qualified)
