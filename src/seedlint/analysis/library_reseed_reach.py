"""Whether MONAI's own per-worker reseeding reaches a pipeline a dataset's worker code runs.

``monai.data.DataLoader`` (with no ``worker_init_fn`` of the caller's) and
``monai.data.utils.worker_init_fn`` reseed what ``set_rnd`` finds by walking the worker's
dataset, attribute by attribute, stopping at the first object that has ``set_random_state``
(``knowledge.library_rngs``). Two shapes hide a pipeline from that walk:

- the dataset is a MONAI dataset that is itself ``Randomizable`` (``DecathlonDataset``,
  ``SmartCacheDataset``): the walk reseeds the dataset's own RandomState and stops;
- the pipeline is held by an object of the project's own (``class Transform: def __call__``
  running ``self.transform_ct``) that a MONAI dataset wraps in a ``Compose``
  (``CacheDataset`` always, ``Dataset`` from MONAI 1.4.0): that ``Compose`` reseeds only the
  ``Randomizable`` items it holds, and the project's object is none unless it defines
  ``set_random_state``.

Where the declared MONAI releases decide it, the answer says whether every allowed release
hides the pipeline (``certain``) or only some do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from seedlint.analysis.objects import ExternalInstance, Instance
from seedlint.analysis.workers import LibraryDraw
from seedlint.facts.model import Name
from seedlint.knowledge.library_rngs import MONAI_COMPOSE_WRAPPING_DATASETS, MONAI_RANDOMIZABLE_DATASETS


@dataclass(frozen=True)
class HiddenFromReseeding:
    """Why MONAI's reseeding does not reach the pipeline, for a message."""

    dataset_class: str
    """The MONAI dataset class, as its name (``CacheDataset``)."""
    wrapper: Optional[str]
    """The project class whose object holds the pipeline, when that is the reason."""
    since: Optional[str]
    """The first MONAI release that hides it (None: every release)."""
    certain: bool
    """Every MONAI release the project allows hides it."""
    held: Optional[str] = None
    """How worker code spells the pipeline it runs (``self.transform_ct``)."""
    method: Optional[str] = None
    """The wrapper's method that runs it (``Transform.__call__``)."""


def hidden_from_monai_reseeding(project, draw: LibraryDraw, instance) -> Optional[HiddenFromReseeding]:
    """Why MONAI's per-worker reseeding misses the pipeline ``draw`` runs for the dataset
    ``instance``; None when it reaches it, or when seedlint cannot tell."""
    if draw.entry.library != "monai" or not isinstance(instance, ExternalInstance):
        return None
    if not instance.qualified.startswith("monai."):
        return None
    dataset_class = instance.qualified.rsplit(".", 1)[-1]
    monai = project.settings_for(instance.site.frame.module.path).library_version("monai")

    def verdict(since: Optional[str]) -> Optional[tuple]:
        if since is None:
            return (True,)
        if not monai.may_be_at_least(since):
            return None
        return (not monai.may_be_below(since),)

    if dataset_class in MONAI_RANDOMIZABLE_DATASETS:
        since = MONAI_RANDOMIZABLE_DATASETS[dataset_class]
        found = verdict(since)
        if found is not None:
            return HiddenFromReseeding(dataset_class, None, since, found[0])
    if dataset_class not in MONAI_COMPOSE_WRAPPING_DATASETS or draw.reached is None:
        return None
    root = draw.reached
    while root.via is not None:
        root = root.via
    receiver = root.frame.receiver
    if not isinstance(receiver, Instance) or project.index.method(receiver.cls, "set_random_state") is not None:
        return None
    since = MONAI_COMPOSE_WRAPPING_DATASETS[dataset_class]
    found = verdict(since)
    if found is None:
        return None
    held = method = None
    if draw.reached is root and isinstance(draw.call.func, Name):
        held, method = draw.call.func.dotted, root.function.function.qualname
    return HiddenFromReseeding(dataset_class, receiver.cls.cls.qualname, since, found[0], held, method)
