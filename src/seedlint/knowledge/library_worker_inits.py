"""The ``worker_init_fn``s libraries ship, by what they reseed in each worker.

A library's ``worker_init_fn`` passed to a loader (``worker_init_fn=worker_init_reset_seed``)
reseeds some process-wide RNGs and nothing else: an augmentation library's own RNG (imgaug's,
albumentations' per-object generators, MONAI's ``Randomizable.R``) stays the copy every worker
got from the parent. A function not listed here is assumed to reseed everything.

Sources (the versions read):
- detectron2 0.6: ``detectron2/data/build.py`` ``worker_init_reset_seed`` calls
  ``seed_all_rng(torch.initial_seed() % 2**31 + worker_id)``, which seeds NumPy, torch and
  ``random`` (``detectron2/utils/env.py``).
- transformers 4.x: ``trainer_utils.seed_worker`` (``trainer_pt_utils`` before 4.44) calls
  ``set_seed`` with ``torch.initial_seed() % 2**32`` (plus ``num_workers * rank`` from 4.46):
  ``random``, NumPy and torch.
- Lightning 2.6.6 (1.x the same): ``pl_worker_init_function`` seeds torch, ``random`` and NumPy
  from a seed sequence of the worker's base seed, its id and the global rank.
- timm 0.9-1.0: ``timm/data/loader.py`` ``_worker_init`` reseeds NumPy from
  ``worker_info.seed`` (torch and ``random`` are torch's own per-worker seeds).
- MONAI 1.6.1: ``monai/data/utils.py`` ``worker_init_fn`` calls ``set_rnd(worker_info.dataset,
  seed=worker_info.seed)``: the MONAI transforms the dataset holds, and nothing global.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import FrozenSet, Optional, Tuple

NUMPY, PYTHON_RANDOM, TORCH = "numpy", "random", "torch"


@dataclass(frozen=True)
class LibraryWorkerInit:
    names: Tuple[str, ...]
    """Qualified names it is imported under."""
    streams: FrozenSet[str]
    """Process-wide RNGs it reseeds, from a seed that differs per worker and per epoch."""
    libraries: FrozenSet[str] = frozenset()
    """Augmentation libraries (``HeldRng.library``) whose RNGs it reseeds."""


LIBRARY_WORKER_INITS: Tuple[LibraryWorkerInit, ...] = (
    LibraryWorkerInit(
        ("detectron2.data.build.worker_init_reset_seed",),
        frozenset({NUMPY, PYTHON_RANDOM, TORCH}),
    ),
    LibraryWorkerInit(
        ("transformers.trainer_utils.seed_worker", "transformers.trainer_pt_utils.seed_worker"),
        frozenset({NUMPY, PYTHON_RANDOM, TORCH}),
    ),
    LibraryWorkerInit(
        (
            "lightning.fabric.utilities.seed.pl_worker_init_function",
            "lightning_fabric.utilities.seed.pl_worker_init_function",
            "lightning.pytorch.utilities.seed.pl_worker_init_function",
            "pytorch_lightning.utilities.seed.pl_worker_init_function",
        ),
        frozenset({NUMPY, PYTHON_RANDOM, TORCH}),
    ),
    LibraryWorkerInit(("timm.data.loader._worker_init",), frozenset({NUMPY})),
    LibraryWorkerInit(("monai.data.utils.worker_init_fn", "monai.data.worker_init_fn"), frozenset(), frozenset({"monai"})),
)


def library_worker_init(qualified: str) -> Optional[LibraryWorkerInit]:
    """The catalogue entry of a library ``worker_init_fn``, or None when it is not known."""
    return next((entry for entry in LIBRARY_WORKER_INITS if qualified in entry.names), None)
